//! `dmlrun merge`.

use std::path::PathBuf;

use clap::Args;

use super::help::CHECKING;
use super::ExportArgs;

/// `dmlrun merge`.
#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// JSON reports of `dmlrun test` or `dmlrun bench`: the N shards of one run (`--shard K/N`),
    /// or, with --compare, whole runs of the same work on different machines or devices.
    ///
    /// Example: dmlrun merge shard-1.json shard-2.json shard-3.json shard-4.json --json all.json
    #[arg(value_name = "REPORT", required = true)]
    pub reports: Vec<PathBuf>,

    /// Put whole runs side by side instead: per case or model each run's status (and bench's
    /// p50, the fastest marked where its runs are significantly faster than every other run's
    /// (the test of bench --baseline), and max |diff| where --compare-ep found outputs apart),
    /// the ones whose verdicts disagree first.
    ///
    /// Example: dmlrun merge --compare h100.json arc.json --markdown compare.md
    #[arg(long, help_heading = CHECKING)]
    pub compare: bool,

    #[command(flatten)]
    pub exports: ExportArgs,
}
