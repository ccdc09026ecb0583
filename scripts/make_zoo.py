"""The zoo's CI subset: real models as they ship inside PyPI wheels, each made into an ONNX
test-data folder (model.onnx, test_data_set_0 with real inputs and the CPU EP's outputs, data.json
with the zoo's tolerances) and a semantic.json saying what its outputs mean, so that
`dmlrun test OUT` is the numeric check and scripts/zoo_semantics.py the check a user would make
(the same text read, the same frames flagged, the same content types, the same boxes).

    python3 scripts/make_zoo.py OUT WHEELS_DIR [--tiny-torch DIR]

WHEELS_DIR holds the wheels scripts/make-zoo downloads with pip (--no-deps: only their files are
read, nothing of theirs is imported but magika's own features, to check ours against). The inputs:
  ocr/       PP-OCRv4 (rapidocr-onnxruntime 1.4.4): detection on a page of two lines rendered with
             Pillow, recognition of the two lines, orientation of a line upright and turned 180.
  vad/       Silero VAD 6.2.3 (the model with its LSTM inside If, and the If-less op18 one): a
             synthesized signal of voiced bursts and silence, 512-sample frames, each frame with
             the state the CPU EP carried into it (teacher-forced), so one batched run holds them.
  filetype/  Magika 1.0.3's standard_v3_3: the first and last 1024 bytes of a dozen files of this
             repository, as magika extracts them.
  detect/    NudeNet 3.4.2's 320n (YOLOv8n): the sample photos and scikit-image's astronaut,
             letterboxed to 320.
  torch-tiny/ the committed tiny BERT, ViT and GPT-2 torch exported (tests/models/torch), random
             inputs: the transformers family at CI's size.
"""
import argparse
import json
import os
import shutil
import sys
import zipfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper
from PIL import Image, ImageDraw, ImageFont

# ONNX Runtime's warnings about the wheels' own models (unused initializers) are not ours to act on.
ort.set_default_logger_severity(3)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import zoo_semantics  # noqa: E402  (the decoders: one definition for making and checking)

# The tolerances of a case: outputs here are probabilities and logits of order 1, so an absolute
# floor matters more than a relative one (a probability near 0 has no meaningful relative error).
TOLERANCE = {"rtol": 1e-3, "atol": 1e-4}
OCR_LINES = ["dmlrun 2026", "DirectML zoo"]


def wheel_file(wheels, package, member):
    for name in os.listdir(wheels):
        if name.startswith(package + "-") and name.endswith(".whl"):
            with zipfile.ZipFile(os.path.join(wheels, name)) as z:
                return z.read(member)
    sys.exit(f"make_zoo: no {package} wheel in {wheels}")


def write_case(out, family, name, model_bytes, inputs, semantic=None, source=""):
    """One test-data folder: the model, its inputs, the CPU EP's outputs, tolerances, meaning."""
    folder = os.path.join(out, family, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(model_bytes)
    session = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    feed = {n: inputs[n] for n in names}
    outputs = session.run(None, feed)
    for k, n in enumerate(names):
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(feed[n], n).SerializeToString())
    for k, (meta, value) in enumerate(zip(session.get_outputs(), outputs)):
        with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(value), meta.name).SerializeToString())
    with open(os.path.join(folder, "data.json"), "w") as f:
        json.dump(TOLERANCE, f)
    entry = {"family": family, "name": name, "source": source, "weights": "real" if semantic else "random"}
    if semantic is not None:
        answer = zoo_semantics.decode(semantic, {m.name: v for m, v in zip(session.get_outputs(), outputs)})
        semantic = dict(semantic, cpu_answer=answer)
        with open(os.path.join(folder, "semantic.json"), "w") as f:
            json.dump(semantic, f, indent=1)
        entry["semantic"] = semantic["kind"]
        print(f"  {family}/{name}: {zoo_semantics.describe(semantic['kind'], answer)}")
    return entry


