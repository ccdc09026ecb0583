#!/usr/bin/env python3
"""Writes the small ONNX models the integration tests use into tests/models/.

The models are committed, so tests need no Python; run this (with `pip install onnx`) only to
change them. Each model is tiny and computes something a test can check by hand.
"""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "models")


def dim_value_info(name, elem_type, dims, denotations=None):
    """dims: ints for fixed sizes, strings for symbolic ones."""
    vi = helper.make_tensor_value_info(name, elem_type, dims)
    if denotations:
        for d, den in zip(vi.type.tensor_type.shape.dim, denotations):
            if den:
                d.denotation = den
    return vi


# IR 8 loads in every ONNX Runtime dmlrun supports (1.22+); onnx's default is newer.
IR_VERSION = 8


def save(model, name):
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name))
    print("wrote", name)


def opset(version=17):
    return [helper.make_opsetid("", version)]


def add_mul():
    """Two float inputs with a shared free batch dimension (denoted DATA_BATCH); two outputs."""
    x = dim_value_info("x", TensorProto.FLOAT, ["batch", 4], ["DATA_BATCH", None])
    y = dim_value_info("y", TensorProto.FLOAT, ["batch", 4], ["DATA_BATCH", None])
    s = helper.make_tensor_value_info("sum", TensorProto.FLOAT, ["batch", 4])
    p = helper.make_tensor_value_info("product", TensorProto.FLOAT, ["batch", 4])
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "y"], ["sum"]), helper.make_node("Mul", ["x", "y"], ["product"])],
        "add_mul",
        [x, y],
        [s, p],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "add_mul.onnx")


def sub_broadcast():
    """x - y over two inputs of one declared shape, (x - y) squared (the difference's shape is not
    declared: ONNX Runtime infers it), and x plus a constant row (a broadcast): what
    --binary-as-reduce rewrites and leaves."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["batch", 4]) for n in ("difference", "square", "shifted")]
    row = helper.make_tensor("row", TensorProto.FLOAT, [4], [0.5, -1.0, 2.0, 0.25])
    graph = helper.make_graph(
        [
            helper.make_node("Sub", ["x", "y"], ["difference"]),
            helper.make_node("Sub", ["x", "y"], ["d"]),
            helper.make_node("Mul", ["d", "d"], ["square"]),
            helper.make_node("Add", ["x", "row"], ["shifted"]),
        ],
        "sub_broadcast",
    "if_add_sub",
        [x, y],
        outputs,
        [row],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "sub_broadcast.onnx")


def paddle_unsized():
    """relu(x) + sigmoid(x) and relu(x) times a constant row, declaring no value info, its input's
    first dimension Paddle's `?` (no name reaches it): the shapes --binary-as-reduce reads come
    from ONNX Runtime's inference with the input's size written in."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["?", 4])
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["?", 4]) for n in ("sum", "scaled")]
    row = helper.make_tensor("row", TensorProto.FLOAT, [4], [0.5, -1.0, 2.0, 0.25])
    graph = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["r"]),
            helper.make_node("Sigmoid", ["x"], ["s"]),
            helper.make_node("Add", ["r", "s"], ["sum"], name="relu_plus_sigmoid"),
            helper.make_node("Mul", ["r", "row"], ["scaled"], name="relu_times_row"),
        ],
        "paddle_unsized",
    "hard_swish",
    "div_max_min",
        [x],
        outputs,
        [row],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "paddle_unsized.onnx")


def div_max_min():
    """a / b, max(a, b) and min(a, b) of two inputs of one declared shape: what --binary-as-reduce
    writes as a broadcast division (the numerator stacked twice) and stacked reductions."""
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3])
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ("quotient", "larger", "smaller")]
    graph = helper.make_graph(
        [
            helper.make_node("Div", ["a", "b"], ["quotient"], name="divide"),
            helper.make_node("Max", ["a", "b"], ["larger"], name="larger"),
            helper.make_node("Min", ["a", "b"], ["smaller"], name="smaller"),
        ],
        "div_max_min",
        [a, b],
        outputs,
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "div_max_min.onnx")


