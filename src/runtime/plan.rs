//! The session plan: every decision about how ONNX Runtime is configured, made by a pure function
//! from the user's request and the facts of the loaded runtime and model.
//!
//! Keeping this separate from the code that calls `ort` means the DirectML rules (sequential
//! execution, no memory pattern, fixed free dimensions) are a property of a value that tests can
//! check on any platform, and that `--print-plan` shows exactly as it will be applied.

use std::fmt;

use anyhow::{bail, Result};
use serde::Serialize;

use crate::model::ModelInfo;

/// ONNX Runtime's name for the DirectML execution provider.
pub const DML_PROVIDER: &str = "DmlExecutionProvider";
/// ONNX Runtime's name for the CPU execution provider.
pub const CPU_PROVIDER: &str = "CPUExecutionProvider";

/// What the user asked for with `--ep`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EpRequest {
    /// DirectML when the loaded ONNX Runtime offers it, otherwise the CPU.
    Auto,
    /// DirectML; an error where it is not available.
    Dml,
    /// The CPU execution provider only.
    Cpu,
}

/// DirectML's `performance_preference` (DXGI GPU preference when no `device_id` is given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PerformancePreference {
    Default,
    HighPerformance,
    MinimumPower,
}

/// DirectML's `device_filter`: which kinds of adapter it may pick when no `device_id` is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceFilter {
    Gpu,
    Npu,
    Any,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutionMode {
    Sequential,
    Parallel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizationLevel {
    Disable,
    Basic,
    Extended,
    All,
}

/// How ONNX Runtime's logging is filtered (`--ort-log-level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OrtLogLevel {
    Verbose,
    Info,
    Warning,
    Error,
    Fatal,
}

/// How the DirectML adapter is chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum AdapterSelection {
    /// A DXGI adapter index (`device_id`), as `dmlrun devices` lists them.
    Index { device_id: u32 },
    /// Let DirectML pick by preference and filter (ONNX Runtime's `OrtDmlDeviceOptions`).
    Preference { performance_preference: PerformancePreference, device_filter: DeviceFilter },
}

/// One execution provider, in registration order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "name")]
pub enum ProviderPlan {
    #[serde(rename = "DmlExecutionProvider")]
    DirectML { adapter: AdapterSelection },
    #[serde(rename = "CPUExecutionProvider")]
    Cpu,
}

/// A free-dimension override, applied at session creation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DimOverride {
    /// `name` (AddFreeDimensionOverrideByName) or `denotation` (AddFreeDimensionOverride).
    pub by: DimKey,
    pub key: String,
    pub value: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
    pub log_level: OrtLogLevel,
    /// Write ONNX Runtime's per-operator profile with this file prefix.
    pub profile_prefix: Option<std::path::PathBuf>,
    /// Save the optimised model ONNX Runtime produces to this file.
    pub optimized_model_path: Option<std::path::PathBuf>,
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
            log_level: OrtLogLevel::Warning,
            profile_prefix: None,
            optimized_model_path: None,
        }
    }
}

/// Every setting dmlrun applies to an ONNX Runtime session, in one printable value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionPlan {
    pub execution_providers: Vec<ProviderPlan>,
    pub execution_mode: ExecutionMode,
    pub memory_pattern: bool,
    pub optimization_level: OptimizationLevel,
    pub intra_op_threads: Option<usize>,
    pub inter_op_threads: Option<usize>,
    pub dimension_overrides: Vec<DimOverride>,
    pub log_level: OrtLogLevel,
    /// Symbolic input dimensions no override fixes (DirectML compiles them dynamically: slow).
    pub unfixed_dims: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile_prefix: Option<std::path::PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimized_model_path: Option<std::path::PathBuf>,
}

impl SessionPlan {
    pub fn uses_directml(&self) -> bool {
        self.execution_providers.iter().any(|p| matches!(p, ProviderPlan::DirectML { .. }))
    }

    /// The adapter index DirectML runs on, when one was chosen by index.
    pub fn device_id(&self) -> Option<u32> {
        self.execution_providers.iter().find_map(|p| match p {
            ProviderPlan::DirectML { adapter: AdapterSelection::Index { device_id } } => Some(*device_id),
            _ => None,
        })
    }
}

