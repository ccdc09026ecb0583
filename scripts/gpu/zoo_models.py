"""The full zoo (issue 74): every model family DirectML users run, with random weights, exported by
torch as users export today (the dynamo exporter, torch 2.11's default) and, where it fails,
by the TorchScript one users fall back to (--exporter torchscript: that one first; --exporter
both: each model by each, the TorchScript one as NAME-torchscript, since both kinds of graph reach
DirectML); each an ONNX test-data folder (model.onnx,
test_data_set_0 with seeded inputs and ONNX Runtime's CPU EP outputs, data.json with the zoo's
tolerances) under OUT/FAMILY/NAME, and OUT/zoo.json listing what was made and what failed to
export, with why.

    python3 zoo_models.py OUT [--families F,...] [--only NAME,...] [--exporter dynamo|torchscript|both]
                              [--jobs N] [--list] [--max-params M] [--deadline S]

Families: torchvision-classification (all 80 of torchvision 0.26), torchvision-detection (with
keypoints and masks), torchvision-segmentation, torchvision-video, torchvision-flow, timm (families
torchvision lacks), transformers (encoders, encoder-decoders, speech, vision, decoders at two layers),
diffusion (Stable Diffusion 1.5's UNet, VAE decoder and text encoder at their real sizes; needs
diffusers, carried as a wheel). Sizes are each model's own default (ImageNet 224, 16 tokens, ...).

Tolerance (data.json): rtol 1e-3 and atol 1e-4 of the largest |output| of the case, so that a
model whose random-weight logits are in the hundreds is held to the same relative precision as
one whose are near 1 (DirectML's float32 kernels differ from the CPU EP's in summation order).
"""
import argparse
import json
import os
import re
import shutil
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np

SEED = 0


# --- the catalogue ------------------------------------------------------------------------------------
def image(size=224, batch=1, channels=3):
    import torch

    return torch.randn(batch, channels, size, size, generator=torch.Generator().manual_seed(SEED))


def tokens(vocab, length=16, batch=1):
    import torch

    return torch.randint(0, min(vocab, 1000), (batch, length), generator=torch.Generator().manual_seed(SEED))


class First:
    """A module's first tensor output (logits, last_hidden_state, 'out'), as a plain module."""

    @staticmethod
    def wrap(module, pick=None):
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = module

            def forward(self, *args):
                out = self.inner(*args)
                if pick is not None:
                    return pick(out)
                if isinstance(out, dict):
                    return next(iter(out.values()))
                if hasattr(out, "to_tuple"):
                    return out.to_tuple()[0]
                if isinstance(out, (tuple, list)):
                    return out[0]
                return out

        return Wrapped()


def torchvision_specs():
    import torchvision.models as tvm

    specs = []
    for name in tvm.list_models(module=tvm):
        size = 299 if name == "inception_v3" else 224

        def build(name=name, size=size):
            kwargs = {"aux_logits": False, "init_weights": True} if name in ("googlenet", "inception_v3") else {}
            return tvm.get_model(name, weights=None, **kwargs), {"image": image(size)}

        specs.append(("torchvision-classification", name, build))
    for name in tvm.list_models(module=tvm.detection):
        def build(name=name):
            m = tvm.get_model(name, weights=None, weights_backbone=None)
            # A detector returns a list of dicts; the boxes, scores and labels of the one image.
            return Detector.wrap(m), {"image": image(320)[0].clamp(0, 1)}

        specs.append(("torchvision-detection", name, build))
    for name in tvm.list_models(module=tvm.segmentation):
        def build(name=name):
            return First.wrap(tvm.get_model(name, weights=None, weights_backbone=None, aux_loss=False)), {"image": image(320)}

        specs.append(("torchvision-segmentation", name, build))
    for name in tvm.list_models(module=tvm.video):
        def build(name=name):
            import torch

            frames, size = (16, 224) if name.startswith(("mvit", "s3d", "swin3d")) else (16, 112)
            clip = torch.randn(1, 3, frames, size, size, generator=torch.Generator().manual_seed(SEED))
            return tvm.get_model(name, weights=None), {"clip": clip}

        specs.append(("torchvision-video", name, build))
    for name in tvm.list_models(module=tvm.optical_flow):
        def build(name=name):
            m = tvm.get_model(name, weights=None)
            # RAFT returns every refinement; the last one is the flow.
            return First.wrap(m, pick=lambda out: out[-1]), {"image1": image(128), "image2": image(128) * 0.5}

        specs.append(("torchvision-flow", name, build))
    return specs


