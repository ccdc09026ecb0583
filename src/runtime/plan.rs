//! The session plan: every decision about how ONNX Runtime is configured, made by a pure function
//! from the user's request and the facts of the loaded runtime and model.
//!
//! Keeping this separate from the code that calls `ort` means the DirectML rules (sequential
//! execution, no memory pattern, fixed free dimensions) are a property of a value that tests can
//! check on any platform, and that `--print-plan` shows exactly as it will be applied.

use std::collections::BTreeMap;
use std::fmt;

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

use crate::formats::model::ModelInfo;
use crate::runtime::ep_devices::{EpDevice, EpLibrary};

/// ONNX Runtime's name for the DirectML execution provider.
pub const DML_PROVIDER: &str = "DmlExecutionProvider";
/// ONNX Runtime's name for the CPU execution provider.
pub const CPU_PROVIDER: &str = "CPUExecutionProvider";

/// What the user asked for with `--ep` (and `--compare-ep`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EpRequest {
    /// DirectML when the loaded ONNX Runtime offers it, otherwise the CPU.
    Auto,
    /// DirectML; an error where it is not available.
    Dml,
    /// The CPU execution provider only, whatever plugin libraries are registered.
    Cpu,
    /// An execution provider reached through its EP device (a plugin library's, or one built
    /// in), named by its EP name (`WebGpuExecutionProvider`), that name without
    /// `ExecutionProvider` (`webgpu`), or the name its `--ep-library` was registered under.
    Device(String),
    /// No execution provider named: ONNX Runtime chooses among its EP devices by this policy.
    Policy(DevicePolicy),
}

impl EpRequest {
    /// `auto`, `dml`, `cpu`, `policy:POLICY`, or an EP name. ONNX Runtime's own names for
    /// DirectML and the CPU mean `dml` and `cpu`, which carry DirectML's rules.
    pub fn parse(text: &str) -> Result<EpRequest, String> {
        let text = text.trim();
        if let Some(policy) = text.strip_prefix("policy:") {
            return DevicePolicy::parse(policy).map(EpRequest::Policy);
        }
        if text.is_empty() {
            return Err("an execution provider is required: auto, dml, cpu, policy:POLICY or an EP name".into());
        }
        Ok(match ep_key(text).as_str() {
            "auto" => EpRequest::Auto,
            "dml" | "directml" => EpRequest::Dml,
            "cpu" => EpRequest::Cpu,
            _ => EpRequest::Device(text.to_string()),
        })
    }
}

/// An EP name as `--ep` matches it: lower case, without `ExecutionProvider`
/// (`OpenVINOExecutionProvider.AUTO` is `openvino.auto`).
fn ep_key(name: &str) -> String {
    name.to_ascii_lowercase().replace("executionprovider", "")
}

impl fmt::Display for EpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EpRequest::Auto => f.write_str("auto"),
            EpRequest::Dml => f.write_str("dml"),
            EpRequest::Cpu => f.write_str("cpu"),
            EpRequest::Device(name) => f.write_str(name),
            EpRequest::Policy(policy) => write!(f, "policy:{policy}"),
        }
    }
}

impl Serialize for EpRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// ONNX Runtime's EP selection policies (`SessionOptionsSetEpSelectionPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DevicePolicy {
    PreferCpu,
    PreferGpu,
    PreferNpu,
    /// ONNX Runtime 1.22 to 1.31 treat it as prefer-gpu.
    MaxPerformance,
    /// ONNX Runtime 1.22 to 1.31 treat it as prefer-npu.
    MaxEfficiency,
    /// ONNX Runtime 1.22 to 1.31 treat it as prefer-npu.
    MinPower,
}

impl DevicePolicy {
    pub const ALL: [DevicePolicy; 6] = [
        DevicePolicy::PreferCpu,
        DevicePolicy::PreferGpu,
        DevicePolicy::PreferNpu,
        DevicePolicy::MaxPerformance,
        DevicePolicy::MaxEfficiency,
        DevicePolicy::MinPower,
    ];

    pub fn parse(text: &str) -> Result<DevicePolicy, String> {
        DevicePolicy::ALL.into_iter().find(|p| p.to_string() == text.to_ascii_lowercase()).ok_or_else(|| {
            let names: Vec<String> = DevicePolicy::ALL.iter().map(|p| format!("policy:{p}")).collect();
            format!("'policy:{text}' is not a policy; ONNX Runtime's are {}", names.join(", "))
        })
    }
}

impl fmt::Display for DevicePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DevicePolicy::PreferCpu => "prefer-cpu",
            DevicePolicy::PreferGpu => "prefer-gpu",
            DevicePolicy::PreferNpu => "prefer-npu",
            DevicePolicy::MaxPerformance => "max-performance",
            DevicePolicy::MaxEfficiency => "max-efficiency",
            DevicePolicy::MinPower => "min-power",
        })
    }
}

/// What the loaded ONNX Runtime offers the plan: the execution providers compiled in, and the
/// EP devices, plugin libraries' included.
#[derive(Debug, Clone, Copy)]
pub struct Offered<'a> {
    pub providers: &'a [String],
    pub ep_devices: &'a [EpDevice],
    pub ep_libraries: &'a [EpLibrary],
}

impl<'a> Offered<'a> {
    /// Only compiled-in providers, no EP devices.
    #[cfg(test)]
    pub fn providers(providers: &'a [String]) -> Offered<'a> {
        Offered { providers, ep_devices: &[], ep_libraries: &[] }
    }

    fn has(&self, provider: &str) -> bool {
        self.providers.iter().any(|p| p == provider)
    }
}

/// DirectML's `performance_preference` (DXGI GPU preference when no `device_id` is given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PerformancePreference {
    Default,
    HighPerformance,
    MinimumPower,
}

/// DirectML's `device_filter`: which kinds of adapter it may pick when no `device_id` is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceFilter {
    Gpu,
    Npu,
    Any,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutionMode {
    Sequential,
    Parallel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizationLevel {
    Disable,
    Basic,
    Extended,
    All,
}

/// How ONNX Runtime's logging is filtered (`--ort-log-level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OrtLogLevel {
    Verbose,
    Info,
    Warning,
    Error,
    Fatal,
}

/// How the DirectML adapter is chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum AdapterSelection {
    /// A DXGI adapter index (`device_id`), as `dmlrun devices` lists them.
    Index { device_id: u32 },
    /// Let DirectML pick by preference and filter (ONNX Runtime's `OrtDmlDeviceOptions`).
    Preference { performance_preference: PerformancePreference, device_filter: DeviceFilter },
}

/// One execution provider, in registration order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "name")]
pub enum ProviderPlan {
    #[serde(rename = "DmlExecutionProvider")]
    DirectML { adapter: AdapterSelection },
    #[serde(rename = "CPUExecutionProvider")]
    Cpu,
    /// An execution provider appended through one of its EP devices
    /// (`SessionOptionsAppendExecutionProvider_V2`), `device` being its index in ONNX Runtime's
    /// list.
    #[serde(rename = "EpDevice")]
    EpDevice { ep: String, device: usize, hardware: String },
    /// Nothing appended: ONNX Runtime picks the execution providers by `policy` when it creates
    /// the session.
    #[serde(rename = "EpSelectionPolicy")]
    Policy { policy: DevicePolicy },
}

/// A free-dimension override, applied at session creation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DimOverride {
    /// `name` (AddFreeDimensionOverrideByName) or `denotation` (AddFreeDimensionOverride).
    pub by: DimKey,
    pub key: String,
    pub value: i64,
    /// Who chose the size: the user (`--dim`, `--dim-denotation`, a manifest's `dims`) or dmlrun,
    /// from the inputs it was about to bind.
    pub source: DimSource,
}

