//! `bench` of a generate entry (a manifest's onnxruntime-genai folder): the decoder opened as
//! `generate` opens it, timed over whole generations, each decode step a sample.

use anyhow::{Context, Result};

use super::{fingerprint, gpu_memory_bytes, peak_rss_scope, Measured, ModelPlan};
use crate::report::bench::{ModelBench, ModelStatus};
use crate::report::ms;
use crate::runtime::engine;
use crate::runtime::Runtime;
use crate::settings::BenchSettings;
use crate::suites::manifest::GenerationTarget;

/// A manifest's generate entry: a synthetic prompt, one warm-up generation, then the measured
/// repetitions, each making exactly `new_tokens` (EOS ignored, as LLM benchmarks do).
pub(super) fn bench_generation(
    runtime: &Runtime,
    plan: &ModelPlan,
    wanted: &GenerationTarget,
    settings: &BenchSettings,
) -> Result<Measured> {
    use crate::generate::{self, figures, DecoderModel};
    let target = &plan.target;
    let DecoderModel { spec, tokenizer, vocab, .. } = DecoderModel::read(&target.path, None, None)?;
    let prompt_vocab = tokenizer.as_ref().map_or(vocab, |t| t.vocab_size().min(vocab));
    for note in &plan.preflight.not_applied {
        crate::errln!("warning: {}: {note}", target.name);
    }
    let (prompt_tokens, new_tokens, fitted) = wanted.fitted(spec.context_length)?;
    if let Some(note) = &fitted {
        crate::errln!("warning: {}: {note}", target.name);
    }
    let prompt = generate::synthetic_prompt(prompt_tokens, prompt_vocab, &spec.eos_token_ids, settings.seed);
    let kv_length = generate::kv_length(prompt.len(), new_tokens, wanted.max_length, spec.context_length)?;
    let (mut decoder, mut capture, model_load_ms) = open_decoder(runtime, plan, &spec, kv_length, settings)?;
    let looping =
        generate::LoopSettings { max_new_tokens: new_tokens, eos_token_ids: &spec.eos_token_ids, ignore_eos: true };
    let measuring = match settings.budget.time_box {
        Some(limit) => Measuring::For(limit),
        None => Measuring::Repetitions(wanted.repetitions),
    };
    let (runs, first_ttft) = timed_generations(&mut decoder, &prompt, &looping, measuring)?;
    if runs.is_empty() {
        return Ok(Measured::InterruptedBeforeTiming);
    }
    let figures = figures::figures(&runs);
    let samples: Vec<f64> = runs.iter().flat_map(|g| g.decode.iter().map(|s| s.total_ms)).collect();
    // Each generation is a round: its decode steps ran one after another.
    let rounds: Vec<usize> = runs.iter().map(|g| g.decode.len()).filter(|&n| n > 0).collect();
    let latency = crate::stats::summarize(&samples)
        .context("one new token makes no decode steps to time: give the entry new_tokens of 2 or more")?;
    let gpu_memory = decoder.model.memory.as_ref().map(|m| m.memory.clone());
    // On DirectML a decode step not captured is a slower measure than generate's default: said.
    if let Some(failure) = decoder.replay_failure() {
        capture.replay_failed(failure);
    }
    let uncaptured = (decoder.model.plan.uses_directml() && !capture.captured)
        .then(|| format!("the decode step ran uncaptured: {}", capture.why));
    Ok(Measured::Done(Box::new(ModelBench {
        name: target.name.clone(),
        path: target.path.clone(),
        status: if crate::interrupt::interrupted() { ModelStatus::Interrupted } else { ModelStatus::Ok },
        sweep: target.sweep.clone(),
        fingerprint: fingerprint(runtime, plan, &decoder.model.device, &decoder.model.plan, settings),
        rounds,
        baseline_model: None,
        device: decoder.model.device.clone(),
        plan: decoder.model.plan.clone(),
        inputs: Vec::new(),
        model_load_ms,
        session_create_ms: ms(decoder.model.session_time),
        cache: None,
        first_run_ms: first_ttft.unwrap_or_default(),
        warmup: 1,
        latency_ms: latency,
        samples_ms: samples,
        batch_size: Some(1),
        items_per_s: None,
        peak_rss_bytes: crate::sysinfo::peak_rss_bytes(),
        peak_rss_scope: peak_rss_scope(settings),
        gpu_memory_bytes: gpu_memory_bytes(gpu_memory.as_ref()),
        gpu_memory,
        profile: None,
        device_io: None,
        sessions: None,
        precision: None,
        rewrite: decoder.rewrite.clone(),
        comparison: None,
        reference: None,
        generation: Some(figures),
        warnings: plan.preflight.not_applied.iter().cloned().chain(fitted).chain(uncaptured).collect(),
    })))
}

