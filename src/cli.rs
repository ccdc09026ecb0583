//! Command-line definitions and help text (clap derive). No behaviour lives here.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::formats::image::{ChannelOrder, Layout, Preset, ResizeMode};
use crate::formats::resample::Filter;
use crate::inputs::generate::{Fill, ValueRange};
use crate::inputs::InputSpec;
use crate::isolation::Isolation;
use crate::outputs::SaveFormat;
use crate::runtime::adapters::DeviceSelector;
use crate::runtime::ep_devices::EpLibraryRequest;
use crate::runtime::plan::{
    DeviceFilter, EpRequest, ExecutionMode, OptimizationLevel, OrtLogLevel, PerformancePreference,
};

const EXAMPLES: &str = "\
Typical uses:
  Run a photo through a model on DirectML adapter 1, with the 5 best classes:
    dmlrun model.onnx --device 1 --input cat.png --top-k 5 --labels labels.txt

  Validate model folders (ONNX test-data layout) in CI, failing only on a change:
    dmlrun test models/ --expect known-failures.txt --junit results.xml

  Benchmark a folder of models and gate on a 5% median-latency regression:
    dmlrun bench models/ --duration 10s --json bench.json --baseline last-bench.json

More: dmlrun info MODEL, dmlrun devices, dmlrun doctor, dmlrun <command> --help.
Exit codes: 0 success, 1 a check failed (test, --compare-ep, --baseline), 2 error.";

/// Run, inspect and time ONNX models on ONNX Runtime, with DirectML as the first-class backend.
#[derive(Debug, Parser)]
#[command(
    name = "dmlrun",
    version,
    about,
    after_help = EXAMPLES,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// When to use colour in help and diagnostics: auto (only on a terminal, and not when
    /// NO_COLOR is set), always, never.
    ///
    /// Example: --color never
    #[arg(long, value_name = "WHEN", default_value = "auto", global = true)]
    pub color: ColorWhen,

    /// `dmlrun MODEL …` is `dmlrun run MODEL …`.
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a model once (plus timed iterations) and report outputs and timings (the default).
    Run(Box<RunArgs>),
    /// Validate models against ONNX test-data folders (model.onnx + test_data_set_N/*.pb).
    ///
    /// Exit code 0 when every case passes (or fails only as --expect says), 1 when a case
    /// fails, 2 when the tests could not run.
    Test(Box<TestArgs>),
    /// Benchmark models: given directly, found in folders, or listed in a TOML/JSON manifest.
    ///
    /// Exit code 1 when --baseline finds a regression beyond --max-regression.
    Bench(Box<BenchArgs>),
    /// Show a model's inputs, outputs, symbolic dimensions, opsets and metadata.
    Info(InfoArgs),
    /// List the DirectML (DXGI) adapters; the index is the --device value.
    Devices(DevicesArgs),
    /// Show which ONNX Runtime dmlrun loads, from where, and its execution providers.
    Doctor(DoctorArgs),
    /// Print a shell completion script: dmlrun completions bash > /etc/bash_completion.d/dmlrun
    Completions(CompletionsArgs),
    /// Print the man page (roff): dmlrun man > dmlrun.1
    Man,
}

/// Where ONNX Runtime comes from and how it logs.
#[derive(Debug, Clone, Args)]
pub struct OrtArgs {
    /// ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll).
    ///
    /// Search order without it: the ORT_DYLIB_PATH environment variable, next to the dmlrun
    /// executable, then the copy the build fetched.
    ///
    /// Example: --ort-lib C:\onnxruntime\onnxruntime.dll
    #[arg(long, value_name = "PATH")]
    pub ort_lib: Option<PathBuf>,

    /// Lowest severity of ONNX Runtime's own log lines shown on stderr.
    ///
    /// `verbose` prints, among much else, the session options ONNX Runtime received.
    ///
    /// Example: --ort-log-level verbose
    #[arg(long, value_name = "LEVEL", default_value = "warning")]
    pub ort_log_level: OrtLogLevel,

