//! The argument groups several commands share: the session and its execution provider, device
//! IO, image preprocessing, the reference comparison, and the inputs. A batch's own groups are
//! in `batch.rs`.

use clap::Args;

use super::help::{CHECKING, EXECUTION_PROVIDER, INPUTS, PREPROCESSING, SESSION, SHAPES};
use super::parse::*;
use super::parse_on_off;
use crate::formats::image::{ChannelOrder, Layout, Preset, ResizeMode};
use crate::formats::resample::Filter;
use crate::inputs::synthetic::{Fill, ValueRange};
use crate::inputs::InputSpec;
use crate::runtime::adapters::DeviceSelector;
use crate::runtime::plan::{
    DeviceFilter, EpRequest, ExecutionMode, OptimizationLevel, PerformancePreference, Precision,
};

/// Execution provider and session settings.
#[derive(Debug, Clone, Args)]
pub struct SessionArgs {
    /// Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable.
    ///
    /// Applied with ONNX Runtime's AddFreeDimensionOverrideByName at session creation, so
    /// DirectML can compile for fixed shapes. Unknown names are an error listing the model's
    /// symbolic dimensions.
    ///
    /// Example: --dim batch=1 --dim sequence=128
    #[arg(long = "dim", value_name = "NAME=N", value_parser = parse_dim, help_heading = SHAPES)]
    pub dims: Vec<(String, i64)>,

    /// The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable.
    ///
    /// Reaches every dimension, named or not (`?`, empty or -1 in the model): generated inputs
    /// take this shape, a given input must have it, and the input's named free dimensions are
    /// fixed to it as with --dim. Dimensions without a name stay free in the session: ONNX
    /// Runtime can fix only named ones.
    ///
    /// Example: --shape x=1,3,48,192 --generate random
    #[arg(long = "shape", value_name = "NAME=D0,D1,...", value_parser = parse_shape, help_heading = SHAPES)]
    pub shapes: Vec<(String, Vec<usize>)>,

    /// Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable.
    ///
    /// ONNX Runtime's AddFreeDimensionOverride.
    ///
    /// Example: --dim-denotation DATA_BATCH=1
    #[arg(long = "dim-denotation", value_name = "DENOTATION=N", value_parser = parse_dim, help_heading = SHAPES)]
    pub dim_denotations: Vec<(String, i64)>,

    /// Leave free dimensions free under DirectML instead of fixing them from the inputs.
    ///
    /// With DirectML, dmlrun fixes every named free dimension that no --dim fixes to the size
    /// the bound inputs give it (the number of images, a .npy file's shape, the generated
    /// size), so DirectML compiles for static shapes; the plan lists each one as automatic.
    /// The CPU execution provider is left as the model declares it.
    ///
    /// Example: dmlrun model.onnx --ep dml --input cat.png --no-auto-dims
    #[arg(long, help_heading = SHAPES)]
    pub no_auto_dims: bool,

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
    #[arg(long, value_name = "EP", default_value = "auto", value_parser = parse_ep, help_heading = EXECUTION_PROVIDER)]
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
    #[arg(long, value_name = "N|NAME|luid:HIGH-LOW", allow_negative_numbers = true, value_parser = parse_device, help_heading = EXECUTION_PROVIDER)]
    pub device: Option<DeviceSelector>,

    /// DirectML performance_preference: let DirectML pick the adapter (instead of --device).
    ///
    /// Example: --dml-performance-preference high-performance
    #[arg(long, value_name = "PREF", help_heading = EXECUTION_PROVIDER)]
    pub dml_performance_preference: Option<PerformancePreference>,

    /// DirectML device_filter: which kinds of adapter DirectML may pick (instead of --device).
    ///
    /// Example: --dml-device-filter npu
    #[arg(long, value_name = "FILTER", help_heading = EXECUTION_PROVIDER)]
    pub dml_device_filter: Option<DeviceFilter>,

    /// DirectML's disable_metacommands provider option: run DirectML's own compute shaders
    /// instead of the driver's metacommands (vendor-tuned kernels for convolution, GEMM).
    ///
    /// Useful to tell a driver metacommand bug or speed-up from DirectML's own. Implies DirectML.
    ///
    /// Example: --dml-disable-metacommands
    #[arg(long, help_heading = EXECUTION_PROVIDER)]
    pub dml_disable_metacommands: bool,

