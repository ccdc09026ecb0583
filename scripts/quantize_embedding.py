#!/usr/bin/env python3
"""Copies an onnxruntime-genai folder with its decoder's embedding quantized as the model
builder's int4 decoders hold it (`-p int4`): the `Gather` over `model.embed_tokens.weight`
becomes a `GatherBlockQuantized` (`com.microsoft`) over uint8 data of 4-bit values, block 32,
symmetric (no zero points: ONNX Runtime's kernel takes 8 as the zero point), scales in the
table's type. DirectML has no kernel for it, so the node runs on the CPU and the decode step's
graph capture is refused: what `dmlrun fix` must find (`--dequantize-gather`). For scripts/wine-check.

    python3 scripts/quantize_embedding.py IN_FOLDER OUT_FOLDER
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

BLOCK = 32


def quantize(table):
    """Per row, blocks of 32 along the hidden axis: scale = max|x| / 7 (symmetric 4-bit), values
    rounded to [-8, 7] and stored with 8 added, two a byte, the low nibble first."""
    rows, hidden = table.shape
    blocks = table.astype(np.float32).reshape(rows, hidden // BLOCK, BLOCK)
    scale = np.abs(blocks).max(axis=2, keepdims=True) / 7.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(blocks / scale), -8, 7).astype(np.int32) + 8
    q = q.reshape(rows, hidden).astype(np.uint8)
    packed = (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)
    return packed, scale.reshape(rows, hidden // BLOCK).astype(table.dtype)


def main():
    source, target = sys.argv[1], sys.argv[2]
    shutil.copytree(source, target)
    path = os.path.join(target, "model.onnx")
    model = onnx.load(path)
    graph = model.graph
    weights = {t.name: t for t in graph.initializer}
    node = next(n for n in graph.node if n.op_type == "Gather" and n.input[0] == "model.embed_tokens.weight")
    table = numpy_helper.to_array(weights["model.embed_tokens.weight"])
    if table.shape[1] % BLOCK:
        sys.exit(f"the hidden size {table.shape[1]} is not a whole number of {BLOCK}-blocks")
    packed, scales = quantize(table)
    graph.initializer.extend(
        [numpy_helper.from_array(packed, "model.embed_tokens.weight_Q4"), numpy_helper.from_array(scales, "model.embed_tokens.weight_scale")]
    )
    # The lm_head may read the float table (tied weights): it stays where another node reads it.
    if not any("model.embed_tokens.weight" in n.input for n in graph.node if n is not node):
        graph.initializer.remove(weights["model.embed_tokens.weight"])
    quantized = helper.make_node(
        "GatherBlockQuantized",
        ["model.embed_tokens.weight_Q4", node.input[1], "model.embed_tokens.weight_scale"],
        list(node.output),
        name="/model/embed_tokens/GatherBlockQuantized",
        domain="com.microsoft",
        bits=4,
        block_size=BLOCK,
        gather_axis=0,
        quantize_axis=1,
    )
    index = list(graph.node).index(node)
    graph.node.remove(node)
    graph.node.insert(index, quantized)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    data = os.path.join(target, "model.onnx.data")
    if os.path.exists(data):
        os.remove(data)
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location="model.onnx.data")


if __name__ == "__main__":
    main()