/// Where a dimension override came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DimSource {
    /// `--dim`, `--dim-denotation` or a bench manifest's `dims`.
    Requested,
    /// `--shape` (or a manifest's `shapes`) of `input`, at `axis`.
    Shape { input: String, axis: usize },
    /// Fixed by dmlrun because DirectML runs the model: the size of `axis` of the tensor bound
    /// to `input`, which came `from` images, a file or generated data.
    Automatic { input: String, axis: usize, from: String },
}

impl DimSource {
    /// Where a size for the dimension `name` came from, as a note says it: `by --dim N`,
    /// `by --shape x (axis 0)`, `in input 'x' (axis 0)`.
    fn phrase(&self, name: &str) -> String {
        match self {
            DimSource::Requested => format!("by --dim {name}"),
            DimSource::Shape { input, axis } => format!("by --shape {input} (axis {axis})"),
            DimSource::Automatic { input, axis, .. } => format!("in input '{input}' (axis {axis})"),
        }
    }
}

/// The shape of one input as it is about to be bound, and what it came from (`2 images`,
/// `a.npy`, `generated`), for the plan's account of automatic overrides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundShape {
    pub input: String,
    pub shape: Vec<usize>,
    pub from: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DimKey {
    Name,
    Denotation,
}

/// What the user asked for, after flag parsing and before any decision.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRequest {
    pub ep: EpRequest,
    pub device: Option<u32>,
    pub performance_preference: Option<PerformancePreference>,
    pub device_filter: Option<DeviceFilter>,
    pub execution_mode: Option<ExecutionMode>,
    pub memory_pattern: Option<bool>,
    pub optimization_level: OptimizationLevel,
    pub intra_op_threads: Option<usize>,
    pub inter_op_threads: Option<usize>,
    pub dims: Vec<(String, i64)>,
    pub dim_denotations: Vec<(String, i64)>,
    /// `--shape NAME=D0,D1,...`: one input's whole shape, which also fixes its named free
    /// dimensions and sizes its unnamed ones.
    pub shapes: Vec<(String, Vec<usize>)>,
    pub log_level: OrtLogLevel,
    /// Write ONNX Runtime's per-operator profile with this file prefix.
    pub profile_prefix: Option<std::path::PathBuf>,
    /// Save the optimised model ONNX Runtime produces to this file.
    pub optimized_model_path: Option<std::path::PathBuf>,
    /// With DirectML, fix the free dimensions no override fixes from the inputs about to be
    /// bound (`--no-auto-dims` turns this off).
    pub auto_dims: bool,
    /// `--dml-disable-metacommands`: DirectML's `disable_metacommands` provider option.
    pub dml_disable_metacommands: bool,
    /// `--dml-graph-capture`: the session config entry `ep.dml.enable_graph_capture`.
    pub dml_graph_capture: bool,
    /// `--ep-option KEY=VALUE`: DirectML provider options passed through as given.
    pub ep_options: Vec<(String, String)>,
    /// `--session-config KEY=VALUE`: session config entries passed through as given.
    pub session_config: Vec<(String, String)>,
    /// `--io-on-device`: inputs uploaded once to DirectML's memory and outputs left there.
    pub io_on_device: bool,
}

impl PlanRequest {
    /// The request for a `--compare-ep` reference run: the same model settings on `ep`, with
    /// the device choice, profiling and cache writing left to the main run.
    pub fn reference(&self, ep: EpRequest, optimization_level: Option<OptimizationLevel>) -> PlanRequest {
        PlanRequest {
            ep,
            device: None,
            performance_preference: None,
            device_filter: None,
            optimization_level: optimization_level.unwrap_or(self.optimization_level),
            profile_prefix: None,
            optimized_model_path: None,
            dml_disable_metacommands: false,
            dml_graph_capture: false,
            ep_options: Vec::new(),
            // DirectML's own entries do not apply to the reference; ONNX Runtime's do.
            session_config: self
                .session_config
                .iter()
                .filter(|(k, _)| !k.starts_with(DML_CONFIG_PREFIX))
                .cloned()
                .collect(),
            io_on_device: false,
            ..self.clone()
        }
    }
}

impl Default for PlanRequest {
    fn default() -> Self {
        PlanRequest {
            ep: EpRequest::Auto,
            device: None,
            performance_preference: None,
            device_filter: None,
            execution_mode: None,
            memory_pattern: None,
            optimization_level: OptimizationLevel::All,
            intra_op_threads: None,
            inter_op_threads: None,
            dims: Vec::new(),
            dim_denotations: Vec::new(),
            shapes: Vec::new(),
            log_level: OrtLogLevel::Warning,
            profile_prefix: None,
            optimized_model_path: None,
            auto_dims: true,
            dml_disable_metacommands: false,
            dml_graph_capture: false,
            ep_options: Vec::new(),
            session_config: Vec::new(),
            io_on_device: false,
        }
    }
}

/// Every setting dmlrun applies to an ONNX Runtime session, in one printable value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionPlan {
    pub execution_providers: Vec<ProviderPlan>,
    pub execution_mode: ExecutionMode,
    pub memory_pattern: bool,
    pub optimization_level: OptimizationLevel,
    pub intra_op_threads: Option<usize>,
    pub inter_op_threads: Option<usize>,
    pub dimension_overrides: Vec<DimOverride>,
    /// Whether free dimensions left free are fixed from the bound inputs (DirectML only).
    pub auto_dims: bool,
    pub log_level: OrtLogLevel,
    /// Symbolic input dimensions no override fixes (DirectML compiles them dynamically: slow).
    pub unfixed_dims: Vec<String>,
    /// Free input dimensions without a name (`input 'x' axis 2`): ONNX Runtime can fix only
    /// named ones, so DirectML compiles these dynamically whatever dmlrun is told.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub unnamed_dims: Vec<String>,
    /// `--shape`: whole input shapes, by input.
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub input_shapes: BTreeMap<String, Vec<usize>>,
    /// What the plan could not do as asked and did differently (a dimension name given two
    /// sizes is left free); said as warnings.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub notes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub profile_prefix: Option<std::path::PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub optimized_model_path: Option<std::path::PathBuf>,
    /// DirectML provider options beyond the adapter choice (`disable_metacommands`, `--ep-option`),
    /// passed to ONNX Runtime's generic `SessionOptionsAppendExecutionProvider("DML", ...)`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub provider_options: BTreeMap<String, String>,
    /// Session config entries (`AddSessionConfigEntry`): `--session-config`, graph capture, and the
    /// unfused profile's `ep.dml.disable_graph_fusion`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub session_config: BTreeMap<String, String>,
    /// Inputs bound once in DirectML's memory and outputs left there (IoBinding): the timed runs
    /// exclude the host<->GPU copies.
    #[serde(default)]
    pub io_on_device: bool,
}

/// The prefix of DirectML's session config entries.
pub const DML_CONFIG_PREFIX: &str = "ep.dml.";
/// The session config entry that turns on DirectML's graph capture.
pub const DML_GRAPH_CAPTURE: &str = "ep.dml.enable_graph_capture";
/// The session config entry that turns off DirectML's graph fusion (per-operator profiles).
pub const DML_DISABLE_FUSION: &str = "ep.dml.disable_graph_fusion";
/// The DirectML provider options ONNX Runtime 1.24's factory reads; the adapter keys among them
/// have flags of their own.
const DML_PROVIDER_OPTIONS: [&str; 4] =
    ["disable_metacommands", "device_id", "performance_preference", "device_filter"];
/// The `ep.dml.*` session config entries ONNX Runtime 1.24's DirectML build contains.
const DML_CONFIG_ENTRIES: [&str; 5] = [
    "ep.dml.enable_graph_capture",
    "ep.dml.enable_cpu_sync_spinning",
    "ep.dml.disable_graph_fusion",
    "ep.dml.disable_memory_arena",
    "ep.dml.enable_graph_serialization",
];

