#!/usr/bin/env python3
"""Writes small quantized models, for tests/quantized.rs and tests/rewrite.rs: the forms the
models DirectML users deploy hold, made here with `onnx.helper` (each a few KB).

- `gbq_*.onnx`: one `GatherBlockQuantized` (`com.microsoft`) over a constant table, as the model
  builder's int4 decoders quantize their embedding: uint8 data of 2, 4 and 8 bits with and
  without zero points, ONNX's uint4 and int4 types, float and float16 scales. Input `ids`
  (int64, values 0..7), output `y`.

- with `--int8` (needs onnxruntime): `convnet_fp32.onnx`, a small float32 classifier (two
  Conv, Relu, GlobalAveragePool, Gemm, Softmax; input `image` [1, 3, 32, 32]), and it through
  ONNX Runtime's `quantize_static` (calibrated on 8 seeded random images): `convnet_qdq_pc`
  (QDQ, int8 weights per channel), `convnet_qdq_pt` (QDQ, per tensor) and `convnet_qop`
  (QOperator: QLinearConv, QLinearMatMul...).

- `gbq_tied.onnx`: the builder's tied int4 embedding: the lm_head's MatMulNBits weight
  ([vocab, K/32, 16] uint8, symmetric) read by the MatMulNBits and, through a `Reshape` to
  [vocab, K/2] (its shape a `Constant` node), by a GatherBlockQuantized. Inputs `ids` and
  `hidden` [1, 64]; outputs `y` (the rows) and `logits`.
  `gbq_tied_external.onnx`: the same, every tensor in `gbq_tied_external.onnx.data`.

- `nbits_k48_partial`, `nbits_fp16_zp`, `nbits_fp16_symmetric`, `nbits_8b`, `nbits_2b`,
  `nbits_block128_bias` (`.onnx`): one MatMulNBits each (K 64, N 16, block 32, 4 bits, uint8
  zero points, float32 unless named): K 48 (a partial last block), float16 scales and input with
  zero points and without, 8 and 2 bits, K 256 in blocks of 128 with a bias. `nbits_wide_8b.onnx`:
  K 1024, N 2048, 8 bits, no zero points, no accuracy level (for `dmlrun tune`).

- `nbits_bias.onnx`, `nbits_g_idx.onnx`, `nbits_g_idx_zp.onnx`, `nbits_g_idx_reordered.onnx`:
  one MatMulNBits (K 64, N 16, block 32, 4 bits) with a bias (and uint8 zero points); with a
  g_idx saying what the blocks say (row k in block k / 32), without zero points and with them;
  with a g_idx that reorders rows (act-order). Input `a` [2, 64], output `y`.

- `qdq_softmax_mul.onnx`: a QDQ chain as `quantize_static` writes one (uint8 activations, per
  tensor): x [1, 16] quantized and dequantized, a Softmax, its QuantizeLinear-DequantizeLinear
  pair, a Mul by a constant dequantized from uint8, its pair, output `y` (the last
  DequantizeLinear's). ONNX Runtime's QDQ fusion makes QLinearSoftmax and QLinearMul of it;
  `--drop-qdq-pair` drops both pairs.

Each is listed in `cases.json` with what it holds.

    python3 scripts/make_quantized_models.py OUT_DIR [--seed N] [--int8]
"""
import argparse
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 8
ROWS = 8


def contrib_model(graph, ir_version=IR_VERSION):
    """`graph` as a model of the default domain (opset 17) and com.microsoft's."""
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
        producer_name="dmlrun-tests",
    )
    model.ir_version = ir_version
    return model


