"""The verdicts scripts/wine-check reads from dmlrun.exe's JSON reports, one subcommand each.

    python3 scripts/wine/checks.py SUBCOMMAND ARGS...

Each prints what it found and exits non-zero (with an assertion message) when the report says
something is wrong. Kept apart from the shell script so each check reads as the claim it makes.
"""
import json
import os
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def lavapipe_icd(mesa):
    """Writes MESA/lvp.json: Mesa's lavapipe ICD manifest, pointing at the unpacked library."""
    icd = load(f"{mesa}/root/usr/share/vulkan/icd.d/lvp_icd.json")
    icd["ICD"]["library_path"] = f"{mesa}/root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"
    with open(f"{mesa}/lvp.json", "w", encoding="utf-8") as f:
        json.dump(icd, f)


def cpu_report(path):
    """The Windows build on the CPU EP loaded onnxruntime-directml 1.24.4."""
    r = load(path)
    version, ep = r["onnxruntime"]["version"], r["device"]["execution_provider"]
    print(f"onnxruntime {version} from {r['onnxruntime']['path']}; {ep}")
    assert version == "1.24.4", f"expected onnxruntime-directml 1.24.4, got {version}"
    assert ep == "CPUExecutionProvider", ep


def devices(oracle_tsv, devices_json):
    """`dmlrun devices` lists exactly what DXGI itself reports (dxgi-adapters.exe)."""
    with open(oracle_tsv, encoding="utf-8") as f:
        oracle = [line.rstrip("\r\n").split("\t") for line in f if line.strip()]
    ours = load(devices_json)["adapters"]
    assert oracle, "DXGI lists no adapter under Wine"
    assert len(ours) == len(oracle), (ours, oracle)
    for o, a in zip(oracle, ours):
        want = [int(o[0]), o[1], int(o[2]), int(o[3]), int(o[4]), o[5]]
        got = [a["index"], a["name"], a["vendor_id"], a["device_id"], a["dedicated_video_memory"], a["luid"]]
        assert want == got, f"DXGI says {want}, dmlrun says {got}"
        print(f"adapter {a['index']}: {a['name']} (vendor {a['vendor_id']:#06x}, LUID {a['luid']}) matches DXGI")
    # Under Wine the report says why the list may be shorter than the machine's GPUs.
    note = load(devices_json).get("adapters_note") or ""
    assert "DXGI lists one adapter" in note and "DRI_PRIME=N" in note, f"no note on Wine's one adapter: {note!r}"


def adapter_field(devices_json, index, field):
    """Prints one field of adapter INDEX from `dmlrun devices --json` (for --device NAME/LUID)."""
    print(load(devices_json)["adapters"][int(index)][field])


def ep_devices(devices_json):
    """ONNX Runtime's EP devices under Wine: the CPU EP's, and DirectML's for DXGI adapter 0,
    matched by adapter number, vendor and device ids (dmlrun's dxgi_adapter) and by LUID."""
    report = load(devices_json)
    devices = report["ep_devices"]
    assert any(d["ep_name"] == "CPUExecutionProvider" and d["hardware_type"] == "CPU" for d in devices), devices
    dml = [d for d in devices if d["ep_name"] == "DmlExecutionProvider"]
    assert dml, f"no DirectML EP device: {devices}"
    first = dml[0]
    adapter = report["adapters"][0]
    assert first["hardware_type"] == "GPU" and first.get("dxgi_adapter") == 0, first
    assert (first["vendor_id"], first["device_id"]) == (adapter["vendor_id"], adapter["device_id"]), (first, adapter)
    high, low = (int(part, 16) for part in adapter["luid"].split("-"))
    assert int(first["metadata"]["LUID"]) == (high << 32) | low, (first["metadata"], adapter["luid"])
    print(f"EP device {first['index']}: DmlExecutionProvider on DXGI adapter 0 ({adapter['name']}, LUID {adapter['luid']})")


def policy_run(path, ep):
    """--ep policy:...: ONNX Runtime chose EP, and the report says so and where the nodes went."""
    r = load(path)
    device = r["device"]
    assert device["execution_provider"] == ep and device.get("chosen_by"), device
    assert all(p["execution_provider"] == ep for p in device["placement"]), device["placement"]
    assert r["plan"]["memory_pattern"] is False and r["plan"]["execution_mode"] == "sequential", r["plan"]
    assert not r["comparison"]["mismatches"], r["comparison"]
    print(f"policy {device['chosen_by']} chose {ep} on {device['adapter_name']}; outputs agree with the CPU EP")


