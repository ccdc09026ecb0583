//! `dmlrun generate`.

use std::path::PathBuf;

use clap::{ArgGroup, Args};

use super::help::{BATCHES, CHECKING, EXECUTION_PROVIDER, GENERATION, INPUTS, OUTPUTS, TIMING};
use super::parse::*;
use super::{DeviceIoArgs, OrtArgs, SessionArgs};
use crate::generate::KvLayout;
use crate::runtime::plan::{EpRequest, OptimizationLevel};

/// `dmlrun generate`.
#[derive(Debug, Clone, Args)]
#[command(group(ArgGroup::new("prompt_source").args(["prompt", "prompt_file", "prompt_tokens", "prompt_ids", "perplexity"])))]
#[command(mut_arg("precision", |arg| arg.value_parser(generate_precision())))]
pub struct GenerateArgs {
    /// An onnxruntime-genai model folder (genai_config.json, the decoder .onnx, tokenizer.json),
    /// or a decoder .onnx with input_ids, past_key_values.N.key|value inputs and logits,
    /// present.N.key|value outputs (the tokenizer.json beside it, or --tokenizer).
    ///
    /// Example: dmlrun generate phi-3-mini-dml/ --prompt "Why is the sky blue?"
    #[arg(value_name = "MODEL")]
    pub model: PathBuf,

    /// The prompt text, tokenized with the model's tokenizer.json.
    ///
    /// Example: --prompt "Write a haiku about GPUs."
    #[arg(short, long, value_name = "TEXT", help_heading = INPUTS)]
    pub prompt: Option<String>,

    /// A file of prompts, one per line (empty lines skipped); each is generated and reported
    /// on its own.
    ///
    /// Example: --prompt-file prompts.txt
    #[arg(long, value_name = "FILE", help_heading = INPUTS)]
    pub prompt_file: Option<PathBuf>,

    /// A synthetic prompt of exactly N tokens (ids drawn from --seed), as LLM benchmark scripts
    /// use; needs no tokenizer.
    ///
    /// Example: --prompt-tokens 1024
    #[arg(long, value_name = "N", value_parser = parse_at_least_1, help_heading = INPUTS)]
    pub prompt_tokens: Option<u64>,

    /// The prompt as token ids, comma-separated (to reproduce another tool's run exactly);
    /// needs no tokenizer.
    ///
    /// Example: --prompt-ids 1,450,4996,17354
    #[arg(long, value_name = "IDS", value_delimiter = ',', num_args = 1.., help_heading = INPUTS)]
    pub prompt_ids: Option<Vec<i64>>,

    /// Wrap each prompt (--prompt, or each line of --prompt-file) in the model's chat template as
    /// one user message, ending where the assistant's answer begins, as chat applications and
    /// onnxruntime-genai's apply_chat_template do. The template is tokenizer_config.json's
    /// "chat_template" (or chat_template.jinja) beside the tokenizer.
    ///
    /// Example: dmlrun generate smollm2/ --chat --prompt "What is the capital of France?"
    #[arg(long, help_heading = INPUTS)]
    pub chat: bool,

    /// The system message of --chat (default: whatever the template puts there, often nothing).
    ///
    /// Example: --system "Answer in one sentence."
    #[arg(long, value_name = "TEXT", requires = "chat", hide_short_help = true, help_heading = INPUTS)]
    pub system: Option<String>,

    /// Instead of generating, the teacher-forced perplexity of this text file (UTF-8): its tokens
    /// in windows of --window, each --stride after the last, every token after the first scored
    /// once (Hugging Face's recipe for fixed-length models). With --compare-ep, on both EPs and
    /// their ratio. Runs the prefill path only.
    ///
    /// Example: --perplexity LICENSE-APACHE --window 1024
    #[arg(long, value_name = "FILE", help_heading = INPUTS)]
    pub perplexity: Option<PathBuf>,

    /// Tokens in one window of --perplexity (default: the model's context, at most 2048).
    ///
    /// Example: --window 512
    #[arg(long, value_name = "N", requires = "perplexity", value_parser = parse_at_least_1, hide_short_help = true, help_heading = INPUTS)]
    pub window: Option<u64>,

    /// Tokens from one window's start to the next's, with --perplexity (default: half the window).
    ///
    /// Example: --stride 256
    #[arg(long, value_name = "N", requires = "perplexity", value_parser = parse_at_least_1, hide_short_help = true, help_heading = INPUTS)]
    pub stride: Option<u64>,

    /// The tokenizer.json to use (default: the one in the model's folder).
    ///
    /// Example: --tokenizer qwen/tokenizer.json
    #[arg(long, value_name = "FILE", help_heading = INPUTS)]
    pub tokenizer: Option<PathBuf>,

    #[command(flatten)]
    pub session: SessionArgs,

