//! NumPy `.npy` and `.npz` files, read to and written from [`HostTensor`].
//!
//! `npyz` parses the header; the data is then taken as raw bytes (byte-swapped when the file is
//! big-endian, transposed when it is in Fortran order), so every numeric dtype shares one path
//! and sizes are checked against the file before anything is allocated.

use std::io::{Cursor, Read, Write};

use anyhow::{bail, Context, Result};
use half::{bf16, f16};
use npyz::{DType as NpyDType, Endianness, Order, TypeChar, WriterBuilder};

use crate::tensor::{element_count, format_shape, DType, HostTensor};

/// Decodes one `.npy` image held in memory; `max_bytes` bounds the data it may claim.
pub fn read_npy(bytes: &[u8], max_bytes: u64) -> Result<HostTensor> {
    refuse_header_npyz_cannot_parse_safely(bytes)?;
    refuse_overflowing_shape(bytes)?;
    let mut cursor = Cursor::new(bytes);
    let file = npyz::NpyFile::new(&mut cursor).map_err(|e| match header_descr(bytes) {
        Some(descr) if e.to_string().contains("type string") => {
            anyhow::anyhow!("not a valid .npy file: unknown dtype code '{descr}'")
        }
        _ => anyhow::anyhow!("not a valid .npy file: {e}"),
    })?;
    let NpyDType::Plain(type_str) = file.dtype() else {
        bail!("structured (record) arrays are not supported");
    };
    let itemsize = type_str.size_field() as usize;
    let dtype = match (type_str.type_char(), itemsize) {
        (TypeChar::Float, 2) => DType::Float16,
        (TypeChar::Float, 4) => DType::Float32,
        (TypeChar::Float, 8) => DType::Float64,
        (TypeChar::Int, 1) => DType::Int8,
        (TypeChar::Int, 2) => DType::Int16,
        (TypeChar::Int, 4) => DType::Int32,
        (TypeChar::Int, 8) => DType::Int64,
        (TypeChar::Uint, 1) => DType::Uint8,
        (TypeChar::Uint, 2) => DType::Uint16,
        (TypeChar::Uint, 4) => DType::Uint32,
        (TypeChar::Uint, 8) => DType::Uint64,
        (TypeChar::Bool, 1) => DType::Bool,
        _ => {
            bail!("unsupported dtype '{type_str}' (dmlrun reads bool, int, uint and float arrays)")
        }
    };
    let shape: Vec<usize> = file
        .shape()
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow::anyhow!("shape {:?} does not fit this machine", file.shape()))?;
    let order = file.order();
    let count = element_count(&shape)?;
    let data_len =
        count.checked_mul(itemsize).ok_or_else(|| anyhow::anyhow!("shape {} overflows", format_shape(&shape)))?;
    if data_len as u64 > max_bytes {
        bail!(
            "array of shape {} ({data_len} bytes) exceeds the limit of {max_bytes} bytes (--max-tensor-bytes)",
            format_shape(&shape)
        );
    }
    let offset = cursor.position() as usize;
    let available = bytes.len() - offset;
    if available != data_len {
        bail!(
            "header says {} {dtype} of shape {} ({data_len} bytes) but the file holds {available} data bytes",
            count,
            format_shape(&shape)
        );
    }
    let mut data = bytes[offset..].to_vec();
    if type_str.endianness() == Endianness::Big && itemsize > 1 {
        for chunk in data.chunks_exact_mut(itemsize) {
            chunk.reverse();
        }
    }
    if order == Order::Fortran && shape.len() > 1 {
        data = fortran_to_c(&data, &shape, itemsize);
    }
    if dtype == DType::Bool && data.iter().any(|&b| b > 1) {
        bail!("bool array holds values other than 0 and 1");
    }
    HostTensor::from_bytes(dtype, shape, data)
}

/// The header's `'descr': '...'` text, for naming a dtype npyz does not know.
fn header_descr(bytes: &[u8]) -> Option<String> {
    let header = &bytes[..bytes.len().min(64 * 1024)];
    let start = header.windows(8).position(|w| w == b"'descr':")? + 8;
    let rest = std::str::from_utf8(&header[start..]).ok().or_else(|| {
        // A header cut mid-character: take what decodes.
        let valid = std::str::from_utf8(&header[start..]).err()?.valid_up_to();
        std::str::from_utf8(&header[start..start + valid]).ok()
    })?;
    let rest = rest.trim_start().strip_prefix('\'')?;
    Some(rest[..rest.find('\'')?].to_string())
}

