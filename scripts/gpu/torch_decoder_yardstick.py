#!/usr/bin/env python3
"""The native-GPU yardstick for `dmlrun generate`: a decoder of the same shape as the one dmlrun
runs (Qwen2-0.5B's by default, scripts/gpu/builder_decoder.py's ARCHS), random weights, float16,
generating greedily with PyTorch eager on CUDA: the plain loop over `forward` with its KV cache
that a user writes, the next token the argmax of the last position's logits, read back as one
integer (`.item()`), as dmlrun's default chooses on the device.

For each prompt length: a synthetic prompt (seeded ids, as `--prompt-tokens N`), one warm-up
generation, then `--iterations` timed ones of `--new-tokens` tokens each, EOS ignored. Time to
first token is the prefill and the first choice; every decode step is timed alone
(synchronised), so the figures read as dmlrun's: TTFT p50, decode ms p50, tokens/s over the
decode steps.

    python3 torch_decoder_yardstick.py OUT.json [--arch qwen2] [--prompts 128,1024]
                                       [--new-tokens 128] [--iterations 3]
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from builder_decoder import ARCHS  # noqa: E402  (the shapes live in one place)


def model_of(arch):
    import transformers

    config_class, model_class, shape = ARCHS[arch]
    config = getattr(transformers, config_class)(**shape)
    torch.manual_seed(45)
    with torch.device("cuda"):
        model = getattr(transformers, model_class)(config).to(torch.float16).eval()
    return model, config


@torch.inference_mode()
def generation(model, prompt, new_tokens):
    """One greedy generation: (TTFT ms, [decode step ms], tokens)."""
    torch.cuda.synchronize()
    started = time.perf_counter()
    out = model(input_ids=prompt, use_cache=True)
    token = int(out.logits[0, -1].argmax().item())
    ttft = (time.perf_counter() - started) * 1000
    cache, tokens, steps = out.past_key_values, [token], []
    for _ in range(new_tokens - 1):
        started = time.perf_counter()
        ids = torch.tensor([[token]], device="cuda")
        out = model(input_ids=ids, past_key_values=cache, use_cache=True)
        token = int(out.logits[0, -1].argmax().item())
        steps.append((time.perf_counter() - started) * 1000)
        cache = out.past_key_values
        tokens.append(token)
    return ttft, steps, tokens


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--arch", choices=sorted(ARCHS), default="qwen2")
    parser.add_argument("--prompts", default="128,1024")
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--iterations", type=int, default=3)
    args = parser.parse_args()
    model, config = model_of(args.arch)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()  # the float32 model it was made from is gone
    generator = torch.Generator().manual_seed(0)
    results = {}
    for n in (int(p) for p in args.prompts.split(",")):
        prompt = torch.randint(0, config.vocab_size, (1, n), generator=generator).cuda()
        generation(model, prompt, 4)  # warm-up: kernels chosen, memory pooled
        ttfts, steps = [], []
        for _ in range(args.iterations):
            ttft, decode, _ = generation(model, prompt, args.new_tokens)
            ttfts.append(ttft)
            steps.extend(decode)
        results[str(n)] = {
            "peak_allocated_mib": torch.cuda.max_memory_allocated() / 2**20,
            "ttft_ms_p50": statistics.median(ttfts),
            "decode_ms_p50": statistics.median(steps),
            "tokens_per_s": len(steps) / (sum(steps) / 1000),
            "generations": args.iterations,
            "new_tokens": args.new_tokens,
        }
        print(f"PyTorch eager, {args.arch}, {n}-token prompt: TTFT {results[str(n)]['ttft_ms_p50']:.1f} ms, "
              f"decode p50 {results[str(n)]['decode_ms_p50']:.2f} ms, {results[str(n)]['tokens_per_s']:.1f} tokens/s",
              flush=True)
    with open(args.out, "w") as f:
        json.dump({"arch": args.arch, "dtype": "float16", "torch": torch.__version__,
                   "device": torch.cuda.get_device_name(0),
                   "attention": getattr(model.config, "_attn_implementation", None), "prompts": results}, f, indent=1)


if __name__ == "__main__":
    main()