def pooled_scale():
    """A pooled row times a LayerNorm's scale ([1, 1, 4] by [4]: a broadcast that stretches no
    dimension, which this stack rejects as it does one shape) and a [4] input divided by the row:
    what --binary-as-reduce writes with the lower rank given its leading ones; and the row plus a
    [2, 1, 4] one, a broadcast that stretches, left as it is."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4])
    v = helper.make_tensor_value_info("v", TensorProto.FLOAT, [4])
    outputs = [
        helper.make_tensor_value_info("scaled", TensorProto.FLOAT, [1, 1, 4]),
        helper.make_tensor_value_info("ratio", TensorProto.FLOAT, [1, 1, 4]),
        helper.make_tensor_value_info("stretched", TensorProto.FLOAT, [2, 1, 4]),
    ]
    scale = helper.make_tensor("scale", TensorProto.FLOAT, [4], [0.5, -1.0, 2.0, 0.25])
    rows = helper.make_tensor("rows", TensorProto.FLOAT, [2, 1, 4], [1.0, 2.0, 3.0, 4.0, -1.0, -2.0, -3.0, -4.0])
    graph = helper.make_graph(
        [
            helper.make_node("Mul", ["x", "scale"], ["scaled"], name="times_scale"),
            helper.make_node("Div", ["v", "x"], ["ratio"], name="vector_over_row"),
            helper.make_node("Add", ["x", "rows"], ["stretched"], name="plus_rows"),
        ],
        "pooled_scale",
        [x, v],
        outputs,
        [scale, rows],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "pooled_scale.onnx")


def hard_swish():
    """HardSwish of a float32 input: what --binary-as-reduce writes as HardSigmoid and a stacked
    product (DirectML under Wine rejects a float32 HardSwish as it does a same-shape Mul)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])
    graph = helper.make_graph([helper.make_node("HardSwish", ["x"], ["y"], name="hard_swish")], "hard_swish", [x], [y])
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "hard_swish.onnx")


def if_add_sub():
    """x + y in an If's then branch, x - y in its else branch, over two inputs of one declared
    shape: what --binary-as-reduce rewrites inside subgraphs."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 3])

    def branch(name, op):
        result = helper.make_tensor_value_info(f"{name}_out", TensorProto.FLOAT, [2, 3])
        return helper.make_graph([helper.make_node(op, ["x", "y"], [f"{name}_out"], name=f"{name}_{op.lower()}")],
                                 name, [], [result])

    graph = helper.make_graph(
        [helper.make_node("If", ["cond"], ["out"], then_branch=branch("then", "Add"), else_branch=branch("else", "Sub"))],
        "if_add_sub",
        [x, y, cond],
        [out],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "if_add_sub.onnx")


def if_rate():
    """x times a constant of each branch of an If on Equal(rate, 16000), as Silero VAD's model
    chooses its 16 kHz or 8 kHz network: what --inline-if writes as the branch a run takes. The
    16 kHz branch holds an If of its own on Greater(rate, 12000) (negate the product, or keep it),
    as Silero's branches hold theirs: written out once the outer one is."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    rate = helper.make_tensor_value_info("rate", TensorProto.INT64, [])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 3])

    def inner_if(product, result):
        def sign(name, op):
            signed = helper.make_tensor_value_info(f"{name}_out", TensorProto.FLOAT, [2, 3])
            return helper.make_graph([helper.make_node(op, [product], [f"{name}_out"], name=name)], name, [], [signed])

        twelve = helper.make_tensor("twelve_khz", TensorProto.INT64, [], [12000])
        return [
            helper.make_node("Constant", [], ["twelve"], name="twelve", value=twelve),
            helper.make_node("Greater", ["rate", "twelve"], ["above_12k"], name="above_12k"),
            helper.make_node("If", ["above_12k"], [result], name="then_sign",
                             then_branch=sign("negated", "Neg"), else_branch=sign("kept", "Identity")),
        ]

    def branch(name, scale, nested):
        result = helper.make_tensor_value_info(f"{name}_out", TensorProto.FLOAT, [2, 3])
        weight = helper.make_tensor(f"{name}_scale", TensorProto.FLOAT, [3], [scale, -scale, 0.5 * scale])
        product = f"{name}_product" if nested else f"{name}_out"
        nodes = [helper.make_node("Mul", ["x", f"{name}_scale"], [product], name=f"{name}_mul")]
        if nested:
            nodes += inner_if(product, f"{name}_out")
        return helper.make_graph(nodes, name, [], [result], initializer=[weight])

    sixteen = helper.make_tensor("sixteen_khz", TensorProto.INT64, [], [16000])
    graph = helper.make_graph(
        [
            helper.make_node("Equal", ["rate", "sixteen_khz"], ["is_16k"], name="is_16k"),
            helper.make_node("If", ["is_16k"], ["out"], name="by_rate",
                             then_branch=branch("then", 2.0, True), else_branch=branch("else", 3.0, False)),
        ],
        "if_rate",
        [x, rate],
        [out],
        initializer=[sixteen],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "if_rate.onnx")


