//! `dmlrun merge`: the JSON reports of the N shards of one run put back into the report the
//! unsharded run would have written, and the reports of the same work on several machines or
//! devices put side by side as one comparison, whose formats are `markdown.rs` and `html.rs`
//! (its JSON the comparison serialized).

mod html;
mod markdown;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use super::bench::{BenchReport, ModelStatus, BENCH_SCHEMA};
use super::validation::{Status, Summary, TestReport, TEST_SCHEMA};
use crate::report::export::{Exporter, Format, Formats};
use crate::suites::shard::ShardInfo;

/// A comparison of runs is a table: JSON, Markdown and HTML; no CSV or JUnit.
impl Formats for Comparison {
    const WHAT: &'static str = "a comparison";

    fn exporter(format: Format) -> Option<Box<dyn Exporter<Self>>> {
        match format {
            Format::Json => Some(Box::new(|c: &Comparison| crate::report::json_text(c))),
            Format::Markdown => Some(Box::new(|c: &Comparison| Ok(c.markdown()))),
            Format::Html => Some(Box::new(|c: &Comparison| Ok(c.html()))),
            Format::Csv | Format::Junit => None,
        }
    }
}

/// Schema identifier of the comparison.
pub const COMPARE_SCHEMA: &str = "dmlrun.compare/1";

/// A report as read from its file.
#[derive(Debug, Clone)]
pub enum Report {
    Test(Box<TestReport>),
    Bench(Box<BenchReport>),
}

impl Report {
    /// Reads a `dmlrun test` or `dmlrun bench` JSON report; a file that is not one whole is an
    /// error naming it.
    pub fn read(path: &Path) -> Result<Report> {
        let text = crate::fsutil::read_text(path).with_context(|| format!("reading {}", path.display()))?;
        Report::parse(&text, path)
    }

    /// A report's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Report> {
        let value: serde_json::Value = serde_json::from_str(text)
            .with_context(|| format!("{}: not a whole JSON report (cut short, or not JSON)", path.display()))?;
        let schema = value.get("schema").and_then(|s| s.as_str()).unwrap_or("none").to_string();
        let report = match schema.as_str() {
            TEST_SCHEMA => serde_json::from_value(value).map(|r| Report::Test(Box::new(r))),
            BENCH_SCHEMA => serde_json::from_value(value).map(|r| Report::Bench(Box::new(r))),
            other => bail!(
                "{}: schema '{other}' is not one dmlrun merge takes ({TEST_SCHEMA} from dmlrun test --json, {BENCH_SCHEMA} from dmlrun bench --json)",
                path.display()
            ),
        };
        report.with_context(|| format!("{}: a {schema} report with fields missing or malformed", path.display()))
    }

    fn kind(&self) -> &'static str {
        match self {
            Report::Test(_) => "test",
            Report::Bench(_) => "bench",
        }
    }

    fn version(&self) -> &str {
        match self {
            Report::Test(r) => &r.dmlrun_version,
            Report::Bench(r) => &r.dmlrun_version,
        }
    }

    fn shard(&self) -> Option<ShardInfo> {
        match self {
            Report::Test(r) => r.shard.clone(),
            Report::Bench(r) => r.shard.clone(),
        }
    }

    /// What must be the same in every shard of one run: the ONNX Runtime, and for `test` the
    /// plan and reference; for `bench` the machine.
    fn run_identity(&self) -> String {
        match self {
            Report::Test(r) => format!(
                "onnxruntime {}, plan {}, reference {}",
                r.onnxruntime.version,
                r.plan_request,
                r.reference.as_deref().unwrap_or("none")
            ),
            Report::Bench(r) => format!(
                "onnxruntime {}, machine {} {}",
                r.onnxruntime.version,
                r.machine.os,
                r.machine.cpu.as_deref().unwrap_or("?")
            ),
        }
    }

    /// The names of the cases or models it holds.
    fn items(&self) -> Vec<&str> {
        match self {
            Report::Test(r) => r.cases.iter().map(|c| c.name.as_str()).collect(),
            Report::Bench(r) => {
                r.models.iter().map(|m| m.name.as_str()).chain(r.failed.iter().map(|f| f.name.as_str())).collect()
            }
        }
    }
}

/// A test report merges and compares only with test reports, a bench report with bench reports.
fn same_kind(path: &Path, report: &Report, first_path: &Path, first: &Report) -> Result<()> {
    if report.kind() != first.kind() {
        bail!(
            "{}: a {} report, and {} is a {} report",
            path.display(),
            report.kind(),
            first_path.display(),
            first.kind()
        );
    }
    Ok(())
}

