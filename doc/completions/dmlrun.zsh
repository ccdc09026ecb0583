#compdef dmlrun

autoload -U is-at-least

_dmlrun() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'*-i+[An input\: FILE for the model'\''s first input, or NAME=FILE. Repeatable]:[NAME=]FILE:_default' \
'*--input=[An input\: FILE for the model'\''s first input, or NAME=FILE. Repeatable]:[NAME=]FILE:_default' \
'--generate=[Fill inputs no --input gives\: random (seeded), zeros or ones]:FILL:((random\:"Uniform random\: floats in \[0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)"
zeros\:""
ones\:""))' \
'--seed=[Seed for --generate random]:N:_default' \
'--free-dim-size=[Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1]:N:_default' \
'*--generate-range=[The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI)\: floats in \[LO, HI), integers from LO to HI inclusive. Repeatable]:[NAME=]LO,HI:_default' \
'--max-tensor-bytes=[Refuse tensors (input files, generated data) larger than this many bytes]:BYTES:_default' \
'--max-image-pixels=[Refuse images (--input, a manifest'\''s image inputs) with more pixels than this (decompression bombs)]:PIXELS:_default' \
'--preset=[Named preprocessing\: imagenet (default for float inputs), unit (\[0,1\]), raw (0..255; default for uint8 inputs)]:PRESET:((imagenet\:"torchvision ImageNet\: crop mode, \[0,1\] then mean \[0.485,0.456,0.406\] / std \[0.229,0.224,0.225\], RGB"
unit\:"Stretch to size, scale to \[0,1\], no mean/std, RGB"
raw\:"Stretch to size, pixel values 0..255 unchanged, RGB"))' \
'--resize=[How the picture fits the model'\''s size\: crop (shorter side, then centre crop), center-crop (centre crop alone), stretch, letterbox, none]:MODE:((crop\:"Resize the shorter side (to \`--resize-to\`, default crop/0.875), then centre-crop"
stretch\:"Resize to exactly the model'\''s size, ignoring the aspect ratio"
letterbox\:"Fit inside the model'\''s size keeping the aspect ratio, pad the rest with \`--pad-value\`"
center-crop\:"No resizing\: centre-crop to the model'\''s size, padding with zeros where the picture is smaller (torchvision'\''s \`CenterCrop\` alone)"
none\:"No resizing\: the image must already have the model'\''s size"))' \
'--resize-to=[With --resize crop\: the shorter-side length before cropping (default\: crop size / 0.875, 256 for 224)]:N:_default' \
'--filter=[Resampling filter (Pillow-exact)]:FILTER:(bilinear bicubic)' \
'--scale=[Multiply pixel values (0..255) by this before mean/std (imagenet and unit\: 1/255)]:F:_default' \
'*--mean=[Per-channel mean subtracted after scaling, e.g. --mean 0.485,0.456,0.406]:R,G,B:_default' \
'*--std=[Per-channel standard deviation divided by, e.g. --std 0.229,0.224,0.225]:R,G,B:_default' \
'--channel-order=[Channel order the model expects; --mean and --std stay R,G,B]:ORDER:(rgb bgr)' \
'--layout=[Tensor layout (default\: inferred from where the model input has 1 or 3 channels)]:LAYOUT:(nchw nhwc)' \
'--pad-value=[With --resize letterbox\: the pixel value of the padding]:0-255:_default' \
'--image-size=[Target HEIGHTxWIDTH when the model'\''s spatial dimensions are free (default\: the image'\''s own size)]:HxW:_default' \
'*--dim=[Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable]:NAME=N:_default' \
'*--shape=[The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable]:NAME=D0,D1,...:_default' \
'*--dim-denotation=[Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable]:DENOTATION=N:_default' \
'--ep=[Execution provider\: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy\:POLICY]:EP:_default' \
'--device=[DirectML adapter\: its index (DXGI order, as \`dmlrun devices\` lists them\: DirectML'\''s device_id), part of its name, or its LUID]:N|NAME|luid:HIGH-LOW:_default' \
'--dml-performance-preference=[DirectML performance_preference\: let DirectML pick the adapter (instead of --device)]:PREF:(default high-performance minimum-power)' \
'--dml-device-filter=[DirectML device_filter\: which kinds of adapter DirectML may pick (instead of --device)]:FILTER:(gpu npu any)' \
'*--ep-option=[A DirectML provider option passed through to ONNX Runtime as given. Repeatable]:KEY=VALUE:_default' \
'--opt-level=[Graph optimisation level]:LEVEL:(disable basic extended all)' \
'--intra-threads=[Threads within one operator (ONNX Runtime'\''s intra_op_num_threads; 0 = default)]:N:_default' \
'--inter-threads=[Threads across operators in parallel mode (inter_op_num_threads; 0 = default)]:N:_default' \
'--execution-mode=[Execution mode. DirectML requires sequential; parallel is refused with it]:MODE:(sequential parallel)' \
'--memory-pattern=[ONNX Runtime'\''s memory pattern optimisation (default on for the CPU; DirectML requires off)]:on|off:_default' \
'*--session-config=[A session config entry (ONNX Runtime'\''s AddSessionConfigEntry), passed as given. Repeatable]:KEY=VALUE:_default' \
'--precision=[The precision the model runs in\: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session]:PRECISION:((fp32\:"As the model is written"
fp16\:"Float32 initializers and computation converted to float16, inputs and outputs float32"
int4\:"Weight-only\: each MatMul'\''s constant weight in 4-bit blocks (MatMulNBits)"
int8\:"Weight-only\: each MatMul'\''s constant weight in 8-bit blocks (MatMulNBits)"))' \
'*--keep-fp32=[With --precision fp16\: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8\: leave this MatMul (by name, \`*\` for any run of characters) as written. Repeatable]:OP|NODE:_default' \
'--block-size=[With --precision int4 or int8\: the rows of a weight'\''s column quantized together (16, 32, 64, 128 or 256)]:N:_default' \
'--accuracy-level=[With --precision int4 or int8\: the MatMulNBits nodes'\'' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)]:N:_default' \
'*--decompose=[Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated)\: LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu]:OP[,OP...]:_default' \
'--warmup=[Untimed runs after the first run and before the timed iterations]:N:_default' \
'--iterations=[Timed runs after the first run (at least 1)]:N:_default' \
'--compare-ep=[Also run on this execution provider and compare the outputs; exit 1 when they differ]:EP:_default' \
'--compare-opt-level=[Optimisation level of the --compare-ep run (default\: as the main run)]:LEVEL:(disable basic extended all)' \
'--rtol=[Relative tolerance for --compare-ep]:R:_default' \
'--atol=[Absolute tolerance for --compare-ep]:A:_default' \
'--timeout=[Stop the whole run after this long (default 10m; 0 for no limit) and say which step it was in\: session creation, the first run, the timed runs. Exit 2]:TIME:_default' \
'--top-k=[Show the K best classes of classifier outputs (\[classes\] or \[batch, classes\])]:K:_default' \
'--labels=[Class labels, one per line in class order, for --top-k]:FILE:_files' \
'--save-outputs=[Write the outputs into DIR (created if needed; files written atomically)]:DIR:_files' \
'--save-model=[Write the model as the session ran it to FILE\: with every rewrite (--decompose, --gemm-zero-bias, --reshape-allowzero-off) and the float16 conversion, and dmlrun.* metadata_props saying what was done (dmlrun'\''s version, the source model'\''s hash, the rewrites, the precision, the largest difference from the original on the reference EP). Loaded alone, with no flag, it gives the outputs this run gave. Free dimensions stay as the file has them (a session fixes them through its options)]:FILE:_files' \
'--save-inputs=[Write the inputs as fed to the model (after image preprocessing) into DIR]:DIR:_files' \
'--save-format=[File format for --save-outputs and --save-inputs\: npy (one file per tensor), npz, or pb (ONNX TensorProto files named input_K.pb / output_K.pb, as in ONNX test data)]:FORMAT:((npy\:"One NAME.npy per output"
npz\:"One outputs.npz holding every output"
pb\:"One output_K.pb (ONNX TensorProto) per output, as in ONNX test data"))' \
'--json=[Write the whole report as JSON to FILE ("-" for stdout, replacing the human report)]:FILE:_files' \
'--ort-lib=[ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)]:PATH:_files' \
'*--ep-library=[Register a plugin execution provider library (ONNX Runtime'\''s RegisterExecutionProviderLibrary) under NAME, by default the file'\''s name. Repeatable]:[NAME=]PATH:_default' \
'--ort-log-level=[Lowest severity of ONNX Runtime'\''s own log lines shown on stderr]:LEVEL:(verbose info warning error fatal)' \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--no-auto-dims[Leave free dimensions free under DirectML instead of fixing them from the inputs]' \
'--dml-disable-metacommands[DirectML'\''s disable_metacommands provider option\: run DirectML'\''s own compute shaders instead of the driver'\''s metacommands (vendor-tuned kernels for convolution, GEMM)]' \
'--asymmetric[With --precision int4 or int8\: a zero point a block (uint8), mapping each block'\''s range \[min, max\]; by default symmetric, as the model builder writes DirectML models]' \
'--inline-if[Write every If of the main graph whose condition the run'\''s inputs decide as the branch they take, before the session]' \
'--gemm-zero-bias[Give every Gemm without its optional bias an explicit zero bias, of its output'\''s width and its weight'\''s type, before the session]' \
'--reshape-allowzero-off[Drop \`allowzero=1\` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session]' \
'--binary-as-reduce[Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session]' \
'--dequantize-gather[Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales'\'' type), before the session]' \
'--matmulnbits-bias-add[Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session]' \
'--matmulnbits-drop-g-idx[Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session]' \
'--dequantize-matmulnbits[Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales'\'' type, float16 for the builder'\''s DirectML models), before the session]' \
'--drop-qdq-pair[Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float]' \
'--matmul-as-mul-reducesum[Write every MatMul whose weight is a constant of two dimensions \[K, N\] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session]' \
'--fuse-sibling-matmuls[Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session]' \
'--matmulnbits-accuracy-level[Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session]' \
'--print-plan[Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session]' \
'--io-on-device[Upload the inputs to DirectML'\''s device memory once and keep the outputs there (IoBinding), so the timed runs measure the GPU'\''s work without the host<->GPU copies]' \
'--dml-graph-capture[DirectML graph capture (ep.dml.enable_graph_capture)\: the first run'\''s GPU work is recorded and replayed, saving the CPU'\''s per-run dispatch]' \
'--as-test-data[With --save-outputs DIR\: write DIR as an ONNX test-data folder instead (model.onnx and test_data_set_0/input_K.pb, output_K.pb) that \`dmlrun test DIR\` checks later\: a frozen record of the model'\''s behaviour. model.onnx is the model that made the outputs, as --save-model writes it (rewritten, converted), never the original beside another'\''s outputs]' \
'--save-fixed-dims[With --save-model\: write the free dimensions as this run fixed them (--dim, --shape, or the sizes dmlrun gave them for DirectML from the inputs), for an application that sets no free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay symbolic, as in the source]' \
'-q[Print only the outputs, no timings or progress]' \
'--quiet[Print only the outputs, no timings or progress]' \
'(-q --quiet)-v[Say more\: the resolved session plan too (as --print-plan), before the session]' \
'(-q --quiet)--verbose[Say more\: the resolved session plan too (as --print-plan), before the session]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':model -- The ONNX model file:_files' \
":: :_dmlrun_commands" \
"*::: :->dmlrun" \
&& ret=0
    case $state in
    (dmlrun)
        words=($line[2] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:dmlrun-command-$line[2]:"
        case $line[2] in
            (run)
_arguments "${_arguments_options[@]}" : \
'*-i+[An input\: FILE for the model'\''s first input, or NAME=FILE. Repeatable]:[NAME=]FILE:_default' \
'*--input=[An input\: FILE for the model'\''s first input, or NAME=FILE. Repeatable]:[NAME=]FILE:_default' \
'--generate=[Fill inputs no --input gives\: random (seeded), zeros or ones]:FILL:((random\:"Uniform random\: floats in \[0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)"
zeros\:""
ones\:""))' \
'--seed=[Seed for --generate random]:N:_default' \
'--free-dim-size=[Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1]:N:_default' \
'*--generate-range=[The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI)\: floats in \[LO, HI), integers from LO to HI inclusive. Repeatable]:[NAME=]LO,HI:_default' \
'--max-tensor-bytes=[Refuse tensors (input files, generated data) larger than this many bytes]:BYTES:_default' \
'--max-image-pixels=[Refuse images (--input, a manifest'\''s image inputs) with more pixels than this (decompression bombs)]:PIXELS:_default' \
'--preset=[Named preprocessing\: imagenet (default for float inputs), unit (\[0,1\]), raw (0..255; default for uint8 inputs)]:PRESET:((imagenet\:"torchvision ImageNet\: crop mode, \[0,1\] then mean \[0.485,0.456,0.406\] / std \[0.229,0.224,0.225\], RGB"
unit\:"Stretch to size, scale to \[0,1\], no mean/std, RGB"
raw\:"Stretch to size, pixel values 0..255 unchanged, RGB"))' \
'--resize=[How the picture fits the model'\''s size\: crop (shorter side, then centre crop), center-crop (centre crop alone), stretch, letterbox, none]:MODE:((crop\:"Resize the shorter side (to \`--resize-to\`, default crop/0.875), then centre-crop"
stretch\:"Resize to exactly the model'\''s size, ignoring the aspect ratio"
letterbox\:"Fit inside the model'\''s size keeping the aspect ratio, pad the rest with \`--pad-value\`"
center-crop\:"No resizing\: centre-crop to the model'\''s size, padding with zeros where the picture is smaller (torchvision'\''s \`CenterCrop\` alone)"
none\:"No resizing\: the image must already have the model'\''s size"))' \
'--resize-to=[With --resize crop\: the shorter-side length before cropping (default\: crop size / 0.875, 256 for 224)]:N:_default' \
'--filter=[Resampling filter (Pillow-exact)]:FILTER:(bilinear bicubic)' \
'--scale=[Multiply pixel values (0..255) by this before mean/std (imagenet and unit\: 1/255)]:F:_default' \
'*--mean=[Per-channel mean subtracted after scaling, e.g. --mean 0.485,0.456,0.406]:R,G,B:_default' \
'*--std=[Per-channel standard deviation divided by, e.g. --std 0.229,0.224,0.225]:R,G,B:_default' \
'--channel-order=[Channel order the model expects; --mean and --std stay R,G,B]:ORDER:(rgb bgr)' \
'--layout=[Tensor layout (default\: inferred from where the model input has 1 or 3 channels)]:LAYOUT:(nchw nhwc)' \
'--pad-value=[With --resize letterbox\: the pixel value of the padding]:0-255:_default' \
'--image-size=[Target HEIGHTxWIDTH when the model'\''s spatial dimensions are free (default\: the image'\''s own size)]:HxW:_default' \
'*--dim=[Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable]:NAME=N:_default' \
'*--shape=[The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable]:NAME=D0,D1,...:_default' \
'*--dim-denotation=[Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable]:DENOTATION=N:_default' \
'--ep=[Execution provider\: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy\:POLICY]:EP:_default' \
'--device=[DirectML adapter\: its index (DXGI order, as \`dmlrun devices\` lists them\: DirectML'\''s device_id), part of its name, or its LUID]:N|NAME|luid:HIGH-LOW:_default' \
'--dml-performance-preference=[DirectML performance_preference\: let DirectML pick the adapter (instead of --device)]:PREF:(default high-performance minimum-power)' \
'--dml-device-filter=[DirectML device_filter\: which kinds of adapter DirectML may pick (instead of --device)]:FILTER:(gpu npu any)' \
'*--ep-option=[A DirectML provider option passed through to ONNX Runtime as given. Repeatable]:KEY=VALUE:_default' \
'--opt-level=[Graph optimisation level]:LEVEL:(disable basic extended all)' \
'--intra-threads=[Threads within one operator (ONNX Runtime'\''s intra_op_num_threads; 0 = default)]:N:_default' \
'--inter-threads=[Threads across operators in parallel mode (inter_op_num_threads; 0 = default)]:N:_default' \
'--execution-mode=[Execution mode. DirectML requires sequential; parallel is refused with it]:MODE:(sequential parallel)' \
'--memory-pattern=[ONNX Runtime'\''s memory pattern optimisation (default on for the CPU; DirectML requires off)]:on|off:_default' \
'*--session-config=[A session config entry (ONNX Runtime'\''s AddSessionConfigEntry), passed as given. Repeatable]:KEY=VALUE:_default' \
'--precision=[The precision the model runs in\: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session]:PRECISION:((fp32\:"As the model is written"
fp16\:"Float32 initializers and computation converted to float16, inputs and outputs float32"
int4\:"Weight-only\: each MatMul'\''s constant weight in 4-bit blocks (MatMulNBits)"
int8\:"Weight-only\: each MatMul'\''s constant weight in 8-bit blocks (MatMulNBits)"))' \
'*--keep-fp32=[With --precision fp16\: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8\: leave this MatMul (by name, \`*\` for any run of characters) as written. Repeatable]:OP|NODE:_default' \
'--block-size=[With --precision int4 or int8\: the rows of a weight'\''s column quantized together (16, 32, 64, 128 or 256)]:N:_default' \
'--accuracy-level=[With --precision int4 or int8\: the MatMulNBits nodes'\'' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)]:N:_default' \
'*--decompose=[Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated)\: LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu]:OP[,OP...]:_default' \
'--warmup=[Untimed runs after the first run and before the timed iterations]:N:_default' \
'--iterations=[Timed runs after the first run (at least 1)]:N:_default' \
'--compare-ep=[Also run on this execution provider and compare the outputs; exit 1 when they differ]:EP:_default' \
'--compare-opt-level=[Optimisation level of the --compare-ep run (default\: as the main run)]:LEVEL:(disable basic extended all)' \
'--rtol=[Relative tolerance for --compare-ep]:R:_default' \
'--atol=[Absolute tolerance for --compare-ep]:A:_default' \
'--timeout=[Stop the whole run after this long (default 10m; 0 for no limit) and say which step it was in\: session creation, the first run, the timed runs. Exit 2]:TIME:_default' \
'--top-k=[Show the K best classes of classifier outputs (\[classes\] or \[batch, classes\])]:K:_default' \
'--labels=[Class labels, one per line in class order, for --top-k]:FILE:_files' \
'--save-outputs=[Write the outputs into DIR (created if needed; files written atomically)]:DIR:_files' \
'--save-model=[Write the model as the session ran it to FILE\: with every rewrite (--decompose, --gemm-zero-bias, --reshape-allowzero-off) and the float16 conversion, and dmlrun.* metadata_props saying what was done (dmlrun'\''s version, the source model'\''s hash, the rewrites, the precision, the largest difference from the original on the reference EP). Loaded alone, with no flag, it gives the outputs this run gave. Free dimensions stay as the file has them (a session fixes them through its options)]:FILE:_files' \
'--save-inputs=[Write the inputs as fed to the model (after image preprocessing) into DIR]:DIR:_files' \
'--save-format=[File format for --save-outputs and --save-inputs\: npy (one file per tensor), npz, or pb (ONNX TensorProto files named input_K.pb / output_K.pb, as in ONNX test data)]:FORMAT:((npy\:"One NAME.npy per output"
npz\:"One outputs.npz holding every output"
pb\:"One output_K.pb (ONNX TensorProto) per output, as in ONNX test data"))' \
'--json=[Write the whole report as JSON to FILE ("-" for stdout, replacing the human report)]:FILE:_files' \
'--ort-lib=[ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)]:PATH:_files' \
'*--ep-library=[Register a plugin execution provider library (ONNX Runtime'\''s RegisterExecutionProviderLibrary) under NAME, by default the file'\''s name. Repeatable]:[NAME=]PATH:_default' \
'--ort-log-level=[Lowest severity of ONNX Runtime'\''s own log lines shown on stderr]:LEVEL:(verbose info warning error fatal)' \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--no-auto-dims[Leave free dimensions free under DirectML instead of fixing them from the inputs]' \
'--dml-disable-metacommands[DirectML'\''s disable_metacommands provider option\: run DirectML'\''s own compute shaders instead of the driver'\''s metacommands (vendor-tuned kernels for convolution, GEMM)]' \
'--asymmetric[With --precision int4 or int8\: a zero point a block (uint8), mapping each block'\''s range \[min, max\]; by default symmetric, as the model builder writes DirectML models]' \
'--inline-if[Write every If of the main graph whose condition the run'\''s inputs decide as the branch they take, before the session]' \
'--gemm-zero-bias[Give every Gemm without its optional bias an explicit zero bias, of its output'\''s width and its weight'\''s type, before the session]' \
'--reshape-allowzero-off[Drop \`allowzero=1\` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session]' \
'--binary-as-reduce[Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session]' \
'--dequantize-gather[Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales'\'' type), before the session]' \
'--matmulnbits-bias-add[Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session]' \
'--matmulnbits-drop-g-idx[Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session]' \
'--dequantize-matmulnbits[Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales'\'' type, float16 for the builder'\''s DirectML models), before the session]' \
'--drop-qdq-pair[Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float]' \
'--matmul-as-mul-reducesum[Write every MatMul whose weight is a constant of two dimensions \[K, N\] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session]' \
'--fuse-sibling-matmuls[Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session]' \
'--matmulnbits-accuracy-level[Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session]' \
'--print-plan[Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session]' \
'--io-on-device[Upload the inputs to DirectML'\''s device memory once and keep the outputs there (IoBinding), so the timed runs measure the GPU'\''s work without the host<->GPU copies]' \
'--dml-graph-capture[DirectML graph capture (ep.dml.enable_graph_capture)\: the first run'\''s GPU work is recorded and replayed, saving the CPU'\''s per-run dispatch]' \
'--as-test-data[With --save-outputs DIR\: write DIR as an ONNX test-data folder instead (model.onnx and test_data_set_0/input_K.pb, output_K.pb) that \`dmlrun test DIR\` checks later\: a frozen record of the model'\''s behaviour. model.onnx is the model that made the outputs, as --save-model writes it (rewritten, converted), never the original beside another'\''s outputs]' \
'--save-fixed-dims[With --save-model\: write the free dimensions as this run fixed them (--dim, --shape, or the sizes dmlrun gave them for DirectML from the inputs), for an application that sets no free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay symbolic, as in the source]' \
'-q[Print only the outputs, no timings or progress]' \
'--quiet[Print only the outputs, no timings or progress]' \
'(-q --quiet)-v[Say more\: the resolved session plan too (as --print-plan), before the session]' \
'(-q --quiet)--verbose[Say more\: the resolved session plan too (as --print-plan), before the session]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':model -- The ONNX model file:_files' \
&& ret=0
;;
(test)
_arguments "${_arguments_options[@]}" : \
'--generate=[How inputs no file gives are filled (a bench manifest can say per model; test fills the inputs of a model that has no test data, checked with --compare-ep)]:FILL:((random\:"Uniform random\: floats in \[0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)"
zeros\:""
ones\:""))' \
'--seed=[Seed for --generate random]:N:_default' \
'--free-dim-size=[Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1]:N:_default' \
'*--generate-range=[The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI)\: floats in \[LO, HI), integers from LO to HI inclusive. Repeatable]:[NAME=]LO,HI:_default' \
'--max-tensor-bytes=[Refuse tensors (input files, generated data) larger than this many bytes]:BYTES:_default' \
'--max-image-pixels=[Refuse images (--input, a manifest'\''s image inputs) with more pixels than this (decompression bombs)]:PIXELS:_default' \
'*--dim=[Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable]:NAME=N:_default' \
'*--shape=[The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable]:NAME=D0,D1,...:_default' \
'*--dim-denotation=[Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable]:DENOTATION=N:_default' \
'--ep=[Execution provider\: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy\:POLICY]:EP:_default' \
'--device=[DirectML adapter\: its index (DXGI order, as \`dmlrun devices\` lists them\: DirectML'\''s device_id), part of its name, or its LUID]:N|NAME|luid:HIGH-LOW:_default' \
'--dml-performance-preference=[DirectML performance_preference\: let DirectML pick the adapter (instead of --device)]:PREF:(default high-performance minimum-power)' \
'--dml-device-filter=[DirectML device_filter\: which kinds of adapter DirectML may pick (instead of --device)]:FILTER:(gpu npu any)' \
'*--ep-option=[A DirectML provider option passed through to ONNX Runtime as given. Repeatable]:KEY=VALUE:_default' \
'--opt-level=[Graph optimisation level]:LEVEL:(disable basic extended all)' \
'--intra-threads=[Threads within one operator (ONNX Runtime'\''s intra_op_num_threads; 0 = default)]:N:_default' \
'--inter-threads=[Threads across operators in parallel mode (inter_op_num_threads; 0 = default)]:N:_default' \
'--execution-mode=[Execution mode. DirectML requires sequential; parallel is refused with it]:MODE:(sequential parallel)' \
'--memory-pattern=[ONNX Runtime'\''s memory pattern optimisation (default on for the CPU; DirectML requires off)]:on|off:_default' \
'*--session-config=[A session config entry (ONNX Runtime'\''s AddSessionConfigEntry), passed as given. Repeatable]:KEY=VALUE:_default' \
'--precision=[The precision the model runs in\: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session]:PRECISION:((fp32\:"As the model is written"
fp16\:"Float32 initializers and computation converted to float16, inputs and outputs float32"
int4\:"Weight-only\: each MatMul'\''s constant weight in 4-bit blocks (MatMulNBits)"
int8\:"Weight-only\: each MatMul'\''s constant weight in 8-bit blocks (MatMulNBits)"))' \
'*--keep-fp32=[With --precision fp16\: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8\: leave this MatMul (by name, \`*\` for any run of characters) as written. Repeatable]:OP|NODE:_default' \
'--block-size=[With --precision int4 or int8\: the rows of a weight'\''s column quantized together (16, 32, 64, 128 or 256)]:N:_default' \
'--accuracy-level=[With --precision int4 or int8\: the MatMulNBits nodes'\'' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)]:N:_default' \
'*--decompose=[Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated)\: LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu]:OP[,OP...]:_default' \
'--rtol=[Relative tolerance\: a float passes when |expected - actual| <= atol + rtol * |expected|. A case'\''s data.json overrides it]:R:_default' \
'--atol=[Absolute tolerance (see --rtol). A case'\''s data.json overrides it. The default, 1e-7 with rtol 1e-3, is ONNX'\''s own for its test data (its backend test runner'\''s), so conformance results compare with ONNX Runtime'\''s; run and bench compare two EPs at 1e-5]:A:_default' \
'*--tol=[Tolerance for one output, overriding everything else\: --tol NAME=ATOL,RTOL. Repeatable]:OUTPUT=ATOL,RTOL:_default' \
'--compare-ep=[Also run every case on this execution provider and compare the two runs with the same rules (instead of the expected outputs)\: the DirectML-vs-CPU check]:EP:_default' \
'--compare-opt-level=[Optimisation level of the reference run of --compare-ep (default\: as the main run)]:LEVEL:(disable basic extended all)' \
'--compare-intra-threads=[Intra-op threads of the reference run of --compare-ep]:N:_default' \
'--expect=[Known failures\: lines of \`fail NAME\` or \`error NAME\` (# comments). Those cases may fail without failing the run; any other change does, and a known failure that now passes is reported]:FILE:_files' \
'--write-expect=[Write this run'\''s failures and errors as an --expect file]:FILE:_files' \
'--shard=[Run only shard K of N of the cases\: count mode (K/N) deals them round-robin in name order, hash mode (hash\:K/N) by a hash of each case'\''s name. The N shards together run every case once; \`dmlrun merge\` puts their JSON reports back together]:K/N|auto:_default' \
'-j+[Run this many cases at once (CPU only; DirectML cases always run one at a time). With more than one, each session uses one intra-op thread unless --intra-threads says otherwise]:N:_default' \
'--jobs=[Run this many cases at once (CPU only; DirectML cases always run one at a time). With more than one, each session uses one intra-op thread unless --intra-threads says otherwise]:N:_default' \
'--isolation=[Run the items in child dmlrun processes, so one that kills its process (an abort in DirectML, a segfault, a lost device) is recorded as \`crash\`, one that runs past --timeout as \`timeout\`, and the others still run]:WHERE:((auto\:"In child processes when DirectML is in the plan or a time limit holds (by default one does), in this process otherwise"
process\:"Always in child processes"
none\:"In this process"))' \
'--timeout=[Kill a case or model that runs longer than this, from its start, and record it as \`timeout\` with the step it was in (default\: 10m a bench model, 5m a test case, for fix and tune scaled from the model'\''s own time, 30s to 10m; 0 for no limit)]:TIME:_default' \
'--child-report=[Internal\: run as an isolation child, appending each item'\''s result to FILE as one JSON line as it finishes, and nothing else]:FILE:_files' \
'--progress=[Internal\: write the item (and step) under way to FILE, for the parent'\''s time limit]:FILE:_files' \
'--preflight=[Internal\: the items as the parent resolved them (JSON\: each with its preflight), so that the child runs exactly those and resolves no flag again]:FILE:_files' \
'--save-models=[Write each item'\''s model (a test case'\''s, a bench model'\''s) as its session ran it into DIR, as run'\''s --save-model writes one (every rewrite and the float16 conversion, dmlrun.* metadata_props saying what was done)\: DIR/NAME.onnx, NAME the item'\''s name as the report gives it. A model dmlrun did not change is written too (its own bytes, the record added), unless its weights are in external data files\: then it gets a warning and no file]:DIR:_files' \
'--json=[Write the report as JSON to FILE ("-" for stdout instead of the summary)]:FILE:_files' \
'--csv=[Write a CSV table to FILE ("-" for stdout)\: a row per case (test), model (bench) or prompt (generate), with its status and figures]:FILE:_files' \
'--markdown=[Write a Markdown table to FILE ("-" for stdout), as --csv, for a pull request or a README (merge --compare\: the comparison)]:FILE:_files' \
'--html=[Write a self-contained HTML page to FILE. test\: the totals and every case with its status (filterable) and where mismatching outputs part; bench\: the environment, each model'\''s latency distribution with p50/p90/p99, p50/p99 across models, and with --compare-ep, --baseline and --profile their comparisons; generate\: the figures and a plot of each token'\''s decode latency over the sequence (where the KV cache'\''s growth shows)]:FILE:_files' \
'--junit=[Write JUnit XML to FILE ("-" for stdout)\: a case per test case, bench model or generate prompt, failed where it failed (bench\: or regressed against the baseline, the verdict in its output; generate\: where its tokens part from --compare-ep'\''s)]:FILE:_files' \
'--ci=[Report to the CI system'\''s own pages\: with github, a Markdown summary appended to \$GITHUB_STEP_SUMMARY (the failed items first, at most 1 MiB) and an annotation on the run per failed item (at most 10, then a count), printed on stderr, where the runner reads them too; stdout is unchanged. auto\: github where GITHUB_ACTIONS=true; none\: never]:WHERE:(auto github none)' \
'--ort-lib=[ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)]:PATH:_files' \
'*--ep-library=[Register a plugin execution provider library (ONNX Runtime'\''s RegisterExecutionProviderLibrary) under NAME, by default the file'\''s name. Repeatable]:[NAME=]PATH:_default' \
'--ort-log-level=[Lowest severity of ONNX Runtime'\''s own log lines shown on stderr]:LEVEL:(verbose info warning error fatal)' \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--no-auto-dims[Leave free dimensions free under DirectML instead of fixing them from the inputs]' \
'--dml-disable-metacommands[DirectML'\''s disable_metacommands provider option\: run DirectML'\''s own compute shaders instead of the driver'\''s metacommands (vendor-tuned kernels for convolution, GEMM)]' \
'--asymmetric[With --precision int4 or int8\: a zero point a block (uint8), mapping each block'\''s range \[min, max\]; by default symmetric, as the model builder writes DirectML models]' \
'--inline-if[Write every If of the main graph whose condition the run'\''s inputs decide as the branch they take, before the session]' \
'--gemm-zero-bias[Give every Gemm without its optional bias an explicit zero bias, of its output'\''s width and its weight'\''s type, before the session]' \
'--reshape-allowzero-off[Drop \`allowzero=1\` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session]' \
'--binary-as-reduce[Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session]' \
'--dequantize-gather[Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales'\'' type), before the session]' \
'--matmulnbits-bias-add[Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session]' \
'--matmulnbits-drop-g-idx[Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session]' \
'--dequantize-matmulnbits[Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales'\'' type, float16 for the builder'\''s DirectML models), before the session]' \
'--drop-qdq-pair[Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float]' \
'--matmul-as-mul-reducesum[Write every MatMul whose weight is a constant of two dimensions \[K, N\] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session]' \
'--fuse-sibling-matmuls[Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session]' \
'--matmulnbits-accuracy-level[Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session]' \
'--print-plan[Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session]' \
'--check-finite[Fail a case whose outputs hold NaN or Inf]' \
'--save-fixed-dims[With --save-models\: write the free dimensions as this run fixed them (--dim, --shape, or the sizes dmlrun gave them for DirectML from the inputs), for an application that sets no free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay symbolic, as in the source]' \
'-v[List passing cases too]' \
'--verbose[List passing cases too]' \
'-q[Print only the summary line]' \
'--quiet[Print only the summary line]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- Model folders in ONNX'\''s test-data layout, or trees of them (searched recursively), and model files without test data (checked against --compare-ep on generated inputs):_files' \
&& ret=0
;;
(bench)
_arguments "${_arguments_options[@]}" : \
'--generate=[How inputs no file gives are filled (a bench manifest can say per model; test fills the inputs of a model that has no test data, checked with --compare-ep)]:FILL:((random\:"Uniform random\: floats in \[0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)"
zeros\:""
ones\:""))' \
'--seed=[Seed for --generate random]:N:_default' \
'--free-dim-size=[Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1]:N:_default' \
'*--generate-range=[The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI)\: floats in \[LO, HI), integers from LO to HI inclusive. Repeatable]:[NAME=]LO,HI:_default' \
'--max-tensor-bytes=[Refuse tensors (input files, generated data) larger than this many bytes]:BYTES:_default' \
'--max-image-pixels=[Refuse images (--input, a manifest'\''s image inputs) with more pixels than this (decompression bombs)]:PIXELS:_default' \
'*--dim=[Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable]:NAME=N:_default' \
'*--shape=[The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable]:NAME=D0,D1,...:_default' \
'*--dim-denotation=[Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable]:DENOTATION=N:_default' \
'--ep=[Execution provider\: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy\:POLICY]:EP:_default' \
'--device=[DirectML adapter\: its index (DXGI order, as \`dmlrun devices\` lists them\: DirectML'\''s device_id), part of its name, or its LUID]:N|NAME|luid:HIGH-LOW:_default' \
'--dml-performance-preference=[DirectML performance_preference\: let DirectML pick the adapter (instead of --device)]:PREF:(default high-performance minimum-power)' \
'--dml-device-filter=[DirectML device_filter\: which kinds of adapter DirectML may pick (instead of --device)]:FILTER:(gpu npu any)' \
'*--ep-option=[A DirectML provider option passed through to ONNX Runtime as given. Repeatable]:KEY=VALUE:_default' \
'--opt-level=[Graph optimisation level]:LEVEL:(disable basic extended all)' \
'--intra-threads=[Threads within one operator (ONNX Runtime'\''s intra_op_num_threads; 0 = default)]:N:_default' \
'--inter-threads=[Threads across operators in parallel mode (inter_op_num_threads; 0 = default)]:N:_default' \
'--execution-mode=[Execution mode. DirectML requires sequential; parallel is refused with it]:MODE:(sequential parallel)' \
'--memory-pattern=[ONNX Runtime'\''s memory pattern optimisation (default on for the CPU; DirectML requires off)]:on|off:_default' \
'*--session-config=[A session config entry (ONNX Runtime'\''s AddSessionConfigEntry), passed as given. Repeatable]:KEY=VALUE:_default' \
'--precision=[The precision the model runs in\: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session]:PRECISION:((fp32\:"As the model is written"
fp16\:"Float32 initializers and computation converted to float16, inputs and outputs float32"
int4\:"Weight-only\: each MatMul'\''s constant weight in 4-bit blocks (MatMulNBits)"
int8\:"Weight-only\: each MatMul'\''s constant weight in 8-bit blocks (MatMulNBits)"))' \
'*--keep-fp32=[With --precision fp16\: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8\: leave this MatMul (by name, \`*\` for any run of characters) as written. Repeatable]:OP|NODE:_default' \
'--block-size=[With --precision int4 or int8\: the rows of a weight'\''s column quantized together (16, 32, 64, 128 or 256)]:N:_default' \
'--accuracy-level=[With --precision int4 or int8\: the MatMulNBits nodes'\'' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)]:N:_default' \
'*--decompose=[Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated)\: LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu]:OP[,OP...]:_default' \
'(--duration)--iterations=[Timed runs per model (default 100, unless --duration is given)]:N:_default' \
'--duration=[Time box per model instead of a count, e.g. 10s or 500ms (bounded by --min/--max-iterations)]:TIME:_default' \
'--min-iterations=[With --duration\: at least this many timed runs]:N:_default' \
'--max-iterations=[With --duration\: at most this many timed runs]:N:_default' \
'--warmup=[Untimed runs after the first run]:N:_default' \
'--sessions=[Also run N sessions of each model at once, each by its own thread, and report their aggregate throughput and each one'\''s latency percentiles]:N:_default' \
'(--sweep-shape)--sweep=[Measure each model once per size of a free dimension, each size in a session of its own\: session creation and the first run (where DirectML compiles for the shape) beside the steady p50/p99 and items per second, the best throughput marked]:DIM=N,N,...:_default' \
'--sweep-shape=[As --sweep, over one input'\''s whole shapes (which also fix its named free dimensions), separated by '\''\:'\'']:NAME=SHAPE:SHAPE...:_default' \
'--profile=[Save ONNX Runtime'\''s per-operator profile of each model into DIR and print the top 10 operators]:DIR:_files' \
'--cache=[Keep the optimised model ONNX Runtime produces in DIR (keyed by model hash, EP, device, dims, optimisation level and ONNX Runtime version) and load it next time]:DIR:_files' \
'--compare-ep=[Also run on this execution provider and compare the outputs; exit 1 when they differ]:EP:_default' \
'--compare-opt-level=[Optimisation level of the --compare-ep run (default\: as the main run)]:LEVEL:(disable basic extended all)' \
'--rtol=[Relative tolerance for --compare-ep]:R:_default' \
'--atol=[Absolute tolerance for --compare-ep]:A:_default' \
'--baseline=[Judge each model'\''s runs against an earlier --json report'\''s\: regression, improvement, no change or inconclusive; exit 1 on a regression]:OLD.json:_files' \
'(--baseline --sweep --sweep-shape --sessions)*--baseline-model=[Time an older version of the model in the same session, in alternating rounds (A B B A ...) on the same device with the same session options, and judge the new one against it as --baseline does\: a slow spell of the machine then falls on both]:OLD.onnx:_files' \
'--max-regression=[Largest slowdown taken as none against --baseline or --baseline-model, e.g. 5% or 0.05\: a significant change within it both ways is '\''no change'\''. A bare number of 1 or more (5) is refused as ambiguous\: write 5%]:PERCENT:_default' \
'--rounds=[Time each model'\''s runs in N rounds\: consecutive blocks (alternating with the baseline model'\''s under --baseline-model), kept in the JSON report, so a slow spell shows as a slow round and the verdict weighs the spread between rounds]:N:_default' \
'--shard=[Benchmark only shard K of N of the models\: count mode (K/N) deals them round-robin in the order given, hash mode (hash\:K/N) by a hash of each model'\''s name. \`dmlrun merge\` puts the N JSON reports back together]:K/N|auto:_default' \
'--isolation=[Run the items in child dmlrun processes, so one that kills its process (an abort in DirectML, a segfault, a lost device) is recorded as \`crash\`, one that runs past --timeout as \`timeout\`, and the others still run]:WHERE:((auto\:"In child processes when DirectML is in the plan or a time limit holds (by default one does), in this process otherwise"
process\:"Always in child processes"
none\:"In this process"))' \
'--timeout=[Kill a case or model that runs longer than this, from its start, and record it as \`timeout\` with the step it was in (default\: 10m a bench model, 5m a test case, for fix and tune scaled from the model'\''s own time, 30s to 10m; 0 for no limit)]:TIME:_default' \
'--child-report=[Internal\: run as an isolation child, appending each item'\''s result to FILE as one JSON line as it finishes, and nothing else]:FILE:_files' \
'--progress=[Internal\: write the item (and step) under way to FILE, for the parent'\''s time limit]:FILE:_files' \
'--preflight=[Internal\: the items as the parent resolved them (JSON\: each with its preflight), so that the child runs exactly those and resolves no flag again]:FILE:_files' \
'--json=[Write the report as JSON to FILE ("-" for stdout instead of the summary)]:FILE:_files' \
'--csv=[Write a CSV table to FILE ("-" for stdout)\: a row per case (test), model (bench) or prompt (generate), with its status and figures]:FILE:_files' \
'--markdown=[Write a Markdown table to FILE ("-" for stdout), as --csv, for a pull request or a README (merge --compare\: the comparison)]:FILE:_files' \
'--html=[Write a self-contained HTML page to FILE. test\: the totals and every case with its status (filterable) and where mismatching outputs part; bench\: the environment, each model'\''s latency distribution with p50/p90/p99, p50/p99 across models, and with --compare-ep, --baseline and --profile their comparisons; generate\: the figures and a plot of each token'\''s decode latency over the sequence (where the KV cache'\''s growth shows)]:FILE:_files' \
'--junit=[Write JUnit XML to FILE ("-" for stdout)\: a case per test case, bench model or generate prompt, failed where it failed (bench\: or regressed against the baseline, the verdict in its output; generate\: where its tokens part from --compare-ep'\''s)]:FILE:_files' \
'--save-models=[Write each item'\''s model (a test case'\''s, a bench model'\''s) as its session ran it into DIR, as run'\''s --save-model writes one (every rewrite and the float16 conversion, dmlrun.* metadata_props saying what was done)\: DIR/NAME.onnx, NAME the item'\''s name as the report gives it. A model dmlrun did not change is written too (its own bytes, the record added), unless its weights are in external data files\: then it gets a warning and no file]:DIR:_files' \
'--ci=[Report to the CI system'\''s own pages\: with github, a Markdown summary appended to \$GITHUB_STEP_SUMMARY (the failed items first, at most 1 MiB) and an annotation on the run per failed item (at most 10, then a count), printed on stderr, where the runner reads them too; stdout is unchanged. auto\: github where GITHUB_ACTIONS=true; none\: never]:WHERE:(auto github none)' \
'--ort-lib=[ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)]:PATH:_files' \
'*--ep-library=[Register a plugin execution provider library (ONNX Runtime'\''s RegisterExecutionProviderLibrary) under NAME, by default the file'\''s name. Repeatable]:[NAME=]PATH:_default' \
'--ort-log-level=[Lowest severity of ONNX Runtime'\''s own log lines shown on stderr]:LEVEL:(verbose info warning error fatal)' \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--no-auto-dims[Leave free dimensions free under DirectML instead of fixing them from the inputs]' \
'--dml-disable-metacommands[DirectML'\''s disable_metacommands provider option\: run DirectML'\''s own compute shaders instead of the driver'\''s metacommands (vendor-tuned kernels for convolution, GEMM)]' \
'--asymmetric[With --precision int4 or int8\: a zero point a block (uint8), mapping each block'\''s range \[min, max\]; by default symmetric, as the model builder writes DirectML models]' \
'--inline-if[Write every If of the main graph whose condition the run'\''s inputs decide as the branch they take, before the session]' \
'--gemm-zero-bias[Give every Gemm without its optional bias an explicit zero bias, of its output'\''s width and its weight'\''s type, before the session]' \
'--reshape-allowzero-off[Drop \`allowzero=1\` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session]' \
'--binary-as-reduce[Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session]' \
'--dequantize-gather[Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales'\'' type), before the session]' \
'--matmulnbits-bias-add[Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session]' \
'--matmulnbits-drop-g-idx[Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session]' \
'--dequantize-matmulnbits[Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales'\'' type, float16 for the builder'\''s DirectML models), before the session]' \
'--drop-qdq-pair[Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float]' \
'--matmul-as-mul-reducesum[Write every MatMul whose weight is a constant of two dimensions \[K, N\] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session]' \
'--fuse-sibling-matmuls[Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session]' \
'--matmulnbits-accuracy-level[Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session]' \
'--print-plan[Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session]' \
'--io-on-device[Upload the inputs to DirectML'\''s device memory once and keep the outputs there (IoBinding), so the timed runs measure the GPU'\''s work without the host<->GPU copies]' \
'--dml-graph-capture[DirectML graph capture (ep.dml.enable_graph_capture)\: the first run'\''s GPU work is recorded and replayed, saving the CPU'\''s per-run dispatch]' \
'--profile-unfused[With --profile on DirectML\: turn DirectML'\''s graph fusion off (ep.dml.disable_graph_fusion=1) so the profile lists each operator with its time and share]' \
'--save-fixed-dims[With --save-models\: write the free dimensions as this run fixed them (--dim, --shape, or the sizes dmlrun gave them for DirectML from the inputs), for an application that sets no free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay symbolic, as in the source]' \
'-q[No progress bars]' \
'--quiet[No progress bars]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::targets -- .onnx files, folders (searched recursively), or manifests (.toml/.json\: per model path, name, dims, inputs, generate):_files' \
&& ret=0
;;
(reduce)
_arguments "${_arguments_options[@]}" : \
'*-i+[An input\: FILE for the model'\''s first input, or NAME=FILE. Repeatable]:[NAME=]FILE:_default' \
'*--input=[An input\: FILE for the model'\''s first input, or NAME=FILE. Repeatable]:[NAME=]FILE:_default' \
'--generate=[Fill inputs no --input gives\: random (seeded), zeros or ones]:FILL:((random\:"Uniform random\: floats in \[0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)"
zeros\:""
ones\:""))' \
'--seed=[Seed for --generate random]:N:_default' \
'--free-dim-size=[Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1]:N:_default' \
'*--generate-range=[The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI)\: floats in \[LO, HI), integers from LO to HI inclusive. Repeatable]:[NAME=]LO,HI:_default' \
'--max-tensor-bytes=[Refuse tensors (input files, generated data) larger than this many bytes]:BYTES:_default' \
'--max-image-pixels=[Refuse images (--input, a manifest'\''s image inputs) with more pixels than this (decompression bombs)]:PIXELS:_default' \
'--preset=[Named preprocessing\: imagenet (default for float inputs), unit (\[0,1\]), raw (0..255; default for uint8 inputs)]:PRESET:((imagenet\:"torchvision ImageNet\: crop mode, \[0,1\] then mean \[0.485,0.456,0.406\] / std \[0.229,0.224,0.225\], RGB"
unit\:"Stretch to size, scale to \[0,1\], no mean/std, RGB"
raw\:"Stretch to size, pixel values 0..255 unchanged, RGB"))' \
'--resize=[How the picture fits the model'\''s size\: crop (shorter side, then centre crop), center-crop (centre crop alone), stretch, letterbox, none]:MODE:((crop\:"Resize the shorter side (to \`--resize-to\`, default crop/0.875), then centre-crop"
stretch\:"Resize to exactly the model'\''s size, ignoring the aspect ratio"
letterbox\:"Fit inside the model'\''s size keeping the aspect ratio, pad the rest with \`--pad-value\`"
center-crop\:"No resizing\: centre-crop to the model'\''s size, padding with zeros where the picture is smaller (torchvision'\''s \`CenterCrop\` alone)"
none\:"No resizing\: the image must already have the model'\''s size"))' \
'--resize-to=[With --resize crop\: the shorter-side length before cropping (default\: crop size / 0.875, 256 for 224)]:N:_default' \
'--filter=[Resampling filter (Pillow-exact)]:FILTER:(bilinear bicubic)' \
'--scale=[Multiply pixel values (0..255) by this before mean/std (imagenet and unit\: 1/255)]:F:_default' \
'*--mean=[Per-channel mean subtracted after scaling, e.g. --mean 0.485,0.456,0.406]:R,G,B:_default' \
'*--std=[Per-channel standard deviation divided by, e.g. --std 0.229,0.224,0.225]:R,G,B:_default' \
'--channel-order=[Channel order the model expects; --mean and --std stay R,G,B]:ORDER:(rgb bgr)' \
'--layout=[Tensor layout (default\: inferred from where the model input has 1 or 3 channels)]:LAYOUT:(nchw nhwc)' \
'--pad-value=[With --resize letterbox\: the pixel value of the padding]:0-255:_default' \
'--image-size=[Target HEIGHTxWIDTH when the model'\''s spatial dimensions are free (default\: the image'\''s own size)]:HxW:_default' \
'*--dim=[Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable]:NAME=N:_default' \
'*--shape=[The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable]:NAME=D0,D1,...:_default' \
'*--dim-denotation=[Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable]:DENOTATION=N:_default' \
'--ep=[Execution provider\: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy\:POLICY]:EP:_default' \
'--device=[DirectML adapter\: its index (DXGI order, as \`dmlrun devices\` lists them\: DirectML'\''s device_id), part of its name, or its LUID]:N|NAME|luid:HIGH-LOW:_default' \
'--dml-performance-preference=[DirectML performance_preference\: let DirectML pick the adapter (instead of --device)]:PREF:(default high-performance minimum-power)' \
'--dml-device-filter=[DirectML device_filter\: which kinds of adapter DirectML may pick (instead of --device)]:FILTER:(gpu npu any)' \
'*--ep-option=[A DirectML provider option passed through to ONNX Runtime as given. Repeatable]:KEY=VALUE:_default' \
'--opt-level=[Graph optimisation level]:LEVEL:(disable basic extended all)' \
'--intra-threads=[Threads within one operator (ONNX Runtime'\''s intra_op_num_threads; 0 = default)]:N:_default' \
'--inter-threads=[Threads across operators in parallel mode (inter_op_num_threads; 0 = default)]:N:_default' \
'--execution-mode=[Execution mode. DirectML requires sequential; parallel is refused with it]:MODE:(sequential parallel)' \
'--memory-pattern=[ONNX Runtime'\''s memory pattern optimisation (default on for the CPU; DirectML requires off)]:on|off:_default' \
'*--session-config=[A session config entry (ONNX Runtime'\''s AddSessionConfigEntry), passed as given. Repeatable]:KEY=VALUE:_default' \
'--precision=[The precision the model runs in\: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session]:PRECISION:((fp32\:"As the model is written"
fp16\:"Float32 initializers and computation converted to float16, inputs and outputs float32"
int4\:"Weight-only\: each MatMul'\''s constant weight in 4-bit blocks (MatMulNBits)"
int8\:"Weight-only\: each MatMul'\''s constant weight in 8-bit blocks (MatMulNBits)"))' \
'*--keep-fp32=[With --precision fp16\: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8\: leave this MatMul (by name, \`*\` for any run of characters) as written. Repeatable]:OP|NODE:_default' \
'--block-size=[With --precision int4 or int8\: the rows of a weight'\''s column quantized together (16, 32, 64, 128 or 256)]:N:_default' \
'--accuracy-level=[With --precision int4 or int8\: the MatMulNBits nodes'\'' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)]:N:_default' \
'*--decompose=[Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated)\: LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu]:OP[,OP...]:_default' \
'--compare-ep=[The reference execution provider, which must run the original model\: reduce feeds each candidate the values it gave and checks the outputs against them; fix holds every attempt'\''s outputs to its outputs on the original. Takes what --ep takes]:EP:_default' \
'--rtol=[Relative tolerance\: outputs further apart than atol + rtol * |reference| differ]:R:_default' \
'--atol=[Absolute tolerance (see --rtol)]:A:_default' \
'--timeout=[Stop bisecting after this long and write the smallest failing model found so far (exit 1\: it may not be the smallest); 0 for no limit. \`--time-limit\` is the same flag]:TIME:_default' \
'--candidate-timeout=[Kill a candidate'\''s child process after this long. Where the whole model runs past it on the EP under test and the reference runs it, the reduction keeps the nodes that hang (a candidate that times out reproduces); otherwise a timeout counts as not reproducing]:TIME:_default' \
'-o+[The folder to write the minimal model into, as an ONNX test case\: model.onnx, test_data_set_0/ (the reference'\''s inputs and outputs) and reduce.json (what was tried). It must not exist or be empty. Default\: MODEL'\''s name with \`-reduced\`, in the current folder]:DIR:_files' \
'--output=[The folder to write the minimal model into, as an ONNX test case\: model.onnx, test_data_set_0/ (the reference'\''s inputs and outputs) and reduce.json (what was tried). It must not exist or be empty. Default\: MODEL'\''s name with \`-reduced\`, in the current folder]:DIR:_files' \
'--json=[Also write the summary as JSON (to stdout with \`-\`, or to FILE)]:FILE:_files' \
'--ort-lib=[ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)]:PATH:_files' \
'*--ep-library=[Register a plugin execution provider library (ONNX Runtime'\''s RegisterExecutionProviderLibrary) under NAME, by default the file'\''s name. Repeatable]:[NAME=]PATH:_default' \
'--ort-log-level=[Lowest severity of ONNX Runtime'\''s own log lines shown on stderr]:LEVEL:(verbose info warning error fatal)' \
'--child-report=[Internal\: run as an isolation child, appending each item'\''s result to FILE as one JSON line as it finishes, and nothing else]:FILE:_files' \
'--progress=[Internal\: write the item (and step) under way to FILE, for the parent'\''s time limit]:FILE:_files' \
'--preflight=[Internal\: the items as the parent resolved them (JSON\: each with its preflight), so that the child runs exactly those and resolves no flag again]:FILE:_files' \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--no-auto-dims[Leave free dimensions free under DirectML instead of fixing them from the inputs]' \
'--dml-disable-metacommands[DirectML'\''s disable_metacommands provider option\: run DirectML'\''s own compute shaders instead of the driver'\''s metacommands (vendor-tuned kernels for convolution, GEMM)]' \
'--asymmetric[With --precision int4 or int8\: a zero point a block (uint8), mapping each block'\''s range \[min, max\]; by default symmetric, as the model builder writes DirectML models]' \
'--inline-if[Write every If of the main graph whose condition the run'\''s inputs decide as the branch they take, before the session]' \
'--gemm-zero-bias[Give every Gemm without its optional bias an explicit zero bias, of its output'\''s width and its weight'\''s type, before the session]' \
'--reshape-allowzero-off[Drop \`allowzero=1\` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session]' \
'--binary-as-reduce[Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session]' \
'--dequantize-gather[Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales'\'' type), before the session]' \
'--matmulnbits-bias-add[Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session]' \
'--matmulnbits-drop-g-idx[Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session]' \
'--dequantize-matmulnbits[Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales'\'' type, float16 for the builder'\''s DirectML models), before the session]' \
'--drop-qdq-pair[Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float]' \
'--matmul-as-mul-reducesum[Write every MatMul whose weight is a constant of two dimensions \[K, N\] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session]' \
'--fuse-sibling-matmuls[Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session]' \
'--matmulnbits-accuracy-level[Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session]' \
'--print-plan[Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session]' \
'--each-op[Instead of bisecting\: check each operator type of the model alone (its first node as a one-node model, fed with the reference'\''s values) on the EP under test, and list which it runs and which it rejects. Exit 1 when one fails. Nothing is written but --json]' \
'-q[No progress bar or per-candidate lines on stderr]' \
'--quiet[No progress bar or per-candidate lines on stderr]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':model -- The ONNX model that fails on the execution provider --ep names (auto by default\: DirectML where the loaded ONNX Runtime has it) and runs on the reference (--compare-ep, the CPU by default):_files' \
&& ret=0
;;
(fix)
_arguments "${_arguments_options[@]}" : \
'*-i+[An input\: FILE for the model'\''s first input, or NAME=FILE. Repeatable]:[NAME=]FILE:_default' \
'*--input=[An input\: FILE for the model'\''s first input, or NAME=FILE. Repeatable]:[NAME=]FILE:_default' \
'--generate=[Fill inputs no --input gives\: random (seeded), zeros or ones]:FILL:((random\:"Uniform random\: floats in \[0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)"
zeros\:""
ones\:""))' \
'--seed=[Seed for --generate random]:N:_default' \
'--free-dim-size=[Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1]:N:_default' \
'*--generate-range=[The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI)\: floats in \[LO, HI), integers from LO to HI inclusive. Repeatable]:[NAME=]LO,HI:_default' \
'--max-tensor-bytes=[Refuse tensors (input files, generated data) larger than this many bytes]:BYTES:_default' \
'--max-image-pixels=[Refuse images (--input, a manifest'\''s image inputs) with more pixels than this (decompression bombs)]:PIXELS:_default' \
'--preset=[Named preprocessing\: imagenet (default for float inputs), unit (\[0,1\]), raw (0..255; default for uint8 inputs)]:PRESET:((imagenet\:"torchvision ImageNet\: crop mode, \[0,1\] then mean \[0.485,0.456,0.406\] / std \[0.229,0.224,0.225\], RGB"
unit\:"Stretch to size, scale to \[0,1\], no mean/std, RGB"
raw\:"Stretch to size, pixel values 0..255 unchanged, RGB"))' \
'--resize=[How the picture fits the model'\''s size\: crop (shorter side, then centre crop), center-crop (centre crop alone), stretch, letterbox, none]:MODE:((crop\:"Resize the shorter side (to \`--resize-to\`, default crop/0.875), then centre-crop"
stretch\:"Resize to exactly the model'\''s size, ignoring the aspect ratio"
letterbox\:"Fit inside the model'\''s size keeping the aspect ratio, pad the rest with \`--pad-value\`"
center-crop\:"No resizing\: centre-crop to the model'\''s size, padding with zeros where the picture is smaller (torchvision'\''s \`CenterCrop\` alone)"
none\:"No resizing\: the image must already have the model'\''s size"))' \
'--resize-to=[With --resize crop\: the shorter-side length before cropping (default\: crop size / 0.875, 256 for 224)]:N:_default' \
'--filter=[Resampling filter (Pillow-exact)]:FILTER:(bilinear bicubic)' \
'--scale=[Multiply pixel values (0..255) by this before mean/std (imagenet and unit\: 1/255)]:F:_default' \
'*--mean=[Per-channel mean subtracted after scaling, e.g. --mean 0.485,0.456,0.406]:R,G,B:_default' \
'*--std=[Per-channel standard deviation divided by, e.g. --std 0.229,0.224,0.225]:R,G,B:_default' \
'--channel-order=[Channel order the model expects; --mean and --std stay R,G,B]:ORDER:(rgb bgr)' \
'--layout=[Tensor layout (default\: inferred from where the model input has 1 or 3 channels)]:LAYOUT:(nchw nhwc)' \
'--pad-value=[With --resize letterbox\: the pixel value of the padding]:0-255:_default' \
'--image-size=[Target HEIGHTxWIDTH when the model'\''s spatial dimensions are free (default\: the image'\''s own size)]:HxW:_default' \
'*--dim=[Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable]:NAME=N:_default' \
'*--shape=[The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable]:NAME=D0,D1,...:_default' \
'*--dim-denotation=[Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable]:DENOTATION=N:_default' \
'--ep=[Execution provider\: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy\:POLICY]:EP:_default' \
'--device=[DirectML adapter\: its index (DXGI order, as \`dmlrun devices\` lists them\: DirectML'\''s device_id), part of its name, or its LUID]:N|NAME|luid:HIGH-LOW:_default' \
'--dml-performance-preference=[DirectML performance_preference\: let DirectML pick the adapter (instead of --device)]:PREF:(default high-performance minimum-power)' \
'--dml-device-filter=[DirectML device_filter\: which kinds of adapter DirectML may pick (instead of --device)]:FILTER:(gpu npu any)' \
'*--ep-option=[A DirectML provider option passed through to ONNX Runtime as given. Repeatable]:KEY=VALUE:_default' \
'--opt-level=[Graph optimisation level]:LEVEL:(disable basic extended all)' \
'--intra-threads=[Threads within one operator (ONNX Runtime'\''s intra_op_num_threads; 0 = default)]:N:_default' \
'--inter-threads=[Threads across operators in parallel mode (inter_op_num_threads; 0 = default)]:N:_default' \
'--execution-mode=[Execution mode. DirectML requires sequential; parallel is refused with it]:MODE:(sequential parallel)' \
'--memory-pattern=[ONNX Runtime'\''s memory pattern optimisation (default on for the CPU; DirectML requires off)]:on|off:_default' \
'*--session-config=[A session config entry (ONNX Runtime'\''s AddSessionConfigEntry), passed as given. Repeatable]:KEY=VALUE:_default' \
'--precision=[The precision the model runs in\: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session]:PRECISION:((fp32\:"As the model is written"
fp16\:"Float32 initializers and computation converted to float16, inputs and outputs float32"
int4\:"Weight-only\: each MatMul'\''s constant weight in 4-bit blocks (MatMulNBits)"
int8\:"Weight-only\: each MatMul'\''s constant weight in 8-bit blocks (MatMulNBits)"))' \
'*--keep-fp32=[With --precision fp16\: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8\: leave this MatMul (by name, \`*\` for any run of characters) as written. Repeatable]:OP|NODE:_default' \
'--block-size=[With --precision int4 or int8\: the rows of a weight'\''s column quantized together (16, 32, 64, 128 or 256)]:N:_default' \
'--accuracy-level=[With --precision int4 or int8\: the MatMulNBits nodes'\'' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)]:N:_default' \
'*--decompose=[Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated)\: LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu]:OP[,OP...]:_default' \
'--compare-ep=[The reference execution provider, which must run the original model\: reduce feeds each candidate the values it gave and checks the outputs against them; fix holds every attempt'\''s outputs to its outputs on the original. Takes what --ep takes]:EP:_default' \
'--rtol=[Relative tolerance\: outputs further apart than atol + rtol * |reference| differ]:R:_default' \
'--atol=[Absolute tolerance (see --rtol)]:A:_default' \
'--isolation=[Run the items in child dmlrun processes, so one that kills its process (an abort in DirectML, a segfault, a lost device) is recorded as \`crash\`, one that runs past --timeout as \`timeout\`, and the others still run]:WHERE:((auto\:"In child processes when DirectML is in the plan or a time limit holds (by default one does), in this process otherwise"
process\:"Always in child processes"
none\:"In this process"))' \
'--timeout=[Kill a case or model that runs longer than this, from its start, and record it as \`timeout\` with the step it was in (default\: 10m a bench model, 5m a test case, for fix and tune scaled from the model'\''s own time, 30s to 10m; 0 for no limit)]:TIME:_default' \
'--child-report=[Internal\: run as an isolation child, appending each item'\''s result to FILE as one JSON line as it finishes, and nothing else]:FILE:_files' \
'--progress=[Internal\: write the item (and step) under way to FILE, for the parent'\''s time limit]:FILE:_files' \
'--preflight=[Internal\: the items as the parent resolved them (JSON\: each with its preflight), so that the child runs exactly those and resolves no flag again]:FILE:_files' \
'-o+[Where the model that passes goes\: a FILE for a model, a folder (new or empty) for an onnxruntime-genai folder. Written whenever fix exits 0, as \`run --save-model\` writes it\: every remedy applied (none where it passed as it is), dmlrun.* metadata_props saying which, and external data copied into \`FILE.data\` beside it. Where nothing made it pass, nothing is written there, and the smallest model that still fails goes beside it, as \`dmlrun reduce\` writes one (\`bert-dml-reduced/\` for \`-o bert-dml.onnx\`)]:FILE|DIR:_files' \
'--output=[Where the model that passes goes\: a FILE for a model, a folder (new or empty) for an onnxruntime-genai folder. Written whenever fix exits 0, as \`run --save-model\` writes it\: every remedy applied (none where it passed as it is), dmlrun.* metadata_props saying which, and external data copied into \`FILE.data\` beside it. Where nothing made it pass, nothing is written there, and the smallest model that still fails goes beside it, as \`dmlrun reduce\` writes one (\`bert-dml-reduced/\` for \`-o bert-dml.onnx\`)]:FILE|DIR:_files' \
'--json=[Write the record of the attempts as JSON to FILE ("-" for stdout instead of the text)]:FILE:_files' \
'--ort-lib=[ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)]:PATH:_files' \
'*--ep-library=[Register a plugin execution provider library (ONNX Runtime'\''s RegisterExecutionProviderLibrary) under NAME, by default the file'\''s name. Repeatable]:[NAME=]PATH:_default' \
'--ort-log-level=[Lowest severity of ONNX Runtime'\''s own log lines shown on stderr]:LEVEL:(verbose info warning error fatal)' \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--no-auto-dims[Leave free dimensions free under DirectML instead of fixing them from the inputs]' \
'--dml-disable-metacommands[DirectML'\''s disable_metacommands provider option\: run DirectML'\''s own compute shaders instead of the driver'\''s metacommands (vendor-tuned kernels for convolution, GEMM)]' \
'--asymmetric[With --precision int4 or int8\: a zero point a block (uint8), mapping each block'\''s range \[min, max\]; by default symmetric, as the model builder writes DirectML models]' \
'--inline-if[Write every If of the main graph whose condition the run'\''s inputs decide as the branch they take, before the session]' \
'--gemm-zero-bias[Give every Gemm without its optional bias an explicit zero bias, of its output'\''s width and its weight'\''s type, before the session]' \
'--reshape-allowzero-off[Drop \`allowzero=1\` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session]' \
'--binary-as-reduce[Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session]' \
'--dequantize-gather[Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales'\'' type), before the session]' \
'--matmulnbits-bias-add[Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session]' \
'--matmulnbits-drop-g-idx[Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session]' \
'--dequantize-matmulnbits[Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales'\'' type, float16 for the builder'\''s DirectML models), before the session]' \
'--drop-qdq-pair[Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float]' \
'--matmul-as-mul-reducesum[Write every MatMul whose weight is a constant of two dimensions \[K, N\] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session]' \
'--fuse-sibling-matmuls[Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session]' \
'--matmulnbits-accuracy-level[Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session]' \
'--print-plan[Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session]' \
'--write-unchanged[]' \
'--save-fixed-dims[With --output\: write the free dimensions as this run fixed them (--dim, --shape, or the sizes dmlrun gave them for DirectML from the inputs), for an application that sets no free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay symbolic, as in the source]' \
'-q[No progress lines, only the record]' \
'--quiet[No progress lines, only the record]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':model -- The ONNX model to get through the execution provider --ep names (auto by default\: DirectML where the loaded ONNX Runtime has it), checked against the reference (--compare-ep, the CPU by default) on the original model:_files' \
&& ret=0
;;
(tune)
_arguments "${_arguments_options[@]}" : \
'*-i+[An input\: FILE for the model'\''s first input, or NAME=FILE. Repeatable]:[NAME=]FILE:_default' \
'*--input=[An input\: FILE for the model'\''s first input, or NAME=FILE. Repeatable]:[NAME=]FILE:_default' \
'--generate=[Fill inputs no --input gives\: random (seeded), zeros or ones]:FILL:((random\:"Uniform random\: floats in \[0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)"
zeros\:""
ones\:""))' \
'--seed=[Seed for --generate random]:N:_default' \
'--free-dim-size=[Size of the free dimensions of generated inputs that nothing else sizes (no --dim, no other input with the same dimension name). Default 1]:N:_default' \
'*--generate-range=[The values --generate random draws, for one input (NAME=LO,HI) or all (LO,HI)\: floats in \[LO, HI), integers from LO to HI inclusive. Repeatable]:[NAME=]LO,HI:_default' \
'--max-tensor-bytes=[Refuse tensors (input files, generated data) larger than this many bytes]:BYTES:_default' \
'--max-image-pixels=[Refuse images (--input, a manifest'\''s image inputs) with more pixels than this (decompression bombs)]:PIXELS:_default' \
'--preset=[Named preprocessing\: imagenet (default for float inputs), unit (\[0,1\]), raw (0..255; default for uint8 inputs)]:PRESET:((imagenet\:"torchvision ImageNet\: crop mode, \[0,1\] then mean \[0.485,0.456,0.406\] / std \[0.229,0.224,0.225\], RGB"
unit\:"Stretch to size, scale to \[0,1\], no mean/std, RGB"
raw\:"Stretch to size, pixel values 0..255 unchanged, RGB"))' \
'--resize=[How the picture fits the model'\''s size\: crop (shorter side, then centre crop), center-crop (centre crop alone), stretch, letterbox, none]:MODE:((crop\:"Resize the shorter side (to \`--resize-to\`, default crop/0.875), then centre-crop"
stretch\:"Resize to exactly the model'\''s size, ignoring the aspect ratio"
letterbox\:"Fit inside the model'\''s size keeping the aspect ratio, pad the rest with \`--pad-value\`"
center-crop\:"No resizing\: centre-crop to the model'\''s size, padding with zeros where the picture is smaller (torchvision'\''s \`CenterCrop\` alone)"
none\:"No resizing\: the image must already have the model'\''s size"))' \
'--resize-to=[With --resize crop\: the shorter-side length before cropping (default\: crop size / 0.875, 256 for 224)]:N:_default' \
'--filter=[Resampling filter (Pillow-exact)]:FILTER:(bilinear bicubic)' \
'--scale=[Multiply pixel values (0..255) by this before mean/std (imagenet and unit\: 1/255)]:F:_default' \
'*--mean=[Per-channel mean subtracted after scaling, e.g. --mean 0.485,0.456,0.406]:R,G,B:_default' \
'*--std=[Per-channel standard deviation divided by, e.g. --std 0.229,0.224,0.225]:R,G,B:_default' \
'--channel-order=[Channel order the model expects; --mean and --std stay R,G,B]:ORDER:(rgb bgr)' \
'--layout=[Tensor layout (default\: inferred from where the model input has 1 or 3 channels)]:LAYOUT:(nchw nhwc)' \
'--pad-value=[With --resize letterbox\: the pixel value of the padding]:0-255:_default' \
'--image-size=[Target HEIGHTxWIDTH when the model'\''s spatial dimensions are free (default\: the image'\''s own size)]:HxW:_default' \
'*--dim=[Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable]:NAME=N:_default' \
'*--shape=[The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable]:NAME=D0,D1,...:_default' \
'*--dim-denotation=[Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable]:DENOTATION=N:_default' \
'--ep=[Execution provider\: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy\:POLICY]:EP:_default' \
'--device=[DirectML adapter\: its index (DXGI order, as \`dmlrun devices\` lists them\: DirectML'\''s device_id), part of its name, or its LUID]:N|NAME|luid:HIGH-LOW:_default' \
'--dml-performance-preference=[DirectML performance_preference\: let DirectML pick the adapter (instead of --device)]:PREF:(default high-performance minimum-power)' \
'--dml-device-filter=[DirectML device_filter\: which kinds of adapter DirectML may pick (instead of --device)]:FILTER:(gpu npu any)' \
'*--ep-option=[A DirectML provider option passed through to ONNX Runtime as given. Repeatable]:KEY=VALUE:_default' \
'--opt-level=[Graph optimisation level]:LEVEL:(disable basic extended all)' \
'--intra-threads=[Threads within one operator (ONNX Runtime'\''s intra_op_num_threads; 0 = default)]:N:_default' \
'--inter-threads=[Threads across operators in parallel mode (inter_op_num_threads; 0 = default)]:N:_default' \
'--execution-mode=[Execution mode. DirectML requires sequential; parallel is refused with it]:MODE:(sequential parallel)' \
'--memory-pattern=[ONNX Runtime'\''s memory pattern optimisation (default on for the CPU; DirectML requires off)]:on|off:_default' \
'*--session-config=[A session config entry (ONNX Runtime'\''s AddSessionConfigEntry), passed as given. Repeatable]:KEY=VALUE:_default' \
'--precision=[The precision the model runs in\: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session]:PRECISION:((fp32\:"As the model is written"
fp16\:"Float32 initializers and computation converted to float16, inputs and outputs float32"
int4\:"Weight-only\: each MatMul'\''s constant weight in 4-bit blocks (MatMulNBits)"
int8\:"Weight-only\: each MatMul'\''s constant weight in 8-bit blocks (MatMulNBits)"))' \
'*--keep-fp32=[With --precision fp16\: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8\: leave this MatMul (by name, \`*\` for any run of characters) as written. Repeatable]:OP|NODE:_default' \
'--block-size=[With --precision int4 or int8\: the rows of a weight'\''s column quantized together (16, 32, 64, 128 or 256)]:N:_default' \
'--accuracy-level=[With --precision int4 or int8\: the MatMulNBits nodes'\'' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)]:N:_default' \
'*--decompose=[Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated)\: LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu]:OP[,OP...]:_default' \
'--prompt-tokens=[A decoder (a genai folder) is timed at a synthetic prompt of this many tokens\: its time to first token, and each decode step after it]:N:_default' \
'-n+[A decoder'\''s new tokens a timed generation (greedy, past any end-of-sequence token)]:N:_default' \
'--max-new-tokens=[A decoder'\''s new tokens a timed generation (greedy, past any end-of-sequence token)]:N:_default' \
'--budget=[How long the search may take\: the candidates are tried in order of expected gain until it is spent (each is timed for a share of it)]:TIME:_default' \
'--compare-ep=[The reference execution provider, which must run the original model\: reduce feeds each candidate the values it gave and checks the outputs against them; fix holds every attempt'\''s outputs to its outputs on the original. Takes what --ep takes]:EP:_default' \
'--rtol=[Relative tolerance\: outputs further apart than atol + rtol * |reference| differ]:R:_default' \
'--atol=[Absolute tolerance (see --rtol)]:A:_default' \
'--isolation=[Run the items in child dmlrun processes, so one that kills its process (an abort in DirectML, a segfault, a lost device) is recorded as \`crash\`, one that runs past --timeout as \`timeout\`, and the others still run]:WHERE:((auto\:"In child processes when DirectML is in the plan or a time limit holds (by default one does), in this process otherwise"
process\:"Always in child processes"
none\:"In this process"))' \
'--timeout=[Kill a case or model that runs longer than this, from its start, and record it as \`timeout\` with the step it was in (default\: 10m a bench model, 5m a test case, for fix and tune scaled from the model'\''s own time, 30s to 10m; 0 for no limit)]:TIME:_default' \
'--child-report=[Internal\: run as an isolation child, appending each item'\''s result to FILE as one JSON line as it finishes, and nothing else]:FILE:_files' \
'--progress=[Internal\: write the item (and step) under way to FILE, for the parent'\''s time limit]:FILE:_files' \
'--preflight=[Internal\: the items as the parent resolved them (JSON\: each with its preflight), so that the child runs exactly those and resolves no flag again]:FILE:_files' \
'-o+[Where the fastest verified form goes, as \`run --save-model\` writes it, with what was applied and its measured ratio in dmlrun.* metadata_props\: a FILE for a model, a folder (new or empty) for a genai folder, its other files copied. Nothing is written where no candidate was measured faster]:FILE|DIR:_files' \
'--output=[Where the fastest verified form goes, as \`run --save-model\` writes it, with what was applied and its measured ratio in dmlrun.* metadata_props\: a FILE for a model, a folder (new or empty) for a genai folder, its other files copied. Nothing is written where no candidate was measured faster]:FILE|DIR:_files' \
'--json=[Write the record of the candidates as JSON to FILE ("-" for stdout instead of the text)]:FILE:_files' \
'--ort-lib=[ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)]:PATH:_files' \
'*--ep-library=[Register a plugin execution provider library (ONNX Runtime'\''s RegisterExecutionProviderLibrary) under NAME, by default the file'\''s name. Repeatable]:[NAME=]PATH:_default' \
'--ort-log-level=[Lowest severity of ONNX Runtime'\''s own log lines shown on stderr]:LEVEL:(verbose info warning error fatal)' \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--no-auto-dims[Leave free dimensions free under DirectML instead of fixing them from the inputs]' \
'--dml-disable-metacommands[DirectML'\''s disable_metacommands provider option\: run DirectML'\''s own compute shaders instead of the driver'\''s metacommands (vendor-tuned kernels for convolution, GEMM)]' \
'--asymmetric[With --precision int4 or int8\: a zero point a block (uint8), mapping each block'\''s range \[min, max\]; by default symmetric, as the model builder writes DirectML models]' \
'--inline-if[Write every If of the main graph whose condition the run'\''s inputs decide as the branch they take, before the session]' \
'--gemm-zero-bias[Give every Gemm without its optional bias an explicit zero bias, of its output'\''s width and its weight'\''s type, before the session]' \
'--reshape-allowzero-off[Drop \`allowzero=1\` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session]' \
'--binary-as-reduce[Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session]' \
'--dequantize-gather[Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales'\'' type), before the session]' \
'--matmulnbits-bias-add[Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session]' \
'--matmulnbits-drop-g-idx[Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session]' \
'--dequantize-matmulnbits[Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales'\'' type, float16 for the builder'\''s DirectML models), before the session]' \
'--drop-qdq-pair[Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float]' \
'--matmul-as-mul-reducesum[Write every MatMul whose weight is a constant of two dimensions \[K, N\] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session]' \
'--fuse-sibling-matmuls[Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session]' \
'--matmulnbits-accuracy-level[Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session]' \
'--print-plan[Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session]' \
'-q[No progress lines, only the record]' \
'--quiet[No progress lines, only the record]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':model -- The ONNX model (or onnxruntime-genai folder) to make faster on the execution provider and device --ep and --device name, each candidate form checked against the original on the reference (--compare-ep)\: a model by its outputs, a decoder by the tokens it generates:_files' \
&& ret=0
;;
(generate)
_arguments "${_arguments_options[@]}" : \
'-p+[The prompt text, tokenized with the model'\''s tokenizer.json]:TEXT:_default' \
'--prompt=[The prompt text, tokenized with the model'\''s tokenizer.json]:TEXT:_default' \
'--prompt-file=[A file of prompts, one per line (empty lines skipped); each is generated and reported on its own]:FILE:_files' \
'--prompt-tokens=[A synthetic prompt of exactly N tokens (ids drawn from --seed), as LLM benchmark scripts use; needs no tokenizer]:N:_default' \
'*--prompt-ids=[The prompt as token ids, comma-separated (to reproduce another tool'\''s run exactly); needs no tokenizer]:IDS:_default' \
'--system=[The system message of --chat (default\: whatever the template puts there, often nothing)]:TEXT:_default' \
'--perplexity=[Instead of generating, the teacher-forced perplexity of this text file (UTF-8)\: its tokens in windows of --window, each --stride after the last, every token after the first scored once (Hugging Face'\''s recipe for fixed-length models). With --compare-ep, on both EPs and their ratio. Runs the prefill path only]:FILE:_files' \
'--window=[Tokens in one window of --perplexity (default\: the model'\''s context, at most 2048)]:N:_default' \
'--stride=[Tokens from one window'\''s start to the next'\''s, with --perplexity (default\: half the window)]:N:_default' \
'--tokenizer=[The tokenizer.json to use (default\: the one in the model'\''s folder)]:FILE:_files' \
'*--dim=[Fix a free (symbolic) input dimension by name, e.g. --dim batch=1. Repeatable]:NAME=N:_default' \
'*--shape=[The whole shape of one input, e.g. --shape x=1,3,48,192. Repeatable]:NAME=D0,D1,...:_default' \
'*--dim-denotation=[Fix free dimensions by denotation, e.g. --dim-denotation DATA_BATCH=1. Repeatable]:DENOTATION=N:_default' \
'--ep=[Execution provider\: auto (DirectML if the loaded ONNX Runtime has it, else CPU), dml, cpu, an EP name, or policy\:POLICY]:EP:_default' \
'--device=[DirectML adapter\: its index (DXGI order, as \`dmlrun devices\` lists them\: DirectML'\''s device_id), part of its name, or its LUID]:N|NAME|luid:HIGH-LOW:_default' \
'--dml-performance-preference=[DirectML performance_preference\: let DirectML pick the adapter (instead of --device)]:PREF:(default high-performance minimum-power)' \
'--dml-device-filter=[DirectML device_filter\: which kinds of adapter DirectML may pick (instead of --device)]:FILTER:(gpu npu any)' \
'*--ep-option=[A DirectML provider option passed through to ONNX Runtime as given. Repeatable]:KEY=VALUE:_default' \
'--opt-level=[Graph optimisation level]:LEVEL:(disable basic extended all)' \
'--intra-threads=[Threads within one operator (ONNX Runtime'\''s intra_op_num_threads; 0 = default)]:N:_default' \
'--inter-threads=[Threads across operators in parallel mode (inter_op_num_threads; 0 = default)]:N:_default' \
'--execution-mode=[Execution mode. DirectML requires sequential; parallel is refused with it]:MODE:(sequential parallel)' \
'--memory-pattern=[ONNX Runtime'\''s memory pattern optimisation (default on for the CPU; DirectML requires off)]:on|off:_default' \
'*--session-config=[A session config entry (ONNX Runtime'\''s AddSessionConfigEntry), passed as given. Repeatable]:KEY=VALUE:_default' \
'*--keep-fp32=[With --precision fp16\: leave this operator type (Softmax) or node (by name) in float32, with Casts around it; with int4 or int8\: leave this MatMul (by name, \`*\` for any run of characters) as written. Repeatable]:OP|NODE:_default' \
'--block-size=[With --precision int4 or int8\: the rows of a weight'\''s column quantized together (16, 32, 64, 128 or 256)]:N:_default' \
'--accuracy-level=[With --precision int4 or int8\: the MatMulNBits nodes'\'' accuracy_level, the precision their kernel computes in (0 unset, 1 float32, 2 float16, 3 bfloat16, 4 int8 activations)]:N:_default' \
'*--decompose=[Write every node of this operator as primitive ONNX ops with the same meaning before the session (a comma list, or repeated)\: LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization, SkipSimplifiedLayerNormalization, Gelu]:OP[,OP...]:_default' \
'-n+[Stop after this many new tokens (or at an end-of-sequence token)]:N:_default' \
'--max-new-tokens=[Stop after this many new tokens (or at an end-of-sequence token)]:N:_default' \
'--max-length=[The KV buffer'\''s length in positions (prompt plus new tokens), fixed so that DirectML compiles one shape for every prompt. Default\: the prompt plus --max-new-tokens]:N:_default' \
'--context-length=[The model'\''s context length, for a bare .onnx (a genai folder'\''s config says it)]:N:_default' \
'--kv-layout=[The KV cache'\''s layout\: shared (one static buffer, onnxruntime-genai'\''s past_present_share_buffer) or growing. Default\: what genai_config.json says; growing for a bare .onnx]:LAYOUT:((shared\:"One buffer of --max-length positions, bound as both past and present (static shapes)"
growing\:"Each step'\''s present outputs become the next step'\''s past inputs, one position longer"))' \
'*--decode-rewrite=[Run the one-token decode step in a session of its own whose model this rule rewrites too (a comma list, or repeated; a rule'\''s flag without its dashes); the prompt runs the model as the other flags make it]:RULE[,RULE...]:_default' \
'--temperature=[Sampling temperature (with --sample)]:T:_default' \
'--top-k=[Sample among the K most likely tokens only (0\: all; with --sample)]:K:_default' \
'--top-p=[Sample among the most likely tokens whose probabilities reach P (with --sample)]:P:_default' \
'--repetition-penalty=[Each token already in the prompt or the text has its logit divided by F (multiplied where negative) before the choice, as transformers'\'' and onnxruntime-genai'\''s repetition_penalty (1\: off; 1.1 to 1.3 is usual). A guard against a greedy decoder that loops; the logits then come back to the host each step (not chosen on the device)]:F:_default' \
'--no-repeat-ngram=[No run of N tokens occurs twice\: a token that would repeat one is never chosen, as transformers'\'' no_repeat_ngram_size (0\: off)]:N:_default' \
'--seed=[Seed for --sample and for --prompt-tokens]:N:_default' \
'--iterations=[Measured repetitions of each prompt (the figures are over these)]:N:_default' \
'--warmup=[Unmeasured repetitions first]:N:_default' \
'--compare-ep=[Judge this EP'\''s logits at every step against this execution provider'\''s (exit 1 where their choices part where the reference was sure)]:EP:_default' \
'--compare-opt-level=[Graph optimisation level of the --compare-ep session (default\: the same as --opt-level)]:LEVEL:(disable basic extended all)' \
'--timeout=[Stop the whole generation after this long (default 10m; 0 for no limit) and say which step it was in\: session creation, the prefill, or decode step k. Exit 2]:TIME:_default' \
'--save-model=[With --precision int4 or int8\: write the decoder as its session ran it, as a model folder DIR (new, or empty)\: the model under its own file name with its data, its folder'\''s genai_config.json and tokenizer files beside it, and dmlrun.* metadata_props saying what was quantized, what was left and why. Written whole or not at all]:DIR:_files' \
'--json=[Write the report as JSON to FILE ("-" for stdout instead of the summary)]:FILE:_files' \
'--csv=[Write a CSV table to FILE ("-" for stdout)\: a row per case (test), model (bench) or prompt (generate), with its status and figures]:FILE:_files' \
'--markdown=[Write a Markdown table to FILE ("-" for stdout), as --csv, for a pull request or a README (merge --compare\: the comparison)]:FILE:_files' \
'--html=[Write a self-contained HTML page to FILE. test\: the totals and every case with its status (filterable) and where mismatching outputs part; bench\: the environment, each model'\''s latency distribution with p50/p90/p99, p50/p99 across models, and with --compare-ep, --baseline and --profile their comparisons; generate\: the figures and a plot of each token'\''s decode latency over the sequence (where the KV cache'\''s growth shows)]:FILE:_files' \
'--junit=[Write JUnit XML to FILE ("-" for stdout)\: a case per test case, bench model or generate prompt, failed where it failed (bench\: or regressed against the baseline, the verdict in its output; generate\: where its tokens part from --compare-ep'\''s)]:FILE:_files' \
'--ci=[Report to the CI system'\''s own pages\: with github, a Markdown summary appended to \$GITHUB_STEP_SUMMARY (the failed items first, at most 1 MiB) and an annotation on the run per failed item (at most 10, then a count), printed on stderr, where the runner reads them too; stdout is unchanged. auto\: github where GITHUB_ACTIONS=true; none\: never]:WHERE:(auto github none)' \
'--ort-lib=[ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)]:PATH:_files' \
'*--ep-library=[Register a plugin execution provider library (ONNX Runtime'\''s RegisterExecutionProviderLibrary) under NAME, by default the file'\''s name. Repeatable]:[NAME=]PATH:_default' \
'--ort-log-level=[Lowest severity of ONNX Runtime'\''s own log lines shown on stderr]:LEVEL:(verbose info warning error fatal)' \
'--precision=[The precision the model runs in\: fp32 as written, fp16 converted, or int4/int8 with its MatMul weights quantized, before the session]:PRECISION:((fp32\:"As the model is written"
int4\:"Weight-only\: each MatMul'\''s constant weight in 4-bit blocks (MatMulNBits)"
int8\:"Weight-only\: each MatMul'\''s constant weight in 8-bit blocks (MatMulNBits)"))' \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--chat[Wrap each prompt (--prompt, or each line of --prompt-file) in the model'\''s chat template as one user message, ending where the assistant'\''s answer begins, as chat applications and onnxruntime-genai'\''s apply_chat_template do. The template is tokenizer_config.json'\''s "chat_template" (or chat_template.jinja) beside the tokenizer]' \
'--no-auto-dims[Leave free dimensions free under DirectML instead of fixing them from the inputs]' \
'--dml-disable-metacommands[DirectML'\''s disable_metacommands provider option\: run DirectML'\''s own compute shaders instead of the driver'\''s metacommands (vendor-tuned kernels for convolution, GEMM)]' \
'--asymmetric[With --precision int4 or int8\: a zero point a block (uint8), mapping each block'\''s range \[min, max\]; by default symmetric, as the model builder writes DirectML models]' \
'--inline-if[Write every If of the main graph whose condition the run'\''s inputs decide as the branch they take, before the session]' \
'--gemm-zero-bias[Give every Gemm without its optional bias an explicit zero bias, of its output'\''s width and its weight'\''s type, before the session]' \
'--reshape-allowzero-off[Drop \`allowzero=1\` from every Reshape whose shape is a constant without a zero, where the attribute changes nothing, before the session]' \
'--binary-as-reduce[Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the lower rank read with the leading ones broadcasting gives it) as the two stacked on a new axis (Unsqueeze, Concat) and reduced over it (ReduceSum; ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its numerator stacked twice (a broadcast division) and the first quotient taken, and every float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session]' \
'--dequantize-gather[Write every GatherBlockQuantized whose table is a constant as a Gather over the table dequantized (to its scales'\'' type), before the session]' \
'--matmulnbits-bias-add[Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the bias, before the session]' \
'--matmulnbits-drop-g-idx[Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway (row k in block k / block_size), before the session]' \
'--dequantize-matmulnbits[Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul over the weight dequantized (to its scales'\'' type, float16 for the builder'\''s DirectML models), before the session]' \
'--drop-qdq-pair[Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a QDQ model, before the session, so the op runs in float]' \
'--matmul-as-mul-reducesum[Write every MatMul whose weight is a constant of two dimensions \[K, N\] as a Mul of its input, a column on the last axis, by the weight and a ReduceSum over K, before the session]' \
'--fuse-sibling-matmuls[Write MatMuls that read the same input, each by a constant weight of two dimensions with the same K, as one MatMul by the weights side by side and a Split of its last axis, before the session]' \
'--matmulnbits-accuracy-level[Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before the session]' \
'--print-plan[Print the resolved session plan (providers, device, execution mode, memory pattern, dims, threads) to stderr before creating the session]' \
'--io-on-device[Upload the inputs to DirectML'\''s device memory once and keep the outputs there (IoBinding), so the timed runs measure the GPU'\''s work without the host<->GPU copies]' \
'--dml-graph-capture[DirectML graph capture (ep.dml.enable_graph_capture)\: the first run'\''s GPU work is recorded and replayed, saving the CPU'\''s per-run dispatch]' \
'(--dml-graph-capture)--no-dml-graph-capture[Run DirectML'\''s decode step uncaptured. By default generate captures it once and replays it where the model allows (the shared KV layout), as onnxruntime-genai does on DirectML\: this flag is for measuring what capture saves, or for a driver whose capture misbehaves. The report says which was used and why]' \
'(--sample)--choose-on-host[Choose the greedy token on the host from the logits read back each step. By default, over a captured decode step, an ArgMax on the device picks it where the logits are and one id comes back\: this flag is for measuring what that saves, or for a driver whose ArgMax is doubted. The report says where the token was chosen and why]' \
'--ignore-eos[Keep generating past end-of-sequence tokens, so every repetition makes --max-new-tokens (benchmarks)]' \
'--sample[Sample the next token instead of taking the most likely one (greedy, the default)]' \
'--no-blame[When a step fails on an EP other than the CPU, say ONNX Runtime'\''s error as it is, without replaying the steps on the CPU EP to decide whose failure it is (the replay of a large float16 model can take minutes on the CPU)]' \
'-v[With the figures, each prompt'\''s generated token ids and its decode latency along the positions (where a growing KV cache shows)]' \
'--verbose[With the figures, each prompt'\''s generated token ids and its decode latency along the positions (where a growing KV cache shows)]' \
'-q[No generated text on stdout and no progress on stderr (the figures are still printed)]' \
'--quiet[No generated text on stdout and no progress on stderr (the figures are still printed)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':model -- An onnxruntime-genai model folder (genai_config.json, the decoder .onnx, tokenizer.json), or a decoder .onnx with input_ids, past_key_values.N.key|value inputs and logits, present.N.key|value outputs (the tokenizer.json beside it, or --tokenizer):_files' \
&& ret=0
;;
(merge)
_arguments "${_arguments_options[@]}" : \
'--json=[Write the report as JSON to FILE ("-" for stdout instead of the summary)]:FILE:_files' \
'--csv=[Write a CSV table to FILE ("-" for stdout)\: a row per case (test), model (bench) or prompt (generate), with its status and figures]:FILE:_files' \
'--markdown=[Write a Markdown table to FILE ("-" for stdout), as --csv, for a pull request or a README (merge --compare\: the comparison)]:FILE:_files' \
'--html=[Write a self-contained HTML page to FILE. test\: the totals and every case with its status (filterable) and where mismatching outputs part; bench\: the environment, each model'\''s latency distribution with p50/p90/p99, p50/p99 across models, and with --compare-ep, --baseline and --profile their comparisons; generate\: the figures and a plot of each token'\''s decode latency over the sequence (where the KV cache'\''s growth shows)]:FILE:_files' \
'--junit=[Write JUnit XML to FILE ("-" for stdout)\: a case per test case, bench model or generate prompt, failed where it failed (bench\: or regressed against the baseline, the verdict in its output; generate\: where its tokens part from --compare-ep'\''s)]:FILE:_files' \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--compare[Put whole runs side by side instead\: per case or model each run'\''s status (and bench'\''s p50, the fastest marked where its runs are significantly faster than every other run'\''s (the test of bench --baseline), and max |diff| where --compare-ep found outputs apart), the ones whose verdicts disagree first]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::reports -- JSON reports of `dmlrun test` or `dmlrun bench`\: the N shards of one run (`--shard K/N`), or, with --compare, whole runs of the same work on different machines or devices:_files' \
&& ret=0
;;
(info)
_arguments "${_arguments_options[@]}" : \
'--json=[Print the information as JSON (to stdout, or to FILE). With FILE the JSON goes there and the usual text to stdout]::FILE:_files' \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--full-metadata[Print metadata values whole; by default a value longer than a few lines (an OCR model'\''s character list, say) is cut to its first lines with a count of the rest]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':model -- The ONNX model file:_files' \
&& ret=0
;;
(devices)
_arguments "${_arguments_options[@]}" : \
'--json=[Print the adapters and EP devices as JSON (to stdout, or to FILE). With FILE the JSON goes there and the usual text to stdout]::FILE:_files' \
'--ort-lib=[ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)]:PATH:_files' \
'*--ep-library=[Register a plugin execution provider library (ONNX Runtime'\''s RegisterExecutionProviderLibrary) under NAME, by default the file'\''s name. Repeatable]:[NAME=]PATH:_default' \
'--ort-log-level=[Lowest severity of ONNX Runtime'\''s own log lines shown on stderr]:LEVEL:(verbose info warning error fatal)' \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(doctor)
_arguments "${_arguments_options[@]}" : \
'--json=[Print the findings as JSON (to stdout, or to FILE). With FILE the JSON goes there and the usual text to stdout]::FILE:_files' \
'--ort-lib=[ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll)]:PATH:_files' \
'*--ep-library=[Register a plugin execution provider library (ONNX Runtime'\''s RegisterExecutionProviderLibrary) under NAME, by default the file'\''s name. Repeatable]:[NAME=]PATH:_default' \
'--ort-log-level=[Lowest severity of ONNX Runtime'\''s own log lines shown on stderr]:LEVEL:(verbose info warning error fatal)' \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(completions)
_arguments "${_arguments_options[@]}" : \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':shell -- The shell to complete for:(bash elvish fish powershell zsh)' \
&& ret=0
;;
(man)
_arguments "${_arguments_options[@]}" : \
'--color=[When to use colour in help and diagnostics\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_dmlrun__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:dmlrun-help-command-$line[1]:"
        case $line[1] in
            (run)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(test)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(bench)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(reduce)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(fix)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(tune)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(generate)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(merge)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(info)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(devices)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(doctor)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(completions)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(man)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
}

(( $+functions[_dmlrun_commands] )) ||
_dmlrun_commands() {
    local commands; commands=(
'run:Run a model once (plus timed iterations) and report outputs and timings (the default)' \
'test:Validate models against ONNX test-data folders (model.onnx + test_data_set_N/*.pb)' \
'bench:Benchmark models\: given directly, found in folders, or listed in a TOML/JSON manifest' \
'reduce:When an execution provider rejects a model (or its outputs differ)\: bisect to the smallest run of nodes that still fails, written as an ONNX test case' \
'fix:Get a model through an execution provider that rejects it or gets it wrong\: the remedies that fit it tried, each a whole run against the reference, and the model that passes written' \
'tune:Find the fastest verified form of a model on the device at hand\: each candidate form (a speed rewrite, float16, a session option) checked against the original on the reference EP and timed beside it in alternating rounds, kept only where the paired test says faster, the kept ones combined' \
'generate:Generate text with a decoder LLM (an onnxruntime-genai model folder or a decoder .onnx) and measure it as LLM benchmarks do\: time to first token, tokens per second, per-token latency' \
'merge:Put reports back together\: the JSON reports of a run'\''s --shard K/N parts into the report of the whole run (JSON, JUnit, HTML, ...), or with --compare whole runs of the same work on different machines or devices side by side' \
'info:Show a model'\''s inputs, outputs, symbolic dimensions, opsets and metadata' \
'devices:List the DirectML (DXGI) adapters; the index is the --device value' \
'doctor:Show which ONNX Runtime dmlrun loads, from where, and its execution providers' \
'completions:Print a shell completion script\: dmlrun completions bash > /etc/bash_completion.d/dmlrun' \
'man:Print the man page (roff)\: dmlrun man > dmlrun.1' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'dmlrun commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__bench_commands] )) ||
_dmlrun__subcmd__bench_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun bench commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__completions_commands] )) ||
_dmlrun__subcmd__completions_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun completions commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__devices_commands] )) ||
_dmlrun__subcmd__devices_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun devices commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__doctor_commands] )) ||
_dmlrun__subcmd__doctor_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun doctor commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__fix_commands] )) ||
_dmlrun__subcmd__fix_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun fix commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__generate_commands] )) ||
_dmlrun__subcmd__generate_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun generate commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help_commands] )) ||
_dmlrun__subcmd__help_commands() {
    local commands; commands=(
'run:Run a model once (plus timed iterations) and report outputs and timings (the default)' \
'test:Validate models against ONNX test-data folders (model.onnx + test_data_set_N/*.pb)' \
'bench:Benchmark models\: given directly, found in folders, or listed in a TOML/JSON manifest' \
'reduce:When an execution provider rejects a model (or its outputs differ)\: bisect to the smallest run of nodes that still fails, written as an ONNX test case' \
'fix:Get a model through an execution provider that rejects it or gets it wrong\: the remedies that fit it tried, each a whole run against the reference, and the model that passes written' \
'tune:Find the fastest verified form of a model on the device at hand\: each candidate form (a speed rewrite, float16, a session option) checked against the original on the reference EP and timed beside it in alternating rounds, kept only where the paired test says faster, the kept ones combined' \
'generate:Generate text with a decoder LLM (an onnxruntime-genai model folder or a decoder .onnx) and measure it as LLM benchmarks do\: time to first token, tokens per second, per-token latency' \
'merge:Put reports back together\: the JSON reports of a run'\''s --shard K/N parts into the report of the whole run (JSON, JUnit, HTML, ...), or with --compare whole runs of the same work on different machines or devices side by side' \
'info:Show a model'\''s inputs, outputs, symbolic dimensions, opsets and metadata' \
'devices:List the DirectML (DXGI) adapters; the index is the --device value' \
'doctor:Show which ONNX Runtime dmlrun loads, from where, and its execution providers' \
'completions:Print a shell completion script\: dmlrun completions bash > /etc/bash_completion.d/dmlrun' \
'man:Print the man page (roff)\: dmlrun man > dmlrun.1' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'dmlrun help commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__bench_commands] )) ||
_dmlrun__subcmd__help__subcmd__bench_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help bench commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__completions_commands] )) ||
_dmlrun__subcmd__help__subcmd__completions_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help completions commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__devices_commands] )) ||
_dmlrun__subcmd__help__subcmd__devices_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help devices commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__doctor_commands] )) ||
_dmlrun__subcmd__help__subcmd__doctor_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help doctor commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__fix_commands] )) ||
_dmlrun__subcmd__help__subcmd__fix_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help fix commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__generate_commands] )) ||
_dmlrun__subcmd__help__subcmd__generate_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help generate commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__help_commands] )) ||
_dmlrun__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help help commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__info_commands] )) ||
_dmlrun__subcmd__help__subcmd__info_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help info commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__man_commands] )) ||
_dmlrun__subcmd__help__subcmd__man_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help man commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__merge_commands] )) ||
_dmlrun__subcmd__help__subcmd__merge_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help merge commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__reduce_commands] )) ||
_dmlrun__subcmd__help__subcmd__reduce_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help reduce commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__run_commands] )) ||
_dmlrun__subcmd__help__subcmd__run_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help run commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__test_commands] )) ||
_dmlrun__subcmd__help__subcmd__test_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help test commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__help__subcmd__tune_commands] )) ||
_dmlrun__subcmd__help__subcmd__tune_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun help tune commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__info_commands] )) ||
_dmlrun__subcmd__info_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun info commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__man_commands] )) ||
_dmlrun__subcmd__man_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun man commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__merge_commands] )) ||
_dmlrun__subcmd__merge_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun merge commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__reduce_commands] )) ||
_dmlrun__subcmd__reduce_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun reduce commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__run_commands] )) ||
_dmlrun__subcmd__run_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun run commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__test_commands] )) ||
_dmlrun__subcmd__test_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun test commands' commands "$@"
}
(( $+functions[_dmlrun__subcmd__tune_commands] )) ||
_dmlrun__subcmd__tune_commands() {
    local commands; commands=()
    _describe -t commands 'dmlrun tune commands' commands "$@"
}

if [ "$funcstack[1]" = "_dmlrun" ]; then
    _dmlrun "$@"
else
    compdef _dmlrun dmlrun
fi
