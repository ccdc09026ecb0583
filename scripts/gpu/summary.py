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


def smi_samples(name, columns):
    """nvidia-smi's CSV samples in REPORTS_DIR/NAME: (time, the first COLUMNS integers) per row."""
    path = os.path.join(R, name)
    samples = []
    if os.path.exists(path):
        for row in csv.reader(open(path, encoding="utf-8")):
            try:
                t = datetime.datetime.strptime(row[0].strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()
                samples.append((t, *(int(v) for v in row[1:1 + columns])))
            except (ValueError, IndexError):
                continue
    return samples


STEPS = steps()
# The one GPU's memory in use (MiB), as (time, MiB).
SAMPLES = smi_samples("nvidia-smi-memory.csv", 1)


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
    for a in devices["adapters"]:
        print(f"| {a['index']} | {a['name']} | {a['vendor_id']:#06x}:{a['device_id']:#06x} | {a['luid']} | "
              f"{a['dedicated_video_memory'] >> 20} | {a['software']} |")
    print()

def ep_devices_table(title, r):
    if not r or not r.get("ep_devices"):
        return
    print(f"## {title}\n")
    print("| # | EP | hardware | DXGI adapter | metadata | library |")
    print("|---|---|---|---|---|---|")
    for d in r["ep_devices"]:
        meta = ", ".join(f"{k}={v}" for k, v in d["metadata"].items() if k != "Description") or "-"
        print(f"| {d['index']} | {d['ep_name']} | {d['hardware_type']} {d['vendor_id']:#06x}:{d['device_id']:#06x} | "
              f"{d.get('dxgi_adapter', '-')} | {meta} | {d.get('library', '-')} |")
    for lib in r.get("ep_libraries", []):
        if not lib["execution_providers"]:
            print(f"\n--ep-library {lib['name']}: registered, no device")
    print()


ep_devices_table("EP devices under Wine (dmlrun.exe devices, ONNX Runtime 1.24.4)", devices)
ep_devices_table("EP devices natively on Linux with the WebGPU plugin (dmlrun devices --ep-library, ONNX Runtime 1.31.1)",
                 report("wg-devices"))


def step_seconds(name):
    return STEPS[name][1] - STEPS[name][0] if name in STEPS else None


def error_line(name):
    path = os.path.join(R, f"{name}.err")
    if not os.path.exists(path):
        return ""
    lines = [line for line in open(path, encoding="utf-8", errors="replace") if line.startswith("dmlrun: error:")]
    return lines[-1].strip() if lines else ""


def speed_tables():
    """GPU_STEPS=speed: dmlrun's DirectML against PyTorch on CUDA, float32 and float16."""
    torch_runs = (report("speed-torch") or {}).get("runs", [])

    def torch_p50(model, precision, batch, kind="eager_ms"):
        row = next((r for r in torch_runs if (r["model"], r["precision"], r["batch"]) == (model, precision, batch)), None)
        return row[kind]["p50"] if row and kind in row else None

    def points(name):
        r = report(name)
        return {m["sweep"]["value"]: m for m in r["models"] if m.get("sweep")} if r else {}

    def dml(m, precision):
        if m is None:
            return None
        if precision == "fp16":
            return m["latency_ms"]["p50"]
        return ((m.get("precision") or {}).get("float32_latency_ms") or {}).get("p50")

    ratio = lambda a, b: f"{a / b:.2f}" if a and b else "-"
    t = report("speed-torch")
    print("## Speed: DirectML (dmlrun, under Wine) against PyTorch on CUDA, same GPU, same call\n")
    if t:
        print(f"PyTorch {t['torch']} (CUDA {t['cuda']}, cuDNN {t['cudnn']}) on {t['gpu']}, TF32 off, cuDNN autotuner on; "
              f"models: {', '.join(f'{k} {v}' for k, v in t['definitions'].items())}. p50 ms; ratios are DirectML / PyTorch eager.\n")
    else:
        print(f"PyTorch: no figures ({error_line('speed-torch') or 'step missing'})\n")
    print("| model | batch | DML fp32 | DML fp16 | PyTorch eager fp32 | eager fp16 | CUDA graph fp32 | CUDA graph fp16 | "
          "DML fp32 / eager fp32 | DML fp16 / eager fp32 | DML fp16 / eager fp16 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for model in ("resnet50", "vgg19"):
        pts = points(f"speed-{model}")
        for batch in (1, 8):
            m = pts.get(str(batch))
            d32, d16 = dml(m, "fp32"), dml(m, "fp16")
            e32, e16 = torch_p50(model, "fp32", batch), torch_p50(model, "fp16", batch)
            g32, g16 = torch_p50(model, "fp32", batch, "cuda_graph_ms"), torch_p50(model, "fp16", batch, "cuda_graph_ms")
            print(f"| {model} | {batch} | {fmt(d32, 3)} | {fmt(d16, 3)} | {fmt(e32, 3)} | {fmt(e16, 3)} | {fmt(g32, 3)} | "
                  f"{fmt(g16, 3)} | {ratio(d32, e32)} | {ratio(d16, e32)} | {ratio(d16, e16)} |")
    io = report("speed-resnet50-b8-io")
    if io:
        print(f"\nResNet-50 b8 float16 with inputs and outputs on the GPU (`--io-on-device`): p50 "
              f"{fmt(io['iterations']['latency_ms']['p50'], 3)} ms.")
    pts = points("speed-resnet50")
    if pts:
        print("\nResNet-50 over the batch size (`bench --sweep N=... --precision fp16`; float32 timed beside it):\n")
        print("| N | session ms (fp16) | first run ms | DML fp16 p50 | items/s | DML fp32 p50 | items/s | PyTorch eager fp32 p50 | "
              "eager fp16 p50 | max abs diff fp16 vs CPU fp32 |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for value, m in sorted(pts.items(), key=lambda kv: int(kv[0])):
            b = int(value)
            d32, d16 = dml(m, "fp32"), dml(m, "fp16")
            diff = max((o["max_abs"] for o in (m.get("precision") or {}).get("outputs", [])), default=None)
            print(f"| {b} | {fmt(m['session_create_ms'], 0)} | {fmt(m['first_run_ms'], 1)} | {fmt(d16, 3)} | "
                  f"{fmt(b * 1000 / d16 if d16 else None, 0)} | {fmt(d32, 3)} | {fmt(b * 1000 / d32 if d32 else None, 0)} | "
                  f"{fmt(torch_p50('resnet50', 'fp32', b), 3)} | {fmt(torch_p50('resnet50', 'fp16', b), 3)} | {fmt(diff, 4)} |")
        failed = [f for f in report("speed-resnet50")["failed"]]
        for f in failed:
            print(f"\n- {f['name']}: {f['status']}: {f['error'][:300]}")
    photos = [(p, report(f"speed-sq-{p}")) for p in ("cat", "coffee")]
    if any(r for _, r in photos):
        print("\nThe sample photos through SqueezeNet 1.1 with `--precision fp16` on DirectML, against float32 on the CPU EP:\n")
        print("| photo | top-1 (fp16, DirectML) | top-1 / top-5 agree | max abs diff | p50 ms |")
        print("|---|---|---|---|---|")
        for photo, r in photos:
            if not r:
                print(f"| {photo} | {error_line(f'speed-sq-{photo}')[:200] or 'no report'} | | | |")
                continue
            top = r["top_k"][0]["items"][0][0]
            o = r["precision"]["outputs"][0]
            a = o.get("agreement") or {}
            print(f"| {photo} | {top['index']} {top.get('label', '')} ({top['score']:.4f}) | {a.get('top1')}/{a.get('rows')} / "
                  f"{a.get('top5')}/{a.get('rows')} | {o['max_abs']:.2e} | {fmt(r['iterations']['latency_ms']['p50'], 3)} |")
    if any(f"fp16-{m}" in STEPS for m in DIAGNOSED):
        print("\nThe real models DirectML rejects in float32 on this stack, with `--precision fp16`, against the CPU EP's float32 outputs:\n")
        print("| model | float16 on DirectML | placement | conversion | max abs diff per output | p50 ms |")
        print("|---|---|---|---|---|---|")
        for m in DIAGNOSED:
            r = report(f"fp16-{m}")
            if not r:
                print(f"| {m} | fails: {error_line(f'fp16-{m}')[:260] or 'no report'} | | | | |")
                continue
            c = r["precision"]["conversion"]
            kept = sum(c["nodes_kept"].values())
            diffs = ", ".join(f"{o['output']} {o['max_abs']:.2e}" for o in r["precision"]["outputs"])
            print(f"| {m} | runs | {placement(r)} | {c['nodes_converted']} nodes fp16, {kept} kept | {diffs} | "
                  f"{fmt(r['iterations']['latency_ms']['p50'], 3)} |")
    print()


def hang_tables():
    """GPU_STEPS=hang: the decoder that did not finish, under a time limit, and reduced."""
    print("## A hang, timed out and reduced\n")
    line = error_line("hang-generate")
    r = report("hang-generate")
    print(f"- `generate --timeout`: {line or ('finished: ' + str(r['prompts'][0]['token_ids'][:8]) if r else 'no report')} "
          f"({fmt(step_seconds('hang-generate'), 1)} s)")
    red = report("hang-reduce")
    if red:
        node = red.get("node") or {}
        print(f"- `reduce --candidate-timeout 20s`: mode {red.get('mode')}, {len(red['tried'])} candidates, "
              f"{red['nodes_before']} -> {red['nodes_after']} nodes, ending at {node.get('op_type', '-')} '{node.get('name', '-')}' "
              f"({red['seconds']:.0f} s): {red['outcome'].get('reason', '')[:400]}")
    else:
        print(f"- `reduce`: {error_line('hang-reduce')[:400] or 'no report'} ({fmt(step_seconds('hang-reduce'), 1)} s)")
    print()


def seen_by_smi(name, samples):
    """Per GPU during step NAME: peak memory in use above what it was before, and mean utilisation."""
    if name not in STEPS or not samples:
        return "-"
    start, end, _ = STEPS[name]
    cells = []
    for gpu in sorted({g for _, g, _, _ in samples}):
        before = [m for t, g, m, _ in samples if g == gpu and t <= start]
        during = [(m, u) for t, g, m, u in samples if g == gpu and start <= t <= end]
        if not during:
            continue
        base = before[-1] if before else min(m for m, _ in during)
        cells.append(f"GPU {gpu}: +{max(m for m, _ in during) - base} MiB, {sum(u for _, u in during) / len(during):.0f}% busy")
    return "; ".join(cells) or "-"


def two_tables():
    """GPU_STEPS=two: what DXGI shows with two GPUs, the seed command on the second, the matrix."""
    # gpus.csv: every GPU every 100 ms, as (time, index, MiB, % busy).
    samples = smi_samples("gpus.csv", 3)
    print("## Two GPUs\n")
    if "two-device-1" in STEPS:  # not in a GPU_TWO_MATRIX call
        fixme = os.path.join(R, "dxgi-fixme.err")
        if os.path.exists(fixme):
            lines = [l.strip() for l in open(fixme, encoding="utf-8", errors="replace") if "physical device" in l]
            print(f"- Wine's DXGI without a choice: `{open(os.path.join(R, 'dxgi-fixme.out')).read().strip()}`; "
                  f"its log: `{lines[0] if lines else 'no FIXME'}`")
        print(f"- `--device 1`: exit {STEPS.get('two-device-1', (0, 0, '-'))[2]}: {error_line('two-device-1')}")
        for g in (0, 1):
            d = report(f"devices-gpu{g}")
            adapters = ", ".join(f"{a['index']}: {a['name']} LUID {a['luid']}" for a in d["adapters"]) if d else "no report"
            print(f"- with GPU {g} chosen (DRI_PRIME={g}): DXGI adapters {adapters}")
        print("\n| step | device | p50 (ms) | iterations | exit | seen by nvidia-smi |\n|---|---|---|---|---|---|")
        for name in ("two-seed-gpu1", "two-seed-gpu1-name", "two-seed-gpu1-luid", "two-seed-gpu0"):
            r = report(name)
            lat = ((r or {}).get("iterations") or {}).get("latency_ms") or {}
            d = (r or {}).get("device") or {}
            device = f"{d.get('device_id')}: {d.get('adapter_name')}" if d else "-"
            print(f"| {name} | {device} | {fmt(lat.get('p50'), 3)} | "
                  f"{lat.get('count', '-')} | {STEPS.get(name, (0, 0, '-'))[2]} | {seen_by_smi(name, samples)} |")
    times = {}
    path = os.path.join(R, "two-times.tsv")
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            kind, one, two = line.rstrip("\n").split("\t")
            times[kind] = (float(one), float(two))
    print("\n| run | one GPU (s) | two GPUs at once, merged (s) | ratio | verdicts |\n|---|---|---|---|---|")
    one, merged = report("two-test-one"), report("two-test-merged")
    if one and merged and "test" in times:
        a, b = one["summary"], merged["summary"]
        same = all(a[k] == b[k] for k in ("total", "passed", "failed", "errors", "crashed", "timed_out"))
        shards = "; ".join(f"shard {k}: {seen_by_smi(f'two-test-shard{k}', samples)}" for k in (1, 2))
        print(f"| `test` zoo ({a['total']} cases) | {times['test'][0]:.1f} | {times['test'][1]:.1f} | "
              f"{times['test'][0] / times['test'][1]:.2f}x | one GPU {a['passed']} passed, {a['failed']} failed, {a['errors']} errors, "
              f"{a['crashed']} crashed; merged {b['passed']}/{b['failed']}/{b['errors']}/{b['crashed']} "
              f"({'the same' if same else 'DIFFERENT'}); {shards} |")
    g0, bm = report("two-bench-gpu0"), report("two-bench-merged")
    if g0 and bm and "bench" in times:
        print(f"| `bench` 3 models, batch 1 | {times['bench'][0]:.1f} | {times['bench'][1]:.1f} | "
              f"{times['bench'][0] / times['bench'][1]:.2f}x | {len(g0['models'])} measured on one; {len(bm['models'])} merged, "
              f"{len(bm['failed'])} failed |")
    lone = report("two-one-process")
    if lone:
        pattern = "".join("P" if c["status"] == "pass" else "D" if "887A0004" in c["reason"] else "e" for c in lone["cases"])
        print(f"\n`test pytorch-operator --isolation none` (all in one process), case by case: `{pattern}` "
              "(P passed, D DXGI factory failed 887A0004, e another error)")
    compare = os.path.join(R, "two-bench-compare.md")
    if os.path.exists(compare):
        print("\n`merge --compare` of the three models on GPU 0 and GPU 1:\n")
        print(open(compare, encoding="utf-8").read().strip())
    print()


DIAGNOSED = ("ppocr_det", "ppocr_cls", "orientation", "silero_vad")
if "speed-resnet50" in STEPS:
    speed_tables()
if "hang-generate" in STEPS:
    hang_tables()
if any(name.startswith("two-") for name in STEPS):
    two_tables()
if any(f"diag-{m}-run" in STEPS for m in DIAGNOSED):
    print("## When DirectML says no: the real models it rejects (dmlrun MODEL, then dmlrun reduce)\n")
    print("| model | dmlrun's verdict | stage | node named | classify (s) | reduce (s) | candidates | nodes before -> after "
          "| minimal model's node | minimal on DirectML / CPU EP |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m in DIAGNOSED:
        line = error_line(f"diag-{m}-run")
        verdict = ("DirectML rejects it (CPU EP runs it)" if "DirectML rejects this model" in line
                   else "inputs blamed" if "inputs do not fit" in line else (line[:80] or "ran"))
        stage = "run" if "fails at run" in line else "session creation" if "session creation" in line else "-"
        named = line.split("node '", 1)[1].split("'", 1)[0] if "node '" in line else "-"
        r = report(f"diag-{m}-reduce")
        t = lambda s: f"{s:.1f}" if s is not None else "-"
        status = lambda ep: (report(f"diag-{m}-test-{ep}") or {"cases": [{"status": "-"}]})["cases"][0]["status"]
        if r:
            node = r["node"]
            print(f"| {m} | {verdict} | {stage} | {named} | {t(step_seconds(f'diag-{m}-run'))} | "
                  f"{t(step_seconds(f'diag-{m}-reduce'))} | {len(r['tried'])} | {r['nodes_before']} -> {r['nodes_after']} | "
                  f"{node['op_type']} '{node['name']}' | {status('dml')} / {status('cpu')} |")
        else:
            print(f"| {m} | {verdict} | {stage} | {named} | {t(step_seconds(f'diag-{m}-run'))} | - | - | - | - | - |")
    print()
    for m in DIAGNOSED:
        line = error_line(f"diag-{m}-run")
        if line:
            print(f"- {m}: `{line[:400]}`")
    print()
TRANSFORMER_RUNS = (
    ("tt-dml", "as written"),
    ("tt-dml-rewritten", "rewritten (--decompose LayerNormalization --gemm-zero-bias --reshape-allowzero-off)"),
    ("tt-dml-rewritten-fp16", "rewritten, then --precision fp16"),
)
BERT_BASE_RUNS = (
    ("bert-base-dml", "as written, float32"),
    ("bert-base-dml-fp16-gemm-only", "--gemm-zero-bias --precision fp16"),
    ("bert-base-dml-fp16-norms-as-written", "--gemm-zero-bias --reshape-allowzero-off --precision fp16 (LayerNormalization as written)"),
    ("bert-base-dml-rewritten-fp16", "all three rewrites, --precision fp16"),
)


def transformers_tables():
    """torch's exports on DirectML (GPU_STEPS=transformers): each tiny model's verdict per form,
    and BERT-base's latency against the CPU EP's."""
    print("## torch's exports on DirectML (scripts/gpu/export_transformers.py, random weights)\n")
    if any(name in STEPS for name, _ in TRANSFORMER_RUNS):
        print("| form | " + " | ".join(("bert", "vit", "gpt2")) + " |")
        print("|---|---|---|---|")
    for name, label in TRANSFORMER_RUNS:
        r = report(name)
        if not r:
            if name in STEPS:
                print(f"| {label} | {error_line(name)[:200] or 'no report'} | | |")
            continue
        cells = []
        for m in ("bert", "vit", "gpt2"):
            case = next((c for c in r["cases"] if c["name"] == m), None)
            if case is None:
                cells.append("-")
            elif case["status"] == "pass":
                cells.append(f"pass, max \\|diff\\| {case['max_abs_diff']:.2e}")
            else:
                cells.append(f"{case['status']}: {(case['reason'] or '')[:160]}")
        print(f"| {label} | " + " | ".join(cells) + " |")
    rows = [(n, label) for n, label in BERT_BASE_RUNS if n in STEPS]
    if rows:
        print("\nBERT-base's shape (12 layers, width 768; 1 x 16 tokens), bench --warmup 10 --iterations 100 --compare-ep cpu:\n")
        print("| form | DirectML p50 / p99 (ms) | CPU EP p50 (ms) | CPU / DirectML | step (s) | verdict |")
        print("|---|---|---|---|---|---|")
        for name, label in rows:
            r = report(name)
            secs = fmt(step_seconds(name), 1)
            if r and r["models"]:
                m = r["models"][0]
                lat, ref = m["latency_ms"], (m.get("reference") or {}).get("latency_ms") or {}
                ratio = f"{ref['p50'] / lat['p50']:.2f}x" if ref else "-"
                print(f"| {label} | {fmt(lat['p50'])} / {fmt(lat['p99'])} | {fmt(ref.get('p50'))} | {ratio} | {secs} | runs |")
            elif r and r["failed"]:
                print(f"| {label} | - | - | - | {secs} | {r['failed'][0]['status']}: {r['failed'][0]['error'][:220]} |")
            else:
                print(f"| {label} | - | - | - | {secs} | {error_line(name)[:220] or 'no report'} |")
    reduced = report("tt-bert-reduce")
    if reduced:
        node = reduced.get("node") or {}
        print(f"\n`dmlrun reduce` of the tiny BERT ({reduced.get('made', 'as written')}, {reduced['seconds']:.0f} s): "
              f"{reduced['nodes_after']} of {reduced['nodes_before']} nodes, {node.get('op_type', '-')} '{node.get('name', '-')}'")
    print()


def smollm2_tables():
    """GPU_STEPS=smollm2: SmolLM2-135M-Instruct's DirectML forms on DirectML (norms decomposed)."""
    print("## SmolLM2-135M-Instruct (real weights) on DirectML, `dmlrun generate`\n")
    print("| form | chat answer | logits vs the CPU EP | TTFT p50 (ms) @128 / @1024 | decode tokens/s @128 / @1024 | "
          "perplexity (DirectML / CPU EP, ratio) | peak RSS (MiB) |")
    print("|---|---|---|---|---|---|---|")
    for form in ("dml-fp16", "dml-int4"):
        chat = report(f"smollm2-{form}-chat")
        answer, verdict = "-", error_line(f"smollm2-{form}-chat")[:160] or "-"
        if chat:
            answer = repr(chat["prompts"][0].get("generated_text", ""))
            c = chat["comparison"]["prompts"][0]["logits"]
            verdict = (f"{c['verdict']} (max diff {c['worst_max_abs_diff']:.3g}, cosine >= {c['worst_cosine']:.5f}, "
                       f"top-5 >= {c['worst_top5_shared']}/5, noise {c['noise']:.3g})")
        ttft, tps = [], []
        for p in (128, 1024):
            r = report(f"smollm2-{form}-p{p}")
            f = r and r["prompts"][0]["figures"]
            ttft.append(fmt(f["ttft_ms"]["p50"], 1) if f else "-")
            tps.append(fmt(f["generation_tokens_per_s"], 1) if f else "-")
        ppl = report(f"smollm2-{form}-perplexity")
        pp = ppl and ppl["perplexity"]
        ppl_cell = (f"{pp['measured']['perplexity']:.4f} / {pp['reference']['perplexity']:.4f}, {pp['ratio']:.5f}" if pp
                    else error_line(f"smollm2-{form}-perplexity")[:120] or "-")
        rss = chat and chat.get("peak_rss_bytes")
        print(f"| {form} | {answer} | {verdict} | {' / '.join(ttft)} | {' / '.join(tps)} | {ppl_cell} | "
              f"{fmt(rss / 2**20, 0) if rss else '-'} |")
    written = report("smollm2-dml-fp16-as-written")
    if written:
        c = written["comparison"]["prompts"][0]["logits"]
        print(f"\nThe float16 form as written (fused RMS norms) on DirectML: {written['prompts'][0].get('generated_text', '')!r}; "
              f"logits against the CPU EP's: {c['verdict']} (cosine >= {c['worst_cosine'] if c['worst_cosine'] is not None else 'NaN'}, "
              f"max diff {c['worst_max_abs_diff']}).")
    elif "smollm2-dml-fp16-as-written" in STEPS:
        print(f"\nThe float16 form as written (fused RMS norms) on DirectML: {error_line('smollm2-dml-fp16-as-written')[:300] or 'no report'}")
    cpu = report("smollm2-cpu-fp32-perplexity")
    if cpu:
        print(f"\nThe float32 CPU form on the CPU EP: perplexity {cpu['perplexity']['measured']['perplexity']:.4f} "
              f"({cpu['perplexity']['measured']['tokens']} tokens, windows of 1024, stride 512).")
    print()


def smi_in(start, end):
    """The GPU's memory in use (MiB) at its peak between two Unix times, from nvidia-smi's samples."""
    during = [m for t, m in SAMPLES if start <= t <= end]
    return max(during) if during else None


def large_tables():
    """GPU_STEPS=large (issue 64, point 4): decoders past 2 GiB, int4 and float16, and PyTorch eager."""
    print("## Past 2 GiB: the builder's decoders on DirectML against PyTorch eager (`dmlrun generate`)\n")
    print("| form | folder | prompt | TTFT p50 (ms) | decode p50 (ms) | tokens/s | captured | "
          "RSS after load / prefill / decode, peak (MiB) | GPU memory in use, peak in load / prefill / decode, nvidia-smi (MiB) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for form in ("phi3-fp16", "phi3-int4", "qwen-fp16", "qwen-int4"):
        for p in (128, 1024):
            name = f"speed-{form}-p{p}"
            r = report(name)
            if not r:
                if name in STEPS:
                    print(f"| {form} | | {p} | {error_line(name)[:200] or 'no report'} | | | | | |")
                continue
            phases = {ph["phase"]: ph for ph in r.get("memory_phases", [])}
            mib = lambda b: fmt(b / 2**20, 0) if b else "-"  # noqa: E731
            rss = " / ".join(mib(phases.get(k, {}).get("rss_bytes")) for k in ("load", "prefill", "decode"))
            rss += f", {mib(r.get('peak_rss_bytes'))}"
            gpu = "-"
            if "load" in phases and name in STEPS and SAMPLES:
                start, end, _ = STEPS[name]
                ends = [start] + [phases[k]["ended_unix_ms"] / 1000 for k in ("load", "prefill", "decode") if k in phases]
                gpu = " / ".join(fmt(smi_in(a, b), 0) if smi_in(a, b) else "-" for a, b in zip(ends, ends[1:]))
                gpu += f" (before: {SAMPLES[0][1]})"
            f = r["prompts"][0]["figures"]
            print(f"| {form} | {r['model'].split('/')[-1]} | {f['prompt_tokens']} | {fmt(f['ttft_ms']['p50'], 1)} | "
                  f"{fmt(f['decode_ms']['p50'], 2)} | {fmt(f['generation_tokens_per_s'], 1)} | "
                  f"{r['decode_step_captured']} | {rss} | {gpu} |")
    for arch in ("phi3", "qwen2"):
        e = report(f"eager-{arch}")
        if e:
            for n, f in e["prompts"].items():
                print(f"| PyTorch eager {arch} fp16 | | {n} | {fmt(f['ttft_ms_p50'], 1)} | {fmt(f['decode_ms_p50'], 2)} | "
                      f"{fmt(f['tokens_per_s'], 1)} | | | allocated peak {fmt(f.get('peak_allocated_mib'), 0)} |")
    fixed = report("fix-phi3-fp16")
    if fixed:
        print(f"\n`fix -o` of the float16 folder: verdict {fixed.get('verdict')}; "
              f"step {fmt(step_seconds('fix-phi3-fp16'), 0)} s.")
    elif "fix-phi3-fp16" in STEPS:
        print(f"\n`fix -o` of the float16 folder: {error_line('fix-phi3-fp16')[:300] or 'no report'}")
    align = report("align-phi3-fp16-dml")
    if align:
        print(f"\nThe written data file: {json.dumps(align['files'])}; {align['external_tensors']} tensors external "
              f"({align['of_1_mib_or_more']} of 1 MiB or more), {align['inline_tensors']} inline, "
              f"{len(align['misaligned'])} misaligned; the model file {align['model_bytes']} bytes.")
    for form in ("phi3-int4", "as-is-phi3-int4", "phi3-int4-fixed", "qwen-int4", "qwen-fp16"):
        name = form if form.startswith("as-is") else f"compare-{form}"
        c = report(name)
        if c and c.get("comparison"):
            l = c["comparison"]["prompts"][0]["logits"]  # noqa: E741
            print(f"\n{form} against the CPU EP (32-token prompt, 16 tokens): {l['verdict']} (max diff "
                  f"{l['worst_max_abs_diff']}, cosine >= {l['worst_cosine']}, noise {l['noise']})")
        elif name in STEPS:
            print(f"\n{form} against the CPU EP: {error_line(name)[:300] or 'no report'}")
    fixed = report("fix-phi3-int4")
    if fixed:
        outcome = lambda o: o if isinstance(o, str) else json.dumps(o)[:160]  # noqa: E731
        tried = "; ".join(f"{' '.join(a.get('remedies') or []) or 'as it is'}: {outcome(a.get('outcome'))}"
                          for a in fixed.get("attempts", []))
        print(f"\n`fix` of the int4 folder with no flag: {fixed.get('verdict')} ({len(fixed.get('attempts', []))} attempts, "
              f"{fmt(step_seconds('fix-phi3-int4'), 0)} s): {tried[:600]}")
    elif "fix-phi3-int4" in STEPS:
        print(f"\n`fix` of the int4 folder: {error_line('fix-phi3-int4')[:300] or 'no report'}")
    print()


if any(name.split("-")[0] in ("speed", "eager", "compare", "fix", "as") and ("phi3" in name or "qwen" in name)
       for name in STEPS):
    large_tables()
if any(name.startswith("smollm2-") for name in STEPS):
    smollm2_tables()
if any(name.startswith("tt-") or name.startswith("bert-base-") for name in STEPS):
    transformers_tables()
if any(name.startswith("gen-") or name.startswith("builder-") for name in STEPS):
    print("## Text generation: `dmlrun generate`, decoders with random weights (scripts/make_tiny_decoder.py)\n")
    print("| run | prompt tokens | session (ms) | TTFT p50 (ms) | prompt tokens/s | decode p50 / p90 / p99 (ms) | tokens/s | "
          "KV cache | step (s) | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for p in (128, 1024):
        runs = (("gen-dml-p{p}", "DirectML, float16, KV in its memory"),
                ("gen-dml-p{p}-captured", "DirectML, float16, decode step graph-captured"),
                ("gen-dml-p{p}-uncaptured", "DirectML, float16, uncaptured"),
                ("gen-rw-p{p}-captured", "DirectML, float16, RMS norms decomposed, decode step graph-captured"),
                ("gen-rw-p{p}-uncaptured", "DirectML, float16, RMS norms decomposed, uncaptured"),
                ("builder-rw-p{p}-captured", "builder's Qwen2-0.5B, float16, RMS norms decomposed, captured"),
                ("builder-rw-p{p}-uncaptured", "builder's Qwen2-0.5B, float16, RMS norms decomposed, uncaptured"),
                ("gen-cpu-p{p}", "CPU EP, float32"))
        for template, label in runs:
            name = template.format(p=p)
            if name not in STEPS:
                continue
            r = report(name)
            secs = fmt(step_seconds(name), 1)
            if not r:
                line = error_line(name) or ("timed out" if STEPS[name][2] in (124, 137) else "no report")
                print(f"| {label} | {p} | - | - | - | - | - | - | {secs} | {line[:220]} |")
                continue
            f = r["prompts"][0]["figures"]
            d = f["decode_ms"] or {}
            kv = r["kv_cache"]
            print(f"| {label} ({r['onnxruntime']['version']}) | {p} | {fmt(r['session_create_ms'], 0)} | {fmt(f['ttft_ms']['p50'], 1)} | "
                  f"{fmt(f['prompt_tokens_per_s'], 0)} | {fmt(d.get('p50'))} / {fmt(d.get('p90'))} / {fmt(d.get('p99'))} | "
                  f"{fmt(f['generation_tokens_per_s'], 1)} | {kv['layout']}, {kv['bytes'] / 2**20:.0f} MiB"
                  f"{', device' if kv['on_device'] else ''} | {secs} | generated |")
    written = report("builder-as-written")
    if written:
        tokens = written["prompts"][0]["token_ids"]
        print(f"\nThe builder's decoder as written on DirectML: {len(tokens)} tokens {tokens[:8]} "
              f"(TTFT {fmt(written['prompts'][0]['figures']['ttft_ms']['p50'], 1)} ms).")
    elif "builder-as-written" in STEPS:
        print(f"\nThe builder's decoder as written on DirectML: {error_line('builder-as-written')[:300] or 'no report'}")
    for name in ("gen-rw-narrow", "gen-rw-compare", "builder-rw-compare"):
        compared = report(name)
        if compared and compared.get("comparison"):
            c = compared["comparison"]["prompts"][0]
            where = "the same tokens" if c["first_difference"] is None else f"parts at token {c['first_difference']}"
            rewritten = sum(len(v) for v in compared["rewrite"]["summary"]["rewritten"].values())
            print(f"\nWith {rewritten} RMS norms decomposed, DirectML's greedy tokens against the CPU EP's on `{compared['model']}` "
                  f"({len(compared['prompts'][0]['token_ids'])} tokens after a {compared['prompts'][0]['figures']['prompt_tokens']}-token "
                  f"prompt): {where} ({c['matching']} equal).")
        elif name in STEPS:
            print(f"\n{name}: {error_line(name)[:300] or 'no report'}")
    compared = report("gen-dml-compare") or report("gen-narrow-compare")
    if compared and compared.get("comparison"):
        c = compared["comparison"]["prompts"][0]
        where = "the same tokens" if c["first_difference"] is None else f"parts at token {c['first_difference']}"
        verdict = c.get("logits")
        logits = (f"; logits: {verdict['verdict']} (max |diff| {verdict['worst_max_abs_diff']:.3g}, cosine >= "
                  f"{verdict['worst_cosine']:.6f}, noise {verdict['noise']:.3g})") if verdict else ""
        print(f"\nDirectML's greedy tokens against the CPU EP's on the same float16 model `{compared['model']}` "
              f"({len(compared['prompts'][0]['token_ids'])} tokens after a {compared['prompts'][0]['figures']['prompt_tokens']}-token "
              f"prompt): {where} ({c['matching']} equal before it){logits}; DirectML's first tokens "
              f"{compared['prompts'][0]['token_ids'][:6]}, the CPU EP's {c['reference_token_ids'][:6]}.")
    elif "gen-dml-compare" in STEPS:
        print(f"\nDirectML against the CPU EP: {error_line('gen-dml-compare')[:300] or 'no report'}")
    reduced = report("gen-dml-reduce")
    if reduced:
        first = reduced.get("first_divergent") or "-"
        node = (reduced.get("node") or {})
        print(f"\n`dmlrun reduce --compare-ep cpu` on the prefill (rtol/atol 5e-2, {reduced['seconds']:.0f} s): first tensor "
              f"that differs `{first}`; minimal model {reduced['nodes_after']} of {reduced['nodes_before']} nodes, "
              f"ending at {node.get('op_type', '-')} '{node.get('name', '-')}': {reduced['outcome'].get('reason', '')[:300]}")
    elif "gen-dml-reduce" in STEPS:
        print(f"\n`dmlrun reduce` on the prefill: {error_line('gen-dml-reduce')[:300] or 'no report'}")
    survey = report("gen-each-op")
    if survey:
        print("\nEach operator type of a 2-layer float16 decoder of the same width alone on DirectML "
              f"(`dmlrun reduce --each-op`, {survey['seconds']:.0f} s):\n")
        print("| operator | nodes | DirectML alone |")
        print("|---|---|---|")
        for o in survey["ops"]:
            op = o["op_type"] if o["domain"] in ("", "ai.onnx") else f"{o['domain']}:{o['op_type']}"
            reason = (o["outcome"].get("reason") or "")[:160]
            print(f"| {op} | {o['count']} | {o['outcome']['outcome']}{': ' + reason if reason else ''} |")
    print()
if report("sq-dim") is None:
    sys.exit(0)

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

print()


def p50(r):
    lat = r and (r.get("iterations", {}).get("latency_ms") or r.get("latency_ms"))
    return lat and lat.get("p50")


print("## ResNet-50 on DirectML: inputs and outputs on the device, graph capture, metacommands\n")
print("| batch | host IO p50 (ms) | `--io-on-device` p50 | upload (ms) | download (ms) | outputs checked | "
      "`--dml-graph-capture` p50 | capture outputs checked | p50 host / device / capture |")
print("|---|---|---|---|---|---|---|---|---|")
for b in (1, 8):
    host, io, cap = report(f"resnet50-b{b}-host"), report(f"resnet50-b{b}-io"), report(f"resnet50-b{b}-capture")
    d = (io or {}).get("device_io") or {}
    c = (cap or {}).get("device_io") or {}

    def check(x):
        if not x:
            return "-"
        return "equal" if not x["mismatches"] else f"{len(x['mismatches'])} differ"

    ratio = "-"
    if p50(host) and p50(io):
        ratio = f"1 / {p50(io) / p50(host):.3f} / " + (f"{p50(cap) / p50(host):.3f}" if p50(cap) else "-")
    print(f"| {b} | {fmt(p50(host), 3)} | {fmt(p50(io), 3)} | {fmt(d.get('upload_ms'), 3)} | {fmt(d.get('download_ms'), 3)} | "
          f"{check(d)} | {fmt(p50(cap), 3)} | {check(c)} | {ratio} |")
for name in ("resnet50-b1-capture", "resnet50-b8-capture", "resnet50-capture-free"):
    if name in STEPS and STEPS[name][2] != 0:
        err = os.path.join(R, f"{name}.err")
        line = open(err, encoding="utf-8", errors="replace").read().strip().splitlines() if os.path.exists(err) else []
        print(f"\n{name}: exit {STEPS[name][2]}: {line[-1] if line else ''}")
nometa = report("resnet50-b1-nometa")
if nometa and p50(report("resnet50-b1-host")):
    print(f"\n`--dml-disable-metacommands`, batch 1: p50 {p50(nometa):.3f} ms "
          f"({p50(nometa) / p50(report('resnet50-b1-host')):.2f}x the default)")
print()

print("## ResNet-50 per-operator profile on DirectML (bench --profile, 20 runs)\n")
for name, label in (("resnet50-profile-fused", "graph fusion on (default)"),
                    ("resnet50-profile-unfused", "`--profile-unfused`: graph fusion off")):
    r = report(name)
    m = (r or {}).get("models", [None])[0] if r else None
    if not m or not m.get("profile"):
        print(f"{label}: no profile (exit {STEPS.get(name, (0, 0, None))[2]})\n")
        continue
    print(f"{label}: p50 {m['latency_ms']['p50']:.3f} ms\n")
    print("| operator | calls | total (ms) | share |")
    print("|---|---|---|---|")
    for op in m["profile"]["top_ops"]:
        print(f"| {op['op_type']} | {op['calls']} | {op['total_ms']:.3f} | {op['percent']:.1f}% |")
    print()

print("## Several sessions at once (bench --sessions N, ResNet-50 batch 1)\n")
print("| EP | N | alone p50 (ms) | aggregate inferences/s | vs N=1 | per-session p50 (ms) | per-session p99 (ms) |")
print("|---|---|---|---|---|---|---|")
for ep in ("dml", "cpu"):
    base = None
    for n in (1, 2, 4):
        r = report(f"sessions-{n}-{ep}")
        m = (r or {}).get("models", [None])[0] if r else None
        c = m and m.get("sessions")
        if not c:
            continue
        if n == 1:
            base = c["throughput_per_s"]
        rel = f"{c['throughput_per_s'] / base:.2f}x" if base else "-"
        print(f"| {ep} | {n} | {m['latency_ms']['p50']:.3f} | {c['throughput_per_s']:.1f} | {rel} | "
              f"{' / '.join(format(s['p50'], '.2f') for s in c['per_session'])} | "
              f"{' / '.join(format(s['p99'], '.2f') for s in c['per_session'])} |")

if report("wg-devices"):
    print("\n## The WebGPU plugin EP natively vs DirectML under Wine, on the same GPU\n")
    print("DirectML: dmlrun.exe, ONNX Runtime 1.24.4, Wine + vkd3d. WebGPU: the Linux dmlrun, ONNX Runtime 1.31.1, "
          "onnxruntime-ep-webgpu 0.4.0 (Dawn on Vulkan). Both on NVIDIA's Vulkan driver. CPU: the Linux build's CPU EP.\n")
    print("| model | batch | DirectML create / first / p50 (ms) | WebGPU create / first / p50 (ms) | WebGPU p50 / DirectML p50 | WebGPU placement | WebGPU max abs diff vs CPU |")
    print("|---|---|---|---|---|---|---|")
    rows = [("squeezenet", 1, "sq-seed", "wg-sq")] + [(m, b, f"{m}-b{b}-dml", f"wg-{m}-b{b}") for m in ("resnet50", "vgg19") for b in (1, 8)]
    for model, batch, dml_name, wg_name in rows:
        dml, dml_cell = cell(dml_name)
        wg, wg_cell = cell(wg_name)
        p50 = lambda r: r and (r["iterations"]["latency_ms"] or {}).get("p50")
        ratio = f"{p50(wg) / p50(dml):.2f}x" if p50(wg) and p50(dml) else "-"
        print(f"| {model} | {batch} | {dml_cell} | {wg_cell} | {ratio} | {placement(wg)} | {max_diff(wg)} |")
    print()
    for name, label in [("wg-sq-cpu", "`--ep cpu`"), ("wg-sq-cpu-registered", "`--ep cpu` with the WebGPU library registered"),
                        ("wg-sq-policy", "`--ep policy:prefer-gpu` with the WebGPU library registered"),
                        ("sq-policy", "dmlrun.exe `--ep policy:prefer-gpu` under Wine")]:
        r, timings = cell(name)
        chosen = (r or {}).get("device", {}).get("chosen_by")
        print(f"- SqueezeNet, {label}: {placement(r)}{' (chosen by ' + chosen + ')' if chosen else ''}; create / first / p50 {timings} ms")
