//! The steps run, test and bench share: resolving the plan, binding inputs against the model's
//! declared inputs, opening the session, running and timing it (`measure`), and comparing with
//! a reference execution provider. Timings and GPU memory are taken here.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use ort::session::Session;
use serde::{Deserialize, Serialize};

use super::adapters::{VideoMemory, VideoMemoryProbe};
use crate::compare::Tolerance;
use crate::formats::model::{ModelFile, ModelInfo, ValueKind};
use crate::inputs::{BoundInputs, DimSpec, InputSignature, InputSpec, LoadOptions};
use crate::runtime::placement::{self, EpNodes};
use crate::runtime::plan::{self, DimKey, PlanRequest, ProviderPlan, SessionPlan};
use crate::runtime::session::{self, BuildStep};
use crate::runtime::Runtime;
use crate::tensor::{flatten, DType, HostTensor, HostValue};

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

/// DirectML's adapter memory for this process in three phases of a run (DXGI
/// `QueryVideoMemoryInfo`): what the model and its session cost on the GPU.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GpuMemory {
    /// The adapter read (DirectML's `device_id`).
    pub adapter: u32,
    pub before_session: VideoMemory,
    pub after_session: Option<VideoMemory>,
    /// The largest reading between timed runs (one reading after each).
    pub peak_timed_runs: Option<VideoMemory>,
    /// Why the figures may not be DirectML's use (under Wine).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub note: Option<String>,
}

/// Reads [`GpuMemory`] as a run goes on.
pub struct GpuMemoryTracker {
    pub memory: GpuMemory,
    probe: VideoMemoryProbe,
}

impl GpuMemoryTracker {
    /// Starts tracking when the plan runs DirectML on an adapter DXGI can be asked about.
    fn start(plan: &SessionPlan) -> Option<GpuMemoryTracker> {
        let adapter = plan.device_id()?;
        let probe = VideoMemoryProbe::open(adapter)?;
        let before_session = probe.read()?;
        Some(GpuMemoryTracker {
            memory: GpuMemory {
                adapter,
                before_session,
                after_session: None,
                peak_timed_runs: None,
                // Seen with Wine 8 on lavapipe and on NVIDIA's driver: its DXGI answers, with 0
                // bytes whatever Direct3D 12 (vkd3d) allocates.
                note: crate::runtime::adapters::wine_version().map(|v| {
                    format!(
                        "under Wine {v}, DXGI's QueryVideoMemoryInfo does not count Direct3D 12 (vkd3d) allocations"
                    )
                }),
            },
            probe,
        })
    }

    fn session_created(&mut self) {
        self.memory.after_session = self.probe.read();
    }

    /// One reading between timed runs, kept if it is the largest so far.
    pub fn sample(&mut self) {
        if let Some(now) = self.probe.read() {
            self.memory.peak_timed_runs = Some(self.memory.peak_timed_runs.map_or(now, |p| p.max(now)));
        }
    }
}

/// Which execution provider and device actually run the model.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeviceReport {
    pub execution_provider: String,
    pub device_id: Option<u32>,
    pub adapter_name: Option<String>,
    /// Where ONNX Runtime placed the model's nodes: DirectML takes what it supports, the CPU
    /// execution provider the rest.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub placement: Vec<EpNodes>,
    /// The EP selection policy that chose the execution provider (`--ep policy:...`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub chosen_by: Option<String>,
}

impl DeviceReport {
    pub fn describe(&self) -> String {
        let chosen =
            self.chosen_by.as_ref().map(|p| format!(", chosen by ONNX Runtime's {p} policy")).unwrap_or_default();
        match (self.device_id, &self.adapter_name) {
            (None, Some(hardware)) => format!("{} on {hardware}{chosen}", self.execution_provider),
            (None, None) if self.chosen_by.is_some() => format!("{}{chosen}", self.execution_provider),
            (Some(id), Some(name)) => {
                format!("{} on adapter {id} ({name})", self.execution_provider)
            }
            (Some(id), None) => format!("{} on adapter {id}", self.execution_provider),
            (None, _) if self.execution_provider == plan::CPU_PROVIDER => {
                format!("{} (host CPU)", self.execution_provider)
            }
            (None, _) => format!("{} (adapter chosen by DirectML)", self.execution_provider),
        }
    }
}

