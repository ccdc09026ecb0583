//! Applying a [`SessionPlan`] to ONNX Runtime: the only place that builds sessions.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use ort::ep::{self, ExecutionProvider};
use ort::session::builder::{GraphOptimizationLevel, SessionBuilder};
use ort::session::Session;

use super::placement::EpNodes;
use super::plan::{
    AdapterSelection, DeviceFilter, DevicePolicy, DimKey, ExecutionMode, OptimizationLevel, PerformancePreference,
    ProviderPlan, SessionPlan,
};
use super::Runtime;

/// The step of building a session that failed. They fail for different reasons: appending
/// DirectML is where ONNX Runtime creates its Direct3D 12 and DirectML devices (no adapter, no
/// driver), loading the model is where DirectML partitions, fuses and compiles the graph (an
/// operator or fusion DirectML rejects for this model).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildStep {
    /// Session options and execution providers.
    Configure,
    /// One option the user passed through (`--session-config K=V`, `--ep-option ...`), named as
    /// typed: ONNX Runtime rejected it.
    PassThrough(String),
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
    let built = configure(runtime, plan, &log_id).and_then(|mut builder| {
        match &plan.greedy_head {
            None => builder.commit_from_file(model),
            Some(head) => with_greedy_head(&mut builder, model, head),
        }
        .map_err(|e| (BuildStep::Load, e))
    });
    let placement = super::placement::take_placement(&log_id);
    built.map(|session| (session, placement))
}

fn configure(runtime: &Runtime, plan: &SessionPlan, log_id: &str) -> Result<SessionBuilder, (BuildStep, ort::Error)> {
    let mut builder = options(runtime, plan, log_id).map_err(|e| (BuildStep::Configure, e))?;
    for (key, value) in &plan.session_config {
        builder = builder
            .with_config_entry(key, value)
            .map_err(|e| (BuildStep::PassThrough(format!("--session-config {key}={}", shortened(value))), e.into()))?;
    }
    for p in &plan.execution_providers {
        match p {
            ProviderPlan::DirectML { adapter } => {
                // ONNX Runtime checks DirectML's option values when the provider is appended
                // (disable_metacommands=maybe), and the device is created there too.
                let step = options_step(plan, "DirectML provider options");
                append_directml(&mut builder, adapter, &plan.provider_options).map_err(|e| (step, e))?;
            }
            ProviderPlan::EpDevice { ep, device, .. } => {
                let device = runtime.environment.devices().nth(*device).filter(|d| d.ep().is_ok_and(|name| name == ep));
                let Some(device) = device else {
                    return Err((
                        BuildStep::Configure,
                        ort::Error::new(format!("ONNX Runtime no longer lists the EP device of {ep}")),
                    ));
                };
                let options: Vec<(String, String)> =
                    plan.provider_options.iter().map(|(k, v)| (format!("{ep}.{k}"), v.clone())).collect();
                let step = options_step(plan, &format!("{ep} options"));
                builder = builder.with_devices([device], Some(&options)).map_err(|e| (step, e.into()))?;
            }
            // ort sets a selection policy on every builder, but ONNX Runtime consults it only
            // when no provider is appended, as here: the choice is ONNX Runtime's.
            ProviderPlan::Policy { policy } => {
                use ort::session::builder::AutoDevicePolicy as P;
                let policy = match policy {
                    DevicePolicy::PreferCpu => P::PreferCPU,
                    DevicePolicy::PreferGpu => P::PreferGPU,
                    DevicePolicy::PreferNpu => P::PreferNPU,
                    DevicePolicy::MaxPerformance => P::MaxPerformance,
                    DevicePolicy::MaxEfficiency => P::MaxEfficiency,
                    DevicePolicy::MinPower => P::MinPower,
                };
                builder = builder.with_auto_device(policy).map_err(|e| (BuildStep::Configure, e.into()))?;
            }
            // Alone, the CPU is appended as an EP device: see `cpu_only`.
            ProviderPlan::Cpu if plan.execution_providers.len() == 1 => {
                builder = cpu_only(runtime, builder).map_err(|e| (BuildStep::Configure, e))?;
            }
            // After another provider, which already keeps any selection policy out.
            // error_on_failure: a request that cannot be met must fail, never quietly run
            // elsewhere.
            ProviderPlan::Cpu => {
                builder = builder
                    .with_execution_providers([ep::CPU::default().build().error_on_failure()])
                    .map_err(|e| (BuildStep::Configure, e.into()))?;
            }
        }
    }
    Ok(builder)
}

/// The step to blame when appending a provider fails: its options, when the user passed any.
fn options_step(plan: &SessionPlan, what: &str) -> BuildStep {
    if plan.provider_options.is_empty() {
        BuildStep::Configure
    } else {
        BuildStep::PassThrough(format!("{what} {}", plan.provider_options_text()))
    }
}

