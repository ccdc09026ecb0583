"""JPEG decoding: dmlrun against Pillow, every pixel (called by scripts/jpeg-vs-pillow).

Writes a set of JPEGs with Pillow from the sample photos (baseline and progressive; 4:4:4,
4:2:2, 4:2:0; greyscale; CMYK with Adobe's marker; restart markers; optimised Huffman tables;
qualities 20 to 100; sizes from 1x1 up to the whole photo, odd ones included), decodes each
with Pillow (`Image.open(f).convert("RGB")`, what torchvision pipelines do) and with dmlrun
(`--preset raw --resize none --save-inputs`: the decoded pixels as float32), and counts the
pixels that differ. Exits 1 if any does.

    python3 scripts/jpeg_vs_pillow.py DMLRUN WORKDIR
    python3 scripts/jpeg_vs_pillow.py --write tests/data/jpeg

--write stores the cases and the SHA-256 of Pillow's pixels for each (pillow.json), which
`cargo test` checks without Python (tests/jpeg.rs).
"""
import hashlib, json, os, subprocess, sys
import numpy as np
from PIL import Image, features

PHOTOS = {"cat": "models/cat.png", "coffee": "models/coffee.png"}


def crop(name, box):
    return Image.open(PHOTOS[name]).convert("RGB").crop(box)


def cases():
    """(file name, picture, Pillow save options)."""
    whole_cat, whole_coffee = Image.open(PHOTOS["cat"]).convert("RGB"), Image.open(PHOTOS["coffee"]).convert("RGB")
    odd = crop("coffee", (200, 120, 301, 187))  # 101x67: no side a multiple of 8 or 16
    yield "cat-420-q75.jpg", whole_cat, dict(quality=75)
    yield "coffee-420-q90.jpg", whole_coffee, dict(quality=90)
    for sampling in ("4:4:4", "4:2:2", "4:2:0"):
        tag = sampling.replace(":", "")
        yield f"odd-{tag}-q85.jpg", odd, dict(quality=85, subsampling=sampling)
        yield f"odd-{tag}-progressive.jpg", odd, dict(quality=85, subsampling=sampling, progressive=True)
    yield "odd-420-q20.jpg", odd, dict(quality=20)
    yield "odd-444-q100.jpg", odd, dict(quality=100, subsampling="4:4:4")
    yield "odd-420-optimized.jpg", odd, dict(quality=80, optimize=True)
    yield "odd-420-restart-blocks.jpg", odd, dict(quality=80, restart_marker_blocks=3)
    yield "odd-422-restart-rows.jpg", odd, dict(quality=80, subsampling="4:2:2", restart_marker_rows=1)
    yield "odd-grey.jpg", odd.convert("L"), dict(quality=85)
    yield "odd-grey-progressive.jpg", odd.convert("L"), dict(quality=85, progressive=True)
    yield "odd-cmyk.jpg", odd.convert("CMYK"), dict(quality=85)
    yield "cat-cmyk-progressive.jpg", whole_cat.convert("CMYK"), dict(quality=75, progressive=True)
    for w, h in ((1, 1), (2, 3), (9, 17), (17, 9), (15, 16), (33, 35)):
        yield f"size-{w}x{h}-420.jpg", crop("cat", (150, 100, 150 + w, 100 + h)), dict(quality=90)


def pillow_pixels(path):
    return np.asarray(Image.open(path).convert("RGB"))


def write(folder):
    os.makedirs(folder, exist_ok=True)
    expected = {}
    for name, picture, options in cases():
        path = os.path.join(folder, name)
        picture.save(path, "JPEG", **options)
        pixels = pillow_pixels(path)
        expected[name] = {"width": pixels.shape[1], "height": pixels.shape[0],
                          "sha256": hashlib.sha256(pixels.tobytes()).hexdigest()}
    with open(os.path.join(folder, "pillow.json"), "w") as f:
        json.dump({"pillow": Image.__version__, "libjpeg_turbo": features.version("libjpeg_turbo"),
                   "cases": expected}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {len(expected)} JPEGs and pillow.json to {folder}")


def compare(dmlrun, work):
    os.makedirs(work, exist_ok=True)
    total = differing = 0
    failed = []
    for name, picture, options in cases():
        path = os.path.join(work, name)
        picture.save(path, "JPEG", **options)
        want = pillow_pixels(path)
        out = os.path.join(work, name + ".inputs")
        subprocess.run([dmlrun, "tests/models/identity_image.onnx", "-i", path, "--preset", "raw", "--resize", "none",
                        "--ep", "cpu", "--iterations", "1", "-q", "--save-inputs", out], check=True,
                       stdout=subprocess.DEVNULL)
        got = np.load(os.path.join(out, "image.npy"))[0].transpose(1, 2, 0)
        if got.shape != want.shape:
            failed.append(f"{name}: shape {got.shape} vs Pillow's {want.shape}")
            continue
        diff = np.abs(got - want.astype(np.float32))
        n = int((diff > 0).any(axis=2).sum())
        total += want.shape[0] * want.shape[1]
        differing += n
        print(f"{name:32} {want.shape[1]}x{want.shape[0]:<4} differing pixels {n} (max {diff.max():.0f} levels)")
        if n:
            failed.append(f"{name}: {n} pixels differ")
    print(f"\n{total} pixels compared in {len(list(cases()))} JPEGs; {differing} differ "
          f"(Pillow {Image.__version__}, libjpeg-turbo {features.version('libjpeg_turbo')})")
    for line in failed:
        print("FAIL", line)
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1] == "--write":
        write(sys.argv[2])
    else:
        sys.exit(compare(sys.argv[1], sys.argv[2]))