def int64_ids():
    """int64 [batch, sequence] token ids; outputs ids*2 (int64) and the row sums as float."""
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"])
    doubled = helper.make_tensor_value_info("doubled", TensorProto.INT64, ["batch", "sequence"])
    sums = helper.make_tensor_value_info("row_sum", TensorProto.FLOAT, ["batch", 1])
    two = helper.make_tensor("two", TensorProto.INT64, [], [2])
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    graph = helper.make_graph(
        [
            helper.make_node("Mul", ["input_ids", "two"], ["doubled"]),
            helper.make_node("Cast", ["input_ids"], ["ids_f"], to=TensorProto.FLOAT),
            helper.make_node("ReduceSum", ["ids_f", "axes"], ["row_sum"], keepdims=1),
        ],
        "int64_ids",
        [ids],
        [doubled, sums],
        initializer=[two, axes],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "int64_ids.onnx")


def nhwc_channel_mean():
    """NHWC float image [1, 8, 8, 3]; outputs the mean of each channel, shape [1, 3]."""
    img = helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 8, 8, 3])
    out = helper.make_tensor_value_info("channel_mean", TensorProto.FLOAT, [1, 3])
    axes = helper.make_tensor("axes", TensorProto.INT64, [2], [1, 2])
    graph = helper.make_graph(
        [helper.make_node("ReduceMean", ["image", "axes"], ["channel_mean"], keepdims=0)],
        "nhwc_channel_mean",
        [img],
        [out],
        initializer=[axes],
    )
    save(helper.make_model(graph, opset_imports=opset(18), producer_name="dmlrun-tests"), "nhwc_channel_mean.onnx")


def split_rows():
    """float [rows, 2] split into a sequence of its rows (a sequence output), plus their sum."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["rows", 2])
    rows = helper.make_tensor_sequence_value_info("rows_seq", TensorProto.FLOAT, None)
    total = helper.make_tensor_value_info("total", TensorProto.FLOAT, [1, 2])
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [0])
    graph = helper.make_graph(
        [
            helper.make_node("SplitToSequence", ["x"], ["rows_seq"], axis=0, keepdims=1),
            helper.make_node("ReduceSum", ["x", "axes"], ["total"], keepdims=1),
        ],
        "split_rows",
        [x],
        [rows, total],
        initializer=[axes],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "split_rows.onnx")


def endless_loop():
    """A Loop with 2^63-1 iterations that adds 1 each time: a model that runs for days, for the
    tests of --timeout and of a child killed mid-run."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Add", ["acc_in", "one"], ["acc_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [1]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [1]),
        ],
        initializer=[helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])],
    )
    trips = helper.make_tensor("trips", TensorProto.INT64, [], [2**63 - 1])
    cond = helper.make_tensor("cond", TensorProto.BOOL, [], [True])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "cond", "x"], ["y"], body=body)],
        "endless_loop",
        [x],
        [y],
        initializer=[trips, cond],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "endless_loop.onnx")


def conv_free_hw():
    """A 3x3 convolution (no padding) of an image [1, 3, height, width] with free height and
    width: generated at 1x1 it cannot run, at 8x8 it gives [1, 2, 6, 6]."""
    import numpy as np
    from onnx import numpy_helper

    x = helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, "height", "width"])
    y = helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, 2, None, None])
    w = numpy_helper.from_array(np.full((2, 3, 3, 3), 0.1, dtype=np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["image", "w"], ["features"], kernel_shape=[3, 3])],
        "conv_free_hw",
        [x],
        [y],
        initializer=[w],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "conv_free_hw.onnx")