impl DeviceReport {
    /// The warning a DirectML run needs when ONNX Runtime gave DirectML none of its nodes: the
    /// CPU execution provider then ran everything, and nothing else would say so (ONNX Runtime
    /// warns only about a graph split between providers).
    pub fn placement_warning(&self) -> Option<String> {
        let (elsewhere, total) = placement::nodes_elsewhere(&self.placement, plan::DML_PROVIDER);
        (self.execution_provider == plan::DML_PROVIDER && total > 0 && elsewhere == total).then(|| {
            format!(
                "DirectML was asked for, but ONNX Runtime placed all {total} nodes on {}: DirectML takes none of \
                 this model's operators at these types, so these results and timings are the CPU's",
                self.placement.iter().map(|p| p.execution_provider.as_str()).collect::<Vec<_>>().join(" and ")
            )
        })
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

/// Creates the session `plan` describes.
pub fn open(
    runtime: &Runtime,
    model_path: &Path,
    info: ModelInfo,
    load_time: Duration,
    plan: SessionPlan,
) -> Result<LoadedModel> {
    if let Some(id) = plan.device_id() {
        crate::runtime::adapters::check_device_index(id)?;
    }
    if plan.uses_directml() {
        crate::runtime::adapters::pin_wine_vulkan();
    }
    let mut memory = GpuMemoryTracker::start(&plan);
    let started = Instant::now();
    let (session, placement) = session::build(runtime, &plan, model_path)
        .map_err(|(step, e)| session_error(&plan, model_path, step, &e.to_string()))?;
    let session_time = started.elapsed();
    if let Some(tracker) = &mut memory {
        tracker.session_created();
    }

    let inputs = input_signatures(&info, &plan);
    let output_names = session.outputs().iter().map(|o| o.name().to_string()).collect();
    let device = device_report(runtime, &plan, placement);
    Ok(LoadedModel { info, plan, session, inputs, output_names, load_time, session_time, device, memory })
}

/// The one line a user sees when a session cannot be built: a DirectML device that cannot
/// start is the adapter's problem, a model DirectML cannot compile is the model's.
fn session_error(plan: &SessionPlan, model: &Path, step: BuildStep, message: &str) -> anyhow::Error {
    let lower = message.to_ascii_lowercase();
    let names_directml = ["dml", "directml", "dxgi", "d3d12"].iter().any(|w| lower.contains(w));
    let hresult = crate::runtime::adapters::named_hresult_in(message);
    let named = hresult.as_ref().map(|h| format!(" [{h}]")).unwrap_or_default();
    let adapter =
        || plan.device_id().map_or_else(|| "the adapter DirectML chose".to_string(), |id| format!("adapter {id}"));
    if let BuildStep::PassThrough(what) = &step {
        return anyhow::anyhow!("{what}: ONNX Runtime rejected it: {}", message.trim());
    }
    if plan.graph_capture() && step == BuildStep::Load && lower.contains("graph capture") {
        return anyhow::anyhow!(
            "model {}: DirectML graph capture cannot be used with this model: {}. Run it without --dml-graph-capture",
            model.display(),
            message.trim()
        );
    }
    match (plan.execution_providers.first(), step) {
        (Some(ProviderPlan::DirectML { .. }), BuildStep::Configure) => anyhow::anyhow!(
            "DirectML could not start on {}: {}{named}. Run `dmlrun devices` to list adapters, or use --ep cpu",
            adapter(),
            message.trim()
        ),
        (Some(ProviderPlan::DirectML { .. }), BuildStep::Load) if names_directml || hresult.is_some() => {
            anyhow::anyhow!(
                "model {}: DirectML started on {} but could not compile this model: {}{named}. Run it with --ep cpu",
                model.display(),
                adapter(),
                message.trim()
            )
        }
        // A plugin reads its options when ONNX Runtime creates it, at load.
        (Some(ProviderPlan::EpDevice { ep, .. }), BuildStep::Load) if !plan.provider_options.is_empty() => {
            anyhow::anyhow!(
                "model {}: ONNX Runtime could not create a session on {ep} with --ep-option {}: {}",
                model.display(),
                plan.provider_options_text(),
                message.trim()
            )
        }
        _ if !plan.session_config.is_empty() => anyhow::anyhow!(
            "model {}: ONNX Runtime could not create a session with session config {}: {}",
            model.display(),
            plan.session_config.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", "),
            message.trim()
        ),
        _ => anyhow::anyhow!("model {}: ONNX Runtime could not create a session: {}", model.display(), message.trim()),
    }
}

fn device_report(runtime: &Runtime, plan: &SessionPlan, placement: Vec<EpNodes>) -> DeviceReport {
    let report = |execution_provider: &str, device_id: Option<u32>, adapter_name: Option<String>| DeviceReport {
        execution_provider: execution_provider.to_string(),
        device_id,
        adapter_name,
        placement: Vec::new(),
        chosen_by: None,
    };
    let report = match plan.execution_providers.first() {
        Some(ProviderPlan::DirectML { .. }) => {
            let device_id = plan.device_id();
            let adapter_name = device_id.and_then(|id| {
                crate::runtime::adapters::list_adapters().ok()?.into_iter().find(|a| a.index == id).map(|a| a.name)
            });
            report(plan::DML_PROVIDER, device_id, adapter_name)
        }
        Some(ProviderPlan::EpDevice { ep, hardware, .. }) => report(ep, None, Some(hardware.clone())),
        // What the policy chose shows only in where the nodes went: the provider with most
        // nodes, on the first device ONNX Runtime lists for it.
        Some(ProviderPlan::Policy { policy }) => {
            let chosen = placement.iter().max_by_key(|p| p.nodes).map_or(plan::CPU_PROVIDER, |p| &p.execution_provider);
            let hardware = runtime.ep_devices.iter().find(|d| d.ep_name == chosen).map(|d| d.hardware());
            DeviceReport { chosen_by: Some(policy.to_string()), ..report(chosen, None, hardware) }
        }
        _ => report(plan::CPU_PROVIDER, None, None),
    };
    DeviceReport { placement, ..report }
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

/// ONNX Runtime values for the bound inputs, made once and reused by every run.
pub struct PreparedInputs {
    values: Vec<(String, ort::value::DynValue)>,
}

impl PreparedInputs {
    pub fn new(tensors: &[(String, HostTensor)]) -> Result<PreparedInputs> {
        let values = tensors
            .iter()
            .map(|(name, t)| {
                Ok((name.clone(), super::values::tensor_to_ort(t).map_err(|e| anyhow::anyhow!("input '{name}': {e}"))?))
            })
            .collect::<Result<_>>()?;
        Ok(PreparedInputs { values })
    }

    /// Inputs that may be sequences or empty optionals (which are left out of the feed).
    /// `model` gives the element type of empty sequences.
    pub fn from_values(runtime: &Runtime, values: &[(String, HostValue)], model: &ModelInfo) -> Result<PreparedInputs> {
        let mut prepared = Vec::new();
        for (name, value) in values {
            let value = match value {
                HostValue::Sequence(items) if items.is_empty() => {
                    let dtype = model.input(name).and_then(|i| i.dtype.as_deref()).and_then(DType::parse);
                    let dtype = dtype
                        .ok_or_else(|| anyhow::anyhow!("input '{name}': unknown element type for an empty sequence"))?;
                    Some(session::empty_sequence(runtime, dtype).map_err(|e| anyhow::anyhow!("input '{name}': {e}"))?)
                }
                other => super::values::value_to_ort(other).map_err(|e| anyhow::anyhow!("input '{name}': {e}"))?,
            };
            if let Some(v) = value {
                prepared.push((name.clone(), v));
            }
        }
        Ok(PreparedInputs { values: prepared })
    }
}

/// A `--compare-ep` reference run's outcome: where it ran and how far apart the outputs are.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub reference: DeviceReport,
    pub reference_optimization_level: plan::OptimizationLevel,
    pub tolerance: Tolerance,
    pub outputs_compared: usize,
    pub mismatches: Vec<crate::compare::Mismatch>,
    /// Largest absolute and relative differences per float output, passing or not.
    pub differences: Vec<crate::compare::Difference>,
    /// With `time_reference`: the reference's timed runs (ms), as many as the main run's budget.
    #[serde(skip)]
    pub reference_samples: Vec<f64>,
}

/// What `run` and `bench` measure of one model: which model, which plan, which inputs, how many
/// runs, and what to compare with.
pub struct MeasureRequest<'a> {
    pub model_path: &'a Path,
    /// The model file as dmlrun read it (once).
    pub model: &'a ModelFile,
    pub plan: &'a PlanRequest,
    pub print_plan: bool,
    pub inputs: &'a [InputSpec],
    pub load: &'a LoadOptions,
    pub warmup: u64,
    pub budget: RunBudget,
    /// `--compare-ep`: the reference plan and the tolerance.
    pub reference: Option<(PlanRequest, Tolerance)>,
    /// Time the reference session too, with the same warm-up and budget (bench: both execution
    /// providers side by side).
    pub time_reference: bool,
}

