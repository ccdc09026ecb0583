//! Opening a decoder session: the model as the session runs it (rewritten, quantized), the
//! session (with the greedy head where the token is chosen on the device), and the KV cache.

use std::path::Path;
use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use ort::value::{DynTensor, TensorElementType};

use super::super::open::{open, LoadedModel};
use super::super::preflight::Preflight;
use super::captured::CapturedStep;
use super::decode_session::DecodeSession;
use super::{host_memory, Cache, DecoderOptions, DecoderSession};
use crate::generate::{Decoder, DecoderSpec};
use crate::runtime::plan::{self, SessionPlan};
use crate::runtime::Runtime;

impl DecoderSession {
    /// Opens the session and allocates the KV cache.
    pub fn open(runtime: &Runtime, options: &DecoderOptions) -> Result<DecoderSession> {
        let (spec, preflight) = (options.spec, options.preflight);
        let model_path = preflight.model_path.as_path();
        let mut plan = preflight.plan.clone();
        // Prefill and decode feed different sequence lengths, so the free dimensions stay free
        // (only --dim fixes them); the KV shapes are what the shared buffer keeps static.
        plan.auto_dims = false;
        check_layout(&plan, spec, model_path, options.print_plan)?;
        plan::check_available(&plan, &preflight.request, &runtime.offered())?;
        // A decoder takes no inputs the making could run both models on; generate's --compare-ep
        // compares the tokens of whole generations.
        let why = "a decoder's outputs are compared by generating (--compare-ep compares the tokens)";
        let made =
            super::super::made_for_session(runtime, preflight, &plan, super::super::Check::Not(why), &mut |w| {
                crate::errln!("dmlrun: warning: {w}")
            })?;
        let vocab = fixed_vocab(preflight, spec);
        let (mut model, head_failure) = open_with_head(runtime, made.path(), preflight, plan.clone(), options, vocab)?;
        // Errors name the user's model, not the rewritten copy, which is gone with this call.
        model.model_path = model_path.to_path_buf();
        let (kv_type, logits_type) = io_types(&model, spec)?;
        let mut decode = match preflight.request.decode_rewrites.is_empty() {
            true => None,
            false => Some(DecodeSession::open(runtime, preflight, plan, &model, why)?),
        };
        let (cache, kv_bytes) = match spec.past_present_share_buffer {
            true => shared_cache(runtime, &model, decode.as_mut(), options, kv_type, head_failure)?,
            false => (Cache::Growing { past: Vec::new() }, 0),
        };
        let full_length_decode_mask = model.plan.uses_directml() && spec.past_present_share_buffer;
        let mut session = DecoderSession {
            model,
            spec: spec.clone(),
            kv_type,
            logits_type,
            cache,
            past: 0,
            logits: Vec::new(),
            rewrite: made.rewrite(),
            made,
            kv_bytes,
            full_length_decode_mask,
            vocab,
            chosen: None,
            all_positions: false,
            decode,
        };
        session.reset()?;
        Ok(session)
    }
}

/// What the KV layout asks of the plan and the model, refused before the session is made.
fn check_layout(plan: &SessionPlan, spec: &DecoderSpec, model_path: &Path, print_plan: bool) -> Result<()> {
    if plan.graph_capture() && !spec.past_present_share_buffer {
        bail!("--dml-graph-capture: the decode step is captured over the shared KV buffer; use --kv-layout shared");
    }
    if print_plan {
        crate::errln!("session plan:\n{plan}");
    }
    if plan.uses_directml() && !spec.past_present_share_buffer && has_group_query_attention(model_path)? {
        bail!(
            "model {}: --kv-layout growing cannot run on DirectML: its GroupQueryAttention reads the past from the present buffer (never from the past inputs), so the KV cache must be one buffer bound as both; use --kv-layout shared",
            model_path.display()
        );
    }
    Ok(())
}

/// The vocabulary's size where the logits output fixes it (0 where not). The logits' buffer of
/// the replayed step is sized by it: with the greedy head no logits come back to say it.
fn fixed_vocab(preflight: &Preflight, spec: &DecoderSpec) -> usize {
    let logits = preflight.info().outputs.iter().find(|o| o.name == spec.logits);
    logits.and_then(|o| o.dims.last()?.value).filter(|&v| v > 0).map_or(0, |v| v as usize)
}

/// The session, with the greedy head (the token chosen in the session, see the module's text)
/// where the token is chosen on the device over a captured step; where the head cannot be
/// added, the session as it is, the host choosing, and why.
fn open_with_head(
    runtime: &Runtime,
    session_path: &Path,
    preflight: &Preflight,
    plan: SessionPlan,
    options: &DecoderOptions,
    vocab: usize,
) -> Result<(LoadedModel, Option<String>)> {
    let open_plan = |plan| open(runtime, session_path, preflight.info().clone(), Duration::ZERO, plan);
    if !options.choice.is_some_and(|choice| crate::generate::TokenChoice::wanted(choice, plan.graph_capture())) {
        return Ok((open_plan(plan)?, None));
    }
    let logits = &options.spec.logits;
    let opset = preflight.info().opsets.iter().find(|o| matches!(o.domain.as_str(), "" | "ai.onnx"));
    let why = match opset {
        None => "the model imports no default ONNX opset for the ArgMax to join".to_string(),
        Some(_) if vocab == 0 => format!("the vocabulary dimension of output '{logits}' is not fixed"),
        Some(opset) => {
            let head = plan::GreedyHead { logits: logits.clone(), opset: opset.version as u32 };
            match open_plan(SessionPlan { greedy_head: Some(head), ..plan.clone() }) {
                Ok(model) => return Ok((model, None)),
                Err(e) => {
                    let why = crate::exit::one_line(&e);
                    crate::errln!("dmlrun: warning: the greedy token is chosen on the host: {why}");
                    why
                }
            }
        }
    };
    Ok((open_plan(plan)?, Some(why)))
}

