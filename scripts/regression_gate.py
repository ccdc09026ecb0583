"""How often `dmlrun bench`'s regression gate is right on a busy machine (issue 54): a benchmark,
not a test. One core is kept busy by a load generator for every run; then, 20 times each:

  file A/A     bench mlp.onnx --json base.json, then the same with --baseline base.json
  file +15%    the same baseline, then a model with 15% more work under the same file name
  paired A/A   bench mlp.onnx --baseline-model mlp.onnx (old and new in one session)
  paired +15%  bench mlp.onnx (15% more work) --baseline-model the original

and counts the verdicts. Beside each, what the old gate (two medians against --max-regression)
would have said of the same runs. The models: 20 MatMul+Relu layers of 512 (batch 8), and 23
(15% more work); random weights from a fixed seed.

    python3 scripts/regression_gate.py DMLRUN [--pairs 20] [--intra-threads N] [--out target/regression-gate]

Writes OUT/summary.json and prints a Markdown table (docs/guide.md quotes it).
"""
import argparse, json, os, shutil, subprocess, sys, time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def mlp(path, layers, width=512, batch=8, seed=0):
    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    x = "x"
    for i in range(layers):
        w = numpy_helper.from_array((rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32), f"w{i}")
        inits.append(w)
        nodes.append(helper.make_node("MatMul", [x, f"w{i}"], [f"m{i}"]))
        nodes.append(helper.make_node("Relu", [f"m{i}"], [f"r{i}"]))
        x = f"r{i}"
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, width])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [batch, width])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


THREADS = []


def bench(dmlrun, model, *extra, out):
    """One bench run's JSON report (left in OUT/run.json)."""
    json_path = os.path.join(out, "run.json")
    cmd = [dmlrun, "bench", model, "--iterations", "200", "--warmup", "10", "-q", "--generate", "random",
           "--json", json_path, *THREADS, *extra]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)}: exit {done.returncode}\n{done.stderr}")
    report = json.load(open(json_path))
    return report


def verdict(report, max_regression=0.05):
    row = report["baseline"]["models"][0]
    old_gate = row.get("baseline_p50_ms") and row["p50_ms"] / row["baseline_p50_ms"] > 1 + max_regression
    # The JSON's enum words (no_change) are the reports' words (no change).
    return (row.get("verdict") or "none").replace("_", " "), bool(old_gate), row.get("ratio")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dmlrun")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--out", default="target/regression-gate")
    parser.add_argument("--intra-threads", type=int, help="ONNX Runtime's threads (default: its own, one per core)")
    args = parser.parse_args()
    if args.intra_threads:
        THREADS.extend(["--intra-threads", str(args.intra_threads)])
    out = args.out
    shutil.rmtree(out, ignore_errors=True)
    for d in ("a", "b"):
        os.makedirs(os.path.join(out, d))
    # The same file name in both folders: a new version of the model, as a team would ship it.
    a, b = os.path.join(out, "a", "mlp.onnx"), os.path.join(out, "b", "mlp.onnx")
    mlp(a, 20)
    mlp(b, 23)
    load = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    results = {k: [] for k in ("file A/A", "file +15%", "paired A/A", "paired +15%")}
    started = time.time()
    try:
        for i in range(args.pairs):
            base = os.path.join(out, "base.json")
            bench(args.dmlrun, a, out=out)
            shutil.move(os.path.join(out, "run.json"), base)
            results["file A/A"].append(verdict(bench(args.dmlrun, a, "--baseline", base, out=out)))
            results["file +15%"].append(verdict(bench(args.dmlrun, b, "--baseline", base, out=out)))
            results["paired A/A"].append(verdict(bench(args.dmlrun, a, "--baseline-model", a, out=out)))
            results["paired +15%"].append(verdict(bench(args.dmlrun, b, "--baseline-model", a, out=out)))
            print(f"pair {i + 1}: " + ", ".join(f"{k} {v[-1][0]} ({v[-1][2]:.3f})" for k, v in results.items()),
                  flush=True)
    finally:
        load.kill()
    verdicts = ["regression", "improvement", "no change", "inconclusive"]
    summary = {
        "pairs": args.pairs,
        "minutes": round((time.time() - started) / 60, 1),
        "load": "one core kept busy by a Python busy loop",
        "bench": "--iterations 200 --warmup 10 (10 rounds), --max-regression 5% " + " ".join(THREADS),
        "scenarios": {
            k: {"verdicts": {v: sum(1 for r in rows if r[0] == v) for v in verdicts},
                "old_gate_regressions": sum(1 for r in rows if r[1]),
                "ratios": [r[2] for r in rows]}
            for k, rows in results.items()
        },
    }
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print()
    print("| scenario | regression | improvement | no change | inconclusive | old gate (two medians): regression |")
    print("|---|---|---|---|---|---|")
    for k, s in summary["scenarios"].items():
        v = s["verdicts"]
        print(f"| {k} | {v['regression']} | {v['improvement']} | {v['no change']} | {v['inconclusive']} | "
              f"{s['old_gate_regressions']} |")
    print(f"\n{args.pairs} pairs each, {summary['minutes']} minutes, {summary['load']}, bench {summary['bench']}")


if __name__ == "__main__":
    main()
