//! Run reports: one value computed by the commands, rendered by one module per format.

pub mod bench;
pub mod export;
pub mod fix;
pub mod generate;
pub mod github;
pub mod html;
pub mod human;
pub mod json;
pub mod merge;
pub mod reduce;
pub mod tune;
pub mod validation;

use std::path::PathBuf;

use serde::Serialize;

use crate::inputs::InputSource;
use crate::outputs::{OutputSummary, TopK};
use crate::runtime::engine::DeviceReport;
use crate::runtime::plan::SessionPlan;
use crate::runtime::LibraryInfo;
use crate::stats::LatencyStats;

/// Everything `dmlrun run` found out. Serialized as the JSON report (see `json::RUN_SCHEMA`).
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub schema: &'static str,
    pub dmlrun_version: &'static str,
    pub model: ModelReport,
    pub onnxruntime: LibraryInfo,
    pub device: DeviceReport,
    pub plan: SessionPlan,
    pub inputs: Vec<InputSource>,
    pub timings_ms: Timings,
    pub iterations: Iterations,
    pub outputs: Vec<OutputSummary>,
    /// Outputs that are maps or sequences of maps (ZipMap's class probabilities), whole.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub map_outputs: Vec<MapOutput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<Vec<TopK>>,
    pub saved_outputs: Vec<PathBuf>,
    /// DirectML's adapter memory before the session, after it, and at its peak during the timed
    /// runs (DXGI; absent where it cannot be read: the CPU, non-Windows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_memory: Option<crate::runtime::engine::GpuMemory>,
    pub warnings: Vec<String>,
    /// With --compare-ep: the reference run and what differed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
    /// With --io-on-device: the upload and download timed apart, and the bound outputs' check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_io: Option<crate::runtime::engine::DeviceIo>,
    /// With --precision fp16: what was converted, and the outputs against the float32 model's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision: Option<crate::runtime::engine::PrecisionReport>,
    /// With --decompose or --gemm-zero-bias: what was rewritten, and the outputs against the
    /// original model's on the reference EP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<crate::runtime::engine::RewriteReport>,
    /// Ctrl-C stopped the timed runs: the statistics cover the runs made until then.
    pub interrupted: bool,
}

pub use crate::runtime::engine::Comparison;

/// A map output (`{key: value}`), or a sequence of them (a list), as JSON.
#[derive(Debug, Clone, Serialize)]
pub struct MapOutput {
    pub name: String,
    /// `map` or `sequence of maps`.
    pub kind: &'static str,
    pub value: serde_json::Value,
}

#[derive(Debug, Clone, Serialize)]
pub struct ModelReport {
    pub path: PathBuf,
    pub size_bytes: u64,
}

/// Milliseconds spent in each phase before the timed iterations.
#[derive(Debug, Clone, Serialize)]
pub struct Timings {
    /// Loading ONNX Runtime and creating its environment.
    pub runtime_load: f64,
    /// dmlrun reading the model file's header (inputs, outputs, opsets); ONNX Runtime's own
    /// read of the file is part of `session_create`.
    pub model_load: f64,
    /// ONNX Runtime session creation: reading and parsing the model file, optimisation, EP
    /// compilation.
    pub session_create: f64,
    /// Decoding and preprocessing the inputs into ONNX Runtime tensors.
    pub input_prepare: f64,
    /// The first Run, which includes one-off work (allocation, kernel selection, shader compilation).
    pub first_run: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Iterations {
    pub warmup: u64,
    pub timed: u64,
    /// Statistics over the timed runs (milliseconds; throughput in runs per second).
    pub latency_ms: Option<LatencyStats>,
    /// Throughput in items per second when the first input has a batch axis.
    pub items_per_s: Option<f64>,
    pub batch_size: Option<usize>,
}

/// A count and its noun, singular for one: "1 case", "2 cases".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

pub fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A Markdown table: the header, the alignment row (the columns in `right` right-aligned) and
/// the rows, every cell escaped so that it stays one cell: a `|` in a reason (`max |diff|`), a
/// model's name or a path would otherwise split it, and a line break end the row.
pub fn markdown_table(header: &[&str], right: &[usize], rows: &[Vec<String>]) -> String {
    let cell = |text: &str| text.replace('\\', "\\\\").replace('|', "\\|").replace(['\n', '\r'], " ");
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut out = line(header.iter().map(|h| cell(h)).collect());
    out += &line((0..header.len()).map(|i| if right.contains(&i) { "---:" } else { "---" }.to_string()).collect());
    for row in rows {
        out += &line(row.iter().map(|c| cell(c)).collect());
    }
    out
}

/// One CSV record (RFC 4180) and its line end: a field holding a comma, a quote or a line break
/// is quoted, its quotes doubled.
pub fn csv_record<S: AsRef<str>>(fields: &[S]) -> String {
    let field = |text: &str| match text.contains([',', '"', '\n', '\r']) {
        true => format!("\"{}\"", text.replace('"', "\"\"")),
        false => text.to_string(),
    };
    let mut line = fields.iter().map(|f| field(f.as_ref())).collect::<Vec<_>>().join(",");
    line.push('\n');
    line
}

/// `text` as Markdown prose shows it: every character Markdown could read as markup escaped.
pub fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '(' | ')' | '<' | '>' | '#' | '+' | '-' | '!' | '|' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// Refuses two exports to stdout (`--json - --csv -`): one after the other, neither would parse.
/// `exports` are the flags and the paths they were given.
pub fn check_one_on_stdout(exports: &[(&str, Option<&std::path::Path>)]) -> anyhow::Result<()> {
    let on_stdout: Vec<String> = exports
        .iter()
        .filter(|(_, path)| *path == Some(std::path::Path::new("-")))
        .map(|(flag, _)| format!("{flag} -"))
        .collect();
    if on_stdout.len() > 1 {
        anyhow::bail!(
            "{}: only one export can go to stdout (the rest would not parse after it); write the others to files",
            on_stdout.join(" and ")
        );
    }
    Ok(())
}

/// The exports of a bench report the flags ask for (`bench` and `merge`).
pub fn bench_exports<'a>(
    to: &export::ReportFiles,
) -> [Option<crate::report::export::Export<'a, bench::BenchReport>>; 5] {
    use crate::report::export::Export;
    [
        Export::of("--json", to.json.as_deref(), bench::json::JsonExporter),
        Export::of("--csv", to.csv.as_deref(), bench::csv::CsvExporter),
        Export::of("--markdown", to.markdown.as_deref(), bench::markdown::MarkdownExporter),
        Export::of("--html", to.html.as_deref(), bench::html::HtmlExporter),
        Export::of("--junit", to.junit.as_deref(), bench::junit::render),
    ]
}

