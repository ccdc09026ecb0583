"""Unpacks ONNX's backend test data from the onnx 1.22.0 wheel into DEST, writing the `real`
cases as ordinary test-data folders (called by scripts/fetch-conformance).

    python3 scripts/fetch_conformance.py WHEEL DEST
"""
import io, json, os, sys, zipfile
import numpy as np
import onnx
from onnx import numpy_helper

wheel, dest = sys.argv[1], sys.argv[2]
prefix = "onnx/backend/test/data/"
z = zipfile.ZipFile(wheel)
count = 0
for name in z.namelist():
    if not name.startswith(prefix) or name.endswith("/"):
        continue
    rel = name[len(prefix):]
    kind = rel.split("/")[0]
    if kind in ("node", "simple", "pytorch-converted", "pytorch-operator"):
        out = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(z.read(name))
for name in z.namelist():
    if not (name.startswith(prefix + "real/") and name.endswith("/data.json")):
        continue
    info = json.loads(z.read(name))
    case_dir = os.path.join(dest, os.path.dirname(name[len(prefix):]))
    model_bytes = z.read(info["url"])
    model = onnx.load_model_from_string(model_bytes)
    os.makedirs(os.path.join(case_dir, "test_data_set_0"), exist_ok=True)
    with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
        f.write(model_bytes)
    with open(os.path.join(case_dir, "data.json"), "w") as f:
        json.dump({"rtol": info.get("rtol", 1e-3), "atol": info.get("atol", 1e-7)}, f)
    inits = {i.name for i in model.graph.initializer}
    k = 0
    for x in model.graph.input:
        if x.name in inits:
            continue
        # onnx.backend.test.runner generate_dummy_data(random=False)
        shape = tuple(d.dim_value if d.HasField("dim_value") else 1 for d in x.type.tensor_type.shape.dim)
        n = int(np.prod(shape))
        value = (np.arange(n).reshape(shape) / n).astype(np.float32)
        with open(os.path.join(case_dir, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, x.name).SerializeToString())
        k += 1
    out_base = os.path.splitext(info["url"])[0]
    for i in range(len(model.graph.output)):
        with open(os.path.join(case_dir, "test_data_set_0", f"output_{i}.pb"), "wb") as f:
            f.write(z.read(f"{out_base}_output_{i}.pb"))
cases = sum(1 for root, dirs, files in os.walk(dest) if "model.onnx" in files)
print(f"{cases} cases in {dest}")
