"""The GPU check's tables, in Markdown, from the reports run-on-gpu leaves in one folder.

    python3 summary.py REPORTS_DIR

Reads each step's dmlrun JSON report (REPORTS_DIR/NAME.json), steps.tsv (name, start, end, exit
code of every step) and, where nvidia-smi ran, nvidia-smi-memory.csv (the GPU's memory in use,
sampled every 200 ms from outside Wine), and prints the tables docs/gpu.md quotes.
"""
import csv
import datetime
import json
import os
import sys

R = sys.argv[1]


def report(name):
    path = os.path.join(R, f"{name}.json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def steps():
    out = {}
    path = os.path.join(R, "steps.tsv")
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            name, start, end, rc = line.rstrip("\n").split("\t")
            out[name] = (float(start), float(end), int(rc))
    return out


def gpu_memory_samples():
    path = os.path.join(R, "nvidia-smi-memory.csv")
    samples = []
    if os.path.exists(path):
        for row in csv.reader(open(path, encoding="utf-8")):
            try:
                t = datetime.datetime.strptime(row[0].strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()
                samples.append((t, int(row[1])))
            except (ValueError, IndexError):
                continue
    return samples


STEPS = steps()
SAMPLES = gpu_memory_samples()


def smi_peak(name):
    """The GPU's memory in use at its peak during step NAME, less what was in use before it (MiB)."""
    if name not in STEPS or not SAMPLES:
        return None
    start, end, _ = STEPS[name]
    before = [m for t, m in SAMPLES if t <= start]
    during = [m for t, m in SAMPLES if start <= t <= end]
    if not during:
        return None
    base = before[-1] if before else min(during)
    return max(during) - base


def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def cell(name):
    r = report(name)
    if r is None:
        rc = STEPS.get(name, (0, 0, None))[2]
        return None, f"no report (exit {rc})"
    t, lat = r["timings_ms"], r["iterations"]["latency_ms"] or {}
    return r, f"{t['session_create']:.0f} / {t['first_run']:.1f} / {fmt(lat.get('p50'))}"


def placement(r):
    if r is None:
        return "-"
    return ", ".join(f"{p['nodes']} {p['execution_provider'].replace('ExecutionProvider', '')}" for p in r["device"]["placement"]) or "-"


def max_diff(r):
    if r is None or not r.get("comparison"):
        return "-"
    return ", ".join(f"{d['max_abs']:.1e}" for d in r["comparison"]["differences"]) or "-"


def overrides(r):
    if r is None:
        return "-"
    o = r["plan"]["dimension_overrides"]
    text = ", ".join(f"{d['key']}={d['value']}" + (" (auto)" if d["source"]["kind"] == "automatic" else "") for d in o)
    return text or "none (N free)"


def dxgi_memory(r):
    m = r and r.get("gpu_memory")
    if not m:
        return "-"
    peak = m.get("peak_timed_runs") or {}
    return f"{m['before_session']['local_bytes'] >> 20} / {(m.get('after_session') or {}).get('local_bytes', 0) >> 20} / {peak.get('local_bytes', 0) >> 20}"


devices = report("devices")
if devices:
    print("## Adapters (dmlrun devices)\n")
    print("| index | name | vendor:device | LUID | dedicated MiB | software |")
    print("|---|---|---|---|---|---|")
    for a in devices:
        print(f"| {a['index']} | {a['name']} | {a['vendor_id']:#06x}:{a['device_id']:#06x} | {a['luid']} | "
              f"{a['dedicated_video_memory'] >> 20} | {a['software']} |")
    print()

print("## SqueezeNet, `dmlrun squeezenet1.1.onnx --device 0 --input cat.png`\n")
print("| run | dimension overrides | create / first run / p50 (ms) | CoV | placement | max abs diff vs CPU |")
print("|---|---|---|---|---|---|")
for name, label in [("sq-dim", "`--dim N=1`"), ("sq-seed", "seed command (automatic)"),
                    ("sq-dim-2", "`--dim N=1`, again"), ("sq-seed-2", "seed command, again"),
                    ("sq-free", "`--no-auto-dims` (N free)"), ("sq-cpu", "`--ep cpu`")]:
    r, timings = cell(name)
    lat = (r or {}).get("iterations", {}).get("latency_ms") or {}
    print(f"| {label} | {overrides(r)} | {timings} | {fmt((lat.get('cov') or 0) * 100, 1)}% | {placement(r)} | {max_diff(r)} |")
for seed_name, dim_name in [("sq-seed", "sq-dim"), ("sq-seed-2", "sq-dim-2")]:
    seed, dim = report(seed_name), report(dim_name)
    if seed and dim:
        p = seed["iterations"]["latency_ms"]["p50"] / dim["iterations"]["latency_ms"]["p50"]
        f = seed["timings_ms"]["first_run"] / dim["timings_ms"]["first_run"]
        print(f"\n{seed_name} / {dim_name}: p50 ratio {p:.3f} (goal at most 1.10), first-run ratio {f:.2f} (goal at most 2)")
for name in ("sq-by-name", "sq-by-luid"):
    r = report(name)
    if r:
        d = r["device"]
        print(f"\n{name}: ran on adapter {d['device_id']} ({d['adapter_name']})")
print()

print("## ResNet-50 and VGG-19 (random weights), DirectML vs the CPU EP\n")
print("| model | batch | DirectML create / first / p50 (ms) | CPU create / first / p50 (ms) | p50 speed-up | "
      "DirectML placement | max abs diff vs CPU | GPU memory, nvidia-smi (MiB) | DXGI local before / after / peak (MiB) |")
print("|---|---|---|---|---|---|---|---|---|")
for m in ("resnet50", "vgg19"):
    for b in (1, 8):
        dml, dml_t = cell(f"{m}-b{b}-dml")
        cpu, cpu_t = cell(f"{m}-b{b}-cpu")
        speed = "-"
        if dml and cpu and dml["iterations"]["latency_ms"] and cpu["iterations"]["latency_ms"]:
            speed = f"{cpu['iterations']['latency_ms']['p50'] / dml['iterations']['latency_ms']['p50']:.1f}x"
        print(f"| {m} | {b} | {dml_t} | {cpu_t} | {speed} | {placement(dml)} | {max_diff(dml)} | "
              f"{fmt(smi_peak(f'{m}-b{b}-dml'), 0)} | {dxgi_memory(dml)} |")
