#!/usr/bin/env python3
"""How fast, and in how much memory, `--precision int4` quantizes a model of gigabytes, beside ONNX
Runtime's own Python quantizer on the same model, in the same run.

The model: LAYERS MatMuls of float16 weights [4096, 11008] (a 7 B decoder's MLP shape, 86 MiB
each) in external data, 1.4 GB at the default 16. dmlrun's pass (benches/quantize.rs: the pass
alone, no session) and Python's (onnx.load, MatMulNBitsQuantizer block 32 symmetric, saved with
external data) run ROUNDS times each, alternating, each in a process of its own under
/usr/bin/time for its wall time and peak resident memory.

    bench_quantize.py WORKDIR BENCH_BINARY [--layers 16] [--rounds 2]

Prints a table and writes WORKDIR/bench-quantize.json.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

K, N = 4096, 11008

PYTHON_QUANTIZE = """
import sys, onnx
from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer, DefaultWeightOnlyQuantConfig
q = MatMulNBitsQuantizer(onnx.load(sys.argv[1]), algo_config=DefaultWeightOnlyQuantConfig(block_size=32, is_symmetric=True, bits=4))
q.process()
q.model.save_model_to_file(sys.argv[2], use_external_data_format=True)
"""


def make_model(path, layers):
    rng = np.random.default_rng(7)
    nodes, inits = [], []
    for i in range(layers):
        w = rng.standard_normal((K, N), dtype=np.float32).astype(np.float16)
        inits.append(numpy_helper.from_array(w, f"W{i}"))
        nodes.append(helper.make_node("MatMul", ["x", f"W{i}"], [f"y{i}"], name=f"mm{i}"))
    graph = helper.make_graph(nodes, "bench_quantize", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, K])],
                              [helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT16, [1, N]) for i in range(layers)],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=os.path.basename(path) + ".data")


def timed(cmd):
    """Wall seconds and peak RSS (bytes) of one process, from GNU time."""
    out = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M"] + cmd, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{cmd[0]} failed: {out.stderr[-2000:]}")
    seconds, kib = re.findall(r"TIME ([\d.]+) (\d+)", out.stderr)[-1]
    return float(seconds), int(kib) * 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("work")
    parser.add_argument("bench")
    parser.add_argument("--layers", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    source = os.path.join(args.work, "model.onnx")
    if not os.path.exists(source):
        make_model(source, args.layers)
    weights = os.path.getsize(source + ".data")
    runs = {"dmlrun": [], "python": []}
    for _ in range(args.rounds):
        for tool in runs:
            out = os.path.join(args.work, f"{tool}.onnx")
            for f in (out, out + ".data"):
                if os.path.exists(f):
                    os.remove(f)
            cmd = [args.bench, source, out] if tool == "dmlrun" else [sys.executable, "-c", PYTHON_QUANTIZE, source, out]
            runs[tool].append(timed(cmd))
    mib = lambda b: b / 2**20
    print(f"{args.layers} float16 weights [{K}, {N}] ({mib(K * N * 2):.0f} MiB each), {mib(weights):.0f} MiB in all; "
          f"{args.rounds} rounds, alternating")
    print(f"{'':8} {'seconds (each round)':28} {'peak RSS MiB (each round)':30}")
    for tool, results in runs.items():
        print(f"{tool:8} {', '.join(f'{s:.1f}' for s, _ in results):28} {', '.join(f'{mib(m):.0f}' for _, m in results):30}")
    best = {tool: (min(s for s, _ in r), max(m for _, m in r)) for tool, r in runs.items()}
    print(f"dmlrun / python: time {best['dmlrun'][0] / best['python'][0]:.2f}x (fastest rounds), "
          f"peak memory {best['dmlrun'][1] / best['python'][1]:.2f}x (largest rounds); "
          f"dmlrun's peak is {best['dmlrun'][1] / (K * N * 2):.1f} weights' size, "
          f"{best['dmlrun'][1] / weights:.2f} of the model's")
    with open(os.path.join(args.work, "bench-quantize.json"), "w") as f:
        json.dump({"layers": args.layers, "weights_bytes": weights, "runs": runs}, f, indent=1)


if __name__ == "__main__":
    main()