    /// Register a plugin execution provider library (ONNX Runtime's
    /// RegisterExecutionProviderLibrary) under NAME, by default the file's name. Repeatable.
    ///
    /// Its EP devices then show in `dmlrun devices`, and --ep takes its EP name or NAME. The
    /// onnxruntime-ep-* Python packages carry such libraries (their get_library_path() names
    /// it).
    ///
    /// Example: --ep-library webgpu=./libonnxruntime_providers_webgpu.so --ep webgpu
    #[arg(long = "ep-library", value_name = "[NAME=]PATH", value_parser = parse_ep_library)]
    pub ep_libraries: Vec<EpLibraryRequest>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    /// Finds `--color WHEN` / `--color=WHEN` before parsing, because clap renders help (and
    /// usage errors) while it parses, and needs to know by then.
    pub fn from_args(args: &[std::ffi::OsString]) -> ColorWhen {
        let mut when = None;
        let mut iter = args.iter().filter_map(|a| a.to_str());
        while let Some(arg) = iter.next() {
            let value = match arg.strip_prefix("--color") {
                Some("") => iter.next(),
                Some(rest) => rest.strip_prefix('='),
                None => None,
            };
            when = match value {
                Some("always") => Some(ColorWhen::Always),
                Some("never") => Some(ColorWhen::Never),
                Some("auto") => Some(ColorWhen::Auto),
                _ => when,
            };
        }
        match when {
            Some(w) => w,
            // https://no-color.org: a set, non-empty NO_COLOR turns colour off by default.
            None if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) => ColorWhen::Never,
            None => ColorWhen::Auto,
        }
    }

    pub fn to_clap(self) -> clap::ColorChoice {
        match self {
            ColorWhen::Auto => clap::ColorChoice::Auto,
            ColorWhen::Always => clap::ColorChoice::Always,
            ColorWhen::Never => clap::ColorChoice::Never,
        }
    }
}

/// Execution provider and session settings.
#[derive(Debug, Clone, Args)]
pub struct SessionArgs {
    /// Execution provider: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml,
    /// cpu, an EP name, or policy:POLICY.
    ///
    /// Asking for DirectML where it is unavailable is an error, never a silent fallback. cpu is
    /// the CPU execution provider whatever plugin is registered. An EP name (WebGpuExecutionProvider,
    /// or webgpu; or the NAME of an --ep-library) runs on that execution provider's first EP
    /// device, as `dmlrun devices` lists them; --ep-option passes it options. policy:POLICY
    /// appends nothing and lets ONNX Runtime choose among its EP devices: prefer-cpu,
    /// prefer-gpu, prefer-npu, max-performance, max-efficiency, min-power; the report names
    /// what it chose.
    ///
    /// Example: --ep cpu, --ep webgpu, --ep policy:prefer-gpu
    #[arg(long, value_name = "EP", default_value = "auto", value_parser = parse_ep)]
    pub ep: EpRequest,

    /// DirectML adapter: its index (DXGI order, as `dmlrun devices` lists them: DirectML's
    /// device_id), part of its name, or its LUID.
    ///
    /// A name is matched case-insensitively as a substring and must match exactly one adapter;
    /// `luid:HIGH-LOW` (hex, as `dmlrun devices` prints it) names one adapter for as long as
    /// the machine runs, whatever order DXGI lists them in. Implies DirectML. Without it (and
    /// without the two options below) DirectML uses adapter 0.
    ///
    /// Example: --device 1, --device "RTX 4090", --device luid:00000000-0000D2F1
    #[arg(long, value_name = "N|NAME|luid:HIGH-LOW", allow_negative_numbers = true, value_parser = parse_device)]
    pub device: Option<DeviceSelector>,

    /// DirectML performance_preference: let DirectML pick the adapter (instead of --device).
    ///
    /// Example: --dml-performance-preference high-performance
    #[arg(long, value_name = "PREF")]
    pub dml_performance_preference: Option<PerformancePreference>,

    /// DirectML device_filter: which kinds of adapter DirectML may pick (instead of --device).
    ///
    /// Example: --dml-device-filter npu
    #[arg(long, value_name = "FILTER")]
    pub dml_device_filter: Option<DeviceFilter>,

    /// Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable.
    ///
    /// Applied with ONNX Runtime's AddFreeDimensionOverrideByName at session creation, so
    /// DirectML can compile for fixed shapes. Unknown names are an error listing the model's
    /// symbolic dimensions.
    ///
    /// Example: --dim batch=1 --dim sequence=128
    #[arg(long = "dim", value_name = "NAME=N", value_parser = parse_dim)]
    pub dims: Vec<(String, i64)>,

    /// The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable.
    ///
    /// Reaches every dimension, named or not (`?`, empty or -1 in the model): generated inputs
    /// take this shape, a given input must have it, and the input's named free dimensions are
    /// fixed to it as with --dim. Dimensions without a name stay free in the session: ONNX
    /// Runtime can fix only named ones.
    ///
    /// Example: --shape x=1,3,48,192 --generate random
    #[arg(long = "shape", value_name = "NAME=D0,D1,...", value_parser = parse_shape)]
    pub shapes: Vec<(String, Vec<usize>)>,