/// A builder that runs on ONNX Runtime's own CPU execution provider and nothing else.
///
/// ort's CPU provider appends nothing (it sets the arena), and ort gives every builder the
/// MaxEfficiency selection policy, which ONNX Runtime applies to any session with no provider
/// appended: with a plugin EP registered it picks that EP's device over the default CPU EP
/// (seen with OpenVINO's CPU device). Appending the CPU EP's own EP device is what keeps the
/// choice ours.
fn cpu_only(runtime: &Runtime, builder: SessionBuilder) -> ort::Result<SessionBuilder> {
    let builder = builder.with_execution_providers([ep::CPU::default().build().error_on_failure()])?;
    let cpu = runtime.environment.devices().find(|d| {
        d.ep().is_ok_and(|name| name == super::plan::CPU_PROVIDER) && d.ep_vendor().is_ok_and(|v| v == "Microsoft")
    });
    match cpu {
        Some(device) => Ok(builder.with_devices([device], None)?),
        // Only an ONNX Runtime without EP devices lacks it, and it has no policy to fear.
        None => Ok(builder),
    }
}

/// A value as an error line quotes it: ONNX Runtime refuses values of thousands of characters.
fn shortened(value: &str) -> String {
    match value.char_indices().nth(40) {
        Some((end, _)) => format!("{}…", &value[..end]),
        None => value.to_string(),
    }
}

/// Appends DirectML through ONNX Runtime's generic `SessionOptionsAppendExecutionProvider("DML",
/// keys, values)`: the one entry point that takes DirectML's provider options
/// (`disable_metacommands`, and whatever `--ep-option` passes) along with the adapter choice.
/// It builds the same factory as `OrtSessionOptionsAppendExecutionProvider_DML(device_id)`.
fn append_directml(
    builder: &mut SessionBuilder,
    adapter: &AdapterSelection,
    extra: &std::collections::BTreeMap<String, String>,
) -> ort::Result<()> {
    use ort::AsPointer;
    use std::ffi::CString;

    let mut options: Vec<(String, String)> = match adapter {
        AdapterSelection::Index { device_id } => vec![("device_id".into(), device_id.to_string())],
        AdapterSelection::Preference { performance_preference, device_filter } => vec![
            (
                "performance_preference".into(),
                match performance_preference {
                    PerformancePreference::Default => "default",
                    PerformancePreference::HighPerformance => "high_performance",
                    PerformancePreference::MinimumPower => "minimum_power",
                }
                .into(),
            ),
            (
                "device_filter".into(),
                match device_filter {
                    DeviceFilter::Gpu => "gpu",
                    DeviceFilter::Npu => "npu",
                    DeviceFilter::Any => "any",
                }
                .into(),
            ),
        ],
    };
    options.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
    let c = |s: &str| CString::new(s).map_err(|_| ort::Error::new(format!("'{s}' holds a NUL byte")));
    let keys = options.iter().map(|(k, _)| c(k)).collect::<ort::Result<Vec<_>>>()?;
    let values = options.iter().map(|(_, v)| c(v)).collect::<ort::Result<Vec<_>>>()?;
    let key_ptrs: Vec<*const std::ffi::c_char> = keys.iter().map(|k| k.as_ptr()).collect();
    let value_ptrs: Vec<*const std::ffi::c_char> = values.iter().map(|v| v.as_ptr()).collect();
    let api = ort::api();
    // SAFETY: the session options pointer is live for the builder's lifetime; the key and value
    // arrays hold `len` NUL-terminated strings that outlive the call (ONNX Runtime copies them).
    unsafe {
        let status = (api.SessionOptionsAppendExecutionProvider)(
            builder.ptr_mut(),
            c"DML".as_ptr(),
            key_ptrs.as_ptr(),
            value_ptrs.as_ptr(),
            key_ptrs.len(),
        );
        super::status_result(status).map_err(ort::Error::new)
    }
}

fn options(runtime: &Runtime, plan: &SessionPlan, log_id: &str) -> ort::Result<SessionBuilder> {
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
    Ok(builder)
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
    use crate::formats::onnx_proto::lossless::{EditAttribute, EditNode};
    use crate::formats::onnx_proto::{
        ContainerTypeProto, GraphProto, ModelProto, OperatorSetIdProto, TensorTypeProto, TypeProto, ValueInfoProto,
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
            node: vec![EditNode {
                output: vec!["empty".into()],
                op_type: Some("SequenceEmpty".into()),
                attribute: vec![EditAttribute {
                    name: Some("dtype".into()),
                    i: Some(dtype.onnx_code() as i64),
                    r#type: Some(2),
                    ..EditAttribute::default()
                }],
                ..EditNode::default()
            }],
            name: Some("dmlrun_empty_sequence".into()),
            output: vec![ValueInfoProto { name: Some("empty".into()), r#type: Some(sequence), doc_string: None }],
            ..GraphProto::default()
        }),
        ..ModelProto::default()
    };
    let mut session =
        cpu_only(runtime, Session::builder(&runtime.environment)?)?.commit_from_memory(&model.encode_to_vec())?;
    let no_inputs: Vec<(String, ort::value::DynValue)> = Vec::new();
    let mut outputs = session.run(no_inputs)?;
    outputs.remove("empty").ok_or_else(|| ort::Error::new("SequenceEmpty produced no output"))
}

