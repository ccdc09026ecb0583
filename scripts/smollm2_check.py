#!/usr/bin/env python3
"""SmolLM2-135M-Instruct (make_smollm2.py's folders) through `dmlrun generate` on the CPU EP,
each figure checked against an independent one:

1. the tokenizer: tokenizer.json against onnxruntime-genai's tokenizer and a BPE read from the
   GGUF alone (smollm2_tokenizer_check.py), on fixed texts, the perplexity text and random mixes;
2. the tokens: dmlrun's greedy tokens against onnxruntime-genai 0.18's on the CPU folder, token for
   token, for plain prompts and one through the chat template (--chat), and the chat answer must
   name Paris;
3. perplexity: `generate --perplexity` on each folder against perplexity_reference.py (Python
   ONNX Runtime, numpy) on the float32 and int4 folders, within 0.5%; the float16 folder within 1% of the
   float32 one's, the int4 one within 60% (its figure is printed: quantizing costs quality);
4. --precision int4: the float32 folder quantized by `dmlrun generate --precision int4
   --save-model` against the same model quantized by ONNX Runtime's Python quantizer
   (MatMulNBitsQuantizer, block 32, symmetric): every initializer equal, byte for byte; dmlrun's
   tokens on the fly equal its tokens on Python's folder and onnxruntime-genai's on the saved
   folder; the saved folder's perplexity against the float32 and float16 forms'.

    smollm2_check.py FOLDERS   (DMLRUN names the binary)

Writes FOLDERS/summary.json with the figures. Exit 1 on any failure.
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
TEXT = os.path.join(ROOT, "LICENSE-APACHE")
WINDOW, STRIDE = 1024, 512
FORMS = ("cpu-fp32", "dml-fp16", "dml-int4")
# The forms whose perplexity is checked against Python ONNX Runtime's (the float32 graph and the
# MatMulNBits one; the float16 form runs the same scoring over the same graph shape).
REFERENCED = ("cpu-fp32", "dml-int4")
# A form's perplexity over the float32 form's, at most.
BOUNDS = {"cpu-fp32": 1.0, "dml-fp16": 1.01, "dml-int4": 1.6}
PROMPTS = [
    {"prompt": "The capital of France is", "max_new_tokens": 24},
    {"prompt": "def fibonacci(n):", "max_new_tokens": 32},
    {"prompt": "What is the capital of France?", "chat": True, "max_new_tokens": 32},
]


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def genai_tokens(folder, case):
    cmd = [sys.executable, os.path.join(HERE, "genai_reference.py"), folder, "--prompt", case["prompt"],
           "--max-new-tokens", str(case["max_new_tokens"])]
    return json.loads(run(cmd + (["--chat"] if case.get("chat") else [])))


def dmlrun_generate(folder, case):
    cmd = [os.environ["DMLRUN"], "generate", folder, "--prompt", case["prompt"], "-n", str(case["max_new_tokens"]),
           "--json", "-", "-q"]
    report = json.loads(run(cmd + (["--chat"] if case.get("chat") else [])))
    return report["prompts"][0]


def dmlrun_perplexity(folder):
    cmd = [os.environ["DMLRUN"], "generate", folder, "--perplexity", TEXT, "--window", str(WINDOW), "--stride",
           str(STRIDE), "--json", "-", "-q"]
    return json.loads(run(cmd))["perplexity"]["measured"]


def python_int4(source_folder, folder):
    """The float32 folder quantized by ONNX Runtime's own quantizer, as a model folder."""
    import onnx
    from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer

    # accuracy_level 4: what dmlrun writes for the CPU EP (its int8 kernels), so that the three
    # forms compared below compute alike.
    config = DefaultWeightOnlyQuantConfig(block_size=32, is_symmetric=True, bits=4, accuracy_level=4)
    quantizer = MatMulNBitsQuantizer(onnx.load(os.path.join(source_folder, "model.onnx")), algo_config=config)
    quantizer.process()
    os.makedirs(folder)
    for name in os.listdir(source_folder):
        if name.endswith(".json"):
            shutil.copy(os.path.join(source_folder, name), folder)
    quantizer.model.save_model_to_file(os.path.join(folder, "model.onnx"), use_external_data_format=True)


def initializers(folder):
    import onnx
    from onnx import numpy_helper

    model = onnx.load(os.path.join(folder, "model.onnx"))
    return {t.name: (t.data_type, list(t.dims), numpy_helper.to_array(t).tobytes()) for t in model.graph.initializer}


