//! `dmlrun generate MODEL`: a decoder LLM's text, and the figures LLM benchmarks report.

mod conversation;
mod perplexity;
mod repeating;

use anyhow::{bail, Context, Result};

use crate::cli::GenerateArgs;
use crate::exit::ExitStatus;
use crate::generate::chat::ChatTemplate;
use crate::generate::tokenizer::TextTokenizer;
use crate::generate::{
    self, CaptureAsk, DecoderModel, DecoderSpec, GraphCapture, KvLayout, LoopSettings, Sampler, Sampling, TokenChoice,
};
use crate::report::export::{Exports, Formats};
use crate::report::generate::{
    self as report, DecodeSession, GenerateReport, KvCache, PhaseMemory, PromptComparison, PromptResult,
    TokenComparison,
};
use crate::runtime::engine::{self, DecoderOptions, DecoderSession, DeviceReport, Preflight, Scope};
use crate::runtime::plan::EpRequest;
use crate::runtime::Runtime;
use crate::settings::{GenerateSettings, PromptSource, Task};
use crate::stage::Deadline;
use repeating::Repeating;

/// A prompt as token ids, with where it came from.
struct Prompt {
    source: String,
    text: Option<String>,
    ids: Vec<i64>,
}

pub fn execute(args: &GenerateArgs) -> Result<ExitStatus> {
    generate(&GenerateSettings::resolve(args)?)
}

fn generate(settings: &GenerateSettings) -> Result<ExitStatus> {
    match &settings.task {
        Task::Generate(source) => generate_text(settings, source),
        Task::Perplexity { text, window, stride } => perplexity::score(settings, text, *window, *stride),
        Task::Conversation => conversation::talk(settings),
    }
}

/// The decoder as the flags name it (its folder, tokenizer and context), with the KV cache's layout
/// --kv-layout asks: one reading for every task.
fn read_decoder(settings: &GenerateSettings) -> Result<DecoderModel> {
    let mut model = DecoderModel::read(&settings.model, settings.tokenizer.as_deref(), settings.context_length)?;
    if let Some(layout) = settings.kv_layout {
        model.spec.past_present_share_buffer = layout == KvLayout::Shared;
    }
    Ok(model)
}

fn generate_text(settings: &GenerateSettings, source: &PromptSource) -> Result<ExitStatus> {
    // Every export checked before the (long) generation: a typo in a folder costs nothing.
    let mut exports = exports(settings)?;
    let DecoderModel { spec, file, tokenizer, vocab } = read_decoder(settings)?;
    let prompts = prompts(settings, source, tokenizer.as_ref(), vocab, &spec)?;
    let longest = prompts.iter().map(|p| p.ids.len()).max().unwrap_or(0);
    let kv_length = generate::kv_length(longest, settings.max_new_tokens, settings.max_length, spec.context_length)?;
    let (_deadline, runtime, preflight) = loaded(settings, &spec, file)?;
    let generating = DecoderOptions {
        preflight: &preflight,
        spec: &spec,
        kv_length,
        print_plan: settings.print_plan,
        capture: settings.capture,
        choice: Some(settings.choice),
    };
    let (mut decoder, preflight, mut capture) = engine::open_generating(&runtime, &generating)?;
    let options = DecoderOptions {
        preflight: &preflight,
        spec: &spec,
        print_plan: false,
        kv_length,
        capture: CaptureAsk::as_planned(preflight.plan.graph_capture()),
        choice: None,
    };
    let looping = LoopSettings {
        max_new_tokens: settings.max_new_tokens,
        eos_token_ids: &spec.eos_token_ids,
        ignore_eos: settings.ignore_eos,
    };
    let probe = decoder.model.memory.as_ref().map(|m| m.probe());
    let phases = std::cell::RefCell::new(vec![PhaseMemory::now("load", probe.as_ref().and_then(|p| p.read()))]);
    let how = Repeating {
        probe: probe.as_ref(),
        phases: &phases,
        settings,
        runtime: &runtime,
        options: &options,
        tokenizer: tokenizer.as_ref(),
        looping: &looping,
        text_to_stdout: !settings.quiet && !exports_to_stdout(settings),
        several: prompts.len() > 1,
    };
    let (results, interrupted) = how.generate_prompts(&mut decoder, &prompts)?;
    if let Some(failure) = decoder.replay_failure() {
        capture.replay_failed(failure);
    }
    let comparison = match interrupted {
        false => how.compare(&mut decoder, &prompts, &results)?,
        true => None,
    };
    let report = GenerateReport {
        decode_step_captured: decoder.decode_step_captured(),
        token_choice: TokenChoice::after(settings.choice, decoder.decode_step_captured(), decoder.greedy_on_device()),
        graph_capture: capture,
        sampling: settings.sampling,
        logits_processing: (!settings.processing.is_identity()).then_some(settings.processing),
        max_new_tokens: settings.max_new_tokens,
        warmup: settings.warmup,
        prompts: results,
        comparison,
        interrupted,
        memory_phases: phases.into_inner(),
        ..report_of_session(settings, &spec, tokenizer.as_ref().map(|t| t.path.clone()), &runtime, &decoder, kv_length)
    };
    publish(settings, &mut exports, &report)?;
    save_model(settings, &decoder, &preflight)?;
    Ok(exit_status(&report))
}

