//! A host-side tensor that every input format decodes into and every output is copied out as.
//!
//! Keeping the element bytes untyped (little-endian, as ONNX Runtime and .npy store them) means one
//! code path moves any dtype between files and ONNX Runtime; only summaries and comparisons need
//! to look at values, and they go through [`HostTensor::to_f64`].

mod dtype;

use anyhow::{bail, Result};
use half::{bf16, f16};

pub use dtype::DType;
use dtype::{float4_to_f64, float8_to_f64, unpack_bits};

/// Element storage: raw little-endian bytes for numbers and bools, owned strings for strings.
#[derive(Debug, Clone, PartialEq)]
pub enum TensorData {
    Bytes(Vec<u8>),
    Strings(Vec<String>),
}

/// A dense, row-major tensor in host memory.
#[derive(Debug, Clone, PartialEq)]
pub struct HostTensor {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub data: TensorData,
}

/// Number of elements of `shape`, or an error when the product overflows `usize`.
pub fn element_count(shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| anyhow::anyhow!("shape {} has more elements than this machine can address", format_shape(shape)))
}

/// `[1, 3, 224, 224]`-style rendering used in every message.
pub fn format_shape(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

impl HostTensor {
    /// Builds a numeric tensor from raw bytes, checking that their length matches the shape.
    pub fn from_bytes(dtype: DType, shape: Vec<usize>, bytes: Vec<u8>) -> Result<HostTensor> {
        if dtype == DType::String {
            bail!("string tensors are not stored as bytes");
        }
        let expected = dtype
            .byte_len(element_count(&shape)?)
            .ok_or_else(|| anyhow::anyhow!("tensor of shape {} is too large", format_shape(&shape)))?;
        if bytes.len() != expected {
            bail!("{} tensor of shape {} needs {expected} bytes, got {}", dtype, format_shape(&shape), bytes.len());
        }
        Ok(HostTensor { dtype, shape, data: TensorData::Bytes(bytes) })
    }

    pub fn from_strings(shape: Vec<usize>, strings: Vec<String>) -> Result<HostTensor> {
        if element_count(&shape)? != strings.len() {
            bail!(
                "string tensor of shape {} needs {} strings, got {}",
                format_shape(&shape),
                element_count(&shape)?,
                strings.len()
            );
        }
        Ok(HostTensor { dtype: DType::String, shape, data: TensorData::Strings(strings) })
    }

    pub fn from_f32(shape: Vec<usize>, values: &[f32]) -> Result<HostTensor> {
        HostTensor::from_bytes(DType::Float32, shape, values.iter().flat_map(|v| v.to_le_bytes()).collect())
    }

    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.data {
            TensorData::Bytes(b) => Some(b),
            TensorData::Strings(_) => None,
        }
    }

    pub fn strings(&self) -> Option<&[String]> {
        match &self.data {
            TensorData::Strings(s) => Some(s),
            TensorData::Bytes(_) => None,
        }
    }

    /// Every element as `f64` (bools as 0/1); `None` for strings. 64-bit integers beyond 2^53
    /// lose precision here, which is why exact comparisons use [`HostTensor::to_i128`].
    pub fn to_f64(&self) -> Option<Vec<f64>> {
        let bytes = self.bytes()?;
        macro_rules! conv {
            ($t:ty, $n:expr, $f:expr) => {
                bytes
                    .chunks_exact($n)
                    .map(|c| {
                        let v = <$t>::from_le_bytes(c.try_into().expect("chunk size"));
                        $f(v)
                    })
                    .collect()
            };
        }
        Some(match self.dtype {
            DType::Float32 => conv!(f32, 4, |v: f32| v as f64),
            DType::Float64 => conv!(f64, 8, |v: f64| v),
            DType::Float16 => conv!(u16, 2, |v: u16| f16::from_bits(v).to_f64()),
            DType::Bfloat16 => conv!(u16, 2, |v: u16| bf16::from_bits(v).to_f64()),
            DType::Int8 => conv!(i8, 1, |v: i8| v as f64),
            DType::Int16 => conv!(i16, 2, |v: i16| v as f64),
            DType::Int32 => conv!(i32, 4, |v: i32| v as f64),
            DType::Int64 => conv!(i64, 8, |v: i64| v as f64),
            DType::Uint8 => conv!(u8, 1, |v: u8| v as f64),
            DType::Uint16 => conv!(u16, 2, |v: u16| v as f64),
            DType::Uint32 => conv!(u32, 4, |v: u32| v as f64),
            DType::Uint64 => conv!(u64, 8, |v: u64| v as f64),
            DType::Bool => bytes.iter().map(|&b| if b != 0 { 1.0 } else { 0.0 }).collect(),
            DType::Float8E4M3FN => bytes.iter().map(|&b| float8_to_f64(b, 4, false)).collect(),
            DType::Float8E4M3FNUZ => bytes.iter().map(|&b| float8_to_f64(b, 4, true)).collect(),
            DType::Float8E5M2 => bytes.iter().map(|&b| float8_to_f64(b, 5, false)).collect(),
            DType::Float8E5M2FNUZ => bytes.iter().map(|&b| float8_to_f64(b, 5, true)).collect(),
            DType::Float8E8M0 => {
                bytes.iter().map(|&b| if b == 0xFF { f64::NAN } else { 2f64.powi(b as i32 - 127) }).collect()
            }
            DType::Float4E2M1 => {
                unpack_bits(bytes, self.len(), 4, false).into_iter().map(|v| float4_to_f64(v as u8)).collect()
            }
            DType::Uint4 | DType::Int4 | DType::Uint2 | DType::Int2 => {
                self.to_i128().expect("integer").into_iter().map(|v| v as f64).collect()
            }
            DType::String => return None,
        })
    }

    /// Integer and bool elements exactly; `None` for floats and strings.
    pub fn to_i128(&self) -> Option<Vec<i128>> {
        let bytes = self.bytes()?;
        macro_rules! conv {
            ($t:ty, $n:expr) => {
                bytes.chunks_exact($n).map(|c| <$t>::from_le_bytes(c.try_into().expect("chunk size")) as i128).collect()
            };
        }
        Some(match self.dtype {
            DType::Int8 => conv!(i8, 1),
            DType::Int16 => conv!(i16, 2),
            DType::Int32 => conv!(i32, 4),
            DType::Int64 => conv!(i64, 8),
            DType::Uint8 => conv!(u8, 1),
            DType::Uint16 => conv!(u16, 2),
            DType::Uint32 => conv!(u32, 4),
            DType::Uint64 => conv!(u64, 8),
            DType::Bool => bytes.iter().map(|&b| (b != 0) as i128).collect(),
            DType::Uint4 | DType::Int4 => unpack_bits(bytes, self.len(), 4, self.dtype == DType::Int4),
            DType::Uint2 | DType::Int2 => unpack_bits(bytes, self.len(), 2, self.dtype == DType::Int2),
            _ => return None,
        })
    }

    /// Joins tensors of equal dtype and trailing shape along axis 0 (how several images fill a batch).
    pub fn concat_batch(parts: Vec<HostTensor>) -> Result<HostTensor> {
        // One allocation for the whole batch: growing the first part image by image would copy
        // the batch several times over (a batch of 32 images is 19 MB of float32).
        let total: usize = parts.iter().map(|p| p.bytes().map_or(0, <[u8]>::len)).sum();
        let mut iter = parts.into_iter();
        let Some(mut first) = iter.next() else {
            bail!("nothing to concatenate");
        };
        if let TensorData::Bytes(b) = &mut first.data {
            b.reserve_exact(total - b.len());
        }
        for next in iter {
            if next.dtype != first.dtype || next.shape.get(1..) != first.shape.get(1..) || next.shape.is_empty() {
                bail!(
                    "cannot stack {} {} onto {} {}",
                    next.dtype,
                    format_shape(&next.shape),
                    first.dtype,
                    format_shape(&first.shape)
                );
            }
            first.shape[0] += next.shape[0];
            match (&mut first.data, next.data) {
                (TensorData::Bytes(a), TensorData::Bytes(b)) => a.extend(b),
                (TensorData::Strings(a), TensorData::Strings(b)) => a.extend(b),
                _ => bail!("cannot stack strings with numbers"),
            }
        }
        Ok(first)
    }
}

