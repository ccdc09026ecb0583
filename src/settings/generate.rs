//! `dmlrun generate`'s settings.

use super::*;

/// Where `generate`'s prompts come from.
#[derive(Debug, Clone)]
pub enum PromptSource {
    /// `--prompt-tokens N`: a synthetic prompt of N ids.
    Synthetic(usize),
    /// `--prompt-ids`.
    Ids(Vec<i64>),
    /// `--prompt TEXT`.
    Text(String),
    /// `--prompt-file FILE`: one prompt a non-empty line.
    File(PathBuf),
}

/// What `generate` is asked to do.
#[derive(Debug, Clone)]
pub enum Task {
    /// `--chat` with no prompt: a conversation read from standard input, a turn a line.
    Conversation,
    /// Generate from each prompt.
    Generate(PromptSource),
    /// `--perplexity FILE`: score a text, generating nothing.
    Perplexity { text: PathBuf, window: Option<usize>, stride: Option<usize> },
}

/// `--chat`: each text prompt wrapped in the model's chat template.
#[derive(Debug, Clone)]
pub struct Chat {
    pub system: Option<String>,
}

/// `dmlrun generate`'s flags, resolved once: what the loop, the session and the report read.
#[derive(Debug, Clone)]
pub struct GenerateSettings {
    pub model: PathBuf,
    pub tokenizer: Option<PathBuf>,
    pub context_length: Option<usize>,
    /// `--kv-layout`, where given (else the model's genai_config.json says).
    pub kv_layout: Option<crate::generate::KvLayout>,
    pub task: Task,
    pub chat: Option<Chat>,
    pub seed: u64,
    pub max_new_tokens: usize,
    pub max_length: Option<usize>,
    pub ignore_eos: bool,
    pub sampling: crate::generate::Sampling,
    /// `--repetition-penalty`, `--no-repeat-ngram`.
    pub processing: crate::generate::LogitsProcessing,
    pub choice: crate::generate::Choice,
    pub capture: crate::generate::CaptureAsk,
    pub warmup: u64,
    pub iterations: u64,
    /// `--compare-ep` and its optimisation level.
    pub compare: Option<(EpRequest, Option<OptimizationLevel>)>,
    pub blame: bool,
    /// `--timeout`; zero for none.
    pub timeout: Duration,
    pub ort: OrtSettings,
    pub request: PlanRequest,
    pub print_plan: bool,
    pub exports: ReportFiles,
    /// `--save-model DIR`: the quantized decoder written as a model folder.
    pub save_model: Option<PathBuf>,
    pub verbose: bool,
    pub quiet: bool,
    pub github: Option<github::Target>,
}

impl GenerateSettings {
    pub fn resolve(args: &GenerateArgs) -> Result<GenerateSettings> {
        use crate::generate::{CaptureAsk, Choice, Sampling};
        use anyhow::bail;
        if args.session.precision == crate::runtime::plan::Precision::Fp16 {
            bail!("--precision fp16 converts a model for run, test, bench and reduce; a decoder comes in float16 from its builder (onnxruntime-genai's -p fp16); generate takes int4 and int8");
        }
        let exports = report_files(&args.exports);
        let processing = crate::generate::LogitsProcessing {
            repetition_penalty: args.repetition_penalty,
            no_repeat_ngram: args.no_repeat_ngram,
        };
        if !args.decode_rewrite.is_empty() && args.session.precision.weight_bits().is_some() {
            bail!("--decode-rewrite rewrites the decoder's float products before any quantizing, so its decode step would not be quantized; give it without --precision int4|int8 (on a model that comes quantized it is refused where nothing fits)");
        }
        if let Some(dir) = &args.save_model {
            if args.session.precision.weight_bits().is_none() {
                bail!(
                    "--save-model {}: generate writes a decoder it quantized; give --precision int4 or int8",
                    dir.display()
                );
            }
            // Checked before the quantizing and the generation, not after them.
            crate::fsutil::check_free_folder(dir)
                .and_then(|()| crate::report::export::check_writable_folder(dir))
                .map_err(|e| anyhow::anyhow!("--save-model {}: {e}", dir.display()))?;
        }
        let prompt = match (&args.prompt_tokens, &args.prompt_ids, &args.prompt, &args.prompt_file) {
            (Some(n), ..) => Some(PromptSource::Synthetic(*n as usize)),
            (None, Some(ids), ..) => Some(PromptSource::Ids(ids.clone())),
            (None, None, Some(text), _) => Some(PromptSource::Text(text.clone())),
            (None, None, None, Some(file)) => Some(PromptSource::File(file.clone())),
            (None, None, None, None) => None,
        };
        let task = match (prompt, &args.perplexity) {
            (None, None) if args.chat => Task::Conversation,
            (Some(prompt), _) => Task::Generate(prompt),
            (None, Some(text)) => Task::Perplexity {
                text: text.clone(),
                window: args.window.map(|n| n as usize),
                stride: args.stride.map(|n| n as usize),
            },
            (None, None) => bail!(
                "no prompt: give --prompt TEXT, --prompt-file FILE, --prompt-tokens N or --prompt-ids IDS (or --perplexity FILE)"
            ),
        };
        if args.chat
            && !matches!(task, Task::Generate(PromptSource::Text(_) | PromptSource::File(_)) | Task::Conversation)
        {
            bail!("--chat wraps a text prompt in the model's chat template: give --prompt TEXT or --prompt-file FILE, or none to talk turn by turn");
        }
        if matches!(task, Task::Conversation) && args.compare_ep.is_some() {
            bail!("--compare-ep compares generations of given prompts; --chat with no prompt reads its turns from standard input");
        }
        Ok(GenerateSettings {
            model: args.model.clone(),
            tokenizer: args.tokenizer.clone(),
            context_length: args.context_length,
            kv_layout: args.kv_layout,
            task,
            chat: args.chat.then(|| Chat { system: args.system.clone() }),
            seed: args.seed,
            max_new_tokens: args.max_new_tokens as usize,
            max_length: args.max_length,
            ignore_eos: args.ignore_eos,
            sampling: match args.sample {
                true => Sampling::Sample {
                    temperature: args.temperature,
                    top_k: args.top_k,
                    top_p: args.top_p,
                    seed: args.seed,
                },
                false => Sampling::Greedy,
            },
            choice: match (args.sample, args.choose_on_host, args.compare_ep.is_some(), processing.is_identity()) {
                (true, ..) => Choice::Sampled,
                (false, true, ..) => Choice::GreedyOnHost,
                (false, false, true, _) => Choice::GreedyLogitsCompared,
                (false, false, false, false) => Choice::GreedyProcessed,
                (false, false, false, true) => Choice::Greedy,
            },
            processing,
            capture: match (args.device_io.dml_graph_capture, args.no_dml_graph_capture) {
                (true, _) => CaptureAsk::DmlGraphCapture,
                (false, true) => CaptureAsk::NoDmlGraphCapture,
                (false, false) => CaptureAsk::Default,
            },
            warmup: args.warmup,
            iterations: args.iterations,
            compare: args.compare_ep.clone().map(|ep| (ep, args.compare_opt_level)),
            blame: !args.no_blame,
            timeout: args.timeout,
            ort: OrtSettings::of(&args.ort),
            request: PlanRequest {
                decode_rewrites: args.decode_rewrite.clone(),
                ..run_plan_request(&args.session, &args.device_io, args.ort.ort_log_level)?
            },
            print_plan: args.session.print_plan,
            exports,
            save_model: args.save_model.clone(),
            verbose: args.verbose,
            quiet: args.quiet,
            github: github_target(&args.ci),
        })
    }
}
