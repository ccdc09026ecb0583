//! ONNX `TensorProto` files (`input_0.pb` in ONNX test-data folders), read and written.

use anyhow::{bail, Result};
use prost::Message;

use crate::formats::model::ValueKind;
use crate::formats::onnx_proto::{MapProto, OptionalProto, SequenceProto, TensorProto};
use crate::tensor::{element_count, format_shape, DType, HostMap, HostTensor, HostValue};

/// Decodes a serialized `TensorProto`; returns its name (may be empty) and the tensor.
pub fn read(bytes: &[u8], max_bytes: u64) -> Result<(String, HostTensor)> {
    let proto = TensorProto::decode(bytes).map_err(|e| anyhow::anyhow!("not a valid ONNX TensorProto: {e}"))?;
    let name = proto.name.clone().unwrap_or_default();
    Ok((name, from_proto(&proto, max_bytes)?))
}

/// Decodes a serialized value of `kind`: a `TensorProto`, `SequenceProto` or `OptionalProto`.
pub fn read_value(bytes: &[u8], kind: ValueKind, max_bytes: u64) -> Result<(String, HostValue)> {
    match kind {
        ValueKind::Sequence => {
            let proto =
                SequenceProto::decode(bytes).map_err(|e| anyhow::anyhow!("not a valid ONNX SequenceProto: {e}"))?;
            let value = if proto.elem_type == Some(MAP) {
                HostValue::Maps(proto.map_values.iter().map(|m| map(m, max_bytes)).collect::<Result<_>>()?)
            } else {
                HostValue::Sequence(sequence(&proto, max_bytes)?)
            };
            Ok((proto.name.clone().unwrap_or_default(), value))
        }
        ValueKind::Optional => {
            let proto =
                OptionalProto::decode(bytes).map_err(|e| anyhow::anyhow!("not a valid ONNX OptionalProto: {e}"))?;
            let value = match (proto.elem_type.unwrap_or(0), &proto.tensor_value, &proto.sequence_value) {
                (1, Some(t), _) => HostValue::Tensor(from_proto(t, max_bytes)?),
                (3, _, Some(seq)) => HostValue::Sequence(sequence(seq, max_bytes)?),
                (0, _, _) => HostValue::Absent,
                (other, _, _) => bail!("optional of element type {other} is not supported"),
            };
            Ok((proto.name.clone().unwrap_or_default(), value))
        }
        ValueKind::Tensor | ValueKind::Other => {
            let (name, tensor) = read(bytes, max_bytes)?;
            Ok((name, HostValue::Tensor(tensor)))
        }
    }
}

/// `SequenceProto.elem_type` of a sequence of maps.
const MAP: i32 = 4;

/// A `MapProto` as ONNX Runtime gives a map: a 1-D key tensor and a 1-D value tensor, in step
/// (ONNX stores one scalar tensor per value).
fn map(proto: &MapProto, max_bytes: u64) -> Result<HostMap> {
    let key_code = proto.key_type.unwrap_or(0);
    let keys = match DType::from_onnx_code(key_code) {
        Some(DType::String) => HostTensor::from_strings(
            vec![proto.string_keys.len()],
            proto.string_keys.iter().map(|k| String::from_utf8_lossy(k).into_owned()).collect(),
        )?,
        Some(DType::Int64) => HostTensor::from_bytes(
            DType::Int64,
            vec![proto.keys.len()],
            proto.keys.iter().flat_map(|k| k.to_le_bytes()).collect(),
        )?,
        Some(DType::Int32) => HostTensor::from_bytes(
            DType::Int32,
            vec![proto.keys.len()],
            proto.keys.iter().flat_map(|&k| (k as i32).to_le_bytes()).collect(),
        )?,
        _ => {
            bail!("map keys of type {key_code} ({}) are not supported", crate::formats::model::onnx_type_name(key_code))
        }
    };
    let items = match &proto.values {
        Some(values) => sequence(values, max_bytes)?,
        None => Vec::new(),
    };
    if items.len() != keys.shape[0] {
        bail!("a map with {} keys holds {} values", keys.shape[0], items.len());
    }
    let values = match items.first() {
        None => HostTensor::from_bytes(DType::Float32, vec![0], Vec::new())?,
        Some(first) => {
            let dtype = first.dtype;
            let mut bytes = Vec::new();
            for item in &items {
                if item.dtype != dtype || element_count(&item.shape)? != 1 {
                    bail!("map values must be scalars of one type");
                }
                bytes.extend_from_slice(
                    item.bytes().ok_or_else(|| anyhow::anyhow!("string map values are not supported"))?,
                );
            }
            HostTensor::from_bytes(dtype, vec![items.len()], bytes)?
        }
    };
    Ok(HostMap { keys, values })
}

fn sequence(proto: &SequenceProto, max_bytes: u64) -> Result<Vec<HostTensor>> {
    if !matches!(proto.elem_type, None | Some(0) | Some(1)) {
        bail!("sequences of element type {} are not supported (only tensors)", proto.elem_type.unwrap_or(0));
    }
    proto.tensor_values.iter().map(|t| from_proto(t, max_bytes)).collect()
}

