//! The steps run, test and bench share: resolving the plan, binding inputs against the model's
//! declared inputs, opening the session, running and timing it (`measure`), and comparing with
//! a reference execution provider. Timings and GPU memory are taken here.
//!
//! One file per concern: `open` (a session from a plan, and its errors named), `runs` (one run
//! and the timed loop), `measure` (host IO), `device_io` (`--io-on-device` and graph capture),
//! `sessions` (`bench --sessions`), `gpu_memory` (DXGI's readings); this file completes the
//! plan from the inputs and holds what they share.

mod decoder;
mod device_io;
pub mod diagnose;
mod gpu_memory;
mod measure;
mod open;
mod runs;
mod sessions;

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use ort::session::Session;

pub use decoder::{DecoderOptions, DecoderSession};
pub use device_io::DeviceIo;
pub use gpu_memory::{GpuMemory, GpuMemoryTracker};
pub use measure::measure;
pub use measure::{Comparison, MeasureRequest, Measurement};
pub use open::{open, DeviceReport};
pub use runs::{run_to_host_values, PreparedInputs, RunBudget, EMPTY_OUTPUT};
pub use sessions::{measure_sessions, ConcurrentSessions};

use crate::formats::model::{ModelInfo, ValueKind};
use crate::inputs::{BoundInputs, DimSpec, InputSignature};
use crate::runtime::plan::{self, DimKey, PlanRequest, SessionPlan};
use crate::runtime::Runtime;
use crate::tensor::DType;

/// A model ready to run, with what it took to get there.
pub struct LoadedModel {
    pub info: ModelInfo,
    pub plan: SessionPlan,
    pub session: Session,
    pub inputs: Vec<InputSignature>,
    pub output_names: Vec<String>,
    /// Reading the model file's header (inputs, outputs, opsets) in dmlrun; ONNX Runtime's own
    /// read and parse of the whole file is part of `session_time`.
    pub load_time: Duration,
    /// ONNX Runtime session creation (graph optimisation, EP compilation).
    pub session_time: Duration,
    /// Human-readable description of where it runs, e.g. `DmlExecutionProvider, adapter 1 (…)`.
    pub device: DeviceReport,
    /// DirectML's adapter memory before and after the session was created, when it can be read.
    pub memory: Option<GpuMemoryTracker>,
}

impl LoadedModel {
    /// Ends ONNX Runtime's profile of this session; returns the file ONNX Runtime wrote (its
    /// prefix plus a timestamp).
    pub fn end_profiling(&mut self) -> Result<String> {
        self.session.end_profiling().map_err(|e| anyhow::anyhow!("ending the ONNX Runtime profile: {e}"))
    }
}

/// Resolves the plan for `request` and checks that the loaded ONNX Runtime can apply it.
///
/// With `print_plan` a plan that cannot be applied is printed before the error; one that can is
/// printed by [`finish_plan`], once the inputs have fixed what they fix.
pub fn resolve_plan(
    runtime: &Runtime,
    info: &ModelInfo,
    request: &PlanRequest,
    print_plan: bool,
) -> Result<SessionPlan> {
    let plan = plan::resolve(request, &runtime.offered(), info)?;
    if !print_plan {
        plan::check_available(&plan, request, &runtime.offered())?;
    }
    Ok(plan)
}

/// Checks what `request` asks of every model: that the loaded ONNX Runtime has its execution
/// providers and that its adapter exists. Fails with the error every model would fail with.
pub fn check_request(runtime: &Runtime, request: &PlanRequest) -> Result<()> {
    let plan = plan::resolve(request, &runtime.offered(), &ModelInfo::default())?;
    plan::check_available(&plan, request, &runtime.offered())?;
    if let Some(id) = plan.device_id() {
        super::adapters::check_device_index(id)?;
    }
    Ok(())
}

/// Checks the flags of `request` against each other before any model is read: what every
/// model would fail with is said once.
pub fn check_flags(runtime: &Runtime, request: &PlanRequest) -> Result<()> {
    plan::resolve(request, &runtime.offered(), &ModelInfo::default()).map(drop)
}