    /// A DirectML provider option passed through to ONNX Runtime as given. Repeatable.
    ///
    /// For options dmlrun has no flag for; the plan and the JSON report list them. A value
    /// ONNX Runtime rejects is an error naming it; a key it does not read is warned about.
    /// Implies DirectML.
    ///
    /// Example: --ep-option disable_metacommands=true
    #[arg(long = "ep-option", value_name = "KEY=VALUE", value_parser = parse_key_value, help_heading = EXECUTION_PROVIDER)]
    pub ep_options: Vec<(String, String)>,

    /// Graph optimisation level.
    ///
    /// Example: --opt-level basic
    #[arg(long, value_name = "LEVEL", default_value = "all", help_heading = SESSION)]
    pub opt_level: OptimizationLevel,

    /// Threads within one operator (ONNX Runtime's intra_op_num_threads; 0 = default).
    ///
    /// Example: --intra-threads 4
    #[arg(long, value_name = "N", value_parser = parse_threads, help_heading = SESSION)]
    pub intra_threads: Option<usize>,

    /// Threads across operators in parallel mode (inter_op_num_threads; 0 = default).
    ///
    /// Example: --inter-threads 2
    #[arg(long, value_name = "N", value_parser = parse_threads, help_heading = SESSION)]
    pub inter_threads: Option<usize>,

    /// Execution mode. DirectML requires sequential; parallel is refused with it.
    ///
    /// Example: --execution-mode parallel
    #[arg(long, value_name = "MODE", help_heading = SESSION)]
    pub execution_mode: Option<ExecutionMode>,

    /// ONNX Runtime's memory pattern optimisation (default on for the CPU; DirectML requires off).
    ///
    /// Example: --memory-pattern off
    #[arg(long, value_name = "on|off", value_parser = parse_on_off, help_heading = SESSION)]
    pub memory_pattern: Option<bool>,

    /// A session config entry (ONNX Runtime's AddSessionConfigEntry), passed as given. Repeatable.
    ///
    /// DirectML's own entries start with ep.dml. (ep.dml.disable_graph_fusion=1,
    /// ep.dml.enable_cpu_sync_spinning=1, ...) and imply DirectML.
    ///
    /// Example: --session-config ep.dml.disable_graph_fusion=1
    #[arg(long = "session-config", value_name = "KEY=VALUE", value_parser = parse_key_value, help_heading = SESSION)]
    pub session_config: Vec<(String, String)>,

    /// The precision the model runs in: fp32 as written, fp16 converted, or int4/int8 with its
    /// MatMul weights quantized, before the session.
    ///
    /// fp16: the float32 initializers, constants and computation converted, the inputs and outputs
    /// staying float32 through Casts. DirectML's and ONNX Runtime's advice for speed on a GPU. The report says what was
    /// converted and how far the outputs are from the float32 model's on the same inputs (on the
    /// CPU EP, or --compare-ep): max |diff|, and top-1/top-5 agreement for a classifier's output;
    /// bench also times the float32 model beside it. Left in float32: TopK,
    /// NonMaxSuppression, RoiAlign, CumSum, Range, the random-like and spectral operators,
    /// quantization, control flow (If, Loop, Scan) and classic-ML operators; --keep-fp32 adds to
    /// them.
    ///
    /// int4 and int8: weight-only, as ONNX Runtime's MatMulNBitsQuantizer writes it, byte for
    /// byte (the form of onnxruntime-genai's DirectML models): every MatMul whose weight is a
    /// float32 or float16 initializer of 2 dimensions becomes a MatMulNBits, the rest of the
    /// graph unchanged (--block-size, --asymmetric). The report lists each MatMul left and why;
    /// on DirectML a K that is not a whole number of blocks is left (its kernel takes whole
    /// blocks; ONNX Runtime's quantizer pads it for the CPU).
    ///
    /// Example: dmlrun model.onnx --device 0 --precision fp16
    #[arg(long, value_name = "PRECISION", default_value = "fp32", help_heading = SESSION)]
    pub precision: Precision,

    /// With --precision fp16: leave this operator type (Softmax) or node (by name) in float32,
    /// with Casts around it; with int4 or int8: leave this MatMul (by name, `*` for any run of
    /// characters) as written. Repeatable.
    ///
    /// Example: --precision fp16 --keep-fp32 Softmax --keep-fp32 /head/MatMul
    #[arg(long = "keep-fp32", value_name = "OP|NODE", help_heading = SESSION)]
    pub keep_fp32: Vec<String>,

    /// With --precision int4 or int8: the rows of a weight's column quantized together
    /// (16, 32, 64, 128 or 256).
    ///
    /// Example: --precision int4 --block-size 128
    #[arg(long = "block-size", value_name = "N", default_value = "32", value_parser = parse_block_size, help_heading = SESSION)]
    pub block_size: u32,

