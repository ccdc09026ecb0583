//! `dmlrun run`'s report: what it found out (this file), its text (`human.rs`) and the JSON
//! schema's name (the report serialized, written by `report::write_json`).

pub mod human;

use std::path::PathBuf;

use serde::Serialize;

use crate::inputs::InputSource;
use crate::outputs::{OutputSummary, TopK};
use crate::runtime::engine::DeviceReport;
use crate::runtime::plan::SessionPlan;
use crate::runtime::LibraryInfo;
use crate::stats::LatencyStats;

/// Schema identifier written into every `run` report. The schema is versioned: fields are only
/// added within a version; a rename or removal bumps it. The README documents every field.
pub const RUN_SCHEMA: &str = "dmlrun.run/1";

/// Everything `dmlrun run` found out. Serialized as the JSON report (see [`RUN_SCHEMA`]).
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