def zipmap_classifier():
    """A scikit-learn-style classifier: scores [batch, 2] of features [batch, 3], a label per
    row, and ZipMap's Sequence<Map<int64, float>> and Sequence<Map<string, float>> of the
    class probabilities (what skl2onnx exports)."""
    import numpy as np
    from onnx import numpy_helper

    x = helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 3])
    label = helper.make_tensor_value_info("label", TensorProto.INT64, ["batch"])
    by_id = helper.make_value_info(
        "probabilities",
        helper.make_sequence_type_proto(helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, []))),
    )
    by_name = helper.make_value_info(
        "named_probabilities",
        helper.make_sequence_type_proto(helper.make_map_type_proto(TensorProto.STRING, helper.make_tensor_type_proto(TensorProto.FLOAT, []))),
    )
    w = numpy_helper.from_array(np.array([[1.0, -1.0], [0.5, 0.25], [-2.0, 2.0]], dtype=np.float32), "w")
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["features", "w"], ["scores"]),
            helper.make_node("Softmax", ["scores"], ["probs"], axis=1),
            helper.make_node("ArgMax", ["probs"], ["label"], axis=1, keepdims=0),
            helper.make_node("ZipMap", ["probs"], ["probabilities"], domain="ai.onnx.ml", classlabels_int64s=[0, 1]),
            helper.make_node("ZipMap", ["probs"], ["named_probabilities"], domain="ai.onnx.ml", classlabels_strings=["no", "yes"]),
        ],
        "zipmap_classifier",
        [x],
        [label, by_id, by_name],
        initializer=[w],
    )
    model = helper.make_model(
        graph, opset_imports=opset() + [helper.make_opsetid("ai.onnx.ml", 1)], producer_name="dmlrun-tests"
    )
    save(model, "zipmap_classifier.onnx")


def identity_image():
    """An image [1, 3, height, width] passed through unchanged: what the decoder made, at any
    size (scripts/jpeg-vs-pillow reads the pixels back with --save-inputs); its metadata holds
    a 3,000-line value."""
    x = helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, "height", "width"])
    y = helper.make_tensor_value_info("pixels", TensorProto.FLOAT, [1, 3, "height", "width"])
    graph = helper.make_graph([helper.make_node("Identity", ["image"], ["pixels"])], "identity_image", [x], [y])
    model = helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests")
    # A long metadata value, as PP-OCR's recogniser carries its 6,623-line character list.
    helper.set_model_props(model, {"character": "\n".join(chr(0x4E00 + i) for i in range(3000)), "task": "identity"})
    save(model, "identity_image.onnx")


def unnamed_dims():
    """Free dimensions as exporters write them without names: `?` (Paddle), empty (Silero VAD)
    and -1; two `?` in one input are two sizes. audio [?, ?] and frames [-1, ''] give the row
    sums of each, so any sizes run."""
    audio = helper.make_tensor_value_info("audio", TensorProto.FLOAT, ["?", "?"])
    frames = helper.make_tensor_value_info("frames", TensorProto.FLOAT, [-1, 1])
    frames.type.tensor_type.shape.dim[1].Clear()  # neither a size nor a name
    audio_sum = helper.make_tensor_value_info("audio_sum", TensorProto.FLOAT, [None, 1])
    frames_sum = helper.make_tensor_value_info("frames_sum", TensorProto.FLOAT, [None, 1])
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    graph = helper.make_graph(
        [
            helper.make_node("ReduceSum", ["audio", "axes"], ["audio_sum"], keepdims=1),
            helper.make_node("ReduceSum", ["frames", "axes"], ["frames_sum"], keepdims=1),
        ],
        "unnamed_dims",
        [audio, frames],
        [audio_sum, frames_sum],
        initializer=[axes],
    )
    model = helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests")
    model.ir_version = IR_VERSION
    onnx.save(model, os.path.join(OUT, "unnamed_dims.onnx"))  # the checker rejects the -1 size
    print("wrote unnamed_dims.onnx")


def token_types():
    """A BERT-style embedding: input_ids [batch, sequence] and token_type_ids [batch,
    sequence] (int64) gathered from a 2-row token-type table, as in MiniLM: type ids must be 0
    or 1, and Gather fails on anything else."""
    import numpy as np
    from onnx import numpy_helper

    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"])
    types = helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "sequence"])
    out = helper.make_tensor_value_info("embedded", TensorProto.FLOAT, ["batch", "sequence", 4])
    table = numpy_helper.from_array(np.arange(8, dtype=np.float32).reshape(2, 4), "type_table")
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["type_table", "token_type_ids"], ["type_vectors"], axis=0),
            helper.make_node("Cast", ["input_ids"], ["ids_f"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["ids_f", "last"], ["ids_3d"]),
            helper.make_node("Add", ["type_vectors", "ids_3d"], ["embedded"]),
        ],
        "token_types",
        [ids, types],
        [out],
        initializer=[table, numpy_helper.from_array(np.array([2], dtype=np.int64), "last")],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "token_types.onnx")


