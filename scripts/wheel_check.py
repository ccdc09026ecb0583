"""The Python wheels (called by scripts/wheel-check): the Linux wheel installed into a fresh
virtual environment, with its ONNX Runtime dependency from PyPI, runs the sample with the dmlrun
on that environment's PATH and finds ONNX Runtime inside the installed package; the Windows
wheel has the right tag, metadata and layout.

    python3 scripts/wheel_check.py WHEEL_DIR
"""
import glob, os, subprocess, sys, tempfile, zipfile

ROOT = os.getcwd()
wheels = sys.argv[1]


def one(pattern):
    found = glob.glob(os.path.join(wheels, pattern))
    assert len(found) == 1, f"expected one {pattern} in {wheels}, found {found}"
    return found[0]


def crate_list(wheel, names):
    """The wheel's RUST-CRATES-LICENSES.txt, as the set of crate names it lists."""
    path = next((n for n in names if n.endswith(".dist-info/licenses/RUST-CRATES-LICENSES.txt")), None)
    assert path, f"{os.path.basename(wheel)} carries no RUST-CRATES-LICENSES.txt"
    with zipfile.ZipFile(wheel) as z:
        return {line.split()[0] for line in z.read(path).decode().splitlines() if line.startswith("    ")}


def metadata(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        tags = z.read(next(n for n in names if n.endswith(".dist-info/WHEEL"))).decode()
        return names, meta, tags, z


# --- Linux: install and run ----------------------------------------------------------------
linux = one("dmlrun-*-manylinux*_x86_64.whl")
names, meta, tags, _ = metadata(linux)
assert "Requires-Dist: onnxruntime==1.31.1 ; sys_platform != 'win32'" in meta, meta
assert "License-Expression: MIT OR Apache-2.0" in meta, meta
# The Linux build's crates: ort, not the Windows-only windows-sys.
crates = crate_list(linux, names)
assert "ort" in crates and "windows-sys" not in crates, sorted(crates)
with tempfile.TemporaryDirectory() as work:
    venv = os.path.join(work, "venv")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--quiet", linux], check=True)
    env = {k: v for k, v in os.environ.items() if k != "ORT_DYLIB_PATH"}
    env["PATH"] = os.path.join(venv, "bin") + os.pathsep + env["PATH"]
    run = subprocess.run(["dmlrun", os.path.join(ROOT, "models/squeezenet1.1.onnx"), "--input",
                          os.path.join(ROOT, "models/cat.png"), "--top-k", "3", "--iterations", "1"],
                         cwd=work, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    for cls in ("281", "282", "285"):
        assert any(line.split()[:1] == [cls] for line in run.stdout.splitlines()), run.stdout
    line = next(l for l in run.stdout.splitlines() if l.startswith("onnxruntime :"))
    assert "site-packages/onnxruntime/capi/libonnxruntime.so" in line and "Python environment" in line, line
    doctor = subprocess.run(["dmlrun", "doctor"], cwd=work, env=env, capture_output=True, text=True, check=True).stdout
    assert "in the Python environment's onnxruntime package" in doctor, doctor
    print(f"{os.path.basename(linux)}: installed into a fresh venv with onnxruntime from PyPI; {line.strip()}")

# --- Windows: tag, metadata, layout ----------------------------------------------------------
windows = one("dmlrun-*-win_amd64.whl")
names, meta, tags, _ = metadata(windows)
assert "Tag: py3-none-win_amd64" in tags, tags
assert "Requires-Dist: onnxruntime-directml==1.24.4 ; sys_platform == 'win32'" in meta, meta
exe = next(n for n in names if n.endswith(".data/scripts/dmlrun.exe"))
with zipfile.ZipFile(windows) as z:
    assert z.read(exe)[:2] == b"MZ", "dmlrun.exe is not a Windows executable"
assert any(n.endswith("licenses/LICENSE-MIT") for n in names) and any(n.endswith("licenses/LICENSE-APACHE") for n in names)
assert "windows-sys" in crate_list(windows, names), "the Windows wheel's crate list is not the Windows build's"
print(f"{os.path.basename(windows)}: py3-none-win_amd64, requires onnxruntime-directml==1.24.4 on Windows, {exe}")
