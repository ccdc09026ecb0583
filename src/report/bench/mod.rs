//! `dmlrun bench` reports: one value, rendered by one exporter per format.

pub mod csv;
pub mod human;
pub mod json;
pub mod junit;
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
    pub graph_fusion: String,
    pub top_ops: Vec<OpTime>,
}

/// Each model judged against a baseline: an earlier report's runs, or a baseline model timed in
/// this session (`--baseline-model`).
#[derive(Debug, Clone, Serialize)]
pub struct BaselineComparison {
    /// What the models were judged against: the report's path, or the baseline models.
    pub against: String,
    /// `file` (an earlier --json report) or `same session` (--baseline-model, alternating rounds).
    pub source: BaselineSource,
    pub max_regression: f64,
    /// The test behind every verdict.
    pub test: String,
    pub models: Vec<BaselineRow>,
    pub regressions: usize,
    pub improvements: usize,
    pub inconclusive: usize,
    /// What the reader must know of the baseline as a whole (an interrupted report, say).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BaselineSource {
    File,
    #[serde(rename = "same session")]
    SameSession,
}

#[derive(Debug, Clone, Serialize)]
pub struct BaselineRow {
    pub name: String,
    pub status: ModelStatus,
    /// Generation tokens/s (a generate entry, judged on its decode steps) now and in the baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_tokens_per_s: Option<f64>,
    pub baseline_p50_ms: Option<f64>,
    /// Absent for a model that failed this time.
    pub p50_ms: Option<f64>,
    /// New median over old (decode steps for a generate entry): above 1 is slower.
    pub ratio: Option<f64>,
    /// The verdict and its figures; absent where there is nothing to judge (a model new, failed,
    /// or whose baseline has no runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<crate::stats::change::Change>,
    pub verdict: Option<crate::stats::change::Verdict>,
    pub regression: bool,
    /// How this run differs from the baseline's beyond the model's speed: the model file, the
    /// device, ONNX Runtime, dmlrun, the timing flags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub differences: Vec<String>,
    /// Why there is no verdict, or what it rests on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl BaselineRow {
    /// A model that failed this time: listed with its status and no figure of its own; it fails
    /// the run as a failure (exit 1), not as a regression.
    fn failed(f: &FailedModel, baseline_p50_ms: Option<f64>) -> BaselineRow {
        BaselineRow {
            name: f.name.clone(),
            status: f.status,
            tokens_per_s: None,
            baseline_tokens_per_s: None,
            baseline_p50_ms,
            p50_ms: None,
            ratio: None,
            change: None,
            verdict: None,
            regression: false,
            differences: Vec::new(),
            note: None,
        }
    }

    /// The verdict column: the word, or why there is none.
    pub fn verdict_word(&self) -> String {
        match (self.status, self.verdict) {
            (status, _) if status != ModelStatus::Ok && status != ModelStatus::Interrupted => {
                format!("{} this time", status.word())
            }
            (_, Some(v)) => v.word().to_string(),
            (_, None) => self.note.clone().unwrap_or_else(|| "not judged".to_string()),
        }
    }
}

