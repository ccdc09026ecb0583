//! ONNX's external data: tensors kept in a data file beside the model (`data_location`
//! EXTERNAL, with `location`, `offset` and `length`), read a tensor at a time and written a tensor
//! at a time at aligned offsets, so that a model of gigabytes is copied, rewritten or quantized in
//! about one tensor's memory rather than the model's.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use prost::Message;

use super::header::StringStringEntryProto;
use super::lossless::EditTensor;

/// `data_location` EXTERNAL.
const EXTERNAL: i32 = 1;

/// Where a tensor smaller than [`LARGE_TENSOR`] starts in a data file dmlrun writes: a page.
pub const EXTERNAL_DATA_ALIGN: u64 = 4096;

/// Where a tensor of [`LARGE_TENSOR`] or more starts: Windows' allocation granularity (64 KiB),
/// the unit a file is mapped at, as ONNX Runtime aligns its own data files (its
/// `allocation_granularity`, for tensors over its `align_threshold` of 1 MiB).
pub const LARGE_TENSOR_ALIGN: u64 = 64 << 10;

/// The size from which a tensor is aligned to [`LARGE_TENSOR_ALIGN`].
pub const LARGE_TENSOR: u64 = 1 << 20;

/// Tensors smaller than this stay in the model file, as ONNX's own writer keeps them.
pub const INLINE_BELOW: usize = 1024;

/// The offset at which a tensor of `length` bytes goes, the file being `offset` bytes long.
pub fn aligned_offset(offset: u64, length: u64) -> u64 {
    let align = if length >= LARGE_TENSOR { LARGE_TENSOR_ALIGN } else { EXTERNAL_DATA_ALIGN };
    offset.div_ceil(align) * align
}

/// Where an external tensor's bytes are.
#[derive(Debug, Clone)]
pub struct ExternalRef {
    pub path: PathBuf,
    pub offset: u64,
    /// The rest of the file where not given.
    pub length: Option<u64>,
}

/// Where `name`'s data is, if it is external: its `external_data` entries read, the file named
/// relative to `folder` (the model's).
pub fn external_ref(
    name: &str,
    data_location: Option<i32>,
    entries: &[StringStringEntryProto],
    folder: &Path,
) -> Result<Option<ExternalRef>> {
    if data_location != Some(EXTERNAL) {
        return Ok(None);
    }
    let (location, offset, length) = super::external_location(entries, name)?;
    Ok(Some(ExternalRef { path: folder.join(location), offset, length }))
}

