#!/usr/bin/env python3
"""`dmlrun --precision int4|int8` against ONNX Runtime's own weight-only quantizer
(onnxruntime.quantization.matmul_nbits_quantizer, its default: QOperator, RTN), byte for byte.

For every combination of bits (4, 8), symmetric or not, and block size (16, 32, 64, 128, 256),
one model of MatMuls whose weights cover the cases the quantizer treats apart: float32 and
float16; K a whole number of blocks (an even and an odd number of them) and not (a partial last
block, an odd K, a K just past a 2-block stretch, K = 1); an odd N; a block of zeros; values on
the quantization grid, whose halves test the rounding. Each model goes through
`dmlrun run --precision ... --save-model` (CPU EP) and through Python's quantizer; the check:

1. the same MatMuls converted, the same MatMulNBits nodes (inputs, attributes), the same new
   initializers (name, type, shape) and their bytes equal, byte for byte;
2. the saved model alone and Python's quantized model give the same outputs, bit for bit, on
   Python ONNX Runtime with the same inputs;
3. `dmlrun --ep cpu` keeps no MatMul that Python converts, and the record in metadata_props says
   what was done;
4. the accuracy level: dmlrun's CPU EP default (4, the int8 kernels) against the quantizer given
   `accuracy_level=4`, and `--accuracy-level 0` (the attribute left out) against its default.

    quantize_check.py WORKDIR   (DMLRUN names the binary)

Prints one line per combination; exit 1 on any difference.
"""
import itertools
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer


def weights(block, rng):
    """(name, K, N, dtype, values) of every case for one block size."""
    cases = []
    ks = {
        "whole-even": 2 * block,
        "whole-odd": 3 * block,
        "partial": 2 * block + block // 2 + 1,
        "past-stretch": 2 * block + 1,
        "one-row": 1,
    }
    for dtype, (label, k) in itertools.product((np.float32, np.float16), ks.items()):
        w = rng.standard_normal((k, 5)).astype(np.float32)
        cases.append((f"{label}_{np.dtype(dtype).name}", k, 5, dtype, w))
    zeros = rng.standard_normal((2 * block, 3)).astype(np.float32)
    zeros[:block, 1] = 0.0
    cases.append(("zero-block_float32", 2 * block, 3, np.float32, zeros))
    # Multiples of 1/8 up to 1: v / scale lands on halves, where rounding decides.
    grid = (rng.integers(-8, 9, size=(2 * block, 4)) / 8.0).astype(np.float32)
    cases.append(("grid_float32", 2 * block, 4, np.float32, grid))
    cases.append(("grid_float16", 2 * block, 4, np.float16, grid))
    return cases


def model(cases, path):
    nodes, inputs, outputs, inits = [], [], [], []
    for name, k, n, dtype, w in cases:
        elem = TensorProto.FLOAT16 if dtype == np.float16 else TensorProto.FLOAT
        inputs.append(helper.make_tensor_value_info(f"x_{name}", elem, [2, k]))
        outputs.append(helper.make_tensor_value_info(f"y_{name}", elem, [2, n]))
        inits.append(numpy_helper.from_array(w.astype(dtype), f"W_{name}"))
        nodes.append(helper.make_node("MatMul", [f"x_{name}", f"W_{name}"], [f"y_{name}"], name=f"mm_{name}"))
    graph = helper.make_graph(nodes, "quantize_check", inputs, outputs, inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)


def python_quantized(source, bits, block, symmetric, accuracy_level, path):
    config = DefaultWeightOnlyQuantConfig(block_size=block, is_symmetric=symmetric, bits=bits, accuracy_level=accuracy_level)
    quantizer = MatMulNBitsQuantizer(onnx.load(source), algo_config=config)
    quantizer.process()
    quantizer.model.save_model_to_file(path)


def tensors(m):
    return {t.name: (t.data_type, list(t.dims), numpy_helper.to_array(t).tobytes()) for t in m.graph.initializer}


