//! The session plan: every decision about how ONNX Runtime is configured, made by a pure function
//! from the user's request and the facts of the loaded runtime and model.
//!
//! Keeping this separate from the code that calls `ort` means the DirectML rules (sequential
//! execution, no memory pattern, fixed free dimensions) are a property of a value that tests can
//! check on any platform, and that `--print-plan` shows exactly as it will be applied.

//!
//! One file per concern: `request` (what was asked), `providers` (execution providers, their
//! options and EP devices), `dims` (free dimensions from every source), `display` (the printable
//! plan); this file holds the plan itself and [`resolve`], which puts them together.

mod dims;
mod display;
mod fitting;
mod providers;
mod request;
#[cfg(test)]
mod testing;

use std::collections::BTreeMap;

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

pub use dims::{fix_dims_from_inputs, BoundShape, DimKey, DimOverride, DimSource};
use dims::{resolve_dims, resolve_shapes, unfixed_dims};
pub use fitting::{check_flags_fit_shard, nothing_to_quantize, quantizable};
pub use providers::{
    check_available, AdapterSelection, Offered, ProviderPlan, DML_CONFIG_PREFIX, DML_DISABLE_FUSION, DML_GRAPH_CAPTURE,
};
use providers::{dml_only_flags, ep_options_allowed, find_ep_device, is_true, resolve_options};
pub use request::{
    DeviceFilter, DevicePolicy, EpRequest, ExecutionMode, OptimizationLevel, OrtLogLevel, PerformancePreference,
    PlanRequest, Precision, ReferenceRequest, WeightQuantization,
};

use crate::formats::model::ModelInfo;

/// ONNX Runtime's name for the DirectML execution provider.
pub const DML_PROVIDER: &str = "DmlExecutionProvider";
/// ONNX Runtime's name for the CPU execution provider.
pub const CPU_PROVIDER: &str = "CPUExecutionProvider";

/// The greedy head's logits output and the model's ONNX opset, which the appended node takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GreedyHead {
    pub logits: String,
    pub opset: u32,
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
    #[serde(skip_serializing_if = "Option::is_none", default, with = "crate::fsutil::any_path::option")]
    pub profile_prefix: Option<std::path::PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none", default, with = "crate::fsutil::any_path::option")]
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
    /// An `ArgMax` appended to the session's model over this output's last axis (`generate`'s
    /// greedy token chosen on the device; see `runtime::session`), with the model's ONNX opset.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub greedy_head: Option<GreedyHead>,
    /// `--precision fp16`: the session runs the model converted to float16 (graph::to_float16).
    #[serde(default)]
    pub precision: Precision,
    /// Operator types or node names left in float32 beside the defaults.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub keep_fp32: Vec<String>,
    /// `--block-size`, `--asymmetric` under `--precision int4|int8`.
    #[serde(default)]
    pub quantization: WeightQuantization,
    /// `--decompose`, `--gemm-zero-bias`: the session runs the model rewritten so
    /// (graph::Graph::rewrite), checked against the original on the reference EP.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub rewrites: Vec<crate::graph::Rewrite>,
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
    // A rewrite with nothing to rewrite would say something untrue: the run's error (a model of
    // several had it left out by `fitted_to`).
    if let Some(rewrite) = request.rewrites.iter().find(|r| !fitting::rewritable(model, **r)) {
        bail!("{}: {}", rewrite.flag(), fitting::nothing_to_rewrite(*rewrite, "the model"));
    }
    if let Some(rewrite) = request.decode_rewrites.iter().find(|r| !fitting::rewritable(model, **r)) {
        let rule = rewrite.flag();
        bail!(
            "--decode-rewrite {}: {}",
            rule.trim_start_matches("--"),
            fitting::nothing_to_rewrite(*rewrite, "the model")
        );
    }
    if request.precision == Precision::Fp32 && !request.keep_fp32.is_empty() {
        bail!("--keep-fp32 names what --precision fp16 (or int4, int8) leaves as written; the model runs as written without it");
    }
    if request.precision.weight_bits().is_none() && request.quantization != WeightQuantization::default() {
        bail!("--block-size, --asymmetric and --accuracy-level say how --precision int4 or int8 quantizes the weights; give one of them");
    }
    let (provider_options, session_config) = resolve_options(request, use_dml)?;
    let cpu_only = execution_providers == [ProviderPlan::Cpu];
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
        precision: request.precision,
        keep_fp32: request.keep_fp32.clone(),
        quantization: WeightQuantization {
            accuracy_level: request.quantization.accuracy_level_for(cpu_only),
            ..request.quantization
        },
        rewrites: request.rewrites.clone(),
        greedy_head: None,
    })
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

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
