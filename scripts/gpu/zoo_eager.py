"""PyTorch eager on CUDA for the zoo's speed step (GPU_STEPS=zoo with GPU_ZOO_SPEED): each model
built as scripts/gpu/zoo_models.py builds it (the same seed, the same input shapes), on one GPU,
timed in float32 (TF32 off, so float32 means float32 as on DirectML) and in float16 (the module
and its floating inputs in half precision); cuDNN's autotuner on. Warm-up runs, then each run
timed alone (synchronised) for about --seconds, the median kept: what `dmlrun bench` reports as
p50, so the two are ratios of like to like.

    python3 zoo_eager.py OUT.json --only @FILE [--seconds 2] [--device cpu]
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo_models  # noqa: E402 - the builders live beside this script


def timed(module, args, seconds):
    import torch

    # On the CPU (a smoke test of this script where there is no GPU) nothing is asynchronous.
    sync = torch.cuda.synchronize if args[0].is_cuda else (lambda: None)
    with torch.no_grad():
        for _ in range(5):
            module(*args)
        sync()
        times, started = [], time.perf_counter()
        while len(times) < 10 or (time.perf_counter() - started < seconds and len(times) < 1000):
            t0 = time.perf_counter()
            module(*args)
            sync()
            times.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": round(statistics.median(times), 4), "runs": len(times)}


def one(family, name, build, seconds, device):
    import torch

    torch.manual_seed(zoo_models.SEED)
    record = {"model": f"{family}/{name}"}
    with torch.no_grad():
        module, inputs = build()
    module = module.eval().to(device)
    args = [v.to(device) for v in inputs.values()]
    record["float32"] = timed(module, args, seconds)
    try:
        half = module.half()
        record["float16"] = timed(half, [a.half() if a.is_floating_point() else a for a in args], seconds)
    except Exception as e:  # noqa: BLE001 - a model with no float16 form in eager is said so
        record["float16_error"] = f"{type(e).__name__}: {zoo_models.first_line(e)}"
    del module
    if device == "cuda":
        torch.cuda.empty_cache()
    return record


def main():
    import torch

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("--only", required=True, help="@FILE of family/name lines, or comma-separated names")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--device", default="cuda", help="cpu: a smoke test of the script where there is no GPU")
    a = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    text = open(a.only[1:]).read() if a.only.startswith("@") else a.only
    wanted = set(text.replace(",", "\n").split())
    groups = sorted({zoo_models.family_group(w.split("/")[0]) for w in wanted})
    records = []
    for family, name, build in zoo_models.catalogue(groups):
        if f"{family}/{name}" not in wanted:
            continue
        try:
            records.append(one(family, name, build, a.seconds, a.device))
        except Exception as e:  # noqa: BLE001 - each model's failure recorded, the others go on
            records.append({"model": f"{family}/{name}", "error": f"{type(e).__name__}: {zoo_models.first_line(e)}"})
        print(json.dumps(records[-1]), flush=True)
    with open(a.out, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(0) if a.device == "cuda" else "cpu", "torch": torch.__version__, "models": records}, f, indent=1)


if __name__ == "__main__":
    main()