/// How deeply a header may nest brackets. A real header nests two deep (`{'shape': (2, 3)}`),
/// three for record dtypes; npyz's header parser backtracks exponentially with depth (measured:
/// 12 nested `{` take 3 s, 20 nested `[` 8 s; at 8 the worst is about 40 ms).
const MAX_HEADER_NESTING: usize = 8;

/// Refuses, before npyz reads it, a header that would cost npyz unbounded memory or time:
/// npyz allocates the header text at the length the file claims (up to 4 GiB in format 2 and 3)
/// before reading it, and its parser is exponential in the nesting depth.
fn refuse_header_npyz_cannot_parse_safely(bytes: &[u8]) -> Result<()> {
    const MAGIC: &[u8] = b"\x93NUMPY";
    if !bytes.starts_with(MAGIC) || bytes.len() < 8 {
        return Ok(()); // npyz names what is wrong with the magic or the version
    }
    let (prefix, claimed) = match bytes[6] {
        1 if bytes.len() >= 10 => (10, u64::from(u16::from_le_bytes([bytes[8], bytes[9]]))),
        2 | 3 if bytes.len() >= 12 => (12, u64::from(u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]))),
        _ => return Ok(()),
    };
    let available = (bytes.len() - prefix) as u64;
    if claimed > available {
        bail!("not a valid .npy file: the header claims {claimed} bytes but only {available} follow");
    }
    let header = &bytes[prefix..prefix + claimed as usize];
    let (mut depth, mut deepest) = (0usize, 0usize);
    for &b in header {
        match b {
            b'[' | b'(' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b')' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest > MAX_HEADER_NESTING {
        bail!(
            "not a valid .npy file: the header nests brackets {deepest} deep (a .npy header needs 2, dmlrun reads up to {MAX_HEADER_NESTING})"
        );
    }
    Ok(())
}

/// npyz multiplies the header's shape in u64 without checking (a panic in debug builds, a
/// wrapped count in release), so a shape whose element count overflows is refused here first.
/// Only the `'shape': (...)` tuple is looked at; everything else is left to npyz.
fn refuse_overflowing_shape(bytes: &[u8]) -> Result<()> {
    let header = &bytes[..bytes.len().min(64 * 1024)];
    let Some(start) = header.windows(8).position(|w| w == b"'shape':") else { return Ok(()) };
    let rest = &header[start + 8..];
    let Some(open) = rest.iter().position(|&b| b == b'(') else { return Ok(()) };
    let Some(close) = rest.iter().position(|&b| b == b')') else { return Ok(()) };
    if close < open {
        return Ok(());
    }
    let tuple = String::from_utf8_lossy(&rest[open + 1..close]);
    let mut count: u64 = 1;
    for dim in tuple.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let Ok(dim) = dim.trim_end_matches('L').parse::<u64>() else { return Ok(()) };
        count = count
            .checked_mul(dim)
            .ok_or_else(|| anyhow::anyhow!("shape ({tuple}) has more elements than fit in 64 bits"))?;
    }
    Ok(())
}

/// Reorders column-major element bytes into row-major order.
fn fortran_to_c(data: &[u8], shape: &[usize], itemsize: usize) -> Vec<u8> {
    let mut out = vec![0u8; data.len()];
    let rank = shape.len();
    // Column-major strides (in elements).
    let mut f_strides = vec![1usize; rank];
    for i in 1..rank {
        f_strides[i] = f_strides[i - 1] * shape[i - 1];
    }
    let mut index = vec![0usize; rank];
    let count = data.len() / itemsize.max(1);
    for c_pos in 0..count {
        let f_pos: usize = index.iter().zip(&f_strides).map(|(i, s)| i * s).sum();
        out[c_pos * itemsize..][..itemsize].copy_from_slice(&data[f_pos * itemsize..][..itemsize]);
        // Advance the row-major multi-index.
        for axis in (0..rank).rev() {
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    out
}

/// Reads every array of an `.npz` archive held in memory, keyed by array name.
pub fn read_npz(bytes: &[u8], max_bytes: u64) -> Result<Vec<(String, HostTensor)>> {
    let mut archive =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| anyhow::anyhow!("not a valid .npz (zip) file: {e}"))?;
    let mut arrays = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| anyhow::anyhow!("reading .npz entry {i}: {e}"))?;
        let name = entry.name().to_string();
        let Some(array_name) = name.strip_suffix(".npy") else {
            continue;
        };
        let declared = entry.size();
        if declared > max_bytes.saturating_add(4096) {
            bail!(
                "array '{array_name}' ({declared} bytes) exceeds the limit of {max_bytes} bytes (--max-tensor-bytes)"
            );
        }
        let mut buf = Vec::with_capacity(declared as usize);
        // Bound the read too: the declared size is only a claim.
        (&mut entry)
            .take(max_bytes.saturating_add(4096))
            .read_to_end(&mut buf)
            .with_context(|| format!("reading array '{array_name}'"))?;
        let tensor = read_npy(&buf, max_bytes).with_context(|| format!("array '{array_name}'"))?;
        arrays.push((array_name.to_string(), tensor));
    }
    Ok(arrays)
}

