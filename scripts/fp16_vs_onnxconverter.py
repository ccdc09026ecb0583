"""dmlrun's float16 conversion (`--precision fp16`) against onnxconverter-common's
(`float16.convert_float_to_float16(model, keep_io_types=True)`), the Python step people use
today, on the same models, inputs and execution provider (called by scripts/fp16-vs-onnxconverter).

For each model: onnxconverter-common's form is written and run by dmlrun (no conversion), and the
model is run by dmlrun with --precision fp16, both on the same seeded generated inputs, with
their outputs saved; the float32 model's outputs on those inputs are the reference. The two
forms are timed alternately, A B A B, so drift on a busy machine falls on both. Prints a
Markdown table: whether each form converts and loads, the largest difference between the two
forms' outputs and of each from float32, and both p50s with dmlrun's / onnxconverter-common's.

    python3 scripts/fp16_vs_onnxconverter.py DMLRUN WORKDIR MODEL[::FLAGS]...

FLAGS are dmlrun flags for the model's inputs, separated by spaces (`m.onnx::--shape x=1,3,48,192`).
"""
import json
import os
import shlex
import subprocess
import sys
import time
import warnings

import numpy as np
import onnx
from onnxconverter_common import float16

# The converter warns for every value it clamps or flushes: thousands of lines per model.
warnings.filterwarnings("ignore", module="onnxconverter_common")
DMLRUN, WORK = sys.argv[1], os.path.abspath(sys.argv[2])
ROUNDS, ITERATIONS = 2, 30
os.makedirs(WORK, exist_ok=True)


def dmlrun(args):
    done = subprocess.run([DMLRUN, *args], capture_output=True, text=True)
    lines = [line for line in done.stderr.splitlines() if line.startswith("dmlrun: error")]
    line = lines[-1] if lines else done.stderr.strip()[-300:]
    # ONNX Runtime's reason, without the paths and the C++ signature put before it.
    reason = line.rsplit(" failed:", 1)[-1].strip()
    return done.returncode, reason.rsplit("[ONNXRuntimeError] : 1 : FAIL : ", 1)[-1]


def outputs(folder):
    """The saved outputs: name -> array (dmlrun writes one .npy per output)."""
    arrays = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".npy"):
            arrays[name[:-4]] = np.load(os.path.join(folder, name)).astype(np.float64)
    return arrays


def largest_difference(a, b):
    """The largest |a - b| over the outputs both have, NaN where either has a NaN or an
    infinity the other has not (float16 overflowed): such a difference is not hidden."""
    shared = [k for k in a if k in b and a[k].shape == b[k].shape and a[k].size]
    if not shared:
        return None
    worst = 0.0
    for k in shared:
        same = (np.isnan(a[k]) & np.isnan(b[k])) | (np.isinf(a[k]) & (a[k] == b[k]))
        diff = np.where(same, 0.0, np.abs(a[k] - b[k]))
        if not np.all(np.isfinite(diff)):
            return float("nan")
        worst = max(worst, float(np.max(diff)))
    return worst


def run_form(name, model, flags, extra, tag):
    """One timed run of a form; returns (p50 ms or None, error, outputs folder)."""
    saved = os.path.join(WORK, f"{name}.{tag}.out")
    report = os.path.join(WORK, f"{name}.{tag}.json")
    code, error = dmlrun([model, *flags, "--generate", "random", "--seed", "1", "--ep", "cpu", "--warmup", "3",
                          "--iterations", str(ITERATIONS), "-q", "--save-outputs", saved, "--json", report, *extra])
    if code != 0:
        return None, error, saved
    with open(report) as f:
        return json.load(f)["iterations"]["latency_ms"]["p50"], "", saved


print("| model | onnxconverter-common: converts / loads | dmlrun --precision fp16 | max abs diff between the forms | "
      "max abs diff from float32: onnxconverter-common / dmlrun | p50 ms: onnxconverter-common / dmlrun (ratio) |")
print("|---|---|---|---|---|---|")
for spec in sys.argv[3:]:
    path, _, flag_text = spec.partition("::")
    flags = shlex.split(flag_text)
    name = os.path.splitext(os.path.basename(path))[0]
    theirs_path = os.path.join(WORK, f"{name}.onnxconverter.onnx")
    started = time.perf_counter()
    try:
        converted = float16.convert_float_to_float16(onnx.load(path), keep_io_types=True)
        onnx.save(converted, theirs_path)
        converts = f"yes ({time.perf_counter() - started:.1f} s)"
    except Exception as e:  # the converter's own failure is a result here
        converts, theirs_path = f"no: {type(e).__name__}: {str(e)[:120]}", None
    _, _, float32_saved = run_form(name, path, flags, [], "fp32")
    reference = outputs(float32_saved) if os.path.isdir(float32_saved) else {}
    theirs_p50, ours_p50 = [], []
    theirs_error = ours_error = ""
    theirs_saved = ours_saved = None
    for _ in range(ROUNDS):
        if theirs_path:
            p50, theirs_error, theirs_saved = run_form(name, theirs_path, flags, [], "onnxconverter")
            if p50 is not None:
                theirs_p50.append(p50)
        p50, ours_error, ours_saved = run_form(name, path, flags, ["--precision", "fp16"], "dmlrun")
        if p50 is not None:
            ours_p50.append(p50)
    theirs = outputs(theirs_saved) if theirs_p50 else {}
    ours = outputs(ours_saved) if ours_p50 else {}
    loads = "" if not theirs_path else ("loads and runs" if theirs_p50 else f"does not run: {theirs_error[:200]}")
    between = largest_difference(theirs, ours)
    fmt = lambda v: "-" if v is None else "NaN/inf (overflow)" if np.isnan(v) else f"{v:.3g}"
    t50 = min(theirs_p50) if theirs_p50 else None
    o50 = min(ours_p50) if ours_p50 else None
    ratio = f" ({o50 / t50:.2f})" if t50 and o50 else ""
    print(f"| {name} | {converts}{'; ' + loads if loads else ''} | {'runs' if ours_p50 else 'fails: ' + ours_error[:200]} | "
          f"{fmt(between)} | {fmt(largest_difference(reference, theirs))} / {fmt(largest_difference(reference, ours))} | "
          f"{fmt(t50)} / {fmt(o50)}{ratio} |", flush=True)
