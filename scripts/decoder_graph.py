"""The Llama-type decoder graph onnxruntime-genai's model builder writes, from numpy arrays.

Shared by make_tiny_decoder.py (random weights) and make_smollm2.py (SmolLM2's real weights, read
from its GGUF): one graph, so a test decoder and the real model can only differ in their weights.

The graph is the builder's: Gather embedding, SimplifiedLayerNormalization /
SkipSimplifiedLayerNormalization, MatMul projections, GroupQueryAttention, a SiLU MLP (Sigmoid,
Mul), the attention-mask subgraph the builder makes for GQA (ReduceSum-1 -> seqlens_k, Shape[1] ->
total_sequence_length), and `past_key_values.%d.key` -> `present.%d.key` with a KV buffer shared
between past and present. `ep` picks the builder's form for an execution provider, as its `-e`
does: for `cpu` (and CUDA) the rotary embedding is inside GroupQueryAttention (do_rotary=1 with
cos/sin caches); for `dml` it is a separate com.microsoft RotaryEmbedding on the queries and keys,
fed by a `position_ids` input, and GroupQueryAttention has do_rotary=0, because DirectML's
GroupQueryAttention kernel does not implement do_rotary (it reads neither the attribute nor the
caches, and gives other numbers).

Weights come from a `weights` object: `matrix(name, rows, cols, scale)` gives a [rows, cols] MatMul
weight (the builder's [in, out] layout), `norm(name, size)` a norm's scale, `embedding(vocab,
hidden)` the token table; `lm_head(hidden, vocab, scale)` the output projection (a tied model
returns the table transposed).
"""
from dataclasses import dataclass

import numpy as np
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 8


@dataclass
class Shape:
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    context: int
    dtype: str = "float32"
    ep: str = "cpu"
    rope_theta: float = 10000.0
    eps: float = 1e-5

    @property
    def head(self):
        return self.hidden // self.heads


class Graph:
    def __init__(self, dtype):
        self.nodes, self.inits = [], []
        self.np_dtype = np.float16 if dtype == "float16" else np.float32
        self.onnx_dtype = TensorProto.FLOAT16 if dtype == "float16" else TensorProto.FLOAT

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def weight(self, name, array):
        return self.const(name, np.ascontiguousarray(array, dtype=self.np_dtype))

    def node(self, op, inputs, outputs, domain="", **attrs):
        name = outputs[0].rsplit("/", 1)[0] if "/" in outputs[0] else outputs[0]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs


