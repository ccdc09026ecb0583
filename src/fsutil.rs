//! File writing that never leaves a partial file behind.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Writes `bytes` to a temporary file in `path`'s directory, then renames it into place, so
/// readers see either the old file or the complete new one, and a failure leaves nothing.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".dmlrun-").suffix(".partial");
    // A temporary file is private (0600) by default; the written file is an ordinary output, so it
    // gets what the user's umask gives any new file, as `>` in a shell would.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder
        .tempfile_in(dir)
        .with_context(|| format!("writing {}: cannot create a file in {}", path.display(), dir.display()))?;
    tmp.write_all(bytes).with_context(|| format!("writing {}", path.display()))?;
    tmp.as_file().sync_all().with_context(|| format!("writing {}", path.display()))?;
    tmp.persist(path).map_err(|e| anyhow::anyhow!("writing {}: {}", path.display(), e.error))?;
    Ok(())
}

/// Files that ONNX Runtime writes itself (the optimised-model cache, the profile), which dmlrun
/// cannot write atomically: they are written under a hidden `.partial` name in the final
/// directory, renamed into place with [`OrtWritten::keep`], and removed when the guard is dropped
/// without that (a failed run). ONNX Runtime also writes a profile when a session is destroyed,
/// so the guard must outlive the session: declare it first.
pub struct OrtWritten {
    dir: PathBuf,
    partial_prefix: String,
}

impl OrtWritten {
    /// Files whose names start with `.NAME.partial` in `dir`.
    pub fn new(dir: &Path, name: &str) -> OrtWritten {
        OrtWritten { dir: dir.to_path_buf(), partial_prefix: format!(".{name}.partial") }
    }

    /// The path (or, for a profile, the prefix) to hand ONNX Runtime.
    pub fn partial_path(&self) -> PathBuf {
        self.dir.join(&self.partial_prefix)
    }

    /// Renames what ONNX Runtime wrote at `written` (a name under [`Self::partial_path`]) to
    /// `NAME` plus whatever ONNX Runtime appended, and returns the final path.
    pub fn keep(&self, written: &Path) -> Result<PathBuf> {
        let file_name = written.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let suffix = file_name
            .strip_prefix(self.partial_prefix.as_str())
            .ok_or_else(|| anyhow::anyhow!("{} is not a file dmlrun asked ONNX Runtime to write", written.display()))?;
        let name = &self.partial_prefix[1..self.partial_prefix.len() - ".partial".len()];
        let kept = self.dir.join(format!("{name}{suffix}"));
        std::fs::rename(self.dir.join(file_name), &kept).with_context(|| format!("keeping {}", kept.display()))?;
        Ok(kept)
    }
}

impl Drop for OrtWritten {
    fn drop(&mut self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        for entry in entries.flatten() {
            if entry.file_name().to_str().is_some_and(|n| n.starts_with(&self.partial_prefix)) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_file_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.bin");
        write_atomic(&path, b"hello").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"hello");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.bin")]);
    }

    #[cfg(unix)]
    #[test]
    fn written_files_get_the_umask_mode_not_a_temporary_files_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.json");
        write_atomic(&path, b"{}").unwrap();
        // What the process's umask makes of a new ordinary file, read off one made with std::fs.
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"").unwrap();
        let expected = std::fs::metadata(&plain).unwrap().permissions().mode() & 0o777;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, expected);
        assert_ne!(expected, 0o600, "this test needs a umask that lets group or others read new files");
    }

    #[test]
    fn ort_written_files_are_kept_under_their_name_or_removed() {
        let dir = tempfile::tempdir().unwrap();
        let names = || {
            let mut v: Vec<String> =
                std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
            v.sort();
            v
        };
        {
            let profile = OrtWritten::new(dir.path(), "model");
            // What ONNX Runtime does with a profile prefix: appends a timestamp and .json.
            let written = PathBuf::from(format!("{}_2026-11-22.json", profile.partial_path().display()));
            std::fs::write(&written, "[]").unwrap();
            assert_eq!(profile.keep(&written).unwrap(), dir.path().join("model_2026-11-22.json"));
            // Written again by a session's destructor after the guard decided: removed.
            std::fs::write(profile.partial_path(), "partial").unwrap();
        }
        assert_eq!(names(), vec!["model_2026-11-22.json"]);
        {
            let failed = OrtWritten::new(dir.path(), "other.onnx");
            std::fs::write(failed.partial_path(), "half a model").unwrap();
        }
        assert_eq!(names(), vec!["model_2026-11-22.json"], "a failed run leaves nothing behind");
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_file() {
        let err = write_atomic(Path::new("/nonexistent-dir/x.npy"), b"x").unwrap_err().to_string();
        assert!(err.contains("/nonexistent-dir/x.npy"), "{err}");
    }
}
