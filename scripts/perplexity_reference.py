#!/usr/bin/env python3
"""The teacher-forced perplexity of a text on a genai model folder, computed here with Python
ONNX Runtime and numpy: the independent reference for `dmlrun generate --perplexity`.

    perplexity_reference.py FOLDER TEXT --window N --stride S

The recipe is Hugging Face's for fixed-length models, as dmlrun's: windows of N tokens starting
S apart, each one forward pass from an empty KV cache, scoring only the tokens the previous
window did not (every token after the first when S < N); log-softmax in float64. Tokens from
the folder's tokenizer.json (Hugging Face's tokenizers), the model on the CPU EP. Prints one JSON
object: tokens, scored, windows, mean_nll, perplexity.

Needs: onnxruntime, numpy, tokenizers (pip).
"""
import argparse
import json
import os

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def feeds(session, ids):
    """The decoder's inputs for one window from an empty cache."""
    n = len(ids)
    out = {}
    for i in session.get_inputs():
        if i.name == "input_ids":
            out[i.name] = np.array([ids], dtype=np.int64)
        elif i.name == "attention_mask":
            out[i.name] = np.ones((1, n), dtype=np.int64)
        elif i.name == "position_ids":
            out[i.name] = np.arange(n, dtype=np.int64)[None, :]
        elif i.name.startswith("past_key_values."):
            dtype = np.float16 if i.type == "tensor(float16)" else np.float32
            _, kv_heads, _, head = i.shape
            out[i.name] = np.zeros((1, kv_heads, 0, head), dtype=dtype)
        else:
            raise SystemExit(f"input {i.name} is not one a genai decoder has")
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder")
    p.add_argument("text")
    p.add_argument("--window", type=int, required=True)
    p.add_argument("--stride", type=int, required=True)
    args = p.parse_args()
    with open(os.path.join(args.folder, "genai_config.json")) as f:
        filename = json.load(f)["model"]["decoder"]["filename"]
    with open(args.text, encoding="utf-8") as f:
        ids = Tokenizer.from_file(os.path.join(args.folder, "tokenizer.json")).encode(f.read()).ids
    session = ort.InferenceSession(os.path.join(args.folder, filename), providers=["CPUExecutionProvider"])
    total, scored, windows, scored_to, begin = 0.0, 0, 0, 0, 0
    while True:
        end = min(begin + args.window, len(ids))
        logits = session.run(["logits"], feeds(session, ids[begin:end]))[0][0].astype(np.float64)
        windows += 1
        for at in range(max(scored_to, begin + 1), end):
            row = logits[at - 1 - begin]
            top = row.max()
            total += top + np.log(np.exp(row - top).sum()) - row[ids[at]]
            scored += 1
        scored_to = end
        if end == len(ids):
            break
        begin += args.stride
    mean = total / scored
    print(json.dumps({"tokens": len(ids), "scored": scored, "windows": windows, "mean_nll": mean, "perplexity": float(np.exp(mean))}))


if __name__ == "__main__":
    main()
