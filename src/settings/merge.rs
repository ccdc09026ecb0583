//! `dmlrun merge`'s settings.

use super::*;

/// `dmlrun merge`'s flags, resolved once: the reports, and where the merged one goes (at most one
/// of them on standard output).
#[derive(Debug, Clone)]
pub struct MergeSettings {
    pub reports: Vec<PathBuf>,
    /// `--compare`: runs side by side, not shards of one run.
    pub compare: bool,
    pub exports: ReportFiles,
}

impl MergeSettings {
    pub fn resolve(args: &MergeArgs) -> Result<MergeSettings> {
        let exports = report_files(&args.exports);
        crate::report::check_one_on_stdout(&[
            ("--json", exports.json.as_deref()),
            ("--junit", exports.junit.as_deref()),
            ("--html", exports.html.as_deref()),
            ("--markdown", exports.markdown.as_deref()),
            ("--csv", exports.csv.as_deref()),
        ])?;
        Ok(MergeSettings { reports: args.reports.clone(), compare: args.compare, exports })
    }
}