# --- OCR -----------------------------------------------------------------------------------------
def font(size):
    # Pillow's own scalable font (Aileron, bundled since Pillow 10.1): the same glyphs everywhere.
    return ImageFont.load_default(size=size)


def text_line(text, height=48):
    """A line of black text on white, as PP-OCR's recogniser takes it: 48 pixels high."""
    f = font(34)
    left, top, right, bottom = f.getbbox(text)
    img = Image.new("RGB", (right - left + 16, height), "white")
    ImageDraw.Draw(img).text((8 - left, (height - (bottom - top)) // 2 - top), text, font=f, fill="black")
    return img


def ocr_tensor(images, width):
    """PP-OCR's normalisation, (x / 255 - 0.5) / 0.5, each line padded with zeros to `width`."""
    batch = np.zeros((len(images), 3, images[0].height, width), np.float32)
    for i, img in enumerate(images):
        w = min(width, img.width)
        a = np.asarray(img.resize((w, img.height), Image.BILINEAR), np.float32)
        batch[i, :, :, :w] = ((a / 255.0 - 0.5) / 0.5).transpose(2, 0, 1)
    return batch


def make_ocr(out, wheels):
    member = "rapidocr_onnxruntime/models/"
    det = wheel_file(wheels, "rapidocr_onnxruntime", member + "ch_PP-OCRv4_det_infer.onnx")
    rec = wheel_file(wheels, "rapidocr_onnxruntime", member + "ch_PP-OCRv4_rec_infer.onnx")
    cls = wheel_file(wheels, "rapidocr_onnxruntime", member + "ch_ppocr_mobile_v2.0_cls_infer.onnx")
    source = "rapidocr-onnxruntime 1.4.4"
    entries = []
    # Detection: a 192 x 640 page (multiples of 32, as the detector needs) with two lines.
    page = Image.new("RGB", (640, 192), "white")
    draw = ImageDraw.Draw(page)
    for row, text in enumerate(OCR_LINES):
        draw.text((40, 30 + row * 80), text, font=font(40), fill="black")
    # rapidocr's config.yaml: mean and std 0.5 for the detector as for the others.
    x = ocr_tensor([page], page.width)
    entries.append(write_case(out, "ocr", "ppocr-v4-det", det, {"x": x}, {"kind": "text-lines", "lines": len(OCR_LINES), "iou": 0.5},
                              source))
    # Recognition: both lines in one batch of width 320.
    lines = [text_line(t) for t in OCR_LINES]
    characters = [p.value for p in onnx.load_from_string(rec).metadata_props if p.key == "character"][0].splitlines()
    entries.append(write_case(out, "ocr", "ppocr-v4-rec", rec, {"x": ocr_tensor(lines, 320)},
                              {"kind": "ctc-text", "texts": OCR_LINES, "characters": characters}, source))
    # Orientation: the first line upright and turned 180 degrees, at the classifier's 48 x 192.
    upright = lines[0].resize((192, 48), Image.BILINEAR)
    turned = upright.rotate(180)
    entries.append(write_case(out, "ocr", "ppocr-mobile-v2-cls", cls, {"x": ocr_tensor([upright, turned], 192)},
                              {"kind": "orientation", "labels": ["0", "180"], "truth": ["0", "180"]}, source))
    return entries


# --- voice activity --------------------------------------------------------------------------------
def speech_like_signal(rate=16000, seconds=4.0, seed=3):
    """Voiced bursts (a glottal pulse train through three vowel formants, with syllable-rate
    amplitude and a gliding pitch) between stretches of faint noise. Where the bursts are is
    returned too, so the check can say whether the frames flagged lie in them."""
    rng = np.random.default_rng(seed)
    n = int(rate * seconds)
    t = np.arange(n) / rate
    signal = rng.normal(0, 0.002, n)
    bursts = [(0.5, 1.4), (2.1, 3.3)]
    for start, end in bursts:
        a, b = int(start * rate), int(end * rate)
        tt = t[a:b] - start
        pitch = 120 + 30 * np.sin(2 * np.pi * 1.5 * tt)
        phase = np.cumsum(pitch / rate)
        pulses = (np.diff(np.floor(phase), prepend=0) > 0).astype(np.float64)
        voiced = pulses
        for formant, bandwidth in [(700, 110), (1220, 120), (2600, 160)]:
            r = np.exp(-np.pi * bandwidth / rate)
            c1, c2 = 2 * r * np.cos(2 * np.pi * formant / rate), -r * r
            y = np.zeros_like(voiced)
            for i in range(len(voiced)):
                y[i] = voiced[i] + c1 * (y[i - 1] if i else 0) + c2 * (y[i - 2] if i > 1 else 0)
            voiced = y
        envelope = 0.55 + 0.45 * np.sin(2 * np.pi * 4 * tt - np.pi / 2)
        voiced = voiced / np.max(np.abs(voiced)) * 0.5 * envelope
        signal[a:b] += voiced + rng.normal(0, 0.01, b - a)
    return signal.astype(np.float32), bursts


def silero_frames(model_bytes, signal, rate=16000, frame=512, context=64):
    """What silero_vad's OnnxWrapper feeds, frame by frame (64 samples of context before each
    512), run on the CPU EP to carry the state: returns every frame's input and the state it got."""
    session = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    state = np.zeros((2, 1, 128), np.float32)
    ctx = np.zeros((1, context), np.float32)
    xs, states = [], []
    for start in range(0, len(signal) - frame + 1, frame):
        x = np.concatenate([ctx, signal[None, start:start + frame]], axis=1)
        feed = {"input": x, "state": state}
        if "sr" in names:
            feed["sr"] = np.array(rate, np.int64)
        xs.append(x)
        states.append(state)
        _, state = session.run(None, feed)
        ctx = x[:, -context:]
    return np.concatenate(xs), np.concatenate(states, axis=1)


def make_vad(out, wheels):
    signal, bursts = speech_like_signal()
    entries = []
    for name, member in [("silero-vad", "silero_vad.onnx"), ("silero-vad-op18-ifless", "silero_vad_op18_ifless.onnx")]:
        model = wheel_file(wheels, "silero_vad", "silero_vad/data/" + member)
        x, state = silero_frames(model, signal)
        frames = [[start * 512 / 16000, (start + 1) * 512 / 16000] for start in range(len(x))]
        entries.append(write_case(out, "vad", name, model, {"input": x, "state": state, "sr": np.array(16000, np.int64)},
                                  {"kind": "speech-frames", "threshold": 0.5, "frames": frames, "bursts": bursts},
                                  "silero-vad 6.2.3"))
    return entries


# --- file types ------------------------------------------------------------------------------------
MAGIKA_FILES = ["Cargo.toml", "README.md", "src/main.rs", "scripts/make_zoo.py", ".ci/run", "models/cat.png",
                "tests/models/torch/exported.json", "scripts/wine/dxgi-adapters.c", "docs/guide.md",
                "models/imagenet_classes.txt", "scripts/rust-crates-licenses.hbs", "models/squeezenet1.1.onnx"]


def magika_features(data, beg_size=1024, end_size=1024, padding=256, block=4096):
    """magika 1.0's features v2, from its source: the first block lstripped (stripped when the
    whole file fits in a block), its first beg_size bytes padded after; the last block rstripped,
    its last end_size bytes padded before."""
    head = data[:block]
    tail = data[-block:] if len(data) > block else data
    head = head.strip() if len(data) <= block else head.lstrip()
    tail = tail.strip() if len(data) <= block else tail.rstrip()
    beg = list(head[:beg_size]) + [padding] * max(0, beg_size - len(head))
    end = [padding] * max(0, end_size - len(tail)) + list(tail[-end_size:] if tail else b"")
    return beg + end


def make_magika(out, wheels):
    model = wheel_file(wheels, "magika", "magika/models/standard_v3_3/model.onnx")
    config = json.loads(wheel_file(wheels, "magika", "magika/models/standard_v3_3/config.min.json"))
    rows = []
    for path in MAGIKA_FILES:
        with open(os.path.join(ROOT, path), "rb") as f:
            rows.append(magika_features(f.read()))
    check_against_magika(rows)
    x = np.array(rows, np.int32)
    return [write_case(out, "filetype", "magika-standard-v3-3", model, {"bytes": x},
                       {"kind": "content-types", "files": MAGIKA_FILES, "labels": config["target_labels_space"]},
                       "magika 1.0.3")]


def check_against_magika(rows):
    """Our features against magika's own extraction, where the package is installed."""
    try:
        from magika import Magika
        from magika.seekable import Buffer
    except ImportError:
        return
    for path, ours in zip(MAGIKA_FILES, rows):
        with open(os.path.join(ROOT, path), "rb") as f:
            theirs = Magika._extract_features_from_seekable(Buffer(f.read()), 1024, 0, 1024, 256, 4096, False)
        if list(theirs.beg) + list(theirs.end) != ours:
            sys.exit(f"make_zoo: magika's features of {path} differ from ours")


# --- detection -------------------------------------------------------------------------------------
def letterbox(img, size=320):
    """NudeNet's preprocessing: padded square (bottom and right), resized to size, RGB / 255."""
    side = max(img.width, img.height)
    square = Image.new("RGB", (side, side), "black")
    square.paste(img.convert("RGB"), (0, 0))
    a = np.asarray(square.resize((size, size), Image.BILINEAR), np.float32) / 255.0
    return a.transpose(2, 0, 1)


def make_nudenet(out, wheels):
    model = wheel_file(wheels, "nudenet", "nudenet/320n.onnx")
    astronaut = wheel_file(wheels, "scikit_image", "skimage/data/astronaut.png")
    photos = [("astronaut.png", Image.open(__import__("io").BytesIO(astronaut)))]
    for name in ["cat.png", "coffee.png"]:
        photos.append((name, Image.open(os.path.join(ROOT, "models", name))))
    x = np.stack([letterbox(img) for _, img in photos]).astype(np.float32)
    return [write_case(out, "detect", "nudenet-320n", model, {"images": x},
                       {"kind": "boxes", "photos": [n for n, _ in photos], "iou": 0.9, "score": 0.2},
                       "nudenet 3.4.2, scikit-image 0.25 astronaut (CC0)")]


# --- torch's tiny exports --------------------------------------------------------------------------
def make_torch_tiny(out, folder):
    entries = []
    rng = np.random.default_rng(7)
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".onnx"):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            model = f.read()
        session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        inputs = {}
        for i in session.get_inputs():
            shape = [d if isinstance(d, int) else 8 for d in i.shape]
            if "int64" in i.type:
                inputs[i.name] = rng.integers(0, 64, shape).astype(np.int64)
                if "mask" in i.name:
                    inputs[i.name] = np.ones(shape, np.int64)
            else:
                inputs[i.name] = rng.standard_normal(shape).astype(np.float32)
        entries.append(write_case(out, "torch-tiny", name[:-5], model, inputs, None, "tests/models/torch (torch 2.11)"))
    return entries


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("wheels")
    p.add_argument("--tiny-torch", default=os.path.join(ROOT, "tests", "models", "torch"))
    a = p.parse_args()
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    entries = make_ocr(a.out, a.wheels) + make_vad(a.out, a.wheels) + make_magika(a.out, a.wheels)
    entries += make_nudenet(a.out, a.wheels) + make_torch_tiny(a.out, a.tiny_torch)
    with open(os.path.join(a.out, "zoo.json"), "w") as f:
        json.dump({"schema": "dmlrun.zoo/1", "models": entries}, f, indent=1)
    print(f"{len(entries)} models in {a.out}")


if __name__ == "__main__":
    main()
