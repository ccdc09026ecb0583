//! One run and many: the inputs prepared once as ONNX Runtime values, where a run's inputs
//! come from (host or device), the warm-up and the timed runs, and a run's outputs as host values.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use ort::session::Session;

use super::gpu_memory::GpuMemoryTracker;
use crate::formats::model::ModelInfo;
use crate::runtime::session;
use crate::runtime::Runtime;
use crate::tensor::HostValue;

pub use crate::runtime::values::PreparedInputs;

impl PreparedInputs {
    /// Inputs that may be sequences or empty optionals (which are left out of the feed).
    /// `model` gives the element type of empty sequences.
    pub fn from_values(runtime: &Runtime, values: &[(String, HostValue)], model: &ModelInfo) -> Result<PreparedInputs> {
        let mut prepared = Vec::new();
        for (name, value) in values {
            let value = match value {
                HostValue::Sequence(items) if items.is_empty() => {
                    let dtype = model.input(name).and_then(|i| i.element_type());
                    let dtype = dtype
                        .ok_or_else(|| anyhow::anyhow!("input '{name}': unknown element type for an empty sequence"))?;
                    Some(session::empty_sequence(runtime, dtype).map_err(|e| anyhow::anyhow!("input '{name}': {e}"))?)
                }
                other => {
                    crate::runtime::values::value_to_ort(other).map_err(|e| anyhow::anyhow!("input '{name}': {e}"))?
                }
            };
            if let Some(v) = value {
                prepared.push((name.clone(), v));
            }
        }
        Ok(PreparedInputs { values: prepared })
    }
}

/// Where a run's inputs come from and its outputs go.
pub enum Feed<'a> {
    /// Host values, copied to the device and back by each run.
    Host(&'a PreparedInputs),
    /// An IoBinding whose inputs are already in DirectML's memory and whose outputs stay there.
    Device(&'a ort::session::IoBinding),
}

/// How many timed runs to make: up to `max`, or until `time_box` is spent once `min` are done.
#[derive(Debug, Clone, Copy)]
pub struct RunBudget {
    pub max: u64,
    pub time_box: Option<Duration>,
    pub min: u64,
}

impl RunBudget {
    /// Exactly `runs` timed runs (`--iterations N`).
    pub fn runs(runs: u64) -> RunBudget {
        RunBudget { max: runs, time_box: None, min: 0 }
    }
}

/// The run options every run of this process shares. The first Ctrl-C sets their terminate
/// flag ([`stop_runs`]), and ONNX Runtime ends the runs under way at their next node, so a run
/// that would go on for long (a model that loops) does not hold the partial report back.
fn stoppable() -> Option<&'static ort::session::RunOptions> {
    static OPTIONS: std::sync::OnceLock<Option<ort::session::RunOptions>> = std::sync::OnceLock::new();
    OPTIONS.get_or_init(|| ort::session::RunOptions::new().ok()).as_ref()
}

/// Ends the runs under way (and any later one made with the shared options): what Ctrl-C does.
pub fn stop_runs() {
    if let Some(options) = stoppable() {
        let _ = options.terminate();
    }
}

/// Whether a failed run is one Ctrl-C stopped: its error is then no failure of the model.
fn stopped_by_ctrl_c<T>(result: &Result<T>) -> bool {
    result.is_err() && crate::interrupt::interrupted()
}

/// Untimed runs; stops early on Ctrl-C.
pub fn warm_up(session: &mut Session, feed: &Feed, runs: u64) -> Result<()> {
    for _ in 0..runs {
        if crate::interrupt::interrupted() {
            break;
        }
        let result = run_feed(session, feed);
        if stopped_by_ctrl_c(&result) {
            break;
        }
        result?;
    }
    Ok(())
}

/// One run, its outputs dropped. A bound run waits until the GPU has written the outputs
/// (IoBinding's SynchronizeBoundOutputs): without it a run would time only the submission.
pub fn run_feed(session: &mut Session, feed: &Feed) -> Result<()> {
    match feed {
        Feed::Host(inputs) => run(session, inputs).map(drop),
        Feed::Device(binding) => {
            let ran = match stoppable() {
                Some(options) => session.run_binding_with_options(binding, options),
                None => session.run_binding(binding),
            };
            ran.map_err(|e| run_error(&e)).map(drop)?;
            binding.synchronize_outputs().map_err(|e| anyhow::anyhow!("waiting for the bound outputs: {e}"))
        }
    }
}

