//! `dmlrun merge REPORT...`: shards back into one run's report, or runs side by side.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use crate::cli::MergeArgs;
use crate::exit::ExitStatus;
use crate::report::bench::{csv::CsvExporter, json::JsonExporter, markdown::MarkdownExporter, Exporter};
use crate::report::html::bench::HtmlExporter;
use crate::report::merge::{self, Report};

pub fn execute(args: &MergeArgs) -> Result<ExitStatus> {
    // Every report is read, and they are checked to fit together, before anything is written.
    let reports = args.reports.iter().map(|p| Ok((p.clone(), Report::read(p)?))).collect::<Result<Vec<_>>>()?;
    if args.compare {
        let comparison = merge::compare(reports)?;
        let mut files: Vec<(&Option<PathBuf>, &str, String)> = vec![
            (&args.json, "--json", serde_json::to_string_pretty(&comparison)? + "\n"),
            (&args.markdown, "--markdown", comparison.markdown()),
            (&args.html, "--html", comparison.html()),
        ];
        refuse(&args.junit, "--junit", "a comparison")?;
        refuse(&args.csv, "--csv", "a comparison")?;
        let on_stdout = write_all(&mut files)?;
        if !on_stdout {
            crate::out!("{}", comparison.markdown());
        }
        return Ok(if comparison.disagreements > 0 { ExitStatus::Failed } else { ExitStatus::Success });
    }
    let merged = merge::merge_shards(reports)?;
    let mut files: Vec<(&Option<PathBuf>, &str, String)> = Vec::new();
    let summary = match &merged {
        Report::Test(report) => {
            refuse(&args.markdown, "--markdown", "a test report")?;
            refuse(&args.csv, "--csv", "a test report")?;
            files.push((&args.json, "--json", serde_json::to_string_pretty(report)? + "\n"));
            files.push((&args.junit, "--junit", crate::report::test::junit::render(report)?));
            files.push((&args.html, "--html", crate::report::html::test::render(report)));
            crate::report::test::human::render(report, false, false, None)
        }
        Report::Bench(report) => {
            refuse(&args.junit, "--junit", "a bench report")?;
            files.push((&args.json, "--json", JsonExporter.render(report)?));
            files.push((&args.csv, "--csv", CsvExporter.render(report)?));
            files.push((&args.markdown, "--markdown", MarkdownExporter.render(report)?));
            files.push((&args.html, "--html", HtmlExporter.render(report)?));
            crate::report::bench::human::render(report)
        }
    };
    let on_stdout = write_all(&mut files)?;
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
fn no_expectations(report: &crate::report::test::TestReport) -> bool {
    report.cases.iter().all(|c| c.expected_status.is_none()) && report.summary.now_passing.is_empty()
}

fn refuse(flag: &Option<PathBuf>, name: &str, what: &str) -> Result<()> {
    if flag.is_some() {
        bail!("{name}: there is no such file for {what}");
    }
    Ok(())
}

/// Writes each requested file atomically, one `-` to stdout; whether one went to stdout.
fn write_all(files: &mut [(&Option<PathBuf>, &str, String)]) -> Result<bool> {
    let mut on_stdout = false;
    for (path, flag, text) in files.iter() {
        let Some(path) = path else { continue };
        if path == Path::new("-") {
            crate::out!("{text}");
            on_stdout = true;
        } else {
            crate::fsutil::write_atomic(path, text.as_bytes())
                .map_err(|e| anyhow::anyhow!("{flag} {}: {e}", path.display()))?;
        }
    }
    Ok(on_stdout)
}