    #[command(flatten)]
    pub device_io: DeviceIoArgs,

    /// Stop after this many new tokens (or at an end-of-sequence token).
    ///
    /// Example: --max-new-tokens 128
    #[arg(short = 'n', long, value_name = "N", default_value_t = 128, value_parser = parse_at_least_1, help_heading = GENERATION)]
    pub max_new_tokens: u64,

    /// The KV buffer's length in positions (prompt plus new tokens), fixed so that DirectML
    /// compiles one shape for every prompt. Default: the prompt plus --max-new-tokens.
    ///
    /// Example: --max-length 2048
    #[arg(long, value_name = "N", help_heading = GENERATION)]
    pub max_length: Option<usize>,

    /// The model's context length, for a bare .onnx (a genai folder's config says it).
    ///
    /// Example: --context-length 4096
    #[arg(long, value_name = "N", help_heading = GENERATION)]
    pub context_length: Option<usize>,

    /// The KV cache's layout: shared (one static buffer, onnxruntime-genai's
    /// past_present_share_buffer) or growing. Default: what genai_config.json says; growing for
    /// a bare .onnx.
    ///
    /// Example: --kv-layout growing
    #[arg(long, value_name = "LAYOUT", help_heading = GENERATION)]
    pub kv_layout: Option<KvLayout>,

    /// Run DirectML's decode step uncaptured. By default generate captures it once and replays
    /// it where the model allows (the shared KV layout), as onnxruntime-genai does on DirectML:
    /// this flag is for measuring what capture saves, or for a driver whose capture misbehaves.
    /// The report says which was used and why.
    ///
    /// Example: --no-dml-graph-capture
    #[arg(long, conflicts_with = "dml_graph_capture", help_heading = EXECUTION_PROVIDER)]
    pub no_dml_graph_capture: bool,

    /// Run the one-token decode step in a session of its own whose model this rule rewrites too
    /// (a comma list, or repeated; a rule's flag without its dashes); the prompt runs the model
    /// as the other flags make it.
    ///
    /// For a rewrite that is faster at one row and wrong or slower at many: the GEMV form
    /// (matmul-as-mul-reducesum) ran a decode step 1.13x faster on this project's H200 and gave
    /// not-a-number logits at a 16-token prefill in float16. The two sessions share the KV
    /// cache (one buffer, bound to both) and each holds its own weights (twice the weights'
    /// memory). The report says what each session's model had rewritten. dmlrun tune tries it.
    ///
    /// Example: dmlrun generate qwen2-dml/ --device 0 --prompt-tokens 128 --decode-rewrite matmul-as-mul-reducesum
    #[arg(long, value_name = "RULE[,RULE...]", value_delimiter = ',', value_parser = parse_rule, help_heading = GENERATION)]
    pub decode_rewrite: Vec<crate::graph::Rewrite>,

    /// Choose the greedy token on the host from the logits read back each step. By default, over
    /// a captured decode step, an ArgMax on the device picks it where the logits are and one id
    /// comes back: this flag is for measuring what that saves, or for a driver whose ArgMax is
    /// doubted. The report says where the token was chosen and why.
    ///
    /// Example: --choose-on-host
    #[arg(long, conflicts_with = "sample", help_heading = GENERATION)]
    pub choose_on_host: bool,

    /// Keep generating past end-of-sequence tokens, so every repetition makes --max-new-tokens
    /// (benchmarks).
    ///
    /// Example: --ignore-eos
    #[arg(long, help_heading = GENERATION)]
    pub ignore_eos: bool,

    /// Sample the next token instead of taking the most likely one (greedy, the default).
    ///
    /// Example: --sample --temperature 0.7 --top-p 0.9 --seed 1
    #[arg(long, help_heading = GENERATION)]
    pub sample: bool,

    /// Sampling temperature (with --sample).
    ///
    /// Example: --temperature 0.7
    #[arg(long, value_name = "T", default_value_t = 1.0, requires = "sample", help_heading = GENERATION)]
    pub temperature: f32,

    /// Sample among the K most likely tokens only (0: all; with --sample).
    ///
    /// Example: --top-k 50
    #[arg(long, value_name = "K", default_value_t = 0, requires = "sample", help_heading = GENERATION)]
    pub top_k: usize,

    /// Sample among the most likely tokens whose probabilities reach P (with --sample).
    ///
    /// Example: --top-p 0.9
    #[arg(long, value_name = "P", default_value_t = 1.0, requires = "sample", help_heading = GENERATION)]
    pub top_p: f32,

    /// Each token already in the prompt or the text has its logit divided by F (multiplied where
    /// negative) before the choice, as transformers' and onnxruntime-genai's repetition_penalty
    /// (1: off; 1.1 to 1.3 is usual). A guard against a greedy decoder that loops; the logits
    /// then come back to the host each step (not chosen on the device).
    ///
    /// Example: --repetition-penalty 1.2
    #[arg(long, value_name = "F", default_value_t = 1.0, value_parser = parse_repetition_penalty, help_heading = GENERATION)]
    pub repetition_penalty: f32,

