//! `dmlrun bench` reports: one value, rendered by one exporter per format.

pub mod cells;
pub mod csv;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;

mod baseline;

use crate::report::export::{Exporter, Format, Formats};

/// bench's report is written in every format.
impl Formats for BenchReport {
    const WHAT: &'static str = "a bench report";

    fn exporter(format: Format) -> Option<Box<dyn Exporter<Self>>> {
        Some(match format {
            Format::Json => Box::new(json::JsonExporter),
            Format::Csv => Box::new(csv::CsvExporter),
            Format::Markdown => Box::new(markdown::MarkdownExporter),
            Format::Html => Box::new(html::HtmlExporter),
            Format::Junit => Box::new(junit::render),
        })
    }
}

pub use baseline::{compare_with_baseline, compare_with_paired, BaselineComparison, Fingerprint, StoredReport};

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::runtime::profile::OpTime;
use crate::stats::LatencyStats;
use crate::suites::manifest::SweepPoint;

/// Schema identifier of bench reports; fields are only added within a version.
pub const BENCH_SCHEMA: &str = "dmlrun.bench/1";

/// A whole benchmark session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchReport {
    pub schema: String,
    pub dmlrun_version: String,
    pub machine: crate::sysinfo::Machine,
    pub onnxruntime: crate::runtime::LibraryInfo,
    /// The execution provider (and adapter) the run asked for: what the header names when no
    /// model got as far as a session to say where it ran.
    #[serde(default)]
    pub requested: String,
    /// The models measured, in order (`status: "ok"`, or `interrupted` for one Ctrl-C stopped
    /// during its timed runs: its figures cover the runs made).
    pub models: Vec<ModelBench>,
    /// The models that could not be measured (`status` `failed`, `crash` or `timeout`), each
    /// with its error; the others were measured all the same.
    pub failed: Vec<FailedModel>,
    /// A merged report has none: the gate is the run's (`dmlrun merge` says so).
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing, default)]
    pub baseline: Option<BaselineComparison>,
    /// Ctrl-C stopped the session: the last model's statistics cover the runs made until then.
    pub interrupted: bool,
    /// `--shard K/N`: the part of the models this session measured.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub shard: Option<crate::suites::shard::ShardInfo>,
    /// Whether the models ran in child processes and the time each could take.
    #[serde(default)]
    pub isolation: crate::isolation::Placement,
}

/// What one model of a bench came to.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BenchOutcome {
    Measured(Box<ModelBench>),
    Failed(FailedModel),
}

/// A model's status in a bench session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelStatus {
    /// Measured.
    Ok,
    /// Could not be measured: unreadable, inputs that do not fit, a session or a run that failed
    /// where the reference EP fails too.
    Failed,
    /// The EP under test rejected it (session creation or a run failed) while the reference EP
    /// (the CPU, or `--compare-ep`) runs it with the same inputs.
    #[serde(rename = "ep-rejected")]
    EpRejected,
    /// Killed the process measuring it (`--isolation process`): an abort, a segfault, a lost device.
    Crash,
    /// Ran past `--timeout` and was killed (in a child process).
    Timeout,
    /// Under way when Ctrl-C stopped the bench: a failed entry when it had made no timed run,
    /// a measured one whose figures cover the runs made when it had.
    Interrupted,
}

impl ModelStatus {
    /// The word the JSON, CSV and Markdown reports use.
    pub fn word(self) -> &'static str {
        match self {
            ModelStatus::Ok => "ok",
            ModelStatus::Failed => "failed",
            ModelStatus::EpRejected => "ep-rejected",
            ModelStatus::Crash => "crash",
            ModelStatus::Timeout => "timeout",
            ModelStatus::Interrupted => "interrupted",
        }
    }
}

/// A model that could not be measured, and why (`failed`, `crash` or `timeout`).
/// What a peak RSS figure covers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PeakScope {
    Model,
    #[default]
    Process,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FailedModel {
    pub name: String,
    #[serde(with = "crate::fsutil::text_path")]
    pub path: PathBuf,
    pub status: ModelStatus,
    /// One line, as dmlrun would print it.
    pub error: String,
    /// With `ep-rejected`: the node ONNX Runtime named, where it named one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub node: Option<String>,
    /// With `--sweep`: the point of the sweep that could not be measured.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub sweep: Option<SweepPoint>,
}