def external_weights():
    """y = x * w with w [4] kept in external_weights.bin beside the model (ONNX external data)."""
    import numpy as np
    from onnx import numpy_helper
    from onnx.external_data_helper import convert_model_to_external_data

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    w = numpy_helper.from_array(np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32), "w")
    graph = helper.make_graph([helper.make_node("Mul", ["x", "w"], ["y"])], "external_weights", [x], [y], initializer=[w])
    model = helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests")
    convert_model_to_external_data(model, all_tensors_to_one_file=True, location="external_weights.bin", size_threshold=0)
    model.ir_version = IR_VERSION
    onnx.save(model, os.path.join(OUT, "external_weights.onnx"))
    print("wrote external_weights.onnx and external_weights.bin")


def gelu_chain():
    """Six nodes around a com.microsoft Gelu (node 3, 'gelu'), whose exact erf form ONNX Runtime's
    CPU EP computes by default and replaces with the tanh approximation (FastGelu) under
    `optimization.enable_gelu_approximation=1`: the two sessions agree up to node 2 and part at
    node 3 by up to about 2e-4. The offset added first is kept in external data
    (gelu_chain.bin), for the reduction's external-data path."""
    import numpy as np
    from onnx import numpy_helper
    from onnx.external_data_helper import convert_model_to_external_data

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8])
    offset = numpy_helper.from_array(np.linspace(-3, 3, 8, dtype=np.float32), "offset")
    two = numpy_helper.from_array(np.full([8], 2.0, dtype=np.float32), "two")
    nodes = [
        helper.make_node("Add", ["x", "offset"], ["a"], name="shift"),
        helper.make_node("Mul", ["a", "two"], ["m"], name="double"),
        helper.make_node("Identity", ["m"], ["i"], name="same"),
        helper.make_node("Gelu", ["i"], ["g"], name="gelu", domain="com.microsoft"),
        helper.make_node("Neg", ["g"], ["n"], name="negate"),
        helper.make_node("Abs", ["n"], ["y"], name="magnitude"),
    ]
    graph = helper.make_graph(nodes, "gelu_chain", [x], [y], initializer=[offset, two])
    model = helper.make_model(
        graph, opset_imports=opset() + [helper.make_opsetid("com.microsoft", 1)], producer_name="dmlrun-tests"
    )
    model.ir_version = IR_VERSION
    convert_model_to_external_data(model, all_tensors_to_one_file=True, location="gelu_chain.bin", size_threshold=0)
    onnx.save(model, os.path.join(OUT, "gelu_chain.onnx"))  # the checker knows no com.microsoft ops
    print("wrote gelu_chain.onnx and gelu_chain.bin")


