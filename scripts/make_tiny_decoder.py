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
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
IR_VERSION = 8


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


class Graph:
    def __init__(self, dtype, rng):
        self.nodes, self.inits = [], []
        self.np_dtype = np.float16 if dtype == "float16" else np.float32
        self.onnx_dtype = TensorProto.FLOAT16 if dtype == "float16" else TensorProto.FLOAT
        self.rng = rng

    def weight(self, name, shape, scale):
        w = (self.rng.standard_normal(shape, dtype=np.float32) * scale).astype(self.np_dtype)
        self.inits.append(numpy_helper.from_array(w, name))
        return name

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, outputs, domain="", **attrs):
        name = outputs[0].rsplit("/", 1)[0] if "/" in outputs[0] else outputs[0]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs


def build(args):
    rng = np.random.default_rng(args.seed)
    g = Graph(args.dtype, rng)
    head = args.hidden // args.heads
    kv_hidden = head * args.kv_heads
    eps = 1e-5

    g.const("/model/constants/INT64/[1]", np.array([1], dtype=np.int64))
    g.const("/model/constants/INT64/1", np.array(1, dtype=np.int64))
    # The mask subgraph the builder makes for GroupQueryAttention.
    g.node("ReduceSum", ["attention_mask", "/model/constants/INT64/[1]"], ["/model/attn_mask_reformat/ReduceSum/output_0"], keepdims=0)
    g.node("Sub", ["/model/attn_mask_reformat/ReduceSum/output_0", "/model/constants/INT64/[1]"], ["/model/attn_mask_reformat/Sub/output_0"])
    seqlens_k = g.node("Cast", ["/model/attn_mask_reformat/Sub/output_0"], ["/model/attn_mask_reformat/seqlens_k/output_0"], to=TensorProto.INT32)
    g.node("Shape", ["attention_mask"], ["/model/attn_mask_reformat/Shape/output_0"])
    g.node("Gather", ["/model/attn_mask_reformat/Shape/output_0", "/model/constants/INT64/1"], ["/model/attn_mask_reformat/Gather/output_0"], axis=0)
    total_len = g.node("Cast", ["/model/attn_mask_reformat/Gather/output_0"], ["/model/attn_mask_reformat/total_seq_len/output_0"], to=TensorProto.INT32)

    # Rotary caches as the builder stores them: [context, head/2].
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, head, 2, dtype=np.float32) / head))
    angles = np.outer(np.arange(args.context, dtype=np.float32), inv_freq)
    cos_cache = g.const("cos_cache", np.cos(angles).astype(g.np_dtype))
    sin_cache = g.const("sin_cache", np.sin(angles).astype(g.np_dtype))

    embed = g.weight("model.embed_tokens.weight", (args.vocab, args.hidden), 1.0)
    hidden = g.node("Gather", [embed, "input_ids"], ["/model/embed_tokens/Gather/output_0"])
    normed = g.node(
        "SimplifiedLayerNormalization",
        [hidden, g.const("model.layers.0.input_layernorm.weight", np.ones(args.hidden, dtype=g.np_dtype))],
        ["/model/layers.0/input_layernorm/output_0"],
        axis=-1, epsilon=eps, stash_type=1,
    )
    residual = hidden
    proj_scale = 1.0 / np.sqrt(args.hidden)
    for i in range(args.layers):
        p = f"/model/layers.{i}"
        q = g.node("MatMul", [normed, g.weight(f"model.layers.{i}.attn.q_proj.weight", (args.hidden, args.hidden), proj_scale)], [f"{p}/attn/q_proj/MatMul/output_0"])
        k = g.node("MatMul", [normed, g.weight(f"model.layers.{i}.attn.k_proj.weight", (args.hidden, kv_hidden), proj_scale)], [f"{p}/attn/k_proj/MatMul/output_0"])
        v = g.node("MatMul", [normed, g.weight(f"model.layers.{i}.attn.v_proj.weight", (args.hidden, kv_hidden), proj_scale)], [f"{p}/attn/v_proj/MatMul/output_0"])
        rotary_inside = args.ep == "cpu"
        if rotary_inside:
            rotary_inputs = [cos_cache, sin_cache]
        else:
            q = g.node("RotaryEmbedding", [q, "position_ids", cos_cache, sin_cache], [f"{p}/attn/q_rotary/RotaryEmbedding/output_0"],
                       domain="com.microsoft", interleaved=0, num_heads=args.heads)
            k = g.node("RotaryEmbedding", [k, "position_ids", cos_cache, sin_cache], [f"{p}/attn/k_rotary/RotaryEmbedding/output_0"],
                       domain="com.microsoft", interleaved=0, num_heads=args.kv_heads)
            rotary_inputs = []
        attn, _, _ = g.node(
            "GroupQueryAttention",
            [q, k, v, f"past_key_values.{i}.key", f"past_key_values.{i}.value", seqlens_k, total_len, *rotary_inputs],
            [f"{p}/attn/GroupQueryAttention/output_0", f"present.{i}.key", f"present.{i}.value"],
            domain="com.microsoft",
            num_heads=args.heads, kv_num_heads=args.kv_heads, do_rotary=int(rotary_inside), rotary_interleaved=0,
            local_window_size=-1, scale=float(1.0 / np.sqrt(head)),
        )
        o = g.node("MatMul", [attn, g.weight(f"model.layers.{i}.attn.o_proj.weight", (args.hidden, args.hidden), proj_scale)], [f"{p}/attn/o_proj/MatMul/output_0"])
        post_w = g.const(f"model.layers.{i}.post_attention_layernorm.weight", np.ones(args.hidden, dtype=g.np_dtype))
        # As the builder: the mean and inverse standard deviation outputs left unnamed (DirectML
        # takes the node only then), the sum of input and skip as output 3.
        normed, _, _, residual = g.node(
            "SkipSimplifiedLayerNormalization", [o, residual, post_w],
            [f"{p}/post_attention_layernorm/output_0", "", "", f"{p}/post_attention_layernorm/output_3"],
            domain="com.microsoft", epsilon=eps,
        )
        gate = g.node("MatMul", [normed, g.weight(f"model.layers.{i}.mlp.gate_proj.weight", (args.hidden, args.intermediate), proj_scale)], [f"{p}/mlp/gate_proj/MatMul/output_0"])
        up = g.node("MatMul", [normed, g.weight(f"model.layers.{i}.mlp.up_proj.weight", (args.hidden, args.intermediate), proj_scale)], [f"{p}/mlp/up_proj/MatMul/output_0"])
        sig = g.node("Sigmoid", [gate], [f"{p}/mlp/act_fn/Sigmoid/output_0"])
        act = g.node("Mul", [gate, sig], [f"{p}/mlp/act_fn/Mul/output_0"])
        prod = g.node("Mul", [act, up], [f"{p}/mlp/Mul/output_0"])
        down = g.node("MatMul", [prod, g.weight(f"model.layers.{i}.mlp.down_proj.weight", (args.intermediate, args.hidden), 1.0 / np.sqrt(args.intermediate))], [f"{p}/mlp/down_proj/MatMul/output_0"])
        last = i == args.layers - 1
        next_norm = "model.norm.weight" if last else f"model.layers.{i + 1}.input_layernorm.weight"
        next_name = "/model/norm" if last else f"/model/layers.{i + 1}/input_layernorm"
        # The last norm's sum is not needed: the builder gives it output 0 alone.
        outputs = [f"{next_name}/output_0"] if last else [f"{next_name}/output_0", "", "", f"{next_name}/output_3"]
        produced = g.node(
            "SkipSimplifiedLayerNormalization", [down, residual, g.const(next_norm, np.ones(args.hidden, dtype=g.np_dtype))],
            outputs, domain="com.microsoft", epsilon=eps,
        )
        normed, residual = (produced, None) if last else (produced[0], produced[3])
    logits_raw = g.node("MatMul", [normed, g.weight("lm_head.weight", (args.hidden, args.vocab), 4.0 * proj_scale)], ["/lm_head/MatMul/output_0"])
    # The builder's logits are float32 whatever the model's dtype.
    if g.onnx_dtype == TensorProto.FLOAT16:
        g.node("Cast", [logits_raw], ["logits"], to=TensorProto.FLOAT)
    else:
        g.node("Identity", [logits_raw], ["logits"])

    kv_shape = ["batch_size", args.kv_heads, "past_sequence_length", head]
    present_shape = ["batch_size", args.kv_heads, "total_sequence_length", head]
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"]),
    ]
    if args.ep == "dml":
        inputs.append(helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch_size", "sequence_length"]))
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", "sequence_length", args.vocab])]
    for i in range(args.layers):
        for kind in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kind}", g.onnx_dtype, kv_shape))
            outputs.append(helper.make_tensor_value_info(f"present.{i}.{kind}", g.onnx_dtype, present_shape))
    graph = helper.make_graph(g.nodes, "main_graph", inputs, outputs, g.inits)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)],
        producer_name="dmlrun make_tiny_decoder.py",
    )
    model.ir_version = IR_VERSION
    return model, head


