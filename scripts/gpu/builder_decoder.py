#!/usr/bin/env python3
"""Exports a decoder through onnxruntime-genai's own model builder, on the GPU machine.

A transformers checkpoint of a named configuration (Qwen2-0.5B's by default) with seeded random
weights and a word-level tokenizer is written here (no download: the machine reaches nothing),
then the builder's `builder.py` runs on it, from the Python sources of the onnxruntime-genai
wheel that `scripts/gpu/carry-genai-builder` puts beside the bundle. The builder needs PyTorch,
transformers and onnx_ir, which the GPU machine has; it does not load onnxruntime-genai's native
library, so the package itself is not installed (its version is then missing from the graph's
metadata, nothing else).

    builder_decoder.py OUT_DIR --builder DIR [--arch qwen2|llama|phi3|mistral] [--layers N]
                       [--precision fp16|fp32|int4] [--ep dml|cpu]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

# The published shapes (hidden, layers, heads, KV heads, intermediate, vocabulary), each model's
# own config.json (phi3: Phi-3-mini-4k-instruct's, 3.8 B parameters); the number of layers can be cut (--layers) for a quick check.
ARCHS = {
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", dict(
        hidden_size=896, num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
        intermediate_size=4864, vocab_size=151936, max_position_embeddings=32768, rope_theta=1000000.0,
        rms_norm_eps=1e-6, tie_word_embeddings=True, bos_token_id=151643, eos_token_id=151643)),
    "llama": ("LlamaConfig", "LlamaForCausalLM", dict(
        hidden_size=2048, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8,
        intermediate_size=8192, vocab_size=128256, max_position_embeddings=131072, rope_theta=500000.0,
        rms_norm_eps=1e-5, tie_word_embeddings=True, bos_token_id=128000, eos_token_id=128001)),
    "phi3": ("Phi3Config", "Phi3ForCausalLM", dict(
        hidden_size=3072, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=32,
        intermediate_size=8192, vocab_size=32064, max_position_embeddings=4096, original_max_position_embeddings=4096,
        rope_theta=10000.0, rms_norm_eps=1e-5, tie_word_embeddings=False, bos_token_id=1, eos_token_id=32000,
        pad_token_id=32000)),
    "mistral": ("MistralConfig", "MistralForCausalLM", dict(
        hidden_size=4096, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
        intermediate_size=14336, vocab_size=32768, max_position_embeddings=32768, rope_theta=1000000.0,
        rms_norm_eps=1e-5, tie_word_embeddings=False, bos_token_id=1, eos_token_id=2)),
}


def checkpoint(folder, arch, layers):
    import torch
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers

    config_class, model_class, shape = ARCHS[arch]
    shape = dict(shape)
    if layers:
        shape["num_hidden_layers"] = layers
    config = getattr(transformers, config_class)(**shape)
    config.architectures = [model_class]
    torch.manual_seed(45)
    model = getattr(transformers, model_class)(config).to(torch.float16).eval()
    model.save_pretrained(folder)
    # One word a token ("t0" ... "tN"), the special ones where the configuration puts them.
    vocab = {f"t{i}": i for i in range(config.vocab_size)}
    word_level = Tokenizer(models.WordLevel(vocab, unk_token="t0"))
    word_level.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=word_level, bos_token=f"t{config.bos_token_id}", eos_token=f"t{config.eos_token_id}",
        unk_token="t0", pad_token=f"t{config.eos_token_id}")
    tokenizer.save_pretrained(folder)
    parameters = sum(p.numel() for p in model.parameters())
    return config, parameters


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--builder", required=True, help="the folder holding onnxruntime-genai's builder.py")
    parser.add_argument("--arch", choices=sorted(ARCHS), default="qwen2")
    parser.add_argument("--layers", type=int, default=0, help="fewer layers than the published shape")
    parser.add_argument("--precision", choices=["fp16", "fp32", "int4"], default="fp16")
    parser.add_argument("--ep", choices=["dml", "cpu"], default="dml")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        hf = os.path.join(work, "hf")
        config, parameters = checkpoint(hf, args.arch, args.layers)
        command = [sys.executable, os.path.join(args.builder, "builder.py"), "-i", hf, "-o", args.out,
                   "-p", args.precision, "-e", args.ep, "-c", os.path.join(work, "cache")]
        print("builder:", " ".join(command[1:]), flush=True)
        subprocess.run(command, check=True)
    with open(os.path.join(args.out, "builder_decoder.json"), "w") as f:
        json.dump({"arch": args.arch, "layers": config.num_hidden_layers, "hidden": config.hidden_size,
                   "vocab": config.vocab_size, "parameters": parameters, "precision": args.precision,
                   "ep": args.ep, "builder": "onnxruntime-genai 0.18.0 (builder.py from its wheel)"}, f, indent=1)
    print(f"wrote {args.out}: {args.arch}, {config.num_hidden_layers} layers, {parameters / 1e6:.2f} M parameters "
          f"({args.precision}, the builder's {args.ep} form)")


if __name__ == "__main__":
    main()
