//! Applying a [`SessionPlan`] to ONNX Runtime: the only place that builds sessions.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use ort::ep::{self, ExecutionProvider};
use ort::session::builder::{GraphOptimizationLevel, SessionBuilder};
use ort::session::Session;

use super::placement::EpNodes;
use super::plan::{
    AdapterSelection, DeviceFilter, DimKey, ExecutionMode, OptimizationLevel, PerformancePreference, ProviderPlan,
    SessionPlan,
};
use super::Runtime;

/// The step of building a session that failed. They fail for different reasons: appending
/// DirectML is where ONNX Runtime creates its Direct3D 12 and DirectML devices (no adapter, no
/// driver), loading the model is where DirectML partitions, fuses and compiles the graph (an
/// operator or fusion DirectML rejects for this model).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildStep {
    /// Session options and execution providers.
    Configure,
    /// Loading the model into the configured providers.
    Load,
}

/// Creates a session for `model` exactly as `plan` says, and returns it with the execution
/// provider ONNX Runtime gave each node.
///
/// Returns `ort::Error` rather than `anyhow` because the builder's errors carry the builder for
/// recovery and do not convert with `?`; callers add the context (model path, adapter).
pub fn build(
    runtime: &Runtime,
    plan: &SessionPlan,
    model: &Path,
) -> Result<(Session, Vec<EpNodes>), (BuildStep, ort::Error)> {
    static SESSIONS: AtomicUsize = AtomicUsize::new(0);
    let log_id = format!("dmlrun-session-{}", SESSIONS.fetch_add(1, Ordering::Relaxed));
    let built = configure(runtime, plan, &log_id)
        .map_err(|e| (BuildStep::Configure, e))
        .and_then(|mut builder| builder.commit_from_file(model).map_err(|e| (BuildStep::Load, e)));
    let placement = super::take_placement(&log_id);
    built.map(|session| (session, placement))
}

fn configure(runtime: &Runtime, plan: &SessionPlan, log_id: &str) -> ort::Result<SessionBuilder> {
    // Verbose, whatever --ort-log-level says: ONNX Runtime logs the node placement only at that
    // level. The environment's logger still prints only what --ort-log-level asks for.
    let mut builder = Session::builder(&runtime.environment)?
        .with_log_id(log_id)?
        .with_log_level(ort::logging::LogLevel::Verbose)?
        .with_optimization_level(match plan.optimization_level {
            OptimizationLevel::Disable => GraphOptimizationLevel::Disable,
            OptimizationLevel::Basic => GraphOptimizationLevel::Level1,
            OptimizationLevel::Extended => GraphOptimizationLevel::Level2,
            OptimizationLevel::All => GraphOptimizationLevel::All,
        })?
        .with_parallel_execution(plan.execution_mode == ExecutionMode::Parallel)?
        .with_memory_pattern(plan.memory_pattern)?;
    if let Some(prefix) = &plan.profile_prefix {
        builder = builder.with_profiling(prefix)?;
    }
    if let Some(path) = &plan.optimized_model_path {
        builder = builder.with_optimized_model_path(path)?;
    }
    if let Some(n) = plan.intra_op_threads {
        builder = builder.with_intra_threads(n)?;
    }
    if let Some(n) = plan.inter_op_threads {
        builder = builder.with_inter_threads(n)?;
    }
    for o in &plan.dimension_overrides {
        builder = match o.by {
            DimKey::Name => builder.with_dimension_override(&o.key, o.value)?,
            DimKey::Denotation => builder.with_dimension_override_by_denotation(&o.key, o.value)?,
        };
    }
    let providers: Vec<ep::ExecutionProviderDispatch> = plan
        .execution_providers
        .iter()
        .map(|p| match p {
            // error_on_failure: a DirectML request that cannot be met must fail, never quietly
            // run on the CPU.
            ProviderPlan::DirectML { adapter } => directml(adapter).build().error_on_failure(),
            ProviderPlan::Cpu => ep::CPU::default().build().error_on_failure(),
        })
        .collect();
    builder.with_execution_providers(providers).map_err(Into::into)
}

fn directml(adapter: &AdapterSelection) -> ep::DirectML {
    match adapter {
        AdapterSelection::Index { device_id } => ep::DirectML::default().with_device_id(*device_id as i32),
        AdapterSelection::Preference { performance_preference, device_filter } => ep::DirectML::default()
            .with_performance_preference(match performance_preference {
                PerformancePreference::Default => ep::directml::PerformancePreference::Default,
                PerformancePreference::HighPerformance => ep::directml::PerformancePreference::HighPerformance,
                PerformancePreference::MinimumPower => ep::directml::PerformancePreference::MinimumPower,
            })
            .with_device_filter(match device_filter {
                DeviceFilter::Gpu => ep::directml::DeviceFilter::Gpu,
                DeviceFilter::Npu => ep::directml::DeviceFilter::Npu,
                DeviceFilter::Any => ep::directml::DeviceFilter::Any,
            }),
    }
}

/// Whether the loaded ONNX Runtime exposes the DirectML API (used by `doctor`).
pub fn directml_api_present() -> bool {
    ep::DirectML::is_available().unwrap_or(false)
}

/// An empty tensor sequence of `dtype`, made by ONNX Runtime itself.
///
/// ONNX Runtime's C API cannot create a sequence with no elements (`CreateValue` wants at least
/// one), yet models take them as inputs. A one-node `SequenceEmpty` model run on the CPU
/// produces a genuine one.
pub fn empty_sequence(runtime: &Runtime, dtype: crate::tensor::DType) -> ort::Result<ort::value::DynValue> {
    use crate::formats::onnx_proto::{
        AttributeProto, ContainerTypeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorTypeProto,
        TypeProto, ValueInfoProto,
    };
    use prost::Message;

    let tensor = TypeProto {
        tensor_type: Some(TensorTypeProto { elem_type: Some(dtype.onnx_code()), shape: None }),
        ..TypeProto::default()
    };
    let sequence = TypeProto {
        sequence_type: Some(Box::new(ContainerTypeProto { elem_type: Some(Box::new(tensor)) })),
        ..TypeProto::default()
    };
    let model = ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(11) }],
        graph: Some(GraphProto {
            node: vec![NodeProto {
                output: vec!["empty".into()],
                op_type: Some("SequenceEmpty".into()),
                attribute: vec![AttributeProto {
                    name: Some("dtype".into()),
                    i: Some(dtype.onnx_code() as i64),
                    r#type: Some(2),
                }],
                ..NodeProto::default()
            }],
            name: Some("dmlrun_empty_sequence".into()),
            output: vec![ValueInfoProto { name: Some("empty".into()), r#type: Some(sequence), doc_string: None }],
            ..GraphProto::default()
        }),
        ..ModelProto::default()
    };
    let mut session = Session::builder(&runtime.environment)?
        .with_execution_providers([ep::CPU::default().build()])?
        .commit_from_memory(&model.encode_to_vec())?;
    let no_inputs: Vec<(String, ort::value::DynValue)> = Vec::new();
    let mut outputs = session.run(no_inputs)?;
    outputs.remove("empty").ok_or_else(|| ort::Error::new("SequenceEmpty produced no output"))
}