/// A model input or output value: a tensor, a sequence of tensors, a map, a sequence of maps
/// (scikit-learn's ZipMap), or an empty optional.
#[derive(Debug, Clone, PartialEq)]
pub enum HostValue {
    Tensor(HostTensor),
    Sequence(Vec<HostTensor>),
    Map(HostMap),
    Maps(Vec<HostMap>),
    /// An `optional` with no value.
    Absent,
}

/// An ONNX map as ONNX Runtime gives it: a 1-D tensor of keys and one of values, in step.
#[derive(Debug, Clone, PartialEq)]
pub struct HostMap {
    pub keys: HostTensor,
    pub values: HostTensor,
}

impl HostMap {
    /// `prefix.keys` and `prefix.values`.
    fn tensors(&self, prefix: String) -> [(String, &HostTensor); 2] {
        [(format!("{prefix}.keys"), &self.keys), (format!("{prefix}.values"), &self.values)]
    }

    /// `{"0": 0.25, "1": 0.75}`: JSON objects take string keys.
    pub fn to_json(&self) -> serde_json::Value {
        let keys: Vec<String> = match (&self.keys.data, self.keys.to_i128()) {
            (TensorData::Strings(s), _) => s.clone(),
            (_, Some(ints)) => ints.iter().map(i128::to_string).collect(),
            _ => Vec::new(),
        };
        let values: Vec<serde_json::Value> = match (&self.values.data, self.values.to_f64()) {
            (TensorData::Strings(s), _) => s.iter().map(|v| serde_json::Value::from(v.as_str())).collect(),
            (_, Some(v)) => v.into_iter().map(serde_json::Value::from).collect(),
            _ => Vec::new(),
        };
        serde_json::Value::Object(keys.into_iter().zip(values).collect())
    }
}