/// Checks that `reports` are the N shards of one run, each once, and returns the report that
/// run would have written unsharded: cases (models) in name order, the summary counted again,
/// the durations the longest shard's (they ran side by side).
pub fn merge_shards(reports: Vec<(PathBuf, Report)>) -> Result<Report> {
    let (first_path, first) = reports.first().context("no report to merge")?;
    let Some(info) = first.shard() else {
        bail!("{}: not a shard (the run that wrote it had no --shard)", first_path.display());
    };
    let mut by_index: BTreeMap<usize, &Path> = BTreeMap::new();
    let mut seen: BTreeMap<&str, &Path> = BTreeMap::new();
    for (path, report) in &reports {
        same_kind(path, report, first_path, first)?;
        if report.version() != first.version() {
            bail!(
                "{}: written by dmlrun {}, and {} by dmlrun {}: merge shards of one dmlrun version",
                path.display(),
                report.version(),
                first_path.display(),
                first.version()
            );
        }
        let Some(s) = report.shard() else {
            bail!("{}: not a shard (the run that wrote it had no --shard)", path.display());
        };
        if (s.shard.total, s.shard.mode, s.of_items) != (info.shard.total, info.shard.mode, info.of_items) {
            bail!(
                "{}: shard {} of {} items, and {} is shard {} of {}: not shards of one run",
                path.display(),
                s.shard,
                s.of_items,
                first_path.display(),
                info.shard,
                info.of_items
            );
        }
        if report.run_identity() != first.run_identity() {
            bail!(
                "{}: {}, and {}: {}: not shards of one run",
                path.display(),
                report.run_identity(),
                first_path.display(),
                first.run_identity()
            );
        }
        if let Some(other) = by_index.insert(s.shard.index, path) {
            bail!("{} and {} are both shard {}: overlapping shards", other.display(), path.display(), s.shard);
        }
        for item in report.items() {
            if let Some(other) = seen.insert(item, path) {
                bail!("'{item}' is in {} and in {}: overlapping shards", other.display(), path.display());
            }
        }
    }
    let missing: Vec<String> =
        (1..=info.shard.total).filter(|i| !by_index.contains_key(i)).map(|i| i.to_string()).collect();
    if !missing.is_empty() {
        bail!("shard(s) {} of {} missing: merge takes all N shards of a run", missing.join(", "), info.shard.total);
    }
    if seen.len() != info.of_items {
        bail!(
            "the shards hold {} items, but the run they come from had {}: a shard is incomplete",
            seen.len(),
            info.of_items
        );
    }
    Ok(match first.kind() {
        "test" => Report::Test(Box::new(merge_tests(reports.into_iter().filter_map(|(_, r)| match r {
            Report::Test(t) => Some(*t),
            Report::Bench(_) => None,
        })))),
        _ => Report::Bench(Box::new(merge_benches(reports.into_iter().filter_map(|(_, r)| match r {
            Report::Bench(b) => Some(*b),
            Report::Test(_) => None,
        })))),
    })
}

fn merge_tests(shards: impl Iterator<Item = TestReport>) -> TestReport {
    let mut shards = shards.peekable();
    let mut merged = shards.peek().cloned().expect("at least one shard");
    merged.cases.clear();
    merged.skipped.clear();
    merged.shard = None;
    let mut unexpected = BTreeSet::new();
    let mut now_passing = BTreeSet::new();
    let mut skipped = BTreeMap::new();
    let mut duration_ms: f64 = 0.0;
    for shard in shards {
        merged.cases.extend(shard.cases);
        unexpected.extend(shard.summary.unexpected);
        now_passing.extend(shard.summary.now_passing);
        for s in shard.skipped {
            skipped.entry(s.dir.clone()).or_insert(s);
        }
        duration_ms = duration_ms.max(shard.summary.duration_ms);
        merged.interrupted |= shard.interrupted;
    }
    merged.cases.sort_by(|a, b| a.name.cmp(&b.name));
    merged.skipped = skipped.into_values().collect();
    let count = |status: Status| merged.cases.iter().filter(|c| c.status == status).count();
    merged.summary = Summary {
        total: merged.cases.len(),
        passed: count(Status::Pass),
        failed: count(Status::Fail),
        errors: count(Status::Error),
        crashed: count(Status::Crash),
        timed_out: count(Status::Timeout),
        interrupted: count(Status::Interrupted),
        unexpected: unexpected.into_iter().collect(),
        now_passing: now_passing.into_iter().collect(),
        duration_ms,
    };
    merged
}

fn merge_benches(shards: impl Iterator<Item = BenchReport>) -> BenchReport {
    let mut shards = shards.peekable();
    let mut merged = shards.peek().cloned().expect("at least one shard");
    merged.models.clear();
    merged.failed.clear();
    merged.shard = None;
    for shard in shards {
        merged.models.extend(shard.models);
        merged.failed.extend(shard.failed);
        merged.interrupted |= shard.interrupted;
    }
    merged.models.sort_by(|a, b| a.name.cmp(&b.name));
    merged.failed.sort_by(|a, b| a.name.cmp(&b.name));
    merged
}

