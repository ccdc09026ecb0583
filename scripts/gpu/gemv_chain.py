#!/usr/bin/env python3
"""A chain of one-row products, as a decoder's step holds them: x [1, 896] through 8 MatMuls with
random weights [896, 896] (float32), each followed by a Tanh to keep the values in range. What
`dmlrun tune` is measured on for `--matmul-as-mul-reducesum` (GPU_STEPS=tune).

    gemv_chain.py OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

K = 896
LAYERS = 8

rng = np.random.default_rng(896)
nodes, inits = [], []
previous = "x"
for i in range(LAYERS):
    w = (rng.standard_normal((K, K)) / np.sqrt(K)).astype(np.float32)
    inits.append(numpy_helper.from_array(w, f"w{i}"))
    nodes.append(helper.make_node("MatMul", [previous, f"w{i}"], [f"p{i}"], name=f"mm{i}"))
    nodes.append(helper.make_node("Tanh", [f"p{i}"], [f"t{i}"], name=f"tanh{i}"))
    previous = f"t{i}"
graph = helper.make_graph(nodes, "gemv_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, K])],
                          [helper.make_tensor_value_info(previous, TensorProto.FLOAT, [1, K])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
