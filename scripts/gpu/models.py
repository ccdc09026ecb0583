"""The GPU check's larger models, made from onnx 1.22.0's `light` ResNet-50 and VGG-19 (which
compute their weights with ConstantOfShape: all zeros, so every output is one constant and any
comparison between providers would be trivially exact).

For each MODEL.onnx given, writes MODEL_rw.onnx beside it:
  - every ConstantOfShape replaced by a seeded random initializer of its shape (He-normal for
    convolution weights, LeCun for fully connected ones, each residual branch's last convolution
    damped; batch-norm scale 1, variance in [0.5, 1.5], the rest small), so outputs depend on the
    input and on every weight;
  - the final Softmax removed, so the output is the logits (a Softmax saturates and hides
    differences);
  - the batch dimension symbolic, `N` (input, output, and the Reshape before the classifier,
    [1, C] -> [-1, C]), so one file serves batch 1 and batch 8.

    python3 models.py MODEL.onnx...     (needs onnx and numpy)
"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def randomize(path):
    m = onnx.load(path)
    g = m.graph
    rng = np.random.default_rng(1)
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    keep, new_inits = [], []
    for n in g.node:
        if n.op_type != "ConstantOfShape":
            keep.append(n)
            continue
        shape = [int(d) for d in inits[n.input[0]]]
        name = n.output[0]
        if len(shape) >= 2:
            fan_in = int(np.prod(shape[1:]))
            gain = 1.0 if len(shape) == 2 else 2.0
            if "branch2c_w" in name:
                gain *= 0.04
            a = rng.standard_normal(shape, dtype=np.float32) * np.float32(np.sqrt(gain / fan_in))
        elif name.endswith(("_riv_0", "_var_0")):
            a = rng.uniform(0.5, 1.5, shape).astype(np.float32)
        elif name.endswith("_s_0"):
            a = np.ones(shape, np.float32)
        else:
            a = rng.standard_normal(shape, dtype=np.float32) * np.float32(0.05)
        new_inits.append(numpy_helper.from_array(a, name))
    assert keep[-1].op_type == "Softmax", keep[-1].op_type
    logits = keep.pop().input[0]
    del g.node[:]
    g.node.extend(keep)
    g.initializer.extend(new_inits)
    # A symbolic batch: the Reshape's target shape [1, C] becomes [-1, C].
    for i, init in enumerate(g.initializer):
        if init.name == "OC2_DUMMY_1":
            a = numpy_helper.to_array(init).copy()
            assert a[0] == 1, a
            a[0] = -1
            g.initializer[i].CopyFrom(numpy_helper.from_array(a, init.name))
    init_names = {i.name for i in g.initializer}
    (data,) = [i for i in g.input if i.name not in init_names]
    data.type.tensor_type.shape.dim[0].dim_param = "N"
    out = g.output[0]
    dims = ["N"] + [d.dim_value for d in out.type.tensor_type.shape.dim][1:]
    g.output.remove(out)
    g.output.append(helper.make_tensor_value_info(logits, onnx.TensorProto.FLOAT, dims))
    # IR 3 lists initializers among the inputs; list the new ones there too, like the others.
    if m.ir_version < 4:
        for t in new_inits:
            g.input.append(helper.make_tensor_value_info(t.name, onnx.TensorProto.FLOAT, list(t.dims)))
    onnx.checker.check_model(m)
    dst = path[:-5] + "_rw.onnx"
    onnx.save(m, dst)
    params = sum(int(np.prod(t.dims)) for t in new_inits) / 1e6
    print(f"{dst}: {len(new_inits)} random initializers, {params:.1f} M parameters, output {logits} [N, ...]")


for model in sys.argv[1:]:
    randomize(model)
