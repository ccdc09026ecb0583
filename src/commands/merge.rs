//! `dmlrun merge REPORT...`: shards back into one run's report, or runs side by side.

use anyhow::Result;

use crate::cli::MergeArgs;
use crate::exit::ExitStatus;
use crate::report::bench::BenchReport;
use crate::report::export::{Exports, Formats};
use crate::report::merge::{self, Comparison, Report};
use crate::settings::MergeSettings;

pub fn execute(args: &MergeArgs) -> Result<ExitStatus> {
    merge_reports(&MergeSettings::resolve(args)?)
}

fn merge_reports(settings: &MergeSettings) -> Result<ExitStatus> {
    // Every report is read, and they are checked to fit together, before anything is written.
    let reports = settings.reports.iter().map(|p| Ok((p.clone(), Report::read(p)?))).collect::<Result<Vec<_>>>()?;
    let to = &settings.exports;
    if settings.compare {
        let exports = Comparison::exports(to)?;
        let comparison = merge::compare(reports)?;
        let mut exports = Exports::checked(exports)?;
        if !exports.finish(&comparison)? {
            crate::out!("{}", comparison.markdown());
        }
        return Ok(if comparison.disagreements > 0 { ExitStatus::Failed } else { ExitStatus::Success });
    }
    let merged = merge::merge_shards(reports)?;
    let (on_stdout, summary) = match &merged {
        Report::Test(report) => {
            let mut exports = Exports::checked(crate::report::test_exports(to, None)?)?;
            (exports.finish(report)?, crate::report::validation::human::render(report, false, false, None))
        }
        Report::Bench(report) => {
            let mut exports = Exports::checked(BenchReport::exports(to)?)?;
            (exports.finish(report)?, crate::report::bench::human::render(report))
        }
    };
    if !on_stdout {
        crate::out!("{summary}");
    }
    let failed = match &merged {
        Report::Test(r) => {
            !r.summary.unexpected.is_empty() || (r.summary.passed < r.summary.total && no_expectations(r))
        }
        Report::Bench(r) => !r.failed.is_empty(),
    };
    Ok(if failed { ExitStatus::Failed } else { ExitStatus::Success })
}

/// A test run without `--expect` fails on any case that did not pass; with it, only on the
/// unexpected ones (as `dmlrun test` exits).
fn no_expectations(report: &crate::report::validation::TestReport) -> bool {
    report.cases.iter().all(|c| c.expected_status.is_none()) && report.summary.now_passing.is_empty()
}
