//! `dmlrun merge REPORT...`: shards back into one run's report, or runs side by side.

use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::cli::MergeArgs;
use crate::exit::ExitStatus;
use crate::report::export::{Export, Exports};
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
        refuse(&to.junit, "--junit", "a comparison")?;
        refuse(&to.csv, "--csv", "a comparison")?;
        let comparison = merge::compare(reports)?;
        let mut exports = Exports::checked([
            Export::of("--json", to.json.as_deref(), |c: &Comparison| crate::report::json_text(c)),
            Export::of("--markdown", to.markdown.as_deref(), |c: &Comparison| Ok(c.markdown())),
            Export::of("--html", to.html.as_deref(), |c: &Comparison| Ok(c.html())),
        ])?;
        if !exports.finish(&comparison)? {
            crate::out!("{}", comparison.markdown());
        }
        return Ok(if comparison.disagreements > 0 { ExitStatus::Failed } else { ExitStatus::Success });
    }
    let merged = merge::merge_shards(reports)?;
    let (on_stdout, summary) = match &merged {
        Report::Test(report) => {
            let mut exports = Exports::checked(crate::report::test_exports(to, None))?;
            (exports.finish(report)?, crate::report::validation::human::render(report, false, false, None))
        }
        Report::Bench(report) => {
            let mut exports = Exports::checked(crate::report::bench_exports(to))?;
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

fn refuse(flag: &Option<PathBuf>, name: &str, what: &str) -> Result<()> {
    if flag.is_some() {
        bail!("{name}: there is no such file for {what}");
    }
    Ok(())
}