/// The output name [`copier`] gives the copy of input `name`.
pub fn copy_of(name: &str) -> String {
    format!("{name}.copy")
}

/// A session of `plan`'s providers and options over a model that copies each of `values`
/// (name, element type, shape) to [`copy_of`] its name with an `Identity` node.
///
/// dmlrun's own copier between host and device memory: bound with a host input and a device
/// output it writes into that device buffer, on this session's queue, and its binding can be
/// synchronized, so the copy is known to be done before another session reads the buffer.
/// (ort's `Tensor::copy_into` runs an identity session it keeps to itself: DirectML's `Run`
/// returns before its GPU work is done, and nothing outside can wait for it.)
pub fn copier(
    runtime: &Runtime,
    plan: &SessionPlan,
    values: &[(String, crate::tensor::DType, Vec<usize>)],
) -> ort::Result<Session> {
    use crate::formats::onnx_proto::lossless::EditNode;
    use crate::formats::onnx_proto::{GraphProto, ModelProto, OperatorSetIdProto, ValueInfoProto};
    use prost::Message;

    let model = ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(14) }],
        graph: Some(GraphProto {
            node: values
                .iter()
                .map(|(name, _, _)| EditNode {
                    input: vec![name.clone()],
                    output: vec![copy_of(name)],
                    op_type: Some("Identity".into()),
                    ..EditNode::default()
                })
                .collect(),
            name: Some("dmlrun_copier".into()),
            input: values
                .iter()
                .map(|(name, dtype, shape)| ValueInfoProto::tensor(name, *dtype, Some(shape)))
                .collect(),
            output: values
                .iter()
                .map(|(name, dtype, shape)| ValueInfoProto::tensor(&copy_of(name), *dtype, Some(shape)))
                .collect(),
            ..GraphProto::default()
        }),
        ..ModelProto::default()
    };
    static COPIERS: AtomicUsize = AtomicUsize::new(0);
    let log_id = format!("dmlrun-copier-{}", COPIERS.fetch_add(1, Ordering::Relaxed));
    let mut builder = configure(runtime, plan, &log_id).map_err(|(_, e)| e)?;
    let session = builder.commit_from_memory(&model.encode_to_vec());
    let _ = super::placement::take_placement(&log_id);
    session
}

/// The output [`with_greedy_head`] adds: the greedy token of each position.
pub const GREEDY_TOKEN: &str = "dmlrun_greedy_token";

/// The session of `model` with an `ArgMax` over the last axis of its `logits` output appended
/// (the first index among equals, as `generate`'s greedy choice on the host), its `[batch,
/// sequence]` int64 result a new output, [`GREEDY_TOKEN`]. Through ONNX Runtime's model editor,
/// so the model file and its external data are read as they are, not rewritten: the token is
/// chosen in the decoder's own session, where the logits are (another session cannot read a
/// DirectML buffer this one allocated).
fn with_greedy_head(
    builder: &mut SessionBuilder,
    model: &Path,
    head: &super::plan::GreedyHead,
) -> ort::Result<Session> {
    use ort::editor::{Graph, Model, Node, Opset, ONNX_DOMAIN};
    use ort::operator::Attribute;
    use ort::value::{Outlet, ValueType};

    let logits = head.logits.as_str();
    let mut session = builder.edit_from_file(model)?;
    let logits_type = session
        .outputs()
        .iter()
        .find(|o| o.name() == logits)
        .map(|o| o.dtype().clone())
        .ok_or_else(|| ort::Error::new(format!("the model has no output '{logits}'")))?;
    let ValueType::Tensor { shape, dimension_symbols, .. } = logits_type else {
        return Err(ort::Error::new(format!("output '{logits}' is not a tensor")));
    };
    let kept = shape.len().saturating_sub(1);
    let token = ValueType::Tensor {
        ty: ort::value::TensorElementType::Int64,
        shape: ort::value::Shape::new(shape.iter().take(kept).copied()),
        dimension_symbols: ort::value::SymbolicDimensions::new(dimension_symbols.iter().take(kept).cloned()),
    };
    let mut outputs: Vec<Outlet> = session.outputs().iter().map(|o| Outlet::new(o.name(), o.dtype().clone())).collect();
    outputs.push(Outlet::new(GREEDY_TOKEN, token));
    let mut graph = Graph::new()?;
    graph.add_node(Node::new(
        "ArgMax",
        ONNX_DOMAIN,
        "dmlrun_greedy_argmax",
        [logits],
        [GREEDY_TOKEN],
        // select_last_index left at its default, 0: the first among equals, in every opset.
        [Attribute::new("axis", -1_i64)?, Attribute::new("keepdims", 0_i64)?],
    )?)?;
    graph.set_outputs(outputs)?;
    let mut addition = Model::new([Opset::new(ONNX_DOMAIN, head.opset)?])?;
    addition.set_graph(graph)?;
    session.apply_model(&addition)?;
    session.into_session()
}
