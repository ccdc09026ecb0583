//! GitHub Actions: the job's summary page and annotations on the run.
//!
//! The summary is Markdown appended to the file `$GITHUB_STEP_SUMMARY` names (GitHub shows at
//! most 1 MiB of it a step): the totals, where it ran, then one row per item, the failed first.
//! Annotations are workflow commands (`::error file=...,title=...::message`), one per failed
//! item (GitHub shows about ten of each kind a step: ten, then one `::warning` saying how many
//! more), and a `::notice` with the totals. They go to stderr: the runner reads workflow
//! commands from both streams (its script handler gives each an output manager), so what a pipe
//! on stdout receives (`--json -`) is unchanged.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// What GitHub shows of a summary a step.
pub const SUMMARY_LIMIT: usize = 1 << 20;
/// Annotations of one kind GitHub shows a step.
pub const ANNOTATION_LIMIT: usize = 10;

/// One item of a run (a test case, a bench model, a prompt), as the summary lists it.
#[derive(Debug, Clone)]
pub struct Item {
    pub name: String,
    /// The model, for the annotation's `file=`.
    pub file: Option<PathBuf>,
    /// `pass`, `fail`, `regression`, `ok`, ...
    pub status: String,
    /// One line: the reason it failed, or its figures.
    pub detail: String,
    pub failed: bool,
}

/// A command's outcome, as GitHub shows it.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// `dmlrun test`, `dmlrun bench`, `dmlrun generate`.
    pub command: String,
    /// One line: the counts.
    pub totals: String,
    /// Where it ran: the EP and device, ONNX Runtime.
    pub ran_on: String,
    pub items: Vec<Item>,
}

/// Where the outcome goes: the summary file (None: annotations only, the variable being unset),
/// and the workspace the annotations' files are relative to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub summary: Option<PathBuf>,
    pub workspace: Option<PathBuf>,
}

/// Appends the summary and prints the annotations.
pub fn publish(outcome: &Outcome, target: &Target) -> Result<()> {
    if let Some(path) = &target.summary {
        let text = summary(outcome, SUMMARY_LIMIT);
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("GITHUB_STEP_SUMMARY {}", path.display()))?;
        file.write_all(text.as_bytes()).with_context(|| format!("GITHUB_STEP_SUMMARY {}", path.display()))?;
    }
    for line in annotations(outcome) {
        crate::errln!("{line}");
    }
    Ok(())
}

/// The Markdown summary, at most `limit` bytes: past it, rows are left out and a line says how
/// many (the failed rows come first, so they are the last to go).
pub fn summary(outcome: &Outcome, limit: usize) -> String {
    let failed = outcome.items.iter().filter(|i| i.failed).count();
    let mark = if failed == 0 { "passed" } else { "FAILED" };
    let mut head = format!("### {}: {mark}\n\n{}\n\nRan on {}.\n\n", outcome.command, outcome.totals, outcome.ran_on);
    if outcome.items.is_empty() {
        return head;
    }
    head.push_str("| item | status | detail |\n|---|---|---|\n");
    let mut rows: Vec<&Item> = outcome.items.iter().filter(|i| i.failed).collect();
    rows.extend(outcome.items.iter().filter(|i| !i.failed));
    let mut text = head;
    for (shown, item) in rows.iter().enumerate() {
        let row = format!("| {} | {} | {} |\n", cell(&item.name), cell(&item.status), cell(&item.detail));
        let left = rows.len() - shown;
        let cut = format!("\n{left} more rows left out: the summary is at most {} KiB.\n", limit >> 10);
        if text.len() + row.len() + cut.len() + 80 > limit {
            text.push_str(&cut);
            return text;
        }
        text.push_str(&row);
    }
    text
}

/// A table cell: one line, pipes escaped, at most 300 characters.
fn cell(text: &str) -> String {
    let one: String = text.replace(['\n', '\r'], " ").replace('|', "\\|");
    match one.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &one[..at]),
        None => one,
    }
}