/// Where an [`EditTensor`]'s data is, if it is external.
pub fn tensor_external_ref(tensor: &EditTensor, folder: &Path) -> Result<Option<ExternalRef>> {
    if tensor.data_location != Some(EXTERNAL) {
        return Ok(None);
    }
    let entries = tensor
        .external_data
        .iter()
        .map(|raw| StringStringEntryProto::decode(raw.as_slice()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .context("an initializer's external_data")?;
    external_ref(tensor.name.as_deref().unwrap_or_default(), tensor.data_location, &entries, folder)
}

/// External data files (named relative to a model's folder), opened once each and read a tensor
/// at a time.
pub struct ExternalReader {
    pub folder: PathBuf,
    files: HashMap<PathBuf, File>,
}

impl ExternalReader {
    pub fn new(folder: &Path) -> ExternalReader {
        ExternalReader { folder: folder.to_path_buf(), files: HashMap::new() }
    }

    /// The bytes of tensor `name` at `at`.
    pub fn read(&mut self, name: &str, at: &ExternalRef) -> Result<Vec<u8>> {
        let file = match self.files.get_mut(&at.path) {
            Some(file) => file,
            None => {
                let file = File::open(&at.path)
                    .with_context(|| format!("initializer '{name}': reading external data {}", at.path.display()))?;
                self.files.entry(at.path.clone()).or_insert(file)
            }
        };
        let size = file.metadata()?.len();
        let length = at.length.unwrap_or(size.saturating_sub(at.offset));
        if at.offset.checked_add(length).is_none_or(|end| end > size) {
            bail!("initializer '{name}': {} holds {size} bytes, not {}+{length}", at.path.display(), at.offset);
        }
        let mut bytes = vec![0u8; length as usize];
        file.seek(SeekFrom::Start(at.offset))?;
        file.read_exact(&mut bytes).with_context(|| format!("initializer '{name}': reading {}", at.path.display()))?;
        Ok(bytes)
    }

    /// `tensor` with its data in `raw_data`: read from its file where it is external.
    pub fn inline(&mut self, mut tensor: EditTensor) -> Result<EditTensor> {
        let Some(at) = tensor_external_ref(&tensor, &self.folder)? else { return Ok(tensor) };
        let name = tensor.name.clone().unwrap_or_default();
        tensor.raw_data = Some(self.read(&name, &at)?);
        tensor.external_data.clear();
        tensor.data_location = None;
        Ok(tensor)
    }
}

/// A data file being written beside a model: made as a temporary file in the model's folder and
/// renamed into place by [`DataFile::finish`], so a failure leaves nothing behind.
pub struct DataFile {
    path: PathBuf,
    /// What the model's tensors name (the file's name, beside the model).
    location: String,
    file: BufWriter<tempfile::NamedTempFile>,
    length: u64,
}

impl DataFile {
    /// A data file for the model at `model_path`: `NAME.data` beside it.
    pub fn beside(model_path: &Path) -> Result<DataFile> {
        let name = model_path.file_name().context("a model file needs a name")?.to_string_lossy();
        let location = format!("{name}.data");
        let path = model_path.with_file_name(&location);
        let folder = crate::fsutil::folder_of(&path);
        let mut builder = tempfile::Builder::new();
        builder.prefix(".dmlrun-").suffix(".partial");
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let file = builder.tempfile_in(folder).map_err(|e| {
            anyhow::anyhow!(
                "writing {}: cannot create a file in {}: {}",
                path.display(),
                folder.display(),
                crate::fsutil::os_words(&e)
            )
        })?;
        Ok(DataFile { path, location, file: BufWriter::new(file), length: 0 })
    }

    /// `bytes` appended at an aligned offset, `tensor` pointed at them.
    pub fn place(&mut self, tensor: &mut EditTensor, bytes: &[u8]) -> Result<()> {
        let start = aligned_offset(self.length, bytes.len() as u64);
        let written =
            |e: std::io::Error| anyhow::anyhow!("writing {}: {}", self.path.display(), crate::fsutil::os_words(&e));
        self.file.write_all(&vec![0u8; (start - self.length) as usize]).map_err(written)?;
        self.file.write_all(bytes).map_err(written)?;
        self.length = start + bytes.len() as u64;
        super::point_to_external(tensor, &self.location, start, bytes.len());
        Ok(())
    }

    /// An initializer as the written model keeps it: its data, from the model or the source's
    /// data file, moved to this file; one smaller than [`INLINE_BELOW`] kept in the model.
    pub fn copy(&mut self, raw: &[u8], reader: &mut ExternalReader) -> Result<Vec<u8>> {
        let mut tensor = EditTensor::decode(raw).context("an initializer")?;
        let name = tensor.name.clone().unwrap_or_default();
        let bytes = match tensor_external_ref(&tensor, &reader.folder)? {
            Some(at) => reader.read(&name, &at)?,
            None => match tensor.raw_data.take() {
                Some(bytes) if bytes.len() >= INLINE_BELOW => bytes,
                _ => return Ok(raw.to_vec()),
            },
        };
        self.place(&mut tensor, &bytes)?;
        Ok(tensor.encode_to_vec())
    }

    /// The file renamed into place; returns its path.
    pub fn finish(self) -> Result<PathBuf> {
        let path = self.path;
        let written =
            |e: std::io::Error| anyhow::anyhow!("writing {}: {}", path.display(), crate::fsutil::os_words(&e));
        let file = self.file.into_inner().map_err(|e| written(e.into_error()))?;
        file.as_file().sync_all().map_err(written)?;
        file.persist(&path).map_err(|e| written(e.error))?;
        Ok(path)
    }
}

impl super::header::TensorHeader {
    /// Where its data is, where it is in an external file (`folder` is the model's).
    pub fn external_ref(&self, folder: &Path) -> Result<Option<ExternalRef>> {
        external_ref(self.name.as_deref().unwrap_or_default(), self.data_location, &self.external_data, folder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_tensor_starts_at_64_kib_and_a_small_one_at_a_page() {
        assert_eq!(aligned_offset(1, 100), 4096);
        assert_eq!(aligned_offset(4096, 100), 4096);
        assert_eq!(aligned_offset(4097, LARGE_TENSOR), 65536);
        assert_eq!(aligned_offset(65536, LARGE_TENSOR), 65536);
        assert_eq!(aligned_offset(0, LARGE_TENSOR), 0);
    }
}
