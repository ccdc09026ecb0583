//! `dmlrun tune`.

use std::path::PathBuf;

use clap::Args;

use super::help::{GENERATION, INPUTS, OUTPUTS, TIMING};
use super::parse::*;
use super::{InputArgs, IsolationArgs, OrtArgs, PreprocessArgs, ReferenceArgs, SessionArgs};

/// `dmlrun tune`.
#[derive(Debug, Clone, Args)]
pub struct TuneArgs {
    /// The ONNX model (or onnxruntime-genai folder) to make faster on the execution provider and
    /// device --ep and --device name, each candidate form checked against the original on the
    /// reference (--compare-ep): a model by its outputs, a decoder by the tokens it generates.
    ///
    /// Example: dmlrun tune resnet50.onnx --device 0 -o resnet50-tuned.onnx
    #[arg(value_name = "MODEL|DIR")]
    pub model: PathBuf,

    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub preprocess: PreprocessArgs,

    #[command(flatten)]
    pub session: SessionArgs,

    /// A decoder (a genai folder) is timed at a synthetic prompt of this many tokens: its time to
    /// first token, and each decode step after it.
    ///
    /// Example: --prompt-tokens 1024
    #[arg(long, value_name = "N", default_value_t = 128, value_parser = parse_at_least_1, help_heading = INPUTS)]
    pub prompt_tokens: u64,

    /// A decoder's new tokens a timed generation (greedy, past any end-of-sequence token).
    ///
    /// Example: --max-new-tokens 128
    #[arg(short = 'n', long, value_name = "N", default_value_t = 64, value_parser = parse_at_least_1, help_heading = GENERATION)]
    pub max_new_tokens: u64,

    /// How long the search may take: the candidates are tried in order of expected gain until
    /// it is spent (each is timed for a share of it).
    ///
    /// Example: --budget 10m
    #[arg(long, value_name = "TIME", default_value = "5m", value_parser = parse_duration, help_heading = TIMING)]
    pub budget: std::time::Duration,

    #[command(flatten)]
    pub reference: ReferenceArgs,

    // A decoder's candidates each in a child process, so that one that hangs or kills its
    // process costs that candidate, not the search.
    #[command(flatten)]
    pub isolation: IsolationArgs,

    /// Where the fastest verified form goes, as `run --save-model` writes it, with what was
    /// applied and its measured ratio in dmlrun.* metadata_props: a FILE for a model, a folder
    /// (new or empty) for a genai folder, its other files copied. Nothing is written where no
    /// candidate was measured faster.
    ///
    /// Example: -o resnet50-tuned.onnx
    #[arg(short, long, value_name = "FILE|DIR", help_heading = OUTPUTS)]
    pub output: Option<PathBuf>,

    /// Write the record of the candidates as JSON to FILE ("-" for stdout instead of the text).
    ///
    /// Example: --json tune.json
    #[arg(long, value_name = "FILE", help_heading = OUTPUTS)]
    pub json: Option<PathBuf>,

    /// No progress lines, only the record.
    ///
    /// Example: -q
    #[arg(short, long, help_heading = OUTPUTS)]
    pub quiet: bool,

    #[command(flatten)]
    pub ort: OrtArgs,
}
