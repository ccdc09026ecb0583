//! What a file given as an input is (an image, .npy, .npz, a TensorProto), by its extension or
//! its first bytes, and reading one within the size limit.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FileKind {
    Image,
    Npy,
    Npz,
    Pb,
}

pub(super) fn detect_kind(path: &Path) -> Result<FileKind> {
    let ext = path.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("npy") => return Ok(FileKind::Npy),
        Some("npz") => return Ok(FileKind::Npz),
        Some("pb") => return Ok(FileKind::Pb),
        _ if image::is_image_path(path) => return Ok(FileKind::Image),
        _ => {}
    }
    // No telling extension: look at the first bytes.
    let mut head = [0u8; 16];
    let n = {
        use std::io::Read;
        let mut f = std::fs::File::open(path).with_context(|| format!("opening input {}", path.display()))?;
        f.read(&mut head).with_context(|| format!("reading input {}", path.display()))?
    };
    let head = &head[..n];
    if head.starts_with(b"\x93NUMPY") {
        Ok(FileKind::Npy)
    } else if head.starts_with(b"PK\x03\x04") {
        Ok(FileKind::Npz)
    } else if image::looks_like_image(head) {
        Ok(FileKind::Image)
    } else {
        bail!(
            "input {}: cannot tell its format (expected an image, .npy, .npz or an ONNX TensorProto .pb)",
            path.display()
        )
    }
}

/// Reads a whole file, refusing ones larger than `limit` bytes (plus room for headers).
pub(super) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>> {
    // The caller names the file (`input file x.npy: ...`): said once, not twice.
    let meta = std::fs::metadata(path).map_err(|e| anyhow::anyhow!(crate::fsutil::os_words(&e)))?;
    if meta.len() > limit.saturating_add(1 << 20) {
        bail!("{} bytes, over the limit of {limit} bytes (--max-tensor-bytes)", meta.len());
    }
    std::fs::read(path).map_err(|e| anyhow::anyhow!(crate::fsutil::os_words(&e)))
}