    /// Leave free dimensions free under DirectML instead of fixing them from the inputs.
    ///
    /// With DirectML, dmlrun fixes every named free dimension that no --dim fixes to the size
    /// the bound inputs give it (the number of images, a .npy file's shape, the generated
    /// size), so DirectML compiles for static shapes; the plan lists each one as automatic.
    /// The CPU execution provider is left as the model declares it.
    ///
    /// Example: dmlrun model.onnx --ep dml --input cat.png --no-auto-dims
    #[arg(long)]
    pub no_auto_dims: bool,

    /// Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable.
    ///
    /// ONNX Runtime's AddFreeDimensionOverride.
    ///
    /// Example: --dim-denotation DATA_BATCH=1
    #[arg(long = "dim-denotation", value_name = "DENOTATION=N", value_parser = parse_dim)]
    pub dim_denotations: Vec<(String, i64)>,

    /// Graph optimisation level.
    ///
    /// Example: --opt-level basic
    #[arg(long, value_name = "LEVEL", default_value = "all")]
    pub opt_level: OptimizationLevel,

    /// Threads within one operator (ONNX Runtime's intra_op_num_threads; 0 = default).
    ///
    /// Example: --intra-threads 4
    #[arg(long, value_name = "N")]
    pub intra_threads: Option<usize>,

    /// Threads across operators in parallel mode (inter_op_num_threads; 0 = default).
    ///
    /// Example: --inter-threads 2
    #[arg(long, value_name = "N")]
    pub inter_threads: Option<usize>,

    /// Execution mode. DirectML requires sequential; parallel is refused with it.
    ///
    /// Example: --execution-mode parallel
    #[arg(long, value_name = "MODE")]
    pub execution_mode: Option<ExecutionMode>,

    /// ONNX Runtime's memory pattern optimisation (default on for the CPU; DirectML requires off).
    ///
    /// Example: --memory-pattern off
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    pub memory_pattern: Option<bool>,

    /// DirectML's disable_metacommands provider option: run DirectML's own compute shaders
    /// instead of the driver's metacommands (vendor-tuned kernels for convolution, GEMM).
    ///
    /// Useful to tell a driver metacommand bug or speed-up from DirectML's own. Implies DirectML.
    ///
    /// Example: --dml-disable-metacommands
    #[arg(long)]
    pub dml_disable_metacommands: bool,

    /// A DirectML provider option passed through to ONNX Runtime as given. Repeatable.
    ///
    /// For options dmlrun has no flag for; the plan and the JSON report list them. A value
    /// ONNX Runtime rejects is an error naming it; a key it does not read is warned about.
    /// Implies DirectML.
    ///
    /// Example: --ep-option disable_metacommands=true
    #[arg(long = "ep-option", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub ep_options: Vec<(String, String)>,

    /// A session config entry (ONNX Runtime's AddSessionConfigEntry), passed as given. Repeatable.
    ///
    /// DirectML's own entries start with ep.dml. (ep.dml.disable_graph_fusion=1,
    /// ep.dml.enable_cpu_sync_spinning=1, ...) and imply DirectML.
    ///
    /// Example: --session-config ep.dml.disable_graph_fusion=1
    #[arg(long = "session-config", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub session_config: Vec<(String, String)>,

    /// Print the resolved session plan (providers, device, execution mode, memory pattern, dims,
    /// threads) to stderr before creating the session.
    ///
    /// Example: dmlrun model.onnx --ep dml --dim batch=1 --print-plan
    #[arg(long)]
    pub print_plan: bool,
}

/// Where the inputs and outputs of the timed runs live (run and bench).
#[derive(Debug, Clone, Args)]
pub struct DeviceIoArgs {
    /// Upload the inputs to DirectML's device memory once and keep the outputs there (IoBinding),
    /// so the timed runs measure the GPU's work without the host<->GPU copies.
    ///
    /// Each timed run still waits until the GPU has finished. The upload and the download are
    /// timed apart and reported; the outputs are brought back once and checked against the
    /// first, unbound run's. Implies DirectML; refused with --ep cpu, where there is no device
    /// memory to keep them in.
    ///
    /// Example: dmlrun model.onnx --device 0 --io-on-device
    #[arg(long)]
    pub io_on_device: bool,

    /// DirectML graph capture (ep.dml.enable_graph_capture): the first run's GPU work is recorded
    /// and replayed, saving the CPU's per-run dispatch.
    ///
    /// Needs every node on DirectML, static shapes (every free dimension fixed) and bound device
    /// IO, which it implies (--io-on-device).
    ///
    /// Example: dmlrun model.onnx --device 0 --dml-graph-capture
    #[arg(long)]
    pub dml_graph_capture: bool,
}