def gelu_hang():
    """A model that never finishes on one configuration of the CPU EP and runs on another: a
    Loop without a trip count runs while `Gelu(x) < 0.84127`. With x = 1 the exact Gelu (ONNX
    Runtime's default) gives 0.8413447 and the Loop stops at once; its tanh approximation
    (`optimization.enable_gelu_approximation=1`) gives 0.8411920 and the Loop never ends. For
    the tests of reduce's hang mode, which must bisect it to the nodes that hang."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Identity", ["v_in"], ["v_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [1]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [1]),
        ],
    )
    threshold = helper.make_tensor("threshold", TensorProto.FLOAT, [1], [0.84127])
    nodes = [
        helper.make_node("Neg", ["x"], ["n"], name="negate"),
        helper.make_node("Neg", ["n"], ["p"], name="negate_back"),
        helper.make_node("Gelu", ["p"], ["g"], name="gelu", domain="com.microsoft"),
        helper.make_node("Less", ["g", "threshold"], ["below"], name="below"),
        helper.make_node("Squeeze", ["below", "axis0"], ["cond"], name="scalar"),
        helper.make_node("Loop", ["", "cond", "p"], ["y"], name="wait", body=body),
    ]
    axis0 = helper.make_tensor("axis0", TensorProto.INT64, [1], [0])
    graph = helper.make_graph(nodes, "gelu_hang", [x], [y], initializer=[threshold, axis0])
    model = helper.make_model(
        graph, opset_imports=opset() + [helper.make_opsetid("com.microsoft", 1)], producer_name="dmlrun-tests"
    )
    model.ir_version = IR_VERSION
    onnx.save(model, os.path.join(OUT, "gelu_hang.onnx"))  # the checker knows no com.microsoft ops
    print("wrote gelu_hang.onnx")


def unread_output():
    """A LayerNormalization whose mean output is named but read by nothing (as decoders' norms
    once had theirs), and whose normalised output a Relu reads: a run with every intermediate
    tensor exposed must ask for the second and not the first."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])
    scale = helper.make_tensor("scale", TensorProto.FLOAT, [4], [1.0, 1.0, 1.0, 1.0])
    nodes = [
        helper.make_node("LayerNormalization", ["x", "scale"], ["normed", "mean"], name="norm", axis=-1),
        helper.make_node("Relu", ["normed"], ["y"], name="relu"),
    ]
    graph = helper.make_graph(nodes, "unread_output", [x], [y], initializer=[scale])
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "unread_output.onnx")


def unknown_op():
    """Uses an operator from a domain ONNX Runtime has no kernels for."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node("Frobnicate", ["x"], ["y"], domain="com.example")], "unknown_op", [x], [y])
    model = helper.make_model(
        graph, opset_imports=opset() + [helper.make_opsetid("com.example", 1)], producer_name="dmlrun-tests"
    )
    model.ir_version = IR_VERSION
    onnx.save(model, os.path.join(OUT, "unknown_op.onnx"))  # the checker rightly rejects it
    print("wrote unknown_op.onnx")


def tensor_fixtures():
    """TensorProto files for every dtype, written by onnx itself (typed fields and raw_data),
    with the values they hold in tensors.json, for dmlrun's reader tests."""
    import json

    import numpy as np
    from onnx import numpy_helper

    out = os.path.join(OUT, "..", "data", "tensors")
    os.makedirs(out, exist_ok=True)
    expected = {}
    floats = [0.0, 1.0, -2.5, 0.5, 448.0, -0.125]
    ints = [0, 1, -2, 7, -8, 3]
    cases = {
        "float32": (TensorProto.FLOAT, floats),
        "float64": (TensorProto.DOUBLE, floats),
        "float16": (TensorProto.FLOAT16, floats),
        "bfloat16": (TensorProto.BFLOAT16, floats),
        "float8e4m3fn": (TensorProto.FLOAT8E4M3FN, floats),
        "float8e4m3fnuz": (TensorProto.FLOAT8E4M3FNUZ, [0.0, 1.0, -2.5, 0.5, 224.0, -0.125]),
        "float8e5m2": (TensorProto.FLOAT8E5M2, [0.0, 1.0, -2.5, 0.5, 448.0, -0.125]),
        "float8e5m2fnuz": (TensorProto.FLOAT8E5M2FNUZ, [0.0, 1.0, -2.5, 0.5, 448.0, -0.125]),
        "float4e2m1": (TensorProto.FLOAT4E2M1, [0.0, 1.0, -2.0, 0.5, 6.0, -1.5]),
        "int8": (TensorProto.INT8, ints),
        "int16": (TensorProto.INT16, ints),
        "int32": (TensorProto.INT32, ints),
        "int64": (TensorProto.INT64, [0, 1, -2, 7, -(2**40), 2**40]),
        "uint8": (TensorProto.UINT8, [0, 1, 2, 7, 255, 3]),
        "uint16": (TensorProto.UINT16, [0, 1, 2, 7, 65535, 3]),
        "uint32": (TensorProto.UINT32, [0, 1, 2, 7, 2**32 - 1, 3]),
        "uint64": (TensorProto.UINT64, [0, 1, 2, 7, 2**40, 3]),
        "int4": (TensorProto.INT4, ints),
        "uint4": (TensorProto.UINT4, [0, 1, 2, 7, 15, 3]),
        "int2": (TensorProto.INT2, [0, 1, -2, -1, 1, 0]),
        "uint2": (TensorProto.UINT2, [0, 1, 2, 3, 1, 0]),
        "bool": (TensorProto.BOOL, [True, False, True, True, False, False]),
    }
    for name, (code, values) in cases.items():
        typed = helper.make_tensor(name, code, [2, 3], values)
        with open(os.path.join(out, f"{name}_typed.pb"), "wb") as f:
            f.write(typed.SerializeToString())
        array = numpy_helper.to_array(typed)
        raw = numpy_helper.from_array(array, name)
        with open(os.path.join(out, f"{name}_raw.pb"), "wb") as f:
            f.write(raw.SerializeToString())
        expected[name] = {"dims": [2, 3], "values": [float(v) if isinstance(v, float) else int(v) for v in array.astype(np.float64).flatten().tolist()]}
    strings = helper.make_tensor("string", TensorProto.STRING, [3], [b"a", b"", "h\u00e9".encode()])
    with open(os.path.join(out, "string_typed.pb"), "wb") as f:
        f.write(strings.SerializeToString())
    expected["string"] = {"dims": [3], "values": ["a", "", "h\u00e9"]}
    scalar = numpy_helper.from_array(np.array(3.5, dtype=np.float32), "scalar")
    with open(os.path.join(out, "scalar_raw.pb"), "wb") as f:
        f.write(scalar.SerializeToString())
    expected["scalar"] = {"dims": [], "values": [3.5]}
    empty = numpy_helper.from_array(np.zeros((0, 4), dtype=np.int64), "empty")
    with open(os.path.join(out, "empty_raw.pb"), "wb") as f:
        f.write(empty.SerializeToString())
    expected["empty"] = {"dims": [0, 4], "values": []}
    with open(os.path.join(out, "tensors.json"), "w") as f:
        json.dump(expected, f, indent=1)
    print("wrote tensor fixtures")


