//! `dmlrun merge`'s settings.

use super::*;

/// `dmlrun merge`'s flags, resolved once: the reports, and where the merged one goes (at most one
/// of them on standard output).
#[derive(Debug, Clone)]
pub struct MergeSettings {
    pub reports: Vec<PathBuf>,
    /// `--compare`: runs side by side, not shards of one run.
    pub compare: bool,
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub csv: Option<PathBuf>,
}

impl MergeSettings {
    pub fn resolve(args: &MergeArgs) -> Result<MergeSettings> {
        crate::report::check_one_on_stdout(&[
            ("--json", args.json.as_deref()),
            ("--junit", args.junit.as_deref()),
            ("--html", args.html.as_deref()),
            ("--markdown", args.markdown.as_deref()),
            ("--csv", args.csv.as_deref()),
        ])?;
        Ok(MergeSettings {
            reports: args.reports.clone(),
            compare: args.compare,
            json: args.json.clone(),
            junit: args.junit.clone(),
            html: args.html.clone(),
            markdown: args.markdown.clone(),
            csv: args.csv.clone(),
        })
    }
}