impl DimSource {
    /// `automatic, from input 'data' axis 0 (2 images)`.
    pub fn describe(&self) -> String {
        match self {
            DimSource::Requested => "requested".to_string(),
            DimSource::Shape { input, axis } => format!("from --shape {input} axis {axis}"),
            DimSource::Automatic { input, axis, from } => {
                format!("automatic, from input '{input}' axis {axis} ({from})")
            }
        }
    }
}

impl SessionPlan {
    pub fn uses_directml(&self) -> bool {
        self.execution_providers.iter().any(|p| matches!(p, ProviderPlan::DirectML { .. }))
    }

    /// The warning DirectML users need when a free dimension stays free.
    pub fn dynamic_shape_warning(&self) -> Option<String> {
        if !self.uses_directml() || (self.unfixed_dims.is_empty() && self.unnamed_dims.is_empty()) {
            return None;
        }
        let mut parts = Vec::new();
        if !self.unfixed_dims.is_empty() {
            parts.push(self.unfixed_dims_advice("; "));
        }
        if !self.unnamed_dims.is_empty() {
            parts.push(format!(
                "{} unnamed, and ONNX Runtime can fix only named dimensions (export the model with names or static sizes)",
                self.unnamed_dims.join(", ")
            ));
        }
        Some(format!("DirectML is slow with dynamic shapes: {}", parts.join("; ")))
    }

    /// `free dimension(s) N are not fixed (--no-auto-dims){sep}add --dim N=<size>`: what is left
    /// free, and the flags that fix it.
    fn unfixed_dims_advice(&self, sep: &str) -> String {
        let flags: Vec<String> = self.unfixed_dims.iter().map(|d| format!("--dim {d}=<size>")).collect();
        format!(
            "free dimension(s) {} are not fixed{}{sep}add {}",
            self.unfixed_dims.join(", "),
            if self.auto_dims { "" } else { " (--no-auto-dims)" },
            flags.join(" ")
        )
    }

    /// The adapter index DirectML runs on, when one was chosen by index.
    pub fn device_id(&self) -> Option<u32> {
        self.execution_providers.iter().find_map(|p| match p {
            ProviderPlan::DirectML { adapter: AdapterSelection::Index { device_id } } => Some(*device_id),
            _ => None,
        })
    }
}

/// Resolves a request into a plan against what the loaded ONNX Runtime offers.
pub fn resolve(request: &PlanRequest, offered: &Offered, model: &ModelInfo) -> Result<SessionPlan> {
    let dml_available = offered.has(DML_PROVIDER);
    let explicit_dml = request.ep == EpRequest::Dml
        || request.device.is_some()
        || request.performance_preference.is_some()
        || request.device_filter.is_some()
        || !dml_only_flags(request, true).is_empty();

    let refuse_dml_flags = |ep: &str| -> Result<()> {
        if request.device.is_some() {
            bail!("--device selects a DirectML adapter and cannot be combined with --ep {ep}");
        }
        if request.performance_preference.is_some() || request.device_filter.is_some() {
            bail!("--dml-performance-preference and --dml-device-filter apply to DirectML and cannot be combined with --ep {ep}");
        }
        // `--ep-option` goes to an EP device's provider too; the other flags only to DirectML.
        if let Some(flag) = dml_only_flags(request, !ep_options_allowed(&request.ep)).first() {
            bail!("{flag} applies to DirectML and cannot be combined with --ep {ep}");
        }
        Ok(())
    };

    let mut execution_providers = Vec::new();
    let use_dml = match &request.ep {
        EpRequest::Cpu => {
            refuse_dml_flags("cpu")?;
            false
        }
        EpRequest::Dml => true,
        // Auto falls back to the CPU only when nothing DirectML-specific was asked for.
        EpRequest::Auto => dml_available || explicit_dml,
        EpRequest::Device(name) => {
            refuse_dml_flags(name)?;
            let device = find_ep_device(name, offered)?;
            execution_providers.push(ProviderPlan::EpDevice {
                ep: device.ep_name.clone(),
                device: device.index,
                hardware: device.hardware(),
            });
            false
        }
        EpRequest::Policy(policy) => {
            refuse_dml_flags(&request.ep.to_string())?;
            execution_providers.push(ProviderPlan::Policy { policy: *policy });
            false
        }
    };

    if use_dml {
        let adapter = match (request.device, request.performance_preference, request.device_filter) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => bail!(
                "--device picks one adapter by index; it cannot be combined with --dml-performance-preference or --dml-device-filter, which let DirectML choose"
            ),
            (Some(device_id), None, None) => AdapterSelection::Index { device_id },
            (None, None, None) => AdapterSelection::Index { device_id: 0 },
            (None, pref, filter) => AdapterSelection::Preference {
                performance_preference: pref.unwrap_or(PerformancePreference::Default),
                device_filter: filter.unwrap_or(DeviceFilter::Gpu),
            },
        };
        execution_providers.push(ProviderPlan::DirectML { adapter });
    }
    // A policy chooses only when no provider is appended: ONNX Runtime adds the CPU itself.
    if !matches!(request.ep, EpRequest::Policy(_)) {
        execution_providers.push(ProviderPlan::Cpu);
    }

    // DirectML's documented requirements: it does not support ONNX Runtime's memory pattern
    // optimisation nor parallel execution, and a session must not run concurrently. A policy
    // may pick DirectML where it is offered, so it gets the same rules there.
    let dml_rules = use_dml || (matches!(request.ep, EpRequest::Policy(_)) && dml_available);
    let (execution_mode, memory_pattern) = if dml_rules {
        let who = if use_dml { "DirectML" } else { "an EP selection policy that may pick DirectML" };
        if request.execution_mode == Some(ExecutionMode::Parallel) {
            bail!("--execution-mode parallel is not allowed with {who}, which requires sequential execution");
        }
        if request.memory_pattern == Some(true) {
            bail!("--memory-pattern on is not allowed with {who}, which requires the memory pattern to be disabled");
        }
        (ExecutionMode::Sequential, false)
    } else {
        (request.execution_mode.unwrap_or(ExecutionMode::Sequential), request.memory_pattern.unwrap_or(true))
    };

    let mut dimension_overrides = resolve_dims(request, model)?;
    let mut notes = Vec::new();
    let input_shapes = resolve_shapes(request, model, &mut dimension_overrides, &mut notes)?;
    let unfixed_dims = unfixed_dims(model, &dimension_overrides);
    let unnamed_dims = model
        .inputs
        .iter()
        .flat_map(|input| {
            input
                .dims
                .iter()
                .enumerate()
                .filter(|(_, d)| d.is_unnamed_free())
                .map(|(axis, _)| format!("input '{}' axis {axis}", input.name))
        })
        .collect();
    let (provider_options, session_config) = resolve_options(request, use_dml)?;
    let graph_capture = session_config.get(DML_GRAPH_CAPTURE).is_some_and(|v| is_true(v));
    if graph_capture && !request.io_on_device && !request.dml_graph_capture {
        bail!(
            "--session-config {DML_GRAPH_CAPTURE}: graph capture replays the first run's GPU work on the same device buffers, so every run must be bound on the device: use --dml-graph-capture (run and bench)"
        );
    }

    Ok(SessionPlan {
        execution_providers,
        execution_mode,
        memory_pattern,
        optimization_level: request.optimization_level,
        intra_op_threads: request.intra_op_threads,
        inter_op_threads: request.inter_op_threads,
        dimension_overrides,
        log_level: request.log_level,
        unfixed_dims,
        unnamed_dims,
        input_shapes,
        notes,
        profile_prefix: request.profile_prefix.clone(),
        optimized_model_path: request.optimized_model_path.clone(),
        auto_dims: use_dml && request.auto_dims,
        provider_options,
        session_config,
        // Graph capture replays on the buffers of the captured run: it needs bound device IO.
        io_on_device: use_dml && (request.io_on_device || graph_capture),
    })
}

