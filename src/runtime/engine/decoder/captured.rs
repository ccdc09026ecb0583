//! With graph capture (the default on DirectML) the decode step is captured once and replayed, as
//! onnxruntime-genai does on DirectML: the prefill runs uncaptured (`gpu_graph_id` -1, since every
//! prompt length is another shape), the decode steps as graph 1. A replay reads and writes only
//! the buffers the capture recorded and ignores what is bound afterwards, so the decode step's
//! token, mask and position live in DirectML buffers of their own, bound once, whose contents are
//! overwritten before each step, and its logits land in one DirectML buffer.
//!
//! With greedy choice over a captured step (`DecoderOptions::choice`), the session's model has an `ArgMax`
//! appended after the logits (`runtime::session`'s greedy head), captured with the step, and one
//! int64 comes back a token, not the whole vocabulary's logits (600 KB a token for Qwen2's
//! 151,936 ids in float32). Where the head cannot be added, the session opens without it and the
//! token is chosen on the host from the logits read back.
//!
//! Where the capture was dmlrun's default, not asked for, a replay that fails does not end the
//! run: that step runs again uncaptured, and so does every step after it.

use anyhow::{anyhow, Context, Result};
use ort::session::Session;
use ort::value::{DynTensor, DynValue, TensorElementType};

use super::super::open::LoadedModel;
use super::DecoderOptions;
use crate::generate::DecoderSpec;
use crate::runtime::plan::{ProviderPlan, SessionPlan};
use crate::runtime::Runtime;

/// The decode step's DirectML buffers under graph capture.
pub(super) struct CapturedStep {
    /// DirectML's allocator, for the logits' buffer once their size is known.
    pub(super) allocator: ort::memory::Allocator,
    /// The step inputs by name: token ids `[1, 1]`, the mask `[1, capacity]`, positions `[1, 1]`,
    /// each a DirectML buffer the captured graph reads.
    pub(super) inputs: Vec<(String, DynTensor)>,
    /// Writes the host inputs into those buffers on a queue it can wait for.
    pub(super) copier: Session,
    pub(super) copier_binding: ort::session::IoBinding,
    /// `[1, 1, vocab]` once the prefill has said the vocabulary's size.
    pub(super) logits: Option<DynTensor>,
    pub(super) uncaptured: ort::session::RunOptions,
    pub(super) replayed: ort::session::RunOptions,
    /// `[1, 1]`: the greedy head's token, where the session has the head.
    pub(super) token: Option<DynTensor>,
    /// DirectML's memory, where an uncaptured step with the head leaves its logits.
    pub(super) device_memory: ort::memory::MemoryInfo<'static>,
    /// Why the greedy head asked for was not added: the tokens are then chosen on the host.
    pub(super) head_failure: Option<String>,
    /// The capture was the default: a failed replay falls back to running uncaptured.
    pub(super) may_fall_back: bool,
    /// The failed replay's error, after which every step runs uncaptured.
    pub(super) replay_failure: Option<String>,
}

/// The plan of a copier session (`runtime::session::copier`) beside a session of `plan`: its
/// device, uncaptured and unfused, the CPU EP first.
pub(super) fn copier_plan(plan: &SessionPlan) -> SessionPlan {
    let mut plan = plan.clone();
    plan.session_config.remove(crate::runtime::plan::DML_GRAPH_CAPTURE);
    // Unfused: with its three Identity nodes fused into one DirectML graph, the copier's first
    // run removed the device under Wine (887A0005); node by node it runs.
    plan.session_config.insert(crate::runtime::plan::DML_DISABLE_FUSION.into(), "1".into());
    plan.dimension_overrides.clear();
    plan.profile_prefix = None;
    plan.optimized_model_path = None;
    // The CPU EP first, as in ort's own copier: the host is where the values come from.
    plan.execution_providers.retain(|p| !matches!(p, ProviderPlan::Cpu));
    plan.execution_providers.insert(0, ProviderPlan::Cpu);
    plan
}

