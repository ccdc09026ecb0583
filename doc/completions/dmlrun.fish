# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_dmlrun_global_optspecs
    string join \n i/input= generate= seed= free-dim-size= generate-range= max-tensor-bytes= max-image-pixels= preset= resize= resize-to= filter= scale= mean= std= channel-order= layout= pad-value= image-size= dim= shape= dim-denotation= no-auto-dims ep= device= dml-performance-preference= dml-device-filter= dml-disable-metacommands ep-option= opt-level= intra-threads= inter-threads= execution-mode= memory-pattern= session-config= precision= keep-fp32= block-size= asymmetric accuracy-level= decompose= inline-if gemm-zero-bias reshape-allowzero-off binary-as-reduce dequantize-gather matmulnbits-bias-add matmulnbits-drop-g-idx dequantize-matmulnbits drop-qdq-pair matmul-as-mul-reducesum fuse-sibling-matmuls matmulnbits-accuracy-level print-plan io-on-device dml-graph-capture warmup= iterations= compare-ep= compare-opt-level= rtol= atol= timeout= top-k= labels= save-outputs= as-test-data save-model= save-fixed-dims save-inputs= save-format= json= q/quiet v/verbose ort-lib= ep-library= ort-log-level= color= h/help V/version
end

function __fish_dmlrun_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_dmlrun_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_dmlrun_using_subcommand
    set -l cmd (__fish_dmlrun_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c dmlrun -n "__fish_dmlrun_needs_command" -s i -l input -d 'An input: FILE for the model\'s first input, or NAME=FILE. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l generate -d 'Fill inputs no --input gives: random (seeded), zeros or ones' -r -f -a "random\t'Uniform random: floats in [0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)'
zeros\t''
ones\t''"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l seed -d 'Seed for --generate random' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l free-dim-size -d 'Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l generate-range -d 'The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI): floats in [LO, HI), integers from LO to HI inclusive. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l max-tensor-bytes -d 'Refuse tensors (input files, generated data) larger than this many bytes' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l max-image-pixels -d 'Refuse images (--input, a manifest\'s image inputs) with more pixels than this (decompression bombs)' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l preset -d 'Named preprocessing: imagenet (default for float inputs), unit ([0,1]), raw (0..255; default for uint8 inputs)' -r -f -a "imagenet\t'torchvision ImageNet: crop mode, [0,1] then mean [0.485,0.456,0.406] / std [0.229,0.224,0.225], RGB'
unit\t'Stretch to size, scale to [0,1], no mean/std, RGB'
raw\t'Stretch to size, pixel values 0..255 unchanged, RGB'"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l resize -d 'How the picture fits the model\'s size: crop (shorter side, then centre crop), center-crop (centre crop alone), stretch, letterbox, none' -r -f -a "crop\t'Resize the shorter side (to `--resize-to`, default crop/0.875), then centre-crop'
stretch\t'Resize to exactly the model\'s size, ignoring the aspect ratio'
letterbox\t'Fit inside the model\'s size keeping the aspect ratio, pad the rest with `--pad-value`'
center-crop\t'No resizing: centre-crop to the model\'s size, padding with zeros where the picture is smaller (torchvision\'s `CenterCrop` alone)'
none\t'No resizing: the image must already have the model\'s size'"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l resize-to -d 'With --resize crop: the shorter-side length before cropping (default: crop size / 0.875, 256 for 224)' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l filter -d 'Resampling filter (Pillow-exact)' -r -f -a "bilinear\t''
bicubic\t''"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l scale -d 'Multiply pixel values (0..255) by this before mean/std (imagenet and unit: 1/255)' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l mean -d 'Per-channel mean subtracted after scaling, e.g. --mean 0.485,0.456,0.406' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l std -d 'Per-channel standard deviation divided by, e.g. --std 0.229,0.224,0.225' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l channel-order -d 'Channel order the model expects; --mean and --std stay R,G,B' -r -f -a "rgb\t''
bgr\t''"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l layout -d 'Tensor layout (default: inferred from where the model input has 1 or 3 channels)' -r -f -a "nchw\t''
nhwc\t''"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l pad-value -d 'With --resize letterbox: the pixel value of the padding' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l image-size -d 'Target HEIGHTxWIDTH when the model\'s spatial dimensions are free (default: the image\'s own size)' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l dim -d 'Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l shape -d 'The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l dim-denotation -d 'Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l ep -d 'Execution provider: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy:POLICY' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l device -d 'DirectML adapter: its index (DXGI order, as `dmlrun devices` lists them: DirectML\'s device_id), part of its name, or its LUID' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l dml-performance-preference -d 'DirectML performance_preference: let DirectML pick the adapter (instead of --device)' -r -f -a "default\t''
high-performance\t''
minimum-power\t''"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l dml-device-filter -d 'DirectML device_filter: which kinds of adapter DirectML may pick (instead of --device)' -r -f -a "gpu\t''
npu\t''
any\t''"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l ep-option -d 'A DirectML provider option passed through to ONNX Runtime as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l opt-level -d 'Graph optimisation level' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l intra-threads -d 'Threads within one operator (ONNX Runtime\'s intra_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l inter-threads -d 'Threads across operators in parallel mode (inter_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l execution-mode -d 'Execution mode. DirectML requires sequential; parallel is refused with it' -r -f -a "sequential\t''
parallel\t''"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l memory-pattern -d 'ONNX Runtime\'s memory pattern optimisation (default on for the CPU; DirectML requires off)' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l session-config -d 'A session config entry (ONNX Runtime\'s AddSessionConfigEntry), passed as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l precision -d 'The precision the model runs in: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session' -r -f -a "fp32\t'As the model is written'
fp16\t'Float32 initializers and computation converted to float16, inputs and outputs float32'
int4\t'Weight-only: each MatMul\'s constant weight in 4-bit blocks (MatMulNBits)'
int8\t'Weight-only: each MatMul\'s constant weight in 8-bit blocks (MatMulNBits)'"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l keep-fp32 -d 'With --precision fp16: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8: leave this MatMul (by name, `*` for any run of characters) as written. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l block-size -d 'With --precision int4 or int8: the rows of a weight\'s column quantized together (16, 32, 64, 128 or 256)' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l accuracy-level -d 'With --precision int4 or int8: the MatMulNBits nodes\' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l decompose -d 'Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated): LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l warmup -d 'Untimed runs after the first run and before the timed iterations' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l iterations -d 'Timed runs after the first run (at least 1)' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l compare-ep -d 'Also run on this execution provider and compare the outputs; exit 1 when they differ' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l compare-opt-level -d 'Optimisation level of the --compare-ep run (default: as the main run)' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l rtol -d 'Relative tolerance for --compare-ep' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l atol -d 'Absolute tolerance for --compare-ep' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l timeout -d 'Stop the whole run after this long (default 10m; 0 for no limit) and say which step it was in: session creation, the first run, the timed runs. Exit 2' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l top-k -d 'Show the K best classes of classifier outputs ([classes] or [batch, classes])' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l labels -d 'Class labels, one per line in class order, for --top-k' -r -F
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l save-outputs -d 'Write the outputs into DIR (created if needed; files written atomically)' -r -F
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l save-model -d 'Write the model as the session ran it to FILE: with every rewrite (--decompose, --gemm-zero-bias, --reshape-allowzero-off) and the float16 conversion, and dmlrun.* metadata_props saying what was done (dmlrun\'s version, the source model\'s hash, the rewrites, the precision, the largest difference from the original on the reference EP). Loaded alone, with no flag, it gives the outputs this run gave. Free dimensions stay as the file has them (a session fixes them through its options)' -r -F
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l save-inputs -d 'Write the inputs as fed to the model (after image preprocessing) into DIR' -r -F
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l save-format -d 'File format for --save-outputs and --save-inputs: npy (one file per tensor), npz, or pb (ONNX TensorProto files named input_K.pb / output_K.pb, as in ONNX test data)' -r -f -a "npy\t'One NAME.npy per output'
npz\t'One outputs.npz holding every output'
pb\t'One output_K.pb (ONNX TensorProto) per output, as in ONNX test data'"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l json -d 'Write the whole report as JSON to FILE ("-" for stdout, replacing the human report)' -r -F
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l ort-lib -d 'ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)' -r -F
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l ep-library -d 'Register a plugin execution provider library (ONNX Runtime\'s RegisterExecutionProviderLibrary) under NAME, by default the file\'s name. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l ort-log-level -d 'Lowest severity of ONNX Runtime\'s own log lines shown on stderr' -r -f -a "verbose\t''
info\t''
warning\t''
error\t''
fatal\t''"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l no-auto-dims -d 'Leave free dimensions free under DirectML instead of fixing them from the inputs'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l dml-disable-metacommands -d 'DirectML\'s disable_metacommands provider option: run DirectML\'s own compute shaders instead of the driver\'s metacommands (vendor-tuned kernels for convolution, GEMM)'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l asymmetric -d 'With --precision int4 or int8: a zero point a block (uint8), mapping each block\'s range [min, max]; by default symmetric, as the model builder writes DirectML models'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l inline-if -d 'Write every If of the main graph whose condition the run\'s inputs decide as the branch they take, before the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l gemm-zero-bias -d 'Give every Gemm without its optional bias an explicit zero bias, of its output\'s width and its weight\'s type, before the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l reshape-allowzero-off -d 'Drop `allowzero=1` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l binary-as-reduce -d 'Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l dequantize-gather -d 'Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales\' type), before the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l matmulnbits-bias-add -d 'Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l matmulnbits-drop-g-idx -d 'Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l dequantize-matmulnbits -d 'Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales\' type, float16 for the builder\'s DirectML models), before the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l drop-qdq-pair -d 'Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l matmul-as-mul-reducesum -d 'Write every MatMul whose weight is a constant of two dimensions [K, N] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l fuse-sibling-matmuls -d 'Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l matmulnbits-accuracy-level -d 'Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l print-plan -d 'Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l io-on-device -d 'Upload the inputs to DirectML\'s device memory once and keep the outputs there (IoBinding), so the timed runs measure the GPU\'s work without the host<->GPU copies'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l dml-graph-capture -d 'DirectML graph capture (ep.dml.enable_graph_capture): the first run\'s GPU work is recorded and replayed, saving the CPU\'s per-run dispatch'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l as-test-data -d 'With --save-outputs DIR: write DIR as an ONNX test-data folder instead (model.onnx and test_data_set_0/input_K.pb, output_K.pb) that `dmlrun test DIR` checks later: a frozen record of the model\'s behaviour. model.onnx is the model that made the outputs, as --save-model writes it (rewritten, converted), never the original beside another\'s outputs'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -l save-fixed-dims -d 'With --save-model: write the free dimensions as this run fixed them (--dim, --shape, or the sizes dmlrun gave them for DirectML from the inputs), for an application that sets no free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay symbolic, as in the source'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -s q -l quiet -d 'Print only the outputs, no timings or progress'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -s v -l verbose -d 'Say more: the resolved session plan too (as --print-plan), before the session'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -s V -l version -d 'Print version'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "run" -d 'Run a model once (plus timed iterations) and report outputs and timings (the default)'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "test" -d 'Validate models against ONNX test-data folders (model.onnx + test_data_set_N/*.pb)'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "bench" -d 'Benchmark models: given directly, found in folders, or listed in a TOML/JSON manifest'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "reduce" -d 'When an execution provider rejects a model (or its outputs differ): bisect to the smallest run of nodes that still fails, written as an ONNX test case'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "fix" -d 'Get a model through an execution provider that rejects it or gets it wrong: the remedies that fit it tried, each a whole run against the reference, and the model that passes written'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "tune" -d 'Find the fastest verified form of a model on the device at hand: each candidate form (a speed rewrite, float16, a session option) checked against the original on the reference EP and timed beside it in alternating rounds, kept only where the paired test says faster, the kept ones combined'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "generate" -d 'Generate text with a decoder LLM (an onnxruntime-genai model folder or a decoder .onnx) and measure it as LLM benchmarks do: time to first token, tokens per second, per-token latency'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "merge" -d 'Put reports back together: the JSON reports of a run\'s --shard K/N parts into the report of the whole run (JSON, JUnit, HTML, ...), or with --compare whole runs of the same work on different machines or devices side by side'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "info" -d 'Show a model\'s inputs, outputs, symbolic dimensions, opsets and metadata'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "devices" -d 'List the DirectML (DXGI) adapters; the index is the --device value'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "doctor" -d 'Show which ONNX Runtime dmlrun loads, from where, and its execution providers'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "completions" -d 'Print a shell completion script: dmlrun completions bash > /etc/bash_completion.d/dmlrun'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "man" -d 'Print the man page (roff): dmlrun man > dmlrun.1'
complete -c dmlrun -n "__fish_dmlrun_needs_command" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -s i -l input -d 'An input: FILE for the model\'s first input, or NAME=FILE. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l generate -d 'Fill inputs no --input gives: random (seeded), zeros or ones' -r -f -a "random\t'Uniform random: floats in [0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)'
zeros\t''
ones\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l seed -d 'Seed for --generate random' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l free-dim-size -d 'Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l generate-range -d 'The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI): floats in [LO, HI), integers from LO to HI inclusive. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l max-tensor-bytes -d 'Refuse tensors (input files, generated data) larger than this many bytes' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l max-image-pixels -d 'Refuse images (--input, a manifest\'s image inputs) with more pixels than this (decompression bombs)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l preset -d 'Named preprocessing: imagenet (default for float inputs), unit ([0,1]), raw (0..255; default for uint8 inputs)' -r -f -a "imagenet\t'torchvision ImageNet: crop mode, [0,1] then mean [0.485,0.456,0.406] / std [0.229,0.224,0.225], RGB'
unit\t'Stretch to size, scale to [0,1], no mean/std, RGB'
raw\t'Stretch to size, pixel values 0..255 unchanged, RGB'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l resize -d 'How the picture fits the model\'s size: crop (shorter side, then centre crop), center-crop (centre crop alone), stretch, letterbox, none' -r -f -a "crop\t'Resize the shorter side (to `--resize-to`, default crop/0.875), then centre-crop'
stretch\t'Resize to exactly the model\'s size, ignoring the aspect ratio'
letterbox\t'Fit inside the model\'s size keeping the aspect ratio, pad the rest with `--pad-value`'
center-crop\t'No resizing: centre-crop to the model\'s size, padding with zeros where the picture is smaller (torchvision\'s `CenterCrop` alone)'
none\t'No resizing: the image must already have the model\'s size'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l resize-to -d 'With --resize crop: the shorter-side length before cropping (default: crop size / 0.875, 256 for 224)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l filter -d 'Resampling filter (Pillow-exact)' -r -f -a "bilinear\t''
bicubic\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l scale -d 'Multiply pixel values (0..255) by this before mean/std (imagenet and unit: 1/255)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l mean -d 'Per-channel mean subtracted after scaling, e.g. --mean 0.485,0.456,0.406' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l std -d 'Per-channel standard deviation divided by, e.g. --std 0.229,0.224,0.225' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l channel-order -d 'Channel order the model expects; --mean and --std stay R,G,B' -r -f -a "rgb\t''
bgr\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l layout -d 'Tensor layout (default: inferred from where the model input has 1 or 3 channels)' -r -f -a "nchw\t''
nhwc\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l pad-value -d 'With --resize letterbox: the pixel value of the padding' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l image-size -d 'Target HEIGHTxWIDTH when the model\'s spatial dimensions are free (default: the image\'s own size)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l dim -d 'Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l shape -d 'The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l dim-denotation -d 'Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l ep -d 'Execution provider: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy:POLICY' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l device -d 'DirectML adapter: its index (DXGI order, as `dmlrun devices` lists them: DirectML\'s device_id), part of its name, or its LUID' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l dml-performance-preference -d 'DirectML performance_preference: let DirectML pick the adapter (instead of --device)' -r -f -a "default\t''
high-performance\t''
minimum-power\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l dml-device-filter -d 'DirectML device_filter: which kinds of adapter DirectML may pick (instead of --device)' -r -f -a "gpu\t''
npu\t''
any\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l ep-option -d 'A DirectML provider option passed through to ONNX Runtime as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l opt-level -d 'Graph optimisation level' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l intra-threads -d 'Threads within one operator (ONNX Runtime\'s intra_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l inter-threads -d 'Threads across operators in parallel mode (inter_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l execution-mode -d 'Execution mode. DirectML requires sequential; parallel is refused with it' -r -f -a "sequential\t''
parallel\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l memory-pattern -d 'ONNX Runtime\'s memory pattern optimisation (default on for the CPU; DirectML requires off)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l session-config -d 'A session config entry (ONNX Runtime\'s AddSessionConfigEntry), passed as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l precision -d 'The precision the model runs in: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session' -r -f -a "fp32\t'As the model is written'
fp16\t'Float32 initializers and computation converted to float16, inputs and outputs float32'
int4\t'Weight-only: each MatMul\'s constant weight in 4-bit blocks (MatMulNBits)'
int8\t'Weight-only: each MatMul\'s constant weight in 8-bit blocks (MatMulNBits)'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l keep-fp32 -d 'With --precision fp16: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8: leave this MatMul (by name, `*` for any run of characters) as written. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l block-size -d 'With --precision int4 or int8: the rows of a weight\'s column quantized together (16, 32, 64, 128 or 256)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l accuracy-level -d 'With --precision int4 or int8: the MatMulNBits nodes\' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l decompose -d 'Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated): LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l warmup -d 'Untimed runs after the first run and before the timed iterations' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l iterations -d 'Timed runs after the first run (at least 1)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l compare-ep -d 'Also run on this execution provider and compare the outputs; exit 1 when they differ' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l compare-opt-level -d 'Optimisation level of the --compare-ep run (default: as the main run)' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l rtol -d 'Relative tolerance for --compare-ep' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l atol -d 'Absolute tolerance for --compare-ep' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l timeout -d 'Stop the whole run after this long (default 10m; 0 for no limit) and say which step it was in: session creation, the first run, the timed runs. Exit 2' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l top-k -d 'Show the K best classes of classifier outputs ([classes] or [batch, classes])' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l labels -d 'Class labels, one per line in class order, for --top-k' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l save-outputs -d 'Write the outputs into DIR (created if needed; files written atomically)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l save-model -d 'Write the model as the session ran it to FILE: with every rewrite (--decompose, --gemm-zero-bias, --reshape-allowzero-off) and the float16 conversion, and dmlrun.* metadata_props saying what was done (dmlrun\'s version, the source model\'s hash, the rewrites, the precision, the largest difference from the original on the reference EP). Loaded alone, with no flag, it gives the outputs this run gave. Free dimensions stay as the file has them (a session fixes them through its options)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l save-inputs -d 'Write the inputs as fed to the model (after image preprocessing) into DIR' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l save-format -d 'File format for --save-outputs and --save-inputs: npy (one file per tensor), npz, or pb (ONNX TensorProto files named input_K.pb / output_K.pb, as in ONNX test data)' -r -f -a "npy\t'One NAME.npy per output'
npz\t'One outputs.npz holding every output'
pb\t'One output_K.pb (ONNX TensorProto) per output, as in ONNX test data'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l json -d 'Write the whole report as JSON to FILE ("-" for stdout, replacing the human report)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l ort-lib -d 'ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l ep-library -d 'Register a plugin execution provider library (ONNX Runtime\'s RegisterExecutionProviderLibrary) under NAME, by default the file\'s name. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l ort-log-level -d 'Lowest severity of ONNX Runtime\'s own log lines shown on stderr' -r -f -a "verbose\t''
info\t''
warning\t''
error\t''
fatal\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l no-auto-dims -d 'Leave free dimensions free under DirectML instead of fixing them from the inputs'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l dml-disable-metacommands -d 'DirectML\'s disable_metacommands provider option: run DirectML\'s own compute shaders instead of the driver\'s metacommands (vendor-tuned kernels for convolution, GEMM)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l asymmetric -d 'With --precision int4 or int8: a zero point a block (uint8), mapping each block\'s range [min, max]; by default symmetric, as the model builder writes DirectML models'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l inline-if -d 'Write every If of the main graph whose condition the run\'s inputs decide as the branch they take, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l gemm-zero-bias -d 'Give every Gemm without its optional bias an explicit zero bias, of its output\'s width and its weight\'s type, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l reshape-allowzero-off -d 'Drop `allowzero=1` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l binary-as-reduce -d 'Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l dequantize-gather -d 'Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales\' type), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l matmulnbits-bias-add -d 'Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l matmulnbits-drop-g-idx -d 'Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l dequantize-matmulnbits -d 'Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales\' type, float16 for the builder\'s DirectML models), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l drop-qdq-pair -d 'Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l matmul-as-mul-reducesum -d 'Write every MatMul whose weight is a constant of two dimensions [K, N] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l fuse-sibling-matmuls -d 'Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l matmulnbits-accuracy-level -d 'Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l print-plan -d 'Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l io-on-device -d 'Upload the inputs to DirectML\'s device memory once and keep the outputs there (IoBinding), so the timed runs measure the GPU\'s work without the host<->GPU copies'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l dml-graph-capture -d 'DirectML graph capture (ep.dml.enable_graph_capture): the first run\'s GPU work is recorded and replayed, saving the CPU\'s per-run dispatch'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l as-test-data -d 'With --save-outputs DIR: write DIR as an ONNX test-data folder instead (model.onnx and test_data_set_0/input_K.pb, output_K.pb) that `dmlrun test DIR` checks later: a frozen record of the model\'s behaviour. model.onnx is the model that made the outputs, as --save-model writes it (rewritten, converted), never the original beside another\'s outputs'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -l save-fixed-dims -d 'With --save-model: write the free dimensions as this run fixed them (--dim, --shape, or the sizes dmlrun gave them for DirectML from the inputs), for an application that sets no free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay symbolic, as in the source'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -s q -l quiet -d 'Print only the outputs, no timings or progress'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -s v -l verbose -d 'Say more: the resolved session plan too (as --print-plan), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l generate -d 'How inputs no file gives are filled (a bench manifest can say per model; test fills the inputs of a model that has no test data, checked with --compare-ep)' -r -f -a "random\t'Uniform random: floats in [0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)'
zeros\t''
ones\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l seed -d 'Seed for --generate random' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l free-dim-size -d 'Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l generate-range -d 'The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI): floats in [LO, HI), integers from LO to HI inclusive. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l max-tensor-bytes -d 'Refuse tensors (input files, generated data) larger than this many bytes' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l max-image-pixels -d 'Refuse images (--input, a manifest\'s image inputs) with more pixels than this (decompression bombs)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l dim -d 'Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l shape -d 'The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l dim-denotation -d 'Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l ep -d 'Execution provider: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy:POLICY' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l device -d 'DirectML adapter: its index (DXGI order, as `dmlrun devices` lists them: DirectML\'s device_id), part of its name, or its LUID' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l dml-performance-preference -d 'DirectML performance_preference: let DirectML pick the adapter (instead of --device)' -r -f -a "default\t''
high-performance\t''
minimum-power\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l dml-device-filter -d 'DirectML device_filter: which kinds of adapter DirectML may pick (instead of --device)' -r -f -a "gpu\t''
npu\t''
any\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l ep-option -d 'A DirectML provider option passed through to ONNX Runtime as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l opt-level -d 'Graph optimisation level' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l intra-threads -d 'Threads within one operator (ONNX Runtime\'s intra_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l inter-threads -d 'Threads across operators in parallel mode (inter_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l execution-mode -d 'Execution mode. DirectML requires sequential; parallel is refused with it' -r -f -a "sequential\t''
parallel\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l memory-pattern -d 'ONNX Runtime\'s memory pattern optimisation (default on for the CPU; DirectML requires off)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l session-config -d 'A session config entry (ONNX Runtime\'s AddSessionConfigEntry), passed as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l precision -d 'The precision the model runs in: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session' -r -f -a "fp32\t'As the model is written'
fp16\t'Float32 initializers and computation converted to float16, inputs and outputs float32'
int4\t'Weight-only: each MatMul\'s constant weight in 4-bit blocks (MatMulNBits)'
int8\t'Weight-only: each MatMul\'s constant weight in 8-bit blocks (MatMulNBits)'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l keep-fp32 -d 'With --precision fp16: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8: leave this MatMul (by name, `*` for any run of characters) as written. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l block-size -d 'With --precision int4 or int8: the rows of a weight\'s column quantized together (16, 32, 64, 128 or 256)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l accuracy-level -d 'With --precision int4 or int8: the MatMulNBits nodes\' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l decompose -d 'Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated): LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l rtol -d 'Relative tolerance: a float passes when |expected - actual| <= atol + rtol * |expected|. A case\'s data.json overrides it' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l atol -d 'Absolute tolerance (see --rtol). A case\'s data.json overrides it. The default, 1e-7 with rtol 1e-3, is ONNX\'s own for its test data (its backend test runner\'s), so conformance results compare with ONNX Runtime\'s; run and bench compare two EPs at 1e-5' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l tol -d 'Tolerance for one output, overriding everything else: --tol NAME=ATOL,RTOL. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l compare-ep -d 'Also run every case on this execution provider and compare the two runs with the same rules (instead of the expected outputs): the DirectML-vs-CPU check' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l compare-opt-level -d 'Optimisation level of the reference run of --compare-ep (default: as the main run)' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l compare-intra-threads -d 'Intra-op threads of the reference run of --compare-ep' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l expect -d 'Known failures: lines of `fail NAME` or `error NAME` (# comments). Those cases may fail without failing the run; any other change does, and a known failure that now passes is reported' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l write-expect -d 'Write this run\'s failures and errors as an --expect file' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l shard -d 'Run only shard K of N of the cases: count mode (K/N) deals them round-robin in name order, hash mode (hash:K/N) by a hash of each case\'s name. The N shards together run every case once; `dmlrun merge` puts their JSON reports back together' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -s j -l jobs -d 'Run this many cases at once (CPU only; DirectML cases always run one at a time). With more than one, each session uses one intra-op thread unless --intra-threads says otherwise' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l isolation -d 'Run the items in child dmlrun processes, so one that kills its process (an abort in DirectML, a segfault, a lost device) is recorded as `crash`, one that runs past --timeout as `timeout`, and the others still run' -r -f -a "auto\t'In child processes when DirectML is in the plan or a time limit holds (by default one does), in this process otherwise'
process\t'Always in child processes'
none\t'In this process'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l timeout -d 'Kill a case or model that runs longer than this, from its start, and record it as `timeout` with the step it was in (default: 10m a bench model, 5m a test case, for fix and tune scaled from the model\'s own time, 30s to 10m; 0 for no limit)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l child-report -d 'Internal: run as an isolation child, appending each item\'s result to FILE as one JSON line as it finishes, and nothing else' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l progress -d 'Internal: write the item (and step) under way to FILE, for the parent\'s time limit' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l preflight -d 'Internal: the items as the parent resolved them (JSON: each with its preflight), so that the child runs exactly those and resolves no flag again' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l save-models -d 'Write each item\'s model (a test case\'s, a bench model\'s) as its session ran it into DIR, as run\'s --save-model writes one (every rewrite and the float16 conversion, dmlrun.* metadata_props saying what was done): DIR/NAME.onnx, NAME the item\'s name as the report gives it. A model dmlrun did not change is written too (its own bytes, the record added), unless its weights are in external data files: then it gets a warning and no file' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l json -d 'Write the report as JSON to FILE ("-" for stdout instead of the summary)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l csv -d 'Write a CSV table to FILE ("-" for stdout): a row per case (test), model (bench) or prompt (generate), with its status and figures' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l markdown -d 'Write a Markdown table to FILE ("-" for stdout), as --csv, for a pull request or a README (merge --compare: the comparison)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l html -d 'Write a self-contained HTML page to FILE. test: the totals and every case with its status (filterable) and where mismatching outputs part; bench: the environment, each model\'s latency distribution with p50/p90/p99, p50/p99 across models, and with --compare-ep, --baseline and --profile their comparisons; generate: the figures and a plot of each token\'s decode latency over the sequence (where the KV cache\'s growth shows)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l junit -d 'Write JUnit XML to FILE ("-" for stdout): a case per test case, bench model or generate prompt, failed where it failed (bench: or regressed against the baseline, the verdict in its output; generate: where its tokens part from --compare-ep\'s)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l ci -d 'Report to the CI system\'s own pages: with github, a Markdown summary appended to $GITHUB_STEP_SUMMARY (the failed items first, at most 1 MiB) and an annotation on the run per failed item (at most 10, then a count), printed on stderr, where the runner reads them too; stdout is unchanged. auto: github where GITHUB_ACTIONS=true; none: never' -r -f -a "auto\t''
github\t''
none\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l ort-lib -d 'ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l ep-library -d 'Register a plugin execution provider library (ONNX Runtime\'s RegisterExecutionProviderLibrary) under NAME, by default the file\'s name. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l ort-log-level -d 'Lowest severity of ONNX Runtime\'s own log lines shown on stderr' -r -f -a "verbose\t''
info\t''
warning\t''
error\t''
fatal\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l no-auto-dims -d 'Leave free dimensions free under DirectML instead of fixing them from the inputs'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l dml-disable-metacommands -d 'DirectML\'s disable_metacommands provider option: run DirectML\'s own compute shaders instead of the driver\'s metacommands (vendor-tuned kernels for convolution, GEMM)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l asymmetric -d 'With --precision int4 or int8: a zero point a block (uint8), mapping each block\'s range [min, max]; by default symmetric, as the model builder writes DirectML models'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l inline-if -d 'Write every If of the main graph whose condition the run\'s inputs decide as the branch they take, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l gemm-zero-bias -d 'Give every Gemm without its optional bias an explicit zero bias, of its output\'s width and its weight\'s type, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l reshape-allowzero-off -d 'Drop `allowzero=1` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l binary-as-reduce -d 'Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l dequantize-gather -d 'Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales\' type), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l matmulnbits-bias-add -d 'Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l matmulnbits-drop-g-idx -d 'Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l dequantize-matmulnbits -d 'Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales\' type, float16 for the builder\'s DirectML models), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l drop-qdq-pair -d 'Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l matmul-as-mul-reducesum -d 'Write every MatMul whose weight is a constant of two dimensions [K, N] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l fuse-sibling-matmuls -d 'Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l matmulnbits-accuracy-level -d 'Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l print-plan -d 'Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l check-finite -d 'Fail a case whose outputs hold NaN or Inf'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -l save-fixed-dims -d 'With --save-models: write the free dimensions as this run fixed them (--dim, --shape, or the sizes dmlrun gave them for DirectML from the inputs), for an application that sets no free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay symbolic, as in the source'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -s v -l verbose -d 'List passing cases too'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -s q -l quiet -d 'Print only the summary line'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand test" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l generate -d 'How inputs no file gives are filled (a bench manifest can say per model; test fills the inputs of a model that has no test data, checked with --compare-ep)' -r -f -a "random\t'Uniform random: floats in [0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)'
zeros\t''
ones\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l seed -d 'Seed for --generate random' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l free-dim-size -d 'Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l generate-range -d 'The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI): floats in [LO, HI), integers from LO to HI inclusive. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l max-tensor-bytes -d 'Refuse tensors (input files, generated data) larger than this many bytes' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l max-image-pixels -d 'Refuse images (--input, a manifest\'s image inputs) with more pixels than this (decompression bombs)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l dim -d 'Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l shape -d 'The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l dim-denotation -d 'Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l ep -d 'Execution provider: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy:POLICY' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l device -d 'DirectML adapter: its index (DXGI order, as `dmlrun devices` lists them: DirectML\'s device_id), part of its name, or its LUID' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l dml-performance-preference -d 'DirectML performance_preference: let DirectML pick the adapter (instead of --device)' -r -f -a "default\t''
high-performance\t''
minimum-power\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l dml-device-filter -d 'DirectML device_filter: which kinds of adapter DirectML may pick (instead of --device)' -r -f -a "gpu\t''
npu\t''
any\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l ep-option -d 'A DirectML provider option passed through to ONNX Runtime as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l opt-level -d 'Graph optimisation level' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l intra-threads -d 'Threads within one operator (ONNX Runtime\'s intra_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l inter-threads -d 'Threads across operators in parallel mode (inter_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l execution-mode -d 'Execution mode. DirectML requires sequential; parallel is refused with it' -r -f -a "sequential\t''
parallel\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l memory-pattern -d 'ONNX Runtime\'s memory pattern optimisation (default on for the CPU; DirectML requires off)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l session-config -d 'A session config entry (ONNX Runtime\'s AddSessionConfigEntry), passed as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l precision -d 'The precision the model runs in: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session' -r -f -a "fp32\t'As the model is written'
fp16\t'Float32 initializers and computation converted to float16, inputs and outputs float32'
int4\t'Weight-only: each MatMul\'s constant weight in 4-bit blocks (MatMulNBits)'
int8\t'Weight-only: each MatMul\'s constant weight in 8-bit blocks (MatMulNBits)'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l keep-fp32 -d 'With --precision fp16: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8: leave this MatMul (by name, `*` for any run of characters) as written. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l block-size -d 'With --precision int4 or int8: the rows of a weight\'s column quantized together (16, 32, 64, 128 or 256)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l accuracy-level -d 'With --precision int4 or int8: the MatMulNBits nodes\' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l decompose -d 'Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated): LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l iterations -d 'Timed runs per model (default 100, unless --duration is given)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l duration -d 'Time box per model instead of a count, e.g. 10s or 500ms (bounded by --min/--max-iterations)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l min-iterations -d 'With --duration: at least this many timed runs' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l max-iterations -d 'With --duration: at most this many timed runs' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l warmup -d 'Untimed runs after the first run' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l sessions -d 'Also run N sessions of each model at once, each by its own thread, and report their aggregate throughput and each one\'s latency percentiles' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l sweep -d 'Measure each model once per size of a free dimension, each size in a session of its own: session creation and the first run (where DirectML compiles for the shape) beside the steady p50/p99 and items per second, the best throughput marked' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l sweep-shape -d 'As --sweep, over one input\'s whole shapes (which also fix its named free dimensions), separated by \':\'' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l profile -d 'Save ONNX Runtime\'s per-operator profile of each model into DIR and print the top 10 operators' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l cache -d 'Keep the optimised model ONNX Runtime produces in DIR (keyed by model hash, EP, device, dims, optimisation level and ONNX Runtime version) and load it next time' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l compare-ep -d 'Also run on this execution provider and compare the outputs; exit 1 when they differ' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l compare-opt-level -d 'Optimisation level of the --compare-ep run (default: as the main run)' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l rtol -d 'Relative tolerance for --compare-ep' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l atol -d 'Absolute tolerance for --compare-ep' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l baseline -d 'Judge each model\'s runs against an earlier --json report\'s: regression, improvement, no change or inconclusive; exit 1 on a regression' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l baseline-model -d 'Time an older version of the model in the same session, in alternating rounds (A B B A ...) on the same device with the same session options, and judge the new one against it as --baseline does: a slow spell of the machine then falls on both' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l max-regression -d 'Largest slowdown taken as none against --baseline or --baseline-model, e.g. 5% or 0.05: a significant change within it both ways is \'no change\'. A bare number of 1 or more (5) is refused as ambiguous: write 5%' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l rounds -d 'Time each model\'s runs in N rounds: consecutive blocks (alternating with the baseline model\'s under --baseline-model), kept in the JSON report, so a slow spell shows as a slow round and the verdict weighs the spread between rounds' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l shard -d 'Benchmark only shard K of N of the models: count mode (K/N) deals them round-robin in the order given, hash mode (hash:K/N) by a hash of each model\'s name. `dmlrun merge` puts the N JSON reports back together' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l isolation -d 'Run the items in child dmlrun processes, so one that kills its process (an abort in DirectML, a segfault, a lost device) is recorded as `crash`, one that runs past --timeout as `timeout`, and the others still run' -r -f -a "auto\t'In child processes when DirectML is in the plan or a time limit holds (by default one does), in this process otherwise'
process\t'Always in child processes'
none\t'In this process'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l timeout -d 'Kill a case or model that runs longer than this, from its start, and record it as `timeout` with the step it was in (default: 10m a bench model, 5m a test case, for fix and tune scaled from the model\'s own time, 30s to 10m; 0 for no limit)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l child-report -d 'Internal: run as an isolation child, appending each item\'s result to FILE as one JSON line as it finishes, and nothing else' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l progress -d 'Internal: write the item (and step) under way to FILE, for the parent\'s time limit' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l preflight -d 'Internal: the items as the parent resolved them (JSON: each with its preflight), so that the child runs exactly those and resolves no flag again' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l json -d 'Write the report as JSON to FILE ("-" for stdout instead of the summary)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l csv -d 'Write a CSV table to FILE ("-" for stdout): a row per case (test), model (bench) or prompt (generate), with its status and figures' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l markdown -d 'Write a Markdown table to FILE ("-" for stdout), as --csv, for a pull request or a README (merge --compare: the comparison)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l html -d 'Write a self-contained HTML page to FILE. test: the totals and every case with its status (filterable) and where mismatching outputs part; bench: the environment, each model\'s latency distribution with p50/p90/p99, p50/p99 across models, and with --compare-ep, --baseline and --profile their comparisons; generate: the figures and a plot of each token\'s decode latency over the sequence (where the KV cache\'s growth shows)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l junit -d 'Write JUnit XML to FILE ("-" for stdout): a case per test case, bench model or generate prompt, failed where it failed (bench: or regressed against the baseline, the verdict in its output; generate: where its tokens part from --compare-ep\'s)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l save-models -d 'Write each item\'s model (a test case\'s, a bench model\'s) as its session ran it into DIR, as run\'s --save-model writes one (every rewrite and the float16 conversion, dmlrun.* metadata_props saying what was done): DIR/NAME.onnx, NAME the item\'s name as the report gives it. A model dmlrun did not change is written too (its own bytes, the record added), unless its weights are in external data files: then it gets a warning and no file' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l ci -d 'Report to the CI system\'s own pages: with github, a Markdown summary appended to $GITHUB_STEP_SUMMARY (the failed items first, at most 1 MiB) and an annotation on the run per failed item (at most 10, then a count), printed on stderr, where the runner reads them too; stdout is unchanged. auto: github where GITHUB_ACTIONS=true; none: never' -r -f -a "auto\t''
github\t''
none\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l ort-lib -d 'ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l ep-library -d 'Register a plugin execution provider library (ONNX Runtime\'s RegisterExecutionProviderLibrary) under NAME, by default the file\'s name. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l ort-log-level -d 'Lowest severity of ONNX Runtime\'s own log lines shown on stderr' -r -f -a "verbose\t''
info\t''
warning\t''
error\t''
fatal\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l no-auto-dims -d 'Leave free dimensions free under DirectML instead of fixing them from the inputs'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l dml-disable-metacommands -d 'DirectML\'s disable_metacommands provider option: run DirectML\'s own compute shaders instead of the driver\'s metacommands (vendor-tuned kernels for convolution, GEMM)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l asymmetric -d 'With --precision int4 or int8: a zero point a block (uint8), mapping each block\'s range [min, max]; by default symmetric, as the model builder writes DirectML models'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l inline-if -d 'Write every If of the main graph whose condition the run\'s inputs decide as the branch they take, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l gemm-zero-bias -d 'Give every Gemm without its optional bias an explicit zero bias, of its output\'s width and its weight\'s type, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l reshape-allowzero-off -d 'Drop `allowzero=1` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l binary-as-reduce -d 'Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l dequantize-gather -d 'Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales\' type), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l matmulnbits-bias-add -d 'Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l matmulnbits-drop-g-idx -d 'Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l dequantize-matmulnbits -d 'Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales\' type, float16 for the builder\'s DirectML models), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l drop-qdq-pair -d 'Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l matmul-as-mul-reducesum -d 'Write every MatMul whose weight is a constant of two dimensions [K, N] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l fuse-sibling-matmuls -d 'Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l matmulnbits-accuracy-level -d 'Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l print-plan -d 'Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l io-on-device -d 'Upload the inputs to DirectML\'s device memory once and keep the outputs there (IoBinding), so the timed runs measure the GPU\'s work without the host<->GPU copies'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l dml-graph-capture -d 'DirectML graph capture (ep.dml.enable_graph_capture): the first run\'s GPU work is recorded and replayed, saving the CPU\'s per-run dispatch'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l profile-unfused -d 'With --profile on DirectML: turn DirectML\'s graph fusion off (ep.dml.disable_graph_fusion=1) so the profile lists each operator with its time and share'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -l save-fixed-dims -d 'With --save-models: write the free dimensions as this run fixed them (--dim, --shape, or the sizes dmlrun gave them for DirectML from the inputs), for an application that sets no free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay symbolic, as in the source'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -s q -l quiet -d 'No progress bars'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand bench" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -s i -l input -d 'An input: FILE for the model\'s first input, or NAME=FILE. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l generate -d 'Fill inputs no --input gives: random (seeded), zeros or ones' -r -f -a "random\t'Uniform random: floats in [0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)'
zeros\t''
ones\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l seed -d 'Seed for --generate random' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l free-dim-size -d 'Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l generate-range -d 'The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI): floats in [LO, HI), integers from LO to HI inclusive. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l max-tensor-bytes -d 'Refuse tensors (input files, generated data) larger than this many bytes' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l max-image-pixels -d 'Refuse images (--input, a manifest\'s image inputs) with more pixels than this (decompression bombs)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l preset -d 'Named preprocessing: imagenet (default for float inputs), unit ([0,1]), raw (0..255; default for uint8 inputs)' -r -f -a "imagenet\t'torchvision ImageNet: crop mode, [0,1] then mean [0.485,0.456,0.406] / std [0.229,0.224,0.225], RGB'
unit\t'Stretch to size, scale to [0,1], no mean/std, RGB'
raw\t'Stretch to size, pixel values 0..255 unchanged, RGB'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l resize -d 'How the picture fits the model\'s size: crop (shorter side, then centre crop), center-crop (centre crop alone), stretch, letterbox, none' -r -f -a "crop\t'Resize the shorter side (to `--resize-to`, default crop/0.875), then centre-crop'
stretch\t'Resize to exactly the model\'s size, ignoring the aspect ratio'
letterbox\t'Fit inside the model\'s size keeping the aspect ratio, pad the rest with `--pad-value`'
center-crop\t'No resizing: centre-crop to the model\'s size, padding with zeros where the picture is smaller (torchvision\'s `CenterCrop` alone)'
none\t'No resizing: the image must already have the model\'s size'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l resize-to -d 'With --resize crop: the shorter-side length before cropping (default: crop size / 0.875, 256 for 224)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l filter -d 'Resampling filter (Pillow-exact)' -r -f -a "bilinear\t''
bicubic\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l scale -d 'Multiply pixel values (0..255) by this before mean/std (imagenet and unit: 1/255)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l mean -d 'Per-channel mean subtracted after scaling, e.g. --mean 0.485,0.456,0.406' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l std -d 'Per-channel standard deviation divided by, e.g. --std 0.229,0.224,0.225' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l channel-order -d 'Channel order the model expects; --mean and --std stay R,G,B' -r -f -a "rgb\t''
bgr\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l layout -d 'Tensor layout (default: inferred from where the model input has 1 or 3 channels)' -r -f -a "nchw\t''
nhwc\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l pad-value -d 'With --resize letterbox: the pixel value of the padding' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l image-size -d 'Target HEIGHTxWIDTH when the model\'s spatial dimensions are free (default: the image\'s own size)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l dim -d 'Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l shape -d 'The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l dim-denotation -d 'Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l ep -d 'Execution provider: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy:POLICY' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l device -d 'DirectML adapter: its index (DXGI order, as `dmlrun devices` lists them: DirectML\'s device_id), part of its name, or its LUID' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l dml-performance-preference -d 'DirectML performance_preference: let DirectML pick the adapter (instead of --device)' -r -f -a "default\t''
high-performance\t''
minimum-power\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l dml-device-filter -d 'DirectML device_filter: which kinds of adapter DirectML may pick (instead of --device)' -r -f -a "gpu\t''
npu\t''
any\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l ep-option -d 'A DirectML provider option passed through to ONNX Runtime as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l opt-level -d 'Graph optimisation level' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l intra-threads -d 'Threads within one operator (ONNX Runtime\'s intra_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l inter-threads -d 'Threads across operators in parallel mode (inter_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l execution-mode -d 'Execution mode. DirectML requires sequential; parallel is refused with it' -r -f -a "sequential\t''
parallel\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l memory-pattern -d 'ONNX Runtime\'s memory pattern optimisation (default on for the CPU; DirectML requires off)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l session-config -d 'A session config entry (ONNX Runtime\'s AddSessionConfigEntry), passed as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l precision -d 'The precision the model runs in: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session' -r -f -a "fp32\t'As the model is written'
fp16\t'Float32 initializers and computation converted to float16, inputs and outputs float32'
int4\t'Weight-only: each MatMul\'s constant weight in 4-bit blocks (MatMulNBits)'
int8\t'Weight-only: each MatMul\'s constant weight in 8-bit blocks (MatMulNBits)'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l keep-fp32 -d 'With --precision fp16: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8: leave this MatMul (by name, `*` for any run of characters) as written. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l block-size -d 'With --precision int4 or int8: the rows of a weight\'s column quantized together (16, 32, 64, 128 or 256)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l accuracy-level -d 'With --precision int4 or int8: the MatMulNBits nodes\' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l decompose -d 'Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated): LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l compare-ep -d 'The reference execution provider, which must run the original model: reduce feeds each candidate the values it gave and checks the outputs against them; fix holds every attempt\'s outputs to its outputs on the original. Takes what --ep takes' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l rtol -d 'Relative tolerance: outputs further apart than atol + rtol * |reference| differ' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l atol -d 'Absolute tolerance (see --rtol)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l timeout -d 'Stop bisecting after this long and write the smallest failing model found so far (exit 1: it may not be the smallest); 0 for no limit. `--time-limit` is the same flag' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l candidate-timeout -d 'Kill a candidate\'s child process after this long. Where the whole model runs past it on the EP under test and the reference runs it, the reduction keeps the nodes that hang (a candidate that times out reproduces); otherwise a timeout counts as not reproducing' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -s o -l output -d 'The folder to write the minimal model into, as an ONNX test case: model.onnx, test_data_set_0/ (the reference\'s inputs and outputs) and reduce.json (what was tried). It must not exist or be empty. Default: MODEL\'s name with `-reduced`, in the current folder' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l json -d 'Also write the summary as JSON (to stdout with `-`, or to FILE)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l ort-lib -d 'ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l ep-library -d 'Register a plugin execution provider library (ONNX Runtime\'s RegisterExecutionProviderLibrary) under NAME, by default the file\'s name. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l ort-log-level -d 'Lowest severity of ONNX Runtime\'s own log lines shown on stderr' -r -f -a "verbose\t''
info\t''
warning\t''
error\t''
fatal\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l child-report -d 'Internal: run as an isolation child, appending each item\'s result to FILE as one JSON line as it finishes, and nothing else' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l progress -d 'Internal: write the item (and step) under way to FILE, for the parent\'s time limit' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l preflight -d 'Internal: the items as the parent resolved them (JSON: each with its preflight), so that the child runs exactly those and resolves no flag again' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l no-auto-dims -d 'Leave free dimensions free under DirectML instead of fixing them from the inputs'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l dml-disable-metacommands -d 'DirectML\'s disable_metacommands provider option: run DirectML\'s own compute shaders instead of the driver\'s metacommands (vendor-tuned kernels for convolution, GEMM)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l asymmetric -d 'With --precision int4 or int8: a zero point a block (uint8), mapping each block\'s range [min, max]; by default symmetric, as the model builder writes DirectML models'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l inline-if -d 'Write every If of the main graph whose condition the run\'s inputs decide as the branch they take, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l gemm-zero-bias -d 'Give every Gemm without its optional bias an explicit zero bias, of its output\'s width and its weight\'s type, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l reshape-allowzero-off -d 'Drop `allowzero=1` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l binary-as-reduce -d 'Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l dequantize-gather -d 'Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales\' type), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l matmulnbits-bias-add -d 'Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l matmulnbits-drop-g-idx -d 'Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l dequantize-matmulnbits -d 'Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales\' type, float16 for the builder\'s DirectML models), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l drop-qdq-pair -d 'Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l matmul-as-mul-reducesum -d 'Write every MatMul whose weight is a constant of two dimensions [K, N] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l fuse-sibling-matmuls -d 'Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l matmulnbits-accuracy-level -d 'Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l print-plan -d 'Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -l each-op -d 'Instead of bisecting: check each operator type of the model alone (its first node as a one-node model, fed with the reference\'s values) on the EP under test, and list which it runs and which it rejects. Exit 1 when one fails. Nothing is written but --json'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -s q -l quiet -d 'No progress bar or per-candidate lines on stderr'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand reduce" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -s i -l input -d 'An input: FILE for the model\'s first input, or NAME=FILE. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l generate -d 'Fill inputs no --input gives: random (seeded), zeros or ones' -r -f -a "random\t'Uniform random: floats in [0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)'
zeros\t''
ones\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l seed -d 'Seed for --generate random' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l free-dim-size -d 'Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l generate-range -d 'The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI): floats in [LO, HI), integers from LO to HI inclusive. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l max-tensor-bytes -d 'Refuse tensors (input files, generated data) larger than this many bytes' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l max-image-pixels -d 'Refuse images (--input, a manifest\'s image inputs) with more pixels than this (decompression bombs)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l preset -d 'Named preprocessing: imagenet (default for float inputs), unit ([0,1]), raw (0..255; default for uint8 inputs)' -r -f -a "imagenet\t'torchvision ImageNet: crop mode, [0,1] then mean [0.485,0.456,0.406] / std [0.229,0.224,0.225], RGB'
unit\t'Stretch to size, scale to [0,1], no mean/std, RGB'
raw\t'Stretch to size, pixel values 0..255 unchanged, RGB'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l resize -d 'How the picture fits the model\'s size: crop (shorter side, then centre crop), center-crop (centre crop alone), stretch, letterbox, none' -r -f -a "crop\t'Resize the shorter side (to `--resize-to`, default crop/0.875), then centre-crop'
stretch\t'Resize to exactly the model\'s size, ignoring the aspect ratio'
letterbox\t'Fit inside the model\'s size keeping the aspect ratio, pad the rest with `--pad-value`'
center-crop\t'No resizing: centre-crop to the model\'s size, padding with zeros where the picture is smaller (torchvision\'s `CenterCrop` alone)'
none\t'No resizing: the image must already have the model\'s size'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l resize-to -d 'With --resize crop: the shorter-side length before cropping (default: crop size / 0.875, 256 for 224)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l filter -d 'Resampling filter (Pillow-exact)' -r -f -a "bilinear\t''
bicubic\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l scale -d 'Multiply pixel values (0..255) by this before mean/std (imagenet and unit: 1/255)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l mean -d 'Per-channel mean subtracted after scaling, e.g. --mean 0.485,0.456,0.406' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l std -d 'Per-channel standard deviation divided by, e.g. --std 0.229,0.224,0.225' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l channel-order -d 'Channel order the model expects; --mean and --std stay R,G,B' -r -f -a "rgb\t''
bgr\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l layout -d 'Tensor layout (default: inferred from where the model input has 1 or 3 channels)' -r -f -a "nchw\t''
nhwc\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l pad-value -d 'With --resize letterbox: the pixel value of the padding' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l image-size -d 'Target HEIGHTxWIDTH when the model\'s spatial dimensions are free (default: the image\'s own size)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l dim -d 'Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l shape -d 'The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l dim-denotation -d 'Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l ep -d 'Execution provider: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy:POLICY' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l device -d 'DirectML adapter: its index (DXGI order, as `dmlrun devices` lists them: DirectML\'s device_id), part of its name, or its LUID' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l dml-performance-preference -d 'DirectML performance_preference: let DirectML pick the adapter (instead of --device)' -r -f -a "default\t''
high-performance\t''
minimum-power\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l dml-device-filter -d 'DirectML device_filter: which kinds of adapter DirectML may pick (instead of --device)' -r -f -a "gpu\t''
npu\t''
any\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l ep-option -d 'A DirectML provider option passed through to ONNX Runtime as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l opt-level -d 'Graph optimisation level' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l intra-threads -d 'Threads within one operator (ONNX Runtime\'s intra_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l inter-threads -d 'Threads across operators in parallel mode (inter_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l execution-mode -d 'Execution mode. DirectML requires sequential; parallel is refused with it' -r -f -a "sequential\t''
parallel\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l memory-pattern -d 'ONNX Runtime\'s memory pattern optimisation (default on for the CPU; DirectML requires off)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l session-config -d 'A session config entry (ONNX Runtime\'s AddSessionConfigEntry), passed as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l precision -d 'The precision the model runs in: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session' -r -f -a "fp32\t'As the model is written'
fp16\t'Float32 initializers and computation converted to float16, inputs and outputs float32'
int4\t'Weight-only: each MatMul\'s constant weight in 4-bit blocks (MatMulNBits)'
int8\t'Weight-only: each MatMul\'s constant weight in 8-bit blocks (MatMulNBits)'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l keep-fp32 -d 'With --precision fp16: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8: leave this MatMul (by name, `*` for any run of characters) as written. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l block-size -d 'With --precision int4 or int8: the rows of a weight\'s column quantized together (16, 32, 64, 128 or 256)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l accuracy-level -d 'With --precision int4 or int8: the MatMulNBits nodes\' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l decompose -d 'Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated): LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l compare-ep -d 'The reference execution provider, which must run the original model: reduce feeds each candidate the values it gave and checks the outputs against them; fix holds every attempt\'s outputs to its outputs on the original. Takes what --ep takes' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l rtol -d 'Relative tolerance: outputs further apart than atol + rtol * |reference| differ' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l atol -d 'Absolute tolerance (see --rtol)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l isolation -d 'Run the items in child dmlrun processes, so one that kills its process (an abort in DirectML, a segfault, a lost device) is recorded as `crash`, one that runs past --timeout as `timeout`, and the others still run' -r -f -a "auto\t'In child processes when DirectML is in the plan or a time limit holds (by default one does), in this process otherwise'
process\t'Always in child processes'
none\t'In this process'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l timeout -d 'Kill a case or model that runs longer than this, from its start, and record it as `timeout` with the step it was in (default: 10m a bench model, 5m a test case, for fix and tune scaled from the model\'s own time, 30s to 10m; 0 for no limit)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l child-report -d 'Internal: run as an isolation child, appending each item\'s result to FILE as one JSON line as it finishes, and nothing else' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l progress -d 'Internal: write the item (and step) under way to FILE, for the parent\'s time limit' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l preflight -d 'Internal: the items as the parent resolved them (JSON: each with its preflight), so that the child runs exactly those and resolves no flag again' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -s o -l output -d 'Where the model that passes goes: a FILE for a model, a folder (new or empty) for an onnxruntime-genai folder. Written whenever fix exits 0, as `run --save-model` writes it: every remedy applied (none where it passed as it is), dmlrun.* metadata_props saying which, and external data copied into `FILE.data` beside it. Where nothing made it pass, nothing is written there, and the smallest model that still fails goes beside it, as `dmlrun reduce` writes one (`bert-dml-reduced/` for `-o bert-dml.onnx`)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l json -d 'Write the record of the attempts as JSON to FILE ("-" for stdout instead of the text)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l ort-lib -d 'ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l ep-library -d 'Register a plugin execution provider library (ONNX Runtime\'s RegisterExecutionProviderLibrary) under NAME, by default the file\'s name. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l ort-log-level -d 'Lowest severity of ONNX Runtime\'s own log lines shown on stderr' -r -f -a "verbose\t''
info\t''
warning\t''
error\t''
fatal\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l no-auto-dims -d 'Leave free dimensions free under DirectML instead of fixing them from the inputs'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l dml-disable-metacommands -d 'DirectML\'s disable_metacommands provider option: run DirectML\'s own compute shaders instead of the driver\'s metacommands (vendor-tuned kernels for convolution, GEMM)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l asymmetric -d 'With --precision int4 or int8: a zero point a block (uint8), mapping each block\'s range [min, max]; by default symmetric, as the model builder writes DirectML models'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l inline-if -d 'Write every If of the main graph whose condition the run\'s inputs decide as the branch they take, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l gemm-zero-bias -d 'Give every Gemm without its optional bias an explicit zero bias, of its output\'s width and its weight\'s type, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l reshape-allowzero-off -d 'Drop `allowzero=1` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l binary-as-reduce -d 'Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l dequantize-gather -d 'Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales\' type), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l matmulnbits-bias-add -d 'Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l matmulnbits-drop-g-idx -d 'Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l dequantize-matmulnbits -d 'Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales\' type, float16 for the builder\'s DirectML models), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l drop-qdq-pair -d 'Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l matmul-as-mul-reducesum -d 'Write every MatMul whose weight is a constant of two dimensions [K, N] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l fuse-sibling-matmuls -d 'Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l matmulnbits-accuracy-level -d 'Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l print-plan -d 'Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l write-unchanged
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -l save-fixed-dims -d 'With --output: write the free dimensions as this run fixed them (--dim, --shape, or the sizes dmlrun gave them for DirectML from the inputs), for an application that sets no free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay symbolic, as in the source'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -s q -l quiet -d 'No progress lines, only the record'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand fix" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -s i -l input -d 'An input: FILE for the model\'s first input, or NAME=FILE. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l generate -d 'Fill inputs no --input gives: random (seeded), zeros or ones' -r -f -a "random\t'Uniform random: floats in [0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)'
zeros\t''
ones\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l seed -d 'Seed for --generate random' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l free-dim-size -d 'Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l generate-range -d 'The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI): floats in [LO, HI), integers from LO to HI inclusive. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l max-tensor-bytes -d 'Refuse tensors (input files, generated data) larger than this many bytes' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l max-image-pixels -d 'Refuse images (--input, a manifest\'s image inputs) with more pixels than this (decompression bombs)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l preset -d 'Named preprocessing: imagenet (default for float inputs), unit ([0,1]), raw (0..255; default for uint8 inputs)' -r -f -a "imagenet\t'torchvision ImageNet: crop mode, [0,1] then mean [0.485,0.456,0.406] / std [0.229,0.224,0.225], RGB'
unit\t'Stretch to size, scale to [0,1], no mean/std, RGB'
raw\t'Stretch to size, pixel values 0..255 unchanged, RGB'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l resize -d 'How the picture fits the model\'s size: crop (shorter side, then centre crop), center-crop (centre crop alone), stretch, letterbox, none' -r -f -a "crop\t'Resize the shorter side (to `--resize-to`, default crop/0.875), then centre-crop'
stretch\t'Resize to exactly the model\'s size, ignoring the aspect ratio'
letterbox\t'Fit inside the model\'s size keeping the aspect ratio, pad the rest with `--pad-value`'
center-crop\t'No resizing: centre-crop to the model\'s size, padding with zeros where the picture is smaller (torchvision\'s `CenterCrop` alone)'
none\t'No resizing: the image must already have the model\'s size'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l resize-to -d 'With --resize crop: the shorter-side length before cropping (default: crop size / 0.875, 256 for 224)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l filter -d 'Resampling filter (Pillow-exact)' -r -f -a "bilinear\t''
bicubic\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l scale -d 'Multiply pixel values (0..255) by this before mean/std (imagenet and unit: 1/255)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l mean -d 'Per-channel mean subtracted after scaling, e.g. --mean 0.485,0.456,0.406' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l std -d 'Per-channel standard deviation divided by, e.g. --std 0.229,0.224,0.225' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l channel-order -d 'Channel order the model expects; --mean and --std stay R,G,B' -r -f -a "rgb\t''
bgr\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l layout -d 'Tensor layout (default: inferred from where the model input has 1 or 3 channels)' -r -f -a "nchw\t''
nhwc\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l pad-value -d 'With --resize letterbox: the pixel value of the padding' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l image-size -d 'Target HEIGHTxWIDTH when the model\'s spatial dimensions are free (default: the image\'s own size)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l dim -d 'Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l shape -d 'The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l dim-denotation -d 'Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l ep -d 'Execution provider: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy:POLICY' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l device -d 'DirectML adapter: its index (DXGI order, as `dmlrun devices` lists them: DirectML\'s device_id), part of its name, or its LUID' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l dml-performance-preference -d 'DirectML performance_preference: let DirectML pick the adapter (instead of --device)' -r -f -a "default\t''
high-performance\t''
minimum-power\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l dml-device-filter -d 'DirectML device_filter: which kinds of adapter DirectML may pick (instead of --device)' -r -f -a "gpu\t''
npu\t''
any\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l ep-option -d 'A DirectML provider option passed through to ONNX Runtime as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l opt-level -d 'Graph optimisation level' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l intra-threads -d 'Threads within one operator (ONNX Runtime\'s intra_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l inter-threads -d 'Threads across operators in parallel mode (inter_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l execution-mode -d 'Execution mode. DirectML requires sequential; parallel is refused with it' -r -f -a "sequential\t''
parallel\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l memory-pattern -d 'ONNX Runtime\'s memory pattern optimisation (default on for the CPU; DirectML requires off)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l session-config -d 'A session config entry (ONNX Runtime\'s AddSessionConfigEntry), passed as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l precision -d 'The precision the model runs in: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session' -r -f -a "fp32\t'As the model is written'
fp16\t'Float32 initializers and computation converted to float16, inputs and outputs float32'
int4\t'Weight-only: each MatMul\'s constant weight in 4-bit blocks (MatMulNBits)'
int8\t'Weight-only: each MatMul\'s constant weight in 8-bit blocks (MatMulNBits)'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l keep-fp32 -d 'With --precision fp16: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8: leave this MatMul (by name, `*` for any run of characters) as written. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l block-size -d 'With --precision int4 or int8: the rows of a weight\'s column quantized together (16, 32, 64, 128 or 256)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l accuracy-level -d 'With --precision int4 or int8: the MatMulNBits nodes\' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l decompose -d 'Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated): LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l prompt-tokens -d 'A decoder (a genai folder) is timed at a synthetic prompt of this many tokens: its time to first token, and each decode step after it' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -s n -l max-new-tokens -d 'A decoder\'s new tokens a timed generation (greedy, past any end-of-sequence token)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l budget -d 'How long the search may take: the candidates are tried in order of expected gain until it is spent (each is timed for a share of it)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l compare-ep -d 'The reference execution provider, which must run the original model: reduce feeds each candidate the values it gave and checks the outputs against them; fix holds every attempt\'s outputs to its outputs on the original. Takes what --ep takes' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l rtol -d 'Relative tolerance: outputs further apart than atol + rtol * |reference| differ' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l atol -d 'Absolute tolerance (see --rtol)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l isolation -d 'Run the items in child dmlrun processes, so one that kills its process (an abort in DirectML, a segfault, a lost device) is recorded as `crash`, one that runs past --timeout as `timeout`, and the others still run' -r -f -a "auto\t'In child processes when DirectML is in the plan or a time limit holds (by default one does), in this process otherwise'
process\t'Always in child processes'
none\t'In this process'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l timeout -d 'Kill a case or model that runs longer than this, from its start, and record it as `timeout` with the step it was in (default: 10m a bench model, 5m a test case, for fix and tune scaled from the model\'s own time, 30s to 10m; 0 for no limit)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l child-report -d 'Internal: run as an isolation child, appending each item\'s result to FILE as one JSON line as it finishes, and nothing else' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l progress -d 'Internal: write the item (and step) under way to FILE, for the parent\'s time limit' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l preflight -d 'Internal: the items as the parent resolved them (JSON: each with its preflight), so that the child runs exactly those and resolves no flag again' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -s o -l output -d 'Where the fastest verified form goes, as `run --save-model` writes it, with what was applied and its measured ratio in dmlrun.* metadata_props: a FILE for a model, a folder (new or empty) for a genai folder, its other files copied. Nothing is written where no candidate was measured faster' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l json -d 'Write the record of the candidates as JSON to FILE ("-" for stdout instead of the text)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l ort-lib -d 'ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l ep-library -d 'Register a plugin execution provider library (ONNX Runtime\'s RegisterExecutionProviderLibrary) under NAME, by default the file\'s name. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l ort-log-level -d 'Lowest severity of ONNX Runtime\'s own log lines shown on stderr' -r -f -a "verbose\t''
info\t''
warning\t''
error\t''
fatal\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l no-auto-dims -d 'Leave free dimensions free under DirectML instead of fixing them from the inputs'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l dml-disable-metacommands -d 'DirectML\'s disable_metacommands provider option: run DirectML\'s own compute shaders instead of the driver\'s metacommands (vendor-tuned kernels for convolution, GEMM)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l asymmetric -d 'With --precision int4 or int8: a zero point a block (uint8), mapping each block\'s range [min, max]; by default symmetric, as the model builder writes DirectML models'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l inline-if -d 'Write every If of the main graph whose condition the run\'s inputs decide as the branch they take, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l gemm-zero-bias -d 'Give every Gemm without its optional bias an explicit zero bias, of its output\'s width and its weight\'s type, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l reshape-allowzero-off -d 'Drop `allowzero=1` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l binary-as-reduce -d 'Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l dequantize-gather -d 'Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales\' type), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l matmulnbits-bias-add -d 'Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l matmulnbits-drop-g-idx -d 'Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l dequantize-matmulnbits -d 'Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales\' type, float16 for the builder\'s DirectML models), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l drop-qdq-pair -d 'Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l matmul-as-mul-reducesum -d 'Write every MatMul whose weight is a constant of two dimensions [K, N] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l fuse-sibling-matmuls -d 'Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l matmulnbits-accuracy-level -d 'Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -l print-plan -d 'Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -s q -l quiet -d 'No progress lines, only the record'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand tune" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -s p -l prompt -d 'The prompt text, tokenized with the model\'s tokenizer.json' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l prompt-file -d 'A file of prompts, one per line (empty lines skipped); each is generated and reported on its own' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l prompt-tokens -d 'A synthetic prompt of exactly N tokens (ids drawn from --seed), as LLM benchmark scripts use; needs no tokenizer' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l prompt-ids -d 'The prompt as token ids, comma-separated (to reproduce another tool\'s run exactly); needs no tokenizer' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l system -d 'The system message of --chat (default: whatever the template puts there, often nothing)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l perplexity -d 'Instead of generating, the teacher-forced perplexity of this text file (UTF-8): its tokens in windows of --window, each --stride after the last, every token after the first scored once (Hugging Face\'s recipe for fixed-length models). With --compare-ep, on both EPs and their ratio. Runs the prefill path only' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l window -d 'Tokens in one window of --perplexity (default: the model\'s context, at most 2048)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l stride -d 'Tokens from one window\'s start to the next\'s, with --perplexity (default: half the window)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l tokenizer -d 'The tokenizer.json to use (default: the one in the model\'s folder)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l dim -d 'Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l shape -d 'The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l dim-denotation -d 'Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l ep -d 'Execution provider: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy:POLICY' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l device -d 'DirectML adapter: its index (DXGI order, as `dmlrun devices` lists them: DirectML\'s device_id), part of its name, or its LUID' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l dml-performance-preference -d 'DirectML performance_preference: let DirectML pick the adapter (instead of --device)' -r -f -a "default\t''
high-performance\t''
minimum-power\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l dml-device-filter -d 'DirectML device_filter: which kinds of adapter DirectML may pick (instead of --device)' -r -f -a "gpu\t''
npu\t''
any\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l ep-option -d 'A DirectML provider option passed through to ONNX Runtime as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l opt-level -d 'Graph optimisation level' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l intra-threads -d 'Threads within one operator (ONNX Runtime\'s intra_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l inter-threads -d 'Threads across operators in parallel mode (inter_op_num_threads; 0 = default)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l execution-mode -d 'Execution mode. DirectML requires sequential; parallel is refused with it' -r -f -a "sequential\t''
parallel\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l memory-pattern -d 'ONNX Runtime\'s memory pattern optimisation (default on for the CPU; DirectML requires off)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l session-config -d 'A session config entry (ONNX Runtime\'s AddSessionConfigEntry), passed as given. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l keep-fp32 -d 'With --precision fp16: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8: leave this MatMul (by name, `*` for any run of characters) as written. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l block-size -d 'With --precision int4 or int8: the rows of a weight\'s column quantized together (16, 32, 64, 128 or 256)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l accuracy-level -d 'With --precision int4 or int8: the MatMulNBits nodes\' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l decompose -d 'Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated): LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -s n -l max-new-tokens -d 'Stop after this many new tokens (or at an end-of-sequence token)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l max-length -d 'The KV buffer\'s length in positions (prompt plus new tokens), fixed so that DirectML compiles one shape for every prompt. Default: the prompt plus --max-new-tokens' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l context-length -d 'The model\'s context length, for a bare .onnx (a genai folder\'s config says it)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l kv-layout -d 'The KV cache\'s layout: shared (one static buffer, onnxruntime-genai\'s past_present_share_buffer) or growing. Default: what genai_config.json says; growing for a bare .onnx' -r -f -a "shared\t'One buffer of --max-length positions, bound as both past and present (static shapes)'
growing\t'Each step\'s present outputs become the next step\'s past inputs, one position longer'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l decode-rewrite -d 'Run the one-token decode step in a session of its own whose model this rule rewrites too (a comma list, or repeated; a rule\'s flag without its dashes); the prompt runs the model as the other flags make it' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l temperature -d 'Sampling temperature (with --sample)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l top-k -d 'Sample among the K most likely tokens only (0: all; with --sample)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l top-p -d 'Sample among the most likely tokens whose probabilities reach P (with --sample)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l repetition-penalty -d 'Each token already in the prompt or the text has its logit divided by F (multiplied where negative) before the choice, as transformers\' and onnxruntime-genai\'s repetition_penalty (1: off; 1.1 to 1.3 is usual). A guard against a greedy decoder that loops; the logits then come back to the host each step (not chosen on the device)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l no-repeat-ngram -d 'No run of N tokens occurs twice: a token that would repeat one is never chosen, as transformers\' no_repeat_ngram_size (0: off)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l seed -d 'Seed for --sample and for --prompt-tokens' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l iterations -d 'Measured repetitions of each prompt (the figures are over these)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l warmup -d 'Unmeasured repetitions first' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l compare-ep -d 'Judge this EP\'s logits at every step against this execution provider\'s (exit 1 where their choices part where the reference was sure)' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l compare-opt-level -d 'Graph optimisation level of the --compare-ep session (default: the same as --opt-level)' -r -f -a "disable\t''
basic\t''
extended\t''
all\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l timeout -d 'Stop the whole generation after this long (default 10m; 0 for no limit) and say which step it was in: session creation, the prefill, or decode step k. Exit 2' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l save-model -d 'With --precision int4 or int8: write the decoder as its session ran it, as a model folder DIR (new, or empty): the model under its own file name with its data, its folder\'s genai_config.json and tokenizer files beside it, and dmlrun.* metadata_props saying what was quantized, what was left and why. Written whole or not at all' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l json -d 'Write the report as JSON to FILE ("-" for stdout instead of the summary)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l csv -d 'Write a CSV table to FILE ("-" for stdout): a row per case (test), model (bench) or prompt (generate), with its status and figures' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l markdown -d 'Write a Markdown table to FILE ("-" for stdout), as --csv, for a pull request or a README (merge --compare: the comparison)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l html -d 'Write a self-contained HTML page to FILE. test: the totals and every case with its status (filterable) and where mismatching outputs part; bench: the environment, each model\'s latency distribution with p50/p90/p99, p50/p99 across models, and with --compare-ep, --baseline and --profile their comparisons; generate: the figures and a plot of each token\'s decode latency over the sequence (where the KV cache\'s growth shows)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l junit -d 'Write JUnit XML to FILE ("-" for stdout): a case per test case, bench model or generate prompt, failed where it failed (bench: or regressed against the baseline, the verdict in its output; generate: where its tokens part from --compare-ep\'s)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l ci -d 'Report to the CI system\'s own pages: with github, a Markdown summary appended to $GITHUB_STEP_SUMMARY (the failed items first, at most 1 MiB) and an annotation on the run per failed item (at most 10, then a count), printed on stderr, where the runner reads them too; stdout is unchanged. auto: github where GITHUB_ACTIONS=true; none: never' -r -f -a "auto\t''
github\t''
none\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l ort-lib -d 'ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l ep-library -d 'Register a plugin execution provider library (ONNX Runtime\'s RegisterExecutionProviderLibrary) under NAME, by default the file\'s name. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l ort-log-level -d 'Lowest severity of ONNX Runtime\'s own log lines shown on stderr' -r -f -a "verbose\t''
info\t''
warning\t''
error\t''
fatal\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l precision -d 'The precision the model runs in: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session' -r -f -a "fp32\t'As the model is written'
int4\t'Weight-only: each MatMul\'s constant weight in 4-bit blocks (MatMulNBits)'
int8\t'Weight-only: each MatMul\'s constant weight in 8-bit blocks (MatMulNBits)'"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l chat -d 'Wrap each prompt (--prompt, or each line of --prompt-file) in the model\'s chat template as one user message, ending where the assistant\'s answer begins, as chat applications and onnxruntime-genai\'s apply_chat_template do. The template is tokenizer_config.json\'s "chat_template" (or chat_template.jinja) beside the tokenizer'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l no-auto-dims -d 'Leave free dimensions free under DirectML instead of fixing them from the inputs'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l dml-disable-metacommands -d 'DirectML\'s disable_metacommands provider option: run DirectML\'s own compute shaders instead of the driver\'s metacommands (vendor-tuned kernels for convolution, GEMM)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l asymmetric -d 'With --precision int4 or int8: a zero point a block (uint8), mapping each block\'s range [min, max]; by default symmetric, as the model builder writes DirectML models'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l inline-if -d 'Write every If of the main graph whose condition the run\'s inputs decide as the branch they take, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l gemm-zero-bias -d 'Give every Gemm without its optional bias an explicit zero bias, of its output\'s width and its weight\'s type, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l reshape-allowzero-off -d 'Drop `allowzero=1` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l binary-as-reduce -d 'Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l dequantize-gather -d 'Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales\' type), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l matmulnbits-bias-add -d 'Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l matmulnbits-drop-g-idx -d 'Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l dequantize-matmulnbits -d 'Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales\' type, float16 for the builder\'s DirectML models), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l drop-qdq-pair -d 'Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l matmul-as-mul-reducesum -d 'Write every MatMul whose weight is a constant of two dimensions [K, N] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l fuse-sibling-matmuls -d 'Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l matmulnbits-accuracy-level -d 'Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l print-plan -d 'Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l io-on-device -d 'Upload the inputs to DirectML\'s device memory once and keep the outputs there (IoBinding), so the timed runs measure the GPU\'s work without the host<->GPU copies'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l dml-graph-capture -d 'DirectML graph capture (ep.dml.enable_graph_capture): the first run\'s GPU work is recorded and replayed, saving the CPU\'s per-run dispatch'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l no-dml-graph-capture -d 'Run DirectML\'s decode step uncaptured. By default generate captures it once and replays it where the model allows (the shared KV layout), as onnxruntime-genai does on DirectML: this flag is for measuring what capture saves, or for a driver whose capture misbehaves. The report says which was used and why'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l choose-on-host -d 'Choose the greedy token on the host from the logits read back each step. By default, over a captured decode step, an ArgMax on the device picks it where the logits are and one id comes back: this flag is for measuring what that saves, or for a driver whose ArgMax is doubted. The report says where the token was chosen and why'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l ignore-eos -d 'Keep generating past end-of-sequence tokens, so every repetition makes --max-new-tokens (benchmarks)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l sample -d 'Sample the next token instead of taking the most likely one (greedy, the default)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -l no-blame -d 'When a step fails on an EP other than the CPU, say ONNX Runtime\'s error as it is, without replaying the steps on the CPU EP to decide whose failure it is (the replay of a large float16 model can take minutes on the CPU)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -s v -l verbose -d 'With the figures, each prompt\'s generated token ids and its decode latency along the positions (where a growing KV cache shows)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -s q -l quiet -d 'No generated text on stdout and no progress on stderr (the figures are still printed)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand generate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand merge" -l json -d 'Write the report as JSON to FILE ("-" for stdout instead of the summary)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand merge" -l csv -d 'Write a CSV table to FILE ("-" for stdout): a row per case (test), model (bench) or prompt (generate), with its status and figures' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand merge" -l markdown -d 'Write a Markdown table to FILE ("-" for stdout), as --csv, for a pull request or a README (merge --compare: the comparison)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand merge" -l html -d 'Write a self-contained HTML page to FILE. test: the totals and every case with its status (filterable) and where mismatching outputs part; bench: the environment, each model\'s latency distribution with p50/p90/p99, p50/p99 across models, and with --compare-ep, --baseline and --profile their comparisons; generate: the figures and a plot of each token\'s decode latency over the sequence (where the KV cache\'s growth shows)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand merge" -l junit -d 'Write JUnit XML to FILE ("-" for stdout): a case per test case, bench model or generate prompt, failed where it failed (bench: or regressed against the baseline, the verdict in its output; generate: where its tokens part from --compare-ep\'s)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand merge" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand merge" -l compare -d 'Put whole runs side by side instead: per case or model each run\'s status (and bench\'s p50, the fastest marked where its runs are significantly faster than every other run\'s (the test of bench --baseline), and max |diff| where --compare-ep found outputs apart), the ones whose verdicts disagree first'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand merge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand info" -l json -d 'Print the information as JSON (to stdout, or to FILE). With FILE the JSON goes there and the usual text to stdout' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand info" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand info" -l full-metadata -d 'Print metadata values whole; by default a value longer than a few lines (an OCR model\'s character list, say) is cut to its first lines with a count of the rest'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand info" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand devices" -l json -d 'Print the adapters and EP devices as JSON (to stdout, or to FILE). With FILE the JSON goes there and the usual text to stdout' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand devices" -l ort-lib -d 'ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand devices" -l ep-library -d 'Register a plugin execution provider library (ONNX Runtime\'s RegisterExecutionProviderLibrary) under NAME, by default the file\'s name. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand devices" -l ort-log-level -d 'Lowest severity of ONNX Runtime\'s own log lines shown on stderr' -r -f -a "verbose\t''
info\t''
warning\t''
error\t''
fatal\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand devices" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand devices" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand doctor" -l json -d 'Print the findings as JSON (to stdout, or to FILE). With FILE the JSON goes there and the usual text to stdout' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand doctor" -l ort-lib -d 'ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)' -r -F
complete -c dmlrun -n "__fish_dmlrun_using_subcommand doctor" -l ep-library -d 'Register a plugin execution provider library (ONNX Runtime\'s RegisterExecutionProviderLibrary) under NAME, by default the file\'s name. Repeatable' -r
complete -c dmlrun -n "__fish_dmlrun_using_subcommand doctor" -l ort-log-level -d 'Lowest severity of ONNX Runtime\'s own log lines shown on stderr' -r -f -a "verbose\t''
info\t''
warning\t''
error\t''
fatal\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand doctor" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand completions" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand man" -l color -d 'When to use colour in help and diagnostics: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dmlrun -n "__fish_dmlrun_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "run" -d 'Run a model once (plus timed iterations) and report outputs and timings (the default)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "test" -d 'Validate models against ONNX test-data folders (model.onnx + test_data_set_N/*.pb)'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "bench" -d 'Benchmark models: given directly, found in folders, or listed in a TOML/JSON manifest'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "reduce" -d 'When an execution provider rejects a model (or its outputs differ): bisect to the smallest run of nodes that still fails, written as an ONNX test case'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "fix" -d 'Get a model through an execution provider that rejects it or gets it wrong: the remedies that fit it tried, each a whole run against the reference, and the model that passes written'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "tune" -d 'Find the fastest verified form of a model on the device at hand: each candidate form (a speed rewrite, float16, a session option) checked against the original on the reference EP and timed beside it in alternating rounds, kept only where the paired test says faster, the kept ones combined'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "generate" -d 'Generate text with a decoder LLM (an onnxruntime-genai model folder or a decoder .onnx) and measure it as LLM benchmarks do: time to first token, tokens per second, per-token latency'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "merge" -d 'Put reports back together: the JSON reports of a run\'s --shard K/N parts into the report of the whole run (JSON, JUnit, HTML, ...), or with --compare whole runs of the same work on different machines or devices side by side'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "info" -d 'Show a model\'s inputs, outputs, symbolic dimensions, opsets and metadata'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "devices" -d 'List the DirectML (DXGI) adapters; the index is the --device value'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "doctor" -d 'Show which ONNX Runtime dmlrun loads, from where, and its execution providers'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "completions" -d 'Print a shell completion script: dmlrun completions bash > /etc/bash_completion.d/dmlrun'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "man" -d 'Print the man page (roff): dmlrun man > dmlrun.1'
complete -c dmlrun -n "__fish_dmlrun_using_subcommand help; and not __fish_seen_subcommand_from run test bench reduce fix tune generate merge info devices doctor completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
