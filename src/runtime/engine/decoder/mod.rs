//! A decoder LLM's session with its KV cache, stepped by `generate`'s loop.
//!
//! Two layouts, as onnxruntime-genai has them:
//! - **shared buffer** (`past_present_share_buffer`): one tensor of `[1, kv_heads, max_length,
//!   head_size]` per layer and kind, bound through IoBinding as both the past input and the
//!   present output, so every step has the same KV shapes (what DirectML needs to compile once)
//!   and nothing is copied between steps. On DirectML the buffers live in its memory; on other
//!   EPs in host memory unless `--io-on-device` asks otherwise.
//! - **growing**: the present outputs of one step are the past inputs of the next, one position
//!   longer each time.
//!
//! DirectML's GroupQueryAttention never reads its past inputs: it writes the new keys and values
//! into the present buffer after the positions already there and attends over that buffer, so
//! the present must be the very memory the past was (onnxruntime-genai binds one buffer to both).
//! Host memory does not give that: ONNX Runtime copies a host input to the device and the device
//! output back separately, and each step would start from a present holding only its own
//! positions. So on DirectML the shared buffer is always in DirectML's memory, and the growing
//! layout is refused for a model with GroupQueryAttention.
//!
//! On DirectML every decode step also feeds the attention mask at the buffer's full length (ones
//! for the positions so far, zeros after), as onnxruntime-genai does for DirectML: the mask's
//! length is the total sequence length GroupQueryAttention takes as a constant, so a mask one
//! position longer each step would have DirectML compile the attention again for every token.
//! The positions already there come from the mask's sum, not its length.
//!
//! With graph capture (DirectML's default; `captured`) the decode step is captured once and
//! replayed; `generating` opens the session as the commands that generate do.

mod captured;
mod generating;

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use ort::session::Session;
use ort::value::{DynTensor, DynValue, TensorElementType};

use super::open::{open, LoadedModel};
use super::preflight::Preflight;
use crate::generate::{Decoder, DecoderSpec, StepTiming};
use crate::runtime::plan::{self, SessionPlan};
use crate::runtime::Runtime;

use captured::CapturedStep;
pub use generating::{open_generating, Generating};

/// The session, its KV cache and the last logits.
pub struct DecoderSession {
    pub model: LoadedModel,
    spec: DecoderSpec,
    kv_type: TensorElementType,
    logits_type: TensorElementType,
    cache: Cache,
    /// Positions already in the cache.
    past: usize,
    logits: Vec<f32>,
    /// Bytes of the KV cache as allocated (shared buffer) or at its largest (growing).
    pub kv_bytes: u64,
    /// Decode steps feed the mask at the shared buffer's length (DirectML; see the module's text).
    full_length_decode_mask: bool,
    /// `--decompose`, `--gemm-zero-bias`: what the session's model had rewritten.
    pub rewrite: Option<super::rewrite::RewriteReport>,
    /// `--precision int4|int8`: the session's model with its weights quantized (its temporary
    /// files kept as long as the session, for `--save-model`).
    pub quantized: Option<super::precision::QuantizedModel>,
    /// The vocabulary's size: the logits output's fixed last dimension, else what the prefill's
    /// logits said.
    vocab: usize,
    /// The token the device chose at the last step (greedy on the device); the logits are then
    /// left empty, never read back.
    chosen: Option<i64>,
    /// Keep every position's logits, not only the last's (perplexity's forward passes).
    all_positions: bool,
}

enum Cache {
    Shared {
        binding: Box<ort::session::IoBinding>,
        capacity: usize,
        _buffers: Vec<DynTensor>,
        on_device: bool,
        /// The decode step's fixed buffers under graph capture.
        captured: Option<Box<CapturedStep>>,
        /// Host memory: the logits are bound there again each step, since their shape changes
        /// between prefill and decode and a bound output keeps the shape of its first run.
        logits_to: ort::memory::MemoryInfo<'static>,
    },
    Growing {
        past: Vec<(String, DynValue)>,
    },
}

