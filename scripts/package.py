"""Release archives (called by scripts/package): a Windows zip and a Linux tar.gz, each one folder
holding the binary, the ONNX Runtime it loads from beside itself, the README, the man page and
completions, and the licence texts of everything inside.

    python3 scripts/package.py VERSION OUTDIR

Reads the builds already made (target/release/ and target/x86_64-pc-windows-gnu/release/, whose
build scripts extracted ONNX Runtime from its PyPI wheels into the same folders) and the wheels
themselves (their licence texts). The Rust crates' licence texts come from cargo-about, per target
(rust_crate_licenses.py, which refuses a list missing a linked crate). The Wine-only stand-in DLL
is never packed.
"""
import glob, io, os, sys, tarfile, zipfile

from rust_crate_licenses import metadata, rust_crate_licenses

VERSION, OUT = sys.argv[1], sys.argv[2]
os.makedirs(OUT, exist_ok=True)


def wheel_texts(pattern):
    """ONNX Runtime's licence, third-party notices and privacy statement from the wheel."""
    wheels = sorted(glob.glob(pattern))
    if not wheels:
        sys.exit(f"package: no wheel matches {pattern}; build first")
    with zipfile.ZipFile(wheels[-1]) as z:
        return {f"licenses/onnxruntime/{name}": z.read(f"onnxruntime/{name}")
                for name in ("LICENSE", "ThirdPartyNotices.txt", "Privacy.md")}, os.path.basename(wheels[-1])


def crate_license(name):
    """The licence file of a crate linked statically (libjpeg-turbo's code, through mozjpeg-sys)."""
    package = next(p for p in metadata()["packages"] if p["name"] == name)
    return open(os.path.join(os.path.dirname(package["manifest_path"]), "LICENSE"), "rb").read()


def rust_crates(target, deps_dir):
    return {"licenses/rust-crates.txt": rust_crate_licenses(target, deps_dir).encode()}


def common_files():
    files = {
        "README.md": open("README.md", "rb").read(),
        "doc/dmlrun.1": open("doc/dmlrun.1", "rb").read(),
        "licenses/dmlrun/LICENSE-MIT": open("LICENSE-MIT", "rb").read(),
        "licenses/dmlrun/LICENSE-APACHE": open("LICENSE-APACHE", "rb").read(),
        "licenses/libjpeg-turbo/LICENSE": crate_license("mozjpeg-sys"),
    }
    # The README's links into docs/ resolve inside the unpacked folder too.
    for path in sorted(glob.glob("docs/*.md") + glob.glob("docs/images/*")):
        files[path] = open(path, "rb").read()
    for path in sorted(glob.glob("doc/completions/*")):
        files["completions/" + os.path.basename(path)] = open(path, "rb").read()
    return files


def add_notice(files, text):
    files["licenses/NOTICE.txt"] = text.encode()


# --- Windows zip ---------------------------------------------------------------------------
win = "target/x86_64-pc-windows-gnu/release"
texts, wheel = wheel_texts("target/x86_64-pc-windows-gnu/onnxruntime-wheels/onnxruntime_directml-*.whl")
files = common_files() | texts | rust_crates("x86_64-pc-windows-gnu", f"{win}/deps")
for name in ("dmlrun.exe", "onnxruntime.dll", "DirectML.dll"):
    files[name] = open(os.path.join(win, name), "rb").read()
add_notice(files, f"""dmlrun {VERSION} for Windows (x86_64)

dmlrun.exe      dmlrun, MIT OR Apache-2.0 (licenses/dmlrun); statically links libjpeg-turbo's
                decoder (licenses/libjpeg-turbo: IJG, BSD-3-Clause, zlib) and the Rust crates
                listed, each with the licence text it carries, in licenses/rust-crates.txt.
onnxruntime.dll ONNX Runtime, from the {wheel} wheel (MIT: licenses/onnxruntime/LICENSE,
                third-party notices: licenses/onnxruntime/ThirdPartyNotices.txt).
DirectML.dll    Microsoft DirectML, redistributed as that same wheel redistributes it; the wheel
                ships no licence text of DirectML's own (its metadata says MIT License), so the
                wheel's texts above are the terms it carries.

Run: dmlrun.exe model.onnx --device 0 --input cat.png (dmlrun finds onnxruntime.dll beside it).
""")
zip_path = os.path.join(OUT, f"dmlrun-{VERSION}-x86_64-windows.zip")
with zipfile.ZipFile(zip_path + ".partial", "w", zipfile.ZIP_DEFLATED) as z:
    for name, data in sorted(files.items()):
        z.writestr(f"dmlrun-{VERSION}-x86_64-windows/{name}", data)
os.replace(zip_path + ".partial", zip_path)

# --- Linux tar.gz --------------------------------------------------------------------------
texts, wheel = wheel_texts("target/onnxruntime-wheels/onnxruntime-*manylinux*.whl")
files = common_files() | texts | rust_crates("x86_64-unknown-linux-gnu", "target/release/deps")
files["dmlrun"] = open("target/release/dmlrun", "rb").read()
libraries = glob.glob("target/release/libonnxruntime.so.*")
if len(libraries) != 1:
    sys.exit(f"package: expected one libonnxruntime.so.* in target/release, found {libraries}")
files[os.path.basename(libraries[0])] = open(libraries[0], "rb").read()
add_notice(files, f"""dmlrun {VERSION} for Linux (x86_64, glibc)

dmlrun          dmlrun, MIT OR Apache-2.0 (licenses/dmlrun); statically links libjpeg-turbo's
                decoder (licenses/libjpeg-turbo) and the Rust crates listed, each with the
                licence text it carries, in licenses/rust-crates.txt.
{os.path.basename(libraries[0])}  ONNX Runtime (CPU), from the {wheel} wheel (MIT:
                licenses/onnxruntime/LICENSE, licenses/onnxruntime/ThirdPartyNotices.txt).

Run: ./dmlrun model.onnx --input cat.png (dmlrun finds the library beside it). DirectML is
Windows-only: use the Windows zip for it.
""")
tar_path = os.path.join(OUT, f"dmlrun-{VERSION}-x86_64-linux.tar.gz")
with tarfile.open(tar_path + ".partial", "w:gz") as t:
    for name, data in sorted(files.items()):
        info = tarfile.TarInfo(f"dmlrun-{VERSION}-x86_64-linux/{name}")
        info.size = len(data)
        info.mode = 0o755 if name == "dmlrun" else 0o644
        t.addfile(info, io.BytesIO(data))
os.replace(tar_path + ".partial", tar_path)
for path in (zip_path, tar_path):
    print(f"{path}: {os.path.getsize(path) / 2**20:.1f} MiB")