/// One model measured: the open session, the bound inputs, the first run's outputs, the timed
/// runs' latencies (ms), and the comparison with the reference, if asked.
pub struct Measurement {
    pub model: LoadedModel,
    pub bound: BoundInputs,
    /// Decoding, preprocessing or generating the inputs, and copying them into ONNX Runtime.
    pub input_prepare: Duration,
    pub first_run: Duration,
    pub outputs: Vec<(String, HostValue)>,
    pub samples: Vec<f64>,
    pub comparison: Option<Comparison>,
    /// With `--io-on-device`: the copies timed apart and the check of the bound outputs.
    pub device_io: Option<DeviceIo>,
    /// Said on stderr as they arose, and kept for the report.
    pub warnings: Vec<String>,
}

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
}

/// Where a run's inputs come from and its outputs go.
pub enum Feed<'a> {
    /// Host values, copied to the device and back by each run.
    Host(&'a PreparedInputs),
    /// An IoBinding whose inputs are already in DirectML's memory and whose outputs stay there.
    Device(&'a ort::session::IoBinding),
}

/// How many binds time the upload, and how many runs with the outputs to the host time the
/// download, under `--io-on-device`.
const DEVICE_IO_CHECK_RUNS: usize = 5;

/// The open, bind, run, warm up, time and compare sequence `run` and `bench` share.
///
/// Inputs are bound before the session is created, so DirectML's automatic dimension overrides
/// can use their shapes; the first run's outputs are the ones reported and compared.
pub fn measure(runtime: &Runtime, request: &MeasureRequest, bar: &indicatif::ProgressBar) -> Result<Measurement> {
    let (info, model_load) = (request.model.info.clone(), request.model.read_time);
    let mut plan = resolve_plan(runtime, &info, request.plan, request.print_plan)?;
    let started = Instant::now();
    let bound = crate::inputs::bind(request.inputs, &input_signatures(&info, &plan), request.load)?;
    let mut input_prepare = started.elapsed();
    finish_plan(runtime, &mut plan, &info, request.plan, &bound_shapes(&bound), request.print_plan)?;

    let mut warnings = Vec::new();
    let mut warn = |w: String| {
        crate::errln!("warning: {w}");
        warnings.push(w);
    };
    for w in bound.warnings.iter().chain(&plan.notes) {
        warn(w.clone());
    }
    // Said before the (possibly long) session creation.
    if let Some(w) = plan.dynamic_shape_warning() {
        warn(w);
    }
    for w in plan.option_warnings() {
        warn(w);
    }
    let mut model = open(runtime, request.model_path, info, model_load, plan)?;
    if let Some(w) = model.device.placement_warning() {
        warn(w);
    }
    let started = Instant::now();
    let prepared = PreparedInputs::new(&bound.tensors)?;
    input_prepare += started.elapsed();

    let (first_run, outputs, samples, device_io) = if model.plan.io_on_device {
        measure_on_device(runtime, request, &mut model, &prepared, &bound, bar)?
    } else {
        let started = Instant::now();
        let outputs = run_to_host_values(&mut model.session, &prepared).map_err(|e| generated_hint(e, &bound))?;
        let first_run = started.elapsed();
        warm_up(&mut model.session, &Feed::Host(&prepared), request.warmup)?;
        let samples =
            timed_runs(&mut model.session, &Feed::Host(&prepared), request.budget, bar, model.memory.as_mut())?;
        (first_run, outputs, samples, None)
    };
    bar.finish_and_clear();
    if let Some(io) = &device_io {
        if !io.outputs_match() {
            warn(format!(
                "--io-on-device: {} of {} outputs kept on the device differ from {} beyond rtol {} atol {}",
                io.mismatches.len(),
                io.outputs_checked,
                io.checked_against,
                io.tolerance.rtol,
                io.tolerance.atol
            ));
        }
    }

    let comparison = match &request.reference {
        Some((reference_plan, tolerance)) => {
            let mut reference = load(runtime, request.model_path, &request.model.info, reference_plan)
                .context("--compare-ep reference session")?;
            let expected =
                run_to_host_values(&mut reference.session, &prepared).context("--compare-ep reference run")?;
            let reference_samples = if request.time_reference {
                let feed = Feed::Host(&prepared);
                warm_up(&mut reference.session, &feed, request.warmup)?;
                let hidden = indicatif::ProgressBar::hidden();
                timed_runs(&mut reference.session, &feed, request.budget, &hidden, None)?
            } else {
                Vec::new()
            };
            Some(Comparison {
                reference_samples,
                reference: reference.device.clone(),
                reference_optimization_level: reference_plan.optimization_level,
                tolerance: *tolerance,
                outputs_compared: expected.len(),
                mismatches: crate::compare::compare_outputs(&expected, &outputs, *tolerance),
                differences: crate::compare::differences(&flatten(&expected), &flatten(&outputs)),
            })
        }
        None => None,
    };
    Ok(Measurement { model, bound, input_prepare, first_run, outputs, samples, comparison, device_io, warnings })
}

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
fn measure_on_device(
    runtime: &Runtime,
    request: &MeasureRequest,
    model: &mut LoadedModel,
    prepared: &PreparedInputs,
    bound: &BoundInputs,
    bar: &indicatif::ProgressBar,
) -> Result<TimedRuns> {
    let capture = model.plan.graph_capture();
    let device_id = model.plan.device_id().unwrap_or(0) as i32;
    let (reference, checked_against, unbound_first_run) = if capture {
        let mut plan = model.plan.clone();
        plan.session_config.remove(plan::DML_GRAPH_CAPTURE);
        plan.io_on_device = false;
        plan.profile_prefix = None;
        plan.optimized_model_path = None;
        let mut reference = open(runtime, request.model_path, model.info.clone(), Duration::ZERO, plan)
            .context("the reference session without graph capture")?;
        let outputs = run_to_host_values(&mut reference.session, prepared).map_err(|e| generated_hint(e, bound))?;
        (outputs, "a session of the same plan without graph capture".to_string(), None)
    } else {
        let started = Instant::now();
        let outputs = run_to_host_values(&mut model.session, prepared).map_err(|e| generated_hint(e, bound))?;
        (outputs, "the first, unbound run".to_string(), Some(started.elapsed()))
    };

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
    warm_up(&mut model.session, &Feed::Device(&binding), request.warmup)?;
    let samples = timed_runs(&mut model.session, &Feed::Device(&binding), request.budget, bar, model.memory.as_mut())?;

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
    let tolerance = request.reference.as_ref().map_or(Tolerance::default(), |(_, t)| *t);
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

/// A bound run that fails under graph capture usually fails because of it.
fn device_io_hint(error: anyhow::Error, capture: bool) -> anyhow::Error {
    if capture {
        error.context("the first run with DirectML graph capture (it needs every node on DirectML and static shapes; run without --dml-graph-capture to compare)")
    } else {
        error.context("the first run with the inputs and outputs bound on the device (--io-on-device)")
    }
}

/// `bench --sessions N`: N sessions of one model run at once, each by its own thread.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConcurrentSessions {
    pub sessions: usize,
    /// From the moment every session was warmed up and released to the last one's end.
    pub wall_s: f64,
    pub runs: u64,
    /// All sessions' runs over the wall time.
    pub throughput_per_s: f64,
    /// Each session's latencies over its timed runs (ms).
    pub per_session: Vec<crate::stats::LatencyStats>,
}

/// Opens `count` fresh sessions of the plan `model` was measured with and runs them at once,
/// one thread per session: DirectML's one-`Run`-at-a-time rule is per session, and a thread
/// that owns its session (`&mut Session`) cannot break it. Each thread binds its own inputs
/// (on the device with `--io-on-device`), warms up, and waits for the others before its timed
/// runs, so the sessions overlap for the whole measurement.
pub fn measure_sessions(
    runtime: &Runtime,
    request: &MeasureRequest,
    model: &LoadedModel,
    bound: &BoundInputs,
    count: usize,
) -> Result<ConcurrentSessions> {
    let mut plan = model.plan.clone();
    plan.profile_prefix = None;
    plan.optimized_model_path = None;
    let mut sessions = Vec::with_capacity(count);
    for i in 0..count {
        let opened = open(runtime, request.model_path, model.info.clone(), Duration::ZERO, plan.clone())
            .with_context(|| format!("--sessions: session {} of {count}", i + 1))?;
        sessions.push(opened.session);
    }
    let barrier = std::sync::Barrier::new(count);
    let (on_device, device_id) = (plan.io_on_device, plan.device_id().unwrap_or(0) as i32);
    let results: Vec<Result<(Vec<f64>, Instant, Instant)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = sessions
            .iter_mut()
            .map(|session| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let ready = (|| -> Result<(PreparedInputs, Option<ort::session::IoBinding>)> {
                        let prepared = PreparedInputs::new(&bound.tensors)?;
                        let binding = if on_device {
                            Some(bind_on_device(session, &prepared, &device_memory(device_id)?)?.0)
                        } else {
                            None
                        };
                        Ok((prepared, binding))
                    })();
                    let ready = ready.and_then(|(prepared, binding)| {
                        let feed = binding.as_ref().map_or(Feed::Host(&prepared), Feed::Device);
                        warm_up(session, &feed, request.warmup.max(1))?;
                        Ok((prepared, binding))
                    });
                    // Every thread reaches the barrier, failed or not, so none waits forever.
                    barrier.wait();
                    let (prepared, binding) = ready?;
                    let feed = binding.as_ref().map_or(Feed::Host(&prepared), Feed::Device);
                    let started = Instant::now();
                    let samples = timed_runs(session, &feed, request.budget, &indicatif::ProgressBar::hidden(), None)?;
                    Ok((samples, started, Instant::now()))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("a --sessions thread panicked"))))
            .collect()
    });
    let mut per_session = Vec::new();
    let (mut first_start, mut last_end, mut runs) = (None::<Instant>, None::<Instant>, 0u64);
    for (i, result) in results.into_iter().enumerate() {
        let (samples, start, end) = result.with_context(|| format!("--sessions: session {} of {count}", i + 1))?;
        runs += samples.len() as u64;
        per_session.push(crate::stats::summarize(&samples).context("--sessions: a session made no timed runs")?);
        first_start = Some(first_start.map_or(start, |f| f.min(start)));
        last_end = Some(last_end.map_or(end, |l| l.max(end)));
    }
    let wall_s = match (first_start, last_end) {
        (Some(s), Some(e)) => (e - s).as_secs_f64(),
        _ => 0.0,
    };
    Ok(ConcurrentSessions {
        sessions: count,
        wall_s,
        runs,
        throughput_per_s: if wall_s > 0.0 { runs as f64 / wall_s } else { 0.0 },
        per_session,
    })
}

