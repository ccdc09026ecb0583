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
mod decode_session;
mod folder;
mod generating;
mod opening;
mod stepping;

use std::time::Instant;

use anyhow::{anyhow, bail, Result};
use ort::session::Session;
use ort::value::{DynTensor, DynValue, TensorElementType};

use super::open::LoadedModel;
use super::preflight::Preflight;
use crate::generate::{CaptureAsk, Choice, Decoder, DecoderSpec, StepTiming};

use captured::CapturedStep;
use decode_session::DecodeSession;
pub use folder::{
    check_output_folder, decoder_file, greedy_tokens, time_paired, write_decoder_folder, Against, DecodeTimes,
    DecoderRun, Generated, PairedDecode, PairedTimes,
};
pub use generating::open_generating;
use stepping::StepRun;

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
    /// The session's model as dmlrun made it (`--precision int4|int8`'s quantized files kept as
    /// long as the session, for `--save-model`).
    pub made: super::MadeModel,
    /// The vocabulary's size: the logits output's fixed last dimension, else what the prefill's
    /// logits said.
    vocab: usize,
    /// The token the device chose at the last step (greedy on the device); the logits are then
    /// left empty, never read back.
    chosen: Option<i64>,
    /// Keep every position's logits, not only the last's (perplexity's forward passes).
    all_positions: bool,
    /// `--decode-rewrite`: the one-token step's own session.
    decode: Option<DecodeSession>,
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
    /// How the capture was asked: the default's (`CaptureAsk::Default`) falls back to an
    /// uncaptured step where a replay fails; `CaptureAsk::as_planned` where the plan says all.
    pub capture: CaptureAsk,
    /// How the next token is chosen: greedy over a captured step is chosen on the device (see
    /// the module's text). `None` where the logits are only read (perplexity, a reference).
    pub choice: Option<Choice>,
}

impl DecoderSession {
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

    /// With `--decode-rewrite`: what the decode step's own session had rewritten, the steps it
    /// has run, and each hand-over of the prompt's KV cache to it.
    pub fn decode_session(&self) -> Option<(Option<&super::rewrite::RewriteReport>, u64, &[std::time::Duration])> {
        self.decode.as_ref().map(|d| (d.rewrite.as_ref(), d.steps, d.kv.as_ref().map_or(&[][..], |kv| &kv.took[..])))
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
        let replays = self.past > 0 && tokens.len() == 1;
        // A one-token step after the prompt runs in the decode step's own session, where there
        // is one, over its own KV buffers once the prompt's positions are there.
        let own_session = replays && self.decode.is_some();
        if let (Some(decode), Cache::Shared { binding, .. }) = (self.decode.as_mut(), &self.cache) {
            match own_session {
                true => decode.hand_over(binding)?,
                false => decode.kv.iter_mut().for_each(|kv| kv.stale = true),
            }
        }
        let (session, own_binding) = match self.decode.as_mut().filter(|_| own_session) {
            Some(decode) => (&mut decode.model.session, decode.kv.as_mut().map(|kv| &mut *kv.binding)),
            None => (&mut self.model.session, None),
        };
        let mut run = StepRun {
            session,
            logits_name: &logits_name,
            started,
            chosen: &mut self.chosen,
            logits: &mut self.logits,
            vocab: &mut self.vocab,
            all_positions: self.all_positions,
        };
        let timing = match &mut self.cache {
            Cache::Shared { binding, captured: Some(captured), .. } if replays && captured.replay_failure.is_none() => {
                run.replay(own_binding.unwrap_or(binding), captured, &inputs, self.logits_type)?
            }
            Cache::Shared { binding, logits_to, captured, .. } => {
                Some(run.shared(own_binding.unwrap_or(binding), logits_to, captured.as_deref(), &inputs)?)
            }
            Cache::Growing { past } => {
                let (timing, bytes) = run.growing(past, inputs, &self.spec, self.kv_type)?;
                self.kv_bytes = self.kv_bytes.max(bytes);
                Some(timing)
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
        if let Some(step) = self.decode.as_mut().filter(|_| own_session) {
            step.steps += 1;
        }
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
