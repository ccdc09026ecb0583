//! `--decode-rewrite`: the one-token decode step in a session of its own, whose model is
//! rewritten by the decode step's rules beyond the prompt's, for a form that is faster at one row
//! and wrong or slower at many (the GEMV form: docs/gpu.md).
//!
//! The two sessions cannot share one KV buffer on DirectML: a buffer one session allocated, read
//! by another session's GroupQueryAttention, removed the device on lavapipe (887A0005 at the node
//! after the attention), where host memory and the captured step's copier (which writes through
//! ONNX Runtime's copy, not a kernel) are fine. So each session has its own buffers, and once
//! after each prompt its positions are handed over by a copier session bound to both (the
//! prompt's buffers as its inputs, the decode session's as its outputs: ONNX Runtime's copies
//! through the host, one run for every layer), before the first decode step, whose time that is
//! (the time to first token is the prompt's alone). The report says what the hand-overs cost.

use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use ort::session::{IoBinding, Session};
use ort::value::{DynTensor, TensorElementType};

use super::super::open::{open, LoadedModel};
use super::super::preflight::Preflight;
use super::super::MadeModel;
use super::captured::copier_plan;
use crate::runtime::plan::SessionPlan;
use crate::runtime::Runtime;

/// The decode step's own session.
pub(super) struct DecodeSession {
    pub(super) model: LoadedModel,
    /// What its model had rewritten: the prompt's rewrites and its own.
    pub(super) rewrite: Option<super::super::rewrite::RewriteReport>,
    /// Its model's files, kept as long as the session.
    _made: MadeModel,
    /// The steps it has run.
    pub(super) steps: u64,
    /// Its own KV buffers (the shared layout); with the growing one the past is fed as inputs.
    pub(super) kv: Option<HandedOver>,
}

/// The decode session's KV buffers, and how the prompt's positions get there.
pub(super) struct HandedOver {
    /// Its binding of its buffers as past and present.
    pub(super) binding: Box<IoBinding>,
    _buffers: Vec<DynTensor>,
    /// Copies the prompt's buffers (its inputs) into these (its outputs), both bound once.
    copier: Session,
    copier_binding: IoBinding,
    /// The prompt's session has written positions these buffers lack.
    pub(super) stale: bool,
    /// Each hand-over's time.
    pub(super) took: Vec<Duration>,
}

impl DecodeSession {
    /// The model as the prompt's session has it, rewritten by the decode step's rules too, with
    /// the same greedy head (the step binds its token either way).
    pub(super) fn open(
        runtime: &Runtime,
        preflight: &Preflight,
        plan: SessionPlan,
        prompt_session: &LoadedModel,
        why: &'static str,
    ) -> Result<DecodeSession> {
        let mut rewrites = plan.rewrites.clone();
        rewrites.extend(preflight.request.decode_rewrites.iter().filter(|r| !plan.rewrites.contains(r)));
        let plan = SessionPlan { rewrites, greedy_head: prompt_session.plan.greedy_head.clone(), ..plan };
        let named =
            |e: anyhow::Error| anyhow!("--decode-rewrite: the decode step's session: {}", crate::exit::one_line(&e));
        let made = super::super::made_for_session(runtime, preflight, &plan, super::super::Check::Not(why), &mut |w| {
            crate::errln!("dmlrun: warning: the decode step's model: {w}")
        })
        .map_err(named)?;
        let mut model = open(runtime, made.path(), preflight.info().clone(), Duration::ZERO, plan).map_err(named)?;
        model.model_path = preflight.model_path.clone();
        Ok(DecodeSession { rewrite: made.rewrite(), model, _made: made, steps: 0, kv: None })
    }

    /// Its own KV buffers, allocated by `allocate` (as the prompt's are), bound as past and present,
    /// and the copier from the prompt's buffers (`prompt_buffers`, in `pairs`' order) into them.
    pub(super) fn bind_buffers(
        &mut self,
        runtime: &Runtime,
        pairs: &[(String, String)],
        kv_type: TensorElementType,
        allocate: &dyn Fn(&Session) -> Result<DynTensor>,
        prompt_buffers: &[DynTensor],
    ) -> Result<()> {
        let session = &self.model.session;
        let mut binding = session.create_binding().map_err(|e| anyhow!("IoBinding: {e}"))?;
        let mut buffers = Vec::new();
        for (past, present) in pairs {
            let mut buffer = allocate(session)?;
            binding.bind_input(past.as_str(), &buffer).map_err(|e| anyhow!("binding '{past}': {e}"))?;
            binding.bind_output(present.as_str(), &mut buffer).map_err(|e| anyhow!("binding '{present}': {e}"))?;
            buffers.push(buffer);
        }
        let dtype = match kv_type {
            TensorElementType::Float16 => crate::tensor::DType::Float16,
            _ => crate::tensor::DType::Float32,
        };
        let values: Vec<(String, crate::tensor::DType, Vec<usize>)> = pairs
            .iter()
            .zip(&buffers)
            .map(|((past, _), buffer)| (past.clone(), dtype, buffer.shape().iter().map(|&d| d as usize).collect()))
            .collect();
        let copier = crate::runtime::session::copier(runtime, &copier_plan(&self.model.plan), &values)
            .map_err(|e| anyhow!("--decode-rewrite: the session that hands the KV cache over: {e}"))?;
        let mut copier_binding = copier.create_binding().map_err(|e| anyhow!("IoBinding: {e}"))?;
        for (((name, ..), buffer), prompt_buffer) in values.iter().zip(buffers.iter_mut()).zip(prompt_buffers) {
            let copy = crate::runtime::session::copy_of(name);
            copier_binding.bind_input(name.as_str(), prompt_buffer).map_err(|e| anyhow!("binding '{name}': {e}"))?;
            copier_binding.bind_output(copy.as_str(), buffer).map_err(|e| anyhow!("binding '{copy}': {e}"))?;
        }
        self.kv = Some(HandedOver {
            binding: Box::new(binding),
            _buffers: buffers,
            copier,
            copier_binding,
            stale: false,
            took: Vec::new(),
        });
        Ok(())
    }

    /// Where the prompt's session has written since the last hand-over: its buffers copied into
    /// this session's, waited for.
    pub(super) fn hand_over(&mut self, prompt_binding: &IoBinding) -> Result<()> {
        let Some(kv) = self.kv.as_mut().filter(|kv| kv.stale) else { return Ok(()) };
        let started = Instant::now();
        prompt_binding.synchronize_outputs().map_err(|e| anyhow!("waiting for the prompt's run: {e}"))?;
        kv.copier
            .run_binding(&kv.copier_binding)
            .map_err(|e| anyhow!("--decode-rewrite: copying the prompt's KV cache into the decode step's: {e}"))?;
        kv.copier_binding.synchronize_outputs().map_err(|e| anyhow!("waiting for the KV cache's hand-over: {e}"))?;
        kv.stale = false;
        kv.took.push(started.elapsed());
        Ok(())
    }
}
