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


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    add_mul()
    int64_ids()
    nhwc_channel_mean()
    unknown_op()