/// One `::error` per failed item (at most [`ANNOTATION_LIMIT`], then a `::warning` with the
/// rest's count) and a `::notice` with the totals.
pub fn annotations(outcome: &Outcome) -> Vec<String> {
    let failed: Vec<&Item> = outcome.items.iter().filter(|i| i.failed).collect();
    let mut lines: Vec<String> = failed
        .iter()
        .take(ANNOTATION_LIMIT)
        .map(|item| {
            let mut properties = String::new();
            if let Some(file) = &item.file {
                let _ = write!(properties, "file={},", property(&file.to_string_lossy()));
            }
            let _ = write!(properties, "title={}", property(&format!("{}: {}", item.name, item.status)));
            format!("::error {properties}::{}", data(&item.detail))
        })
        .collect();
    if failed.len() > ANNOTATION_LIMIT {
        lines.push(format!(
            "::warning title={}::{}",
            property(&outcome.command),
            data(&format!(
                "{} more failed items are not annotated (GitHub shows {ANNOTATION_LIMIT}): the job's summary lists them all",
                failed.len() - ANNOTATION_LIMIT
            ))
        ));
    }
    lines.push(format!("::notice title={}::{}", property(&outcome.command), data(&outcome.totals)));
    lines
}

/// A workflow command's message: `%`, CR and LF escaped.
fn data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A workflow command's property value: as a message, and `:` and `,` too.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Whether this run reports to GitHub: `--ci github`, or `--ci auto` where `GITHUB_ACTIONS` is
/// `true`; the summary file from `GITHUB_STEP_SUMMARY` (unset: annotations only). `variable`
/// reads one.
pub fn target(forced: Option<bool>, variable: impl Fn(&str) -> Option<String>) -> Option<Target> {
    let on = forced.unwrap_or_else(|| variable("GITHUB_ACTIONS").as_deref() == Some("true"));
    let path = |name: &str| variable(name).filter(|p| !p.is_empty()).map(PathBuf::from);
    on.then(|| Target { summary: path("GITHUB_STEP_SUMMARY"), workspace: path("GITHUB_WORKSPACE") })
}

/// `file` as GitHub links it: relative to the workspace where it lies inside it.
pub fn relative_to_workspace(file: &Path, workspace: Option<&Path>) -> PathBuf {
    workspace.and_then(|w| file.strip_prefix(w).ok()).map_or_else(|| file.to_path_buf(), Path::to_path_buf)
}

/// `dmlrun test`'s outcome: a case failed where it did not pass (with `--expect`: where its
/// status is unexpected); `files` names each case's model.
pub fn of_test(
    report: &super::validation::TestReport,
    files: &std::collections::BTreeMap<String, PathBuf>,
    expecting: bool,
    workspace: Option<&Path>,
) -> Outcome {
    use super::validation::Status;
    let s = &report.summary;
    let shard = report.shard.as_ref().map(|info| super::shard_said(info, "cases")).unwrap_or_default();
    let mut totals =
        format!("{} of {} cases{shard} passed, {} failed, {} errors", s.passed, s.total, s.failed, s.errors);
    if s.crashed + s.timed_out + s.interrupted > 0 {
        let _ = write!(totals, ", {} crashed, {} timed out, {} interrupted", s.crashed, s.timed_out, s.interrupted);
    }
    if expecting {
        let _ = write!(totals, "; {} unexpected, {} now passing", s.unexpected.len(), s.now_passing.len());
    }
    let items = report
        .cases
        .iter()
        .map(|c| Item {
            name: c.name.clone(),
            file: files.get(&c.name).map(|f| relative_to_workspace(f, workspace)),
            status: c.status.word().to_string(),
            detail: [c.reason.clone(), c.off_directml_line().map(|off| format!("off DirectML: {off}"))]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("; "),
            failed: if expecting { s.unexpected.contains(&c.name) } else { c.status != Status::Pass },
        })
        .collect();
    Outcome {
        command: "dmlrun test".into(),
        totals,
        ran_on: ran_on(
            report
                .cases
                .iter()
                .flat_map(|c| &c.placement)
                .filter(|p| p.nodes > 0)
                .map(|p| p.execution_provider.as_str()),
            &report.plan_request,
            &report.onnxruntime.version,
        ),
        items,
    }
}

