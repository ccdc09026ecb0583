#!/usr/bin/env python3
"""Writes one-node models of every operator `--decompose` rewrites, for tests/rewrite.rs.

Each model holds one node of the operator with every optional output it has, as a graph
output, in float32 and float16, with shapes and axes drawn from a seeded generator (the same
seed gives the same models), and a file `cases.json` naming each model's operator, element
type and outputs. The scale, bias and skip-bias are initializers with random values, so dmlrun
generates only the data inputs.

    python3 scripts/make_rewrite_models.py OUT_DIR [--seed N] [--per-op N]
"""
import argparse
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# IR 8 loads in every ONNX Runtime dmlrun supports; RMSNormalization needs opset 23 (IR 10).
IR_VERSION = 8

TYPES = {"float32": (TensorProto.FLOAT, np.float32), "float16": (TensorProto.FLOAT16, np.float16)}


def initializer(rng, name, shape, np_type):
    return numpy_helper.from_array((rng.standard_normal(shape) * 0.5 + 1.0).astype(np_type), name)


def norm_model(rng, op, dtype, case):
    """One node of `op` over a random shape; returns (model, outputs)."""
    elem, np_type = TYPES[dtype]
    # ONNX Runtime's skip norms take rank 2 or 3 alone.
    rank = int(rng.integers(2, 4 if op.startswith("Skip") else 5))
    shape = [int(rng.integers(1, 5)) for _ in range(rank - 1)] + [int(rng.integers(4, 65))]
    x = helper.make_tensor_value_info("x", elem, shape)
    inputs, inits, attrs = [x], [], {"epsilon": float(rng.choice([1e-5, 1e-6, 1e-12]))}
    domain, opset = "", 17
    stats = TensorProto.FLOAT
    if op in ("LayerNormalization", "RMSNormalization", "SimplifiedLayerNormalization"):
        # An axis counted from the front or the back: the norm covers it and every axis after.
        axis = int(rng.integers(1, rank))
        if rng.integers(0, 2):
            axis -= rank
        attrs["axis"] = axis
        normalized = shape[axis:]
        inits.append(initializer(rng, "scale", normalized, np_type))
        node_inputs = ["x", "scale"]
        if op == "LayerNormalization":
            if case % 2 == 0:
                inits.append(initializer(rng, "bias", normalized, np_type))
                node_inputs.append("bias")
            outputs = ["y", "mean", "inv_std_dev"]
        elif op == "SimplifiedLayerNormalization":
            outputs = ["y", "inv_std_var"]
        else:
            outputs = ["y"]
            opset = 23
        reduced = [1 if i >= (axis % rank) else d for i, d in enumerate(shape)]
        out_types = [(elem, shape)] + [(stats, reduced)] * (len(outputs) - 1)
    else:
        domain = "com.microsoft"
        hidden = shape[-1]
        inputs.append(helper.make_tensor_value_info("skip", elem, shape))
        inits.append(initializer(rng, "gamma", [hidden], np_type))
        node_inputs = ["x", "skip", "gamma"]
        if op == "SkipLayerNormalization":
            inits.append(initializer(rng, "beta", [hidden], np_type))
            node_inputs.append("beta")
        if case % 2 == 0:
            inits.append(initializer(rng, "bias", [hidden], np_type))
            node_inputs.append("bias")
        elif op == "SkipLayerNormalization":
            node_inputs.append("")
        outputs = ["y", "mean", "inv_std_var", "input_skip_bias_sum"]
        reduced = shape[:-1] + [1]
        out_types = [(elem, shape), (stats, reduced), (stats, reduced), (elem, shape)]
    node = helper.make_node(op, node_inputs, outputs, name=f"{op}_{dtype}_{case}", domain=domain, **attrs)
    graph_outputs = [helper.make_tensor_value_info(n, t, s) for n, (t, s) in zip(outputs, out_types)]
    graph = helper.make_graph([node], f"{op}_{case}", inputs, graph_outputs, initializer=inits)
    imports = [helper.make_opsetid("", opset)]
    if domain:
        imports.append(helper.make_opsetid(domain, 1))
    model = helper.make_model(graph, opset_imports=imports, producer_name="dmlrun-tests")
    model.ir_version = 10 if opset >= 23 else IR_VERSION
    return model, outputs, shape


def gelu_model(rng, dtype, case):
    """One Gelu (ONNX opset 20, a function op): exact on even cases, the tanh form on odd ones."""
    elem, _ = TYPES[dtype]
    rank = int(rng.integers(1, 5))
    shape = [int(rng.integers(1, 9)) for _ in range(rank)]
    x = helper.make_tensor_value_info("x", elem, shape)
    y = helper.make_tensor_value_info("y", elem, shape)
    approximate = "none" if case % 2 == 0 else "tanh"
    node = helper.make_node("Gelu", ["x"], ["y"], name=f"Gelu_{dtype}_{case}", approximate=approximate)
    graph = helper.make_graph([node], f"Gelu_{case}", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], producer_name="dmlrun-tests")
    model.ir_version = 9
    return model, ["y"], shape


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-op", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.out, exist_ok=True)
    cases = []
    ops = [
        "LayerNormalization",
        "RMSNormalization",
        "SimplifiedLayerNormalization",
        "SkipLayerNormalization",
        "SkipSimplifiedLayerNormalization",
    ]
    for op in ops:
        for dtype in TYPES:
            for case in range(args.per_op):
                model, outputs, shape = norm_model(rng, op, dtype, case)
                name = f"{op}_{dtype}_{case}.onnx"
                onnx.save(model, os.path.join(args.out, name))
                cases.append({"file": name, "op": op, "dtype": dtype, "outputs": outputs, "shape": shape})
    # After the norms, so their cases stay what the seed made them before Gelu came.
    for dtype in TYPES:
        for case in range(args.per_op):
            model, outputs, shape = gelu_model(rng, dtype, case)
            name = f"Gelu_{dtype}_{case}.onnx"
            onnx.save(model, os.path.join(args.out, name))
            cases.append({"file": name, "op": "Gelu", "dtype": dtype, "outputs": outputs, "shape": shape})
    with open(os.path.join(args.out, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
    print(f"wrote {len(cases)} models in {args.out}")


if __name__ == "__main__":
    main()