def nodes(m):
    return {n.name: (n.op_type, n.domain, list(n.input), list(n.output), [helper.get_attribute_value(a) for a in n.attribute], [a.name for a in n.attribute]) for n in m.graph.node}


def same_outputs(a, b, source, rng):
    feeds = {}
    for i in onnx.load(source).graph.input:
        shape = [d.dim_value for d in i.type.tensor_type.shape.dim]
        dtype = np.float16 if i.type.tensor_type.elem_type == TensorProto.FLOAT16 else np.float32
        feeds[i.name] = rng.standard_normal(shape).astype(dtype)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    ra = ort.InferenceSession(a, options, providers=["CPUExecutionProvider"]).run(None, feeds)
    rb = ort.InferenceSession(b, options, providers=["CPUExecutionProvider"]).run(None, feeds)
    return all(x.tobytes() == y.tobytes() for x, y in zip(ra, rb))


def check(work, bits, symmetric, block, rng):
    tag = f"int{bits}-{'sym' if symmetric else 'asym'}-b{block}"
    source = os.path.join(work, f"{tag}.onnx")
    cases = weights(block, rng)
    model(cases, source)
    theirs = os.path.join(work, f"{tag}.python.onnx")
    ours = os.path.join(work, f"{tag}.dmlrun.onnx")
    # dmlrun's CPU EP default is accuracy level 4 (its int8 kernels); the asymmetric forms are
    # asked for level 0, which leaves the attribute out, as the quantizer's own default does.
    accuracy_level = 4 if symmetric else None
    python_quantized(source, bits, block, symmetric, accuracy_level, theirs)
    cmd = [os.environ["DMLRUN"], source, "--ep", "cpu", "--precision", f"int{bits}", "--block-size", str(block),
           "--generate", "random", "--iterations", "1", "-q", "--save-model", ours]
    if not symmetric:
        cmd += ["--asymmetric", "--accuracy-level", "0"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    a, b = onnx.load(theirs), onnx.load(ours)
    problems = []
    ta, tb = tensors(a), tensors(b)
    new = sorted(set(ta) - {f"W_{c[0]}" for c in cases})
    if sorted(ta) != sorted(tb):
        problems.append(f"initializers differ: python {sorted(ta)} dmlrun {sorted(tb)}")
    compared = 0
    for name in new:
        if name in tb and ta[name] != tb[name]:
            what = "bytes" if ta[name][:2] == tb[name][:2] else f"type/shape {ta[name][:2]} vs {tb[name][:2]}"
            problems.append(f"{name}: {what} differ")
        compared += len(ta[name][2])
    na, nb = nodes(a), nodes(b)
    if na != nb:
        problems.append(f"nodes differ: {sorted(set(na.items()) ^ set(nb.items()), key=str)[:2]}")
    converted = sum(1 for n in a.graph.node if n.op_type == "MatMulNBits")
    if converted != len(cases):
        problems.append(f"python converted {converted} of {len(cases)}")
    if not problems and not same_outputs(theirs, ours, source, rng):
        problems.append("outputs differ")
    record = {p.key: p.value for p in b.metadata_props}
    if record.get("dmlrun.precision") != f"int{bits}":
        problems.append(f"metadata_props: dmlrun.precision is {record.get('dmlrun.precision')!r}")
    levels = {helper.get_attribute_value(a) for n in b.graph.node for a in n.attribute if a.name == "accuracy_level"}
    if levels != ({accuracy_level} if accuracy_level else set()):
        problems.append(f"accuracy_level {levels}, not {accuracy_level}")
    verdict = "byte-exact" if not problems else "DIFFERS: " + "; ".join(problems)
    print(f"{tag:<18} {len(cases)} MatMuls, {len(new)} tensors, {compared} bytes: {verdict}", flush=True)
    return not problems


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(2026)
    print(f"onnxruntime {ort.__version__}'s quantizer against dmlrun")
    ok = True
    for bits, symmetric, block in itertools.product((4, 8), (True, False), (16, 32, 64, 128, 256)):
        ok &= check(work, bits, symmetric, block, rng)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
