//! Finding the ONNX Runtime shared library, in a documented order, and reading its version.

use std::ffi::CStr;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;

/// Where the library was found; reported by `dmlrun doctor` and in JSON reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LibrarySource {
    /// `--ort-lib PATH`.
    Flag,
    /// The `ORT_DYLIB_PATH` environment variable.
    Environment,
    /// Beside the dmlrun executable.
    NextToExecutable,
    /// In the `onnxruntime` (or `onnxruntime-directml`) package of the Python environment dmlrun
    /// was installed into with pip (`onnxruntime/capi/`).
    PythonPackage,
    /// Where the build script put it (`target/<profile>/`).
    BuildDirectory,
}

impl LibrarySource {
    pub fn describe(self) -> &'static str {
        match self {
            LibrarySource::Flag => "--ort-lib",
            LibrarySource::Environment => "ORT_DYLIB_PATH",
            LibrarySource::NextToExecutable => "next to the executable",
            LibrarySource::PythonPackage => "in the Python environment's onnxruntime package",
            LibrarySource::BuildDirectory => "build directory",
        }
    }
}

/// Library file names dmlrun looks for beside the executable, most specific first.
fn library_names() -> Vec<String> {
    if cfg!(windows) {
        vec!["onnxruntime.dll".into()]
    } else if cfg!(target_os = "macos") {
        vec!["libonnxruntime.dylib".into()]
    } else {
        let mut names = Vec::new();
        if let Some(v) = option_env!("DMLRUN_BUNDLED_ORT_VERSION") {
            names.push(format!("libonnxruntime.so.{v}"));
        }
        names.push("libonnxruntime.so".into());
        names
    }
}

/// The search order, as documented in the README: flag, environment, beside the executable,
/// build directory. Returns the first candidate that exists.
pub fn locate(flag: Option<&Path>) -> Result<(PathBuf, LibrarySource)> {
    if let Some(path) = flag {
        if !path.is_file() {
            bail!("--ort-lib {}: no such file", path.display());
        }
        return Ok((path.to_path_buf(), LibrarySource::Flag));
    }
    if let Some(value) = std::env::var_os("ORT_DYLIB_PATH").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(value);
        if !path.is_file() {
            bail!("ORT_DYLIB_PATH={}: no such file", path.display());
        }
        return Ok((path, LibrarySource::Environment));
    }
    let mut looked = Vec::new();
    if let Some(dir) = std::env::current_exe().ok().and_then(|p| p.parent().map(Path::to_path_buf)) {
        for name in library_names() {
            let candidate = dir.join(&name);
            if candidate.is_file() {
                return Ok((candidate, LibrarySource::NextToExecutable));
            }
            looked.push(candidate);
        }
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(found) = in_python_environment(&exe, &mut looked) {
            return Ok((found, LibrarySource::PythonPackage));
        }
    }
    if let Some(built) = option_env!("DMLRUN_BUILD_ORT_PATH") {
        let candidate = PathBuf::from(built);
        if candidate.is_file() {
            return Ok((candidate, LibrarySource::BuildDirectory));
        }
        looked.push(candidate);
    }
    let looked: Vec<String> = looked.iter().map(|p| p.display().to_string()).collect();
    bail!(
        "ONNX Runtime library not found (looked for {}). Get it with `{}` and point ORT_DYLIB_PATH (or --ort-lib) at {} inside the wheel, or rebuild dmlrun with Python 3 and pip available so the build fetches it",
        looked.join(", "),
        fetch_hint(),
        if cfg!(windows) { "onnxruntime/capi/onnxruntime.dll" } else { "onnxruntime/capi/libonnxruntime.so.*" },
    )
}

/// The ONNX Runtime library of the Python environment `exe` was installed into by pip: the wheel
/// puts dmlrun in `ENV/bin` (`ENV\Scripts` on Windows) and its dependency, `onnxruntime` or
/// `onnxruntime-directml`, in `ENV/lib/pythonX.Y/site-packages` (`ENV\Lib\site-packages`); a
/// `pip install --user` has the same shape under `~/.local`.
pub fn in_python_environment(exe: &Path, looked: &mut Vec<PathBuf>) -> Option<PathBuf> {
    let env = exe.parent()?.parent()?;
    let site_packages: Vec<PathBuf> = if cfg!(windows) {
        vec![env.join("Lib").join("site-packages")]
    } else {
        let mut found: Vec<PathBuf> = std::fs::read_dir(env.join("lib"))
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("python")))
            .map(|p| p.join("site-packages"))
            .collect();
        found.sort();
        found
    };
    for dir in site_packages {
        let capi = dir.join("onnxruntime").join("capi");
        for name in library_names() {
            let candidate = capi.join(&name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
        // The Linux wheel names its library with its own version.
        if !cfg!(windows) {
            let versioned =
                std::fs::read_dir(&capi).ok().into_iter().flatten().filter_map(|e| e.ok().map(|e| e.path())).find(
                    |p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("libonnxruntime.so.")),
                );
            if versioned.is_some() {
                return versioned;
            }
        }
        looked.push(capi);
    }
    None
}