def build(s, weights, producer):
    """The decoder graph of shape `s` over `weights`, as an onnx ModelProto."""
    g = Graph(s.dtype)
    head = s.head
    kv_hidden = head * s.kv_heads

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
    inv_freq = 1.0 / (s.rope_theta ** (np.arange(0, head, 2, dtype=np.float32) / head))
    angles = np.outer(np.arange(s.context, dtype=np.float32), inv_freq)
    cos_cache = g.const("cos_cache", np.cos(angles).astype(g.np_dtype))
    sin_cache = g.const("sin_cache", np.sin(angles).astype(g.np_dtype))

    embed = g.weight("model.embed_tokens.weight", weights.embedding(s.vocab, s.hidden))
    hidden = g.node("Gather", [embed, "input_ids"], ["/model/embed_tokens/Gather/output_0"])
    normed = g.node(
        "SimplifiedLayerNormalization",
        [hidden, g.weight("model.layers.0.input_layernorm.weight", weights.norm("model.layers.0.input_layernorm.weight", s.hidden))],
        ["/model/layers.0/input_layernorm/output_0"],
        axis=-1, epsilon=s.eps, stash_type=1,
    )
    residual = hidden
    proj_scale = 1.0 / np.sqrt(s.hidden)

    def matmul(x, name, rows, cols, scale, out):
        return g.node("MatMul", [x, g.weight(name, weights.matrix(name, rows, cols, scale))], [out])

    for i in range(s.layers):
        p = f"/model/layers.{i}"
        w = f"model.layers.{i}"
        q = matmul(normed, f"{w}.attn.q_proj.weight", s.hidden, s.hidden, proj_scale, f"{p}/attn/q_proj/MatMul/output_0")
        k = matmul(normed, f"{w}.attn.k_proj.weight", s.hidden, kv_hidden, proj_scale, f"{p}/attn/k_proj/MatMul/output_0")
        v = matmul(normed, f"{w}.attn.v_proj.weight", s.hidden, kv_hidden, proj_scale, f"{p}/attn/v_proj/MatMul/output_0")
        rotary_inside = s.ep == "cpu"
        if rotary_inside:
            rotary_inputs = [cos_cache, sin_cache]
        else:
            q = g.node("RotaryEmbedding", [q, "position_ids", cos_cache, sin_cache], [f"{p}/attn/q_rotary/RotaryEmbedding/output_0"],
                       domain="com.microsoft", interleaved=0, num_heads=s.heads)
            k = g.node("RotaryEmbedding", [k, "position_ids", cos_cache, sin_cache], [f"{p}/attn/k_rotary/RotaryEmbedding/output_0"],
                       domain="com.microsoft", interleaved=0, num_heads=s.kv_heads)
            rotary_inputs = []
        attn, _, _ = g.node(
            "GroupQueryAttention",
            [q, k, v, f"past_key_values.{i}.key", f"past_key_values.{i}.value", seqlens_k, total_len, *rotary_inputs],
            [f"{p}/attn/GroupQueryAttention/output_0", f"present.{i}.key", f"present.{i}.value"],
            domain="com.microsoft",
            num_heads=s.heads, kv_num_heads=s.kv_heads, do_rotary=int(rotary_inside), rotary_interleaved=0,
            local_window_size=-1, scale=float(1.0 / np.sqrt(head)),
        )
        o = matmul(attn, f"{w}.attn.o_proj.weight", s.hidden, s.hidden, proj_scale, f"{p}/attn/o_proj/MatMul/output_0")
        post_w = g.weight(f"{w}.post_attention_layernorm.weight", weights.norm(f"{w}.post_attention_layernorm.weight", s.hidden))
        # As the builder: the mean and inverse standard deviation outputs left unnamed (DirectML
        # takes the node only then), the sum of input and skip as output 3.
        normed, _, _, residual = g.node(
            "SkipSimplifiedLayerNormalization", [o, residual, post_w],
            [f"{p}/post_attention_layernorm/output_0", "", "", f"{p}/post_attention_layernorm/output_3"],
            domain="com.microsoft", epsilon=s.eps,
        )
        gate = matmul(normed, f"{w}.mlp.gate_proj.weight", s.hidden, s.intermediate, proj_scale, f"{p}/mlp/gate_proj/MatMul/output_0")
        up = matmul(normed, f"{w}.mlp.up_proj.weight", s.hidden, s.intermediate, proj_scale, f"{p}/mlp/up_proj/MatMul/output_0")
        sig = g.node("Sigmoid", [gate], [f"{p}/mlp/act_fn/Sigmoid/output_0"])
        act = g.node("Mul", [gate, sig], [f"{p}/mlp/act_fn/Mul/output_0"])
        prod = g.node("Mul", [act, up], [f"{p}/mlp/Mul/output_0"])
        down = matmul(prod, f"{w}.mlp.down_proj.weight", s.intermediate, s.hidden, 1.0 / np.sqrt(s.intermediate), f"{p}/mlp/down_proj/MatMul/output_0")
        last = i == s.layers - 1
        next_norm = "model.norm.weight" if last else f"model.layers.{i + 1}.input_layernorm.weight"
        next_name = "/model/norm" if last else f"/model/layers.{i + 1}/input_layernorm"
        # The last norm's sum is not needed: the builder gives it output 0 alone.
        outputs = [f"{next_name}/output_0"] if last else [f"{next_name}/output_0", "", "", f"{next_name}/output_3"]
        produced = g.node(
            "SkipSimplifiedLayerNormalization", [down, residual, g.weight(next_norm, weights.norm(next_norm, s.hidden))],
            outputs, domain="com.microsoft", epsilon=s.eps,
        )
        normed, residual = (produced, None) if last else (produced[0], produced[3])
    lm_head = g.weight("lm_head.weight", weights.lm_head(s.hidden, s.vocab, 4.0 * proj_scale))
    logits_raw = g.node("MatMul", [normed, lm_head], ["/lm_head/MatMul/output_0"])
    # The builder's logits are float32 whatever the model's dtype.
    if g.onnx_dtype == TensorProto.FLOAT16:
        g.node("Cast", [logits_raw], ["logits"], to=TensorProto.FLOAT)
    else:
        g.node("Identity", [logits_raw], ["logits"])

    kv_shape = ["batch_size", s.kv_heads, "past_sequence_length", head]
    present_shape = ["batch_size", s.kv_heads, "total_sequence_length", head]
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"]),
    ]
    if s.ep == "dml":
        inputs.append(helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch_size", "sequence_length"]))
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", "sequence_length", s.vocab])]
    for i in range(s.layers):
        for kind in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kind}", g.onnx_dtype, kv_shape))
            outputs.append(helper.make_tensor_value_info(f"present.{i}.{kind}", g.onnx_dtype, present_shape))
    graph = helper.make_graph(g.nodes, "main_graph", inputs, outputs, g.inits)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)],
        producer_name=producer,
    )
    model.ir_version = IR_VERSION
    return model


def genai_config(s, bos, eos, pad, model_type="llama"):
    """genai_config.json for shape `s`, as the builder writes it for its EP."""
    inputs = {
        "input_ids": "input_ids",
        "attention_mask": "attention_mask",
        "past_key_names": "past_key_values.%d.key",
        "past_value_names": "past_key_values.%d.value",
    }
    if s.ep == "dml":
        inputs["position_ids"] = "position_ids"
    return {
        "model": {
            "bos_token_id": bos,
            "context_length": s.context,
            "decoder": {
                "session_options": {"log_id": "onnxruntime-genai", "provider_options": []},
                "filename": "model.onnx",
                "head_size": s.head,
                "hidden_size": s.hidden,
                "inputs": inputs,
                "outputs": {"logits": "logits", "present_key_names": "present.%d.key", "present_value_names": "present.%d.value"},
                "num_attention_heads": s.heads,
                "num_hidden_layers": s.layers,
                "num_key_value_heads": s.kv_heads,
            },
            "eos_token_id": eos,
            "pad_token_id": pad,
            "type": model_type,
            "vocab_size": s.vocab,
        },
        "search": {
            "diversity_penalty": 0.0,
            "do_sample": False,
            "early_stopping": True,
            "length_penalty": 1.0,
            "max_length": s.context,
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
