//! Measuring with the inputs and outputs in DirectML's memory (`--io-on-device`, graph capture):
//! the binding, the upload and download timed apart, and the check of the bound outputs.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use ort::session::Session;
use serde::{Deserialize, Serialize};

use super::open::{open, LoadedModel};
use super::runs::{run_feed, run_to_host_values, timed_runs, to_host_values, warm_up, Feed, PreparedInputs, RunBudget};
use crate::compare::Tolerance;
use crate::runtime::plan;
use crate::runtime::Runtime;
use crate::tensor::{flatten, HostValue};

/// What `--io-on-device` measured beside the timed runs: the copies it took out of them, and
/// whether the outputs that stayed on the device are the ones an unbound run gives.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeviceIo {
    /// Binding the inputs, which is when ONNX Runtime copies them into DirectML's memory (ms;
    /// median of the binds made).
    pub upload_ms: f64,
    pub upload_binds: usize,
    /// Median of runs whose outputs come back to host memory (ms), with the inputs on the device.
    pub host_output_run_ms: f64,
    pub host_output_runs: usize,
    /// `host_output_run_ms` minus the timed runs' median: what bringing the outputs back costs.
    pub download_ms: Option<f64>,
    /// The run the bound outputs were checked against.
    pub checked_against: String,
    pub outputs_checked: usize,
    pub tolerance: Tolerance,
    pub mismatches: Vec<crate::compare::Mismatch>,
    pub differences: Vec<crate::compare::Difference>,
}

impl DeviceIo {
    pub fn outputs_match(&self) -> bool {
        self.mismatches.is_empty()
    }

    /// What a reader must be told when the outputs kept on the device differ from the host's.
    pub fn mismatch_warning(&self) -> Option<String> {
        (!self.outputs_match()).then(|| {
            format!(
                "--io-on-device: {} of {} outputs kept on the device differ from {} beyond rtol {} atol {}",
                self.mismatches.len(),
                self.outputs_checked,
                self.checked_against,
                self.tolerance.rtol,
                self.tolerance.atol
            )
        })
    }
}

/// How many binds time the upload, and how many runs with the outputs to the host time the
/// download, under `--io-on-device`.
const DEVICE_IO_CHECK_RUNS: usize = 5;

/// The first run, its outputs, the timed runs' latencies (ms), and what `--io-on-device` measured.
type TimedRuns = (Duration, Vec<(String, HostValue)>, Vec<f64>, Option<DeviceIo>);

/// The runs of `--io-on-device`: inputs bound once in DirectML's memory (the upload, timed),
/// outputs bound there, every timed run waiting for the GPU; then a few runs with the outputs
/// coming back to the host (the download, timed) whose outputs are checked.
///
/// Without graph capture the first, unbound run is the reference and gives the reported
/// outputs. With graph capture every run of this session must use the one binding (the capture
/// records its buffers), so the reference is a second session of the same plan without capture
/// and with host IO.
/// `tolerance` is the one the bound outputs are checked with (`--compare-ep`'s, or the default).
pub(super) fn measure_on_device(
    runtime: &Runtime,
    model: &mut LoadedModel,
    prepared: &PreparedInputs,
    (warmup, budget): (u64, RunBudget),
    tolerance: Tolerance,
    bar: &indicatif::ProgressBar,
) -> Result<TimedRuns> {
    let capture = model.plan.graph_capture();
    let device_id = model.plan.device_id().unwrap_or(0) as i32;
    let (reference, checked_against, unbound_first_run) = outputs_to_check_against(runtime, model, prepared, capture)?;

    let device = device_memory(device_id)?;
    let host = memory_info(ort::memory::AllocationDevice::CPU, 0)?;
    // The upload: a few binds, the median kept; the last binding is the one timed.
    let mut uploads = Vec::new();
    let mut binding = None;
    for _ in 0..DEVICE_IO_CHECK_RUNS {
        let (b, upload) = bind_on_device(&model.session, prepared, &device)?;
        uploads.push(upload.as_secs_f64() * 1000.0);
        binding = Some(b);
    }
    let binding = binding.expect("at least one bind");
    let started = Instant::now();
    run_feed(&mut model.session, &Feed::Device(&binding)).map_err(|e| device_io_hint(e, capture))?;
    let first_bound_run = started.elapsed();
    warm_up(&mut model.session, &Feed::Device(&binding), warmup)?;
    let samples = timed_runs(&mut model.session, &Feed::Device(&binding), budget, bar, model.memory.as_mut())?;

    // The download: runs whose outputs come back to the host, with the inputs on the device.
    // Under graph capture they ask ONNX Runtime not to replay (gpu_graph_id -1), since a replay
    // writes only the captured binding's buffers.
    let (host_binding, _) = bind_on_device(&model.session, prepared, &host)?;
    let mut options = ort::session::RunOptions::new().map_err(|e| anyhow::anyhow!("run options: {e}"))?;
    if capture {
        options.set("gpu_graph_id", "-1").map_err(|e| anyhow::anyhow!("run options: {e}"))?;
    }
    let mut host_runs = Vec::new();
    let mut checked = Vec::new();
    for run in 1..=DEVICE_IO_CHECK_RUNS {
        let started = Instant::now();
        let outputs = model
            .session
            .run_binding_with_options(&host_binding, &options)
            .map_err(|e| anyhow::anyhow!("--io-on-device: a run with the outputs to the host: {e}"))?;
        host_runs.push(started.elapsed().as_secs_f64() * 1000.0);
        // The last run's outputs are the ones checked: converting the others would be wasted.
        if run == DEVICE_IO_CHECK_RUNS {
            checked = to_host_values(&outputs)?;
        }
    }
    let median = |v: &[f64]| crate::stats::summarize(v).map_or(0.0, |s| s.p50);
    let timed_p50 = crate::stats::summarize(&samples).map(|s| s.p50);
    let host_output_run_ms = median(&host_runs);
    let io = DeviceIo {
        upload_ms: median(&uploads),
        upload_binds: uploads.len(),
        host_output_run_ms,
        host_output_runs: host_runs.len(),
        download_ms: timed_p50.map(|p50| host_output_run_ms - p50),
        checked_against,
        outputs_checked: reference.len(),
        tolerance,
        mismatches: crate::compare::compare_outputs(&reference, &checked, tolerance),
        differences: crate::compare::differences(&flatten(&reference), &flatten(&checked)),
    };
    // The reported outputs are the reference's: the ones the report has always shown.
    Ok((unbound_first_run.unwrap_or(first_bound_run), reference, samples, Some(io)))
}