def dml_sample(path):
    """The seed command on DirectML: N fixed automatically from the one image, the whole model
    one fused node on DirectML, outputs within tolerance of the CPU and not bit-identical, and
    the adapter's memory read in every phase."""
    r = load(path)
    assert r["device"]["execution_provider"] == "DmlExecutionProvider", r["device"]
    c = r["comparison"]
    assert not c["mismatches"], c["mismatches"]
    (d,) = c["differences"]
    top = [i["index"] for i in r["top_k"][0]["items"][0]]
    print(f"DirectML on {r['device']['adapter_name']}: top-3 {top}, max |diff| vs CPU {d['max_abs']:.3e} (rel {d['max_rel']:.3e})")
    assert top[0] == 282, top
    # Bit-identical outputs would mean the CPU computed them (or DirectML returned the input).
    assert not d["identical"], "DirectML's outputs are bit-identical to the CPU's"
    overrides = r["plan"]["dimension_overrides"]
    print(f"dimension overrides: {overrides}")
    assert [(o["key"], o["value"], o["source"]["kind"]) for o in overrides] == [("N", 1, "automatic")], overrides
    assert r["plan"]["unfixed_dims"] == [], r["plan"]["unfixed_dims"]
    # ONNX Runtime's own placement log: with static shapes DirectML's graph fusion makes the
    # whole of SqueezeNet one fused node, and none is left to the CPU EP.
    placement = {p["execution_provider"]: p["nodes"] for p in r["device"]["placement"]}
    print(f"placement: {placement}")
    assert placement == {"DmlExecutionProvider": 1}, placement
    memory = r["gpu_memory"]
    print(f"gpu memory: {memory}")
    for phase in ("before_session", "after_session", "peak_timed_runs"):
        assert memory[phase] is not None and memory[phase]["local_bytes"] >= 0, (phase, memory)
    t = r["timings_ms"]
    print(f"session create {t['session_create']:.0f} ms, first run {t['first_run']:.0f} ms")


def dml_device(path, index, name):
    """A run given --device by name or LUID ran on adapter INDEX, named NAME."""
    d = load(path)["device"]
    print(f"ran on adapter {d['device_id']} ({d['adapter_name']})")
    assert d["device_id"] == int(index) and d["adapter_name"] == name, d


def dml_conformance(path, simple_dir):
    """No unexpected status; outside 'simple' every passing case ran all its nodes on DirectML."""
    report = load(path)
    assert not report["summary"]["unexpected"], f"DirectML conformance changed: {report['summary']['unexpected']}"
    simple = set(os.listdir(simple_dir))
    passes = [c for c in report["cases"] if c["status"] == "pass" and c["name"] not in simple]
    off = [(c["name"], c["placement"]) for c in passes
           if {p["execution_provider"] for p in c["placement"]} != {"DmlExecutionProvider"}]
    assert passes and not off, off
    print(f"{len(passes)} passing cases outside 'simple', every node of each on DirectML")


