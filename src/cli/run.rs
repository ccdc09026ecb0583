//! `dmlrun run` (and `dmlrun MODEL`).

use std::path::PathBuf;

use clap::Args;

use super::parse::*;
use super::{CompareArgs, DeviceIoArgs, OrtArgs, PreprocessArgs, SessionArgs};
use crate::inputs::generate::{Fill, ValueRange};
use crate::inputs::InputSpec;
use crate::outputs::SaveFormat;

/// `dmlrun run` / `dmlrun MODEL`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// The ONNX model file.
    ///
    /// Example: dmlrun squeezenet1.1.onnx --input cat.png
    #[arg(value_name = "MODEL", required = true)]
    pub model: Option<PathBuf>,

    /// An input: FILE for the model's first input, or NAME=FILE. Repeatable.
    ///
    /// Images (PNG, JPEG, BMP, WebP, TIFF) are preprocessed (see below); several images for
    /// one input fill its batch. Tensors: .npy, .npz (arrays named after inputs), ONNX
    /// TensorProto .pb. dtype and shape must match the model.
    ///
    /// Example: --input cat.png, or --input input_ids=ids.npy --input attention_mask=mask.npy
    #[arg(short, long = "input", value_name = "[NAME=]FILE", value_parser = parse_input)]
    pub inputs: Vec<InputSpec>,

    /// Fill inputs no --input gives: random (seeded), zeros or ones.
    ///
    /// Example: --generate random --seed 7
    #[arg(long, value_name = "FILL")]
    pub generate: Option<Fill>,

    /// Seed for --generate random.
    ///
    /// Example: --generate random --seed 7
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no
    /// other input with the same dimension name). Default 1.
    ///
    /// A folder of image models whose height and width are free needs more than 1 (a
    /// convolution's kernel does not fit in 1x1): --free-dim-size 224.
    ///
    /// Example: --generate random --free-dim-size 224
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub free_dim_size: u64,

    /// The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI):
    /// floats in [LO, HI), integers from LO to HI inclusive. Repeatable.
    ///
    /// Defaults: floats in [0, 1), integers 0 or 1 (indices, masks and token types accept
    /// them), bools either.
    ///
    /// Example: --generate-range input_ids=0,30521 --generate-range pixel_values=-1,1
    #[arg(long = "generate-range", value_name = "[NAME=]LO,HI", value_parser = parse_range)]
    pub generate_ranges: Vec<(Option<String>, ValueRange)>,

    /// Untimed runs after the first run and before the timed iterations.
    ///
    /// Example: --warmup 10
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub warmup: u64,

    /// Timed runs after the first run (at least 1).
    ///
    /// Example: --iterations 1000
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: u64,

    /// Show the K best classes of classifier outputs ([classes] or [batch, classes]).
    ///
    /// Example: --top-k 5 --labels imagenet_classes.txt
    #[arg(long, value_name = "K")]
    pub top_k: Option<usize>,

    /// Class labels, one per line in class order, for --top-k.
    ///
    /// Example: --top-k 5 --labels imagenet_classes.txt
    #[arg(long, value_name = "FILE", requires = "top_k")]
    pub labels: Option<PathBuf>,

    /// Write the outputs into DIR (created if needed; files written atomically).
    ///
    /// Example: --save-outputs out/ --save-format npz
    #[arg(long, value_name = "DIR")]
    pub save_outputs: Option<PathBuf>,

    /// With --save-outputs DIR: write DIR as an ONNX test-data folder instead (model.onnx and
    /// test_data_set_0/input_K.pb, output_K.pb) that `dmlrun test DIR` checks later: a frozen
    /// record of the model's behaviour.
    ///
    /// Example: --save-outputs frozen/my_model --as-test-data, then dmlrun test frozen/
    #[arg(long, requires = "save_outputs")]
    pub as_test_data: bool,

    /// Write the inputs as fed to the model (after image preprocessing) into DIR.
    ///
    /// Example: --save-inputs prepared/ --save-format pb
    #[arg(long, value_name = "DIR")]
    pub save_inputs: Option<PathBuf>,

    /// File format for --save-outputs and --save-inputs: npy (one file per tensor), npz, or pb
    /// (ONNX TensorProto files named input_K.pb / output_K.pb, as in ONNX test data).
    ///
    /// Example: --save-format pb
    #[arg(long, value_name = "FORMAT", default_value = "npy")]
    pub save_format: SaveFormat,

    #[command(flatten)]
    pub compare: CompareArgs,

    /// Write the whole report as JSON to FILE ("-" for stdout, replacing the human report).
    ///
    /// Example: --json - | jq .timings_ms
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Refuse tensors (input files, generated data) larger than this many bytes.
    ///
    /// Example: --max-tensor-bytes 17179869184
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 30)]
    pub max_tensor_bytes: u64,

    /// Refuse images with more pixels than this (decompression bombs).
    ///
    /// Example: --max-image-pixels 400000000
    #[arg(long, value_name = "PIXELS", default_value_t = 100_000_000)]
    pub max_image_pixels: u64,

    /// Print only the outputs, no timings or progress.
    ///
    /// Example: -q --top-k 1
    #[arg(short, long)]
    pub quiet: bool,

    #[command(flatten)]
    pub session: SessionArgs,

    #[command(flatten)]
    pub device_io: DeviceIoArgs,

    #[command(flatten)]
    pub preprocess: PreprocessArgs,

    #[command(flatten)]
    pub ort: OrtArgs,
}