def int4_from_float32(out, failures, summary):
    cpu = os.path.join(out, "smollm2-cpu-fp32")
    ours, theirs = os.path.join(out, "smollm2-int4-dmlrun"), os.path.join(out, "smollm2-int4-python")
    for folder in (ours, theirs):
        shutil.rmtree(folder, ignore_errors=True)
    case = PROMPTS[0]
    cmd = [os.environ["DMLRUN"], "generate", cpu, "--precision", "int4", "--prompt", case["prompt"], "-n",
           str(case["max_new_tokens"]), "--json", "-", "-q", "--save-model", ours]
    report = json.loads(run(cmd))
    python_int4(cpu, theirs)
    a, b = initializers(theirs), initializers(ours)
    differ = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
    quantized = sum(len(v[2]) for n, v in b.items() if n.endswith(("_Q4", "_scales")))
    print(f"int4: {len(b)} initializers, {quantized} bytes quantized: "
          f"{'byte-exact with' if not differ else f'{len(differ)} DIFFER from'} ONNX Runtime's quantizer"
          f"{': ' + ', '.join(differ[:3]) if differ else ''}")
    if differ:
        failures.append("--precision int4's weights against ONNX Runtime's quantizer")
    on_the_fly = report["prompts"][0]["token_ids"]
    on_python = dmlrun_generate(theirs, case)["token_ids"]
    genai = genai_tokens(ours, case)["tokens"]
    same = on_the_fly == on_python == genai
    print(f"int4: tokens {'equal' if same else 'DIFFER'}: dmlrun --precision int4, dmlrun on Python's folder, "
          f"onnxruntime-genai on the saved folder ({len(on_the_fly)} tokens): {report['prompts'][0].get('generated_text')!r}")
    if not same:
        print(f"  on the fly {on_the_fly}\n  python's   {on_python}\n  genai      {genai}")
        failures.append("--precision int4's tokens")
    perplexity = dmlrun_perplexity(ours)["perplexity"]
    forms = summary["perplexity"]
    print(f"int4: perplexity {perplexity:.4f}: {perplexity / forms['cpu-fp32']['dmlrun']:.4f} x float32's, "
          f"{perplexity / forms['dml-fp16']['dmlrun']:.4f} x float16's (the builder-style int4 form: "
          f"{forms['dml-int4']['dmlrun']:.4f})")
    if perplexity / forms["cpu-fp32"]["dmlrun"] > BOUNDS["dml-int4"]:
        failures.append("--precision int4's perplexity")
    summary["int4_from_float32"] = {"byte_exact": not differ, "tokens_equal": same, "perplexity": perplexity}


def main():
    out = sys.argv[1]
    failures = []
    summary = {"text": "LICENSE-APACHE", "window": WINDOW, "stride": STRIDE, "tokens": [], "perplexity": {}}

    rc = subprocess.run([sys.executable, os.path.join(HERE, "smollm2_tokenizer_check.py"), os.path.join(out, "smollm2-cpu-fp32"),
                         "--text", TEXT]).returncode
    if rc:
        failures.append("the tokenizer")

    cpu = os.path.join(out, "smollm2-cpu-fp32")
    for case in PROMPTS:
        ref = genai_tokens(cpu, case)
        ours = dmlrun_generate(cpu, case)
        same = ours["prompt_token_ids"] == ref["prompt_ids"] and ours["token_ids"] == ref["tokens"]
        label = f"{case['prompt']!r}{' (--chat)' if case.get('chat') else ''}"
        print(f"tokens: {label}: {len(ref['tokens'])} tokens {'equal' if same else 'DIFFER'} to onnxruntime-genai's: "
              f"{ours.get('generated_text', '')!r}")
        if not same:
            print(f"  genai  {ref['prompt_ids']} -> {ref['tokens']}\n  dmlrun {ours['prompt_token_ids']} -> {ours['token_ids']}")
            failures.append(f"tokens of {label}")
        if case.get("chat") and "Paris" not in ours.get("generated_text", ""):
            failures.append(f"the chat answer names no Paris: {ours.get('generated_text')!r}")
        summary["tokens"].append({"prompt": case["prompt"], "chat": bool(case.get("chat")), "equal": same,
                                  "text": ours.get("generated_text")})

    for form in FORMS:
        folder = os.path.join(out, f"smollm2-{form}")
        ours = dmlrun_perplexity(folder)
        if form not in REFERENCED:
            print(f"perplexity: {form}: dmlrun {ours['perplexity']:.4f} ({ours['ms'] / 1000:.1f} s; "
                  f"the same computation as the forms checked against Python ONNX Runtime)")
            summary["perplexity"][form] = {"dmlrun": ours["perplexity"], "tokens": ours["tokens"]}
            continue
        ref = json.loads(run([sys.executable, os.path.join(HERE, "perplexity_reference.py"), folder, TEXT,
                              "--window", str(WINDOW), "--stride", str(STRIDE)]))
        off = ours["perplexity"] / ref["perplexity"] - 1
        ok = abs(off) <= 0.005 and ours["scored"] == ref["scored"] and ours["tokens"] == ref["tokens"]
        print(f"perplexity: {form}: dmlrun {ours['perplexity']:.4f}, Python ONNX Runtime {ref['perplexity']:.4f} "
              f"({off * 100:+.4f}%; {ours['tokens']} tokens, {ours['scored']} scored, {ours['windows']} windows; "
              f"{ours['ms'] / 1000:.1f} s)")
        if not ok:
            failures.append(f"perplexity of {form}")
        summary["perplexity"][form] = {"dmlrun": ours["perplexity"], "python": ref["perplexity"], "tokens": ours["tokens"]}
    base = summary["perplexity"]["cpu-fp32"]["dmlrun"]
    for form in FORMS[1:]:
        ratio = summary["perplexity"][form]["dmlrun"] / base
        within = ratio <= BOUNDS[form]
        print(f"perplexity: {form} over cpu-fp32: {ratio:.4f} ({'within' if within else 'BEYOND'} {BOUNDS[form]})")
        if not within:
            failures.append(f"{form}'s perplexity beyond {BOUNDS[form]} x the float32 form's")
    int4_from_float32(out, failures, summary)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("smollm2-check:", "all checks pass" if not failures else "FAILED: " + "; ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