impl CapturedStep {
    pub(super) fn new(
        runtime: &Runtime,
        model: &LoadedModel,
        spec: &DecoderSpec,
        capacity: usize,
        options: &DecoderOptions,
    ) -> Result<CapturedStep> {
        let device_id = model.plan.device_id().unwrap_or(0) as i32;
        let shapes: Vec<(String, crate::tensor::DType, Vec<usize>)> = [
            Some((spec.input_ids.clone(), vec![1, 1])),
            spec.attention_mask.clone().map(|m| (m, vec![1, capacity])),
            spec.position_ids.clone().map(|p| (p, vec![1, 1])),
        ]
        .into_iter()
        .flatten()
        .map(|(name, shape)| (name, crate::tensor::DType::Int64, shape))
        .collect();
        let copier = crate::runtime::session::copier(runtime, &copier_plan(&model.plan), &shapes)
            .map_err(|e| anyhow!("--dml-graph-capture: the session that writes the step's inputs: {e}"))?;
        let mut copier_binding = copier.create_binding().map_err(|e| anyhow!("IoBinding: {e}"))?;
        let allocator = ort::memory::Allocator::new(&model.session, super::super::device_io::device_memory(device_id)?)
            .map_err(|e| anyhow!("--dml-graph-capture: DirectML's allocator: {e}"))?;
        let mut inputs = Vec::new();
        for (name, _, shape) in shapes {
            let mut buffer = DynTensor::new(&allocator, TensorElementType::Int64, shape)
                .map_err(|e| anyhow!("--dml-graph-capture: allocating '{name}': {e}"))?;
            let copy = crate::runtime::session::copy_of(&name);
            copier_binding.bind_output(copy.as_str(), &mut buffer).map_err(|e| anyhow!("binding '{copy}': {e}"))?;
            inputs.push((name, buffer));
        }
        let run_options = |graph: &str| -> Result<ort::session::RunOptions> {
            let mut options = ort::session::RunOptions::new().map_err(|e| anyhow!("run options: {e}"))?;
            options.set("gpu_graph_id", graph).map_err(|e| anyhow!("run options: {e}"))?;
            Ok(options)
        };
        Ok(CapturedStep {
            allocator,
            inputs,
            copier,
            copier_binding,
            logits: None,
            uncaptured: run_options("-1")?,
            replayed: run_options("1")?,
            token: None,
            device_memory: super::super::device_io::device_memory(device_id)?,
            head_failure: None,
            may_fall_back: options.capture == crate::generate::CaptureAsk::Default,
            replay_failure: None,
        })
    }

    /// The greedy head's token buffer, where the session has the head.
    pub(super) fn prepare_choice(&mut self, model: &LoadedModel) -> Result<()> {
        if model.plan.greedy_head.is_some() {
            self.token = Some(
                DynTensor::new(&self.allocator, TensorElementType::Int64, [1usize, 1])
                    .map_err(|e| anyhow!("--dml-graph-capture: allocating the greedy token: {e}"))?,
            );
        }
        Ok(())
    }

    /// Writes the step's host inputs into the captured buffers and waits until they are there;
    /// binds the buffers and the logits' buffer to the decoder.
    pub(super) fn load(
        &mut self,
        binding: &mut ort::session::IoBinding,
        inputs: &[(String, DynValue)],
        logits_name: &str,
        vocab: usize,
        logits_type: TensorElementType,
    ) -> Result<()> {
        for (name, value) in inputs {
            self.copier_binding.bind_input(name.as_str(), value).map_err(|e| anyhow!("binding '{name}': {e}"))?;
        }
        self.copier
            .run_binding(&self.copier_binding)
            .map_err(|e| anyhow!("--dml-graph-capture: writing the step's inputs into DirectML's memory: {e}"))?;
        // DirectML's Run returns before its GPU work is done, and the decoder's queue is another.
        self.copier_binding.synchronize_outputs().map_err(|e| anyhow!("waiting for the step's inputs: {e}"))?;
        for (name, buffer) in &self.inputs {
            binding.bind_input(name.as_str(), buffer).map_err(|e| anyhow!("binding '{name}': {e}"))?;
        }
        if self.logits.is_none() {
            self.logits = Some(
                DynTensor::new(&self.allocator, logits_type, [1usize, 1, vocab])
                    .map_err(|e| anyhow!("--dml-graph-capture: allocating the logits: {e}"))?,
            );
        }
        let logits = self.logits.as_mut().expect("allocated above");
        binding.bind_output(logits_name, &mut *logits).map_err(|e| anyhow!("binding '{logits_name}': {e}"))?;
        if let Some(token) = self.token.as_mut() {
            let name = crate::runtime::session::GREEDY_TOKEN;
            binding.bind_output(name, &mut *token).map_err(|e| anyhow!("binding '{name}': {e}"))?;
        }
        Ok(())
    }

    /// The greedy head's token of the step just run (the decoder's queue waited for).
    pub(super) fn read_token(&self) -> Result<Option<i64>> {
        let Some(token) = self.token.as_ref() else { return Ok(None) };
        let host = token
            .to(ort::memory::AllocationDevice::CPU, 0)
            .map_err(|e| anyhow!("reading the greedy token back: {e}"))?;
        let (_, ids) = host.try_extract_tensor::<i64>().map_err(|e| anyhow!("the greedy token: {e}"))?;
        Ok(ids.first().copied())
    }

    /// The logits of the step just run, in host memory (the decoder's queue waited for).
    pub(super) fn read_logits(&self) -> Result<DynValue> {
        let logits = self.logits.as_ref().context("no logits buffer")?;
        Ok(logits
            .to(ort::memory::AllocationDevice::CPU, 0)
            .map_err(|e| anyhow!("reading the logits back: {e}"))?
            .into_dyn())
    }
}