/// Host memory, where outputs bound to it are copied by the run.
fn host_memory() -> Result<ort::memory::MemoryInfo<'static>> {
    ort::memory::MemoryInfo::new(
        ort::memory::AllocationDevice::CPU,
        0,
        ort::memory::AllocatorType::Device,
        ort::memory::MemoryType::Default,
    )
    .map_err(|e| anyhow!("memory info: {e}"))
}

/// How the decoder session is set up.
pub struct DecoderOptions<'a> {
    /// The decoder model's preflight.
    pub preflight: &'a Preflight,
    pub spec: &'a DecoderSpec,
    pub print_plan: bool,
    /// The shared KV buffer's length in positions (ignored for a growing cache).
    pub kv_length: usize,
    /// The captured decode step's greedy token chosen on the device (see the module's text).
    pub greedy_on_device: bool,
    /// The capture is the default, not asked for: a failed replay runs the step uncaptured.
    pub capture_falls_back: bool,
}

impl DecoderSession {
    /// Opens the session and allocates the KV cache.
    pub fn open(runtime: &Runtime, options: &DecoderOptions) -> Result<DecoderSession> {
        let (spec, preflight) = (options.spec, options.preflight);
        let model_path = preflight.model_path.as_path();
        let mut plan = preflight.plan.clone();
        // Prefill and decode feed different sequence lengths, so the free dimensions stay free
        // (only --dim fixes them); the KV shapes are what the shared buffer keeps static.
        plan.auto_dims = false;
        if plan.graph_capture() && !spec.past_present_share_buffer {
            bail!("--dml-graph-capture: the decode step is captured over the shared KV buffer; use --kv-layout shared");
        }
        if options.print_plan {
            crate::errln!("session plan:\n{plan}");
        }
        plan::check_available(&plan, &preflight.request, &runtime.offered())?;
        let on_device = plan.io_on_device || (plan.uses_directml() && spec.past_present_share_buffer);
        if plan.uses_directml() && !spec.past_present_share_buffer && has_group_query_attention(model_path)? {
            bail!(
                "model {}: --kv-layout growing cannot run on DirectML: its GroupQueryAttention reads the past from the present buffer (never from the past inputs), so the KV cache must be one buffer bound as both; use --kv-layout shared",
                model_path.display()
            );
        }
        let device_id = plan.device_id().unwrap_or(0) as i32;
        // --decompose: the session's model rewritten. A decoder takes no inputs this step could
        // run both models on; generate's --compare-ep compares the tokens of whole generations.
        let rewritten = match plan.rewrites.is_empty() {
            true => None,
            false => Some(super::rewrite::rewrite(runtime, model_path, preflight.info(), &plan.rewrites, None)?),
        };
        let session_path = rewritten.as_ref().map_or(model_path, |r| r.path.as_path());
        // --precision int4|int8: the weights quantized after the rewrites, as run's are.
        let quantized = match plan.precision.weight_bits() {
            Some(_) => Some(super::precision::quantize_for(session_path, &plan)?),
            None => None,
        };
        let session_path = quantized.as_ref().map_or(session_path, |q| q.path.as_path());
        // Greedy over a captured step: the token chosen in the session (see the module's text);
        // where the head cannot be added, the session as it is, the host choosing.
        let mut head_failure = None;
        let opset = preflight.info().opsets.iter().find(|o| matches!(o.domain.as_str(), "" | "ai.onnx"));
        // The logits' buffer of the replayed step is sized by the vocabulary: with the head, no
        // logits come back to say it, so it must be a fixed dimension of the model's output.
        let vocab = preflight
            .info()
            .outputs
            .iter()
            .find(|o| o.name == spec.logits)
            .and_then(|o| o.dims.last()?.value)
            .filter(|&v| v > 0)
            .map_or(0, |v| v as usize);
        let mut model = match opset {
            Some(_) if options.greedy_on_device && plan.graph_capture() && vocab == 0 => {
                head_failure = Some(format!("the vocabulary dimension of output '{}' is not fixed", spec.logits));
                open(runtime, session_path, preflight.info().clone(), Duration::ZERO, plan)?
            }
            Some(opset) if options.greedy_on_device && plan.graph_capture() => {
                let head = plan::GreedyHead { logits: spec.logits.clone(), opset: opset.version as u32 };
                let headed = SessionPlan { greedy_head: Some(head), ..plan.clone() };
                match open(runtime, session_path, preflight.info().clone(), Duration::ZERO, headed) {
                    Ok(model) => model,
                    Err(e) => {
                        let why = crate::exit::one_line(&e);
                        crate::errln!("dmlrun: warning: the greedy token is chosen on the host: {why}");
                        head_failure = Some(why);
                        open(runtime, session_path, preflight.info().clone(), Duration::ZERO, plan)?
                    }
                }
            }
            None if options.greedy_on_device && plan.graph_capture() => {
                head_failure = Some("the model imports no default ONNX opset for the ArgMax to join".into());
                open(runtime, session_path, preflight.info().clone(), Duration::ZERO, plan)?
            }
            _ => open(runtime, session_path, preflight.info().clone(), Duration::ZERO, plan)?,
        };
        // Errors name the user's model, not the rewritten copy, which is gone with this call.
        model.model_path = model_path.to_path_buf();
        let rewrite = rewritten.map(|r| super::rewrite::RewriteReport {
            not_compared: Some(
                "a decoder's outputs are compared by generating (--compare-ep compares the tokens)".into(),
            ),
            ..r.report
        });
        let first_past = DecoderSpec::layer_name(&spec.past_key, 0);
        let kv_type = model
            .session
            .inputs()
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
        let element_bytes = if kv_type == TensorElementType::Float16 { 2 } else { 4 };
        let (cache, kv_bytes) = if spec.past_present_share_buffer {
            let shape = [1, spec.kv_heads, options.kv_length, spec.head_size];
            let mut binding = model.session.create_binding().map_err(|e| anyhow!("IoBinding: {e}"))?;
            let device_allocator;
            let allocator = if on_device {
                device_allocator =
                    ort::memory::Allocator::new(&model.session, super::device_io::device_memory(device_id)?)
                        .map_err(|e| anyhow!("--io-on-device: DirectML's allocator: {e}"))?;
                &device_allocator
            } else {
                model.session.allocator()
            };
            let mut buffers = Vec::new();
            for (past, present) in spec.kv_pairs() {
                let mut buffer = DynTensor::new(allocator, kv_type, shape)
                    .map_err(|e| anyhow!("allocating the KV buffer '{past}' {shape:?}: {e}"))?;
                if !on_device {
                    zero(&mut buffer, element_bytes);
                }
                binding.bind_input(past.as_str(), &buffer).map_err(|e| anyhow!("binding '{past}': {e}"))?;
                binding.bind_output(present.as_str(), &mut buffer).map_err(|e| anyhow!("binding '{present}': {e}"))?;
                buffers.push(buffer);
            }
            let cpu = host_memory()?;
            let bytes = (buffers.len() * shape.iter().product::<usize>() * element_bytes) as u64;
            let captured = if model.plan.graph_capture() {
                let mut captured = CapturedStep::new(runtime, &model, spec, options.kv_length, options)?;
                captured.prepare_choice(&model)?;
                captured.head_failure = head_failure;
                Some(Box::new(captured))
            } else {
                None
            };
            (
                Cache::Shared {
                    binding: Box::new(binding),
                    capacity: options.kv_length,
                    _buffers: buffers,
                    on_device,
                    captured,
                    logits_to: cpu,
                },
                bytes,
            )
        } else {
            (Cache::Growing { past: Vec::new() }, 0)
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
            rewrite,
            quantized,
            kv_bytes,
            full_length_decode_mask,
            vocab,
            chosen: None,
            all_positions: false,
        };
        session.reset()?;
        Ok(session)
    }