    /// No run of N tokens occurs twice: a token that would repeat one is never chosen, as
    /// transformers' no_repeat_ngram_size (0: off).
    ///
    /// Example: --no-repeat-ngram 3
    #[arg(long, alias = "no-repeat-ngram-size", value_name = "N", default_value_t = 0, help_heading = GENERATION)]
    pub no_repeat_ngram: usize,

    /// Seed for --sample and for --prompt-tokens.
    ///
    /// Example: --seed 42
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = GENERATION)]
    pub seed: u64,

    /// Measured repetitions of each prompt (the figures are over these).
    ///
    /// Example: --iterations 5
    // No -i: that is --input in every other command.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_at_least_1, help_heading = TIMING)]
    pub iterations: u64,

    /// Unmeasured repetitions first.
    ///
    /// Example: --warmup 1
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = parse_warmup, help_heading = TIMING)]
    pub warmup: u64,

    /// Judge this EP's logits at every step against this execution provider's (exit 1 where
    /// their choices part where the reference was sure).
    ///
    /// The reference generates greedily; this EP is fed the same tokens and each step's logits
    /// are compared (max |diff|, cosine, top-5 shared): a near-tie (the reference's margin within
    /// the two EPs' noise) or logits that drift without a part warn. Takes what --ep takes.
    ///
    /// Example: --ep dml --compare-ep cpu
    #[arg(long, value_name = "EP", value_parser = parse_ep, help_heading = CHECKING)]
    pub compare_ep: Option<EpRequest>,

    /// Graph optimisation level of the --compare-ep session (default: the same as --opt-level).
    ///
    /// Example: --compare-opt-level disable
    #[arg(long, value_name = "LEVEL", requires = "compare_ep", help_heading = CHECKING)]
    pub compare_opt_level: Option<OptimizationLevel>,

    /// When a step fails on an EP other than the CPU, say ONNX Runtime's error as it is, without
    /// replaying the steps on the CPU EP to decide whose failure it is (the replay of a large
    /// float16 model can take minutes on the CPU).
    ///
    /// Example: --no-blame
    #[arg(long, help_heading = CHECKING)]
    pub no_blame: bool,

    /// Stop the whole generation after this long (default 10m; 0 for no limit) and say which
    /// step it was in: session creation, the prefill, or decode step k. Exit 2.
    ///
    /// A step that never returns (a GPU that hangs) holds the process, so the process ends there.
    ///
    /// Example: --timeout 2m
    #[arg(long, value_name = "TIME", value_parser = parse_limit, default_value = "10m", help_heading = BATCHES)]
    pub timeout: std::time::Duration,

    /// With --precision int4 or int8: write the decoder as its session ran it, as a model folder
    /// DIR (new, or empty): the model under its own file name with its data, its folder's
    /// genai_config.json and tokenizer files beside it, and dmlrun.* metadata_props saying what
    /// was quantized, what was left and why. Written whole or not at all.
    ///
    /// Example: dmlrun generate qwen-fp16/ --precision int4 --prompt "Hi" --save-model qwen-int4/
    #[arg(long, value_name = "DIR", help_heading = OUTPUTS)]
    pub save_model: Option<PathBuf>,

    #[command(flatten)]
    pub exports: super::ExportArgs,

    /// With the figures, each prompt's generated token ids and its decode latency along the
    /// positions (where a growing KV cache shows).
    ///
    /// Example: -v
    #[arg(short, long, help_heading = OUTPUTS)]
    pub verbose: bool,

    /// No generated text on stdout and no progress on stderr (the figures are still printed).
    ///
    /// Example: -q
    #[arg(short, long, help_heading = OUTPUTS)]
    pub quiet: bool,

    #[command(flatten)]
    pub ci: super::CiArgs,

    #[command(flatten)]
    pub ort: OrtArgs,
}

/// generate's `--precision`: what it takes listed (fp32, int4, int8); fp16 still parses, hidden,
/// so that settings can say why a decoder is not converted to float16.
fn generate_precision() -> impl clap::builder::TypedValueParser<Value = crate::runtime::plan::Precision> {
    use crate::runtime::plan::Precision;
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    use clap::ValueEnum;
    let listed: Vec<PossibleValue> = [Precision::Fp32, Precision::Int4, Precision::Int8, Precision::Fp16]
        .into_iter()
        .filter_map(|p| Some(p.to_possible_value()?.hide(p == Precision::Fp16)))
        .collect();
    PossibleValuesParser::new(listed).map(|text| Precision::from_str(&text, true).unwrap_or_default())
}