/// Image preprocessing settings.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Image preprocessing")]
pub struct PreprocessArgs {
    /// Named preprocessing: imagenet (default for float inputs), unit ([0,1]), raw (0..255; default for uint8 inputs).
    ///
    /// Example: --preset unit
    #[arg(long, value_name = "PRESET")]
    pub preset: Option<Preset>,

    /// How the picture fits the model's size: crop (shorter side, then centre crop), stretch, letterbox, none.
    ///
    /// Example: --resize letterbox
    #[arg(long, value_name = "MODE")]
    pub resize: Option<ResizeMode>,

    /// With --resize crop: the shorter-side length before cropping (default: crop size / 0.875, 256 for 224).
    ///
    /// Example: --resize-to 256
    #[arg(long, value_name = "N")]
    pub resize_to: Option<usize>,

    /// Resampling filter (Pillow-exact).
    ///
    /// Example: --filter bicubic
    #[arg(long, value_name = "FILTER")]
    pub filter: Option<Filter>,

    /// Multiply pixel values (0..255) by this before mean/std (imagenet and unit: 1/255).
    ///
    /// Example: --scale 0.0078125
    #[arg(long, value_name = "F")]
    pub scale: Option<f32>,

    /// Per-channel mean subtracted after scaling, e.g. --mean 0.485,0.456,0.406.
    ///
    /// Example: --mean 0.5,0.5,0.5
    #[arg(long, value_name = "R,G,B", value_delimiter = ',', num_args = 1..)]
    pub mean: Option<Vec<f32>>,

    /// Per-channel standard deviation divided by, e.g. --std 0.229,0.224,0.225.
    ///
    /// Example: --std 0.5,0.5,0.5
    #[arg(long, value_name = "R,G,B", value_delimiter = ',', num_args = 1..)]
    pub std: Option<Vec<f32>>,

    /// Channel order the model expects.
    ///
    /// Example: --channel-order bgr
    #[arg(long, value_name = "ORDER")]
    pub channel_order: Option<ChannelOrder>,

    /// Tensor layout (default: inferred from where the model input has 1 or 3 channels).
    ///
    /// Example: --layout nhwc
    #[arg(long, value_name = "LAYOUT")]
    pub layout: Option<Layout>,

    /// With --resize letterbox: the pixel value of the padding.
    ///
    /// Example: --pad-value 0
    #[arg(long, value_name = "0-255")]
    pub pad_value: Option<u8>,

    /// Target HEIGHTxWIDTH when the model's spatial dimensions are free (default: the image's own size).
    ///
    /// Example: --image-size 640x640
    #[arg(long, value_name = "HxW", value_parser = parse_size)]
    pub image_size: Option<(usize, usize)>,
}

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

/// Checking a run against a reference execution provider (`run` and `bench`; `test` has its
/// own, whose tolerances also apply to expected outputs).
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// Also run on this execution provider and compare the outputs (|a - b| <= atol + rtol *
    /// |reference|); exit 1 when they differ. bench also times the reference after each model,
    /// with the same warm-up and budget (both side by side in its reports), and a manifest's
    /// per-model rtol/atol take precedence.
    ///
    /// Takes what --ep takes: dml, cpu, an EP name, policy:POLICY.
    ///
    /// Example: --ep dml --compare-ep cpu
    #[arg(long, value_name = "EP", value_parser = parse_ep)]
    pub compare_ep: Option<EpRequest>,

    /// Optimisation level of the --compare-ep run (default: as the main run).
    ///
    /// Example: --compare-ep cpu --compare-opt-level disable
    #[arg(long, value_name = "LEVEL", requires = "compare_ep")]
    pub compare_opt_level: Option<OptimizationLevel>,

    /// Relative tolerance for --compare-ep.
    ///
    /// Example: --compare-ep cpu --rtol 1e-2
    #[arg(long, value_name = "R", default_value_t = 1e-3, requires = "compare_ep")]
    pub rtol: f64,

    /// Absolute tolerance for --compare-ep.
    ///
    /// Example: --compare-ep cpu --atol 1e-4
    #[arg(long, value_name = "A", default_value_t = 1e-5, requires = "compare_ep")]
    pub atol: f64,
}

/// `dmlrun test`.
#[derive(Debug, Clone, Args)]
pub struct TestArgs {
    /// Model folders in ONNX's test-data layout, or trees of them (searched recursively).
    ///
    /// Example: dmlrun test onnx-conformance/node models/frozen
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,

    /// Relative tolerance: a float passes when |expected - actual| <= atol + rtol * |expected|.
    /// A case's data.json overrides it.
    ///
    /// Example: --rtol 1e-2
    #[arg(long, value_name = "R", default_value_t = 1e-3)]
    pub rtol: f64,

