#!/usr/bin/env python3
"""Writes a decoder LLM in onnxruntime-genai's layout, with random weights, made on this machine.

The graph is the one onnxruntime-genai's model builder emits for a Llama-type model: Gather
embedding, SimplifiedLayerNormalization / SkipSimplifiedLayerNormalization, MatMul projections,
GroupQueryAttention, a SiLU MLP (Sigmoid, Mul), the attention-mask subgraph the builder makes for
GQA (ReduceSum-1 -> seqlens_k, Shape[1] -> total_sequence_length), and `past_key_values.%d.key`
-> `present.%d.key` with a KV buffer shared between past and present. `--ep` picks the builder's
form for an execution provider, as its `-e` does: for `cpu` (and CUDA) the rotary embedding is
inside GroupQueryAttention (do_rotary=1 with cos/sin caches); for `dml` it is a separate
com.microsoft RotaryEmbedding on the queries and keys, fed by a `position_ids` input, and
GroupQueryAttention has do_rotary=0, because DirectML's GroupQueryAttention kernel does not
implement do_rotary (it reads neither the attribute nor the caches, and gives other numbers). The builder itself needs
PyTorch and transformers to read a checkpoint; this writes the same graph from numpy, so a test
model needs no download and no PyTorch.

    make_tiny_decoder.py OUT_DIR [--layers N --hidden H --heads Q --kv-heads K --intermediate I
                                  --vocab V --context C --dtype float32|float16 --ep cpu|dml
                                  --seed S]

The tokenizer is a byte-level BPE trained (Hugging Face `tokenizers`) on this repository's
README, cut to the vocabulary size, so any text encodes; with a vocabulary larger than what the
training text yields, the remaining ids exist in the model only (like padded vocabularies of
real models).

Needs: onnx, numpy, tokenizers (pip).
"""
import argparse
import json
import os

import numpy as np
import onnx

import decoder_graph

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--intermediate", type=int, default=128)
    p.add_argument("--vocab", type=int, default=384)
    p.add_argument("--context", type=int, default=128)
    p.add_argument("--dtype", choices=["float32", "float16"], default="float32")
    p.add_argument("--ep", choices=["cpu", "dml"], default="cpu",
                   help="the execution provider whose form of the graph the builder emits (rotary inside GQA, or separate)")
    p.add_argument("--seed", type=int, default=7)
    return p.parse_args()


def train_tokenizer(vocab):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    special = ["<|endoftext|>"]
    trainer = trainers.BpeTrainer(
        vocab_size=vocab,
        special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    with open(os.path.join(HERE, "..", "README.md"), encoding="utf-8") as f:
        text = f.read()
    tok.train_from_iterator([text], trainer=trainer)
    return tok


class RandomWeights:
    """Weights drawn from a seeded normal distribution, norms all ones."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def draw(self, shape, scale):
        return self.rng.standard_normal(shape, dtype=np.float32) * scale

    def matrix(self, name, rows, cols, scale):
        return self.draw((rows, cols), scale)

    def norm(self, name, size):
        return np.ones(size, dtype=np.float32)

    def embedding(self, vocab, hidden):
        return self.draw((vocab, hidden), 1.0)

    def lm_head(self, hidden, vocab, scale):
        return self.draw((hidden, vocab), scale)


def shape_of(args):
    return decoder_graph.Shape(
        layers=args.layers, hidden=args.hidden, heads=args.heads, kv_heads=args.kv_heads,
        intermediate=args.intermediate, vocab=args.vocab, context=args.context, dtype=args.dtype, ep=args.ep,
    )


def main():
    args = parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    tok = train_tokenizer(args.vocab)
    tok.save(os.path.join(args.out_dir, "tokenizer.json"))
    eos = tok.token_to_id("<|endoftext|>")
    with open(os.path.join(args.out_dir, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "GPT2Tokenizer", "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>",
                   "unk_token": "<|endoftext|>", "model_max_length": args.context, "add_prefix_space": False}, f, indent=2)
    shape = shape_of(args)
    model = decoder_graph.build(shape, RandomWeights(args.seed), "dmlrun make_tiny_decoder.py")
    data = "model.onnx.data"
    path = os.path.join(args.out_dir, "model.onnx")
    if os.path.exists(os.path.join(args.out_dir, data)):
        os.remove(os.path.join(args.out_dir, data))
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=data, size_threshold=1024)
    with open(os.path.join(args.out_dir, "genai_config.json"), "w") as f:
        json.dump(decoder_graph.genai_config(shape, eos, eos, eos), f, indent=4)
        f.write("\n")
    params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    print(f"wrote {args.out_dir}: {args.layers} layers, hidden {args.hidden}, vocab {args.vocab}, {params / 1e6:.2f} M parameters ({args.dtype}, the {args.ep} form)")


if __name__ == "__main__":
    main()