/// `dmlrun bench`'s outcome: a model failed where it could not be measured, its outputs
/// differ from `--compare-ep`'s, or the baseline's verdict is a regression.
pub fn of_bench(report: &super::bench::BenchReport, workspace: Option<&Path>) -> Outcome {
    use super::bench::ModelStatus;
    let row = |name: &str| report.baseline.as_ref().and_then(|b| b.models.iter().find(|r| r.name == name));
    let mut items: Vec<Item> = report
        .models
        .iter()
        .map(|m| {
            let verdict = row(&m.name);
            let differs = m.comparison.as_ref().is_some_and(|c| !c.is_empty());
            let regressed = verdict.is_some_and(|r| r.regression);
            let mut detail = format!("p50 {:.3} ms, p99 {:.3} ms", m.latency_ms.p50, m.latency_ms.p99);
            if let Some(c) = verdict.and_then(|r| r.change.as_ref()) {
                let _ = write!(detail, "; {}: {}", c.verdict.word(), c.reason);
            }
            if differs {
                let _ = write!(detail, "; outputs differ from the --compare-ep reference");
            }
            if let Some(off) = m.device.off_directml_line().filter(|_| m.device.off_directml.iter().any(|n| n.works()))
            {
                let _ = write!(detail, "; off DirectML: {off}");
            }
            Item {
                name: m.name.clone(),
                file: Some(relative_to_workspace(&m.path, workspace)),
                status: if regressed { "regression".into() } else { m.status.word().into() },
                detail,
                failed: regressed || differs,
            }
        })
        .collect();
    items.extend(report.failed.iter().map(|f| Item {
        name: f.name.clone(),
        file: Some(relative_to_workspace(&f.path, workspace)),
        status: f.status.word().into(),
        detail: f.error.clone(),
        failed: f.status != ModelStatus::Interrupted,
    }));
    let shard = report.shard.as_ref().map(|info| super::shard_said(info, "models")).unwrap_or_default();
    let mut totals =
        format!("{} models{shard}: {} measured, {} failed", items.len(), report.models.len(), report.failed.len());
    if let Some(b) = &report.baseline {
        let _ = write!(
            totals,
            "; against {}: {} regressions, {} improvements, {} inconclusive",
            b.against, b.regressions, b.improvements, b.inconclusive
        );
    }
    Outcome {
        command: "dmlrun bench".into(),
        totals,
        ran_on: ran_on(
            report.models.iter().map(|m| m.device.execution_provider.as_str()),
            &report.requested,
            &report.onnxruntime.version,
        ),
        items,
    }
}

/// `dmlrun generate`'s outcome: one item per prompt, failed where `--compare-ep`'s tokens differ.
pub fn of_generate(report: &super::generate::GenerateReport, workspace: Option<&Path>) -> Outcome {
    let items: Vec<Item> = report
        .prompts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (differs, detail) = super::generate::prompt_outcome(report, i);
            Item {
                name: format!("prompt {} ({})", i + 1, p.source),
                file: Some(relative_to_workspace(&report.model, workspace)),
                status: if differs { "differs".into() } else { "ok".into() },
                detail,
                failed: differs,
            }
        })
        .collect();
    let failed = items.iter().filter(|i| i.failed).count();
    Outcome {
        command: "dmlrun generate".into(),
        totals: format!("{} prompts, {} with tokens that differ from the reference", items.len(), failed),
        ran_on: format!("{} (onnxruntime {})", report.device.describe(), report.onnxruntime.version),
        items,
    }
}