    /// Absolute tolerance (see --rtol). A case's data.json overrides it.
    ///
    /// Example: --atol 1e-5
    #[arg(long, value_name = "A", default_value_t = 1e-7)]
    pub atol: f64,

    /// Tolerance for one output, overriding everything else: --tol NAME=ATOL,RTOL. Repeatable.
    ///
    /// Example: --tol logits=1e-3,1e-2
    #[arg(long = "tol", value_name = "OUTPUT=ATOL,RTOL", value_parser = parse_tol)]
    pub tols: Vec<(String, f64, f64)>,

    /// Fail a case whose outputs hold NaN or Inf.
    ///
    /// Example: --check-finite
    #[arg(long)]
    pub check_finite: bool,

    /// Also run every case on this execution provider and compare the two runs with the same
    /// rules (instead of the expected outputs): the DirectML-vs-CPU check.
    ///
    /// Takes what --ep takes: dml, cpu, an EP name, policy:POLICY.
    ///
    /// Example: dmlrun test suite/ --ep dml --compare-ep cpu
    #[arg(long, value_name = "EP", value_parser = parse_ep)]
    pub compare_ep: Option<EpRequest>,

    /// Optimisation level of the reference run of --compare-ep (default: as the main run).
    ///
    /// Example: --compare-ep cpu --compare-opt-level disable
    #[arg(long, value_name = "LEVEL", requires = "compare_ep")]
    pub compare_opt_level: Option<OptimizationLevel>,

    /// Intra-op threads of the reference run of --compare-ep.
    ///
    /// Example: --compare-ep cpu --compare-intra-threads 1
    #[arg(long, value_name = "N", requires = "compare_ep")]
    pub compare_intra_threads: Option<usize>,

    /// Run this many cases at once (CPU only; DirectML cases always run one at a time).
    /// With more than one, each session uses one intra-op thread unless --intra-threads says otherwise.
    ///
    /// Example: --jobs 2
    #[arg(short, long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: u64,

    /// Known failures: lines of `fail NAME` or `error NAME` (# comments). Those cases may fail
    /// without failing the run; any other change does, and a known failure that now passes is reported.
    ///
    /// Example: --expect tests/conformance/cpu-expected.txt
    #[arg(long, value_name = "FILE")]
    pub expect: Option<PathBuf>,

    /// Write this run's failures and errors as an --expect file.
    ///
    /// Example: --write-expect known-failures.txt
    #[arg(long, value_name = "FILE")]
    pub write_expect: Option<PathBuf>,

    /// Write the results as JSON to FILE ("-" for stdout).
    ///
    /// Example: --json results.json
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write a self-contained HTML page to FILE: totals, every case with its status (filterable),
    /// and where mismatching outputs part.
    ///
    /// Example: --html test-report.html
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Write the results as JUnit XML to FILE.
    ///
    /// Example: --junit results.xml
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,

    /// List passing cases too.
    ///
    /// Example: -v
    #[arg(short, long)]
    pub verbose: bool,

    /// Print only the summary line.
    ///
    /// Example: -q
    #[arg(short, long)]
    pub quiet: bool,

    /// Refuse tensors larger than this many bytes.
    ///
    /// Example: --max-tensor-bytes 17179869184
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 30)]
    pub max_tensor_bytes: u64,

    #[command(flatten)]
    pub isolation: IsolationArgs,

    #[command(flatten)]
    pub session: SessionArgs,

    #[command(flatten)]
    pub ort: OrtArgs,
}

/// Running the items of a batch in child processes (`test`, `bench`).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Isolation")]
pub struct IsolationArgs {
    /// Run the items in child dmlrun processes (auto: when DirectML is in the plan), so one that
    /// kills its process (an abort in DirectML, a segfault, a lost device) is recorded as
    /// `crash` and the others still run.
    ///
    /// test: 100 cases to a child; a child that dies is split in halves until the case that
    /// kills it runs alone. bench: one model to a child. Costs a process start (and ONNX
    /// Runtime's load) per child.
    ///
    /// Example: --isolation process
    #[arg(long, value_name = "WHERE", default_value = "auto")]
    pub isolation: Isolation,

    /// With isolation: kill a case or model (its child) after this long; record it as `timeout`.
    ///
    /// A child running N cases gets N times this.
    ///
    /// Example: --timeout 60s
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub timeout: Option<std::time::Duration>,

    /// Internal: run as an isolation child, writing the JSON report to FILE and nothing else.
    ///
    /// Example: --child-report /tmp/dmlrun-child.json
    #[arg(long, value_name = "FILE", hide = true)]
    pub child_report: Option<PathBuf>,

    /// Internal: run only the case (or model) of this name. Repeatable.
    ///
    /// Example: --only node/test_abs
    #[arg(long, value_name = "NAME", hide = true)]
    pub only: Vec<String>,
}