pub fn from_proto(proto: &TensorProto, max_bytes: u64) -> Result<HostTensor> {
    let code = proto.data_type.unwrap_or(0);
    let Some(dtype) = DType::from_onnx_code(code) else {
        bail!("unsupported data_type {code} ({})", crate::formats::model::onnx_type_name(code));
    };
    if proto.data_location == Some(1) {
        bail!("tensor data stored externally (data_location EXTERNAL) is not supported");
    }
    let shape: Vec<usize> = proto
        .dims
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| anyhow::anyhow!("negative dimension {d} in dims {:?}", proto.dims)))
        .collect::<Result<_>>()?;
    let count = element_count(&shape)?;
    if dtype == DType::String {
        if proto.string_data.len() != count {
            bail!("dims {} need {count} strings, string_data has {}", format_shape(&shape), proto.string_data.len());
        }
        let strings = proto.string_data.iter().map(|s| String::from_utf8_lossy(s).into_owned()).collect();
        return HostTensor::from_strings(shape, strings);
    }
    let byte_len = dtype.byte_len(count).ok_or_else(|| anyhow::anyhow!("dims {} overflow", format_shape(&shape)))?;
    if byte_len as u64 > max_bytes {
        bail!(
            "tensor of shape {} ({byte_len} bytes) exceeds the limit of {max_bytes} bytes (--max-tensor-bytes)",
            format_shape(&shape)
        );
    }
    if let Some(raw) = &proto.raw_data {
        if raw.len() != byte_len {
            bail!("raw_data holds {} bytes but dims {} of {dtype} need {byte_len}", raw.len(), format_shape(&shape));
        }
        return HostTensor::from_bytes(dtype, shape, raw.clone());
    }
    let typed_len = |len: usize, field: &str| -> Result<()> {
        if len != count {
            bail!("dims {} need {count} values of {dtype}, {field} has {len}", format_shape(&shape));
        }
        Ok(())
    };
    let bytes: Vec<u8> = match dtype {
        DType::Float32 => {
            typed_len(proto.float_data.len(), "float_data")?;
            proto.float_data.iter().flat_map(|v| v.to_le_bytes()).collect()
        }
        DType::Float64 => {
            typed_len(proto.double_data.len(), "double_data")?;
            proto.double_data.iter().flat_map(|v| v.to_le_bytes()).collect()
        }
        DType::Int64 => {
            typed_len(proto.int64_data.len(), "int64_data")?;
            proto.int64_data.iter().flat_map(|v| v.to_le_bytes()).collect()
        }
        DType::Uint32 | DType::Uint64 => {
            typed_len(proto.uint64_data.len(), "uint64_data")?;
            let size = dtype.size().expect("fixed-size dtype");
            proto.uint64_data.iter().flat_map(|&v| v.to_le_bytes()[..size].to_vec()).collect()
        }
        // Sub-byte types: int32_data holds the packed bytes.
        DType::Uint4 | DType::Int4 | DType::Uint2 | DType::Int2 | DType::Float4E2M1 => {
            if proto.int32_data.len() != byte_len {
                bail!(
                    "dims {} need {byte_len} packed bytes of {dtype}, int32_data has {}",
                    format_shape(&shape),
                    proto.int32_data.len()
                );
            }
            proto.int32_data.iter().map(|&v| v as u8).collect()
        }
        // ONNX stores the rest in int32_data, one element per int32 (16- and 8-bit floats as their bits).
        _ => {
            typed_len(proto.int32_data.len(), "int32_data")?;
            let size = dtype.size().expect("fixed-size dtype");
            proto.int32_data.iter().flat_map(|&v| v.to_le_bytes()[..size].to_vec()).collect()
        }
    };
    HostTensor::from_bytes(dtype, shape, bytes)
}

/// Encodes a tensor as a `TensorProto` (numbers in `raw_data`, as ONNX's own tools write them).
pub fn write(name: &str, tensor: &HostTensor) -> Vec<u8> {
    let mut proto = TensorProto {
        dims: tensor.shape.iter().map(|&d| d as i64).collect(),
        data_type: Some(tensor.dtype.onnx_code()),
        name: Some(name.to_string()),
        ..TensorProto::default()
    };
    match &tensor.data {
        crate::tensor::TensorData::Bytes(b) => proto.raw_data = Some(b.clone()),
        crate::tensor::TensorData::Strings(s) => proto.string_data = s.iter().map(|s| s.as_bytes().to_vec()).collect(),
    }
    proto.encode_to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_numbers_and_strings() {
        let t =
            HostTensor::from_bytes(DType::Int64, vec![2], [3i64, -4].iter().flat_map(|v| v.to_le_bytes()).collect())
                .unwrap();
        assert_eq!(read(&write("x", &t), u64::MAX).unwrap(), ("x".to_string(), t));
        let s = HostTensor::from_strings(vec![2], vec!["a".into(), "bé".into()]).unwrap();
        assert_eq!(read(&write("s", &s), u64::MAX).unwrap().1, s);
    }

    #[test]
    fn reads_typed_fields() {
        let proto = TensorProto {
            dims: vec![3],
            data_type: Some(10),
            int32_data: vec![0x3c00, 0x4000, 0xbc00],
            ..TensorProto::default()
        };
        let t = from_proto(&proto, u64::MAX).unwrap();
        assert_eq!(t.to_f64().unwrap(), vec![1.0, 2.0, -1.0]);
        let proto = TensorProto { dims: vec![], data_type: Some(1), float_data: vec![2.5], ..TensorProto::default() };
        let t = from_proto(&proto, u64::MAX).unwrap();
        assert_eq!((t.shape.len(), t.to_f64().unwrap()), (0, vec![2.5]));
    }

    #[test]
    fn raw_data_shorter_than_dims_is_an_error() {
        let proto =
            TensorProto { dims: vec![2, 2], data_type: Some(1), raw_data: Some(vec![0; 12]), ..TensorProto::default() };
        let err = from_proto(&proto, u64::MAX).unwrap_err().to_string();
        assert!(err.contains("raw_data holds 12 bytes") && err.contains("need 16"), "{err}");
    }
}
