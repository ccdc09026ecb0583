//! File writing that never leaves a partial file behind.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

/// Writes `bytes` to a temporary file in `path`'s directory, then renames it into place, so
/// readers see either the old file or the complete new one, and a failure leaves nothing.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".dmlrun-")
        .suffix(".partial")
        .tempfile_in(dir)
        .with_context(|| format!("writing {}: cannot create a file in {}", path.display(), dir.display()))?;
    tmp.write_all(bytes).with_context(|| format!("writing {}", path.display()))?;
    tmp.as_file().sync_all().with_context(|| format!("writing {}", path.display()))?;
    tmp.persist(path).map_err(|e| anyhow::anyhow!("writing {}: {}", path.display(), e.error))?;
    Ok(())
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

    #[test]
    fn missing_directory_is_an_error_naming_the_file() {
        let err = write_atomic(Path::new("/nonexistent-dir/x.npy"), b"x").unwrap_err().to_string();
        assert!(err.contains("/nonexistent-dir/x.npy"), "{err}");
    }
}