/// Encodes a tensor as `.npy` bytes (little-endian, C order).
pub fn write_npy(tensor: &HostTensor) -> Result<Vec<u8>> {
    let shape: Vec<u64> = tensor.shape.iter().map(|&d| d as u64).collect();
    let Some(bytes) = tensor.bytes() else {
        bail!("string tensors cannot be saved as .npy; use --as-test-data (.pb) instead");
    };
    let mut out = Vec::new();
    macro_rules! write_as {
        ($t:ty, $n:expr, $conv:expr) => {{
            let mut writer = npyz::WriteOptions::new().default_dtype().shape(&shape).writer(&mut out).begin_nd()?;
            writer.extend(bytes.chunks_exact($n).map(|c| $conv(c.try_into().expect("chunk size"))))?;
            writer.finish()?;
        }};
    }
    match tensor.dtype {
        DType::Float32 => write_as!(f32, 4, f32::from_le_bytes),
        DType::Float64 => write_as!(f64, 8, f64::from_le_bytes),
        DType::Float16 => write_as!(f16, 2, |b: [u8; 2]| f16::from_le_bytes(b)),
        // numpy has no bfloat16: widen to float32 (exact).
        DType::Bfloat16 => write_as!(f32, 2, |b: [u8; 2]| bf16::from_le_bytes(b).to_f32()),
        DType::Int8 => write_as!(i8, 1, i8::from_le_bytes),
        DType::Int16 => write_as!(i16, 2, i16::from_le_bytes),
        DType::Int32 => write_as!(i32, 4, i32::from_le_bytes),
        DType::Int64 => write_as!(i64, 8, i64::from_le_bytes),
        DType::Uint8 => write_as!(u8, 1, u8::from_le_bytes),
        DType::Uint16 => write_as!(u16, 2, u16::from_le_bytes),
        DType::Uint32 => write_as!(u32, 4, u32::from_le_bytes),
        DType::Uint64 => write_as!(u64, 8, u64::from_le_bytes),
        DType::Bool => write_as!(bool, 1, |b: [u8; 1]| b[0] != 0),
        // numpy has no 8-bit floats or 4-bit integers: widen, exactly.
        DType::Float8E4M3FN
        | DType::Float8E4M3FNUZ
        | DType::Float8E5M2
        | DType::Float8E5M2FNUZ
        | DType::Float8E8M0
        | DType::Float4E2M1 => {
            let values = tensor.to_f64().expect("numeric");
            let bytes: Vec<u8> = values.iter().flat_map(|v| (*v as f32).to_le_bytes()).collect();
            return write_npy(&HostTensor::from_bytes(DType::Float32, tensor.shape.clone(), bytes)?);
        }
        DType::Int4 | DType::Uint4 | DType::Int2 | DType::Uint2 => {
            let values = tensor.to_i128().expect("integer");
            let bytes: Vec<u8> = values.iter().map(|v| *v as i8 as u8).collect();
            let wide = if matches!(tensor.dtype, DType::Int4 | DType::Int2) { DType::Int8 } else { DType::Uint8 };
            return write_npy(&HostTensor::from_bytes(wide, tensor.shape.clone(), bytes)?);
        }
        DType::String => unreachable!("handled above"),
    }
    Ok(out)
}

