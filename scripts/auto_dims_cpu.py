"""Does fixing a free dimension help the CPU execution provider? The sample SqueezeNet on the CPU
EP with its batch dimension N left free and with --dim N=1, alternately, ROUNDS times, 300 timed
runs each; prints each round's p50s and their ratio (free / fixed). dmlrun gives DirectML
automatic overrides and leaves the CPU as the model declares it; this is the measurement behind
that choice.

    python3 scripts/auto_dims_cpu.py [ROUNDS]      (after cargo build --release)
"""
import json
import subprocess
import sys

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
BASE = ["target/release/dmlrun", "models/squeezenet1.1.onnx", "--input", "models/cat.png", "--ep", "cpu",
        "--warmup", "20", "--iterations", "300", "--quiet", "--json", "-"]


def p50(extra):
    out = subprocess.run(BASE + extra, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["iterations"]["latency_ms"]["p50"]


ratios = []
for i in range(ROUNDS):
    free, fixed = p50([]), p50(["--dim", "N=1"])
    ratios.append(free / fixed)
    print(f"round {i + 1}: p50 N free {free:.3f} ms, --dim N=1 {fixed:.3f} ms, free/fixed {free / fixed:.3f}")
print(f"free/fixed p50 ratio over {ROUNDS} rounds: min {min(ratios):.3f}, max {max(ratios):.3f}")
