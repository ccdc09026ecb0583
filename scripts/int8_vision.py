#!/usr/bin/env python3
"""Makes the int8 forms of the sample SqueezeNet 1.1 and the photos they are judged on, for
scripts/int8-vision and scripts/wine-check (issue 64, point 5).

Photos: the two in models/ and six colour photos scikit-image ships (chelsea, coffee, astronaut,
rocket, motorcycle_left, motorcycle_right). int8: ONNX Runtime's quantize_static, calibrated on
those photos preprocessed as torchvision's ImageNet recipe (shorter side to 256 bilinear, centre
crop 224, mean/std), uint8 activations and int8 weights: `squeezenet_qdq.onnx` (QDQ, weights per
channel) and `squeezenet_qop.onnx` (QOperator: QLinearConv ...).

    python scripts/int8_vision.py OUT_DIR [--photos DIR]

`--photos DIR` takes scikit-image's six from DIR (as scripts/gpu/carry-int8-photos writes them,
for the GPU machine, which has no scikit-image) instead of the installed package.
"""
import os
import shutil
import sys

import numpy as np
from PIL import Image

ROOT = os.path.join(os.path.dirname(__file__), "..")
SKIMAGE_PHOTOS = ["chelsea.png", "coffee.png", "astronaut.png", "rocket.jpg", "motorcycle_left.png", "motorcycle_right.png"]


def photos(out, given=None):
    folder = os.path.join(out, "photos")
    os.makedirs(folder, exist_ok=True)
    for name in ("cat.png", "coffee.png"):
        shutil.copy(os.path.join(ROOT, "models", name), os.path.join(folder, "models_" + name))
    if given:
        for name in sorted(os.listdir(given)):
            shutil.copy(os.path.join(given, name), os.path.join(folder, name))
        return sorted(os.path.join(folder, f) for f in os.listdir(folder))
    import skimage.data

    # The files the wheel carries (skimage/data/), read as they are: nothing is fetched.
    shipped = os.path.dirname(skimage.data.__file__)
    for name in SKIMAGE_PHOTOS:
        stem = os.path.splitext(name)[0]
        Image.open(os.path.join(shipped, name)).convert("RGB").save(os.path.join(folder, f"skimage_{stem}.png"))
    return sorted(os.path.join(folder, f) for f in os.listdir(folder))


def preprocess(path):
    image = Image.open(path).convert("RGB")
    w, h = image.size
    scale = 256 / min(w, h)
    image = image.resize((round(w * scale), round(h * scale)), Image.BILINEAR)
    w, h = image.size
    left, top = (w - 224) // 2, (h - 224) // 2
    image = image.crop((left, top, left + 224, top + 224))
    x = np.asarray(image, dtype=np.float32) / 255.0
    x = (x - np.array([0.485, 0.456, 0.406], np.float32)) / np.array([0.229, 0.224, 0.225], np.float32)
    return x.transpose(2, 0, 1)[None].astype(np.float32)


def main():
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    out = sys.argv[1]
    given = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--photos" else None
    os.makedirs(out, exist_ok=True)
    paths = photos(out, given)
    source = os.path.join(ROOT, "models", "squeezenet1.1.onnx")
    shutil.copy(source, os.path.join(out, "squeezenet_fp32.onnx"))
    import onnx

    input_name = onnx.load(source, load_external_data=False).graph.input[0].name

    class Photos(CalibrationDataReader):
        def __init__(self):
            self.batches = iter([{input_name: preprocess(p)} for p in paths])

        def get_next(self):
            return next(self.batches, None)

    for name, quant_format, per_channel in (
        ("squeezenet_qdq", QuantFormat.QDQ, True),
        ("squeezenet_qop", QuantFormat.QOperator, False),
    ):
        quantize_static(
            source,
            os.path.join(out, name + ".onnx"),
            Photos(),
            quant_format=quant_format,
            per_channel=per_channel,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )
    print(f"{len(paths)} photos, 3 forms in {out}")


if __name__ == "__main__":
    main()