def packed(values, bits):
    """Values of `bits` each, packed into bytes lowest bits first, along the last axis."""
    per_byte = 8 // bits
    rows = values.reshape(-1, values.shape[-1])
    width = -(-rows.shape[1] // per_byte)
    out = np.zeros((rows.shape[0], width), dtype=np.uint8)
    for i in range(rows.shape[1]):
        out[:, i // per_byte] |= (rows[:, i].astype(np.uint8) & ((1 << bits) - 1)) << ((i % per_byte) * bits)
    return out.reshape(values.shape[:-1] + (width,))


def gbq_model(rng, name, *, data_type, bits, block, k, zero_points, scale_type, quantize_axis=1, gather_axis=0):
    """One GatherBlockQuantized over a [ROWS, k] table (or [k, ROWS] gathered on axis 1)."""
    np_scale = np.float16 if scale_type == "float16" else np.float32
    shape = (ROWS, k) if gather_axis == 0 else (k, ROWS)
    blocks = -(-k // block)
    scale_shape = list(shape)
    scale_shape[quantize_axis] = blocks
    scales = (rng.random(scale_shape) * 0.1 + 0.01).astype(np_scale)
    inits = []
    if data_type == "uint8":
        q = rng.integers(0, 1 << bits, size=shape)
        data = numpy_helper.from_array(packed(q, bits) if bits < 8 else q.astype(np.uint8), "table")
    else:
        low, high = (-8, 8) if data_type == "int4" else (0, 16)
        q = rng.integers(low, high, size=shape)
        elem = TensorProto.INT4 if data_type == "int4" else TensorProto.UINT4
        data = helper.make_tensor("table", elem, list(shape), q.flatten().tolist())
    inits += [data, numpy_helper.from_array(scales, "scales")]
    inputs = ["table", "ids", "scales"]
    if zero_points:
        if data_type == "uint8":
            zp = rng.integers(0, 1 << bits, size=scale_shape)
            inits.append(numpy_helper.from_array(packed(zp, bits) if bits < 8 else zp.astype(np.uint8), "zero_points"))
        else:
            low, high = (-8, 8) if data_type == "int4" else (0, 16)
            zp = rng.integers(low, high, size=scale_shape)
            elem = TensorProto.INT4 if data_type == "int4" else TensorProto.UINT4
            inits.append(helper.make_tensor("zero_points", elem, scale_shape, zp.flatten().tolist()))
        inputs.append("zero_points")
    node = helper.make_node(
        "GatherBlockQuantized",
        inputs,
        ["y"],
        name="embed",
        domain="com.microsoft",
        gather_axis=gather_axis,
        quantize_axis=quantize_axis,
        block_size=block,
        bits=bits,
    )
    out_shape = [3, k] if gather_axis == 0 else [k, 3]
    elem_out = TensorProto.FLOAT16 if scale_type == "float16" else TensorProto.FLOAT
    graph = helper.make_graph(
        [node],
        name,
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [3])],
        [helper.make_tensor_value_info("y", elem_out, out_shape)],
        initializer=inits,
    )
    # ONNX's 4-bit types need IR 10.
    return contrib_model(graph, 10 if data_type != "uint8" else IR_VERSION)


GBQ_CASES = [
    # The builder's embedding: uint8 holding int4, block 32, symmetric, float16 scales.
    dict(data_type="uint8", bits=4, block=32, k=64, zero_points=False, scale_type="float16"),
    dict(data_type="uint8", bits=4, block=16, k=48, zero_points=True, scale_type="float32"),
    # K not a whole number of blocks, an odd count of zero points a row.
    dict(data_type="uint8", bits=4, block=16, k=40, zero_points=True, scale_type="float16"),
    dict(data_type="uint8", bits=8, block=16, k=32, zero_points=True, scale_type="float16"),
    dict(data_type="uint8", bits=2, block=16, k=64, zero_points=True, scale_type="float32"),
    dict(data_type="uint4", bits=4, block=16, k=32, zero_points=False, scale_type="float32"),
    dict(data_type="int4", bits=4, block=16, k=32, zero_points=True, scale_type="float16"),
    # Gathered along axis 1, quantized along axis 0 (ONNX's 4-bit types allow it).
    dict(data_type="int4", bits=4, block=16, k=32, zero_points=True, scale_type="float32", quantize_axis=0, gather_axis=1),
]


def tied(rng):
    vocab, k, block = 8, 64, 32
    q = rng.integers(0, 16, size=(vocab, k))
    weight = packed(q, 4).reshape(vocab, k // block, block // 2)
    scales = (rng.random((vocab, k // block)) * 0.1 + 0.01).astype(np.float16)
    nodes = [
        helper.make_node(
            "Constant",
            [],
            ["shape"],
            name="shape_constant",
            value=numpy_helper.from_array(np.array([vocab, k // 2], dtype=np.int64)),
        ),
        helper.make_node("Reshape", ["lm_head.MatMul.weight_Q4", "shape"], ["table"], name="embed_reshape"),
        helper.make_node(
            "GatherBlockQuantized",
            ["table", "ids", "lm_head.MatMul.weight_scales"],
            ["y"],
            name="embed",
            domain="com.microsoft",
            bits=4,
            block_size=block,
            gather_axis=0,
            quantize_axis=1,
        ),
        helper.make_node(
            "MatMulNBits",
            ["hidden", "lm_head.MatMul.weight_Q4", "lm_head.MatMul.weight_scales"],
            ["logits"],
            name="lm_head",
            domain="com.microsoft",
            K=k,
            N=vocab,
            bits=4,
            block_size=block,
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "gbq_tied",
        [
            helper.make_tensor_value_info("ids", TensorProto.INT64, [3]),
            helper.make_tensor_value_info("hidden", TensorProto.FLOAT16, [1, k]),
        ],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT16, [3, k]),
            helper.make_tensor_value_info("logits", TensorProto.FLOAT16, [1, vocab]),
        ],
        initializer=[
            numpy_helper.from_array(weight, "lm_head.MatMul.weight_Q4"),
            numpy_helper.from_array(scales, "lm_head.MatMul.weight_scales"),
        ],
    )
    return contrib_model(graph)


def nbits(rng, name, *, bias=False, g_idx=None, zero_points=True, k=64, n=16, block=32, bits=4, dtype=np.float32):
    """One MatMulNBits with the optional inputs asked for (K may end in a partial block)."""
    blocks = -(-k // block)
    q = rng.integers(0, 1 << bits, size=(n, blocks * block))
    q[:, k:] = 0  # the padding of a partial last block
    weight = packed(q, bits).reshape(n, blocks, block * bits // 8)
    scales = (rng.random(n * blocks) * 0.1 + 0.01).astype(dtype)
    zero_point_bytes = packed(rng.integers(0, 1 << bits, size=(n, blocks)), bits).reshape(-1)
    suffix = "Q4" if bits == 4 else f"Q{bits}"
    inits = [numpy_helper.from_array(weight, f"W_{suffix}"), numpy_helper.from_array(scales, "W_scales")]
    inputs = ["a", f"W_{suffix}", "W_scales", ""]
    if zero_points:
        inits.append(numpy_helper.from_array(zero_point_bytes, "W_zero_points"))
        inputs[3] = "W_zero_points"
    if g_idx is not None:
        inits.append(numpy_helper.from_array(g_idx.astype(np.int32), "W_g_idx"))
        inputs.append("W_g_idx")
    if bias:
        inits.append(numpy_helper.from_array((rng.standard_normal(n) * 0.5).astype(dtype), "W_bias"))
        inputs += [""] * (5 - len(inputs)) + ["W_bias"]
    while inputs[-1] == "":
        inputs.pop()
    node = helper.make_node(
        "MatMulNBits", inputs, ["y"], name="proj", domain="com.microsoft", K=k, N=n, bits=bits, block_size=block
    )
    element = TensorProto.FLOAT16 if dtype == np.float16 else TensorProto.FLOAT
    graph = helper.make_graph(
        [node],
        name,
        [helper.make_tensor_value_info("a", element, [2, k])],
        [helper.make_tensor_value_info("y", element, [2, n])],
        initializer=inits,
    )
    return contrib_model(graph)


def qdq_softmax_mul(rng):
    """x -> Q -> DQ -> Softmax -> Q -> DQ -> Mul(DQ(w)) -> Q -> DQ -> y, uint8 per tensor."""
    def scalar(name, value, data_type):
        return helper.make_tensor(name, data_type, [], [value])

    weight = rng.integers(64, 256, size=(1, 16)).astype(np.uint8)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["x_q"], name="x_quant"),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero"], ["x_dq"], name="x_dequant"),
        helper.make_node("Softmax", ["x_dq"], ["p"], name="softmax", axis=1),
        helper.make_node("QuantizeLinear", ["p", "p_scale", "p_zero"], ["p_q"], name="p_quant"),
        helper.make_node("DequantizeLinear", ["p_q", "p_scale", "p_zero"], ["p_dq"], name="p_dequant"),
        helper.make_node("DequantizeLinear", ["w_q", "w_scale", "w_zero"], ["w"], name="w_dequant"),
        helper.make_node("Mul", ["p_dq", "w"], ["m"], name="mul"),
        helper.make_node("QuantizeLinear", ["m", "m_scale", "m_zero"], ["m_q"], name="m_quant"),
        helper.make_node("DequantizeLinear", ["m_q", "m_scale", "m_zero"], ["y"], name="m_dequant"),
    ]
    graph = helper.make_graph(
        nodes,
        "qdq_softmax_mul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])],
        initializer=[
            scalar("x_scale", 8 / 255, TensorProto.FLOAT), scalar("x_zero", 128, TensorProto.UINT8),
            scalar("p_scale", 1 / 255, TensorProto.FLOAT), scalar("p_zero", 0, TensorProto.UINT8),
            numpy_helper.from_array(weight, "w_q"),
            scalar("w_scale", 2 / 255, TensorProto.FLOAT), scalar("w_zero", 0, TensorProto.UINT8),
            scalar("m_scale", 2 / 255, TensorProto.FLOAT), scalar("m_zero", 0, TensorProto.UINT8),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="dmlrun-tests")
    model.ir_version = IR_VERSION
    return model


def convnet(rng):
    def weight(name, *shape):
        return numpy_helper.from_array((rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:]))).astype(np.float32), name)

    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2", pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["pooled"], name="pool"),
        helper.make_node("Flatten", ["pooled"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "w3", "b3"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "convnet",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 10])],
        initializer=[
            weight("w1", 16, 3, 3, 3),
            numpy_helper.from_array((rng.standard_normal(16) * 0.1).astype(np.float32), "b1"),
            weight("w2", 32, 16, 3, 3),
            numpy_helper.from_array((rng.standard_normal(32) * 0.1).astype(np.float32), "b2"),
            weight("w3", 10, 32),
            numpy_helper.from_array((rng.standard_normal(10) * 0.1).astype(np.float32), "b3"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="dmlrun-tests")
    model.ir_version = IR_VERSION
    return model


def int8_models(rng, out):
    """The float32 convnet and three int8 forms of it from ONNX Runtime's quantize_static."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Images(CalibrationDataReader):
        def __init__(self):
            self.batches = iter([{"image": rng.random((1, 3, 32, 32)).astype(np.float32)} for _ in range(8)])

        def get_next(self):
            return next(self.batches, None)

    source = os.path.join(out, "convnet_fp32.onnx")
    onnx.save(convnet(rng), source)
    cases = [dict(file="convnet_fp32.onnx", kind="int8_source")]
    forms = [
        ("convnet_qdq_pc", QuantFormat.QDQ, True),
        ("convnet_qdq_pt", QuantFormat.QDQ, False),
        ("convnet_qop", QuantFormat.QOperator, False),
    ]
    for name, quant_format, per_channel in forms:
        quantize_static(
            source,
            os.path.join(out, name + ".onnx"),
            Images(),
            quant_format=quant_format,
            per_channel=per_channel,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )
        cases.append(dict(file=name + ".onnx", kind="int8", format=quant_format.name, per_channel=per_channel))
    return cases


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=64)
    parser.add_argument("--int8", action="store_true", help="also the int8 forms of a small classifier (needs onnxruntime)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    cases = []
    for i, case in enumerate(GBQ_CASES):
        name = "gbq_{}_{}b_k{}_{}{}".format(
            case["data_type"], case["bits"], case["k"], case["scale_type"], "_zp" if case["zero_points"] else ""
        )
        name += "_axis{}".format(case.get("gather_axis", 0)) if case.get("gather_axis") else ""
        model = gbq_model(rng, name, **case)
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(args.out, name + ".onnx"))
        cases.append(dict(file=name + ".onnx", kind="gather_block_quantized", **case))
    model = tied(rng)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(args.out, "gbq_tied.onnx"))
    cases.append(dict(file="gbq_tied.onnx", kind="gather_block_quantized_tied"))
    # The same with every tensor in external data, as the builder writes its folders: the rewrite
    # reads the one table it needs from the data file, and what it writes keeps a data file.
    onnx.save(model, os.path.join(args.out, "gbq_tied_external.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="gbq_tied_external.onnx.data", size_threshold=0)
    cases.append(dict(file="gbq_tied_external.onnx", kind="tied_in_external_data"))
    k, block = 64, 32
    forms = [
        ("nbits_bias", dict(bias=True)),
        ("nbits_g_idx", dict(g_idx=np.arange(k) // block, zero_points=False)),
        ("nbits_g_idx_zp", dict(g_idx=np.arange(k) // block)),
        ("nbits_g_idx_reordered", dict(g_idx=rng.permutation(np.arange(k) // block), zero_points=False)),
    ]
    for name, optional in forms:
        model = nbits(rng, name, **optional)
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(args.out, name + ".onnx"))
        cases.append(dict(file=name + ".onnx", kind="matmul_nbits_inputs"))
    # For --dequantize-matmulnbits: 4 bits with a partial last block (K 48 of 32-blocks), float16
    # with and without zero points, 8 and 2 bits, block 128 as AWQ folders have it, a bias.
    forms = [
        ("nbits_k48_partial", dict(k=48)),
        ("nbits_fp16_zp", dict(dtype=np.float16)),
        ("nbits_fp16_symmetric", dict(dtype=np.float16, zero_points=False)),
        ("nbits_8b", dict(bits=8)),
        ("nbits_2b", dict(bits=2)),
        ("nbits_block128_bias", dict(k=256, block=128, bias=True)),
    ]
    for name, shape in forms:
        model = nbits(rng, name, **shape)
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(args.out, name + ".onnx"))
        cases.append(dict(file=name + ".onnx", kind="matmul_nbits_dequantized", **{
            key: str(value) if key == "dtype" else value for key, value in shape.items()}))
    model = qdq_softmax_mul(rng)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(args.out, "qdq_softmax_mul.onnx"))
    cases.append(dict(file="qdq_softmax_mul.onnx", kind="qdq_pairs"))
    # Last, so the models above keep their random values. For dmlrun tune: a wide int8 MatMulNBits (K 1024, N 2048) without an accuracy level, which
    # ONNX Runtime's CPU kernel dequantizes on every run.
    wide = nbits(rng, "nbits_wide_8b", k=1024, n=2048, bits=8, zero_points=False)
    onnx.checker.check_model(wide)
    onnx.save(wide, os.path.join(args.out, "nbits_wide_8b.onnx"))
    cases.append(dict(file="nbits_wide_8b.onnx", kind="tune_accuracy_level"))
    if args.int8:
        cases += int8_models(rng, args.out)
    with open(os.path.join(args.out, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)


if __name__ == "__main__":
    main()