/// `dmlrun bench`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// .onnx files, folders (searched recursively), or manifests (.toml/.json: per model path,
    /// name, dims, inputs, generate).
    ///
    /// Example: dmlrun bench models/ bench.toml extra.onnx
    #[arg(value_name = "MODEL|DIR|MANIFEST", required = true)]
    pub targets: Vec<PathBuf>,

    /// Timed runs per model (default 100, unless --duration is given).
    ///
    /// Example: --iterations 500
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "duration")]
    pub iterations: Option<u64>,

    /// Time box per model instead of a count, e.g. 10s or 500ms (bounded by --min/--max-iterations).
    ///
    /// Example: --duration 10s
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub duration: Option<std::time::Duration>,

    /// With --duration: at least this many timed runs.
    ///
    /// Example: --duration 5s --min-iterations 50
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub min_iterations: u64,

    /// With --duration: at most this many timed runs.
    ///
    /// Example: --duration 30s --max-iterations 10000
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub max_iterations: u64,

    /// Untimed runs after the first run.
    ///
    /// Example: --warmup 20
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub warmup: u64,

    /// How inputs no file gives are filled (manifests can say per model).
    ///
    /// Example: --generate zeros
    #[arg(long, value_name = "FILL", default_value = "random")]
    pub generate: Fill,

    /// Seed for generated inputs.
    ///
    /// Example: --seed 42
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

    /// Write the JSON report to FILE ("-" for stdout instead of the table).
    ///
    /// Example: --json bench.json
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write a CSV table to FILE ("-" for stdout).
    ///
    /// Example: --csv bench.csv
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Write a Markdown table to FILE ("-" for stdout).
    ///
    /// Example: --markdown - >> RESULTS.md
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Write a self-contained HTML page to FILE, rewritten after every model: the environment,
    /// each model's latency distribution with p50/p90/p99, p50/p99 across models, and with
    /// --compare-ep, --baseline and --profile their comparisons.
    ///
    /// Example: --html bench.html
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Compare median latency with an earlier --json report; exit 1 on a regression.
    ///
    /// Example: --baseline main-bench.json --max-regression 5%
    #[arg(long, value_name = "OLD.json")]
    pub baseline: Option<PathBuf>,

    /// Largest allowed slowdown of the median against --baseline, e.g. 5% or 0.05.
    ///
    /// Example: --max-regression 10%
    #[arg(long, value_name = "PERCENT", default_value = "5%", value_parser = crate::report::bench::parse_fraction)]
    pub max_regression: f64,

    #[command(flatten)]
    pub compare: CompareArgs,

    /// Save ONNX Runtime's per-operator profile of each model into DIR and print the top 10 operators.
    ///
    /// Under DirectML with graph fusion (the default) the profile shows one DmlFusedNode: add
    /// --profile-unfused to see the operators.
    ///
    /// Example: --profile profiles/
    #[arg(long, value_name = "DIR")]
    pub profile: Option<PathBuf>,

    /// With --profile on DirectML: turn DirectML's graph fusion off (ep.dml.disable_graph_fusion=1)
    /// so the profile lists each operator with its time and share.
    ///
    /// This changes what is measured: every latency of the run is the unfused graph's, and the
    /// report labels it so. Implies DirectML.
    ///
    /// Example: dmlrun bench resnet50.onnx --device 0 --profile prof/ --profile-unfused
    #[arg(long, requires = "profile")]
    pub profile_unfused: bool,

    /// Also run N sessions of each model at once, each by its own thread, and report their
    /// aggregate throughput and each one's latency percentiles.
    ///
    /// The N sessions are opened fresh beside the one measured alone (whose figures stay in the
    /// report for comparison) and released together after their warm-up; each runs the same
    /// --iterations or --duration. DirectML's rule of one Run at a time holds per session.
    ///
    /// Example: dmlrun bench resnet50.onnx --device 0 --sessions 4
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub sessions: Option<u32>,

    /// Keep the optimised model ONNX Runtime produces in DIR (keyed by model hash, EP, device,
    /// dims, optimisation level and ONNX Runtime version) and load it next time.
    ///
    /// Example: --cache ~/.cache/dmlrun
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,

    /// No progress bars.
    ///
    /// Example: -q
    #[arg(short, long)]
    pub quiet: bool,

    /// Refuse input tensors larger than this many bytes.
    ///
    /// Example: --max-tensor-bytes 17179869184
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 30)]
    pub max_tensor_bytes: u64,

    #[command(flatten)]
    pub isolation: IsolationArgs,

    #[command(flatten)]
    pub session: SessionArgs,

    #[command(flatten)]
    pub device_io: DeviceIoArgs,

    #[command(flatten)]
    pub ort: OrtArgs,
}