/// Timed runs: one latency sample (ms) per run. Stops early on Ctrl-C (the samples so far are
/// kept) or when the time box is spent. GPU memory, when tracked, is read after each run,
/// outside the timed part.
pub fn timed_runs(
    session: &mut Session,
    feed: &Feed,
    budget: RunBudget,
    bar: &indicatif::ProgressBar,
    mut memory: Option<&mut GpuMemoryTracker>,
) -> Result<Vec<f64>> {
    let mut samples = Vec::with_capacity(budget.max.min(1 << 20) as usize);
    let started = Instant::now();
    for i in 0..budget.max {
        if crate::interrupt::interrupted() {
            break;
        }
        if budget.time_box.is_some_and(|limit| i >= budget.min && started.elapsed() >= limit) {
            break;
        }
        let t = Instant::now();
        let result = run_feed(session, feed);
        if stopped_by_ctrl_c(&result) {
            break;
        }
        result?;
        samples.push(t.elapsed().as_secs_f64() * 1000.0);
        if let Some(memory) = memory.as_deref_mut() {
            memory.sample();
        }
        bar.inc(1);
    }
    Ok(samples)
}

/// One `Run`. Taking `&mut Session` is what guarantees one `Run` at a time per session, which
/// DirectML requires.
pub fn run<'s>(session: &'s mut Session, inputs: &PreparedInputs) -> Result<ort::session::SessionOutputs<'s>> {
    let feed: Vec<(&str, &ort::value::DynValue)> = inputs.values.iter().map(|(n, v)| (n.as_str(), v)).collect();
    without_panic(|| match stoppable() {
        Some(options) => session.run_with_options(feed, options),
        None => session.run(feed),
    })
    .map_err(|e| run_error(&e))
}

/// What ONNX Runtime's run hands back is wrapped by ort, which panics on an output that is neither
/// a tensor nor typed: ONNX Runtime 1.24's DirectML EP hands back such an empty value for a tensor
/// asked for as a graph output that it computed on the CPU as another node's constant input (a
/// decoder's `total_sequence_length`). That is an error of the run, said as one line.
pub const EMPTY_OUTPUT: &str =
    "ONNX Runtime handed back an empty value (no tensor, no type) for one of the outputs asked for";

fn without_panic<T>(run: impl FnOnce() -> ort::Result<T>) -> ort::Result<T> {
    crate::exit::unless_it_panics(run).unwrap_or_else(|| Err(ort::Error::new(EMPTY_OUTPUT)))
}

/// DirectML reports a lost GPU as DXGI_ERROR_DEVICE_REMOVED (887A0005) and its reasons as
/// HRESULTs inside ONNX Runtime's message: name them. (ONNX Runtime owns the D3D12 device, so
/// GetDeviceRemovedReason cannot be asked; the device stays lost for this process, and
/// isolation runs the next item in a fresh one.)
fn run_error(e: &ort::Error) -> anyhow::Error {
    let message = e.to_string();
    let named = crate::runtime::adapters::named_hresult_in(&message).map(|h| format!(" [{h}]")).unwrap_or_default();
    anyhow::anyhow!("ONNX Runtime Run failed: {}{named}", message.trim())
}

/// One `Run`, with every output (tensor or sequence) copied to the host.
pub fn run_to_host_values(session: &mut Session, inputs: &PreparedInputs) -> Result<Vec<(String, HostValue)>> {
    to_host_values(&run(session, inputs)?)
}

/// Every output of a run (tensor or sequence, in host memory) copied into host values.
pub(super) fn to_host_values(outputs: &ort::session::SessionOutputs) -> Result<Vec<(String, HostValue)>> {
    outputs
        .iter()
        .map(|(name, value)| {
            let host = crate::runtime::values::value_from_ort(&value).with_context(|| format!("output '{name}'"))?;
            Ok((name.to_string(), host))
        })
        .collect()
}