/// How many generations are measured after the warm-up.
#[derive(Debug, Clone, Copy)]
enum Measuring {
    /// The entry's `repetitions`.
    Repetitions(usize),
    /// `--duration`: generations until it is spent (one at least), as bench times a model.
    For(std::time::Duration),
}

impl Measuring {
    fn wants_another(self, measured: usize, since: std::time::Instant) -> bool {
        match self {
            Measuring::Repetitions(n) => measured < n,
            Measuring::For(limit) => measured == 0 || since.elapsed() < limit,
        }
    }
}

/// The warm-up generation and the measured ones, each from `prompt` (greedy); the measured ones
/// (Ctrl-C's not counted) and the warm-up's time to the first token.
fn timed_generations(
    decoder: &mut engine::DecoderSession,
    prompt: &[i64],
    looping: &crate::generate::LoopSettings<'_>,
    measuring: Measuring,
) -> Result<(Vec<crate::generate::Generation>, Option<f64>)> {
    use crate::generate::{self, Sampler, Sampling};
    let mut runs = Vec::new();
    let mut first_ttft = None;
    let mut since = std::time::Instant::now();
    for repetition in 0.. {
        if crate::interrupt::interrupted() || (repetition > 0 && !measuring.wants_another(runs.len(), since)) {
            break;
        }
        let mut greedy = Sampler::new(Sampling::Greedy);
        let generation = generate::generate(decoder, prompt, looping, &mut greedy, &mut |_, _| Ok(()))?;
        first_ttft.get_or_insert(generation.prefill.total_ms);
        if let Some(memory) = decoder.model.memory.as_mut() {
            memory.sample();
        }
        // The first is the warm-up (the clock of --duration starts after it); an interrupted
        // one is not counted.
        if repetition == 0 {
            since = std::time::Instant::now();
        } else if generation.stop != generate::Stop::Interrupted {
            runs.push(generation);
        }
    }
    Ok((runs, first_ttft))
}

/// The decoder opened as generate opens it (the decode step captured by default on DirectML),
/// and the time its load took beside the session's creation.
fn open_decoder(
    runtime: &Runtime,
    plan: &ModelPlan,
    spec: &crate::generate::DecoderSpec,
    kv_length: usize,
    settings: &BenchSettings,
) -> Result<(engine::DecoderSession, crate::generate::GraphCapture, f64)> {
    use crate::generate::{CaptureAsk, Choice};
    let started = std::time::Instant::now();
    let generating = engine::DecoderOptions {
        preflight: &plan.preflight,
        spec,
        kv_length,
        print_plan: settings.print_plan,
        capture: match plan.preflight.request.dml_graph_capture {
            true => CaptureAsk::DmlGraphCapture,
            false => CaptureAsk::Default,
        },
        choice: Some(Choice::Greedy),
    };
    crate::stage::step("session creation");
    let (decoder, _, capture) = engine::open_generating(runtime, &generating)?;
    let model_load_ms = ms(started.elapsed()) - ms(decoder.model.session_time);
    Ok((decoder, capture, model_load_ms))
}