/// Outputs to check the bound runs' against: the values, what they came from, and the time of
/// the first run where it was the session's own.
type CheckedAgainst = (Vec<(String, HostValue)>, String, Option<Duration>);

/// The outputs the bound runs are checked against, what they came from, and the time of the
/// first run where it was this session's: under graph capture a session of the same plan without
/// it (a captured session's first run is its capture), else this session's first, unbound run.
fn outputs_to_check_against(
    runtime: &Runtime,
    model: &mut LoadedModel,
    prepared: &PreparedInputs,
    capture: bool,
) -> Result<CheckedAgainst> {
    if capture {
        let mut plan = model.plan.clone();
        plan.session_config.remove(plan::DML_GRAPH_CAPTURE);
        plan.io_on_device = false;
        plan.profile_prefix = None;
        plan.optimized_model_path = None;
        let mut reference = open(runtime, &model.model_path.clone(), model.info.clone(), Duration::ZERO, plan)
            .context("the reference session without graph capture")?;
        let outputs = run_to_host_values(&mut reference.session, prepared)?;
        return Ok((outputs, "a session of the same plan without graph capture".to_string(), None));
    }
    let started = Instant::now();
    let outputs = run_to_host_values(&mut model.session, prepared)?;
    Ok((outputs, "the first, unbound run".to_string(), Some(started.elapsed())))
}

/// A bound run that fails under graph capture usually fails because of it.
fn device_io_hint(error: anyhow::Error, capture: bool) -> anyhow::Error {
    if capture {
        error.context("the first run with DirectML graph capture (it needs every node on DirectML and static shapes; run without --dml-graph-capture to compare)")
    } else {
        error.context("the first run with the inputs and outputs bound on the device (--io-on-device)")
    }
}

pub(super) fn device_memory(device_id: i32) -> Result<ort::memory::MemoryInfo<'static>> {
    memory_info(ort::memory::AllocationDevice::DIRECTML, device_id)
}

fn memory_info(device: ort::memory::AllocationDevice<'static>, id: i32) -> Result<ort::memory::MemoryInfo<'static>> {
    ort::memory::MemoryInfo::new(device, id, ort::memory::AllocatorType::Device, ort::memory::MemoryType::Default)
        .map_err(|e| anyhow::anyhow!("memory info: {e}"))
}

/// An IoBinding of `session` with `prepared` bound as inputs (which is when ONNX Runtime copies
/// them into the memory their first consumer needs: DirectML's) and every output bound to
/// `outputs_to`; with the time the input binds took.
pub(super) fn bind_on_device(
    session: &Session,
    prepared: &PreparedInputs,
    outputs_to: &ort::memory::MemoryInfo,
) -> Result<(ort::session::IoBinding, Duration)> {
    let mut binding = session.create_binding().map_err(|e| anyhow::anyhow!("--io-on-device: IoBinding: {e}"))?;
    let started = Instant::now();
    for (name, value) in &prepared.values {
        binding.bind_input(name.as_str(), value).map_err(|e| anyhow::anyhow!("--io-on-device: input '{name}': {e}"))?;
    }
    let upload = started.elapsed();
    for name in session.outputs().iter().map(|o| o.name().to_string()) {
        binding
            .bind_output_to_device(name.as_str(), outputs_to)
            .map_err(|e| anyhow::anyhow!("--io-on-device: output '{name}': {e}"))?;
    }
    Ok((binding, upload))
}
