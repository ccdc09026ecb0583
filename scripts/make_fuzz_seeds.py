#!/usr/bin/env python3
"""Writes the committed seed corpora for the fuzz targets into fuzz/seeds/<target>/.

Seeds are real files made by the libraries users make them with: .npy/.npz by numpy, images by
Pillow from the sample cat photo (downscaled so the fuzzer spends its time on structure, not on
pixels), TensorProto files from tests/data, models from tests/models. Run it (with
`pip install numpy pillow`) only to change the seeds; `scripts/fuzz` uses what is committed.
"""
import io
import os
import shutil
import zipfile

import numpy as np
from PIL import Image

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SEEDS = os.path.join(ROOT, "fuzz", "seeds")


def out(target, name, data):
    d = os.path.join(SEEDS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def npy_bytes(array, fortran=False):
    buf = io.BytesIO()
    np.save(buf, np.asfortranarray(array) if fortran else array)
    return buf.getvalue()


def npy_regression_seeds():
    """Inputs cargo fuzz found that once crashed or hung the .npy reader, kept so every smoke run
    tries them again."""
    # A format-2 header length of about 3.6 GB in a 70-byte file: an out-of-memory crash.
    text = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
    out("npy", "regression-header-length-bomb.npy", b"\x93NUMPY\x02\x00" + (0xD8859476).to_bytes(4, "little") + text)
    # 140 unclosed '[' in the header: the header parser backtracked for minutes (a timeout).
    text = b"{'descr': '<i8', 'fortran_order': " + b"[" * 140 + b"False, 'shape': (2, 2), }\n"
    out("npy", "regression-nested-header.npy", b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text)


def npy_seeds():
    rng = np.random.default_rng(0)
    arrays = {
        "f32_2x3": rng.standard_normal((2, 3)).astype("<f4"),
        "f16_4": np.arange(4, dtype="<f2"),
        "f64_scalar": np.array(3.5, dtype="<f8"),
        "i64_2x2": np.array([[1, -2], [3, 4]], dtype="<i8"),
        "i32_be_3": np.array([1, 2, 3], dtype=">i4"),
        "u8_2x2x3": rng.integers(0, 255, (2, 2, 3), dtype=np.uint8),
        "i8_5": np.arange(-2, 3, dtype=np.int8),
        "u16_2": np.array([1, 65535], dtype="<u2"),
        "bool_3": np.array([True, False, True]),
        "empty_0x3": np.zeros((0, 3), dtype="<f4"),
    }
    for name, a in arrays.items():
        out("npy", name + ".npy", npy_bytes(a))
    out("npy", "f32_2x3_fortran.npy", npy_bytes(rng.standard_normal((2, 3)).astype("<f4"), fortran=True))
    for name in ("plain", "compressed"):
        buf = io.BytesIO()
        save = np.savez_compressed if name == "compressed" else np.savez
        save(buf, input=arrays["f32_2x3"], ids=arrays["i64_2x2"])
        out("npy", name + ".npz", buf.getvalue())


def image_seeds():
    cat = Image.open(os.path.join(ROOT, "models", "cat.png")).convert("RGB")
    small = cat.resize((24, 16))
    for fmt, ext, mode in [
        ("PNG", "png", "RGB"),
        ("PNG", "png", "L"),
        ("PNG", "png", "RGBA"),
        ("PNG", "png", "P"),
        ("JPEG", "jpg", "RGB"),
        ("JPEG", "jpg", "L"),
        ("BMP", "bmp", "RGB"),
        ("WEBP", "webp", "RGB"),
        ("TIFF", "tif", "RGB"),
    ]:
        buf = io.BytesIO()
        small.convert(mode).save(buf, fmt)
        out("image", f"cat_{mode.lower()}.{ext}", buf.getvalue())
    buf = io.BytesIO()
    small.save(buf, "JPEG", progressive=True)
    out("image", "cat_progressive.jpg", buf.getvalue())
    buf = io.BytesIO()
    Image.new("I;16", (5, 3), 40000).save(buf, "PNG")
    out("image", "grey16.png", buf.getvalue())


def tensor_proto_seeds():
    src = os.path.join(ROOT, "tests", "data", "tensors")
    # The selector byte picks tensor (0), sequence (1) or optional (2); the files are tensors.
    for name in sorted(os.listdir(src)):
        if name.endswith(".pb"):
            with open(os.path.join(src, name), "rb") as f:
                out("tensor_proto", name, b"\x00" + f.read())


def manifest_seeds():
    toml = b"""
[[model]]
path = "squeezenet1.1.onnx"
name = "squeeze"
dims = { batch = 4 }
inputs = { data = "cat.png" }
rtol = 0.01

[[model]]
path = "models/add_mul.onnx"
generate = "random"
"""
    json = b"""{"models": [{"path": "a.onnx", "dims": {"N": 2}, "inputs": {"x": "x.npy"},
                 "generate": "zeros", "atol": 0.001}]}"""
    out("manifest", "bench.toml", b"\x00" + toml)
    out("manifest", "bench.json", b"\x01" + json)


def flag_seeds():
    for i, text in enumerate([
        "batch=1",
        "224x224",
        "probs=1e-5,1e-3",
        "2m30s",
        "model.onnx --device 1 --input cat.png --dim batch=1",
        "bench a.onnx b.onnx --iterations 100 --warmup 5 --duration 10s --json -",
        "test tests/data --rtol 1e-3 --atol 1e-5 --tol probs=0,0.01",
        "model.onnx --ep dml,cpu --image-size 224x224 --mean 0.5,0.5,0.5 --std 0.5 --layout nhwc",
    ]):
        out("flags", f"seed{i}.txt", text.encode())


def model_seeds():
    src = os.path.join(ROOT, "tests", "models")
    for name in sorted(os.listdir(src)):
        if name.endswith(".onnx"):
            shutil.copy(os.path.join(src, name), os.path.join(SEEDS, "model", name))


def genai_seeds():
    """The test decoder's genai_config.json and tokenizer.json, NUL between them (the target's
    layout), and the config with no tokenizer."""
    folder = os.path.join(ROOT, "tests", "models", "tiny_decoder")
    config = open(os.path.join(folder, "genai_config.json"), "rb").read()
    tokenizer = open(os.path.join(folder, "tokenizer.json"), "rb").read()
    out("genai", "tiny_decoder", config + b"\0" + tokenizer)
    out("genai", "config_only", config)
    # Found by this target: a decoder without its "type" made Hugging Face tokenizers panic.
    at = tokenizer.index(b'"decoder"')
    typed = at + tokenizer[at:].index(b'"type"')
    out("genai", "regression-decoder-without-type", config + b"\0" + tokenizer[:typed] + b'"kind"' + tokenizer[typed + 6:])


def merge_seeds():
    """Reports as dmlrun writes them (test and bench JSON, two shards of one test run, two bench
    runs to compare), made by the built binary ($DMLRUN, or target/release/dmlrun)."""
    import subprocess
    import tempfile

    dmlrun = os.environ.get("DMLRUN", os.path.join(ROOT, "target", "release", "dmlrun"))
    models = os.path.join(ROOT, "tests", "models")
    with tempfile.TemporaryDirectory() as work:
        case = os.path.join(work, "suite", "add_mul")
        subprocess.run([dmlrun, os.path.join(models, "add_mul.onnx"), "--generate", "random", "--dim", "batch=2",
                        "-q", "--as-test-data", "--save-outputs", case], check=True, stdout=subprocess.DEVNULL)
        reports = {}

        def report(name, args):
            path = os.path.join(work, name)
            subprocess.run([dmlrun] + args + ["--json", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            reports[name] = open(path, "rb").read()

        report("test.json", ["test", os.path.join(work, "suite")])
        report("test-1.json", ["test", os.path.join(work, "suite"), "--shard", "1/2"])
        report("test-2.json", ["test", os.path.join(work, "suite"), "--shard", "2/2"])
        for i in (1, 2):
            report(f"bench-{i}.json", ["bench", os.path.join(models, "add_mul.onnx"), os.path.join(models, "endless_loop.onnx"),
                                       "--iterations", "3", "--timeout", "1s"])
    out("merge", "test", reports["test.json"])
    out("merge", "test_shards", reports["test-1.json"] + b"\0" + reports["test-2.json"])
    out("merge", "bench", reports["bench-1.json"])
    out("merge", "bench_pair", reports["bench-1.json"] + b"\0" + reports["bench-2.json"])
    # Found by this target: durations no Duration holds (a negative time, a limit of 1e300 s)
    # panicked while the JUnit export or the time limit was read.
    import json
    test = json.loads(reports["test.json"])
    test["summary"]["duration_ms"] = -1.0
    test["cases"][0]["duration_ms"] = 1e300
    test["isolation"]["time_limit_s"] = 1e300
    out("merge", "regression-impossible-durations", json.dumps(test).encode())


def graph_seeds():
    """Every test model: control flow (Loop), sequences, maps, external data, custom domains."""
    src = os.path.join(ROOT, "tests", "models")
    for name in sorted(os.listdir(src)):
        if name.endswith(".onnx"):
            out("graph", name, open(os.path.join(src, name), "rb").read())


# Each target's seed writers.
SEEDERS = {
    "npy": [npy_seeds, npy_regression_seeds],
    "image": [image_seeds],
    "tensor_proto": [tensor_proto_seeds],
    "manifest": [manifest_seeds],
    "flags": [flag_seeds],
    "model": [model_seeds],
    "genai": [genai_seeds],
    "merge": [merge_seeds],
    "graph": [graph_seeds],
}


def main(targets):
    # With target names, only those are written again; without, every one.
    for target in targets or SEEDERS:
        shutil.rmtree(os.path.join(SEEDS, target), ignore_errors=True)
        os.makedirs(os.path.join(SEEDS, target))
        for write in SEEDERS[target]:
            write()
    for target in sorted(os.listdir(SEEDS)):
        files = os.listdir(os.path.join(SEEDS, target))
        size = sum(os.path.getsize(os.path.join(SEEDS, target, f)) for f in files)
        print(f"{target}: {len(files)} seeds, {size} bytes")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