/// One run in a comparison: its label (the file's name) and where it ran.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    pub label: String,
    pub file: PathBuf,
    pub ran_on: String,
}

/// One run's result for one case or model.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_abs_diff: Option<f64>,
    /// Bench: the timed runs and their rounds, for the test that names a fastest run.
    #[serde(skip)]
    pub samples_ms: Vec<f64>,
    #[serde(skip)]
    pub rounds: Vec<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub name: String,
    /// One per run, in the runs' order; `None` where a run has no such case or model.
    pub results: Vec<Option<Cell>>,
    /// Every run that has it gives it the same status.
    pub agree: bool,
    /// Bench: the run with the lowest p50, where it is significantly faster than every other
    /// (the test of `bench --baseline`, with no threshold).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fastest: Option<usize>,
    /// Bench: the run with the lowest p50 and those the test cannot tell from it: no
    /// significant difference, said as a tie.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tied_fastest: Vec<usize>,
}

/// The same work on several machines or devices, side by side (schema [`COMPARE_SCHEMA`]).
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub schema: &'static str,
    pub dmlrun_version: &'static str,
    pub kind: &'static str,
    pub runs: Vec<Run>,
    /// Disagreeing verdicts first, then by name.
    pub rows: Vec<Row>,
    pub disagreements: usize,
}

/// Puts whole runs (no shards: merge those first) of one kind side by side.
pub fn compare(reports: Vec<(PathBuf, Report)>) -> Result<Comparison> {
    let (first_path, first) = reports.first().context("no report to compare")?;
    if reports.len() < 2 {
        bail!("--compare puts two runs or more side by side; {} is one (give another report)", first_path.display());
    }
    for (path, report) in &reports {
        same_kind(path, report, first_path, first)?;
        if let Some(s) = report.shard() {
            bail!(
                "{}: shard {} of a run; merge the shards of each run first (dmlrun merge SHARD... --json RUN.json), then compare the runs",
                path.display(),
                s.shard
            );
        }
    }
    let mut runs = Vec::new();
    let mut table: BTreeMap<String, Vec<Option<Cell>>> = BTreeMap::new();
    let n = reports.len();
    for (i, (path, report)) in reports.iter().enumerate() {
        let label = path.file_stem().map_or_else(|| format!("run {}", i + 1), |s| s.to_string_lossy().into_owned());
        let (cells, ran_on) = cells_of(report);
        for (name, cell) in cells {
            table.entry(name).or_insert_with(|| vec![None; n])[i] = Some(cell);
        }
        runs.push(Run { label, file: path.clone(), ran_on });
    }
    let mut rows: Vec<Row> = table
        .into_iter()
        .map(|(name, results)| {
            let statuses: BTreeSet<&str> = results.iter().flatten().map(|c| c.status.as_str()).collect();
            let (fastest, tied_fastest) = fastest_of(&results);
            let agree = statuses.len() <= 1 && results.iter().all(Option::is_some);
            Row { agree, name, results, fastest, tied_fastest }
        })
        .collect();
    rows.sort_by(|a, b| a.agree.cmp(&b.agree).then_with(|| a.name.cmp(&b.name)));
    let disagreements = rows.iter().filter(|r| !r.agree).count();
    Ok(Comparison {
        schema: COMPARE_SCHEMA,
        dmlrun_version: env!("CARGO_PKG_VERSION"),
        kind: first.kind(),
        runs,
        rows,
        disagreements,
    })
}

/// Each case's or model's cell of one run, and what the run ran on.
fn cells_of(report: &Report) -> (Vec<(String, Cell)>, String) {
    let mut cells = Vec::new();
    let ran_on = match report {
        Report::Test(r) => {
            for c in &r.cases {
                cells.push((
                    c.name.clone(),
                    Cell {
                        status: c.status.word().to_string(),
                        p50_ms: None,
                        max_abs_diff: c.max_abs_diff,
                        samples_ms: Vec::new(),
                        rounds: Vec::new(),
                    },
                ));
            }
            format!("{} (onnxruntime {})", r.plan_request, r.onnxruntime.version)
        }
        Report::Bench(r) => {
            for m in &r.models {
                // The largest difference among the outputs --compare-ep found apart.
                let diff = m
                    .comparison
                    .as_ref()
                    .and_then(|c| c.iter().filter_map(|x| x.values.as_ref()?.diff).reduce(f64::max));
                cells.push((
                    m.name.clone(),
                    Cell {
                        status: ModelStatus::Ok.word().to_string(),
                        p50_ms: Some(m.latency_ms.p50),
                        max_abs_diff: diff,
                        samples_ms: m.samples_ms.clone(),
                        rounds: m.rounds.clone(),
                    },
                ));
            }
            for f in &r.failed {
                let status = f.status.word().to_string();
                cells.push((
                    f.name.clone(),
                    Cell { status, p50_ms: None, max_abs_diff: None, samples_ms: vec![], rounds: vec![] },
                ));
            }
            let device = r.models.first().map(|m| m.device.describe()).unwrap_or_else(|| "no model measured".into());
            let cpu = r.machine.cpu.as_deref().unwrap_or("?");
            let plan = r.models.first().map(|m| plan_words(&m.plan)).unwrap_or_default();
            format!("{device}{plan}, {} {cpu} (onnxruntime {})", r.machine.os, r.onnxruntime.version)
        }
    };
    (cells, ran_on)
}