    /// With --precision int4 or int8: a zero point a block (uint8), mapping each block's range
    /// [min, max]; by default symmetric, as the model builder writes DirectML models.
    ///
    /// Example: --precision int4 --asymmetric
    #[arg(long, help_heading = SESSION)]
    pub asymmetric: bool,

    /// With --precision int4 or int8: the MatMulNBits nodes' accuracy_level, the precision their
    /// kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations).
    ///
    /// By default 4 on the CPU EP, whose int8 kernels are several times faster than its float32
    /// dequantizing ones (SmolLM2-135M int8: 32 against 703 ms a token, perplexity within 0.2%),
    /// and unset elsewhere (DirectML's kernel does not read it). The report says which was used.
    ///
    /// Example: --precision int8 --accuracy-level 0
    #[arg(long = "accuracy-level", value_name = "N", value_parser = clap::value_parser!(u8).range(0..=4), help_heading = SESSION)]
    pub accuracy_level: Option<u8>,

    /// Write every node of this operator as primitive ONNX ops with the same meaning before the
    /// session (a comma list, or repeated): LayerNormalization, RMSNormalization,
    /// SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization,
    /// Gelu.
    ///
    /// For an execution provider that hangs or fails on the fused op and runs the primitives:
    /// DirectML on this project's H100 stack (Wine 8, vkd3d 1.6) never returns from
    /// LayerNormalization and the RMS norms, or computes them wrong. A norm's statistics are
    /// float32 whatever the model's float type, Gelu is in the model's type as ONNX defines it,
    /// every optional output is kept, and ONNX Runtime's fusions do not put the op back.
    /// The report says what was rewritten and how far the rewritten model's outputs are from
    /// the original's on the reference EP (the CPU, or --compare-ep). A model without such a
    /// node is refused (in a folder: the flag is not applied to it, and that is said).
    ///
    /// Example: dmlrun decoder.onnx --device 0 --decompose SimplifiedLayerNormalization,SkipSimplifiedLayerNormalization
    #[arg(long = "decompose", value_name = "OP[,OP...]", value_delimiter = ',', value_parser = parse_decompose, help_heading = SESSION)]
    pub decompose: Vec<crate::graph::Decomposable>,

    /// The rewrite rules' flags (`--gemm-zero-bias`, `--reshape-allowzero-off`,
    /// `--dequantize-gather`, ...), each declared by its rule in `graph/rewrite/`.
    #[command(flatten)]
    pub rules: super::rules::RuleFlags,

    /// Print the resolved session plan (providers, device, execution mode, memory pattern, dims,
    /// threads) to stderr before creating the session.
    ///
    /// Example: dmlrun model.onnx --ep dml --dim batch=1 --print-plan
    #[arg(long, help_heading = SESSION)]
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
    #[arg(long, help_heading = EXECUTION_PROVIDER)]
    pub io_on_device: bool,

    /// DirectML graph capture (ep.dml.enable_graph_capture): the first run's GPU work is recorded
    /// and replayed, saving the CPU's per-run dispatch.
    ///
    /// Needs every node on DirectML, static shapes (every free dimension fixed) and bound device
    /// IO, which it implies (--io-on-device).
    ///
    /// Example: dmlrun model.onnx --device 0 --dml-graph-capture
    #[arg(long, help_heading = EXECUTION_PROVIDER)]
    pub dml_graph_capture: bool,
}

/// Image preprocessing settings.
#[derive(Debug, Clone, Args)]
pub struct PreprocessArgs {
    /// Named preprocessing: imagenet (default for float inputs), unit ([0,1]), raw (0..255; default for uint8 inputs).
    ///
    /// Example: --preset unit
    #[arg(long, value_name = "PRESET", help_heading = PREPROCESSING)]
    pub preset: Option<Preset>,

    /// How the picture fits the model's size: crop (shorter side, then centre crop), center-crop
    /// (centre crop alone), stretch, letterbox, none.
    ///
    /// Example: --resize letterbox
    #[arg(long, value_name = "MODE", help_heading = PREPROCESSING)]
    pub resize: Option<ResizeMode>,

    /// With --resize crop: the shorter-side length before cropping (default: crop size / 0.875, 256 for 224).
    ///
    /// Example: --resize-to 256
    #[arg(long, value_name = "N", value_parser = parse_positive, help_heading = PREPROCESSING)]
    pub resize_to: Option<usize>,

    /// Resampling filter (Pillow-exact).
    ///
    /// Example: --filter bicubic
    #[arg(long, value_name = "FILTER", help_heading = PREPROCESSING)]
    pub filter: Option<Filter>,