/// ONNX Runtime loaded under `--timeout`'s deadline and the decoder's preflight made, as every
/// generating task starts: the deadline ends a step that never returns, saying which step it was
/// in (named before the clock starts, so even a limit that ends at once names one). The deadline
/// lives as long as the value returned.
fn loaded(
    settings: &GenerateSettings,
    spec: &DecoderSpec,
    file: crate::formats::model::ModelFile,
) -> Result<(Option<Deadline>, Runtime, Preflight)> {
    crate::stage::step("loading ONNX Runtime");
    let deadline = (!settings.timeout.is_zero())
        .then(|| Deadline::start(settings.timeout, format!("model {}", settings.model.display())));
    let runtime = settings.ort.load()?;
    let preflight = Preflight::of(&runtime, &spec.model.clone(), file, &settings.request, Scope::Alone)?;
    let compare = settings.compare.as_ref().map(|(ep, level)| (ep, *level));
    engine::warn_if_compared_with_itself(&runtime, &preflight.request, compare);
    crate::stage::step("session creation");
    Ok((deadline, runtime, preflight))
}

/// An export to stdout takes it: the text is then not printed.
fn exports_to_stdout(settings: &GenerateSettings) -> bool {
    settings.exports.any_on_stdout()
}

/// Interrupted, a comparison that failed, or success; the logit verdicts that warn said.
fn exit_status(report: &GenerateReport) -> ExitStatus {
    if report.interrupted {
        crate::errln!("dmlrun: interrupted: the figures are over what was generated");
        return ExitStatus::Interrupted;
    }
    if let Some(c) = &report.comparison {
        for p in c.prompts.iter().filter(|p| p.logits.verdict.warns()) {
            crate::errln!("dmlrun: warning: {}: {}", p.source, p.logits.summary());
        }
    }
    match &report.comparison {
        Some(c) if c.failed() => ExitStatus::Failed,
        _ => ExitStatus::Success,
    }
}

/// The report's fields every generating run fills alike (the model, its session, the KV cache,
/// memory), with nothing generated yet: each command sets what it did over it.
fn report_of_session(
    settings: &GenerateSettings,
    spec: &DecoderSpec,
    tokenizer: Option<std::path::PathBuf>,
    runtime: &Runtime,
    decoder: &DecoderSession,
    kv_length: usize,
) -> GenerateReport {
    GenerateReport {
        schema: report::GENERATE_SCHEMA,
        dmlrun_version: env!("CARGO_PKG_VERSION"),
        model: settings.model.clone(),
        decoder: spec.clone(),
        tokenizer,
        onnxruntime: runtime.library.clone(),
        device: decoder.model.device.clone(),
        plan: decoder.model.plan.clone(),
        session_create_ms: crate::report::ms(decoder.model.session_time),
        kv_cache: KvCache {
            layout: if spec.past_present_share_buffer { KvLayout::Shared } else { KvLayout::Growing },
            length: spec.past_present_share_buffer.then_some(kv_length),
            bytes: decoder.kv_bytes,
            on_device: decoder.kv_on_device(),
        },
        decode_step_captured: false,
        token_choice: TokenChoice { on_device: false, why: String::new() },
        graph_capture: GraphCapture { asked: settings.capture, captured: false, why: String::new() },
        sampling: Sampling::Greedy,
        logits_processing: None,
        max_new_tokens: 0,
        warmup: 0,
        prompts: Vec::new(),
        peak_rss_bytes: crate::sysinfo::peak_rss_bytes(),
        gpu_memory: decoder.model.memory.as_ref().map(|m| m.memory.clone()),
        memory_phases: Vec::new(),
        comparison: None,
        perplexity: None,
        rewrite: decoder.rewrite.clone(),
        decode_session: decoder
            .decode_session()
            .map(|(rewrite, steps, hand_overs)| DecodeSession::of(rewrite.cloned(), steps, hand_overs)),
        quantization: decoder.made.quantized().map(|q| q.quantization.clone()),
        interrupted: false,
    }
}

