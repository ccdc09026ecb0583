#!/usr/bin/env python3
"""Where a model's external data puts each tensor: how many tensors are in which file, and those
whose offset is not aligned as dmlrun aligns what it writes (64 KiB, Windows' mapping
granularity, for a tensor of 1 MiB or more; 4 KiB below), with each file's size.

    external_alignment.py MODEL.onnx [OUT.json]
"""
import json
import os
import sys

import onnx

LARGE, LARGE_ALIGN, SMALL_ALIGN = 1 << 20, 64 << 10, 4096


def main():
    path = sys.argv[1]
    model = onnx.load(path, load_external_data=False)
    folder = os.path.dirname(os.path.abspath(path))
    files, misaligned, external, inline, large = {}, [], 0, 0, 0
    for tensor in model.graph.initializer:
        if tensor.data_location != onnx.TensorProto.EXTERNAL:
            inline += 1
            continue
        entries = {e.key: e.value for e in tensor.external_data}
        offset, length = int(entries.get("offset", 0)), int(entries.get("length", 0))
        external += 1
        large += length >= LARGE
        files[entries["location"]] = files.get(entries["location"], 0) + 1
        if offset % (LARGE_ALIGN if length >= LARGE else SMALL_ALIGN):
            misaligned.append({"name": tensor.name, "offset": offset, "length": length})
    result = {
        "model": path,
        "model_bytes": os.path.getsize(path),
        "external_tensors": external,
        "of_1_mib_or_more": large,
        "inline_tensors": inline,
        "files": {name: {"tensors": n, "bytes": os.path.getsize(os.path.join(folder, name))} for name, n in files.items()},
        "misaligned": misaligned,
    }
    text = json.dumps(result, indent=1)
    print(text)
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            f.write(text)
    sys.exit(1 if misaligned else 0)


if __name__ == "__main__":
    main()