/// Whether `request` puts DirectML in the plan (for any model) on the loaded ONNX Runtime.
pub fn plans_directml(runtime: &Runtime, request: &PlanRequest) -> bool {
    plan::resolve(request, &runtime.offered(), &ModelInfo::default()).is_ok_and(|p| p.uses_directml())
}

/// Completes the plan from the inputs about to be bound (DirectML's automatic dimension
/// overrides) and, with `print_plan`, prints it; then checks it can be applied.
pub fn finish_plan(
    runtime: &Runtime,
    plan: &mut SessionPlan,
    info: &ModelInfo,
    request: &PlanRequest,
    bound: &[plan::BoundShape],
    print_plan: bool,
) -> Result<()> {
    plan::fix_dims_from_inputs(plan, info, bound)?;
    plan.check_graph_capture()?;
    if print_plan {
        crate::errln!("session plan:\n{plan}");
        plan::check_available(plan, request, &runtime.offered())?;
    }
    Ok(())
}

/// Opens a session for `request` as it stands on a model already read: no automatic dimension
/// overrides (used where no inputs are bound first: reference sessions).
pub fn load(runtime: &Runtime, model_path: &Path, info: &ModelInfo, request: &PlanRequest) -> Result<LoadedModel> {
    let mut plan = resolve_plan(runtime, info, request, false)?;
    plan.auto_dims = false;
    open(runtime, model_path, info.clone(), Duration::ZERO, plan)
}

/// Each bound input's shape and what it came from, for the plan's automatic dimension overrides.
pub fn bound_shapes(bound: &BoundInputs) -> Vec<plan::BoundShape> {
    bound
        .sources
        .iter()
        .map(|s| {
            let from = match (s.kind.as_str(), s.files.as_slice()) {
                ("image", [_]) => "1 image".to_string(),
                ("image", files) => format!("{} images", files.len()),
                (_, [file, ..]) => {
                    file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned())
                }
                (kind, []) => kind.to_string(),
            };
            plan::BoundShape { input: s.name.clone(), shape: s.shape.clone(), from }
        })
        .collect()
}

/// The model's inputs as the model file declares them, with the plan's dimension overrides
/// applied to their free dimensions: what inputs are bound against, before any session exists.
pub fn input_signatures(info: &ModelInfo, plan: &SessionPlan) -> Vec<InputSignature> {
    info.inputs
        .iter()
        .map(|input| {
            let shape = plan.input_shapes.get(&input.name);
            let dims = input
                .dims
                .iter()
                .enumerate()
                .map(|(axis, d)| {
                    let given = shape.and_then(|s| s.get(axis).copied());
                    let fixed = d.value.filter(|v| *v >= 0).map(|v| v as usize).or(given).or_else(|| {
                        plan.dimension_overrides.iter().find_map(|o| {
                            let matches = match o.by {
                                DimKey::Name => d.param.as_deref() == Some(o.key.as_str()),
                                DimKey::Denotation => d.denotation.as_deref() == Some(o.key.as_str()),
                            };
                            matches.then_some(o.value as usize)
                        })
                    });
                    DimSpec { size: fixed, symbol: d.param.clone() }
                })
                .collect();
            let dtype = match input.kind {
                ValueKind::Tensor => input.dtype.as_deref().and_then(DType::parse),
                _ => None,
            };
            let element = input.dtype.as_deref().unwrap_or("unknown");
            let type_name = match input.kind {
                ValueKind::Tensor => element.to_string(),
                ValueKind::Sequence => format!("sequence of {element} tensors"),
                ValueKind::Optional => format!("optional {element} value"),
                ValueKind::Other => "map or other non-tensor value".to_string(),
            };
            InputSignature { name: input.name.clone(), dtype, type_name, dims }
        })
        .collect()
}

/// The batch size of a run: the first axis of the first input, when that input has a batch
/// axis (rank 2 or more).
pub fn batch_size(model: &LoadedModel, bound: &crate::inputs::BoundInputs) -> Option<usize> {
    let first = bound.tensors.first()?;
    model.inputs.first().filter(|s| s.dims.len() >= 2)?;
    first.1.shape.first().copied()
}
