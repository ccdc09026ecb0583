"""Removes from a Wine prefix's drive_c every file Wine can provide itself: builtin and
placeholder DLL copies (the "Wine builtin DLL" / "Wine placeholder DLL" marker at offset 0x40)
and .nls tables (Wine reads share/wine/nls). What remains is the registry and the folders, a few
MB, which the GPU bundle carries; make-bundle then hard-links the DLLs it needs back.

    python3 prune_prefix.py PREFIX/drive_c
"""
import os
import sys

removed = 0
for folder, _, files in os.walk(sys.argv[1]):
    for name in files:
        path = os.path.join(folder, name)
        if os.path.islink(path):
            continue
        with open(path, "rb") as f:
            head = f.read(0x60)
        builtin = head[:2] == b"MZ" and head[0x40:0x60].startswith((b"Wine builtin DLL", b"Wine placeholder DLL"))
        if name.lower().endswith(".nls") or builtin:
            os.remove(path)
            removed += 1
print(f"prefix: removed {removed} builtin DLL copies and .nls files")