fn device_memory(device_id: i32) -> Result<ort::memory::MemoryInfo<'static>> {
    memory_info(ort::memory::AllocationDevice::DIRECTML, device_id)
}

fn memory_info(device: ort::memory::AllocationDevice<'static>, id: i32) -> Result<ort::memory::MemoryInfo<'static>> {
    ort::memory::MemoryInfo::new(device, id, ort::memory::AllocatorType::Device, ort::memory::MemoryType::Default)
        .map_err(|e| anyhow::anyhow!("memory info: {e}"))
}

/// An IoBinding of `session` with `prepared` bound as inputs (which is when ONNX Runtime copies
/// them into the memory their first consumer needs: DirectML's) and every output bound to
/// `outputs_to`; with the time the input binds took.
fn bind_on_device(
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

/// A failed run on generated data says what dmlrun chose and how to change it: the model may
/// simply not take those sizes (a 1x1 image for a convolution).
fn generated_hint(error: anyhow::Error, bound: &BoundInputs) -> anyhow::Error {
    let generated: Vec<String> = bound
        .sources
        .iter()
        .filter(|s| s.kind == "generated")
        .map(|s| {
            let chosen = s.detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
            format!("'{}' {} {}{chosen}", s.name, s.dtype, crate::tensor::format_shape(&s.shape))
        })
        .collect();
    if generated.is_empty() {
        return error;
    }
    error.context(format!(
        "on generated input(s) {}: if the model takes other sizes or values, set them with --shape NAME=D0,D1,..., --dim NAME=N, --free-dim-size N or --generate-range NAME=LO,HI (a manifest's shapes, dims), or give the inputs with --input",
        generated.join("; ")
    ))
}

/// How many timed runs to make: up to `max`, or until `time_box` is spent once `min` are done.
#[derive(Debug, Clone, Copy)]
pub struct RunBudget {
    pub max: u64,
    pub time_box: Option<Duration>,
    pub min: u64,
}

/// Untimed runs; stops early on Ctrl-C.
pub fn warm_up(session: &mut Session, feed: &Feed, runs: u64) -> Result<()> {
    for _ in 0..runs {
        if crate::interrupt::interrupted() {
            break;
        }
        run_feed(session, feed)?;
    }
    Ok(())
}

/// One run, its outputs dropped. A bound run waits until the GPU has written the outputs
/// (IoBinding's SynchronizeBoundOutputs): without it a run would time only the submission.
pub fn run_feed(session: &mut Session, feed: &Feed) -> Result<()> {
    match feed {
        Feed::Host(inputs) => run(session, inputs).map(drop),
        Feed::Device(binding) => {
            session.run_binding(binding).map_err(|e| run_error(&e)).map(drop)?;
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
        run_feed(session, feed)?;
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
    session.run(feed).map_err(|e| run_error(&e))
}

/// DirectML reports a lost GPU as DXGI_ERROR_DEVICE_REMOVED (887A0005) and its reasons as
/// HRESULTs inside ONNX Runtime's message: name them. (ONNX Runtime owns the D3D12 device, so
/// GetDeviceRemovedReason cannot be asked; the device stays lost for this process, and
/// isolation runs the next item in a fresh one.)
fn run_error(e: &ort::Error) -> anyhow::Error {
    let message = e.to_string();
    let named = super::adapters::named_hresult_in(&message).map(|h| format!(" [{h}]")).unwrap_or_default();
    anyhow::anyhow!("ONNX Runtime Run failed: {}{named}", message.trim())
}

/// One `Run`, with every output (tensor or sequence) copied to the host.
pub fn run_to_host_values(session: &mut Session, inputs: &PreparedInputs) -> Result<Vec<(String, HostValue)>> {
    to_host_values(&run(session, inputs)?)
}

/// Every output of a run (tensor or sequence, in host memory) copied into host values.
fn to_host_values(outputs: &ort::session::SessionOutputs) -> Result<Vec<(String, HostValue)>> {
    outputs
        .iter()
        .map(|(name, value)| {
            let host = super::values::value_from_ort(&value).with_context(|| format!("output '{name}'"))?;
            Ok((name.to_string(), host))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dml_device(placement: &[(&str, usize)]) -> DeviceReport {
        DeviceReport {
            execution_provider: plan::DML_PROVIDER.into(),
            device_id: Some(0),
            adapter_name: None,
            placement: placement
                .iter()
                .map(|(ep, n)| EpNodes { execution_provider: ep.to_string(), nodes: *n, op_types: Vec::new() })
                .collect(),
            chosen_by: None,
        }
    }

    #[test]
    fn directml_run_with_every_node_on_the_cpu_is_warned_about() {
        let warning = dml_device(&[(plan::CPU_PROVIDER, 1)]).placement_warning().unwrap();
        assert_eq!(
            warning,
            "DirectML was asked for, but ONNX Runtime placed all 1 nodes on CPUExecutionProvider: DirectML takes none \
             of this model's operators at these types, so these results and timings are the CPU's"
        );
        // Some or all nodes on DirectML: the placement line says it; no warning.
        assert_eq!(dml_device(&[(plan::DML_PROVIDER, 40), (plan::CPU_PROVIDER, 4)]).placement_warning(), None);
        assert_eq!(dml_device(&[(plan::DML_PROVIDER, 44)]).placement_warning(), None);
        // No placement known (the session log said nothing): nothing to claim.
        assert_eq!(dml_device(&[]).placement_warning(), None);
        // A CPU run is where it was asked to be.
        let cpu =
            DeviceReport { execution_provider: plan::CPU_PROVIDER.into(), ..dml_device(&[(plan::CPU_PROVIDER, 3)]) };
        assert_eq!(cpu.placement_warning(), None);
    }
    use crate::runtime::plan::{EpRequest, CPU_PROVIDER, DML_PROVIDER};

    fn plan(ep: EpRequest) -> SessionPlan {
        let request = PlanRequest { device: (ep == EpRequest::Dml).then_some(0), ep, ..PlanRequest::default() };
        plan::resolve(
            &request,
            &plan::Offered::providers(&[DML_PROVIDER.into(), CPU_PROVIDER.into()]),
            &ModelInfo::default(),
        )
        .unwrap()
    }

    fn message(plan: &SessionPlan, step: BuildStep, ort_message: &str) -> String {
        session_error(plan, Path::new("m.onnx"), step, ort_message).to_string()
    }

    // The messages ONNX Runtime 1.24.4 gave under Wine (scripts/wine-check, docs/wine.md).
    const NO_DEVICE: &str = r"E:\_work\1\s\onnxruntime\core\providers\dml\dml_provider_factory.cc(524)\onnxruntime.dll!00000001800F2B25: (caller: 00000001800F0804) Exception(1) tid(24) 80004005 Call failed.";
    const FUSION: &str = r"Exception during initialization: E:\_work\1\s\onnxruntime\core\providers\dml\DmlExecutionProvider\src\DmlGraphFusionHelper.cpp(588)\onnxruntime.dll!000000018011FA2F: (caller: 00000001800F7C07) Exception(1) tid(110) 80070057 Invalid parameter.";

    #[test]
    fn directml_failing_while_appended_could_not_start() {
        let err = message(&plan(EpRequest::Dml), BuildStep::Configure, NO_DEVICE);
        assert!(err.starts_with("DirectML could not start on adapter 0: "), "{err}");
        assert!(err.contains("[HRESULT 0x80004005 (E_FAIL)]") && err.contains("dmlrun devices"), "{err}");
    }

    #[test]
    fn directml_failing_while_loading_the_model_names_the_model_not_the_device() {
        let err = message(&plan(EpRequest::Dml), BuildStep::Load, FUSION);
        assert!(
            err.starts_with("model m.onnx: DirectML started on adapter 0 but could not compile this model"),
            "{err}"
        );
        assert!(err.contains("E_INVALIDARG") && err.ends_with("Run it with --ep cpu"), "{err}");
        assert!(!err.contains("could not start"), "{err}");
    }

    #[test]
    fn other_load_failures_are_the_models() {
        let err = message(&plan(EpRequest::Cpu), BuildStep::Load, "Protobuf parsing failed.");
        assert_eq!(err, "model m.onnx: ONNX Runtime could not create a session: Protobuf parsing failed.");
        let err =
            message(&plan(EpRequest::Dml), BuildStep::Load, "Load model from m.onnx failed: Protobuf parsing failed.");
        assert!(err.contains("ONNX Runtime could not create a session"), "{err}");
    }
}