fn fetch_hint() -> String {
    let package = option_env!("DMLRUN_BUNDLED_ORT_PACKAGE").unwrap_or("onnxruntime");
    let version = option_env!("DMLRUN_BUNDLED_ORT_VERSION").unwrap_or("1.31.1");
    format!("pip download --no-deps --only-binary=:all: {package}=={version}")
}

/// Reads `OrtGetApiBase()->GetVersionString()` from the library, before `ort` takes it over,
/// so an unusable file is reported with its path rather than as a panic inside `ort`.
pub fn read_version(path: &Path) -> Result<String> {
    // SAFETY: loading a shared library runs its initialisers; this is the ONNX Runtime library
    // the user (or the build) chose, which `ort` loads from the same path right after.
    let lib = unsafe { libloading::Library::new(path) }
        .with_context(|| format!("loading ONNX Runtime from {}", path.display()))?;
    type GetApiBase = unsafe extern "C" fn() -> *const ort::sys::OrtApiBase;
    // SAFETY: `OrtGetApiBase` has this signature in every ONNX Runtime release.
    let get_api_base: libloading::Symbol<GetApiBase> = unsafe { lib.get(b"OrtGetApiBase") }
        .map_err(|_| anyhow::anyhow!("{} is not an ONNX Runtime library (no OrtGetApiBase)", path.display()))?;
    // SAFETY: the function takes no arguments and returns a pointer to a static struct.
    let base = unsafe { get_api_base() };
    if base.is_null() {
        bail!("{}: OrtGetApiBase returned null", path.display());
    }
    // SAFETY: `base` points to ONNX Runtime's static OrtApiBase; GetVersionString returns a
    // pointer to a static NUL-terminated string.
    let version = unsafe { CStr::from_ptr(((*base).GetVersionString)()) };
    let version = version.to_string_lossy().into_owned();
    // Keep the library loaded for the life of the process: `ort` holds its own handle to it,
    // and unloading between the two would run its finalisers needlessly.
    std::mem::forget(lib);
    Ok(version)
}

/// The minor version of ONNX Runtime this build of dmlrun needs at least (its C API version).
pub const MIN_MINOR_VERSION: u32 = ort::MINOR_VERSION;

/// Checks `1.MINOR.PATCH` against [`MIN_MINOR_VERSION`].
pub fn check_version(version: &str, path: &Path) -> Result<()> {
    let minor = version.split('.').nth(1).and_then(|m| m.parse::<u32>().ok());
    match minor {
        Some(minor) if minor >= MIN_MINOR_VERSION => Ok(()),
        _ => bail!(
            "ONNX Runtime {version} at {} is too old: dmlrun needs 1.{MIN_MINOR_VERSION} or newer",
            path.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_library_of_the_python_environment_dmlrun_was_installed_into() {
        let env = tempfile::tempdir().unwrap();
        let (scripts, capi) = if cfg!(windows) {
            (env.path().join("Scripts"), env.path().join("Lib/site-packages/onnxruntime/capi"))
        } else {
            (env.path().join("bin"), env.path().join("lib/python3.12/site-packages/onnxruntime/capi"))
        };
        std::fs::create_dir_all(&scripts).unwrap();
        let exe = scripts.join(if cfg!(windows) { "dmlrun.exe" } else { "dmlrun" });
        let mut looked = Vec::new();
        assert_eq!(in_python_environment(&exe, &mut looked), None);
        std::fs::create_dir_all(&capi).unwrap();
        let library = capi.join(if cfg!(windows) { "onnxruntime.dll" } else { "libonnxruntime.so.1.31.1" });
        std::fs::write(&library, b"").unwrap();
        assert_eq!(in_python_environment(&exe, &mut looked), Some(library));
    }

    #[test]
    fn version_check_compares_minor() {
        let p = Path::new("x");
        assert!(check_version("1.31.1", p).is_ok());
        assert!(check_version("1.24.4", p).is_ok());
        assert!(check_version("1.16.0", p).is_err());
        assert!(check_version("garbage", p).is_err());
    }

    #[test]
    fn missing_flag_path_names_the_flag() {
        let err = locate(Some(Path::new("/nonexistent/libonnxruntime.so"))).unwrap_err().to_string();
        assert!(err.starts_with("--ort-lib /nonexistent/libonnxruntime.so"), "{err}");
    }
}