/// One model's measurements.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelBench {
    pub name: String,
    #[serde(with = "crate::fsutil::text_path")]
    pub path: PathBuf,
    pub status: ModelStatus,
    /// With `--sweep`: which model, what is swept and this entry's value.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub sweep: Option<SweepPoint>,
    pub device: crate::runtime::engine::DeviceReport,
    pub plan: crate::runtime::plan::SessionPlan,
    pub inputs: Vec<crate::inputs::InputSource>,
    pub model_load_ms: f64,
    pub session_create_ms: f64,
    /// `hit` (loaded the cached optimised model), `written` (created it), or absent without --cache.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cache: Option<String>,
    pub first_run_ms: f64,
    pub warmup: u64,
    pub latency_ms: LatencyStats,
    /// Every timed run's latency (ms), in order: what the distribution plots are drawn from.
    #[serde(default, serialize_with = "crate::stats::tenth_microseconds")]
    pub samples_ms: Vec<f64>,
    /// The sizes of the consecutive rounds `samples_ms` came in (they add up to its length):
    /// what a later verdict against this report resamples.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<usize>,
    /// What the timing depends on besides the model's speed (see [`Fingerprint`]).
    #[serde(default)]
    pub fingerprint: Fingerprint,
    /// With --baseline-model: the baseline model, timed in the same session in alternating rounds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub baseline_model: Option<crate::runtime::engine::PairedRuns>,
    pub batch_size: Option<usize>,
    pub items_per_s: Option<f64>,
    /// Peak resident memory (bytes) while this model was benchmarked, or of the process so far:
    /// `peak_rss_scope` says which.
    pub peak_rss_bytes: Option<u64>,
    /// `model`: the peak was reset before this model (Linux) or the model ran in a process of
    /// its own (isolation); `process`: the whole process's peak so far (Windows, in-process).
    #[serde(default)]
    pub peak_rss_scope: PeakScope,
    /// Local (dedicated) GPU memory at its peak during the timed runs (Windows, DirectML); the
    /// same figure as `gpu_memory.peak_timed_runs.local_bytes`, kept for the CSV column.
    pub gpu_memory_bytes: Option<u64>,
    /// DirectML's adapter memory before the session, after it, and at its peak in the timed runs.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub gpu_memory: Option<crate::runtime::engine::GpuMemory>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub profile: Option<ProfileSummary>,
    /// With --io-on-device: the copies timed apart and the bound outputs' check.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub device_io: Option<crate::runtime::engine::DeviceIo>,
    /// With --sessions N: N sessions run at once.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub sessions: Option<crate::runtime::engine::ConcurrentSessions>,
    /// With --precision fp16: what was converted, the outputs against the float32 model's, and
    /// the float32 model timed beside it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub precision: Option<crate::runtime::engine::PrecisionReport>,
    /// With --decompose or --gemm-zero-bias: what was rewritten, and the outputs against the
    /// original's on the reference EP.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rewrite: Option<crate::runtime::engine::RewriteReport>,
    /// With --compare-ep: outputs that differ from the reference run (empty = all match).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub comparison: Option<Vec<crate::compare::Mismatch>>,
    /// With --compare-ep: the reference execution provider timed with the same budget, and how
    /// far its outputs are from this run's.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reference: Option<ReferenceBench>,
    /// A manifest's `kind = "generate"` entry: the generation figures. `latency_ms` and
    /// `samples_ms` are then the decode steps (one token each) and `first_run_ms` the first
    /// (warm-up) generation's time to first token.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub generation: Option<crate::generate::figures::GenerationFigures>,
    pub warnings: Vec<String>,
}

impl ModelBench {
    /// Items (a batch's rows) per second: inferences per second times the batch size.
    pub fn items_per_s(&self) -> f64 {
        self.items_per_s.unwrap_or(self.latency_ms.throughput_per_s)
    }
}

/// One model's `--sweep`, its points in the sweep's order, as the tables and the plot show it.
pub struct SweepTable<'a> {
    /// The model's own name.
    pub of: &'a str,
    /// The dimension or input swept.
    pub over: &'a str,
    pub points: Vec<SweepRow<'a>>,
    /// The point with the most items per second.
    pub best: Option<usize>,
}

/// A point of a sweep: measured, or why not.
pub struct SweepRow<'a> {
    pub value: &'a str,
    pub measured: std::result::Result<&'a ModelBench, &'a FailedModel>,
}

impl SweepRow<'_> {
    pub fn bench(&self) -> Option<&ModelBench> {
        self.measured.ok()
    }
}

