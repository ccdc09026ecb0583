#!/usr/bin/env python3
"""`--precision int8` and `int4` against float32 on the CPU EP, on a real decoder (SmolLM2-135M),
side by side in one run: the decode speed a token, and the perplexity, of each form.

The forms: the float32 folder as it is; int8 and int4 with dmlrun's CPU default (accuracy level
4, ONNX Runtime's int8 kernels); and int8 and int4 with `--accuracy-level 0` (the attribute left
out, as ONNX Runtime's quantizer writes it by default: the form that decoded 7x slower than
float32). Each round runs every form once, in its own process, in the order of the round
(rotated each round, so no form always runs first); a form's sample is the p50 of its decode steps
in that round. The verdict of a form against float32: the ratio of the medians of the round p50s,
and the exact two-sided Mann-Whitney U test over the rounds (alpha 0.05; 'inconclusive' where p
is above it). Perplexity: teacher-forced over the first TOKENS of a text, once per form.

    bench_precision.py DMLRUN FOLDER TEXT [--rounds 5] [--prompt 36] [--new 32]

Prints a table; writes bench-precision.json beside nothing (to the path --json gives).
"""
import argparse
import itertools
import json
import statistics
import subprocess
import sys

FORMS = [
    ("float32", []),
    ("int8, accuracy level 4 (default)", ["--precision", "int8"]),
    ("int8, accuracy level 0", ["--precision", "int8", "--accuracy-level", "0"]),
    ("int4, accuracy level 4 (default)", ["--precision", "int4"]),
    ("int4, accuracy level 0", ["--precision", "int4", "--accuracy-level", "0"]),
]


def dmlrun_json(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr[-2000:]}")
    return json.loads(out.stdout)


def decode_p50(dmlrun, folder, flags, prompt, new):
    report = dmlrun_json([dmlrun, "generate", folder, "--ep", "cpu", "--prompt-tokens", str(prompt), "-n", str(new),
                          "--iterations", "1", "--warmup", "1", "--json", "-", "-q"] + flags)
    return report["prompts"][0]["figures"]["decode_ms"]["p50"]


def perplexity(dmlrun, folder, flags, text, window):
    report = dmlrun_json([dmlrun, "generate", folder, "--ep", "cpu", "--perplexity", text, "--window", str(window),
                          "--json", "-", "-q"] + flags)
    return report["perplexity"]["measured"]


def mann_whitney_exact(a, b):
    """Two-sided exact p of the Mann-Whitney U test (no ties expected in timings)."""
    pooled = a + b
    observed = sum(1 for x in a for y in b if x < y) + 0.5 * sum(1 for x in a for y in b if x == y)
    n = len(a)
    mean = len(a) * len(b) / 2
    extreme = total = 0
    for chosen in itertools.combinations(range(len(pooled)), n):
        first = [pooled[i] for i in chosen]
        rest = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        u = sum(1 for x in first for y in rest if x < y) + 0.5 * sum(1 for x in first for y in rest if x == y)
        total += 1
        extreme += abs(u - mean) >= abs(observed - mean) - 1e-9
    return extreme / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dmlrun")
    parser.add_argument("folder")
    parser.add_argument("text")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--prompt", type=int, default=36)
    parser.add_argument("--new", type=int, default=32)
    parser.add_argument("--window", type=int, default=256)
    parser.add_argument("--json")
    args = parser.parse_args()
    samples = {name: [] for name, _ in FORMS}
    for r in range(args.rounds):
        order = FORMS[r % len(FORMS):] + FORMS[:r % len(FORMS)]
        for name, flags in order:
            samples[name].append(decode_p50(args.dmlrun, args.folder, flags, args.prompt, args.new))
        print(f"round {r + 1}/{args.rounds}: " + ", ".join(f"{n.split(',')[0]}{'' if 'default' in n or n == 'float32' else '@0'} {samples[n][-1]:.1f}" for n, _ in FORMS), flush=True)
    scored = {name: perplexity(args.dmlrun, args.folder, flags, args.text, args.window) for name, flags in FORMS}
    base = samples["float32"]
    rows = []
    print(f"\nSmolLM2-135M on the CPU EP, {args.prompt}-token prompt, {args.new} new tokens, {args.rounds} rounds "
          f"(a round's sample: the p50 of its decode steps); perplexity over {scored['float32']['scored']} tokens of {args.text}")
    print(f"{'form':<34} {'ms/token':>9} {'vs float32':>11} {'p (U test)':>11} {'verdict':>13} {'perplexity':>11} {'vs float32':>11}")
    for name, _ in FORMS:
        median = statistics.median(samples[name])
        ratio = median / statistics.median(base)
        p = mann_whitney_exact(samples[name], base) if name != "float32" else 1.0
        verdict = "-" if name == "float32" else ("inconclusive" if p > 0.05 else ("faster" if ratio < 1 else "slower"))
        ppl = scored[name]["perplexity"]
        ppl_ratio = ppl / scored["float32"]["perplexity"]
        rows.append({"form": name, "decode_ms_p50_by_round": samples[name], "median_ms": median, "ratio": ratio,
                     "mann_whitney_p": p, "verdict": verdict, "perplexity": ppl, "perplexity_ratio": ppl_ratio})
        print(f"{name:<34} {median:>9.2f} {ratio:>10.2f}x {p:>11.3f} {verdict:>13} {ppl:>11.3f} {ppl_ratio:>10.4f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rounds": args.rounds, "prompt": args.prompt, "new": args.new, "forms": rows}, f, indent=1)


if __name__ == "__main__":
    main()