def genai_config(args, head, eos):
    inputs = {
        "input_ids": "input_ids",
        "attention_mask": "attention_mask",
        "past_key_names": "past_key_values.%d.key",
        "past_value_names": "past_key_values.%d.value",
    }
    if args.ep == "dml":
        inputs["position_ids"] = "position_ids"
    return {
        "model": {
            "bos_token_id": eos,
            "context_length": args.context,
            "decoder": {
                "session_options": {"log_id": "onnxruntime-genai", "provider_options": []},
                "filename": "model.onnx",
                "head_size": head,
                "hidden_size": args.hidden,
                "inputs": inputs,
                "outputs": {"logits": "logits", "present_key_names": "present.%d.key", "present_value_names": "present.%d.value"},
                "num_attention_heads": args.heads,
                "num_hidden_layers": args.layers,
                "num_key_value_heads": args.kv_heads,
            },
            "eos_token_id": eos,
            "pad_token_id": eos,
            "type": "llama",
            "vocab_size": args.vocab,
        },
        "search": {
            "diversity_penalty": 0.0,
            "do_sample": False,
            "early_stopping": True,
            "length_penalty": 1.0,
            "max_length": args.context,
            "min_length": 0,
            "no_repeat_ngram_size": 0,
            "num_beams": 1,
            "num_return_sequences": 1,
            "past_present_share_buffer": True,
            "repetition_penalty": 1.0,
            "temperature": 1.0,
            "top_k": 50,
            "top_p": 1.0,
        },
    }


def main():
    args = parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    tok = train_tokenizer(args.vocab)
    tok.save(os.path.join(args.out_dir, "tokenizer.json"))
    eos = tok.token_to_id("<|endoftext|>")
    with open(os.path.join(args.out_dir, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "GPT2Tokenizer", "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>",
                   "unk_token": "<|endoftext|>", "model_max_length": args.context, "add_prefix_space": False}, f, indent=2)
    model, head = build(args)
    data = "model.onnx.data"
    path = os.path.join(args.out_dir, "model.onnx")
    if os.path.exists(os.path.join(args.out_dir, data)):
        os.remove(os.path.join(args.out_dir, data))
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=data, size_threshold=1024)
    with open(os.path.join(args.out_dir, "genai_config.json"), "w") as f:
        json.dump(genai_config(args, head, eos), f, indent=4)
        f.write("\n")
    params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    print(f"wrote {args.out_dir}: {args.layers} layers, hidden {args.hidden}, vocab {args.vocab}, {params / 1e6:.2f} M parameters ({args.dtype}, the {args.ep} form)")


if __name__ == "__main__":
    main()