def gemm_tanh_no_bias():
    """What torch's exporter writes for a BERT pooler: Gemm(A[1,128], W[128,64]) without its bias,
    then Tanh. ONNX Runtime's DirectML fuses the pair into a DmlFusedGemm that wants 3 inputs and
    rejects it; --gemm-zero-bias gives the Gemm an explicit zero bias. Also written as float16."""
    import numpy as np
    from onnx import numpy_helper

    rng = np.random.default_rng(46)
    for suffix, elem, np_type in (("", TensorProto.FLOAT, np.float32), ("_fp16", TensorProto.FLOAT16, np.float16)):
        weight = numpy_helper.from_array((rng.standard_normal((128, 64)) * 0.1).astype(np_type), "pooler.weight")
        a = helper.make_tensor_value_info("hidden", elem, [1, 128])
        y = helper.make_tensor_value_info("pooled", elem, [1, 64])
        graph = helper.make_graph(
            [
                helper.make_node("Gemm", ["hidden", "pooler.weight"], ["gemm_out"], name="node_Gemm_26"),
                helper.make_node("Tanh", ["gemm_out"], ["pooled"], name="node_tanh"),
            ],
            "pooler",
            [a],
            [y],
            initializer=[weight],
        )
        save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), f"gemm_tanh_no_bias{suffix}.onnx")


def gemm_gelu():
    """A Gemm without its bias, then a com.microsoft Gelu: `reduce --gemm-zero-bias` under the
    Gelu approximation (tests/reduce.rs) searches the model it rewrote, and must name the user's
    file and the rewrite, never the temporary one."""
    import numpy as np
    from onnx import numpy_helper

    rng = np.random.default_rng(45)
    weight = numpy_helper.from_array(rng.standard_normal((8, 8)).astype(np.float32), "weight")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8])
    nodes = [
        helper.make_node("Gemm", ["x", "weight"], ["h"], name="project"),
        helper.make_node("Gelu", ["h"], ["y"], name="gelu", domain="com.microsoft"),
    ]
    graph = helper.make_graph(nodes, "gemm_gelu", [x], [y], initializer=[weight])
    model = helper.make_model(
        graph, opset_imports=opset() + [helper.make_opsetid("com.microsoft", 1)], producer_name="dmlrun-tests"
    )
    model.ir_version = IR_VERSION
    onnx.save(model, os.path.join(OUT, "gemm_gelu.onnx"))  # the checker knows no com.microsoft ops
    print("wrote gemm_gelu.onnx")


