//! `dmlrun merge REPORT...`: shards back into one run's report, or runs side by side.

use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::cli::MergeArgs;
use crate::exit::ExitStatus;
use crate::report::bench::{csv::CsvExporter, json::JsonExporter, markdown::MarkdownExporter, Exporter};
use crate::report::html::bench::HtmlExporter;
use crate::report::merge::{self, Report};

pub fn execute(args: &MergeArgs) -> Result<ExitStatus> {
    crate::report::check_one_on_stdout(&[
        ("--json", args.json.as_deref()),
        ("--junit", args.junit.as_deref()),
        ("--html", args.html.as_deref()),
        ("--markdown", args.markdown.as_deref()),
        ("--csv", args.csv.as_deref()),
    ])?;
    // Every report is read, and they are checked to fit together, before anything is written.
    let reports = args.reports.iter().map(|p| Ok((p.clone(), Report::read(p)?))).collect::<Result<Vec<_>>>()?;
    if args.compare {
        refuse(&args.junit, "--junit", "a comparison")?;
        refuse(&args.csv, "--csv", "a comparison")?;
        let comparison = merge::compare(reports)?;
        let mut on_stdout = emit(&args.json, "--json", || Ok(serde_json::to_string_pretty(&comparison)? + "\n"))?;
        on_stdout |= emit(&args.markdown, "--markdown", || Ok(comparison.markdown()))?;
        on_stdout |= emit(&args.html, "--html", || Ok(comparison.html()))?;
        if !on_stdout {
            crate::out!("{}", comparison.markdown());
        }
        return Ok(if comparison.disagreements > 0 { ExitStatus::Failed } else { ExitStatus::Success });
    }
    let merged = merge::merge_shards(reports)?;
    let (on_stdout, summary) = match &merged {
        Report::Test(report) => {
            refuse(&args.markdown, "--markdown", "a test report")?;
            refuse(&args.csv, "--csv", "a test report")?;
            let mut on_stdout = emit(&args.json, "--json", || Ok(serde_json::to_string_pretty(report)? + "\n"))?;
            on_stdout |= emit(&args.junit, "--junit", || crate::report::test::junit::render(report))?;
            on_stdout |= emit(&args.html, "--html", || Ok(crate::report::html::test::render(report)))?;
            (on_stdout, crate::report::test::human::render(report, false, false, None))
        }
        Report::Bench(report) => {
            refuse(&args.junit, "--junit", "a bench report")?;
            let mut on_stdout = emit(&args.json, "--json", || JsonExporter.render(report))?;
            on_stdout |= emit(&args.csv, "--csv", || CsvExporter.render(report))?;
            on_stdout |= emit(&args.markdown, "--markdown", || MarkdownExporter.render(report))?;
            on_stdout |= emit(&args.html, "--html", || HtmlExporter.render(report))?;
            (on_stdout, crate::report::bench::human::render(report))
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

/// Renders and writes one requested export (`-`: stdout); renders nothing not asked for.
/// Returns whether it went to stdout.
fn emit(path: &Option<PathBuf>, flag: &str, render: impl FnOnce() -> Result<String>) -> Result<bool> {
    match path {
        Some(path) => crate::report::write_text(path, &render()?, flag),
        None => Ok(false),
    }
}

/// A test run without `--expect` fails on any case that did not pass; with it, only on the
/// unexpected ones (as `dmlrun test` exits).
fn no_expectations(report: &crate::report::test::TestReport) -> bool {
    report.cases.iter().all(|c| c.expected_status.is_none()) && report.summary.now_passing.is_empty()
}

fn refuse(flag: &Option<PathBuf>, name: &str, what: &str) -> Result<()> {
    if flag.is_some() {
        bail!("{name}: there is no such file for {what}");
    }
    Ok(())
}