def ci_cases(listing, expected, root):
    """The conformance cases CI runs on DirectML (LISTING): each exists under ROOT, says the
    outcome EXPECTED (the whole run's record) gives it, and together they show every outcome
    EXPECTED has, and a pass. Prints their paths, one a line, for the script to run."""
    statuses = {}
    with open(expected, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if len(line) == 2:
                statuses[line[1]] = line[0]
    shown = set()
    with open(listing, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            case, _, said = line.partition("#")
            case = case.strip()
            if not case:
                continue
            path = os.path.join(root, case)
            assert os.path.isdir(path), f"{listing}:{number}: no case {path}"
            status = statuses.get(os.path.basename(case), "pass")
            word = said.strip().split(" ", 1)[0].rstrip(":,")
            assert word in ("passes", status), f"{listing}:{number}: says '{word}', {expected} says {status}"
            shown.add(status)
            print(path)
    missing = (set(statuses.values()) | {"pass"}) - shown
    assert not missing, f"{listing}: no case shows {sorted(missing)}"


def not_passed(report, set_dir):
    """Prints the path of every case in REPORT that did not pass."""
    for c in load(report)["cases"]:
        if c["status"] != "pass":
            print(os.path.join(set_dir, c["name"]))


def device_io(path):
    """A run with --io-on-device or --dml-graph-capture kept its IO on the device, timed the
    upload, and its outputs equal the reference run's."""
    r = load(path)
    io = r.get("device_io")
    assert r["plan"]["io_on_device"], f"{path}: the plan does not keep IO on the device"
    assert io, f"{path}: no device_io section"
    assert io["upload_binds"] > 0 and io["upload_ms"] >= 0, f"{path}: no upload timed: {io}"
    assert io["host_output_runs"] > 0, f"{path}: no download runs: {io}"
    assert not io["mismatches"], f"{path}: outputs kept on the device differ: {io['mismatches']}"
    print(f"{path}: upload {io['upload_ms']:.3f} ms; outputs equal {io['checked_against']}")


def sessions(path, count):
    """bench --sessions COUNT ran COUNT sessions, each with its timed runs."""
    m = load(path)["models"][0]
    c = m["sessions"]
    assert c["sessions"] == int(count) and len(c["per_session"]) == int(count), f"{path}: {c}"
    assert all(s["count"] == m["latency_ms"]["count"] for s in c["per_session"]), f"{path}: {c}"
    print(f"{path}: {count} sessions, {c['throughput_per_s']:.2f} inferences/s together")


def unfused_profile(path):
    """bench --profile-unfused lists real operators, not one fused node."""
    p = load(path)["models"][0]["profile"]
    ops = [o["op_type"] for o in p["top_ops"]]
    assert p["graph_fusion"] == "off", f"{path}: {p['graph_fusion']}"
    # DmlFusedConv and DmlFusedSum are DirectML's per-operator fusions; DmlFusedNode is the whole graph.
    assert ops and not any(o.startswith("DmlFusedNode") for o in ops), f"{path}: {ops}"
    print(f"{path}: unfused profile: {', '.join(ops[:4])}, ...")


def packaged(path, app_dir, ep):
    """The release zip's dmlrun.exe, unpacked in APP_DIR, ran the cat on EP with the ONNX Runtime
    beside it (no ORT_DYLIB_PATH) and found a cat."""
    r = load(path)
    lib, ep_ran = r["onnxruntime"], r["device"]["execution_provider"]
    where = lib["path"].replace("\\", "/").lower()
    assert lib["source"] == "next-to-executable", f"{path}: ONNX Runtime found by {lib['source']}"
    assert os.path.basename(app_dir.rstrip("/")).lower() in where, f"{path}: loaded {lib['path']}"
    assert ep_ran == ep, f"{path}: ran on {ep_ran}, not {ep}"
    top = sorted(c["index"] for c in r["top_k"][0]["items"][0])
    assert top == [281, 282, 285], f"{path}: top-3 {top}"
    print(f"{path}: {ep_ran}, onnxruntime {lib['version']} beside dmlrun.exe, top-3 {top}")



def generation(folder, expected_json):
    """dmlrun generate under Wine: on the CPU EP (onnxruntime-directml 1.24.4) the greedy tokens
    are onnxruntime-genai's; on DirectML either the tokens are generated and compared with the CPU
    EP's, or the error blames DirectML (the CPU EP ran the same steps) and names the node; and
    `reduce --each-op` lists each of the decoder's operator types alone on DirectML. Writes
    FOLDER/summary.json."""
    expected = load(expected_json)["cases"][1]
    cpu = load(f"{folder}/cpu.json")
    assert cpu["onnxruntime"]["version"].startswith("1.24"), cpu["onnxruntime"]
    tokens = cpu["prompts"][0]["token_ids"]
    assert tokens == expected["tokens"], f"CPU EP under Wine: {tokens} != genai's {expected['tokens']}"
    print(f"CPU EP (ONNX Runtime {cpu['onnxruntime']['version']}): {len(tokens)} tokens, equal to onnxruntime-genai's")
    summary = {"cpu_tokens_equal_genai": True}
    try:
        dml = load(f"{folder}/dml.json")
    except FileNotFoundError:
        dml = None
    if dml is not None:
        compared = dml["comparison"]["prompts"][0]
        summary["dml"] = {"ran": True, "first_difference": compared["first_difference"],
                          "tokens_per_s": dml["prompts"][0]["figures"]["generation_tokens_per_s"]}
        print(f"DirectML: generated; against the CPU EP: first difference at {compared['first_difference']}")
    else:
        with open(f"{folder}/dml.line", encoding="utf-8") as f:
            line = f.read().strip()
        assert "DmlExecutionProvider rejects this model at node '" in line, line
        assert "(the CPU EP runs the same steps)" in line, line
        node = line.split("at node '", 1)[1].split("'", 1)[0]
        op = line.split(f"at node '{node}' (", 1)[1].split(",", 1)[0].split(")", 1)[0]
        summary["dml"] = {"ran": False, "node": node, "op_type": op, "line": line[:400]}
        print(f"DirectML: rejects the decoder at node '{node}' ({op}); blamed with the CPU EP's word")
    # The builder's DirectML form runs on DirectML end to end: Wine 8's vkd3d has its 64-bit
    # integer shader ops hidden from DirectML (the mask's Cast), and the shared KV cache lives in
    # DirectML's memory (its GroupQueryAttention reads the past there). The prompt's token must be
    # the CPU EP's; a later part is judged by the logit verdict below.
    form = load(f"{folder}/dml-form.json")
    assert form["device"]["execution_provider"] == "DmlExecutionProvider", form["device"]
    assert "64-bit integer shader ops" in (form["device"].get("direct3d12") or ""), form["device"]
    assert form["kv_cache"]["on_device"], form["kv_cache"]
    generated = form["prompts"][0]["token_ids"]
    assert len(generated) == 40, generated
    compared = load(f"{folder}/dml-form-compare.json")
    assert compared["prompts"][0]["token_ids"] == generated, "the --compare-ep run made other tokens than the default"
    parted = compared["comparison"]["prompts"][0]
    at = parted["first_difference"]
    assert at is None or at >= 1, f"DirectML's first token is not the CPU EP's: {parted}"
    # Every step's logits against the CPU EP's (fed the same tokens): a part is allowed only where
    # the CPU EP itself hesitated (a near-tie), never where it was sure.
    logits = parted["logits"]
    assert logits["verdict"] != "parts", f"DirectML parts from the CPU EP where it was sure: {logits['steps'][:3]}"
    summary["dml_form"] = {"first_difference": at, "verdict": logits["verdict"], "noise": logits["noise"],
                           "worst_cosine": logits["worst_cosine"],
                           "tokens_per_s": form["prompts"][0]["figures"]["generation_tokens_per_s"]}
    tokens = "the same" if at is None else f"parts at token {at}"
    print(f"DirectML form, float16, on DirectML: 40 tokens; against the CPU EP: {tokens}; logits: {logits['verdict']} "
          f"(max |diff| {logits['worst_max_abs_diff']:.3g}, cosine >= {logits['worst_cosine']:.6f}, noise {logits['noise']:.3g})")
    # The decode step is captured by default on DirectML (as onnxruntime-genai does), and the
    # replays must give the uncaptured run's tokens in every repetition: a replay reads only the
    # buffers the capture recorded, so a token, mask or position not written into them (or logits
    # read before the replay finished) shows here.
    captured, uncaptured = form, load(f"{folder}/dml-form-uncaptured.json")
    assert captured["graph_capture"]["asked"] == "default", captured["graph_capture"]
    assert captured["graph_capture"]["captured"] and captured["decode_step_captured"], captured["graph_capture"]
    assert "enable_graph_capture" in json.dumps(captured["plan"]), captured["plan"]
    assert not uncaptured["graph_capture"]["captured"] and not uncaptured["decode_step_captured"], uncaptured["graph_capture"]
    assert uncaptured["graph_capture"]["asked"] == "no-dml-graph-capture", uncaptured["graph_capture"]
    assert "enable_graph_capture" not in json.dumps(uncaptured["plan"]), uncaptured["plan"]
    for report in (captured, uncaptured):
        assert "differing_repetition" not in report["prompts"][0], report["prompts"][0]
    # Greedy over the captured step: the token is chosen on the device (an ArgMax over the logits'
    # buffer, one int64 read back); uncaptured, on the host from the logits read back.
    assert captured["token_choice"]["on_device"], captured["token_choice"]
    assert not uncaptured["token_choice"]["on_device"], uncaptured["token_choice"]
    replayed, plain = captured["prompts"][0]["token_ids"], uncaptured["prompts"][0]["token_ids"]
    assert replayed == plain, f"graph capture and the choice on the device changed the tokens: {replayed} != {plain}"
    speed = {name: r["prompts"][0]["figures"]["generation_tokens_per_s"] for name, r in (("uncaptured", uncaptured), ("captured", captured))}
    summary["graph_capture"] = {"default_captured": True, "greedy_on_device": True, "tokens_equal": True, "tokens_per_s": speed}
    print(f"the default captures the decode step and chooses on the device: the same 40 tokens as uncaptured; tokens/s {speed['captured']:.1f} against {speed['uncaptured']:.1f} uncaptured")
    survey = load(f"{folder}/each-op.json")
    assert survey["schema"] == "dmlrun.each-op/1", survey["schema"]
    ops = {f"{o['domain'] + ':' if o['domain'] not in ('', 'ai.onnx') else ''}{o['op_type']}": o["outcome"]["outcome"] for o in survey["ops"]}
    for needed in ("com.microsoft:GroupQueryAttention", "com.microsoft:SkipSimplifiedLayerNormalization", "MatMul"):
        assert needed in ops, f"{needed} not surveyed: {sorted(ops)}"
    summary["each_op"] = ops
    print("each operator alone on DirectML: " + ", ".join(f"{k} {v}" for k, v in ops.items()))
    with open(f"{folder}/summary.json", "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)


def gather_dequantized(folder):
    """fix of the DirectML form whose embedding is a GatherBlockQuantized: the model as it is
    fails (the reference's tokens, but uncaptured: the node is on the CPU), --dequantize-gather
    is among what fix kept, and the written folder generates captured, with the tokens fix
    checked against the CPU EP."""
    fixed = load(f"{folder}/int4-embed.fix.json")
    assert fixed["verdict"] == "fixed", fixed
    assert "--dequantize-gather" in fixed["remedies"], fixed["remedies"]
    first = fixed["attempts"][0]
    assert first["remedies"] == [] and first["outcome"] in ("fails", "differs"), first
    print(f"fix: as it is, {first['outcome']}: {str(first.get('detail', ''))[:200]}")
    print(f"fix: kept {' '.join(fixed['remedies'])} after {len(fixed['attempts'])} attempts")
    alone = load(f"{folder}/int4-embed-fixed.json")
    assert alone["graph_capture"]["captured"] and alone["decode_step_captured"], alone["graph_capture"]
    assert "GatherBlockQuantized" not in json.dumps(alone["device"]), alone["device"]
    speed = alone["prompts"][0]["figures"]["generation_tokens_per_s"]
    print(f"the written folder alone: captured, {speed:.1f} tokens/s")


def partial_block(folder):
    """The int4 form of matmul_weights on DirectML: its MatMulNBits with K=48 (a block and a half
    of 32) is left on the CPU by DirectML, and the warning and the JSON name it."""
    with open(f"{folder}/partial-int4.txt", encoding="utf-8") as f:
        text = f.read()
    report = load(f"{folder}/partial-int4.json")
    named = [n for p in report["device"]["placement"] for n in p.get("names", [])]
    assert "MatMulNBits 'partial_Q4'" in named, report["device"]["placement"]
    off = {n["node"]: n for n in report["device"].get("off_directml", [])}
    why = off["partial_Q4"].get("reason", "")
    assert "its K, 48, is not a whole number of 32-blocks" in why, off
    assert "MatMulNBits 'partial_Q4'" in text and "is not a whole number of 32-blocks" in text, text
    print(f"off DirectML, named: {', '.join(named)}; why: {why}")


def partial_block_alone(folder):
    """The one-node model of issue 75 (a MatMulNBits with K 48, block 32): ONNX Runtime places its
    one node on the CPU and lists none, so dmlrun names the node from the model with the reason,
    never "DirectML takes none of this model's operators"; `fix` with no flag finds
    --dequantize-matmulnbits and writes a model that runs wholly on DirectML, with the CPU EP's
    outputs."""
    with open(f"{folder}/k48.txt", encoding="utf-8") as f:
        text = f.read()
    report = load(f"{folder}/k48.json")
    off = report["device"].get("off_directml", [])
    assert [n["node"] for n in off] == ["proj"], off
    assert "its K, 48, is not a whole number of 32-blocks" in off[0].get("reason", ""), off
    assert "MatMulNBits 'proj' (its K, 48, is not a whole number of 32-blocks" in text, text
    assert "takes none of this model's operators" not in text, text
    fixed = load(f"{folder}/k48-fix.json")
    assert fixed["verdict"] == "fixed" and "--dequantize-matmulnbits" in fixed["remedies"], fixed
    alone = load(f"{folder}/k48-fixed-run.json")
    working = [n for n in alone["device"].get("off_directml", []) if not n.get("harmless")]
    assert not working, alone["device"]
    placed = {p["execution_provider"]: p["nodes"] for p in alone["device"]["placement"]}
    assert placed.get("DmlExecutionProvider"), placed
    print(f"the one-node partial block: named with its reason; fix: {' '.join(fixed['remedies'])}; "
          f"the fixed model wholly on DirectML ({placed})")


def partial_block_dequantized(folder):
    """The same with --dequantize-matmulnbits: every MatMulNBits a float MatMul over its weight
    dequantized, the partial one too, so no node of the model's work is left off DirectML, and the
    outputs are the original's on the CPU EP to float32's rounding."""
    report = load(f"{folder}/partial-int4-deq.json")
    rewrite = report["rewrite"]
    replaced = rewrite["summary"]["rewritten"]["--dequantize-matmulnbits"]
    assert "partial_Q4" in replaced, replaced
    named = [n for p in report["device"]["placement"] for n in p.get("names", [])]
    assert not any("MatMul" in n for n in named), report["device"]["placement"]
    worst = max(o["max_abs"] for o in rewrite["outputs"])
    assert worst < 1e-5, rewrite["outputs"]
    print(f"--dequantize-matmulnbits: {len(replaced)} nodes replaced, none of them off DirectML; "
          f"{rewrite['summary']['constant_bytes']} bytes of weights written; max |diff| against the original {worst:.3g}")


def int8(folder):
    """The sample's int8 forms under Wine against the Linux build on the CPU EP, photo by photo:
    the same top-1 class, its probability within 0.02 (a few of the output's quantization steps,
    two ONNX Runtime versions apart); the QDQ form wholly on DirectML, the QOperator form with its
    QLinearMul and QLinearSoftmax named off DirectML, --drop-qdq-pair's two pairs dropped, and
    the QDQ form on the CPU EP run at all (its int8 kernels need the AMX tiles dmlrun asks for)."""
    import glob
    import os
    photos = sorted(os.path.basename(p)[:-4] for p in glob.glob(f"{folder}/photos/*.png"))
    assert photos, folder
    for p in photos:
        for form in ("qdq", "qop", "qdq-dropped", "qdq-cpu"):
            ours, linux = load(f"{folder}/{form}-{p}.json"), load(f"{folder}/linux-{form}-{p}.json")
            top, top_linux = ours["top_k"][0]["items"][0][0], linux["top_k"][0]["items"][0][0]
            assert top["index"] == top_linux["index"], f"{form} on {p}: {top} under Wine, {top_linux} on Linux"
            assert abs(top["score"] - top_linux["score"]) <= 0.02, f"{form} on {p}: {top} against {top_linux}"
            device = ours["device"]
            off = [n for e in device.get("placement", []) if e["execution_provider"] != "DmlExecutionProvider"
                   for n in e.get("names", [])]
            if form == "qdq-cpu":
                assert device["execution_provider"] == "CPUExecutionProvider", device
            elif form == "qop":
                assert any(n.startswith("QLinearSoftmax") for n in off) and any(n.startswith("QLinearMul") for n in off), off
            else:
                assert device["execution_provider"] == "DmlExecutionProvider" and not off, device
            if form == "qdq-dropped":
                assert len(ours["rewrite"]["summary"]["rewritten"]["--drop-qdq-pair"]) == 2, ours["rewrite"]
            print(f"{form} on {p}: {top['label']} {top['score']:.4f} (Linux CPU EP: {top_linux['score']:.4f})"
                  + (f"; off DirectML: {', '.join(off)}" if off else ""))


def diagnosis(folder, *names):
    """Each model DirectML rejects: the run's error blames DirectML with the CPU EP's word (never
    the inputs), and names the node where ONNX Runtime does; `dmlrun reduce` kept fewer nodes,
    and its minimal model fails `dmlrun test` on DirectML and passes on the CPU EP. Writes the
    figures to FOLDER/summary.json."""
    rows = []
    for name in names:
        with open(f"{folder}/{name}.run.line", encoding="utf-8") as f:
            line = f.read().strip()
        assert "DirectML rejects this model (the CPU EP runs it with the same inputs)" in line, f"{name}: {line}"
        for advice in ("--shape", "--dim", "--generate-range", "--free-dim-size"):
            assert advice not in line, f"{name}: input advice '{advice}' for an EP failure: {line}"
        reduced = f"target/wine/diagnosis/{name}-reduced"
        r = load(f"{reduced}/reduce.json")
        assert r["mode"] == "rejection", f"{name}: mode {r['mode']}"
        assert r["complete"], f"{name}: the reduction did not finish"
        assert r["nodes_after"] < r["nodes_before"] or r["nodes_before"] == 1, f"{name}: kept {r['nodes_after']}"
        assert r["outcome"]["outcome"] in ("error", "crash"), f"{name}: minimal model {r['outcome']}"
        dml = load(f"target/wine/diagnosis/{name}-test-dml.json")["cases"][0]
        cpu = load(f"target/wine/diagnosis/{name}-test-cpu.json")["cases"][0]
        assert dml["status"] in ("error", "crash"), f"{name}: minimal model on DirectML: {dml['status']}"
        assert dml.get("blame") in (None, "ep"), f"{name}: minimal model blamed on {dml.get('blame')}"
        assert cpu["status"] == "pass", f"{name}: minimal model on the CPU EP: {cpu['status']}"
        stage = "run" if "fails at run" in line else "session creation"
        named = line.split("node '", 1)[1].split("'", 1)[0] if "node '" in line else None
        with open(f"{folder}/{name}.run.ms", encoding="utf-8") as f:
            run_ms = int(f.read())
        with open(f"{folder}/{name}.reduce.ms", encoding="utf-8") as f:
            reduce_ms = int(f.read())
        node = r["node"]
        rows.append({
            "model": name, "stage": stage, "node_named_by_onnxruntime": named,
            "classify_s": round(run_ms / 1000, 1), "reduce_s": round(reduce_ms / 1000, 1),
            "candidates": len(r["tried"]), "nodes_before": r["nodes_before"], "nodes_after": r["nodes_after"],
            "node": node["name"], "op_type": node["op_type"], "minimal_on_dml": dml["status"],
            "dml_reason": (dml.get("reason") or "")[:300],
        })
        print(f"{name}: {stage}; blamed on DirectML in {run_ms / 1000:.1f} s; reduced {r['nodes_before']} -> "
              f"{r['nodes_after']} nodes ({node['op_type']} '{node['name']}') in {reduce_ms / 1000:.1f} s, "
              f"{len(r['tried'])} candidates; minimal model: DirectML {dml['status']}, CPU pass")
    with open(f"{folder}/summary.json", "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=2)


def float16(folder, *names):
    """Each rejected model with --precision fp16 on DirectML: it ran (and then its report holds
    the float16 outputs against the CPU EP's float32 ones, all finite) or it failed with one line
    and exit 1 or 2, never a crash. Prints the table and writes FOLDER/float16.json."""
    rows = []
    for name in names:
        with open(f"{folder}/{name}.fp16.rc", encoding="utf-8") as f:
            rc = int(f.read())
        with open(f"{folder}/{name}.fp16.txt", encoding="utf-8", errors="replace") as f:
            text = f.read()
        errors = [line for line in text.splitlines() if line.startswith("dmlrun: error:")]
        if rc == 0:
            r = load(f"{folder}/{name}.fp16.json")
            p = r["precision"]
            placement = {x["execution_provider"]: x["nodes"] for x in r["device"]["placement"]}
            outputs = {o["output"]: {"max_abs": o["max_abs"], "not_finite": o.get("not_finite", 0)} for o in p["outputs"]}
            row = {"model": name, "runs": True, "placement": placement, "outputs": outputs,
                   "nodes_converted": p["conversion"]["nodes_converted"], "nodes_kept": p["conversion"]["nodes_kept"]}
            print(f"{name}: runs in float16 on DirectML ({placement}); against the CPU EP's float32: "
                  + ", ".join(f"{k} max |diff| {v['max_abs']:.3g}" + (f", {v['not_finite']} not finite" if v["not_finite"] else "")
                              for k, v in outputs.items()))
        else:
            assert rc in (1, 2), f"{name} --precision fp16: exit {rc}: {text[-600:]}"
            assert len(errors) == 1, f"{name} --precision fp16: exit {rc} without one error line: {text[-600:]}"
            row = {"model": name, "runs": False, "exit": rc, "error": errors[0][:400]}
            print(f"{name}: float16 fails too: {errors[0][:300]}")
        rows.append(row)
    with open(f"{folder}/float16.json", "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=2)


def rewritten_on_dml(path):
    """A run rewritten (--gemm-zero-bias, --decompose) on DirectML: every node there, the rewrite
    checked against the original on the CPU EP, and the outputs equal to the CPU EP's."""
    r = load(path)
    placement = {p["execution_provider"]: p["nodes"] for p in r["device"]["placement"]}
    assert "DmlExecutionProvider" in placement, placement
    rewrite = r["rewrite"]
    assert rewrite["summary"]["rewritten"], rewrite
    assert all(o["max_abs"] == 0.0 for o in rewrite["outputs"] if not o.get("exact")), rewrite["outputs"]
    comparison = r["comparison"]
    assert not comparison["mismatches"], comparison["mismatches"]
    print(f"{path}: runs on DirectML ({placement}) with {', '.join(rewrite['summary']['rewritten'])}, "
          f"outputs equal to the CPU EP's within tolerance")


def fused_pair_reduced(path):
    """reduce of the two-node pooler on DirectML: the minimal model is the pair, the node named is
    the Gemm with the Tanh it was fused with, and --gemm-zero-bias makes it pass, the whole model
    too."""
    r = load(path)
    assert r["nodes_after"] == 2, f"kept {r['nodes_after']} nodes, not the fused pair"
    assert r["node"]["name"] == "node_Gemm_26" and r.get("fused_with") == ["node_tanh"], (r["node"]["name"], r.get("fused_with"))
    fix = [m for m in r["remedies"] if m["option"] == "--gemm-zero-bias"]
    assert fix and fix[0]["minimal"]["outcome"] == "pass" and fix[0]["whole"]["outcome"] == "pass", r["remedies"]
    print(f"the pooler reduced to node_Gemm_26 fused with node_tanh; --gemm-zero-bias passes (max |diff| {fix[0].get('max_abs_diff')})")


def kept_in_float32(path):
    """fix --precision fp16 of beyond_float16.onnx on DirectML: float16 as asked gives infinities
    (a tensor of 90000), and the fix keeps exactly the three nodes that touch it in float32."""
    record = load(path)
    first = record["attempts"][0]
    assert first["outcome"] == "differs", f"float16 as asked: {first}"
    assert record["verdict"] == "fixed", record
    kept = [record["remedies"][0].split()[i] for i in range(1, len(record["remedies"][0].split()), 2)] if record["remedies"] else []
    assert sorted(kept) == ["back_in_range", "beyond_float16", "moved"], record["remedies"]
    print(f"{path}: float16 as asked {first['outcome']} ({first.get('detail', '')[:120]}); fixed with {' '.join(record['remedies'])}")


def transformers(folder, *models):
    """Each torch-exported model through `dmlrun fix` with no remedy given: fixed, with the
    remedies it found, and its written model alone on DirectML within tolerance of the CPU EP on
    the original; a model fix could not mend must come with reduce's node and minimal model.
    Written to FOLDER/summary.json."""
    rows, not_fixed = [], []
    for name in models:
        record = load(os.path.join(folder, f"{name}.fix.json"))
        attempts = record["attempts"]
        row = {"model": name, "verdict": record["verdict"], "remedies": record["remedies"],
               "attempts": len(attempts), "seconds": round(sum(a["seconds"] for a in attempts), 1),
               "as_it_is": attempts[0].get("detail", attempts[0]["outcome"])[:200]}
        if record["verdict"] == "fixed":
            alone = load(os.path.join(folder, f"{name}.alone.json"))["cases"][0]
            assert alone["status"] == "pass", f"{name}: fix's model alone on DirectML: {alone['status']}: {alone.get('reason')}"
            row["max_abs_diff"] = alone.get("max_abs_diff")
            print(f"{name}: fixed with {' '.join(record['remedies'])} ({len(attempts)} attempts, {row['seconds']} s); "
                  f"alone on DirectML, no flag: passes against the CPU EP on the original (max |diff| {row['max_abs_diff']})")
        else:
            located = record.get("located") or {}
            assert located.get("node") and located.get("minimal"), f"{name}: not fixed and not reduced: {located}"
            row["located"] = located
            not_fixed.append(name)
            print(f"{name}: {record['verdict']}; still fails at {located['node']} ({located.get('op_type')}), "
                  f"minimal model in {located['minimal']}")
        rows.append(row)
    with open(os.path.join(folder, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=2)
    # On this stack each of them runs with the three rewrites in float16 (docs/gpu.md): fix must
    # find that by itself.
    assert not not_fixed, f"dmlrun fix did not mend {', '.join(not_fixed)}"


def smollm2(folder):
    """SmolLM2 (real weights) on DirectML under Wine on lavapipe. Two known failures of this stack,
    asserted as they are so that a change is noticed (then update this and docs/guide.md): as
    written, the float16 form's fused RMS norms give logits far from the CPU EP's (verdict
    `parts`, cosine below 0.9); the int4 form's prefill logits are not finite even with the norms
    decomposed. With the norms decomposed the float16 form's logits must agree with the CPU EP's
    on the same folder (no part where the CPU EP was sure, cosine at least 0.99) and the excerpt's
    perplexity be within 1% of the CPU EP's and within 1.01 x the float32 form's. Writes
    FOLDER/summary.json."""
    as_written = None
    if os.path.exists(f"{folder}/as-written.json"):  # scripts/wine-check --smollm2; not in CI's run
        as_written = load(f"{folder}/as-written.json")["comparison"]["prompts"][0]["logits"]
        assert as_written["verdict"] == "parts" and as_written["worst_cosine"] < 0.9, \
            f"SmolLM2 as written on DirectML no longer fails on this stack: {as_written['verdict']}, cosine {as_written['worst_cosine']}"
        print(f"SmolLM2 dml-fp16 as written on DirectML: logits against the CPU EP's: {as_written['verdict']} (cosine "
              f"{as_written['worst_cosine']:.3f}, max |diff| {as_written['worst_max_abs_diff']:.3g}): this stack's fused RMS norms")
    int4 = load(f"{folder}/dml-int4.json")["comparison"]["prompts"][0]["logits"]
    finite = int4["worst_max_abs_diff"] is not None and int4["worst_cosine"] is not None
    assert int4["verdict"] == "parts" and not finite, \
        f"SmolLM2's int4 form on DirectML no longer gives non-finite logits on this stack: {int4['verdict']}, max |diff| {int4['worst_max_abs_diff']}"
    print("SmolLM2 dml-int4, norms decomposed, on DirectML: the prefill's logits are not finite (verdict parts): "
          "a failure of this stack, not yet located")
    base = load(f"{folder}/cpu-fp32.perplexity.json")["perplexity"]["measured"]["perplexity"]
    chat = load(f"{folder}/dml-fp16.json")
    assert chat["device"]["execution_provider"] == "DmlExecutionProvider", chat["device"]
    compared = chat["comparison"]["prompts"][0]
    logits = compared["logits"]
    assert logits["verdict"] != "parts" and logits["worst_cosine"] >= 0.99, \
        f"dml-fp16: DirectML's logits against the CPU EP's: {logits['verdict']}, cosine {logits['worst_cosine']}: {logits['steps'][:2]}"
    text = chat["prompts"][0].get("generated_text", "")
    ppl = load(f"{folder}/dml-fp16.perplexity.json")["perplexity"]
    ratio_cpu = ppl["ratio"]
    ratio_fp32 = ppl["measured"]["perplexity"] / base
    assert abs(ratio_cpu - 1) <= 0.01, f"dml-fp16: DirectML's perplexity {ratio_cpu:.4f} x the CPU EP's on the same folder"
    assert ratio_fp32 <= 1.01, f"dml-fp16: perplexity {ratio_fp32:.4f} x the float32 form's, beyond 1.01"
    summary = {
        "as_written": as_written and {k: as_written[k] for k in ("verdict", "worst_cosine", "worst_max_abs_diff")},
        "int4": {"verdict": int4["verdict"], "finite": finite},
        "cpu_fp32_perplexity": base,
        "dml-fp16": {"verdict": logits["verdict"], "first_difference": compared["first_difference"],
                     "worst_max_abs_diff": logits["worst_max_abs_diff"], "worst_cosine": logits["worst_cosine"],
                     "noise": logits["noise"], "text": text, "perplexity": ppl["measured"]["perplexity"],
                     "perplexity_cpu_same_folder": ppl["reference"]["perplexity"], "over_fp32": ratio_fp32},
    }
    print(f"SmolLM2 dml-fp16, norms decomposed, on DirectML: {text!r}; logits against the CPU EP's: {logits['verdict']} "
          f"(max |diff| {logits['worst_max_abs_diff']:.3g}, cosine >= {logits['worst_cosine']:.6f}); excerpt perplexity "
          f"{ppl['measured']['perplexity']:.4f} ({ratio_cpu:.5f} x the CPU EP's, {ratio_fp32:.4f} x float32's)")
    with open(f"{folder}/summary.json", "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    globals()[command.replace("-", "_")](*args)