def beyond_float16():
    """x * 300 * 300, moved, / 300 / 300: x again, through a tensor of 90000 for x = 1, beyond
    float16's largest (65504). In float16 on an EP with float16 kernels (DirectML) that tensor is
    infinite and so is the output; `dmlrun fix --precision fp16` keeps the three nodes that touch
    it in float32. (The CPU EP computes float16 nodes in float32 and never shows it.)"""
    import numpy as np
    from onnx import numpy_helper

    k = numpy_helper.from_array(np.array(300.0, dtype=np.float32), "k")
    graph = helper.make_graph(
        [
            helper.make_node("Mul", ["x", "k"], ["a"], name="scale_up"),
            helper.make_node("Mul", ["a", "k"], ["b"], name="beyond_float16"),
            helper.make_node("Transpose", ["b"], ["t"], name="moved", perm=[1, 0]),
            helper.make_node("Div", ["t", "k"], ["c"], name="back_in_range"),
            helper.make_node("Div", ["c", "k"], ["y"], name="scale_down"),
        ],
        "beyond_float16",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 2])],
        initializer=[k],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "beyond_float16.onnx")


def matmul_weights():
    """Five MatMuls, one of each kind `--precision int4|int8` treats apart: `whole` (a float32
    weight [64, 48], whole 32-blocks: converted), `partial` ([48, 32], K 48 is 1.5 blocks of 32:
    converted on the CPU as ONNX Runtime's quantizer pads it, left on DirectML), `computed` (its
    weight a Transpose's output: left), `batched` (a weight [2, 32, 32]: left) and `head` ([32, 10],
    the one a test keeps with --keep-fp32 'head*')."""
    import numpy as np
    from onnx import numpy_helper

    rng = np.random.default_rng(65)
    # Scaled by 1/sqrt(K), so values keep their size through the chain (as a trained model's do).
    def weight(name, *shape):
        return numpy_helper.from_array((rng.standard_normal(shape) / np.sqrt(shape[-2])).astype(np.float32), name)

    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "W_whole"], ["a"], name="whole"),
            helper.make_node("MatMul", ["a", "W_partial"], ["b"], name="partial"),
            helper.make_node("Transpose", ["W_square"], ["W_computed"], name="transposed", perm=[1, 0]),
            helper.make_node("MatMul", ["b", "W_computed"], ["c"], name="computed"),
            helper.make_node("Unsqueeze", ["c", "axis0"], ["c3"], name="unsqueezed"),
            helper.make_node("MatMul", ["c3", "W_batched"], ["d3"], name="batched"),
            helper.make_node("ReduceSum", ["d3", "axis0"], ["d"], name="summed", keepdims=0),
            helper.make_node("MatMul", ["d", "W_head"], ["y"], name="head"),
        ],
        "matmul_weights",
        [dim_value_info("x", TensorProto.FLOAT, ["N", 64])],
        [dim_value_info("y", TensorProto.FLOAT, ["N", 10])],
        initializer=[
            weight("W_whole", 64, 48),
            weight("W_partial", 48, 32),
            weight("W_square", 32, 32),
            weight("W_batched", 2, 32, 32),
            weight("W_head", 32, 10),
            numpy_helper.from_array(np.array([0], dtype=np.int64), "axis0"),
        ],
    )
    save(helper.make_model(graph, opset_imports=opset(), producer_name="dmlrun-tests"), "matmul_weights.onnx")


ALL = [
    "matmul_weights",
    "add_mul",
    "sub_broadcast",
    "if_add_sub",
    "if_rate",
    "paddle_unsized",
    "hard_swish",
    "div_max_min",
    "pooled_scale",
    "int64_ids",
    "nhwc_channel_mean",
    "split_rows",
    "endless_loop",
    "conv_free_hw",
    "zipmap_classifier",
    "identity_image",
    "unnamed_dims",
    "token_types",
    "gelu_chain",
    "gelu_hang",
    "external_weights",
    "unknown_op",
    "unread_output",
    "gemm_tanh_no_bias",
    "gemm_gelu",
    "tensor_fixtures",
    "beyond_float16",
]


if __name__ == "__main__":
    # With names (`make_test_models.py gelu_hang`), only those; without, every one.
    import sys

    os.makedirs(OUT, exist_ok=True)
    for name in sys.argv[1:] or ALL:
        globals()[name]()