/// `--save-model DIR`: the quantized decoder written as a model folder.
fn save_model(settings: &GenerateSettings, decoder: &DecoderSession, preflight: &Preflight) -> Result<()> {
    let (Some(dir), Some(made)) = (&settings.save_model, decoder.made.quantized()) else { return Ok(()) };
    // A model with nothing to quantize never gets here: the engine refuses to make it.
    let files = engine::save_decoder(made, &preflight.model_path, preflight, dir)?;
    for file in files {
        crate::errln!("saved {}", file.display());
    }
    Ok(())
}

/// Every export written, the figures printed, the CI summary published.
fn publish(
    settings: &GenerateSettings,
    exports: &mut Exports<'static, GenerateReport>,
    report: &GenerateReport,
) -> Result<()> {
    exports.finish(report)?;
    crate::err!("{}", report::human(report, settings.verbose));
    if let Some(target) = &settings.github {
        let outcome = crate::report::github::of_generate(report, target.workspace.as_deref());
        crate::report::github::publish(&outcome, target)?;
    }
    Ok(())
}

fn prompts(
    settings: &GenerateSettings,
    source: &PromptSource,
    tokenizer: Option<&TextTokenizer>,
    vocab: usize,
    spec: &DecoderSpec,
) -> Result<Vec<Prompt>> {
    let need_tokenizer = |flag: &str| -> Result<&TextTokenizer> {
        tokenizer.with_context(|| {
            format!("{flag} needs a tokenizer: {} has no tokenizer.json; give one with --tokenizer FILE (or use --prompt-tokens N)", settings.model.display())
        })
    };
    let chat = match (&settings.chat, tokenizer) {
        (Some(chat), Some(t)) => Some((ChatTemplate::beside(&t.path)?, chat.system.as_deref())),
        _ => None,
    };
    // The text the model sees: the prompt, or the conversation the chat template makes of it.
    let shown = |text: &str| -> Result<String> {
        match &chat {
            Some((template, system)) => template.render(*system, text),
            None => Ok(text.to_string()),
        }
    };
    match source {
        PromptSource::Synthetic(n) => {
            let vocab = tokenizer.map_or(vocab, |t| t.vocab_size().min(vocab));
            let ids = generate::synthetic_prompt(*n, vocab, &spec.eos_token_ids, settings.seed);
            Ok(vec![Prompt { source: "--prompt-tokens".into(), text: None, ids }])
        }
        PromptSource::Ids(ids) => {
            if let Some(bad) = ids.iter().find(|&&id| id < 0 || id as usize >= vocab) {
                bail!("--prompt-ids: {bad} is not a token id of this model (its vocabulary has {vocab} ids)");
            }
            Ok(vec![Prompt { source: "--prompt-ids".into(), text: None, ids: ids.clone() }])
        }
        PromptSource::Text(text) => {
            let ids = need_tokenizer("--prompt")?.encode(&shown(text)?)?;
            Ok(vec![Prompt { source: "--prompt".into(), text: Some(text.clone()), ids }])
        }
        PromptSource::File(file) => {
            let tokenizer = need_tokenizer("--prompt-file")?;
            let content =
                crate::fsutil::read_text(file).with_context(|| format!("--prompt-file {}", file.display()))?;
            let mut prompts = Vec::new();
            for (i, line) in content.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                let ids = tokenizer.encode(&shown(line)?)?;
                let source = format!("{}:{}", file.display(), i + 1);
                prompts.push(Prompt { source, text: Some(line.to_string()), ids });
            }
            if prompts.is_empty() {
                bail!("--prompt-file {}: no prompts (every line is empty)", file.display());
            }
            Ok(prompts)
        }
    }
}

