//! `dmlrun bench` reports: one value, rendered by one exporter per format.

pub mod csv;
pub mod human;
pub mod json;
pub mod markdown;

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
    #[serde(with = "crate::fsutil::any_path")]
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
    #[serde(with = "crate::fsutil::any_path")]
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
    #[serde(default)]
    pub samples_ms: Vec<f64>,
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
    pub graph_fusion: String,
    pub top_ops: Vec<OpTime>,
}

/// Median latency against an earlier report.
#[derive(Debug, Clone, Serialize)]
pub struct BaselineComparison {
    pub file: PathBuf,
    pub max_regression: f64,
    pub models: Vec<BaselineRow>,
    pub regressions: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct BaselineRow {
    pub name: String,
    pub status: ModelStatus,
    /// Generation tokens/s (a generate entry: the gate is on them) now and in the baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_tokens_per_s: Option<f64>,
    pub baseline_p50_ms: Option<f64>,
    /// Absent for a model that failed this time.
    pub p50_ms: Option<f64>,
    /// new / old median latency (old / new tokens/s for a generate entry): how much slower;
    /// above 1 + max_regression is a regression.
    pub ratio: Option<f64>,
    pub regression: bool,
}

/// What an earlier JSON report must hold for `--baseline`.
#[derive(Debug, Clone, Deserialize)]
pub struct StoredReport {
    pub schema: String,
    pub models: Vec<StoredModel>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct StoredModel {
    pub name: String,
    pub latency_ms: StoredLatency,
    #[serde(default)]
    pub generation: Option<StoredGeneration>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct StoredGeneration {
    pub generation_tokens_per_s: f64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct StoredLatency {
    pub p50: f64,
}

/// Compares with a baseline report: per model by name, median latency ratio.
pub fn compare_with_baseline(
    report: &BenchReport,
    baseline: &StoredReport,
    file: PathBuf,
    max_regression: f64,
) -> BaselineComparison {
    let stored = |name: &str| baseline.models.iter().find(|b| b.name == name);
    let old = |name: &str| stored(name).map(|b| b.latency_ms.p50);
    let mut models: Vec<BaselineRow> = report
        .models
        .iter()
        .map(|m| {
            let old_p50 = old(&m.name);
            // A generation is gated on its tokens/s, as LLM benchmarks compare them.
            let tokens_per_s = m.generation.as_ref().map(|g| g.generation_tokens_per_s);
            let baseline_tokens_per_s = tokens_per_s
                .and(stored(&m.name).and_then(|b| b.generation.as_ref()).map(|g| g.generation_tokens_per_s));
            let ratio = match (tokens_per_s, baseline_tokens_per_s) {
                (Some(now), Some(then)) => (now > 0.0).then(|| then / now),
                (Some(_), None) => None,
                _ => old_p50.filter(|o| *o > 0.0).map(|o| m.latency_ms.p50 / o),
            };
            BaselineRow {
                name: m.name.clone(),
                status: ModelStatus::Ok,
                tokens_per_s,
                baseline_tokens_per_s,
                baseline_p50_ms: old_p50,
                p50_ms: Some(m.latency_ms.p50),
                ratio,
                regression: ratio.is_some_and(|r| r > 1.0 + max_regression),
            }
        })
        .collect();
    // A model that fails now has no figure to compare; it is listed, and fails the run as a
    // failure (exit 1), not as a regression.
    models.extend(report.failed.iter().map(|f| BaselineRow {
        name: f.name.clone(),
        status: f.status,
        tokens_per_s: None,
        baseline_tokens_per_s: None,
        baseline_p50_ms: old(&f.name),
        p50_ms: None,
        ratio: None,
        regression: false,
    }));
    let regressions = models.iter().filter(|r| r.regression).count();
    BaselineComparison { file, max_regression, models, regressions }
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

    #[test]
    fn baseline_flags_only_regressions_beyond_the_threshold() {
        let report = sample_report();
        let stored = |p50: f64| StoredReport {
            schema: BENCH_SCHEMA.into(),
            models: vec![StoredModel {
                name: report.models[0].name.clone(),
                latency_ms: StoredLatency { p50 },
                generation: None,
            }],
        };
        // New median is 2.5 ms.
        let slower = compare_with_baseline(&report, &stored(2.0), "b.json".into(), 0.05);
        assert_eq!((slower.regressions, slower.models[0].ratio), (1, Some(1.25)));
        let same = compare_with_baseline(&report, &stored(2.45), "b.json".into(), 0.05);
        assert_eq!(same.regressions, 0);
        let missing = compare_with_baseline(
            &report,
            &StoredReport { schema: BENCH_SCHEMA.into(), models: vec![] },
            "b".into(),
            0.05,
        );
        assert_eq!((missing.regressions, missing.models[0].ratio), (0, None));
        // The failed model is listed with its status and no figure, and is no regression.
        let failed = &slower.models[1];
        assert_eq!(
            (failed.name.as_str(), failed.status, failed.p50_ms, failed.regression),
            ("broken", ModelStatus::Failed, None, false)
        );
    }
}
