//! One step's run, by the cache's layout: the captured decode step replayed, a step over the
//! shared buffer, or one over the growing cache.

use std::time::Instant;

use anyhow::{anyhow, Context, Result};
use ort::session::{IoBinding, Session};
use ort::value::{DynValue, TensorElementType};

use super::captured::CapturedStep;
use super::{read_logits, run_session};
use crate::generate::{DecoderSpec, StepTiming};
use crate::runtime::session::GREEDY_TOKEN;

/// The session a step runs, and where its result goes: the token chosen on the device, or the
/// logits read back (and the vocabulary they say).
pub(super) struct StepRun<'a> {
    pub session: &'a mut Session,
    pub logits_name: &'a str,
    /// When the step began: its inputs' time runs from here.
    pub started: Instant,
    pub chosen: &'a mut Option<i64>,
    pub logits: &'a mut Vec<f32>,
    pub vocab: &'a mut usize,
    pub all_positions: bool,
}

impl StepRun<'_> {
    /// The captured decode step replayed over its fixed buffers; `None` where the replay failed
    /// and the capture was the default (the step is then run again uncaptured).
    pub fn replay(
        &mut self,
        binding: &mut IoBinding,
        captured: &mut CapturedStep,
        inputs: &[(String, DynValue)],
        logits_type: TensorElementType,
    ) -> Result<Option<StepTiming>> {
        captured.load(binding, inputs, self.logits_name, *self.vocab, logits_type)?;
        let bound = self.started.elapsed();
        let run_started = Instant::now();
        let replayed = run_session(self.session, |s| s.run_binding_with_options(binding, &captured.replayed))
            // A replay only submits the recorded work; the logits are read by another queue, so
            // wait for this one first.
            .and_then(|_| binding.synchronize_outputs().map_err(|e| anyhow!("waiting for the replayed step: {e}")));
        match replayed {
            Err(e) if captured.may_fall_back => {
                captured.replay_failure = Some(crate::exit::one_line(&e));
                return Ok(None);
            }
            Err(e) => return Err(e),
            Ok(()) => {}
        }
        let compute = run_started.elapsed();
        let read_started = Instant::now();
        match captured.read_token()? {
            Some(token) => {
                *self.chosen = Some(token);
                self.logits.clear();
            }
            None => {
                read_logits(&captured.read_logits()?, self.logits, false)?;
            }
        }
        Ok(Some(StepTiming { inputs: bound, compute, outputs: read_started.elapsed() }))
    }

    /// A step over the shared buffer, uncaptured: the inputs bound afresh, the logits (or the
    /// greedy head's token) bound to where they are read.
    pub fn shared(
        &mut self,
        binding: &mut IoBinding,
        logits_to: &ort::memory::MemoryInfo<'static>,
        captured: Option<&CapturedStep>,
        inputs: &[(String, DynValue)],
    ) -> Result<StepTiming> {
        let logits_name = self.logits_name;
        for (name, value) in inputs {
            binding.bind_input(name.as_str(), value).map_err(|e| anyhow!("binding '{name}': {e}"))?;
        }
        // With the greedy head the token comes to the host and the logits stay on the device (a
        // 1024-token prefill's are 300 MB in float16); without it, the logits.
        let head = captured.filter(|c| c.token.is_some());
        let logits_memory = head.map_or(logits_to, |c| &c.device_memory);
        binding
            .bind_output_to_device(logits_name, logits_memory)
            .map_err(|e| anyhow!("binding '{logits_name}': {e}"))?;
        if head.is_some() {
            binding
                .bind_output_to_device(GREEDY_TOKEN, logits_to)
                .map_err(|e| anyhow!("binding '{GREEDY_TOKEN}': {e}"))?;
        }
        let bound = self.started.elapsed();
        let run_started = Instant::now();
        let outputs = match captured {
            Some(captured) => run_session(self.session, |s| s.run_binding_with_options(binding, &captured.uncaptured))?,
            None => run_session(self.session, |s| s.run_binding(binding))?,
        };
        let compute = run_started.elapsed();
        let read_started = Instant::now();
        match outputs.get(GREEDY_TOKEN) {
            Some(token) => {
                let (_, ids) = token.try_extract_tensor::<i64>().map_err(|e| anyhow!("the greedy token: {e}"))?;
                *self.chosen = Some(*ids.last().context("the greedy head gave no token")?);
                self.logits.clear();
            }
            None => {
                let logits = outputs.get(logits_name).context("the run gave no logits")?;
                *self.vocab = read_logits(logits, self.logits, self.all_positions)?;
            }
        }
        Ok(StepTiming { inputs: bound, compute, outputs: read_started.elapsed() })
    }

    /// A step over the growing cache: the past fed as inputs, the presents kept as the next
    /// step's past. Its timing, and the cache's bytes after it.
    pub fn growing(
        &mut self,
        past: &mut Vec<(String, DynValue)>,
        inputs: Vec<(String, DynValue)>,
        spec: &DecoderSpec,
        kv_type: TensorElementType,
    ) -> Result<(StepTiming, u64)> {
        let mut feed = inputs;
        feed.append(past);
        let bound = self.started.elapsed();
        let run_started = Instant::now();
        let feed_refs: Vec<(&str, &DynValue)> = feed.iter().map(|(n, v)| (n.as_str(), v)).collect();
        let mut outputs = run_session(self.session, |s| s.run(feed_refs))?;
        let compute = run_started.elapsed();
        let read_started = Instant::now();
        let logits = outputs.get(self.logits_name).context("the run gave no logits")?;
        *self.vocab = read_logits(logits, self.logits, self.all_positions)?;
        let element_bytes = if kv_type == TensorElementType::Float16 { 2 } else { 4 };
        let mut bytes = 0u64;
        for (past_name, present_name) in spec.kv_pairs() {
            let present =
                outputs.remove(present_name.as_str()).with_context(|| format!("the run gave no '{present_name}'"))?;
            bytes +=
                present.dtype().tensor_shape().map_or(0, |s| s.iter().product::<i64>().max(0) as u64 * element_bytes);
            past.push((past_name, present));
        }
        Ok((StepTiming { inputs: bound, compute, outputs: read_started.elapsed() }, bytes))
    }
}
