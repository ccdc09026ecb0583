"""ImageNet preprocessing as torchvision computes it, written out from its source, for
tests/preprocess.rs to compare dmlrun's prepared tensors with, bit for bit.

torchvision is not imported (it needs PyTorch); its arithmetic is copied here step by step from
torchvision/transforms/functional.py (resize, center_crop, to_tensor, normalize) and
_functional_pil.py, with Pillow for decoding and resizing (what torchvision calls on a PIL image)
and numpy in float32 for the rest (what torch computes in float32):

  Resize(256):      the shorter side becomes 256, the longer int(256 * long / short),
                    Image.resize((w, h), BILINEAR)
  CenterCrop(224):  top = int(round((h - 224) / 2.0)), Python's round (half to even); a crop
                    larger than the picture pads (crop - size) // 2 zeros before, the rest after
  ToTensor:         float32(pixel) / 255, HWC -> CHW
  Normalize:        (x - float32(mean)) / float32(std), mean and std in R, G, B order
  BGR:              the normalised tensor's channels reversed (x[::-1])

    python3 scripts/torchvision_reference.py WORKDIR

Beside those, the modes Pillow's convert('RGB') takes from pictures that are not 8-bit RGB, as
torchvision's loader does: 16-bit grey (mode I;16, clipped to 255 by Pillow), 16-bit RGB and grey
with alpha (their high bytes), 1-bit, and a palette with a transparent entry (its colours).

writes WORKDIR/images/ (test pictures of awkward sizes, from the sample cat, as PNG and JPEG),
WORKDIR/cases.json (the pictures in order) and WORKDIR/reference-rgb.npy,
WORKDIR/reference-bgr.npy (float32 [N, 3, 224, 224]).
"""
import json, os, struct, sys, zlib
import numpy as np
from PIL import Image

CAT = os.path.join(os.path.dirname(__file__), "..", "models", "cat.png")
# (width, height): 4:3 both ways and 2:3, where the half-pixel offsets fall; square, exact
# and a one-pixel-wide strip, where nothing should move.
SIZES = [(500, 375), (640, 480), (375, 500), (333, 500), (1024, 768), (300, 300), (224, 224), (1, 60)]
MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]
RESIZE, CROP = 256, 224


def resize(img, size):
    """torchvision.transforms.functional.resize with an int size on a PIL image."""
    w, h = img.size
    short, long = (w, h) if w <= h else (h, w)
    new_short, new_long = size, int(size * long / short)
    new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
    return img.resize((new_w, new_h), Image.BILINEAR)


def center_crop(pixels, crop):
    """torchvision.transforms.functional.center_crop on an HWC array."""
    h, w = pixels.shape[:2]
    if crop > w or crop > h:
        left = (crop - w) // 2 if crop > w else 0
        top = (crop - h) // 2 if crop > h else 0
        right = (crop - w + 1) // 2 if crop > w else 0
        bottom = (crop - h + 1) // 2 if crop > h else 0
        pixels = np.pad(pixels, ((top, bottom), (left, right), (0, 0)))
        h, w = pixels.shape[:2]
    top = int(round((h - crop) / 2.0))
    left = int(round((w - crop) / 2.0))
    return pixels[top : top + crop, left : left + crop]


def transform(path):
    img = Image.open(path).convert("RGB")
    pixels = center_crop(np.asarray(resize(img, RESIZE)), CROP)
    x = pixels.astype(np.float32).transpose(2, 0, 1) / np.float32(255)
    mean = np.array(MEAN, dtype=np.float32)[:, None, None]
    std = np.array(STD, dtype=np.float32)[:, None, None]
    return (x - mean) / std


def png16(path, pixels, color_type):
    """A 16-bit PNG (Pillow writes only 8-bit RGB): big-endian samples, filter 0 on each row."""
    h, w = pixels.shape[:2]
    raw = b"".join(b"\x00" + pixels[y].astype(">u2").tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 16, color_type, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def other_modes(images, cat):
    """Pictures in the modes that are not 8-bit RGB, each from the cat at 320x240."""
    small = np.asarray(cat.resize((320, 240), Image.BILINEAR)).astype(np.uint16)
    grey = np.asarray(cat.resize((320, 240), Image.BILINEAR).convert("L")).astype(np.uint16)
    files = []
    # 16-bit grey spanning the whole range: Pillow clips it at 255 (most pixels white).
    path = os.path.join(images, "grey16.png")
    png16(path, grey * 257, 0)
    files.append(path)
    # 16-bit grey of small values, where clipping and scaling part most.
    path = os.path.join(images, "grey16-low.png")
    png16(path, grey, 0)
    files.append(path)
    path = os.path.join(images, "rgb16.png")
    png16(path, small * 257 + 100, 2)
    files.append(path)
    path = os.path.join(images, "grey-alpha16.png")
    png16(path, np.stack([grey * 257, np.full_like(grey, 30000)], axis=-1), 4)
    files.append(path)
    path = os.path.join(images, "bilevel.png")
    cat.resize((320, 240), Image.BILINEAR).convert("1").save(path)
    files.append(path)
    path = os.path.join(images, "palette-transparent.png")
    palette = cat.resize((320, 240), Image.BILINEAR).convert("P", palette=Image.ADAPTIVE, colors=64)
    palette.info["transparency"] = 3
    palette.save(path, transparency=3)
    files.append(path)
    return files


def main(work):
    images = os.path.join(work, "images")
    os.makedirs(images, exist_ok=True)
    cat = Image.open(CAT).convert("RGB")
    files = []
    for w, h in SIZES:
        picture = cat.resize((w, h), Image.BILINEAR)
        for ext, options in (("png", {}), ("jpg", {"quality": 90})):
            path = os.path.join(images, f"cat-{w}x{h}.{ext}")
            picture.save(path, **options)
            files.append(path)
    files.extend(other_modes(images, cat))
    rgb = np.stack([transform(f) for f in files]).astype(np.float32)
    np.save(os.path.join(work, "reference-rgb.npy"), rgb)
    np.save(os.path.join(work, "reference-bgr.npy"), np.ascontiguousarray(rgb[:, ::-1]))
    with open(os.path.join(work, "cases.json"), "w") as f:
        json.dump(files, f)


if __name__ == "__main__":
    main(sys.argv[1])