class Detector:
    @staticmethod
    def wrap(module):
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = module

            def forward(self, img):
                out = self.inner([img])[0]
                return out["boxes"], out["scores"], out["labels"]

        return Wrapped()


TIMM = ["tf_efficientnetv2_b0", "efficientnet_b0", "mobilevit_s", "mobilevitv2_050", "deit_tiny_patch16_224",
        "eva02_tiny_patch14_224", "repvgg_a0", "convnextv2_atto", "levit_128", "poolformer_s12", "coatnet_0_rw_224",
        "ghostnet_100", "hrnet_w18_small", "dla34", "rexnet_100", "mixnet_s", "cspdarknet53", "resnest14d",
        "fastvit_t8", "efficientformer_l1", "edgenext_xx_small", "pvt_v2_b0", "mobilenetv4_conv_small", "tinynet_a",
        "xcit_nano_12_p16_224", "cait_xxs24_224", "gcvit_xxtiny", "nextvit_small", "repvit_m1", "hgnetv2_b0"]


def timm_specs():
    import timm

    specs = []
    for name in TIMM:
        def build(name=name):
            m = timm.create_model(name, pretrained=False)
            size = m.default_cfg.get("input_size", (3, 224, 224))[-1]
            return m, {"image": image(size)}

        specs.append(("timm", name, build))
    return specs