/// `--compare-ep`: each prompt's greedy tokens on this EP (generated again where they were
/// sampled) against the reference session's, every step's logits judged.
fn compare_prompts(
    decoder: &mut DecoderSession,
    reference: &mut DecoderSession,
    prompts: &[Prompt],
    results: &[PromptResult],
    looping: &LoopSettings,
    sampled: bool,
) -> Result<TokenComparison> {
    let mut compared = Vec::new();
    for (prompt, result) in prompts.iter().zip(results) {
        let ours = match sampled {
            // Sampled tokens are not comparable; greedy ones on this EP are.
            true => {
                let mut greedy = Sampler::new(Sampling::Greedy);
                generate::generate(decoder, &prompt.ids, looping, &mut greedy, &mut |_, _| Ok(()))?.tokens
            }
            false => result.token_ids.clone(),
        };
        compared.push(compare_prompt(decoder, reference, prompt, ours, looping)?);
    }
    Ok(TokenComparison { reference_ep: reference.model.device.describe(), prompts: compared })
}

/// One prompt compared with the reference (`generate::against_reference`), as the report has it.
fn compare_prompt(
    decoder: &mut DecoderSession,
    reference: &mut DecoderSession,
    prompt: &Prompt,
    ours: Vec<i64>,
    looping: &LoopSettings,
) -> Result<PromptComparison> {
    let compared = generate::against_reference(decoder, reference, &prompt.ids, looping)?;
    let first_difference = report::first_difference(&ours, &compared.reference_tokens);
    Ok(PromptComparison {
        source: prompt.source.clone(),
        matching: first_difference.unwrap_or(ours.len()),
        first_difference,
        logits: compared.logits,
        reference_token_ids: compared.reference_tokens,
    })
}

/// The exports generate's flags ask for, one exporter per format, as bench's and test's.
fn exports(settings: &GenerateSettings) -> Result<Exports<'static, GenerateReport>> {
    Exports::checked(GenerateReport::exports(&settings.exports)?)
}

/// A generation that failed on an EP other than the CPU: the same steps (the prompt, then each
/// token chosen before the failure) replayed on the CPU EP decide whose failure it is, and the
/// node ONNX Runtime names is looked up in the graph.
fn blame(
    runtime: &Runtime,
    options: &DecoderOptions,
    prompt: &[i64],
    chosen: &[i64],
    device: &DeviceReport,
    error: anyhow::Error,
) -> anyhow::Error {
    use crate::generate::Decoder;
    let message = crate::runtime::engine::diagnose::shorten_source_paths(&crate::exit::one_line(&error));
    let at = match chosen.len() {
        0 => format!("the prefill ({} prompt tokens)", prompt.len()),
        k => format!("decode step {k}"),
    };
    crate::errln!("dmlrun: {at} failed on {}; replaying the same steps on the CPU EP to say whose failure it is (--no-blame skips this)", device.execution_provider);
    let model_path = options.preflight.model_path.as_path();
    let cpu = options.preflight.with_request(runtime, &options.preflight.request.reference(EpRequest::Cpu, None));
    let replay = cpu
        .and_then(|cpu| {
            DecoderSession::open(runtime, &DecoderOptions { preflight: &cpu, print_plan: false, ..*options })
        })
        .and_then(|mut reference| {
            reference.step(prompt)?;
            for &token in chosen {
                reference.step(&[token])?;
            }
            Ok(())
        });
    let node = crate::runtime::engine::diagnose::named_nodes(&message).pop().map(|(op, name)| {
        let graph = crate::graph::Graph::read(model_path).ok();
        match graph.as_ref().and_then(|g| Some((g, g.node_named(&name)?))) {
            Some((graph, node)) => {
                let mut detail = crate::runtime::engine::diagnose::NodeDetail::of(graph, node, |_| String::new());
                detail.inputs.clear();
                detail.outputs.clear();
                detail.describe()
            }
            None => format!("'{name}' ({})", op.unwrap_or_default()),
        }
    });
    let node = node.map(|n| format!(" at node {n}")).unwrap_or_default();
    match replay {
        Ok(()) => anyhow::anyhow!(
            "model {}: {} rejects this model{node} in {at} (the CPU EP runs the same steps): {message}",
            model_path.display(),
            device.execution_provider
        ),
        Err(reference) => anyhow::anyhow!(
            "model {}: {at} fails{node} on {} and on the CPU EP too ({}): {message}",
            model_path.display(),
            device.execution_provider,
            crate::exit::one_line(&reference)
        ),
    }
}