    /// Whether the decode step is captured once and replayed (`--dml-graph-capture`, or the
    /// default), and no replay has failed.
    pub fn decode_step_captured(&self) -> bool {
        matches!(&self.cache, Cache::Shared { captured: Some(c), .. } if c.replay_failure.is_none())
    }

    /// The failed replay after which the default's capture ran uncaptured.
    pub fn replay_failure(&self) -> Option<&str> {
        match &self.cache {
            Cache::Shared { captured: Some(c), .. } => c.replay_failure.as_deref(),
            _ => None,
        }
    }

    /// Whether the replayed steps' greedy tokens were chosen on the device: `Err` says why not
    /// where it was asked for and the greedy head could not be added.
    pub fn greedy_on_device(&self) -> std::result::Result<bool, String> {
        match &self.cache {
            Cache::Shared { captured: Some(c), .. } => match (&c.head_failure, &c.token) {
                (Some(why), _) => Err(why.clone()),
                (None, token) => Ok(token.is_some() && c.replay_failure.is_none()),
            },
            _ => Ok(false),
        }
    }

    /// Whether the KV cache lives in DirectML's memory.
    pub fn kv_on_device(&self) -> bool {
        matches!(self.cache, Cache::Shared { on_device: true, .. })
    }

    fn empty_past(&self) -> Result<Vec<(String, DynValue)>> {
        let shape = [1usize, self.spec.kv_heads, 0, self.spec.head_size];
        self.spec
            .kv_pairs()
            .into_iter()
            .map(|(past, _)| {
                let value: DynValue = match self.kv_type {
                    TensorElementType::Float16 => {
                        ort::value::Tensor::<half::f16>::from_array((shape, Vec::<half::f16>::new()))?.into_dyn()
                    }
                    _ => ort::value::Tensor::<f32>::from_array((shape, Vec::<f32>::new()))?.into_dyn(),
                };
                Ok((past, value))
            })
            .collect::<ort::Result<_>>()
            .map_err(|e| anyhow!("an empty KV cache: {e}"))
    }