/// What an earlier JSON report must hold for `--baseline`.
#[derive(Debug, Clone, Deserialize)]
pub struct StoredReport {
    pub schema: String,
    pub models: Vec<StoredModel>,
    #[serde(default)]
    pub interrupted: bool,
    #[serde(default)]
    pub failed: Vec<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct StoredModel {
    pub name: String,
    #[serde(default = "ok_status")]
    pub status: ModelStatus,
    pub latency_ms: StoredLatency,
    #[serde(default)]
    pub samples_ms: Vec<f64>,
    #[serde(default)]
    pub rounds: Vec<usize>,
    #[serde(default)]
    pub fingerprint: Fingerprint,
    #[serde(default)]
    pub generation: Option<StoredGeneration>,
}

fn ok_status() -> ModelStatus {
    ModelStatus::Ok
}

#[derive(Debug, Clone, Deserialize)]
pub struct StoredGeneration {
    pub generation_tokens_per_s: f64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct StoredLatency {
    pub p50: f64,
}

/// What a timing depends on besides the model's speed, as `name: value`: the model file's
/// hash, the execution provider and adapter, the CPU, ONNX Runtime and dmlrun, the session's
/// options and the timing flags. A verdict against another run says each that differs.
pub type Fingerprint = std::collections::BTreeMap<String, String>;

/// `name: old -> new` for each entry of the fingerprints that differs (one missing from an
/// older report is not a difference: it was not recorded).
pub fn fingerprint_differences(old: &Fingerprint, new: &Fingerprint) -> Vec<String> {
    new.iter()
        .filter_map(|(key, now)| {
            let then = old.get(key)?;
            (then != now).then(|| match key.as_str() {
                "model sha256" => format!("model file {then} -> {now} (another version of the model)"),
                _ => format!("{key} {then} -> {now}"),
            })
        })
        .collect()
}

fn row(m: &ModelBench, old: Option<crate::stats::change::Timed>, max_regression: f64) -> BaselineRow {
    use crate::stats::change::{judge, Timed, Verdict};
    let change = old.and_then(|old| judge(old, Timed { samples: &m.samples_ms, rounds: &m.rounds }, max_regression));
    let verdict = change.as_ref().map(|c| c.verdict);
    BaselineRow {
        name: m.name.clone(),
        status: m.status,
        tokens_per_s: m.generation.as_ref().map(|g| g.generation_tokens_per_s),
        baseline_tokens_per_s: None,
        baseline_p50_ms: old.and_then(|o| crate::stats::summarize(o.samples)).map(|s| s.p50),
        p50_ms: Some(m.latency_ms.p50),
        ratio: change.as_ref().map(|c| c.ratio),
        regression: verdict == Some(Verdict::Regression),
        verdict,
        change,
        differences: Vec::new(),
        note: (m.status == ModelStatus::Interrupted)
            .then(|| format!("interrupted this time: judged on the {} runs made", m.samples_ms.len())),
    }
}

/// Judges each model against an earlier report's runs of the model of the same name.
pub fn compare_with_baseline(
    report: &BenchReport,
    baseline: &StoredReport,
    file: PathBuf,
    max_regression: f64,
) -> BaselineComparison {
    use crate::stats::change::Timed;
    let stored = |name: &str| baseline.models.iter().find(|b| b.name == name);
    let mut models: Vec<BaselineRow> = report
        .models
        .iter()
        .map(|m| {
            let Some(old) = stored(&m.name) else {
                return BaselineRow { note: Some("not in the baseline".to_string()), ..row(m, None, max_regression) };
            };
            let timed = Timed { samples: &old.samples_ms, rounds: &old.rounds };
            let mut r = row(m, (!old.samples_ms.is_empty()).then_some(timed), max_regression);
            r.baseline_p50_ms = Some(old.latency_ms.p50);
            r.baseline_tokens_per_s = old.generation.as_ref().map(|g| g.generation_tokens_per_s);
            r.differences = fingerprint_differences(&old.fingerprint, &m.fingerprint);
            if r.verdict == Some(crate::stats::change::Verdict::Inconclusive) {
                r.note = Some(
                    "a report recorded at another time carries that time's load: --baseline-model times old and new together"
                        .to_string(),
                );
            }
            if old.samples_ms.is_empty() {
                r.note = Some("the baseline kept no runs of it to test against: record it again".to_string());
            } else if old.status == ModelStatus::Interrupted {
                let said = format!("the baseline's run of it was interrupted: judged on its {} runs", old.samples_ms.len());
                r.note = Some(r.note.map_or(said.clone(), |n| format!("{n}; {said}")));
            }
            r
        })
        .collect();
    // A model that fails now has no figure to compare; it is listed, and fails the run as a
    // failure (exit 1), not as a regression.
    models.extend(report.failed.iter().map(|f| BaselineRow::failed(f, stored(&f.name).map(|b| b.latency_ms.p50))));
    let mut notes = Vec::new();
    if baseline.interrupted {
        notes.push(format!(
            "the baseline report was interrupted (Ctrl-C after {} of its models): a model it did not reach is 'not in the baseline'",
            baseline.models.len() + baseline.failed.len()
        ));
    }
    tally(BaselineComparison {
        against: file.display().to_string(),
        source: BaselineSource::File,
        max_regression,
        test: crate::stats::change::TEST.to_string(),
        models,
        regressions: 0,
        improvements: 0,
        inconclusive: 0,
        notes,
    })
}

/// Judges each model against the baseline model timed beside it in this session.
pub fn compare_with_paired(report: &BenchReport, max_regression: f64) -> BaselineComparison {
    use crate::stats::change::Timed;
    let mut models: Vec<BaselineRow> = report
        .models
        .iter()
        .map(|m| match &m.baseline_model {
            Some(old) => {
                let timed = Timed { samples: &old.samples_ms, rounds: &old.rounds };
                let mut r = row(m, Some(timed), max_regression);
                let said = format!("against {} in alternating rounds", old.model.display());
                r.note = Some(r.note.map_or(said.clone(), |n| format!("{n}; {said}")));
                r
            }
            None => BaselineRow { note: Some("no baseline model".to_string()), ..row(m, None, max_regression) },
        })
        .collect();
    models.extend(report.failed.iter().map(|f| BaselineRow::failed(f, None)));
    tally(BaselineComparison {
        against: "the --baseline-model models, timed in this session".to_string(),
        source: BaselineSource::SameSession,
        max_regression,
        test: crate::stats::change::TEST.to_string(),
        models,
        regressions: 0,
        improvements: 0,
        inconclusive: 0,
        notes: Vec::new(),
    })
}

fn tally(mut b: BaselineComparison) -> BaselineComparison {
    use crate::stats::change::Verdict;
    let count = |v: Verdict| b.models.iter().filter(|r| r.verdict == Some(v)).count();
    b.regressions = count(Verdict::Regression);
    b.improvements = count(Verdict::Improvement);
    b.inconclusive = count(Verdict::Inconclusive);
    b
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::stats::change::Verdict;

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

    /// 100 runs around `center` ms in 10 rounds, the same shape whatever the centre.
    fn runs(center: f64) -> Vec<f64> {
        (0..100).map(|i| center * (1.0 + 0.01 * ((i * 37 % 11) as f64 - 5.0) / 5.0)).collect()
    }

    fn stored(name: &str, samples: Vec<f64>, fingerprint: Fingerprint) -> StoredReport {
        StoredReport {
            schema: BENCH_SCHEMA.into(),
            models: vec![StoredModel {
                name: name.to_string(),
                status: ModelStatus::Ok,
                latency_ms: StoredLatency { p50: crate::stats::summarize(&samples).unwrap().p50 },
                rounds: vec![10; 10],
                samples_ms: samples,
                fingerprint,
                generation: None,
            }],
            interrupted: false,
            failed: vec![],
        }
    }

    #[test]
    fn baseline_verdicts_come_from_the_runs_of_both() {
        let mut report = sample_report();
        report.models[0].samples_ms = runs(2.5);
        report.models[0].rounds = vec![10; 10];
        report.models[0].latency_ms = crate::stats::summarize(&report.models[0].samples_ms).unwrap();
        let name = report.models[0].name.clone();
        let judged = |old: f64| {
            compare_with_baseline(&report, &stored(&name, runs(old), Fingerprint::new()), "b.json".into(), 0.05)
        };
        let slower = judged(2.0);
        let r = &slower.models[0];
        assert_eq!((slower.regressions, r.verdict, r.regression), (1, Some(Verdict::Regression), true));
        assert!((r.ratio.unwrap() - 1.25).abs() < 1e-9, "{r:?}");
        assert_eq!(r.change.as_ref().unwrap().test, crate::stats::change::TEST);
        let same = judged(2.5);
        assert_eq!((same.regressions, same.models[0].verdict), (0, Some(Verdict::NoChange)));
        let faster = judged(3.0);
        assert_eq!((faster.improvements, faster.models[0].verdict), (1, Some(Verdict::Improvement)));
        let missing = compare_with_baseline(
            &report,
            &StoredReport { schema: BENCH_SCHEMA.into(), models: vec![], interrupted: false, failed: vec![] },
            "b".into(),
            0.05,
        );
        assert_eq!((missing.regressions, missing.models[0].ratio), (0, None));
        assert_eq!(missing.models[0].verdict_word(), "not in the baseline");
        // The failed model is listed with its status and no figure, and is no regression.
        let failed = &slower.models[1];
        assert_eq!(
            (failed.name.as_str(), failed.status, failed.p50_ms, failed.regression),
            ("broken", ModelStatus::Failed, None, false)
        );
        assert_eq!(failed.verdict_word(), "failed this time");
    }

    #[test]
    fn a_baseline_says_how_it_differs_and_what_it_was() {
        let mut report = sample_report();
        report.models[0].samples_ms = runs(2.0);
        report.models[0].fingerprint =
            Fingerprint::from([("model sha256".into(), "bbbb".into()), ("onnxruntime".into(), "1.31.1".into())]);
        let name = report.models[0].name.clone();
        let old = Fingerprint::from([
            ("model sha256".into(), "aaaa".into()),
            ("onnxruntime".into(), "1.31.1".into()),
            ("only then".into(), "x".into()),
        ]);
        let mut baseline = stored(&name, runs(2.0), old);
        baseline.interrupted = true;
        baseline.models[0].status = ModelStatus::Interrupted;
        let b = compare_with_baseline(&report, &baseline, "b.json".into(), 0.05);
        assert_eq!(b.models[0].differences, vec!["model file aaaa -> bbbb (another version of the model)"]);
        assert!(b.notes[0].starts_with("the baseline report was interrupted"), "{:?}", b.notes);
        assert!(
            b.models[0].note.as_ref().unwrap().contains("the baseline's run of it was interrupted"),
            "{:?}",
            b.models[0]
        );
        // A baseline without runs (nothing to test) is said, not judged.
        baseline.models[0].samples_ms.clear();
        let b = compare_with_baseline(&report, &baseline, "b.json".into(), 0.05);
        assert_eq!(b.models[0].verdict, None);
        assert!(b.models[0].verdict_word().contains("kept no runs"), "{}", b.models[0].verdict_word());
    }

    #[test]
    fn paired_baselines_are_judged_in_the_same_session() {
        let mut report = sample_report();
        report.models[0].samples_ms = runs(2.4);
        report.models[0].rounds = vec![10; 10];
        report.models[0].baseline_model = Some(crate::runtime::engine::PairedRuns {
            model: "old.onnx".into(),
            device: report.models[0].device.clone(),
            first_run_ms: 1.0,
            samples_ms: runs(2.0),
            rounds: vec![10; 10],
        });
        let b = compare_with_paired(&report, 0.05);
        assert_eq!(
            (b.source, b.regressions, b.models[0].verdict),
            (BaselineSource::SameSession, 1, Some(Verdict::Regression))
        );
        assert!(b.models[0].note.as_ref().unwrap().contains("old.onnx in alternating rounds"));
    }
}
