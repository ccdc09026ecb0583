"""dmlrun against Python onnxruntime, side by side in one run (called by scripts/bench-vs-python,
which sets DMLRUN and ITERATIONS and installs the packages): prints the ratios the README's
Performance section quotes.
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time
import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper, TensorProto
from PIL import Image

DMLRUN = os.environ["DMLRUN"]
N = int(os.environ["ITERATIONS"])
work = tempfile.mkdtemp(prefix="dmlrun-bench-")
THREADS = 2  # both sides use the same intra-op thread count

def dml(*args):
    out = subprocess.run([DMLRUN, *args], check=True, capture_output=True, text=True)
    return out.stdout

# A model whose Run takes about a millisecond: a chain of MatMul+Relu on [32, 512].
rng = np.random.default_rng(0)
nodes, inits, prev = [], [], "x"
for i in range(12):
    w = (rng.standard_normal((512, 512)) / 23).astype(np.float32)
    inits.append(numpy_helper.from_array(w, f"w{i}"))
    nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"]))
    nodes.append(helper.make_node("Relu", [f"m{i}"], [f"r{i}"]))
    prev = f"r{i}"
graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [32, 512])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [32, 512])], initializer=inits)
mlp = os.path.join(work, "mlp_1ms.onnx")
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]); m.ir_version = 8
onnx.save(m, mlp)
squeeze = "models/squeezenet1.1.onnx"

def python_latency(model, feeds, dims):
    so = ort.SessionOptions(); so.intra_op_num_threads = THREADS
    for name, value in dims.items():  # the same free-dimension overrides dmlrun gets
        so.add_free_dimension_override_by_name(name, value)
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    sess.run(None, feeds)
    for _ in range(5): sess.run(None, feeds)
    times = []
    for _ in range(N):
        t = time.perf_counter(); sess.run(None, feeds); times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)

def dmlrun_latency(model, *extra):
    r = json.loads(dml("bench", model, "--iterations", str(N), "--warmup", "5", "--intra-threads", str(THREADS),
                       "--ep", "cpu", "--json", "-", "--quiet", *extra))
    return r["models"][0]["latency_ms"]["p50"], r["models"][0]

rows = []
def row(what, ours, theirs, target):
    ratio = ours / theirs
    rows.append((what, ours, theirs, ratio, target))

# 1. steady-state latency (interleaved twice to even out machine noise)
for name, model, feeds, dims in [("SqueezeNet 1.1", squeeze, {"input": rng.random((1, 3, 224, 224), dtype=np.float32)}, {"N": 1}),
                                 ("MLP ~1 ms", mlp, {"x": rng.random((32, 512), dtype=np.float32)}, {})]:
    dim_flags = [f for k, v in dims.items() for f in ("--dim", f"{k}={v}")]
    ours = min(dmlrun_latency(model, *dim_flags)[0] for _ in range(2))
    theirs = min(python_latency(model, feeds, dims) for _ in range(2))
    row(f"steady-state latency p50, {name} (ms)", ours, theirs, "<= 1.00")

# dmlrun's own per-iteration overhead: its iteration time minus ONNX Runtime's model_run time,
# both from the same profiled run.
prof = os.path.join(work, "prof")
_, m = dmlrun_latency(mlp, "--profile", prof)
events = json.load(open(m["profile"]["file"]))
runs = [e["dur"] / 1000 for e in events if e.get("name") == "model_run"][-N:]
ort_mean = statistics.mean(runs)
overhead = (m["latency_ms"]["mean"] - ort_mean) / ort_mean
print(f"dmlrun per-iteration overhead outside ONNX Runtime's Run (MLP, profiled): {overhead * 100:.2f}% "
      f"({m['latency_ms']['mean'] * 1000:.1f} us per iteration vs {ort_mean * 1000:.1f} us in model_run)")

# 2. cold start to first printed result, classifying the cat
py_cold = f"""
import numpy as np, onnxruntime as ort
from PIL import Image
im = Image.open('models/cat.png').convert('RGB'); w, h = im.size; s = 256
nw, nh = (s, int(s * h / w)) if w < h else (int(s * w / h), s)
im = im.resize((nw, nh), Image.BILINEAR); l = int(round((nw - 224) / 2.0)); t = int(round((nh - 224) / 2.0))
a = np.asarray(im.crop((l, t, l + 224, t + 224))).astype(np.float32) / np.float32(255)
a = ((a - np.array([0.485, 0.456, 0.406], np.float32)) / np.array([0.229, 0.224, 0.225], np.float32)).transpose(2, 0, 1)[None]
so = ort.SessionOptions(); so.intra_op_num_threads = {THREADS}
p = ort.InferenceSession('{squeeze}', so, providers=['CPUExecutionProvider']).run(None, {{'input': a}})[0][0]
print(np.argsort(-p)[:3])
"""
def wall(cmd):
    t = time.perf_counter(); subprocess.run(cmd, check=True, capture_output=True); return (time.perf_counter() - t) * 1000
ours = statistics.median(wall([DMLRUN, squeeze, "-i", "models/cat.png", "--top-k", "3", "--iterations", "1", "--ep", "cpu", "--intra-threads", str(THREADS), "-q"]) for _ in range(7))
theirs = statistics.median(wall([sys.executable, "-c", py_cold]) for _ in range(7))
row("cold start to first result (ms)", ours, theirs, "<= 0.50")

# 3. preprocessing 32 photos: decode, resize, crop, normalise; as JPEG (what most photos are,
# written by Pillow at quality 90) and as PNG
def photo_set(ext):
    paths = []
    for i in range(32):
        src = "models/cat.png" if i % 2 == 0 else "models/coffee.png"
        dst = os.path.join(work, f"photo{i}.{ext}")
        if ext == "png":
            shutil.copy(src, dst)
        else:
            Image.open(src).convert("RGB").save(dst, "JPEG", quality=90)
        paths.append(dst)
    return paths
def py_prep():
    t = time.perf_counter(); batch = []
    for p in photos:
        im = Image.open(p).convert("RGB"); w, h = im.size; s = 256
        nw, nh = (s, int(s * h / w)) if w < h else (int(s * w / h), s)
        im = im.resize((nw, nh), Image.BILINEAR); l = int(round((nw - 224) / 2.0)); tp = int(round((nh - 224) / 2.0))
        a = np.asarray(im.crop((l, tp, l + 224, tp + 224))).astype(np.float32) / np.float32(255)
        batch.append(((a - np.array([0.485, 0.456, 0.406], np.float32)) / np.array([0.229, 0.224, 0.225], np.float32)).transpose(2, 0, 1))
    np.stack(batch)
    return (time.perf_counter() - t) * 1000
def dml_prep():
    args = [squeeze, "--dim", "N=32", "--iterations", "1", "--ep", "cpu", "--json", "-", "-q"]
    for p in photos: args += ["-i", p]
    return json.loads(dml(*args))["timings_ms"]["input_prepare"]
for ext in ("jpg", "png"):
    photos = photo_set(ext)
    ours = statistics.median(dml_prep() for _ in range(5))
    theirs = statistics.median(py_prep() for _ in range(5))
    row(f"preprocess 32 {ext.upper()} photos (ms)", ours, theirs, "<= 0.50")

# 4. session creation with the optimised-model cache vs without (dmlrun against itself)
cache = os.path.join(work, "cache")
uncached = statistics.median(json.loads(dml("bench", squeeze, "--iterations", "1", "--dim", "N=1", "--json", "-", "-q"))["models"][0]["session_create_ms"] for _ in range(5))
dml("bench", squeeze, "--iterations", "1", "--dim", "N=1", "--cache", cache, "-q")
cached = statistics.median(json.loads(dml("bench", squeeze, "--iterations", "1", "--dim", "N=1", "--cache", cache, "--json", "-", "-q"))["models"][0]["session_create_ms"] for _ in range(5))
rows.append(("session creation, SqueezeNet, with --cache vs without (ms)", cached, uncached, cached / uncached, "<= 0.50"))

print()
print(f"| measurement | dmlrun | reference | ratio | target |")
print(f"| --- | ---: | ---: | ---: | --- |")
for what, ours, theirs, ratio, target in rows:
    print(f"| {what} | {ours:.3f} | {theirs:.3f} | {ratio:.2f} | {target} |")
print(f"\n(reference: Python onnxruntime {ort.__version__}, numpy, Pillow {Image.__version__}; "
      f"{N} iterations, {THREADS} intra-op threads, CPU EP; {os.cpu_count()} logical cores)")
shutil.rmtree(work)