/// The DirectML-only flags in `request`, as the user typed them; `--ep-option`s among them when
/// `with_ep_options`.
fn dml_only_flags(request: &PlanRequest, with_ep_options: bool) -> Vec<String> {
    let mut flags = Vec::new();
    if request.dml_disable_metacommands {
        flags.push("--dml-disable-metacommands".to_string());
    }
    if request.dml_graph_capture {
        flags.push("--dml-graph-capture".to_string());
    }
    if request.io_on_device {
        flags.push("--io-on-device".to_string());
    }
    if with_ep_options {
        flags.extend(request.ep_options.iter().map(|(k, v)| format!("--ep-option {k}={v}")));
    }
    flags.extend(
        request
            .session_config
            .iter()
            .filter(|(k, _)| k.starts_with(DML_CONFIG_PREFIX))
            .map(|(k, v)| format!("--session-config {k}={v}")),
    );
    flags
}

/// Whether `--ep-option` goes to the execution provider `ep` asks for (DirectML's, or an EP
/// device's) rather than being refused.
fn ep_options_allowed(ep: &EpRequest) -> bool {
    matches!(ep, EpRequest::Auto | EpRequest::Dml | EpRequest::Device(_))
}

/// The EP device `--ep NAME` means: the first device of the execution provider of that name
/// (ONNX Runtime's order), or of the first execution provider of the `--ep-library` registered
/// under that name.
fn find_ep_device<'a>(name: &str, offered: &Offered<'a>) -> Result<&'a EpDevice> {
    let key = ep_key(name);
    let by_ep = |ep: &str| offered.ep_devices.iter().find(|d| d.ep_name == ep);
    if let Some(device) = offered.ep_devices.iter().find(|d| ep_key(&d.ep_name) == key) {
        return Ok(device);
    }
    let here = || {
        let mut names: Vec<String> =
            offered.ep_devices.iter().map(|d| format!("{} on {}", d.ep_name, d.hardware())).collect();
        names.dedup();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    if let Some(library) = offered.ep_libraries.iter().find(|l| ep_key(&l.name) == key) {
        return match library.execution_providers.first().and_then(|ep| by_ep(ep)) {
            Some(device) => Ok(device),
            None => bail!(
                "--ep {name}: the plugin library '{}' ({}) is registered, but it offers no device on this machine (ONNX Runtime's EP devices here: {}); `dmlrun devices --ep-library {}` lists them",
                library.name,
                library.path.display(),
                here(),
                library.path.display()
            ),
        };
    }
    let libraries: Vec<&str> = offered.ep_libraries.iter().map(|l| l.name.as_str()).collect();
    bail!(
        "--ep {name}: no execution provider of that name among ONNX Runtime's EP devices here ({}){}; --ep takes auto, dml, cpu, policy:POLICY or an EP name, and --ep-library [NAME=]PATH registers a plugin EP",
        here(),
        if libraries.is_empty() { String::new() } else { format!(" nor among the registered libraries ({})", libraries.join(", ")) }
    )
}

fn is_true(value: &str) -> bool {
    matches!(value.to_ascii_lowercase().as_str(), "1" | "true")
}

/// DirectML's provider options and the session config entries, from the typed flags and the
/// pass-through ones. A key given twice with two values is an error naming both.
fn resolve_options(
    request: &PlanRequest,
    use_dml: bool,
) -> Result<(BTreeMap<String, String>, BTreeMap<String, String>)> {
    fn insert(map: &mut BTreeMap<String, String>, flag: &str, key: &str, value: &str) -> Result<()> {
        if key.is_empty() || value.is_empty() {
            bail!("{flag} {key}={value}: ONNX Runtime takes neither an empty key nor an empty value");
        }
        match map.get(key) {
            Some(old) if old != value => bail!("{flag}: '{key}' is given twice, as '{old}' and as '{value}'"),
            _ => {
                map.insert(key.to_string(), value.to_string());
                Ok(())
            }
        }
    }
    let mut provider = BTreeMap::new();
    let mut config = BTreeMap::new();
    if use_dml && request.dml_disable_metacommands {
        provider.insert("disable_metacommands".to_string(), "true".to_string());
    }
    if use_dml && request.dml_graph_capture {
        config.insert(DML_GRAPH_CAPTURE.to_string(), "1".to_string());
    }
    for (key, value) in &request.ep_options {
        let flag = "--ep-option";
        // An EP device's options are its own: passed as given, under its name.
        if matches!(request.ep, EpRequest::Device(_)) {
            insert(&mut provider, flag, key, value)?;
            continue;
        }
        match key.as_str() {
            "device_id" | "performance_preference" | "device_filter" => bail!(
                "{flag} {key}={value}: the adapter is chosen with --device, --dml-performance-preference or --dml-device-filter, which the plan shows"
            ),
            // Users pass it as a provider option (Python's examples do); ONNX Runtime reads the
            // session config entry.
            "enable_graph_capture" => {
                if is_true(value) {
                    insert(&mut config, flag, DML_GRAPH_CAPTURE, "1")?;
                }
            }
            _ => insert(&mut provider, flag, key, value)?,
        }
    }
    for (key, value) in &request.session_config {
        insert(&mut config, "--session-config", key, value)?;
    }
    Ok((provider, config))
}

impl SessionPlan {
    /// The provider options as flags name them: `disable_metacommands=true, k=v`.
    pub fn provider_options_text(&self) -> String {
        self.provider_options.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
    }

    /// Whether DirectML's graph capture is on.
    pub fn graph_capture(&self) -> bool {
        self.session_config.get(DML_GRAPH_CAPTURE).is_some_and(|v| is_true(v))
    }

    /// Whether DirectML's graph fusion is off (a per-operator profile).
    pub fn fusion_disabled(&self) -> bool {
        self.session_config.get(DML_DISABLE_FUSION).is_some_and(|v| is_true(v))
    }

    /// Options this ONNX Runtime does not read: ONNX Runtime accepts any key and ignores those
    /// it does not know, so a typo would otherwise change nothing, silently.
    pub fn option_warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        for (key, value) in self.provider_options.iter().filter(|_| self.uses_directml()) {
            if !DML_PROVIDER_OPTIONS.contains(&key.as_str()) {
                warnings.push(format!(
                    "--ep-option {key}={value}: ONNX Runtime 1.24's DirectML provider reads only {}; it ignores this one",
                    DML_PROVIDER_OPTIONS.join(", ")
                ));
            }
        }
        for (key, value) in &self.session_config {
            if key.starts_with(DML_CONFIG_PREFIX) && !DML_CONFIG_ENTRIES.contains(&key.as_str()) {
                warnings.push(format!(
                    "--session-config {key}={value}: ONNX Runtime 1.24's DirectML build knows only {}; it ignores this one",
                    DML_CONFIG_ENTRIES.join(", ")
                ));
            }
        }
        warnings
    }

    /// Graph capture records one run's GPU work for fixed buffers and shapes: a free dimension
    /// left free cannot be captured. Checked once the inputs have fixed what they fix.
    pub fn check_graph_capture(&self) -> Result<()> {
        if !self.graph_capture() {
            return Ok(());
        }
        if !self.unfixed_dims.is_empty() {
            bail!("DirectML graph capture needs static shapes, but {}", self.unfixed_dims_advice(": "));
        }
        if !self.unnamed_dims.is_empty() {
            bail!(
                "DirectML graph capture needs static shapes, but {} {} unnamed and free, which no --dim can fix \
                 (ONNX Runtime fixes only named dimensions): export the model with names or static sizes",
                self.unnamed_dims.join(", "),
                if self.unnamed_dims.len() == 1 { "is" } else { "are" }
            );
        }
        Ok(())
    }
}