/// The run with the lowest p50 where the test finds every other one slower; else that run and
/// those the test cannot tell from it, as a tie. Runs without their timed runs (a report from
/// before dmlrun kept them) are never called faster or slower.
/// What of a session's plan tells two runs on one device apart: `, opt-level basic, precision
/// fp16, --decompose LayerNormalization, session-config KEY=VALUE`.
fn plan_words(plan: &crate::runtime::plan::SessionPlan) -> String {
    let mut words = vec![format!("opt-level {}", plan.optimization_level)];
    if plan.precision != crate::runtime::plan::Precision::Fp32 {
        words.push(format!("precision {}", plan.precision));
    }
    words.extend(plan.rewrites.iter().map(|r| r.flag()));
    words.extend(plan.session_config.iter().map(|(k, v)| format!("session-config {k}={v}")));
    words.extend(plan.provider_options.iter().map(|(k, v)| format!("ep-option {k}={v}")));
    format!(", {}", words.join(", "))
}

fn fastest_of(results: &[Option<Cell>]) -> (Option<usize>, Vec<usize>) {
    use crate::stats::change::{judge, Timed, Verdict};
    let timed: Vec<(usize, &Cell)> =
        results.iter().enumerate().filter_map(|(i, c)| Some((i, c.as_ref().filter(|c| c.p50_ms.is_some())?))).collect();
    let Some(&(lowest, best)) = timed.iter().min_by(|a, b| a.1.p50_ms.unwrap().total_cmp(&b.1.p50_ms.unwrap())) else {
        return (None, Vec::new());
    };
    if timed.len() < 2 {
        return (None, Vec::new());
    }
    fn as_timed(c: &Cell) -> Timed<'_> {
        Timed { samples: &c.samples_ms, rounds: &c.rounds }
    }
    let tied: Vec<usize> = timed
        .iter()
        .filter(|(i, c)| {
            *i == lowest
                || judge(as_timed(best), as_timed(c), 0.0).is_none_or(|change| change.verdict != Verdict::Regression)
        })
        .map(|(i, _)| *i)
        .collect();
    match tied.as_slice() {
        [one] => (Some(*one), Vec::new()),
        _ => (None, tied),
    }
}

/// A run's cell of a row: its status, p50 and how it ranks, its largest difference.
pub(super) fn cell_text(row: &Row, run: usize) -> String {
    let Some(c) = &row.results[run] else { return "-".to_string() };
    let mut text = c.status.clone();
    if let Some(p50) = c.p50_ms {
        let rank = if row.fastest == Some(run) {
            " (fastest)"
        } else if row.tied_fastest.contains(&run) {
            " (tied fastest: no significant difference)"
        } else {
            ""
        };
        let _ = write!(text, " {p50:.3} ms{rank}");
    }
    if let Some(d) = c.max_abs_diff {
        let _ = write!(text, ", max |diff| {d:.1e}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(center: f64, spread: f64) -> Option<Cell> {
        let samples_ms: Vec<f64> = (0..100).map(|i| center + spread * ((i * 37 % 11) as f64 - 5.0) / 5.0).collect();
        Some(Cell { status: "ok".into(), p50_ms: Some(center), max_abs_diff: None, samples_ms, rounds: vec![10; 10] })
    }

    #[test]
    fn a_fastest_run_is_named_only_where_the_test_says_so() {
        // 5% apart, well outside a noise of ±0.5%: the fastest.
        assert_eq!(fastest_of(&[cell(10.5, 0.05), cell(10.0, 0.05), None]), (Some(1), vec![]));
        // 5% apart inside a noise of ±50%: no significant difference, said as a tie.
        assert_eq!(fastest_of(&[cell(10.5, 5.0), cell(10.0, 5.0)]), (None, vec![0, 1]));
        // Reports without their runs: nobody is called faster.
        let mut old = cell(9.0, 0.01);
        old.as_mut().unwrap().samples_ms.clear();
        assert_eq!(fastest_of(&[old, cell(10.0, 0.01)]), (None, vec![0, 1]));
        assert_eq!(fastest_of(&[cell(10.0, 0.01)]), (None, vec![]));
    }
}
