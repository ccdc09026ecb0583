//! `dmlrun tune`.

use std::path::PathBuf;

use clap::Args;

use super::help::{OUTPUTS, TIMING};
use super::parse::*;
use super::{InputArgs, OrtArgs, PreprocessArgs, ReferenceArgs, SessionArgs};

/// `dmlrun tune`.
#[derive(Debug, Clone, Args)]
pub struct TuneArgs {
    /// The ONNX model to make faster on the execution provider and device --ep and --device
    /// name, each candidate form checked against the original on the reference (--compare-ep).
    ///
    /// Example: dmlrun tune resnet50.onnx --device 0 -o resnet50-tuned.onnx
    #[arg(value_name = "MODEL")]
    pub model: PathBuf,

    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub preprocess: PreprocessArgs,

    #[command(flatten)]
    pub session: SessionArgs,

    /// How long the search may take: the candidates are tried in order of expected gain until
    /// it is spent (each is timed for a share of it).
    ///
    /// Example: --budget 10m
    #[arg(long, value_name = "TIME", default_value = "5m", value_parser = parse_duration, help_heading = TIMING)]
    pub budget: std::time::Duration,

    #[command(flatten)]
    pub reference: ReferenceArgs,

    /// Where the fastest verified form goes, as `run --save-model` writes it, with what was
    /// applied and its measured ratio in dmlrun.* metadata_props. Nothing is written where no
    /// candidate was measured faster.
    ///
    /// Example: -o resnet50-tuned.onnx
    #[arg(short, long, value_name = "FILE", help_heading = OUTPUTS)]
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