    /// Multiply pixel values (0..255) by this before mean/std (imagenet and unit: 1/255).
    ///
    /// Example: --scale 0.0078125
    #[arg(long, value_name = "F", value_parser = parse_finite, help_heading = PREPROCESSING)]
    pub scale: Option<f32>,

    /// Per-channel mean subtracted after scaling, e.g. --mean 0.485,0.456,0.406.
    ///
    /// Always red, green, blue, whatever --channel-order says: with bgr the picture is
    /// normalised in RGB and its channels then reversed.
    ///
    /// Example: --mean 0.5,0.5,0.5
    #[arg(long, value_name = "R,G,B", value_delimiter = ',', num_args = 1.., value_parser = parse_finite, help_heading = PREPROCESSING)]
    pub mean: Option<Vec<f32>>,

    /// Per-channel standard deviation divided by, e.g. --std 0.229,0.224,0.225.
    ///
    /// Always red, green, blue, as --mean.
    ///
    /// Example: --std 0.5,0.5,0.5
    #[arg(long, value_name = "R,G,B", value_delimiter = ',', num_args = 1.., value_parser = parse_std, help_heading = PREPROCESSING)]
    pub std: Option<Vec<f32>>,

    /// Channel order the model expects; --mean and --std stay R,G,B.
    ///
    /// Example: --channel-order bgr
    #[arg(long, value_name = "ORDER", help_heading = PREPROCESSING)]
    pub channel_order: Option<ChannelOrder>,

    /// Tensor layout (default: inferred from where the model input has 1 or 3 channels).
    ///
    /// Example: --layout nhwc
    #[arg(long, value_name = "LAYOUT", help_heading = PREPROCESSING)]
    pub layout: Option<Layout>,

    /// With --resize letterbox: the pixel value of the padding.
    ///
    /// Example: --pad-value 0
    #[arg(long, value_name = "0-255", help_heading = PREPROCESSING)]
    pub pad_value: Option<u8>,

    /// Target HEIGHTxWIDTH when the model's spatial dimensions are free (default: the image's own size).
    ///
    /// Example: --image-size 640x640
    #[arg(long, value_name = "HxW", value_parser = parse_size, help_heading = PREPROCESSING)]
    pub image_size: Option<(usize, usize)>,
}

/// The reference a model is held to where a command needs one to work at all (`reduce`, `fix`):
/// an execution provider that runs the model (the CPU by default), and how close is equal.
#[derive(Debug, Clone, Args)]
pub struct ReferenceArgs {
    /// The reference execution provider, which must run the original model: reduce feeds each
    /// candidate the values it gave and checks the outputs against them; fix holds every
    /// attempt's outputs to its outputs on the original. Takes what --ep takes.
    ///
    /// Example: --ep dml --compare-ep cpu
    #[arg(long, value_name = "EP", value_parser = parse_ep, default_value = "cpu", help_heading = CHECKING)]
    pub compare_ep: EpRequest,

    /// Relative tolerance: outputs further apart than atol + rtol * |reference| differ.
    ///
    /// Example: --rtol 1e-2
    #[arg(long, value_name = "R", default_value_t = crate::compare::EP_COMPARISON.rtol, help_heading = CHECKING)]
    pub rtol: f64,

    /// Absolute tolerance (see --rtol).
    ///
    /// Example: --atol 1e-4
    #[arg(long, value_name = "A", default_value_t = crate::compare::EP_COMPARISON.atol, help_heading = CHECKING)]
    pub atol: f64,
}

impl ReferenceArgs {
    pub fn tolerance(&self) -> crate::compare::Tolerance {
        crate::compare::Tolerance { atol: self.atol, rtol: self.rtol }
    }
}

/// Checking a run against a reference execution provider (`run` and `bench`; `test` has its
/// own, whose tolerances also apply to expected outputs).
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// Also run on this execution provider and compare the outputs; exit 1 when they differ.
    ///
    /// Outputs agree when |a - b| <= atol + rtol * |reference|. bench also times the reference
    /// after each model, with the same warm-up and budget (both side by side in its reports),
    /// and a manifest's per-model rtol/atol take precedence.
    ///
    /// Takes what --ep takes: dml, cpu, an EP name, policy:POLICY.
    ///
    /// Example: --ep dml --compare-ep cpu
    #[arg(long, value_name = "EP", value_parser = parse_ep, help_heading = CHECKING)]
    pub compare_ep: Option<EpRequest>,

    /// Optimisation level of the --compare-ep run (default: as the main run).
    ///
    /// Example: --compare-ep cpu --compare-opt-level disable
    #[arg(long, value_name = "LEVEL", requires = "compare_ep", help_heading = CHECKING)]
    pub compare_opt_level: Option<OptimizationLevel>,

    /// Relative tolerance for --compare-ep.
    ///
    /// Example: --compare-ep cpu --rtol 1e-2
    #[arg(long, value_name = "R", default_value_t = crate::compare::EP_COMPARISON.rtol, requires = "compare_ep", help_heading = CHECKING)]
    pub rtol: f64,

    /// Absolute tolerance for --compare-ep.
    ///
    /// Example: --compare-ep cpu --atol 1e-4
    #[arg(long, value_name = "A", default_value_t = crate::compare::EP_COMPARISON.atol, requires = "compare_ep", help_heading = CHECKING)]
    pub atol: f64,
}