/// The tensors in `values`, each named after its value; a sequence's items are `name[i]` and an
/// empty optional has none: what summaries, top-k, saved files and differences take.
pub fn flatten(values: &[(String, HostValue)]) -> Vec<(String, HostTensor)> {
    values.iter().flat_map(|(name, value)| value.tensors(name)).map(|(n, t)| (n, t.clone())).collect()
}

impl HostValue {
    /// The tensors this value holds, named after it: `name` for a tensor, `name[i]` for a
    /// sequence's items, `name.keys` / `name.values` for a map (`name[i].keys` in a sequence of
    /// maps), none for an empty optional.
    pub fn tensors(&self, name: &str) -> Vec<(String, &HostTensor)> {
        match self {
            HostValue::Tensor(t) => vec![(name.to_string(), t)],
            HostValue::Sequence(items) => items.iter().enumerate().map(|(i, t)| (format!("{name}[{i}]"), t)).collect(),
            HostValue::Map(m) => m.tensors(name.to_string()).to_vec(),
            HostValue::Maps(maps) => {
                maps.iter().enumerate().flat_map(|(i, m)| m.tensors(format!("{name}[{i}]"))).collect()
            }
            HostValue::Absent => Vec::new(),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            HostValue::Tensor(_) => "tensor",
            HostValue::Sequence(_) => "sequence",
            HostValue::Map(_) => "map",
            HostValue::Maps(_) => "sequence of maps",
            HostValue::Absent => "empty optional",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_bytes_rejects_length_mismatch() {
        let err = HostTensor::from_bytes(DType::Float32, vec![2, 2], vec![0; 15]).unwrap_err();
        assert!(err.to_string().contains("needs 16 bytes, got 15"), "{err}");
    }

    #[test]
    fn element_count_detects_overflow() {
        assert!(element_count(&[usize::MAX, 2]).is_err());
        assert_eq!(element_count(&[2, 3, 4]).unwrap(), 24);
        assert_eq!(element_count(&[]).unwrap(), 1);
    }

    #[test]
    fn converts_half_and_ints_to_f64() {
        let t = HostTensor::from_bytes(
            DType::Float16,
            vec![2],
            [f16::from_f32(1.5), f16::from_f32(-2.0)].iter().flat_map(|v| v.to_le_bytes()).collect(),
        )
        .unwrap();
        assert_eq!(t.to_f64().unwrap(), vec![1.5, -2.0]);
        let t = HostTensor::from_bytes(DType::Int64, vec![1], (-7i64).to_le_bytes().to_vec()).unwrap();
        assert_eq!(t.to_i128().unwrap(), vec![-7]);
    }

    #[test]
    fn concat_batch_stacks_axis_zero() {
        let a = HostTensor::from_f32(vec![1, 2], &[1.0, 2.0]).unwrap();
        let b = HostTensor::from_f32(vec![1, 2], &[3.0, 4.0]).unwrap();
        let c = HostTensor::concat_batch(vec![a, b]).unwrap();
        assert_eq!(c.shape, vec![2, 2]);
        assert_eq!(c.to_f64().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn unpacks_int4_low_nibble_first() {
        let t = HostTensor::from_bytes(DType::Int4, vec![3], vec![0xF7, 0x08]).unwrap();
        assert_eq!(t.to_i128().unwrap(), vec![7, -1, -8]);
        let t = HostTensor::from_bytes(DType::Uint4, vec![3], vec![0xF7, 0x08]).unwrap();
        assert_eq!(t.to_i128().unwrap(), vec![7, 15, 8]);
    }

    #[test]
    fn unpacks_2bit_and_float4() {
        // 0b11_10_01_00 = elements 0, 1, -2, -1 (int2) / 0, 1, 2, 3 (uint2).
        let t = HostTensor::from_bytes(DType::Int2, vec![4], vec![0b1110_0100]).unwrap();
        assert_eq!(t.to_i128().unwrap(), vec![0, 1, -2, -1]);
        let t = HostTensor::from_bytes(DType::Uint2, vec![4], vec![0b1110_0100]).unwrap();
        assert_eq!(t.to_i128().unwrap(), vec![0, 1, 2, 3]);
        let values: Vec<f64> = (0u8..16).map(float4_to_f64).collect();
        assert_eq!(&values[..8], &[0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]);
        assert_eq!(values[15], -6.0);
        let t = HostTensor::from_bytes(DType::Float8E8M0, vec![2], vec![127, 0xFF]).unwrap().to_f64().unwrap();
        assert!(t[0] == 1.0 && t[1].is_nan());
    }
}
