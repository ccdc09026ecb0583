#!/usr/bin/env python3
"""SmolLM2-135M-Instruct (make_smollm2.py's folders) through `dmlrun generate` on the CPU EP,
each figure checked against an independent one:

1. the tokenizer: tokenizer.json against onnxruntime-genai's tokenizer and a BPE read from the
   GGUF alone (smollm2_tokenizer_check.py), on fixed texts, the perplexity text and random mixes;
2. the tokens: dmlrun's greedy tokens against onnxruntime-genai 0.18's on the CPU folder, token for
   token, for plain prompts and one through the chat template (--chat), and the chat answer must
   name Paris;
3. perplexity: `generate --perplexity` on each folder against perplexity_reference.py (Python
   ONNX Runtime, numpy) on the same folder, within 0.5%; the float16 folder within 1% of the
   float32 one's, the int4 one within 60% (its figure is printed: quantizing costs quality).

    smollm2_check.py FOLDERS   (DMLRUN names the binary)

Writes FOLDERS/summary.json with the figures. Exit 1 on any failure.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
TEXT = os.path.join(ROOT, "LICENSE-APACHE")
WINDOW, STRIDE = 1024, 512
FORMS = ("cpu-fp32", "dml-fp16", "dml-int4")
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
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("smollm2-check:", "all checks pass" if not failures else "FAILED: " + "; ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
