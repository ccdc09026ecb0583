#!/usr/bin/env python3
"""Greedy token ids of `dmlrun generate` against onnxruntime-genai's, token for token.

1. The committed test model (tests/models/tiny_decoder): onnxruntime-genai's tokens now must be
   the ones committed in genai_expected.json, which `cargo test` holds dmlrun to (so the file
   cannot drift from genai). `--write` rewrites that file from genai instead.
2. Models made here (make_tiny_decoder.py: float16, more layers, a longer context, the
   DirectML form of the graph), each with both KV layouts: dmlrun's tokens must be genai's.

Environment: DMLRUN (the binary). Exit 1 on any difference.
"""
import json
import os
import subprocess
import sys
import tempfile

from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
TINY = os.path.join(ROOT, "tests", "models", "tiny_decoder")
EXPECTED = os.path.join(TINY, "genai_expected.json")

# The committed cases: a text prompt (genai's tokenizer against dmlrun's) and raw ids.
COMMITTED = [
    {"prompt": "Hello world, dmlrun generates text.", "max_new_tokens": 24},
    {"prompt_ids": [5, 17, 33, 100, 7], "max_new_tokens": 40},
]


def genai(model_dir, case):
    cmd = [sys.executable, os.path.join(HERE, "genai_reference.py"), model_dir, "--max-new-tokens", str(case["max_new_tokens"])]
    if "prompt" in case:
        cmd += ["--prompt", case["prompt"]]
    else:
        cmd += ["--prompt-ids", ",".join(map(str, case["prompt_ids"]))]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def dmlrun(model_dir, case, layout):
    cmd = [os.environ["DMLRUN"], "generate", model_dir, "-n", str(case["max_new_tokens"]), "--kv-layout", layout, "--json", "-", "-q"]
    if "prompt" in case:
        cmd += ["--prompt", case["prompt"]]
    else:
        cmd += ["--prompt-ids", ",".join(map(str, case["prompt_ids"]))]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    prompt = json.loads(out)["prompts"][0]
    return prompt["prompt_token_ids"], prompt["token_ids"]


def main():
    write = "--write" in sys.argv
    failures = 0
    cases = []
    for case in COMMITTED:
        ref = genai(TINY, case)
        # The text as Hugging Face's tokenizers decode it (special tokens skipped): what
        # `dmlrun generate` prints.
        text = Tokenizer.from_file(os.path.join(TINY, "tokenizer.json")).decode(ref["tokens"], skip_special_tokens=True)
        cases.append({**case, "prompt_ids_genai": ref["prompt_ids"], "tokens": ref["tokens"], "text": text})
    if write:
        with open(EXPECTED, "w") as f:
            json.dump({"onnxruntime_genai": genai(TINY, COMMITTED[1])["genai_version"], "cases": cases}, f, indent=1)
            f.write("\n")
        print("wrote", EXPECTED)
        return 0
    with open(EXPECTED) as f:
        committed = json.load(f)["cases"]
    for now, then in zip(cases, committed):
        same = now["tokens"] == then["tokens"] and now["prompt_ids_genai"] == then["prompt_ids_genai"]
        print(f"committed expectation {'matches' if same else 'DIFFERS FROM'} onnxruntime-genai now: {then.get('prompt', then.get('prompt_ids'))}")
        failures += not same

    with tempfile.TemporaryDirectory() as tmp:
        made = [
            ("float16, 3 layers", ["--dtype", "float16", "--layers", "3"], {"prompt_ids": [3, 1, 4, 1, 5, 9, 2, 6], "max_new_tokens": 32}),
            # The builder's DirectML form: RotaryEmbedding nodes and a position_ids input.
            ("float16, 3 layers, the DirectML form", ["--dtype", "float16", "--layers", "3", "--ep", "dml"],
             {"prompt_ids": [3, 1, 4, 1, 5, 9, 2, 6], "max_new_tokens": 32}),
            ("float32, 4 layers, 8 heads, 1000-token vocabulary, context 512, 300-token prompt",
             ["--layers", "4", "--hidden", "128", "--heads", "8", "--kv-heads", "2", "--vocab", "1000", "--context", "512", "--seed", "3"],
             {"prompt_ids": [(i * 37) % 997 + 1 for i in range(300)], "max_new_tokens": 64}),
        ]
        for i, (what, flags, case) in enumerate(made):
            folder = os.path.join(tmp, f"m{i}")
            subprocess.run([sys.executable, os.path.join(HERE, "make_tiny_decoder.py"), folder, *flags], check=True, capture_output=True)
            ref = genai(folder, case)["tokens"]
            for layout in ("shared", "growing"):
                _, ours = dmlrun(folder, case, layout)
                same = ours == ref
                print(f"{what}, {layout} KV: {len(ref)} tokens {'equal' if same else 'DIFFER'}")
                if not same:
                    print(f"  genai  {ref}\n  dmlrun {ours}")
                failures += not same
        for case, then in zip(COMMITTED, committed):
            for layout in ("shared", "growing"):
                ids, ours = dmlrun(TINY, case, layout)
                same = ours == then["tokens"] and ids == then["prompt_ids_genai"]
                print(f"tiny_decoder, {layout} KV, {case.get('prompt', 'ids')!r}: {'equal' if same else 'DIFFER'}")
                failures += not same
    print("genai-check:", "all equal" if failures == 0 else f"{failures} difference(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
