//! Opening a session from a plan, and naming what went wrong when ONNX Runtime refuses: the
//! one line a user sees, and the report of where the model runs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use ort::session::Session;
use serde::{Deserialize, Serialize};

use super::gpu_memory::GpuMemoryTracker;
use super::preflight::input_signatures;
use crate::formats::model::ModelInfo;
use crate::inputs::InputSignature;
use crate::runtime::placement::{self, EpNodes};
use crate::runtime::plan::{self, PlanRequest, ProviderPlan, SessionPlan};
use crate::runtime::session::{self, BuildStep};
use crate::runtime::Runtime;

/// A model ready to run, with what it took to get there.
pub struct LoadedModel {
    pub model_path: PathBuf,
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
    /// Where DirectML was asked for: every node that ran elsewhere, by name, with why where it
    /// can be known ([`placement::nodes_off_directml`]).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub off_directml: Vec<placement::OffNode>,
    /// The EP selection policy that chose the execution provider (`--ep policy:...`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub chosen_by: Option<String>,
    /// What dmlrun changed in the Direct3D 12 under DirectML (only under Wine; see
    /// `runtime::wine`), so a report never hides it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub direct3d12: Option<String>,
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
    /// What a DirectML run whose work ONNX Runtime placed (wholly or in part) on the CPU must say
    /// ([`placement::directml_warning`]).
    pub fn placement_warning(&self) -> Option<String> {
        placement::directml_warning(&self.execution_provider, &self.placement, &self.off_directml)
    }

    /// `MatMulNBits 'mm' (its K, 48, ...); and 4 shape computations ...`: what every report says
    /// of the nodes a DirectML run did not get ([`placement::describe_off_directml`]).
    pub fn off_directml_line(&self) -> Option<String> {
        placement::describe_off_directml(&self.off_directml)
    }
}

/// Creates the session `plan` describes.
pub fn open(
    runtime: &Runtime,
    model_path: &Path,
    info: ModelInfo,
    load_time: Duration,
    plan: SessionPlan,
) -> Result<LoadedModel> {
    let mut memory = GpuMemoryTracker::start(&plan);
    let adapter_name = match plan.device_id() {
        Some(id) => crate::runtime::adapters::check_device_index(id)?,
        None => None,
    };
    let direct3d12 = plan.uses_directml().then(crate::runtime::wine::prepare_direct3d12).flatten();
    let started = Instant::now();
    let (session, placement) = session::build(runtime, &plan, model_path).map_err(|(step, e)| {
        let ort_message = e.to_string();
        let line = session_error(&plan, model_path, step.clone(), &ort_message).to_string();
        anyhow::Error::new(SessionFailure { step, ort_message, line })
    })?;
    let session_time = started.elapsed();
    let off_directml = placement::nodes_off_directml(&placement, &info.nodes, plan.uses_directml());
    let device = DeviceReport { direct3d12, off_directml, ..device_report(runtime, &plan, placement, adapter_name) };
    if let Some(tracker) = &mut memory {
        tracker.session_created();
    }
    let inputs = input_signatures(&info, &plan);
    let output_names = session.outputs().iter().map(|o| o.name().to_string()).collect();
    Ok(LoadedModel {
        model_path: model_path.to_path_buf(),
        info,
        plan,
        session,
        inputs,
        output_names,
        load_time,
        session_time,
        device,
        memory,
    })
}

/// Opens a session for another `request` on a model already read (a reference EP's), as the
/// request stands: no automatic dimension overrides, since no inputs are bound first.
pub fn load(runtime: &Runtime, model_path: &Path, info: &ModelInfo, request: &PlanRequest) -> Result<LoadedModel> {
    let mut plan = plan::resolve(request, &runtime.offered(), info)?;
    plan::check_available(&plan, request, &runtime.offered())?;
    plan.auto_dims = false;
    open(runtime, model_path, info.clone(), Duration::ZERO, plan)
}

/// A session ONNX Runtime could not create: the line to say, and the step and ONNX Runtime's own
/// message, so the diagnosis tells a model the EP rejects while loading it from an EP that could
/// not start at all.
#[derive(Debug)]
pub struct SessionFailure {
    pub step: BuildStep,
    pub ort_message: String,
    line: String,
}