/// The exports of a test report the flags ask for (`test` and `merge`), and test's expectations
/// file (`--write-expect`).
pub fn test_exports<'a>(
    to: &export::ReportFiles,
    write_expect: Option<&std::path::Path>,
) -> [Option<crate::report::export::Export<'a, validation::TestReport>>; 6] {
    use crate::report::export::Export;
    use validation::TestReport;
    [
        Export::of("--json", to.json.as_deref(), |r: &TestReport| crate::report::json_text(r)),
        Export::of("--csv", to.csv.as_deref(), |r: &TestReport| Ok(validation::csv::csv(r))),
        Export::of("--markdown", to.markdown.as_deref(), |r: &TestReport| Ok(validation::markdown::markdown(r))),
        Export::of("--html", to.html.as_deref(), |r: &TestReport| Ok(validation::html::render(r))),
        Export::of("--junit", to.junit.as_deref(), validation::junit::render),
        Export::of("--write-expect", write_expect, |r: &TestReport| Ok(validation::expectations::render(r))),
    ]
}

/// `value` as the JSON reports are written: pretty, with a final newline.
pub fn json_text(value: &impl Serialize) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(value)? + "\n")
}

/// Writes `value` as pretty JSON to `path`, or to stdout when `path` is `-`. Returns whether it
/// went to stdout (then the caller prints nothing else there).
pub fn write_json(path: &std::path::Path, value: &impl Serialize, flag: &str) -> anyhow::Result<bool> {
    write_text(path, &(serde_json::to_string_pretty(value)? + "\n"), flag)
}

/// Writes `text` to `path` atomically, or to stdout when `path` is `-`; an error names `flag`
/// and the file. Returns whether it went to stdout.
pub fn write_text(path: &std::path::Path, text: &str, flag: &str) -> anyhow::Result<bool> {
    use anyhow::Context;
    if path == std::path::Path::new("-") {
        crate::out!("{text}");
        return Ok(true);
    }
    crate::fsutil::write_atomic(path, text.as_bytes()).with_context(|| format!("{flag} {}", path.display()))?;
    Ok(false)
}

/// ` (shard 2/4 of 1914 cases)`; with `--shard auto`, `... cases, from CI_NODE_INDEX=2, ...)`.
pub fn shard_said(info: &crate::suites::shard::ShardInfo, items: &str) -> String {
    match &info.from {
        Some(from) => format!(" (shard {} of {} {items}, from {from})", info.shard, info.of_items),
        None => format!(" (shard {} of {} {items})", info.shard, info.of_items),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn markdown_cells_stay_one_cell_whatever_they_hold() {
        let table = super::markdown_table(&["a", "b"], &[1], &[vec!["max |diff| 1e-3".into(), "C:\\x\ny".into()]]);
        assert_eq!(table, "| a | b |\n| --- | ---: |\n| max \\|diff\\| 1e-3 | C:\\\\x y |\n");
        for line in table.lines() {
            assert_eq!(line.replace("\\|", "").matches('|').count(), 3, "{line}");
        }
    }

    #[test]
    fn two_exports_to_stdout_are_refused_one_is_not() {
        use std::path::Path;
        let dash = Some(Path::new("-"));
        assert!(super::check_one_on_stdout(&[("--json", dash), ("--csv", Some(Path::new("b.csv")))]).is_ok());
        let err = super::check_one_on_stdout(&[("--json", dash), ("--csv", dash), ("--html", None)]).unwrap_err();
        assert!(err.to_string().starts_with("--json - and --csv -: only one export can go to stdout"), "{err}");
    }
}