/// Parses `10s`, `500ms`, `2m`.
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let d = humantime::parse_duration(text).map_err(|e| format!("'{text}': {e} (e.g. 10s, 500ms)"))?;
    if d.is_zero() {
        return Err(format!("'{text}' is zero"));
    }
    Ok(d)
}

#[derive(Debug, Clone, Args)]
pub struct InfoArgs {
    /// The ONNX model file.
    ///
    /// Example: dmlrun info model.onnx
    #[arg(value_name = "MODEL")]
    pub model: PathBuf,

    /// Print the information as JSON (to stdout, or to FILE).
    /// With FILE the JSON goes there and the usual text to stdout.
    ///
    /// Example: dmlrun info model.onnx --json | jq .
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,

    /// Print metadata values whole; by default a value longer than a few lines (an OCR model's
    /// character list, say) is cut to its first lines with a count of the rest.
    ///
    /// Example: dmlrun info model.onnx --full-metadata
    #[arg(long)]
    pub full_metadata: bool,
}

#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    ///
    /// Example: dmlrun completions zsh > ~/.zfunc/_dmlrun
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Clone, Args)]
pub struct DevicesArgs {
    /// Print the adapters and EP devices as JSON (to stdout, or to FILE).
    /// With FILE the JSON goes there and the usual text to stdout.
    ///
    /// Example: dmlrun devices --json | jq .
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,

    #[command(flatten)]
    pub ort: OrtArgs,
}

#[derive(Debug, Clone, Args)]
pub struct DoctorArgs {
    /// Print the findings as JSON (to stdout, or to FILE).
    /// With FILE the JSON goes there and the usual text to stdout.
    ///
    /// Example: dmlrun doctor --json | jq .
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,

    #[command(flatten)]
    pub ort: OrtArgs,
}

/// Parses `NAME=N` with N a size (0 is a size: ONNX allows empty dimensions).
pub fn parse_dim(text: &str) -> Result<(String, i64), String> {
    let (name, value) = text.split_once('=').ok_or_else(|| format!("'{text}' is not NAME=N"))?;
    if name.is_empty() {
        return Err(format!("'{text}' has no name before '='"));
    }
    let n: i64 = value.trim().parse().map_err(|_| format!("'{value}' in '{text}' is not a whole number"))?;
    if n < 0 {
        return Err(format!("'{text}': a dimension cannot be negative"));
    }
    Ok((name.to_string(), n))
}

/// Parses `[NAME=]LO,HI` (`--generate-range`).
pub fn parse_range(text: &str) -> Result<(Option<String>, ValueRange), String> {
    let (name, range) = match text.rsplit_once('=') {
        Some((name, range)) if !name.is_empty() => (Some(name.to_string()), range),
        Some((_, _)) => return Err(format!("'{text}' has no input name before '='")),
        None => (None, text),
    };
    let (low, high) = range.split_once(',').ok_or_else(|| format!("'{text}' is not [NAME=]LO,HI"))?;
    let number = |v: &str| {
        v.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("'{v}' in '{text}' is not a number"))
    };
    let (low, high) = (number(low)?, number(high)?);
    if low > high {
        return Err(format!("'{text}': LO is above HI"));
    }
    Ok((name, ValueRange { low, high }))
}

