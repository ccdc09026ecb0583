#!/usr/bin/env python3
"""onnxruntime-genai's own generation on a model folder: the independent reference for
`dmlrun generate` (token ids) and its side-by-side speed measurement.

    genai_reference.py MODEL_DIR (--prompt TEXT [--chat] | --prompt-ids 1,2,3) --max-new-tokens N
                       [--repetitions R] [--warmup W] [--threads T] [--ignore-eos]

Prints one JSON object: the prompt's ids (from genai's own tokenizer with --prompt), the greedy
tokens of the first repetition, and per repetition the time to first token and the decode
steps' times (ms), measured around genai's own calls as its benchmark script does.

Needs: pip install onnxruntime-genai
"""
import argparse
import json
import os
import shutil
import tempfile
import time

import onnxruntime_genai as og


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model_dir")
    p.add_argument("--prompt")
    p.add_argument("--prompt-ids")
    p.add_argument("--chat", action="store_true", help="the prompt as one user message through the model's chat template")
    p.add_argument("--max-new-tokens", type=int, required=True)
    p.add_argument("--repetitions", type=int, default=1)
    p.add_argument("--warmup", type=int, default=0)
    p.add_argument("--threads", type=int, default=0, help="intra-op threads of the decoder session (0: genai's default)")
    p.add_argument("--ignore-eos", action="store_true")
    return p.parse_args()


def with_threads(model_dir, threads):
    """A copy of the folder's config with the session's intra-op threads set (the model files
    linked, not copied), since genai reads threads only from genai_config.json."""
    if not threads:
        return model_dir, None
    tmp = tempfile.mkdtemp(prefix="genai-ref-")
    for name in os.listdir(model_dir):
        if name != "genai_config.json":
            os.symlink(os.path.abspath(os.path.join(model_dir, name)), os.path.join(tmp, name))
    with open(os.path.join(model_dir, "genai_config.json")) as f:
        config = json.load(f)
    config["model"]["decoder"]["session_options"]["intra_op_num_threads"] = threads
    with open(os.path.join(tmp, "genai_config.json"), "w") as f:
        json.dump(config, f)
    return tmp, tmp


def main():
    args = parse_args()
    folder, cleanup = with_threads(args.model_dir, args.threads)
    try:
        model = og.Model(folder)
        if args.prompt is not None:
            tokenizer = og.Tokenizer(model)
            text = args.prompt
            if args.chat:
                text = tokenizer.apply_chat_template(json.dumps([{"role": "user", "content": text}]), add_generation_prompt=True)
            ids = [int(i) for i in tokenizer.encode(text)]
        else:
            ids = [int(i) for i in args.prompt_ids.split(",")]
        runs = []
        first_tokens = None
        for repetition in range(args.warmup + args.repetitions):
            params = og.GeneratorParams(model)
            params.set_search_options(max_length=len(ids) + args.max_new_tokens, do_sample=False)
            if args.ignore_eos:
                params.set_search_options(min_length=len(ids) + args.max_new_tokens)
            generator = og.Generator(model, params)
            tokens, steps = [], []
            started = time.perf_counter()
            generator.append_tokens(ids)
            generator.generate_next_token()
            tokens.append(int(generator.get_next_tokens()[0]))
            ttft = (time.perf_counter() - started) * 1000
            while not generator.is_done():
                step_started = time.perf_counter()
                generator.generate_next_token()
                tokens.append(int(generator.get_next_tokens()[0]))
                steps.append((time.perf_counter() - step_started) * 1000)
            if repetition >= args.warmup:
                runs.append({"ttft_ms": ttft, "decode_ms": steps})
                if first_tokens is None:
                    first_tokens = tokens
            del generator
        print(json.dumps({"genai_version": og.__version__, "prompt_ids": ids, "tokens": first_tokens, "runs": runs}))
    finally:
        if cleanup:
            shutil.rmtree(cleanup, ignore_errors=True)


if __name__ == "__main__":
    main()