/// The KV cache's element type (float32 or float16, else refused) and the logits'.
fn io_types(model: &LoadedModel, spec: &DecoderSpec) -> Result<(TensorElementType, TensorElementType)> {
    let model_path = &model.model_path;
    let first_past = DecoderSpec::layer_name(&spec.past_key, 0);
    let inputs = model.session.inputs();
    let kv_type = inputs
        .iter()
        .find(|i| i.name() == first_past)
        .and_then(|i| i.dtype().tensor_type())
        .ok_or_else(|| anyhow!("model {}: input '{first_past}' is not a tensor", model_path.display()))?;
    if !matches!(kv_type, TensorElementType::Float32 | TensorElementType::Float16) {
        bail!(
            "model {}: KV input '{first_past}' is {kv_type:?}; dmlrun generate takes float32 or float16 caches",
            model_path.display()
        );
    }
    let logits_type = model
        .session
        .outputs()
        .iter()
        .find(|o| o.name() == spec.logits)
        .and_then(|o| o.dtype().tensor_type())
        .ok_or_else(|| anyhow!("model {}: output '{}' is not a tensor", model_path.display(), spec.logits))?;
    Ok((kv_type, logits_type))
}

/// The shared KV buffers (`[1, kv_heads, kv_length, head_size]` a layer and kind), bound as both
/// past and present; in DirectML's memory on DirectML or with --io-on-device, else zeroed host
/// memory. With graph capture, the captured decode step's fixed buffers beside them. Its bytes.
fn shared_cache(
    runtime: &Runtime,
    model: &LoadedModel,
    mut decode: Option<&mut DecodeSession>,
    options: &DecoderOptions,
    kv_type: TensorElementType,
    head_failure: Option<String>,
) -> Result<(Cache, u64)> {
    let spec = options.spec;
    let plan = &model.plan;
    let on_device = plan.io_on_device || plan.uses_directml();
    let element_bytes = if kv_type == TensorElementType::Float16 { 2 } else { 4 };
    let shape = [1, spec.kv_heads, options.kv_length, spec.head_size];
    let mut binding = model.session.create_binding().map_err(|e| anyhow!("IoBinding: {e}"))?;
    let device_id = plan.device_id().unwrap_or(0) as i32;
    // A session's buffers come from its own allocator: the decode step's session has its own
    // (see decode_session.rs for why they are not shared).
    let allocate = |session: &ort::session::Session| -> Result<DynTensor> {
        let mut buffer = match on_device {
            true => {
                let allocator =
                    ort::memory::Allocator::new(session, super::super::device_io::device_memory(device_id)?)
                        .map_err(|e| anyhow!("--io-on-device: DirectML's allocator: {e}"))?;
                DynTensor::new(&allocator, kv_type, shape)
            }
            false => DynTensor::new(session.allocator(), kv_type, shape),
        }
        .map_err(|e| anyhow!("allocating a KV buffer {shape:?}: {e}"))?;
        if !on_device {
            zero(&mut buffer, element_bytes);
        }
        Ok(buffer)
    };
    let mut buffers = Vec::new();
    for (past, present) in spec.kv_pairs() {
        let mut buffer = allocate(&model.session)?;
        binding.bind_input(past.as_str(), &buffer).map_err(|e| anyhow!("binding '{past}': {e}"))?;
        binding.bind_output(present.as_str(), &mut buffer).map_err(|e| anyhow!("binding '{present}': {e}"))?;
        buffers.push(buffer);
    }
    let mut bytes = (buffers.len() * shape.iter().product::<usize>() * element_bytes) as u64;
    if let Some(decode) = decode.as_deref_mut() {
        decode.bind_buffers(runtime, &spec.kv_pairs(), kv_type, &allocate, &buffers)?;
        bytes *= 2;
    }
    // The session that replays the captured step: the decode step's own where it has one.
    let stepping = decode.map_or(model, |step| &step.model);
    let captured = match plan.graph_capture() {
        true => {
            let mut captured = CapturedStep::new(runtime, stepping, spec, options.kv_length, options)?;
            captured.prepare_choice(stepping)?;
            captured.head_failure = head_failure;
            Some(Box::new(captured))
        }
        false => None,
    };
    let cache = Cache::Shared {
        binding: Box::new(binding),
        capacity: options.kv_length,
        _buffers: buffers,
        on_device,
        captured,
        logits_to: host_memory()?,
    };
    Ok((cache, bytes))
}

/// Whether the model's graph has a com.microsoft GroupQueryAttention node.
fn has_group_query_attention(model: &Path) -> Result<bool> {
    let graph = crate::graph::Graph::read(model)?;
    Ok(graph.nodes().iter().any(|n| n.op_type == "GroupQueryAttention" && n.domain == "com.microsoft"))
}

/// Zeroes a host tensor: a fresh allocation holds whatever was there, and a KV position the mask
/// excludes is still multiplied by zero in some kernels, where NaN garbage would not vanish.
fn zero(tensor: &mut DynTensor, element_bytes: usize) {
    let elements: usize = tensor.shape().iter().map(|&d| d.max(0) as usize).product();
    let ptr = tensor.data_ptr_mut().cast::<u8>();
    // SAFETY: the tensor was just allocated by ONNX Runtime's CPU allocator with `elements`
    // elements of `element_bytes` each, and nothing else holds it yet.
    unsafe { std::ptr::write_bytes(ptr, 0, elements * element_bytes) };
}