/// Resolves a request into a plan. `available` is ONNX Runtime's `GetAvailableProviders` list.
pub fn resolve(request: &PlanRequest, available: &[String], model: &ModelInfo) -> Result<SessionPlan> {
    let dml_available = available.iter().any(|p| p == DML_PROVIDER);
    let explicit_dml = request.ep == EpRequest::Dml
        || request.device.is_some()
        || request.performance_preference.is_some()
        || request.device_filter.is_some();

    let use_dml = match request.ep {
        EpRequest::Cpu => {
            if request.device.is_some() {
                bail!("--device selects a DirectML adapter and cannot be combined with --ep cpu");
            }
            if request.performance_preference.is_some() || request.device_filter.is_some() {
                bail!("--dml-performance-preference and --dml-device-filter apply to DirectML and cannot be combined with --ep cpu");
            }
            false
        }
        EpRequest::Dml => true,
        // Auto falls back to the CPU only when nothing DirectML-specific was asked for.
        EpRequest::Auto => dml_available || explicit_dml,
    };

    let mut execution_providers = Vec::new();
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
    execution_providers.push(ProviderPlan::Cpu);

    // DirectML's documented requirements: it does not support ONNX Runtime's memory pattern
    // optimisation nor parallel execution, and a session must not run concurrently.
    let (execution_mode, memory_pattern) = if use_dml {
        if request.execution_mode == Some(ExecutionMode::Parallel) {
            bail!("--execution-mode parallel is not allowed with DirectML, which requires sequential execution");
        }
        if request.memory_pattern == Some(true) {
            bail!("--memory-pattern on is not allowed with DirectML, which requires the memory pattern to be disabled");
        }
        (ExecutionMode::Sequential, false)
    } else {
        (request.execution_mode.unwrap_or(ExecutionMode::Sequential), request.memory_pattern.unwrap_or(true))
    };

    let dimension_overrides = resolve_dims(request, model)?;
    let unfixed_dims = model
        .symbolic_dims()
        .into_iter()
        .filter(|name| !dimension_overrides.iter().any(|o| o.by == DimKey::Name && &o.key == name))
        .filter(|name| {
            // A dimension fixed through its denotation is fixed too.
            !model.inputs.iter().flat_map(|i| &i.dims).any(|d| {
                d.param.as_deref() == Some(name.as_str())
                    && d.denotation.as_ref().is_some_and(|den| {
                        dimension_overrides.iter().any(|o| o.by == DimKey::Denotation && &o.key == den)
                    })
            })
        })
        .collect();

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
        profile_prefix: request.profile_prefix.clone(),
        optimized_model_path: request.optimized_model_path.clone(),
    })
}

/// Fails when the plan needs an execution provider the loaded ONNX Runtime does not have.
///
/// Kept apart from [`resolve`] so `--print-plan` can show what a DirectML run would apply even
/// where DirectML cannot run.
pub fn check_available(plan: &SessionPlan, request: &PlanRequest, available: &[String]) -> Result<()> {
    if plan.uses_directml() && !available.iter().any(|p| p == DML_PROVIDER) {
        bail!("{}", dml_unavailable_message(request, available));
    }
    Ok(())
}

fn dml_unavailable_message(request: &PlanRequest, available: &[String]) -> String {
    let flag = if request.ep == EpRequest::Dml {
        "--ep dml"
    } else if request.device.is_some() {
        "--device"
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
        overrides.push(DimOverride { by: DimKey::Name, key: name.clone(), value: *value });
    }
    let denotations = model.dim_denotations();
    for (denotation, value) in &request.dim_denotations {
        if !denotations.contains(denotation) {
            bail!(
                "--dim-denotation {denotation}={value}: no model input dimension has the denotation '{denotation}' (denotations in this model: {})",
                list_or_none(&denotations)
            );
        }
        overrides.push(DimOverride { by: DimKey::Denotation, key: denotation.clone(), value: *value });
    }
    Ok(overrides)
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
            .map(|o| match o.by {
                DimKey::Name => format!("{}={}", o.key, o.value),
                DimKey::Denotation => format!("denotation {}={}", o.key, o.value),
            })
            .collect();
        writeln!(f, "dimension overrides : {}", if dims.is_empty() { "none".to_string() } else { dims.join(", ") })?;
        write!(f, "unfixed dimensions  : {}", list_or_none(&self.unfixed_dims))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DimInfo, IoInfo};

    fn model_with_batch() -> ModelInfo {
        ModelInfo {
            inputs: vec![IoInfo {
                kind: Default::default(),
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

    fn providers(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
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
}