/// The model's named free dimensions that `overrides` leave free.
fn unfixed_dims(model: &ModelInfo, overrides: &[DimOverride]) -> Vec<String> {
    model.symbolic_dims().into_iter().filter(|name| fixed_size(model, overrides, name).is_none()).collect()
}

/// The size `overrides` give the free dimension `name`: by name, or through the denotation of
/// a dimension that has that name.
fn fixed_size(model: &ModelInfo, overrides: &[DimOverride], name: &str) -> Option<i64> {
    let by_name = overrides.iter().find(|o| o.by == DimKey::Name && o.key == name);
    by_name
        .or_else(|| {
            model.inputs.iter().flat_map(|i| &i.dims).filter(|d| d.param.as_deref() == Some(name)).find_map(|d| {
                let den = d.denotation.as_ref()?;
                overrides.iter().find(|o| o.by == DimKey::Denotation && &o.key == den)
            })
        })
        .map(|o| o.value)
}

/// Fixes the named free dimensions the plan leaves free from the shapes of the inputs about to
/// be bound, when the plan asks for it (DirectML, and not `--no-auto-dims`).
///
/// DirectML compiles a graph with free dimensions for dynamic shapes, which is several times
/// slower per run and costs seconds in the first; the inputs already say the sizes. A name two
/// inputs give different sizes is an error naming both: one session cannot serve both shapes.
pub fn fix_dims_from_inputs(plan: &mut SessionPlan, model: &ModelInfo, bound: &[BoundShape]) -> Result<()> {
    if !plan.auto_dims {
        return Ok(());
    }
    let mut automatic: Vec<DimOverride> = Vec::new();
    let mut conflicting: Vec<String> = Vec::new();
    for input in &model.inputs {
        let Some(shape) = bound.iter().find(|b| b.input == input.name) else { continue };
        if shape.shape.len() != input.dims.len() {
            continue; // the input check reports the rank
        }
        for (axis, (dim, &size)) in input.dims.iter().zip(&shape.shape).enumerate() {
            let (None, Some(name)) = (dim.value, &dim.param) else { continue };
            if fixed_size(model, &plan.dimension_overrides, name).is_some() {
                continue;
            }
            // ONNX Runtime runs inputs that disagree on a name (the name is only a hint); a
            // session can be fixed to one size, so such a name stays free.
            propose_size(
                &mut automatic,
                &mut conflicting,
                &mut plan.notes,
                DimOverride {
                    by: DimKey::Name,
                    key: name.clone(),
                    value: i64::try_from(size)?,
                    source: DimSource::Automatic { input: input.name.clone(), axis, from: shape.from.clone() },
                },
            );
        }
    }
    plan.dimension_overrides.extend(automatic);
    plan.unfixed_dims = unfixed_dims(model, &plan.dimension_overrides);
    Ok(())
}

/// Fails when the plan needs an execution provider the loaded ONNX Runtime does not have.
///
/// Kept apart from [`resolve`] so `--print-plan` can show what a DirectML run would apply even
/// where DirectML cannot run.
pub fn check_available(plan: &SessionPlan, request: &PlanRequest, offered: &Offered) -> Result<()> {
    if plan.uses_directml() && !offered.has(DML_PROVIDER) {
        bail!("{}", dml_unavailable_message(request, offered.providers));
    }
    Ok(())
}

fn dml_unavailable_message(request: &PlanRequest, available: &[String]) -> String {
    let named = dml_only_flags(request, true);
    let flag = if request.ep == EpRequest::Dml {
        "--ep dml"
    } else if request.device.is_some() {
        "--device"
    } else if let Some(first) = named.first() {
        first.as_str()
    } else {
        "a DirectML option"
    };
    let platform_hint = if cfg!(windows) {
        "load the onnxruntime-directml build (its onnxruntime.dll and DirectML.dll next to dmlrun.exe, or ORT_DYLIB_PATH)"
    } else {
        "DirectML exists only on Windows (use the Windows build of dmlrun with onnxruntime-directml)"
    };
    format!(
        "{flag} asks for DirectML, but the loaded ONNX Runtime offers only {}: {platform_hint}, or run on the CPU with --ep cpu",
        available.join(", ")
    )
}

fn resolve_dims(request: &PlanRequest, model: &ModelInfo) -> Result<Vec<DimOverride>> {
    let mut overrides = Vec::new();
    let symbolic = model.symbolic_dims();
    for (name, value) in &request.dims {
        if !symbolic.contains(name) {
            bail!(
                "--dim {name}={value}: the model has no input dimension named '{name}' (its symbolic dimensions: {})",
                list_or_none(&symbolic)
            );
        }
        overrides.push(DimOverride {
            by: DimKey::Name,
            key: name.clone(),
            value: *value,
            source: DimSource::Requested,
        });
    }
    let denotations = model.dim_denotations();
    for (denotation, value) in &request.dim_denotations {
        if !denotations.contains(denotation) {
            bail!(
                "--dim-denotation {denotation}={value}: no model input dimension has the denotation '{denotation}' (denotations in this model: {})",
                list_or_none(&denotations)
            );
        }
        overrides.push(DimOverride {
            by: DimKey::Denotation,
            key: denotation.clone(),
            value: *value,
            source: DimSource::Requested,
        });
    }
    Ok(overrides)
}

/// Checks `--shape` against the model and turns the named free dimensions it sizes into
/// overrides. A name sized twice differently (by two shapes, or by a shape and `--dim`) is
/// not fixed, and said in `notes`; ONNX Runtime itself accepts such inputs.
fn resolve_shapes(
    request: &PlanRequest,
    model: &ModelInfo,
    overrides: &mut Vec<DimOverride>,
    notes: &mut Vec<String>,
) -> Result<BTreeMap<String, Vec<usize>>> {
    let mut shapes = BTreeMap::new();
    let mut conflicting: Vec<String> = Vec::new();
    for (name, shape) in &request.shapes {
        let flag = format!("--shape {name}={}", shape.iter().map(usize::to_string).collect::<Vec<_>>().join(","));
        let Some(input) = model.input(name) else {
            let names: Vec<String> = model.inputs.iter().map(|i| i.name.clone()).collect();
            bail!("{flag}: the model has no input '{name}' (its inputs: {})", list_or_none(&names));
        };
        if shapes.contains_key(name) {
            bail!("{flag}: input '{name}' is given a shape twice");
        }
        if input.dims.len() != shape.len() {
            bail!(
                "{flag}: input '{name}' has rank {} ([{}]), not {}",
                input.dims.len(),
                input.dims.iter().map(|d| d.label()).collect::<Vec<_>>().join(", "),
                shape.len()
            );
        }
        for (axis, (dim, &size)) in input.dims.iter().zip(shape).enumerate() {
            if let Some(fixed) = dim.value {
                if fixed != size as i64 {
                    bail!("{flag}: axis {axis} of input '{name}' is fixed to {fixed} in the model");
                }
            }
            let (None, Some(param)) = (dim.value, &dim.param) else { continue };
            propose_size(
                overrides,
                &mut conflicting,
                notes,
                DimOverride {
                    by: DimKey::Name,
                    key: param.clone(),
                    value: i64::try_from(size)?,
                    source: DimSource::Shape { input: name.clone(), axis },
                },
            );
        }
        shapes.insert(name.clone(), shape.clone());
    }
    Ok(shapes)
}

