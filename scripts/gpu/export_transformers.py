#!/usr/bin/env python3
"""Exports transformers with random weights through torch's default ONNX exporter, as a user on
Windows with today's torch would before picking DirectML (issue 46). Run on the GPU machine,
which has torch and transformers; nothing is downloaded (configs are built here).

    python3 scripts/gpu/export_transformers.py OUT_DIR [--size tiny|base]

tiny: a BERT-style encoder, a ViT-style image model and a GPT-2-style decoder without a KV
cache, each 2 layers of width 32 (committed as tests/models/torch/ for CI under Wine).
base: the BERT encoder at BERT-base's shape (12 layers, width 768), for timing on the H100.
Writes OUT_DIR/NAME.onnx and OUT_DIR/exported.json (torch's version, each model's opset and
operator counts).
"""
import argparse
import collections
import json
import os

import onnx
import torch
import transformers


def configs(size):
    if size == "tiny":
        width, layers, heads, vocab = 32, 2, 4, 1000
    else:
        width, layers, heads, vocab = 768, 12, 12, 30522
    bert = transformers.BertConfig(
        hidden_size=width,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=4 * width,
        vocab_size=vocab,
        max_position_embeddings=128,
    )
    vit = transformers.ViTConfig(
        hidden_size=width,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=4 * width,
        image_size=32,
        patch_size=8,
    )
    gpt2 = transformers.GPT2Config(n_embd=width, n_layer=layers, n_head=heads, vocab_size=vocab, n_positions=64)
    return bert, vit, gpt2


class Logits(torch.nn.Module):
    """GPT-2's logits alone, without the KV cache a generation loop would carry."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--size", choices=["tiny", "base"], default="tiny")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(46)
    bert, vit, gpt2 = configs(args.size)
    ids = torch.randint(0, bert.vocab_size, (1, 16))
    models = {
        "bert": (transformers.BertModel(bert).eval(), (ids, torch.ones(1, 16, dtype=torch.int64)), ["input_ids", "attention_mask"]),
    }
    if args.size == "tiny":
        models["vit"] = (transformers.ViTModel(vit).eval(), (torch.rand(1, 3, 32, 32),), ["pixel_values"])
        models["gpt2"] = (Logits(transformers.GPT2LMHeadModel(gpt2)).eval(), (ids,), ["input_ids"])
    record = {"torch": torch.__version__, "transformers": transformers.__version__, "size": args.size, "models": {}}
    for name, (model, inputs, input_names) in models.items():
        path = os.path.join(args.out, f"{name}.onnx")
        with torch.no_grad():
            # torch's defaults, as a user calls it; only the names and one file are asked for.
            torch.onnx.export(model, inputs, path, input_names=input_names, external_data=args.size == "base")
        loaded = onnx.load(path, load_external_data=False)
        ops = collections.Counter(n.op_type for n in loaded.graph.node)
        opset = {o.domain or "ai.onnx": o.version for o in loaded.opset_import}
        gemm_no_bias = sum(1 for n in loaded.graph.node if n.op_type == "Gemm" and (len(n.input) < 3 or not n.input[2]))
        record["models"][name] = {"opset": opset, "ops": dict(sorted(ops.items())), "gemm_without_bias": gemm_no_bias}
        print(f"{name}: opset {opset}, {sum(ops.values())} nodes, {gemm_no_bias} Gemm without a bias")
    with open(os.path.join(args.out, "exported.json"), "w") as f:
        json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
