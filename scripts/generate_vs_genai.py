#!/usr/bin/env python3
"""Times `dmlrun generate` against onnxruntime-genai's generation loop side by side, in one run,
on the CPU EP: the same model, prompt ids, intra-op threads, new tokens and KV buffer length.
Prints time to first token and generation tokens/s of each and the ratios (dmlrun / genai for
tokens/s, genai / dmlrun for TTFT: above 1 means dmlrun is faster). Nothing is asserted: these
are measurements for the README.

Environment: DMLRUN (binary), GENAI_PYTHON (a Python with onnxruntime-genai), MODEL_DIR (made
by make_tiny_decoder.py), PROMPT_TOKENS, NEW_TOKENS, REPETITIONS, THREADS.

onnxruntime-genai brings its own ONNX Runtime (the onnxruntime wheel it depends on); with ORT_LIB
set to that wheel's library, dmlrun loads the same one (--ort-lib), so the two loops differ only
in themselves. The versions are printed.
"""
import json
import os
import statistics
import subprocess

# Single rounds on a shared 2-core machine move by up to 10% either way: the median of five.
ROUNDS = 5


def main():
    dmlrun, python, model = os.environ["DMLRUN"], os.environ["GENAI_PYTHON"], os.environ["MODEL_DIR"]
    prompt_tokens, new_tokens = int(os.environ.get("PROMPT_TOKENS", 128)), int(os.environ.get("NEW_TOKENS", 128))
    repetitions, threads = int(os.environ.get("REPETITIONS", 5)), int(os.environ.get("THREADS", 2))
    here = os.path.dirname(os.path.abspath(__file__))
    same_ort = ["--ort-lib", os.environ["ORT_LIB"]] if os.environ.get("ORT_LIB") else []

    # dmlrun first only to draw the synthetic prompt; both then run the same ids.
    probe = subprocess.run([dmlrun, "generate", model, "--prompt-tokens", str(prompt_tokens), "-n", "1", "--json", "-", "-q"],
                           check=True, capture_output=True, text=True)
    ids = json.loads(probe.stdout)["prompts"][0]["prompt_token_ids"]
    ids_arg = ",".join(map(str, ids))

    rounds = []
    for _ in range(ROUNDS):  # alternating rounds, so neither tool always runs on a warmer machine
        ours = json.loads(subprocess.run(
            [dmlrun, "generate", model, "--prompt-ids", ids_arg, "-n", str(new_tokens), "--ignore-eos",
             "--iterations", str(repetitions), "--warmup", "1", "--intra-threads", str(threads), *same_ort, "--json", "-", "-q"],
            check=True, capture_output=True, text=True).stdout)
        theirs = json.loads(subprocess.run(
            [python, os.path.join(here, "genai_reference.py"), model, "--prompt-ids", ids_arg, "--max-new-tokens", str(new_tokens),
             "--ignore-eos", "--repetitions", str(repetitions), "--warmup", "1", "--threads", str(threads)],
            check=True, capture_output=True, text=True).stdout)
        figures = ours["prompts"][0]["figures"]
        rounds.append({
            "dmlrun_ttft": figures["ttft_ms"]["p50"],
            "dmlrun_tps": figures["generation_tokens_per_s"],
            "genai_ttft": statistics.median(r["ttft_ms"] for r in theirs["runs"]),
            "genai_tps": statistics.mean(len(r["decode_ms"]) / (sum(r["decode_ms"]) / 1000) for r in theirs["runs"]),
            "same_tokens": ours["prompts"][0]["token_ids"] == theirs["tokens"],
            "ort": ours["onnxruntime"]["version"],
            "genai": theirs["genai_version"],
        })
    median = lambda key: statistics.median(r[key] for r in rounds)
    d_ttft, g_ttft = median("dmlrun_ttft"), median("genai_ttft")
    d_tps, g_tps = median("dmlrun_tps"), median("genai_tps")
    print(f"model {model}: {prompt_tokens}-token prompt, {new_tokens} new tokens, {threads} threads, "
          f"{repetitions} repetitions after 1 warm-up each, median of {ROUNDS} alternating rounds")
    print(f"dmlrun (ONNX Runtime {rounds[0]['ort']}): TTFT {d_ttft:.1f} ms, {d_tps:.1f} tokens/s")
    print(f"onnxruntime-genai {rounds[0]['genai']}: TTFT {g_ttft:.1f} ms, {g_tps:.1f} tokens/s")
    print(f"ratios: tokens/s dmlrun/genai {d_tps / g_tps:.2f}; TTFT genai/dmlrun {g_ttft / d_ttft:.2f} (above 1: dmlrun faster)")
    tps = sorted(r["dmlrun_tps"] / r["genai_tps"] for r in rounds)
    ttft = sorted(r["genai_ttft"] / r["dmlrun_ttft"] for r in rounds)
    print(f"per round: tokens/s ratio {tps[0]:.2f} to {tps[-1]:.2f}; TTFT ratio {ttft[0]:.2f} to {ttft[-1]:.2f}")
    print(f"same greedy tokens: {all(r['same_tokens'] for r in rounds)}")


if __name__ == "__main__":
    main()