def transformers_specs():
    import torch
    import transformers as tf

    def encoder(config_cls, model_cls, **config):
        def build():
            cfg = config_cls(**config)
            ids = tokens(cfg.vocab_size)
            return First.wrap(model_cls(cfg)), {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
        return build

    def vision(config_cls, model_cls, size=224, **config):
        def build():
            return First.wrap(model_cls(config_cls(**config))), {"pixel_values": image(size)}
        return build

    def decoder(config_cls, model_cls, **config):
        def build():
            cfg = config_cls(num_hidden_layers=2, use_cache=False, **config)
            return First.wrap(model_cls(cfg)), {"input_ids": tokens(cfg.vocab_size)}
        return build

    def uncached(module, first, second):
        """`module` called with two named inputs and no cache, its first output: what an
        encoder-decoder or a decoder attending to an encoder's states computes in one pass."""
        class Uncached(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = module

            def forward(self, a, b):
                return self.inner(**{first: a, second: b}, use_cache=False)[0]

        return Uncached()

    def seq2seq(config_cls, model_cls, **config):
        def build():
            cfg = config_cls(**config)
            ids = tokens(cfg.vocab_size)
            model = uncached(model_cls(cfg), "input_ids", "decoder_input_ids")
            return model, {"input_ids": ids, "decoder_input_ids": ids[:, :8]}
        return build

    def cross_decoder(decoder, d_model, encoder_length, vocab):
        """A decoder that attends to an encoder's states, without a cache: ids and states in."""
        model = uncached(decoder, "input_ids", "encoder_hidden_states")
        return model, {"input_ids": tokens(vocab, 8), "encoder_hidden_states": torch.randn(1, encoder_length, d_model)}

    def t5_decoder():
        cfg = tf.T5Config()
        return cross_decoder(tf.T5Model(cfg).decoder, cfg.d_model, 16, cfg.vocab_size)

    def whisper_encoder():
        cfg = tf.WhisperConfig()
        return First.wrap(tf.WhisperModel(cfg).encoder), {"input_features": torch.randn(1, cfg.num_mel_bins, 3000)}

    def whisper_decoder():
        cfg = tf.WhisperConfig()
        return cross_decoder(tf.WhisperModel(cfg).decoder, cfg.d_model, 1500, cfg.vocab_size)

    def t5_encoder():
        cfg = tf.T5Config()
        ids = tokens(cfg.vocab_size)
        return First.wrap(tf.T5EncoderModel(cfg)), {"input_ids": ids, "attention_mask": torch.ones_like(ids)}

    def wav2vec2():
        return First.wrap(tf.Wav2Vec2Model(tf.Wav2Vec2Config())), {"input_values": torch.randn(1, 16000)}

    def sam_vision():
        cfg = tf.SamVisionConfig()
        return First.wrap(tf.SamVisionModel(cfg)), {"pixel_values": image(1024)}

    def detr():
        cfg = tf.DetrConfig(use_timm_backbone=False, use_pretrained_backbone=False, backbone_config=tf.ResNetConfig(out_features=["stage4"]))
        return First.wrap(tf.DetrForObjectDetection(cfg), pick=lambda o: o.logits), {"pixel_values": image(512)}

    def clip_text():
        cfg = tf.CLIPTextConfig()
        ids = tokens(cfg.vocab_size)
        return First.wrap(tf.CLIPTextModel(cfg)), {"input_ids": ids}

    specs = [
        ("bert", encoder(tf.BertConfig, tf.BertModel)),
        ("distilbert", encoder(tf.DistilBertConfig, tf.DistilBertModel)),
        ("roberta", encoder(tf.RobertaConfig, tf.RobertaModel)),
        ("deberta-v2", encoder(tf.DebertaV2Config, tf.DebertaV2Model)),
        ("albert", encoder(tf.AlbertConfig, tf.AlbertModel)),
        ("electra", encoder(tf.ElectraConfig, tf.ElectraModel)),
        ("xlm-roberta", encoder(tf.XLMRobertaConfig, tf.XLMRobertaModel)),
        ("t5-encoder", t5_encoder),
        ("t5-decoder", t5_decoder),
        ("bart", seq2seq(tf.BartConfig, tf.BartModel)),
        ("whisper-encoder", whisper_encoder),
        ("whisper-decoder", whisper_decoder),
        ("wav2vec2", wav2vec2),
        ("clip-text", clip_text),
        ("clip-vision", vision(tf.CLIPVisionConfig, tf.CLIPVisionModel)),
        ("vit", vision(tf.ViTConfig, tf.ViTModel)),
        ("swin", vision(tf.SwinConfig, tf.SwinModel)),
        ("convnext", vision(tf.ConvNextConfig, tf.ConvNextModel)),
        ("detr", detr),
        ("segformer", vision(tf.SegformerConfig, tf.SegformerModel, size=512)),
        ("dinov2", vision(tf.Dinov2Config, tf.Dinov2Model)),
        ("sam-vision-encoder", sam_vision),
        ("gpt2", decoder(tf.GPT2Config, tf.GPT2LMHeadModel)),
        ("llama", decoder(tf.LlamaConfig, tf.LlamaForCausalLM, hidden_size=1024, intermediate_size=2816, num_attention_heads=16, num_key_value_heads=4)),
        ("qwen2", decoder(tf.Qwen2Config, tf.Qwen2ForCausalLM, hidden_size=896, intermediate_size=4864, num_attention_heads=14, num_key_value_heads=2, vocab_size=151936)),
        ("phi3", decoder(tf.Phi3Config, tf.Phi3ForCausalLM)),
        ("mistral", decoder(tf.MistralConfig, tf.MistralForCausalLM, hidden_size=1024, intermediate_size=2816, num_attention_heads=16, num_key_value_heads=4)),
        ("gemma", decoder(tf.GemmaConfig, tf.GemmaForCausalLM, hidden_size=1024, intermediate_size=4096, num_attention_heads=8, num_key_value_heads=1, head_dim=128)),
    ]
    return [("transformers", name, build) for name, build in specs]


def diffusion_specs():
    def unet():
        import torch
        from diffusers import UNet2DConditionModel

        m = UNet2DConditionModel(sample_size=64, cross_attention_dim=768, attention_head_dim=8,
                                 block_out_channels=(320, 640, 1280, 1280), layers_per_block=2)
        g = torch.Generator().manual_seed(SEED)
        return First.wrap(m, pick=lambda o: o.sample), {
            "sample": torch.randn(1, 4, 64, 64, generator=g), "timestep": torch.tensor([500], dtype=torch.int64),
            "encoder_hidden_states": torch.randn(1, 77, 768, generator=g)}

    def vae_decoder():
        import torch
        from diffusers import AutoencoderKL

        vae = AutoencoderKL(block_out_channels=(128, 256, 512, 512), layers_per_block=2, latent_channels=4,
                            down_block_types=("DownEncoderBlock2D",) * 4, up_block_types=("UpDecoderBlock2D",) * 4)

        class Decode(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.vae = vae

            def forward(self, latent):
                return self.vae.decode(latent).sample

        return Decode(), {"latent": torch.randn(1, 4, 64, 64, generator=torch.Generator().manual_seed(SEED))}

    def text_encoder():
        import transformers as tf

        cfg = tf.CLIPTextConfig(vocab_size=49408, hidden_size=768, num_hidden_layers=12, max_position_embeddings=77)
        return First.wrap(tf.CLIPTextModel(cfg)), {"input_ids": tokens(49408, 77)}

    return [("diffusion", "sd15-unet", unet), ("diffusion", "sd15-vae-decoder", vae_decoder),
            ("diffusion", "sd15-text-encoder", text_encoder)]


FAMILIES = {
    "torchvision": torchvision_specs,
    "timm": timm_specs,
    "transformers": transformers_specs,
    "diffusion": diffusion_specs,
}


def catalogue(families):
    specs = []
    for fam in families:
        specs += FAMILIES[fam]()
    return specs


# --- one model ------------------------------------------------------------------------------------
def export_one(family, name, out, exporter, fallback, max_params, threads, suffix=""):
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(SEED)
    # The case is NAME (or NAME-torchscript beside the dynamo one, with --exporter both).
    case = name + suffix
    record = {"family": family, "name": case, "exporter": exporter}
    t0 = time.time()
    try:
        builder = dict((n, b) for f, n, b in catalogue([family_group(family)]) if f == family)[name]
        with torch.no_grad():
            module, inputs = builder()
            module.eval()
            params = sum(p.numel() for p in module.parameters())
            record["parameters"] = params
            if max_params and params > max_params:
                record["status"] = "skipped"
                record["why"] = f"{params / 1e6:.0f} M parameters, over --max-params"
                return record
            expected_torch = module(*inputs.values())
        folder = os.path.join(out, family, case)
        os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
        path = os.path.join(folder, "model.onnx")
        args = tuple(inputs.values())
        # The exporter users reach for first; where it fails, the one they fall back to, so the
        # model still reaches DirectML as users would bring it (the first failure recorded).
        order = [exporter] + [e for e in ("dynamo", "torchscript") if e != exporter and fallback]
        for k, used in enumerate(order):
            try:
                if used == "dynamo":
                    torch.onnx.export(module, args, path, input_names=list(inputs), dynamo=True, external_data=params > 4e8)
                else:
                    torch.onnx.export(module, args, path, input_names=list(inputs), dynamo=False, opset_version=17)
                record["exporter"] = used
                break
            except Exception as e:  # noqa: BLE001 - the next exporter is tried; the last failure raises
                record[f"{used}_failed"] = f"{type(e).__name__}: {first_line(e)}"
                if k == len(order) - 1:
                    raise
        record["export_s"] = round(time.time() - t0, 1)
        record["folder"] = os.path.relpath(folder, out)
        reference(folder, inputs, threads, record)
        del expected_torch
        record["status"] = "made"
    except Exception as e:  # noqa: BLE001 - every failure is recorded with its cause, not raised
        # A half-written folder (test data, no model) is no case: removed.
        shutil.rmtree(os.path.join(out, family, case), ignore_errors=True)
        record["status"] = "export-failed"
        record["why"] = f"{type(e).__name__}: {first_line(e)}"
        record["trace"] = traceback.format_exc()[-1500:]
    record["seconds"] = round(time.time() - t0, 1)
    return record


def first_line(error):
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error)).strip()
    return text.splitlines()[0][:300] if text else ""


def family_group(family):
    return "torchvision" if family.startswith("torchvision") else family


def reference(folder, inputs, threads, record):
    """The inputs and the CPU EP's outputs, and the tolerance scaled to those outputs."""
    import onnxruntime as ort
    from onnx import numpy_helper

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    session = ort.InferenceSession(os.path.join(folder, "model.onnx"), opts, providers=["CPUExecutionProvider"])
    feed = {}
    for k, meta in enumerate(session.get_inputs()):
        value = inputs[meta.name].numpy() if meta.name in inputs else list(inputs.values())[k].numpy()
        feed[meta.name] = value
        with open(os.path.join(folder, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, meta.name).SerializeToString())
    t0 = time.time()
    outputs = session.run(None, feed)
    record["cpu_ep_ms"] = round((time.time() - t0) * 1000, 1)
    largest = 0.0
    for k, (meta, value) in enumerate(zip(session.get_outputs(), outputs)):
        value = np.asarray(value)
        if value.dtype.kind == "f" and value.size:
            largest = max(largest, float(np.max(np.abs(value[np.isfinite(value)]))) if np.isfinite(value).any() else 0.0)
        with open(os.path.join(folder, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, meta.name).SerializeToString())
    with open(os.path.join(folder, "data.json"), "w") as f:
        json.dump({"rtol": 1e-3, "atol": max(1e-5, 1e-4 * largest)}, f)
    record["outputs"] = [list(np.asarray(v).shape) for v in outputs]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("--families", default=",".join(FAMILIES))
    p.add_argument("--only", help="comma-separated model names, or @FILE of names (family/name or name)")
    p.add_argument("--exporter", choices=["dynamo", "torchscript", "both"], default="dynamo",
                   help="both: each model by each exporter, the TorchScript one as NAME-torchscript, no fallback")
    p.add_argument("--no-fallback", action="store_true", help="no second exporter where the first fails")
    p.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 4))
    p.add_argument("--max-params", type=float, default=0, help="skip models with more parameters (0: none)")
    p.add_argument("--deadline", type=float, default=0, help="seconds; what is not exported by then is left out, said")
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    families = a.families.split(",")
    specs = catalogue(families)
    if a.only:
        # --only @FILE: the names one a line (a list too long for a command line).
        text = open(a.only[1:]).read() if a.only.startswith("@") else a.only
        wanted = set(text.replace(",", "\n").split())
        specs = [s for s in specs if s[1] in wanted or f"{s[0]}/{s[1]}" in wanted]
    if a.list:
        for fam, name, _ in specs:
            print(f"{fam}\t{name}")
        print(f"{len(specs)} models", file=sys.stderr)
        return
    os.makedirs(a.out, exist_ok=True)
    threads = max(1, (os.cpu_count() or 2) // a.jobs)
    records = []
    deadline = time.time() + a.deadline if a.deadline else None
    # The catalogue's order puts the big families (torchvision) first; sizes are unknown before
    # building, so nothing better balances the pool.
    pool = ProcessPoolExecutor(max_workers=a.jobs)
    # Each job: the exporter, whether the other is tried where it fails, the case's suffix.
    jobs = ([("dynamo", False, ""), ("torchscript", False, "-torchscript")] if a.exporter == "both"
            else [(a.exporter, not a.no_fallback, "")])
    futures = {pool.submit(export_one, fam, name, a.out, exporter, fallback, a.max_params, threads, suffix): (fam, name + suffix)
               for fam, name, _ in specs for exporter, fallback, suffix in jobs}
    try:
        for fut in as_completed(futures, timeout=(deadline - time.time()) if deadline else None):
            fam, name = futures[fut]
            try:
                r = fut.result()
            except Exception as e:  # noqa: BLE001 - a worker that died (out of memory) is a record too
                r = {"family": fam, "name": name, "exporter": a.exporter, "status": "export-failed", "why": f"worker died: {e}"}
            records.append(r)
            print(f"{r['status']:14} {fam}/{name} {r.get('seconds', '')} s {r.get('why', '')[:160]}", flush=True)
    except TimeoutError:
        # Past --deadline: what is unfinished is said so, its half-written folder removed (a
        # model without its test data is no case), and the workers stopped.
        for fut, (fam, name) in futures.items():
            if not fut.done():
                records.append({"family": fam, "name": name, "exporter": a.exporter, "status": "export-unfinished",
                                "why": f"not exported within --deadline {a.deadline:.0f} s"})
                shutil.rmtree(os.path.join(a.out, fam, name), ignore_errors=True)
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    index = os.path.join(a.out, f"zoo-{a.exporter}.json")
    import torch

    with open(index, "w") as f:
        json.dump({"schema": "dmlrun.zoo/1", "torch": torch.__version__, "exporter": a.exporter,
                   "models": sorted(records, key=lambda r: (r["family"], r["name"]))}, f, indent=1)
    made = sum(r["status"] == "made" for r in records)
    print(f"{made} of {len(records)} models exported ({a.exporter}) into {a.out}")


if __name__ == "__main__":
    main()
