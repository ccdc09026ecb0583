//! `dmlrun run` (and `dmlrun MODEL`).

use std::path::PathBuf;

use clap::Args;

use super::help::{BATCHES, OUTPUTS, TIMING};
use super::parse::{parse_iterations, parse_limit, parse_positive, parse_warmup};
use super::{CompareArgs, DeviceIoArgs, InputArgs, OrtArgs, PreprocessArgs, SessionArgs};
use crate::outputs::SaveFormat;

/// `dmlrun run` / `dmlrun MODEL`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// The ONNX model file.
    ///
    /// Example: dmlrun squeezenet1.1.onnx --input cat.png
    #[arg(value_name = "MODEL", required = true)]
    pub model: Option<PathBuf>,

    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub preprocess: PreprocessArgs,

    #[command(flatten)]
    pub session: SessionArgs,

    #[command(flatten)]
    pub device_io: DeviceIoArgs,

    /// Untimed runs after the first run and before the timed iterations.
    ///
    /// Example: --warmup 10
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = parse_warmup, help_heading = TIMING)]
    pub warmup: u64,

    /// Timed runs after the first run (at least 1).
    ///
    /// Example: --iterations 1000
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = parse_iterations, help_heading = TIMING)]
    pub iterations: u64,

    #[command(flatten)]
    pub compare: CompareArgs,

    /// Stop the whole run after this long (default 10m; 0 for no limit) and say which step it
    /// was in: session creation, the first run, the timed runs. Exit 2.
    ///
    /// A run that never returns (a model that loops, a GPU that hangs) holds the process, so the
    /// process ends there, as bench's and test's children do.
    ///
    /// Example: --timeout 2m
    #[arg(long, value_name = "TIME", value_parser = parse_limit, default_value = "10m", help_heading = BATCHES)]
    pub timeout: std::time::Duration,

    /// Show the K best classes of classifier outputs ([classes] or [batch, classes]).
    ///
    /// Example: --top-k 5 --labels imagenet_classes.txt
    #[arg(long, value_name = "K", value_parser = parse_positive, help_heading = OUTPUTS)]
    pub top_k: Option<usize>,

    /// Class labels, one per line in class order, for --top-k.
    ///
    /// Example: --top-k 5 --labels imagenet_classes.txt
    #[arg(long, value_name = "FILE", requires = "top_k", help_heading = OUTPUTS)]
    pub labels: Option<PathBuf>,

    /// Write the outputs into DIR (created if needed; files written atomically).
    ///
    /// Example: --save-outputs out/ --save-format npz
    #[arg(long, value_name = "DIR", help_heading = OUTPUTS)]
    pub save_outputs: Option<PathBuf>,

    /// With --save-outputs DIR: write DIR as an ONNX test-data folder instead (model.onnx and
    /// test_data_set_0/input_K.pb, output_K.pb) that `dmlrun test DIR` checks later: a frozen
    /// record of the model's behaviour. model.onnx is the model that made the outputs, as
    /// --save-model writes it (rewritten, converted), never the original beside another's outputs.
    ///
    /// Example: --save-outputs frozen/my_model --as-test-data, then dmlrun test frozen/
    #[arg(long, requires = "save_outputs", help_heading = OUTPUTS)]
    pub as_test_data: bool,

    /// Write the model as the session ran it to FILE: with every rewrite (--decompose,
    /// --gemm-zero-bias, --reshape-allowzero-off) and the float16 conversion, and dmlrun.*
    /// metadata_props saying what was done (dmlrun's version, the source model's hash, the
    /// rewrites, the precision, the largest difference from the original on the reference EP).
    /// Loaded alone, with no flag, it gives the outputs this run gave. Free dimensions stay as
    /// the file has them (a session fixes them through its options).
    ///
    /// Example: dmlrun bert.onnx --device 0 --decompose LayerNormalization --precision fp16 --save-model bert-dml.onnx
    #[arg(long, value_name = "FILE", help_heading = OUTPUTS)]
    pub save_model: Option<PathBuf>,

    /// With --save-model: write the free dimensions as this run fixed them (--dim, --shape, or the sizes
    /// dmlrun gave them for DirectML from the inputs), for an application that sets no
    /// free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay
    /// symbolic, as in the source.
    ///
    /// Example: dmlrun det.onnx --device 0 --dim N=1 --save-model det-dml.onnx --save-fixed-dims
    #[arg(long, requires = "save_model", help_heading = OUTPUTS)]
    pub save_fixed_dims: bool,

    /// Write the inputs as fed to the model (after image preprocessing) into DIR.
    ///
    /// Example: --save-inputs prepared/ --save-format pb
    #[arg(long, value_name = "DIR", help_heading = OUTPUTS)]
    pub save_inputs: Option<PathBuf>,

    /// File format for --save-outputs and --save-inputs: npy (one file per tensor), npz, or pb
    /// (ONNX TensorProto files named input_K.pb / output_K.pb, as in ONNX test data).
    ///
    /// Example: --save-format pb
    #[arg(long, value_name = "FORMAT", default_value = "npy", help_heading = OUTPUTS)]
    pub save_format: SaveFormat,

    /// Write the whole report as JSON to FILE ("-" for stdout, replacing the human report).
    ///
    /// Example: --json - | jq .timings_ms
    #[arg(long, value_name = "FILE", help_heading = OUTPUTS)]
    pub json: Option<PathBuf>,

    /// Print only the outputs, no timings or progress.
    ///
    /// Example: -q --top-k 1
    #[arg(short, long, help_heading = OUTPUTS)]
    pub quiet: bool,

    /// Say more: the resolved session plan too (as --print-plan), before the session.
    ///
    /// Example: -v
    #[arg(short, long, conflicts_with = "quiet", help_heading = OUTPUTS)]
    pub verbose: bool,

    #[command(flatten)]
    pub ort: OrtArgs,
}