/// The execution providers the items ran on, with what was asked beside them: "ep auto" alone
/// says nothing of where a run went.
fn ran_on<'a>(used: impl Iterator<Item = &'a str>, requested: &str, version: &str) -> String {
    let used: std::collections::BTreeSet<&str> = used.collect();
    if used.is_empty() {
        return format!("{requested} (onnxruntime {version})");
    }
    let used: Vec<&str> = used.into_iter().collect();
    format!("{} (asked: {requested}; onnxruntime {version})", used.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(failed: usize, passed: usize) -> Outcome {
        let item = |i: usize, failed: bool| Item {
            name: format!("node/test_{i}"),
            file: Some(PathBuf::from(format!("cases/test_{i}/model.onnx"))),
            status: if failed { "fail".into() } else { "pass".into() },
            detail: if failed { format!("output 'y': {i} of 10 elements differ, 50% off") } else { String::new() },
            failed,
        };
        Outcome {
            command: "dmlrun test".into(),
            totals: format!("{passed} of {} cases passed", failed + passed),
            ran_on: "--ep cpu (onnxruntime 1.31.1)".into(),
            items: (0..passed).map(|i| item(i, false)).chain((0..failed).map(|i| item(1000 + i, true))).collect(),
        }
    }

    #[test]
    fn ran_on_names_the_eps_used_with_what_was_asked() {
        let eps = ["CPUExecutionProvider", "DmlExecutionProvider", "CPUExecutionProvider"];
        assert_eq!(
            ran_on(eps.into_iter(), "--ep auto", "1.24.4"),
            "CPUExecutionProvider, DmlExecutionProvider (asked: --ep auto; onnxruntime 1.24.4)"
        );
        assert_eq!(ran_on(std::iter::empty(), "--ep cpu", "1.31.1"), "--ep cpu (onnxruntime 1.31.1)");
    }

    #[test]
    fn the_summary_lists_the_failed_first_and_is_cut_within_the_limit() {
        let o = outcome(2, 3);
        let text = summary(&o, SUMMARY_LIMIT);
        assert!(text.starts_with("### dmlrun test: FAILED\n\n3 of 5 cases passed\n\nRan on --ep cpu"), "{text}");
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("| node/")).collect();
        assert_eq!(rows.len(), 5);
        assert!(
            rows[0].starts_with("| node/test_1000 | fail | output 'y': 1000 of 10 elements differ, 50% off |"),
            "{text}"
        );
        assert!(rows[2].starts_with("| node/test_0 | pass |"), "{text}");
        // 50,500 rows, about 1.5 MiB: cut, the cut said, the failed rows kept.
        let big = outcome(500, 50_000);
        let text = summary(&big, SUMMARY_LIMIT);
        assert!(text.len() <= SUMMARY_LIMIT, "{}", text.len());
        let kept = text.lines().filter(|l| l.starts_with("| node/")).count();
        assert!(text.contains(&format!("{} more rows left out", 50_500 - kept)), "{}", &text[text.len() - 200..]);
        assert!(text.contains("| node/test_1499 | fail |"));
        assert!(summary(&outcome(0, 2), SUMMARY_LIMIT).starts_with("### dmlrun test: passed"));
    }

    #[test]
    fn annotations_are_ten_errors_a_warning_for_the_rest_and_a_notice() {
        let lines = annotations(&outcome(12, 1));
        assert_eq!(lines.len(), 12);
        assert_eq!(
            lines[0],
            "::error file=cases/test_1000/model.onnx,title=node/test_1000%3A fail::output 'y': 1000 of 10 elements differ, 50%25 off"
        );
        assert!(lines[9].starts_with("::error file=cases/test_1009/"), "{}", lines[9]);
        assert_eq!(
            lines[10],
            "::warning title=dmlrun test::2 more failed items are not annotated (GitHub shows 10): the job's summary lists them all"
        );
        assert_eq!(lines[11], "::notice title=dmlrun test::1 of 13 cases passed");
        assert_eq!(annotations(&outcome(0, 3)), vec!["::notice title=dmlrun test::3 of 3 cases passed"]);
        assert_eq!(property("a,b:c%\nd"), "a%2Cb%3Ac%25%0Ad");
    }

    #[test]
    fn github_only_when_asked_or_on_its_runner() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
        };
        const ON_RUNNER: &[(&str, &str)] = &[("GITHUB_ACTIONS", "true"), ("GITHUB_STEP_SUMMARY", "/tmp/summary.md")];
        let summary = Some(PathBuf::from("/tmp/summary.md"));
        assert_eq!(target(None, vars(ON_RUNNER)), Some(Target { summary, workspace: None }));
        assert_eq!(target(None, vars(&[])), None);
        assert_eq!(target(Some(false), vars(ON_RUNNER)), None);
        assert_eq!(target(Some(true), vars(&[])), Some(Target { summary: None, workspace: None }));
        assert_eq!(
            relative_to_workspace(Path::new("/w/models/a.onnx"), Some(Path::new("/w"))),
            PathBuf::from("models/a.onnx")
        );
    }
}