/// The report's sweeps, one per swept model, in the order the models came.
pub fn sweep_tables(report: &BenchReport) -> Vec<SweepTable<'_>> {
    let mut tables: Vec<SweepTable> = Vec::new();
    let mut points: Vec<(&SweepPoint, SweepRow)> = report
        .models
        .iter()
        .filter_map(|m| Some((m.sweep.as_ref()?, Ok(m))))
        .chain(report.failed.iter().filter_map(|f| Some((f.sweep.as_ref()?, Err(f)))))
        .map(|(point, measured)| (point, SweepRow { value: point.value.as_str(), measured }))
        .collect();
    points.sort_by_key(|(p, _)| p.index);
    for (point, row) in points {
        match tables.iter_mut().find(|t| t.of == point.of) {
            Some(table) => table.points.push(row),
            None => tables.push(SweepTable { of: &point.of, over: &point.over, points: vec![row], best: None }),
        }
    }
    // Tables in the order their models were measured.
    let first_seen = |of: &str| {
        report
            .models
            .iter()
            .map(|m| &m.sweep)
            .chain(report.failed.iter().map(|f| &f.sweep))
            .position(|s| s.as_ref().is_some_and(|s| s.of == of))
    };
    tables.sort_by_key(|t| first_seen(t.of));
    for table in &mut tables {
        table.best = table
            .points
            .iter()
            .enumerate()
            .filter_map(|(i, row)| Some((i, row.bench()?.items_per_s())))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i);
    }
    tables
}

/// The `--compare-ep` execution provider measured beside the model's own.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReferenceBench {
    pub device: crate::runtime::engine::DeviceReport,
    pub latency_ms: Option<LatencyStats>,
    #[serde(default)]
    pub samples_ms: Vec<f64>,
    pub tolerance: crate::compare::Tolerance,
    pub outputs_compared: usize,
    /// Largest absolute and relative differences per float output.
    pub differences: Vec<crate::compare::Difference>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfileSummary {
    pub file: PathBuf,
    /// `off` with --profile-unfused: DirectML ran each operator apart, and every latency of the
    /// model is the unfused graph's.
    pub graph_fusion: GraphFusion,
    pub top_ops: Vec<OpTime>,
}

/// Whether DirectML fused the graph the profile is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GraphFusion {
    On,
    Off,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn sample_report() -> BenchReport {
        let latency = crate::stats::summarize(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        let plan = crate::runtime::plan::resolve(
            &crate::runtime::plan::PlanRequest::default(),
            &crate::runtime::plan::Offered::providers(&["CPUExecutionProvider".to_string()]),
            &crate::formats::model::ModelInfo::default(),
        )
        .unwrap();
        BenchReport {
            schema: BENCH_SCHEMA.to_string(),
            dmlrun_version: "0.0.0".to_string(),
            machine: crate::sysinfo::machine(),
            onnxruntime: crate::runtime::LibraryInfo {
                path: "libonnxruntime.so".into(),
                source: crate::runtime::LibrarySource::Flag,
                version: "1.31.1".into(),
                providers: vec!["CPUExecutionProvider".into()],
            },
            requested: "--ep cpu".into(),
            models: vec![ModelBench {
                name: "squeeze, \"net\"".into(),
                path: "m.onnx".into(),
                status: ModelStatus::Ok,
                sweep: None,
                device: crate::runtime::engine::DeviceReport {
                    execution_provider: "CPUExecutionProvider".into(),
                    device_id: None,
                    adapter_name: None,
                    placement: vec![],
                    off_directml: vec![],
                    chosen_by: None,
                    direct3d12: None,
                },
                plan,
                inputs: vec![],
                model_load_ms: 1.0,
                session_create_ms: 2.0,
                cache: None,
                first_run_ms: 3.0,
                warmup: 1,
                latency_ms: latency,
                batch_size: Some(1),
                items_per_s: None,
                samples_ms: vec![1.0, 2.0, 3.0, 4.0],
                rounds: vec![2, 2],
                fingerprint: Fingerprint::new(),
                baseline_model: None,
                reference: None,
                generation: None,
                peak_rss_bytes: Some(1 << 20),
                peak_rss_scope: PeakScope::Model,
                gpu_memory_bytes: None,
                gpu_memory: None,
                profile: None,
                device_io: None,
                sessions: None,
                precision: None,
                rewrite: None,
                comparison: None,
                warnings: vec![],
            }],
            failed: vec![FailedModel {
                name: "broken".into(),
                path: "broken.onnx".into(),
                status: ModelStatus::Failed,
                error: "model broken.onnx: not a valid ONNX model".into(),
                node: None,
                sweep: None,
            }],
            baseline: None,
            interrupted: false,
            shard: None,
            isolation: Default::default(),
        }
    }
}
