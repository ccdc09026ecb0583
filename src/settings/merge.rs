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
        // Two exports to stdout are refused where they are opened (`Exports::checked`).
        Ok(MergeSettings { reports: args.reports.clone(), compare: args.compare, exports: report_files(&args.exports) })
    }
}