/// Encodes named tensors as an `.npz` archive (stored, like `numpy.savez`).
pub fn write_npz(arrays: &[(String, HostTensor)]) -> Result<Vec<u8>> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored).large_file(true);
    for (name, tensor) in arrays {
        zip.start_file(format!("{name}.npy"), options)?;
        zip.write_all(&write_npy(tensor).with_context(|| format!("output '{name}'"))?)?;
    }
    Ok(zip.finish()?.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_round_trips_every_numeric_dtype() {
        // The dtypes numpy has (bfloat16, float8 and 4-bit types are widened on write).
        let numpy_dtypes = [
            DType::Float16,
            DType::Float32,
            DType::Float64,
            DType::Int8,
            DType::Int16,
            DType::Int32,
            DType::Int64,
            DType::Uint8,
            DType::Uint16,
            DType::Uint32,
            DType::Uint64,
            DType::Bool,
        ];
        for dtype in numpy_dtypes {
            let size = dtype.size().unwrap();
            let bytes: Vec<u8> =
                (0..6 * size).map(|i| if dtype == DType::Bool { (i % 2) as u8 } else { i as u8 }).collect();
            let t = HostTensor::from_bytes(dtype, vec![2, 3], bytes).unwrap();
            let back = read_npy(&write_npy(&t).unwrap(), u64::MAX).unwrap();
            assert_eq!(back, t, "{dtype}");
        }
    }

    #[test]
    fn fortran_order_is_transposed_to_c() {
        // [[1, 2, 3], [4, 5, 6]] stored column-major is 1 4 2 5 3 6.
        let f: Vec<u8> = [1u8, 4, 2, 5, 3, 6].to_vec();
        assert_eq!(fortran_to_c(&f, &[2, 3], 1), vec![1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn rejects_data_shorter_than_header() {
        let t = HostTensor::from_f32(vec![4], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        let mut bytes = write_npy(&t).unwrap();
        bytes.truncate(bytes.len() - 4);
        let err = read_npy(&bytes, u64::MAX).unwrap_err().to_string();
        assert!(err.contains("16 bytes") && err.contains("12 data bytes"), "{err}");
    }

    #[test]
    fn header_length_beyond_the_file_is_refused_before_allocation() {
        // Format 2.0 carries a 32-bit header length; this one claims about 3.6 GB, which npyz
        // would allocate before noticing the file is 16 bytes long (found by cargo fuzz).
        let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
        bytes.extend_from_slice(&0xD885_9476u32.to_le_bytes());
        bytes.extend_from_slice(b"{'descr'");
        let err = read_npy(&bytes, u64::MAX).unwrap_err().to_string();
        assert_eq!(err, "not a valid .npy file: the header claims 3632632950 bytes but only 8 follow");
        // Format 1.0's 16-bit length is checked the same way.
        let mut v1 = b"\x93NUMPY\x01\x00".to_vec();
        v1.extend_from_slice(&1000u16.to_le_bytes());
        v1.extend_from_slice(b"{}");
        assert!(read_npy(&v1, u64::MAX).unwrap_err().to_string().contains("claims 1000 bytes but only 2 follow"));
    }

    #[test]
    fn deeply_nested_header_is_refused_before_parsing() {
        // From cargo fuzz: 140 unclosed '[' made npyz's parser run for minutes.
        let nested = |depth: usize| {
            let text = format!("{{'descr': '<i8', 'fortran_order': {}False, 'shape': (2,), }}\n", "[".repeat(depth));
            let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
            bytes.extend_from_slice(&(text.len() as u16).to_le_bytes());
            bytes.extend_from_slice(text.as_bytes());
            bytes
        };
        let err = read_npy(&nested(140), u64::MAX).unwrap_err().to_string();
        assert!(err.contains("nests brackets 142 deep"), "{err}");
        // Within the bound the header reaches npyz, which names the real problem.
        let err = read_npy(&nested(6), u64::MAX).unwrap_err().to_string();
        assert!(!err.contains("nests brackets"), "{err}");
        // Every header dmlrun writes is far inside it.
        let t = HostTensor::from_f32(vec![1, 2, 3], &[0.0; 6]).unwrap();
        assert!(read_npy(&write_npy(&t).unwrap(), u64::MAX).is_ok());
    }

    #[test]
    fn size_limit_applies_before_allocation() {
        let t = HostTensor::from_f32(vec![4], &[0.0; 4]).unwrap();
        let err = read_npy(&write_npy(&t).unwrap(), 8).unwrap_err().to_string();
        assert!(err.contains("--max-tensor-bytes"), "{err}");
    }

    #[test]
    fn npz_round_trips() {
        let a = HostTensor::from_f32(vec![2], &[1.0, 2.0]).unwrap();
        let b = HostTensor::from_bytes(DType::Int64, vec![1], 7i64.to_le_bytes().to_vec()).unwrap();
        let arrays = vec![("a".to_string(), a), ("b".to_string(), b)];
        assert_eq!(read_npz(&write_npz(&arrays).unwrap(), u64::MAX).unwrap(), arrays);
    }
}