    /// The step's host inputs: token ids, the mask over every position so far, the positions.
    fn step_inputs(&self, tokens: &[i64]) -> Result<Vec<(String, DynValue)>> {
        let n = tokens.len();
        let total = self.past + n;
        let tensor = |shape: [usize; 2], data: Vec<i64>| -> Result<DynValue> {
            Ok(ort::value::Tensor::<i64>::from_array((shape, data)).map_err(|e| anyhow!("{e}"))?.into_dyn())
        };
        let mut inputs = vec![(self.spec.input_ids.clone(), tensor([1, n], tokens.to_vec())?)];
        if let Some(mask) = &self.spec.attention_mask {
            let length = match &self.cache {
                Cache::Shared { capacity, .. } if self.full_length_decode_mask && self.past > 0 => *capacity,
                _ => total,
            };
            let mut ones = vec![0; length];
            ones[..total].fill(1);
            inputs.push((mask.clone(), tensor([1, length], ones)?));
        }
        if let Some(positions) = &self.spec.position_ids {
            inputs.push((positions.clone(), tensor([1, n], (self.past as i64..total as i64).collect())?));
        }
        Ok(inputs)
    }
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

/// The last position's logits of a `[.., vocab]` output (every position's, with `all`), as f32;
/// returns the vocabulary's size.
fn read_logits(value: &DynValue, out: &mut Vec<f32>, all: bool) -> Result<usize> {
    let ty = value.dtype().tensor_type();
    out.clear();
    let kept = |len: usize, vocab: usize| if all { 0 } else { len.saturating_sub(vocab) };
    match ty {
        Some(TensorElementType::Float32) => {
            let (shape, data) = value.try_extract_tensor::<f32>().map_err(|e| anyhow!("logits: {e}"))?;
            let vocab = *shape.last().unwrap_or(&0) as usize;
            out.extend_from_slice(&data[kept(data.len(), vocab)..]);
            Ok(vocab)
        }
        Some(TensorElementType::Float16) => {
            let (shape, data) = value.try_extract_tensor::<half::f16>().map_err(|e| anyhow!("logits: {e}"))?;
            let vocab = *shape.last().unwrap_or(&0) as usize;
            out.extend(data[kept(data.len(), vocab)..].iter().map(|v| v.to_f32()));
            Ok(vocab)
        }
        other => bail!("logits are {other:?}; dmlrun generate reads float32 or float16 logits"),
    }
}

impl Decoder for DecoderSession {
    fn reset(&mut self) -> Result<()> {
        self.past = 0;
        if let Cache::Growing { .. } = self.cache {
            let past = self.empty_past()?;
            self.cache = Cache::Growing { past };
        }
        Ok(())
    }