/// Adds `proposed` to `overrides`, unless an override there already gives its name another size:
/// then the name stays free (that override goes, and later proposals for it are ignored) and
/// `notes` says which two disagreed.
fn propose_size(
    overrides: &mut Vec<DimOverride>,
    conflicting: &mut Vec<String>,
    notes: &mut Vec<String>,
    proposed: DimOverride,
) {
    if conflicting.contains(&proposed.key) {
        return;
    }
    match overrides.iter().position(|o| o.by == DimKey::Name && o.key == proposed.key) {
        Some(i) if overrides[i].value != proposed.value => {
            let earlier = overrides.remove(i);
            notes.push(format!(
                "free dimension '{}' is {} {} but {} {}: left free, as one override cannot give it both sizes",
                proposed.key,
                earlier.value,
                earlier.source.phrase(&earlier.key),
                proposed.value,
                proposed.source.phrase(&proposed.key)
            ));
            conflicting.push(proposed.key);
        }
        Some(_) => {}
        None => overrides.push(proposed),
    }
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

impl fmt::Display for SessionPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let eps: Vec<String> = self
            .execution_providers
            .iter()
            .map(|p| match p {
                ProviderPlan::DirectML { adapter: AdapterSelection::Index { device_id } } => {
                    format!("{DML_PROVIDER} (device_id {device_id})")
                }
                ProviderPlan::DirectML {
                    adapter: AdapterSelection::Preference { performance_preference, device_filter },
                } => format!(
                    "{DML_PROVIDER} (performance_preference {performance_preference:?}, device_filter {device_filter:?})"
                ),
                ProviderPlan::Cpu => CPU_PROVIDER.to_string(),
                ProviderPlan::EpDevice { ep, device, hardware } => format!("{ep} (EP device {device}: {hardware})"),
                ProviderPlan::Policy { policy } => format!(
                    "chosen by ONNX Runtime's {policy} policy among its EP devices when the session is created (the report names them)"
                ),
            })
            .collect();
        writeln!(f, "execution providers : {}", eps.join(" -> "))?;
        writeln!(f, "execution mode      : {:?}", self.execution_mode)?;
        writeln!(f, "memory pattern      : {}", if self.memory_pattern { "enabled" } else { "disabled" })?;
        writeln!(f, "optimization level  : {:?}", self.optimization_level)?;
        let threads = |t: Option<usize>| t.map_or("default".to_string(), |n| n.to_string());
        writeln!(f, "intra-op threads    : {}", threads(self.intra_op_threads))?;
        writeln!(f, "inter-op threads    : {}", threads(self.inter_op_threads))?;
        let dims: Vec<String> = self
            .dimension_overrides
            .iter()
            .map(|o| {
                let set = match o.by {
                    DimKey::Name => format!("{}={}", o.key, o.value),
                    DimKey::Denotation => format!("denotation {}={}", o.key, o.value),
                };
                match &o.source {
                    DimSource::Requested => set,
                    DimSource::Automatic { .. } | DimSource::Shape { .. } => format!("{set} ({})", o.source.describe()),
                }
            })
            .collect();
        writeln!(f, "dimension overrides : {}", if dims.is_empty() { "none".to_string() } else { dims.join(", ") })?;
        if self.uses_directml() {
            let auto = if self.auto_dims { "on (from the inputs)" } else { "off (--no-auto-dims)" };
            writeln!(f, "automatic dims      : {auto}")?;
        }
        write!(f, "unfixed dimensions  : {}", list_or_none(&self.unfixed_dims))?;
        if !self.unnamed_dims.is_empty() {
            write!(f, "\nunnamed dimensions  : {} (free; ONNX Runtime cannot fix them)", self.unnamed_dims.join(", "))?;
        }
        if !self.input_shapes.is_empty() {
            let shapes: Vec<String> = self
                .input_shapes
                .iter()
                .map(|(name, shape)| {
                    format!("{name}=[{}]", shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", "))
                })
                .collect();
            write!(f, "\ninput shapes        : {}", shapes.join(", "))?;
        }
        let pairs = |m: &BTreeMap<String, String>| m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>();
        if !self.provider_options.is_empty() {
            write!(f, "\nprovider options    : {}", pairs(&self.provider_options).join(", "))?;
        }
        if !self.session_config.is_empty() {
            write!(f, "\nsession config      : {}", pairs(&self.session_config).join(", "))?;
        }
        if self.uses_directml() {
            let io = if self.io_on_device {
                "on the device (inputs uploaded once, outputs kept in DirectML's memory)"
            } else {
                "host (each run copies inputs to the GPU and outputs back)"
            };
            write!(f, "\ninputs and outputs  : {io}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::model::{DimInfo, IoInfo};

    fn model_with_batch() -> ModelInfo {
        ModelInfo {
            inputs: vec![IoInfo {
                kind: Default::default(),
                type_name: None,
                name: "input".into(),
                dtype: Some("float32".into()),
                dims: vec![
                    DimInfo { value: None, param: Some("batch".into()), denotation: Some("DATA_BATCH".into()) },
                    DimInfo { value: Some(3), param: None, denotation: None },
                ],
            }],
            ..ModelInfo::default()
        }
    }

    /// An ONNX Runtime offering `names` and no EP devices (the strings live as long as the test).
    fn providers(names: &[&str]) -> Offered<'static> {
        Offered::providers(Box::leak(names.iter().map(|s| s.to_string()).collect::<Vec<_>>().into_boxed_slice()))
    }

    #[test]
    fn dml_plan_is_sequential_without_memory_pattern() {
        let request = PlanRequest { ep: EpRequest::Dml, device: Some(1), ..PlanRequest::default() };
        let plan = resolve(&request, &providers(&[DML_PROVIDER, CPU_PROVIDER]), &model_with_batch()).unwrap();
        assert!(plan.uses_directml());
        assert_eq!(plan.device_id(), Some(1));
        assert_eq!(plan.execution_mode, ExecutionMode::Sequential);
        assert!(!plan.memory_pattern);
        assert_eq!(plan.execution_providers.last(), Some(&ProviderPlan::Cpu));
    }

    #[test]
    fn dml_rejects_parallel_and_memory_pattern() {
        let available = providers(&[DML_PROVIDER, CPU_PROVIDER]);
        let request =
            PlanRequest { ep: EpRequest::Dml, execution_mode: Some(ExecutionMode::Parallel), ..PlanRequest::default() };
        assert!(resolve(&request, &available, &ModelInfo::default()).unwrap_err().to_string().contains("sequential"));
        let request = PlanRequest { ep: EpRequest::Dml, memory_pattern: Some(true), ..PlanRequest::default() };
        assert!(resolve(&request, &available, &ModelInfo::default())
            .unwrap_err()
            .to_string()
            .contains("memory pattern"));
    }

    #[test]
    fn auto_uses_dml_only_when_available() {
        let request = PlanRequest::default();
        let plan = resolve(&request, &providers(&[CPU_PROVIDER]), &ModelInfo::default()).unwrap();
        assert!(!plan.uses_directml());
        assert!(plan.memory_pattern, "CPU keeps ONNX Runtime's default memory pattern");
        let plan = resolve(&request, &providers(&[DML_PROVIDER, CPU_PROVIDER]), &ModelInfo::default()).unwrap();
        assert_eq!(plan.device_id(), Some(0));
    }

    #[test]
    fn explicit_dml_without_provider_is_an_error_not_a_fallback() {
        let available = providers(&[CPU_PROVIDER]);
        for request in [
            PlanRequest { ep: EpRequest::Dml, ..PlanRequest::default() },
            PlanRequest { device: Some(1), ..PlanRequest::default() },
        ] {
            let plan = resolve(&request, &available, &ModelInfo::default()).unwrap();
            assert!(plan.uses_directml(), "the plan keeps what was asked for");
            let err = check_available(&plan, &request, &available).unwrap_err().to_string();
            assert!(err.contains("DirectML") && err.contains("--ep cpu"), "{err}");
        }
    }

    #[test]
    fn device_with_cpu_is_rejected() {
        let request = PlanRequest { ep: EpRequest::Cpu, device: Some(0), ..PlanRequest::default() };
        assert!(resolve(&request, &providers(&[CPU_PROVIDER]), &ModelInfo::default()).is_err());
    }

    #[test]
    fn preference_without_device_selects_by_preference() {
        let request = PlanRequest {
            ep: EpRequest::Dml,
            performance_preference: Some(PerformancePreference::HighPerformance),
            ..PlanRequest::default()
        };
        let plan = resolve(&request, &providers(&[DML_PROVIDER]), &ModelInfo::default()).unwrap();
        assert_eq!(
            plan.execution_providers[0],
            ProviderPlan::DirectML {
                adapter: AdapterSelection::Preference {
                    performance_preference: PerformancePreference::HighPerformance,
                    device_filter: DeviceFilter::Gpu
                }
            }
        );
    }

    #[test]
    fn unknown_dim_name_lists_symbolic_dims() {
        let request = PlanRequest { dims: vec![("seq".into(), 4)], ..PlanRequest::default() };
        let err = resolve(&request, &providers(&[CPU_PROVIDER]), &model_with_batch()).unwrap_err().to_string();
        assert!(err.contains("'seq'") && err.contains("batch"), "{err}");
    }

    #[test]
    fn dims_fixed_by_name_or_denotation_are_not_unfixed() {
        let available = providers(&[CPU_PROVIDER]);
        let plan = resolve(&PlanRequest::default(), &available, &model_with_batch()).unwrap();
        assert_eq!(plan.unfixed_dims, vec!["batch".to_string()]);
        let by_name = PlanRequest { dims: vec![("batch".into(), 1)], ..PlanRequest::default() };
        assert!(resolve(&by_name, &available, &model_with_batch()).unwrap().unfixed_dims.is_empty());
        let by_denotation = PlanRequest { dim_denotations: vec![("DATA_BATCH".into(), 1)], ..PlanRequest::default() };
        assert!(resolve(&by_denotation, &available, &model_with_batch()).unwrap().unfixed_dims.is_empty());
    }

    #[test]
    fn warns_about_unfixed_dims_only_with_directml() {
        let available = providers(&[DML_PROVIDER, CPU_PROVIDER]);
        let model = model_with_batch();
        let dml = resolve(&PlanRequest { ep: EpRequest::Dml, ..PlanRequest::default() }, &available, &model).unwrap();
        let warning = dml.dynamic_shape_warning().unwrap();
        assert!(warning.contains("DirectML is slow with dynamic shapes") && warning.contains("--dim batch=<size>"));
        let cpu = resolve(&PlanRequest { ep: EpRequest::Cpu, ..PlanRequest::default() }, &available, &model).unwrap();
        assert_eq!(cpu.dynamic_shape_warning(), None);
        let fixed = PlanRequest { ep: EpRequest::Dml, dims: vec![("batch".into(), 1)], ..PlanRequest::default() };
        assert_eq!(resolve(&fixed, &available, &model).unwrap().dynamic_shape_warning(), None);
    }

    fn bound(input: &str, shape: &[usize], from: &str) -> BoundShape {
        BoundShape { input: input.into(), shape: shape.to_vec(), from: from.into() }
    }

    fn two_inputs_sharing_batch() -> ModelInfo {
        let dim = |param: &str| DimInfo { param: Some(param.into()), ..DimInfo::default() };
        let io = |name: &str, dims: Vec<DimInfo>| IoInfo {
            kind: Default::default(),
            type_name: None,
            name: name.into(),
            dtype: Some("float32".into()),
            dims,
        };
        ModelInfo {
            inputs: vec![
                io("image", vec![dim("N"), DimInfo { value: Some(3), ..DimInfo::default() }, dim("H"), dim("W")]),
                io("scale", vec![dim("N")]),
            ],
            ..ModelInfo::default()
        }
    }

    #[test]
    fn directml_fixes_free_dims_from_the_bound_inputs() {
        let model = two_inputs_sharing_batch();
        let available = providers(&[DML_PROVIDER, CPU_PROVIDER]);
        let mut plan =
            resolve(&PlanRequest { ep: EpRequest::Dml, ..PlanRequest::default() }, &available, &model).unwrap();
        assert_eq!(plan.unfixed_dims, ["N", "H", "W"]);
        fix_dims_from_inputs(
            &mut plan,
            &model,
            &[bound("image", &[2, 3, 224, 224], "2 images"), bound("scale", &[2], "generated")],
        )
        .unwrap();
        let fixed: Vec<(&str, i64)> = plan.dimension_overrides.iter().map(|o| (o.key.as_str(), o.value)).collect();
        assert_eq!(fixed, [("N", 2), ("H", 224), ("W", 224)]);
        assert!(plan.unfixed_dims.is_empty());
        assert_eq!(plan.dynamic_shape_warning(), None);
        assert_eq!(
            plan.dimension_overrides[0].source,
            DimSource::Automatic { input: "image".into(), axis: 0, from: "2 images".into() }
        );
        assert!(plan.to_string().contains("N=2 (automatic, from input 'image' axis 0 (2 images))"), "{plan}");
    }

    #[test]
    fn an_explicit_dim_wins_and_the_cpu_is_left_alone() {
        let model = two_inputs_sharing_batch();
        let available = providers(&[DML_PROVIDER, CPU_PROVIDER]);
        let shapes = [bound("image", &[1, 3, 64, 64], "1 image")];
        let request = PlanRequest { ep: EpRequest::Dml, dims: vec![("N".into(), 1)], ..PlanRequest::default() };
        let mut plan = resolve(&request, &available, &model).unwrap();
        fix_dims_from_inputs(&mut plan, &model, &shapes).unwrap();
        let n: Vec<&DimOverride> = plan.dimension_overrides.iter().filter(|o| o.key == "N").collect();
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].source, DimSource::Requested);

        let mut cpu =
            resolve(&PlanRequest { ep: EpRequest::Cpu, ..PlanRequest::default() }, &available, &model).unwrap();
        fix_dims_from_inputs(&mut cpu, &model, &shapes).unwrap();
        assert!(cpu.dimension_overrides.is_empty(), "{:?}", cpu.dimension_overrides);

        let off = PlanRequest { ep: EpRequest::Dml, auto_dims: false, ..PlanRequest::default() };
        let mut off = resolve(&off, &available, &model).unwrap();
        fix_dims_from_inputs(&mut off, &model, &shapes).unwrap();
        assert!(off.dimension_overrides.is_empty());
        assert!(off.dynamic_shape_warning().unwrap().contains("(--no-auto-dims)"));
        assert!(off.to_string().contains("automatic dims      : off (--no-auto-dims)"), "{off}");
    }

    #[test]
    fn a_dim_two_inputs_size_differently_is_left_free_with_a_note_naming_both() {
        let model = two_inputs_sharing_batch();
        let available = providers(&[DML_PROVIDER, CPU_PROVIDER]);
        let mut plan =
            resolve(&PlanRequest { ep: EpRequest::Dml, ..PlanRequest::default() }, &available, &model).unwrap();
        fix_dims_from_inputs(
            &mut plan,
            &model,
            &[bound("image", &[2, 3, 8, 8], "2 images"), bound("scale", &[3], "s.npy")],
        )
        .unwrap();
        assert!(plan.dimension_overrides.iter().all(|o| o.key != "N"), "{:?}", plan.dimension_overrides);
        assert_eq!(plan.unfixed_dims, vec!["N".to_string()]);
        assert_eq!(
            plan.notes,
            vec!["free dimension 'N' is 2 in input 'image' (axis 0) but 3 in input 'scale' (axis 0): left free, as one override cannot give it both sizes".to_string()]
        );
    }

    #[test]
    fn shapes_fix_named_dims_size_unnamed_ones_and_are_checked() {
        let unnamed = DimInfo::default();
        let model = ModelInfo {
            inputs: vec![IoInfo {
                name: "x".into(),
                dtype: Some("float32".into()),
                dims: vec![
                    DimInfo { param: Some("batch".into()), ..DimInfo::default() },
                    DimInfo { value: Some(3), ..DimInfo::default() },
                    unnamed.clone(),
                    unnamed,
                ],
                ..IoInfo::default()
            }],
            ..ModelInfo::default()
        };
        let available = providers(&[DML_PROVIDER, CPU_PROVIDER]);
        let request = |shape: Vec<usize>| PlanRequest {
            ep: EpRequest::Dml,
            shapes: vec![("x".into(), shape)],
            ..PlanRequest::default()
        };
        let plan = resolve(&request(vec![2, 3, 48, 192]), &available, &model).unwrap();
        assert_eq!(plan.input_shapes["x"], vec![2, 3, 48, 192]);
        let batch = plan.dimension_overrides.iter().find(|o| o.key == "batch").unwrap();
        assert_eq!((batch.value, &batch.source), (2, &DimSource::Shape { input: "x".into(), axis: 0 }));
        assert_eq!(plan.unnamed_dims, vec!["input 'x' axis 2".to_string(), "input 'x' axis 3".to_string()]);
        let warning = plan.dynamic_shape_warning().unwrap();
        assert!(warning.contains("input 'x' axis 2, input 'x' axis 3 unnamed"), "{warning}");
        // Graph capture cannot work on what stays free, and no --dim reaches an unnamed axis.
        assert!(plan.check_graph_capture().is_ok(), "graph capture is off");
        let mut capture = request(vec![2, 3, 48, 192]);
        capture.dml_graph_capture = true;
        let err = resolve(&capture, &available, &model).unwrap().check_graph_capture().unwrap_err().to_string();
        assert_eq!(
            err,
            "DirectML graph capture needs static shapes, but input 'x' axis 2, input 'x' axis 3 are unnamed and \
             free, which no --dim can fix (ONNX Runtime fixes only named dimensions): export the model with names \
             or static sizes"
        );
        let err = resolve(&request(vec![2, 4, 48, 192]), &available, &model).unwrap_err().to_string();
        assert_eq!(err, "--shape x=2,4,48,192: axis 1 of input 'x' is fixed to 3 in the model");
        let err = resolve(&request(vec![2, 3]), &available, &model).unwrap_err().to_string();
        assert_eq!(err, "--shape x=2,3: input 'x' has rank 4 ([batch, 3, ?, ?]), not 2");
        let mut conflicting = request(vec![2, 3, 48, 192]);
        conflicting.dims.push(("batch".into(), 5));
        let plan = resolve(&conflicting, &available, &model).unwrap();
        assert!(plan.dimension_overrides.iter().all(|o| o.key != "batch"));
        assert_eq!(
            plan.notes,
            vec!["free dimension 'batch' is 5 by --dim batch but 2 by --shape x (axis 0): left free, as one override cannot give it both sizes".to_string()]
        );
    }

    fn device(index: usize, ep: &str, library: Option<&str>) -> EpDevice {
        EpDevice {
            index,
            ep_name: ep.into(),
            ep_vendor: "Microsoft".into(),
            hardware_type: crate::runtime::ep_devices::HardwareType::Gpu,
            vendor: "NVIDIA".into(),
            vendor_id: 0x10de,
            device_id: 0x2330,
            metadata: BTreeMap::new(),
            ep_metadata: BTreeMap::new(),
            ep_options: BTreeMap::new(),
            library: library.map(str::to_string),
        }
    }

    #[test]
    fn ep_names_parse_to_what_they_mean() {
        assert_eq!(EpRequest::parse("CPUExecutionProvider"), Ok(EpRequest::Cpu));
        assert_eq!(EpRequest::parse("DmlExecutionProvider"), Ok(EpRequest::Dml));
        assert_eq!(EpRequest::parse("webgpu"), Ok(EpRequest::Device("webgpu".into())));
        assert_eq!(EpRequest::parse("policy:max-performance"), Ok(EpRequest::Policy(DevicePolicy::MaxPerformance)));
        assert!(EpRequest::parse("policy:fastest").unwrap_err().contains("policy:prefer-gpu"));
        assert!(EpRequest::parse(" ").is_err());
        for text in ["auto", "dml", "cpu", "policy:min-power", "WebGpuExecutionProvider"] {
            assert_eq!(EpRequest::parse(text).unwrap().to_string(), text);
        }
    }

    #[test]
    fn an_ep_name_resolves_to_its_first_device_or_says_why_not() {
        let providers = vec![CPU_PROVIDER.to_string()];
        let devices = vec![
            device(0, CPU_PROVIDER, None),
            device(1, "WebGpuExecutionProvider", Some("wg")),
            device(2, "WebGpuExecutionProvider", Some("wg")),
        ];
        let libraries = vec![
            EpLibrary {
                name: "wg".into(),
                path: "/x/wg.so".into(),
                execution_providers: vec!["WebGpuExecutionProvider".into()],
            },
            EpLibrary { name: "ov".into(), path: "/x/ov.so".into(), execution_providers: vec![] },
        ];
        let offered = Offered { providers: &providers, ep_devices: &devices, ep_libraries: &libraries };
        for name in ["webgpu", "WebGpuExecutionProvider", "wg"] {
            let request = PlanRequest { ep: EpRequest::Device(name.into()), ..PlanRequest::default() };
            let plan = resolve(&request, &offered, &ModelInfo::default()).unwrap();
            assert!(
                matches!(&plan.execution_providers[..], [ProviderPlan::EpDevice { device: 1, .. }, ProviderPlan::Cpu]),
                "{name}: {:?}",
                plan.execution_providers
            );
            assert!(plan.memory_pattern && !plan.uses_directml());
        }
        let request = PlanRequest { ep: EpRequest::Device("ov".into()), ..PlanRequest::default() };
        let err = resolve(&request, &offered, &ModelInfo::default()).unwrap_err().to_string();
        assert!(err.contains("'ov' (/x/ov.so) is registered, but it offers no device on this machine"), "{err}");
        let request = PlanRequest { ep: EpRequest::Device("cuda".into()), ..PlanRequest::default() };
        let err = resolve(&request, &offered, &ModelInfo::default()).unwrap_err().to_string();
        assert!(err.contains("no execution provider of that name") && err.contains("(wg, ov)"), "{err}");
        let request =
            PlanRequest { ep: EpRequest::Device("webgpu".into()), io_on_device: true, ..PlanRequest::default() };
        assert!(resolve(&request, &offered, &ModelInfo::default())
            .unwrap_err()
            .to_string()
            .contains("--io-on-device applies to DirectML"));
    }

    #[test]
    fn a_policy_appends_nothing_and_keeps_directml_rules_where_directml_exists() {
        let request = PlanRequest { ep: EpRequest::Policy(DevicePolicy::PreferGpu), ..PlanRequest::default() };
        let plan = resolve(&request, &providers(&[DML_PROVIDER, CPU_PROVIDER]), &ModelInfo::default()).unwrap();
        assert_eq!(plan.execution_providers, vec![ProviderPlan::Policy { policy: DevicePolicy::PreferGpu }]);
        assert!(!plan.memory_pattern && plan.execution_mode == ExecutionMode::Sequential);
        let plan = resolve(&request, &providers(&[CPU_PROVIDER]), &ModelInfo::default()).unwrap();
        assert!(plan.memory_pattern);
        let request = PlanRequest { memory_pattern: Some(true), ..request };
        let err = resolve(&request, &providers(&[DML_PROVIDER, CPU_PROVIDER]), &ModelInfo::default()).unwrap_err();
        assert!(err.to_string().contains("an EP selection policy that may pick DirectML"), "{err}");
    }
}