/// The inputs of the items of a batch that no file gives (`bench`, and `test` for a model
/// without test data): generated, and bounded.
#[derive(Debug, Clone, Args)]
pub struct BatchInputArgs {
    /// How inputs no file gives are filled (a bench manifest can say per model; test fills the
    /// inputs of a model that has no test data, checked with --compare-ep).
    ///
    /// Example: --generate zeros
    #[arg(long, value_name = "FILL", default_value = "random", help_heading = INPUTS)]
    pub generate: Fill,

    #[command(flatten)]
    pub generated: GeneratedInputArgs,
}

/// Where a model's inputs come from (run and reduce): files, images, or generated data.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// An input: FILE for the model's first input, or NAME=FILE. Repeatable.
    ///
    /// Images (PNG, JPEG, BMP, WebP, TIFF) are preprocessed (see below); several images for
    /// one input fill its batch. Tensors: .npy, .npz (arrays named after inputs), ONNX
    /// TensorProto .pb. dtype and shape must match the model.
    ///
    /// Example: --input cat.png, or --input input_ids=ids.npy --input attention_mask=mask.npy
    #[arg(short, long = "input", value_name = "[NAME=]FILE", value_parser = parse_input, help_heading = INPUTS)]
    pub inputs: Vec<InputSpec>,

    /// Fill inputs no --input gives: random (seeded), zeros or ones.
    ///
    /// Example: --generate random --seed 7
    #[arg(long, value_name = "FILL", help_heading = INPUTS)]
    pub generate: Option<Fill>,

    #[command(flatten)]
    pub generated: GeneratedInputArgs,
}

/// How generated inputs are seeded, sized and drawn, and the sizes any input may have: the same
/// flags for a model's inputs (`run`, `reduce`, `fix`) and a batch's (`test`, `bench`).
#[derive(Debug, Clone, Args)]
pub struct GeneratedInputArgs {
    /// Seed for --generate random.
    ///
    /// Example: --generate random --seed 7
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = INPUTS)]
    pub seed: u64,

    /// Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no
    /// other input with the same dimension name). Default 1.
    ///
    /// A folder of image models whose height and width are free needs more than 1 (a
    /// convolution's kernel does not fit in 1x1): --free-dim-size 224.
    ///
    /// Example: --generate random --free-dim-size 224
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_at_least_1, help_heading = INPUTS)]
    pub free_dim_size: u64,

    /// The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI):
    /// floats in [LO, HI), integers from LO to HI inclusive. Repeatable.
    ///
    /// Defaults: floats in [0, 1), integers 0 or 1 (indices, masks and token types accept
    /// them), bools either.
    ///
    /// Example: --generate-range input_ids=0,30521 --generate-range pixel_values=-1,1
    #[arg(long = "generate-range", value_name = "[NAME=]LO,HI", value_parser = parse_range, help_heading = INPUTS)]
    pub generate_ranges: Vec<(Option<String>, ValueRange)>,

    /// Refuse tensors (input files, generated data) larger than this many bytes.
    ///
    /// Example: --max-tensor-bytes 17179869184
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 30, help_heading = INPUTS)]
    pub max_tensor_bytes: u64,

    /// Refuse images (--input, a manifest's image inputs) with more pixels than this
    /// (decompression bombs).
    ///
    /// Example: --max-image-pixels 400000000
    #[arg(long, value_name = "PIXELS", default_value_t = 100_000_000, help_heading = INPUTS)]
    pub max_image_pixels: u64,
}

/// What `reduce` and `fix` take alike of the model they work on: its inputs and their
/// preprocessing, the session under test, and the reference it is checked against.
#[derive(Debug, Clone, Args)]
pub struct SubjectArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub preprocess: PreprocessArgs,

    #[command(flatten)]
    pub session: SessionArgs,

    #[command(flatten)]
    pub reference: ReferenceArgs,
}