    fn step(&mut self, tokens: &[i64]) -> Result<StepTiming> {
        let started = Instant::now();
        if let Cache::Shared { capacity, .. } = &self.cache {
            if self.past + tokens.len() > *capacity {
                bail!("the KV buffer of {capacity} positions is full");
            }
        }
        let inputs = self.step_inputs(tokens)?;
        let logits_name = self.spec.logits.clone();
        self.chosen = None;
        let timing = match &mut self.cache {
            Cache::Shared { binding, captured: Some(captured), .. }
                if self.past > 0 && tokens.len() == 1 && captured.replay_failure.is_none() =>
            {
                captured.load(binding, &inputs, &logits_name, self.vocab, self.logits_type)?;
                let bound = started.elapsed();
                let run_started = Instant::now();
                let replayed =
                    run_session(&mut self.model.session, |s| s.run_binding_with_options(binding, &captured.replayed))
                        // A replay only submits the recorded work; the logits are read by another
                        // queue, so wait for this one first.
                        .and_then(|_| {
                            binding.synchronize_outputs().map_err(|e| anyhow!("waiting for the replayed step: {e}"))
                        });
                match replayed {
                    Err(e) if captured.may_fall_back => {
                        captured.replay_failure = Some(crate::exit::one_line(&e));
                        None
                    }
                    Err(e) => return Err(e),
                    Ok(()) => {
                        let compute = run_started.elapsed();
                        let read_started = Instant::now();
                        match captured.read_token()? {
                            Some(token) => {
                                self.chosen = Some(token);
                                self.logits.clear();
                            }
                            None => {
                                read_logits(&captured.read_logits()?, &mut self.logits, false)?;
                            }
                        }
                        Some(StepTiming { inputs: bound, compute, outputs: read_started.elapsed() })
                    }
                }
            }
            Cache::Shared { binding, logits_to, captured, .. } => {
                let host = logits_to.clone();
                for (name, value) in &inputs {
                    binding.bind_input(name.as_str(), value).map_err(|e| anyhow!("binding '{name}': {e}"))?;
                }
                // With the greedy head the token comes to the host and the logits stay on the
                // device (a 1024-token prefill's are 300 MB in float16); without it, the logits.
                let head = captured.as_ref().filter(|c| c.token.is_some());
                let logits_to = head.map_or(&*logits_to, |c| &c.device_memory);
                binding
                    .bind_output_to_device(logits_name.as_str(), logits_to)
                    .map_err(|e| anyhow!("binding '{logits_name}': {e}"))?;
                if head.is_some() {
                    let name = crate::runtime::session::GREEDY_TOKEN;
                    binding.bind_output_to_device(name, &host).map_err(|e| anyhow!("binding '{name}': {e}"))?;
                }
                let bound = started.elapsed();
                let run_started = Instant::now();
                let outputs = match captured {
                    Some(captured) => run_session(&mut self.model.session, |s| {
                        s.run_binding_with_options(binding, &captured.uncaptured)
                    })?,
                    None => run_session(&mut self.model.session, |s| s.run_binding(binding))?,
                };
                let compute = run_started.elapsed();
                let read_started = Instant::now();
                match outputs.get(crate::runtime::session::GREEDY_TOKEN) {
                    Some(token) => {
                        let (_, ids) =
                            token.try_extract_tensor::<i64>().map_err(|e| anyhow!("the greedy token: {e}"))?;
                        self.chosen = Some(*ids.last().context("the greedy head gave no token")?);
                        self.logits.clear();
                    }
                    None => {
                        let logits = outputs.get(logits_name.as_str()).context("the run gave no logits")?;
                        self.vocab = read_logits(logits, &mut self.logits, self.all_positions)?;
                    }
                }
                Some(StepTiming { inputs: bound, compute, outputs: read_started.elapsed() })
            }
            Cache::Growing { past } => {
                let mut feed: Vec<(String, DynValue)> = inputs;
                feed.append(past);
                let bound = started.elapsed();
                let run_started = Instant::now();
                let feed_refs: Vec<(&str, &DynValue)> = feed.iter().map(|(n, v)| (n.as_str(), v)).collect();
                let mut outputs = run_session(&mut self.model.session, |s| s.run(feed_refs))?;
                let compute = run_started.elapsed();
                let read_started = Instant::now();
                let logits = outputs.get(logits_name.as_str()).context("the run gave no logits")?;
                self.vocab = read_logits(logits, &mut self.logits, self.all_positions)?;
                let mut next = Vec::new();
                let mut bytes = 0u64;
                for (past_name, present_name) in self.spec.kv_pairs() {
                    let present = outputs
                        .remove(present_name.as_str())
                        .with_context(|| format!("the run gave no '{present_name}'"))?;
                    bytes += present.dtype().tensor_shape().map_or(0, |s| {
                        s.iter().product::<i64>().max(0) as u64
                            * if self.kv_type == TensorElementType::Float16 { 2 } else { 4 }
                    });
                    next.push((past_name, present));
                }
                self.kv_bytes = self.kv_bytes.max(bytes);
                *past = next;
                Some(StepTiming { inputs: bound, compute, outputs: read_started.elapsed() })
            }
        };
        let Some(timing) = timing else {
            // The default's replay failed: this step again, uncaptured, as every one after it.
            crate::errln!(
                "dmlrun: warning: the captured decode step failed to replay, so it runs uncaptured: {}",
                self.replay_failure().unwrap_or_default()
            );
            return self.step(tokens);
        };
        self.past += tokens.len();
        Ok(timing)
    }

    fn logits(&self) -> &[f32] {
        &self.logits
    }

    fn chosen(&self) -> Option<i64> {
        self.chosen
    }

    fn forward_all(&mut self, tokens: &[i64]) -> Result<Vec<f32>> {
        self.reset()?;
        self.all_positions = true;
        let stepped = self.step(tokens);
        self.all_positions = false;
        stepped?;
        if self.chosen.is_some() {
            bail!("this decoder chooses its tokens on the device, so it gives no logits to score");
        }
        Ok(std::mem::take(&mut self.logits))
    }
}

/// One `Run` with ONNX Runtime's error made into dmlrun's line.
fn run_session<'s, T>(session: &'s mut Session, run: impl FnOnce(&'s mut Session) -> ort::Result<T>) -> Result<T> {
    run(session).map_err(|e| {
        let message = e.to_string();
        let named = crate::runtime::adapters::named_hresult_in(&message).map(|h| format!(" [{h}]")).unwrap_or_default();
        anyhow!("ONNX Runtime Run failed: {}{named}", message.trim())
    })
}