impl std::fmt::Display for SessionFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line)
    }
}

impl std::error::Error for SessionFailure {}

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
        (Some(ProviderPlan::EpDevice { ep, .. }), BuildStep::Load) if plan.plugin_options_read_at_load() => {
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

/// Where the session runs; `adapter_name` is DXGI's name for the plan's adapter, where it was
/// listed.
fn device_report(
    runtime: &Runtime,
    plan: &SessionPlan,
    placement: Vec<EpNodes>,
    adapter_name: Option<String>,
) -> DeviceReport {
    let report = |execution_provider: &str, device_id: Option<u32>, adapter_name: Option<String>| DeviceReport {
        execution_provider: execution_provider.to_string(),
        device_id,
        adapter_name,
        placement: Vec::new(),
        off_directml: Vec::new(),
        chosen_by: None,
        direct3d12: None,
    };
    let report = match plan.execution_providers.first() {
        Some(ProviderPlan::DirectML { .. }) => report(plan::DML_PROVIDER, plan.device_id(), adapter_name),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::plan::PlanRequest;

    fn dml_device(placement: &[(&str, usize)]) -> DeviceReport {
        DeviceReport {
            execution_provider: plan::DML_PROVIDER.into(),
            device_id: Some(0),
            adapter_name: None,
            placement: placement
                .iter()
                .map(|(ep, n)| EpNodes {
                    execution_provider: ep.to_string(),
                    nodes: *n,
                    op_types: Vec::new(),
                    names: Vec::new(),
                })
                .collect(),
            off_directml: Vec::new(),
            chosen_by: None,
            direct3d12: None,
        }
    }

    /// `device` with its off-DirectML nodes read against `model`, as `load` reads them.
    fn read_against(device: DeviceReport, model: &[crate::formats::outline::NodeOutline]) -> DeviceReport {
        let off_directml = placement::nodes_off_directml(&device.placement, model, true);
        DeviceReport { off_directml, ..device }
    }

    #[test]
    fn directml_run_with_every_node_on_the_cpu_is_warned_about() {
        let warning = dml_device(&[(plan::CPU_PROVIDER, 1)]).placement_warning().unwrap();
        assert_eq!(
            warning,
            "DirectML was asked for, but ONNX Runtime placed all 1 nodes on CPUExecutionProvider, so these results \
             and timings are the CPU's"
        );
        // ONNX Runtime lists no node when it places them all on one provider: the model's own
        // nodes are named, with dmlrun's reading of why.
        let mut partial = crate::formats::outline::NodeOutline::made(
            "MatMulNBits",
            &["a", "b", "s"],
            &[("K", 48), ("N", 8), ("bits", 4), ("block_size", 32)],
        );
        partial.name = "mm".into();
        let warning = read_against(dml_device(&[(plan::CPU_PROVIDER, 1)]), &[partial]).placement_warning().unwrap();
        assert!(
            warning.ends_with(
                "so these results and timings are the CPU's: MatMulNBits 'mm' (its K, 48, is not a whole number of \
                 32-blocks: DirectML's MatMulNBits takes whole blocks only, so the last block is partial \
                 (--dequantize-matmulnbits writes it as a MatMul DirectML runs))"
            ),
            "{warning}"
        );
        // Some or all nodes on DirectML, those off it shape computations: the placement line says
        // it; no warning.
        assert_eq!(dml_device(&[(plan::DML_PROVIDER, 40), (plan::CPU_PROVIDER, 4)]).placement_warning(), None);
        // A node doing the model's work off DirectML is named, with the reason.
        let mut split = dml_device(&[(plan::DML_PROVIDER, 40), (plan::CPU_PROVIDER, 2)]);
        split.placement[1].names = vec!["Shape 'shape'".into(), "GatherBlockQuantized 'embed'".into()];
        let warning = read_against(split, &[]).placement_warning().unwrap();
        assert!(
            warning.starts_with(
                "DirectML was asked for, but ONNX Runtime left 1 node(s) that do the model's work on the CPU, and their \
                 time is the CPU's: GatherBlockQuantized 'embed' (DirectML has no kernel for it"
            ),
            "{warning}"
        );
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