/// Parses `NAME=D0,D1,...` (`--shape`); `NAME=` alone is a scalar's empty shape.
pub fn parse_shape(text: &str) -> Result<(String, Vec<usize>), String> {
    let (name, dims) = text.rsplit_once('=').ok_or_else(|| format!("'{text}' is not NAME=D0,D1,..."))?;
    if name.is_empty() {
        return Err(format!("'{text}' has no input name before '='"));
    }
    let dims = dims.trim().trim_start_matches('[').trim_end_matches(']');
    if dims.is_empty() {
        return Ok((name.to_string(), Vec::new()));
    }
    let shape = dims
        .split([',', 'x'])
        .map(|d| {
            d.trim()
                .parse::<usize>()
                .map_err(|_| format!("'{d}' in '{text}' is not a size (a whole number, 0 or more)"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((name.to_string(), shape))
}

/// Parses `KEY=VALUE` (`--ep-option`, `--session-config`); the value may hold '='.
pub fn parse_key_value(text: &str) -> Result<(String, String), String> {
    let (key, value) = text.split_once('=').ok_or_else(|| format!("'{text}' is not KEY=VALUE"))?;
    if key.trim().is_empty() || value.is_empty() {
        return Err(format!("'{text}' needs a key and a value"));
    }
    Ok((key.trim().to_string(), value.to_string()))
}

/// Parses `--input [NAME=]FILE`.
pub fn parse_input(text: &str) -> Result<InputSpec, String> {
    InputSpec::parse(text)
}

/// Parses `--ep` and `--compare-ep`.
pub fn parse_ep(text: &str) -> Result<EpRequest, String> {
    EpRequest::parse(text)
}

/// Parses `--ep-library [NAME=]PATH`.
pub fn parse_ep_library(text: &str) -> Result<EpLibraryRequest, String> {
    EpLibraryRequest::parse(text)
}

/// Parses `--device`: an index, `luid:HIGH-LOW`, or part of an adapter's name.
pub fn parse_device(text: &str) -> Result<DeviceSelector, String> {
    DeviceSelector::parse(text)
}

/// Parses `HxW`.
pub fn parse_size(text: &str) -> Result<(usize, usize), String> {
    let (h, w) = text.split_once(['x', 'X']).ok_or_else(|| format!("'{text}' is not HEIGHTxWIDTH"))?;
    let parse = |s: &str| s.trim().parse::<usize>().ok().filter(|v| *v > 0);
    match (parse(h), parse(w)) {
        (Some(h), Some(w)) => Ok((h, w)),
        _ => Err(format!("'{text}' is not HEIGHTxWIDTH with positive numbers")),
    }
}

/// Parses `NAME=ATOL,RTOL`.
pub fn parse_tol(text: &str) -> Result<(String, f64, f64), String> {
    let (name, tols) = text.split_once('=').ok_or_else(|| format!("'{text}' is not OUTPUT=ATOL,RTOL"))?;
    let (atol, rtol) = tols.split_once(',').ok_or_else(|| format!("'{text}' is not OUTPUT=ATOL,RTOL"))?;
    let num = |s: &str| s.trim().parse::<f64>().ok().filter(|v| *v >= 0.0 && v.is_finite());
    match (num(atol), num(rtol)) {
        (Some(a), Some(r)) if !name.is_empty() => Ok((name.to_string(), a, r)),
        _ => Err(format!("'{text}' is not OUTPUT=ATOL,RTOL with non-negative numbers")),
    }
}

fn parse_on_off(text: &str) -> Result<bool, String> {
    match text {
        "on" | "true" | "1" => Ok(true),
        "off" | "false" | "0" => Ok(false),
        _ => Err(format!("'{text}' is not on or off")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn dim_values_must_be_sizes() {
        assert_eq!(parse_dim("batch=4"), Ok(("batch".to_string(), 4)));
        // ONNX allows empty dimensions.
        assert_eq!(parse_dim("batch=0"), Ok(("batch".to_string(), 0)));
        assert!(parse_dim("batch=-1").is_err());
        assert!(parse_dim("batch=x").is_err());
        assert!(parse_dim("batch").is_err());
        assert!(parse_dim("=3").is_err());
    }

    #[test]
    fn shapes_and_ranges_parse() {
        assert_eq!(parse_shape("x=1,3,48,192"), Ok(("x".to_string(), vec![1, 3, 48, 192])));
        assert_eq!(parse_shape("x=[2, 0]"), Ok(("x".to_string(), vec![2, 0])));
        assert_eq!(parse_shape("sr="), Ok(("sr".to_string(), vec![])));
        assert!(parse_shape("x=1,-3").unwrap_err().contains("'-3'"));
        assert!(parse_shape("1,3").is_err());
        let range = |low, high| ValueRange { low, high };
        assert_eq!(parse_range("ids=0,30521"), Ok((Some("ids".to_string()), range(0.0, 30521.0))));
        assert_eq!(parse_range("-1,1"), Ok((None, range(-1.0, 1.0))));
        assert!(parse_range("x=2,1").unwrap_err().contains("LO is above HI"));
        assert!(parse_range("x=nan,1").is_err());
    }

    #[test]
    fn color_choice_is_found_before_parsing() {
        let args = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(ColorWhen::from_args(&args(&["dmlrun", "--color", "never", "m.onnx"])), ColorWhen::Never);
        assert_eq!(ColorWhen::from_args(&args(&["dmlrun", "--color=always"])), ColorWhen::Always);
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("480x640"), Ok((480, 640)));
        assert!(parse_size("0x5").is_err());
    }

    #[test]
    fn model_without_subcommand_parses_as_run() {
        let cli = Cli::try_parse_from(["dmlrun", "m.onnx", "--device", "1", "--input", "cat.png"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.run.model, Some(PathBuf::from("m.onnx")));
        assert_eq!(cli.run.session.device, Some(DeviceSelector::Index(1)));
        let cli = Cli::try_parse_from(["dmlrun", "info", "m.onnx"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Info(_))));
    }
}
