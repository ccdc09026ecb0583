"""Copies Xvfb with its compiled-in xkbcomp directory "/usr/bin" changed to "/tmp/gpx" (the same
length, so no offset moves): on the GPU machine, run-on-gpu links /tmp/gpx to the bundle's own
xkbcomp, and Xvfb starts without anything installed in /usr/bin.

    python3 patch_xvfb.py /usr/bin/Xvfb OUT
"""
import sys

data = open(sys.argv[1], "rb").read()
assert data.count(b"/usr/bin\0") == 1, "expected exactly one /usr/bin string in Xvfb"
with open(sys.argv[2], "wb") as f:
    f.write(data.replace(b"/usr/bin\0", b"/tmp/gpx\0"))
