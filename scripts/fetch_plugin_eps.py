"""ONNX Runtime's plugin execution providers as PyPI ships them, unpacked for `--ep-library`:
onnxruntime-ep-webgpu 0.4.0 and onnxruntime-ep-openvino 1.8.1, for Linux (default) or Windows.

    python3 scripts/fetch_plugin_eps.py DIR [--windows]   (uses pip download; needs no other package)

Writes DIR/<name>/ (the package folder of each wheel) and DIR/plugins.json, which maps each name
to the library to register. A DIR whose plugins.json names these versions is left as it is.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

# name -> (package, version, the library inside the package folder, per platform)
PLUGINS = {
    "webgpu": ("onnxruntime-ep-webgpu", "0.4.0",
               {"linux": "libonnxruntime_providers_webgpu.so", "windows": "onnxruntime_providers_webgpu.dll"}),
    "openvino": ("onnxruntime-ep-openvino", "1.8.1",
                 {"linux": "libonnxruntime_providers_openvino_plugin.so",
                  "windows": "onnxruntime_providers_openvino_plugin.dll"}),
}
PLATFORM_TAGS = {"linux": "manylinux_2_28_x86_64", "windows": "win_amd64"}


def main():
    args = sys.argv[1:]
    platform = "windows" if "--windows" in args else "linux"
    dest = os.path.abspath(next(a for a in args if not a.startswith("--")))
    wanted = {name: f"{package}=={version}" for name, (package, version, _) in PLUGINS.items()}
    manifest_path = os.path.join(dest, "plugins.json")
    try:
        with open(manifest_path) as f:
            if json.load(f).get("versions") == wanted:
                print(manifest_path)
                return
    except (OSError, ValueError):
        pass
    # Unpacked beside DIR and renamed into place, so a test running beside this never sees half.
    parent = os.path.dirname(dest)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".plugin-eps-", dir=parent)
    try:
        with tempfile.TemporaryDirectory() as wheels:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                            "--platform", PLATFORM_TAGS[platform], "-d", wheels, *wanted.values()], check=True)
            libraries = {}
            for name, (package, version, library) in PLUGINS.items():
                folder = package.replace("-", "_")
                wheel = next(w for w in os.listdir(wheels) if w.startswith(f"{folder}-{version}-"))
                with zipfile.ZipFile(os.path.join(wheels, wheel)) as z:
                    members = [m for m in z.namelist() if m.startswith(folder + "/") or ".dist-info/licenses/" in m]
                    z.extractall(os.path.join(staging, name), members)
                os.rename(os.path.join(staging, name, folder), os.path.join(staging, name, "lib"))
                libraries[name] = os.path.join(dest, name, "lib", library[platform])
        with open(os.path.join(staging, "plugins.json"), "w") as f:
            json.dump({"versions": wanted, "platform": platform, "libraries": libraries}, f, indent=2)
        if os.path.isdir(dest):
            shutil.rmtree(dest)
        os.rename(staging, dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    print(manifest_path)


if __name__ == "__main__":
    main()
