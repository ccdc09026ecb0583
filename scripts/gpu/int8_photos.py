#!/usr/bin/env python3
"""Writes the six photos scikit-image ships that scripts/int8_vision.py uses into a folder, as it
names them (`skimage_NAME.png`), for scripts/gpu/carry-int8-photos.

    int8_photos.py OUT_DIR
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from int8_vision import SKIMAGE_PHOTOS  # noqa: E402  (the list lives in one place)


def main():
    import skimage.data
    from PIL import Image

    shipped = os.path.dirname(skimage.data.__file__)
    for name in SKIMAGE_PHOTOS:
        stem = os.path.splitext(name)[0]
        Image.open(os.path.join(shipped, name)).convert("RGB").save(os.path.join(sys.argv[1], f"skimage_{stem}.png"))


if __name__ == "__main__":
    main()
