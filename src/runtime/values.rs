//! Host tensors and values to and from ONNX Runtime's: the copies between dmlrun's own
//! `HostTensor`/`HostValue` (which the file formats, comparisons and reports use) and `ort`'s
//! values, kept in the engine so nothing else depends on `ort`'s types.

use anyhow::{bail, Result};
use ort::AsPointer;

use crate::tensor::{element_count, DType, HostMap, HostTensor, HostValue, TensorData};

/// The dmlrun dtype of an ONNX Runtime element type, when dmlrun carries it.
pub fn dtype_from_ort(ty: ort::value::TensorElementType) -> Option<DType> {
    use ort::value::TensorElementType as T;
    Some(match ty {
        T::Float32 => DType::Float32,
        T::Float64 => DType::Float64,
        T::Float16 => DType::Float16,
        T::Bfloat16 => DType::Bfloat16,
        T::Int8 => DType::Int8,
        T::Int16 => DType::Int16,
        T::Int32 => DType::Int32,
        T::Int64 => DType::Int64,
        T::Uint8 => DType::Uint8,
        T::Uint16 => DType::Uint16,
        T::Uint32 => DType::Uint32,
        T::Uint64 => DType::Uint64,
        T::Bool => DType::Bool,
        T::String => DType::String,
        T::Float8E4M3FN => DType::Float8E4M3FN,
        T::Float8E4M3FNUZ => DType::Float8E4M3FNUZ,
        T::Float8E5M2 => DType::Float8E5M2,
        T::Float8E5M2FNUZ => DType::Float8E5M2FNUZ,
        T::Uint4 => DType::Uint4,
        T::Int4 => DType::Int4,
        T::Uint2 => DType::Uint2,
        T::Int2 => DType::Int2,
        T::Float8E8M0 => DType::Float8E8M0,
        T::Float4E2M1 => DType::Float4E2M1,
        _ => return None,
    })
}

pub fn dtype_to_ort(dtype: DType) -> ort::value::TensorElementType {
    use ort::value::TensorElementType as T;
    match dtype {
        DType::Float32 => T::Float32,
        DType::Float64 => T::Float64,
        DType::Float16 => T::Float16,
        DType::Bfloat16 => T::Bfloat16,
        DType::Int8 => T::Int8,
        DType::Int16 => T::Int16,
        DType::Int32 => T::Int32,
        DType::Int64 => T::Int64,
        DType::Uint8 => T::Uint8,
        DType::Uint16 => T::Uint16,
        DType::Uint32 => T::Uint32,
        DType::Uint64 => T::Uint64,
        DType::Bool => T::Bool,
        DType::String => T::String,
        DType::Float8E4M3FN => T::Float8E4M3FN,
        DType::Float8E4M3FNUZ => T::Float8E4M3FNUZ,
        DType::Float8E5M2 => T::Float8E5M2,
        DType::Float8E5M2FNUZ => T::Float8E5M2FNUZ,
        DType::Uint4 => T::Uint4,
        DType::Int4 => T::Int4,
        DType::Uint2 => T::Uint2,
        DType::Int2 => T::Int2,
        DType::Float8E8M0 => T::Float8E8M0,
        DType::Float4E2M1 => T::Float4E2M1,
    }
}

/// Copies `tensor` into an ONNX Runtime value on the CPU.
pub fn tensor_to_ort(tensor: &HostTensor) -> ort::Result<ort::value::DynValue> {
    Ok(tensor_to_ort_tensor(tensor)?.into_dyn())
}

/// Copies `tensor` into an ONNX Runtime tensor on the CPU.
pub fn tensor_to_ort_tensor(tensor: &HostTensor) -> ort::Result<ort::value::DynTensor> {
    let shape: Vec<i64> = tensor.shape.iter().map(|&d| d as i64).collect();
    match &tensor.data {
        TensorData::Strings(strings) => {
            Ok(ort::value::Tensor::from_string_array((shape, strings.as_slice()))?.upcast())
        }
        TensorData::Bytes(bytes) => {
            let allocator = ort::memory::Allocator::default();
            let mut value = ort::value::DynTensor::new(&allocator, dtype_to_ort(tensor.dtype), shape)?;
            if !bytes.is_empty() {
                let dst = value.data_ptr_mut().cast::<u8>();
                // SAFETY: ONNX Runtime allocated exactly `byte_size(shape)` bytes on the CPU for
                // this dtype and shape, which `from_bytes` checked equals `bytes.len()`; the
                // regions cannot overlap because the destination was just allocated.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len()) };
            }
            Ok(value)
        }
    }
}

/// Copies an ONNX Runtime tensor value back to the host.
pub fn tensor_from_ort(value: &ort::value::DynValue) -> Result<HostTensor> {
    let ort::value::ValueType::Tensor { ty, .. } = value.dtype() else {
        bail!("output is a {}, not a tensor", value.dtype());
    };
    let Some(dtype) = dtype_from_ort(*ty) else {
        bail!("output element type {ty} is not supported by dmlrun");
    };
    let tensor = value.view().downcast::<ort::value::DynTensorValueType>()?;
    let shape: Vec<usize> = tensor.shape().iter().map(|&d| d.max(0) as usize).collect();
    if dtype == DType::String {
        let (_, strings) = tensor.try_extract_strings()?;
        return HostTensor::from_strings(shape, strings);
    }
    let byte_len = dtype.byte_len(element_count(&shape)?).expect("numeric dtype");
    let bytes = if byte_len == 0 {
        Vec::new()
    } else {
        let src = tensor.data_ptr().cast::<u8>();
        // SAFETY: the value is a CPU tensor of `shape` elements of `dtype` owned by ONNX
        // Runtime for as long as `value` lives; we copy out exactly its byte size.
        unsafe { std::slice::from_raw_parts(src, byte_len) }.to_vec()
    };
    HostTensor::from_bytes(dtype, shape, bytes)
}

/// Copies an ONNX Runtime map to the host as its key and value tensors (`GetValue` 0 and 1,
/// the C API's view of a map), whatever their element types.
fn map_from_ort(value: &ort::value::DynValue) -> Result<HostMap> {
    let allocator = ort::memory::Allocator::default();
    let part = |index: i32| -> Result<HostTensor> {
        let mut out: *mut ort::sys::OrtValue = std::ptr::null_mut();
        // SAFETY: `value` is a live map value; GetValue writes a new OrtValue the caller owns,
        // which `from_ptr` takes over and releases.
        let status = unsafe {
            super::status_result((ort::api().GetValue)(value.ptr(), index, allocator.ptr().cast_mut(), &mut out))
        };
        let what = ["keys", "values"][index as usize];
        status.map_err(|e| anyhow::anyhow!("ONNX Runtime could not read a map's {what}: {e}"))?;
        let part =
            std::ptr::NonNull::new(out).ok_or_else(|| anyhow::anyhow!("ONNX Runtime gave no {what} for a map"))?;
        // SAFETY: a non-null value GetValue just created.
        let tensor: ort::value::DynValue = unsafe { ort::value::Value::from_ptr(part, Some(&allocator)) };
        tensor_from_ort(&tensor)
    };
    Ok(HostMap { keys: part(0)?, values: part(1)? })
}

/// The ONNX Runtime value to feed; `None` for an empty optional (the input is left out).
pub fn value_to_ort(value: &HostValue) -> ort::Result<Option<ort::value::DynValue>> {
    Ok(match value {
        HostValue::Tensor(t) => Some(tensor_to_ort(t)?),
        HostValue::Sequence(items) => {
            let tensors = items.iter().map(tensor_to_ort_tensor).collect::<ort::Result<Vec<_>>>()?;
            Some(ort::value::Sequence::<ort::value::DynTensorValueType>::new(tensors)?.into_dyn())
        }
        HostValue::Map(_) | HostValue::Maps(_) => {
            return Err(ort::Error::new("dmlrun cannot feed maps to a model, only read them from its outputs"))
        }
        HostValue::Absent => None,
    })
}

/// Copies an ONNX Runtime output (tensor, map, or sequence of either) back to the host.
pub fn value_from_ort(value: &ort::value::DynValue) -> Result<HostValue> {
    match value.dtype() {
        ort::value::ValueType::Sequence(item) if matches!(**item, ort::value::ValueType::Map { .. }) => {
            let sequence = value.view().downcast::<ort::value::DynSequenceValueType>()?;
            let items = sequence.try_extract_sequence::<ort::value::DynMapValueType>()?;
            let maps = items.iter().map(|m| map_from_ort(&m.view().into_dyn())).collect::<Result<Vec<_>>>()?;
            Ok(HostValue::Maps(maps))
        }
        ort::value::ValueType::Map { .. } => Ok(HostValue::Map(map_from_ort(value)?)),
        ort::value::ValueType::Sequence(_) => {
            let sequence = value.view().downcast::<ort::value::DynSequenceValueType>()?;
            let items = sequence.try_extract_sequence::<ort::value::DynTensorValueType>()?;
            let tensors = items.iter().map(|t| tensor_from_ort(&t.view().into_dyn())).collect::<Result<Vec<_>>>()?;
            Ok(HostValue::Sequence(tensors))
        }
        _ => Ok(HostValue::Tensor(tensor_from_ort(value)?)),
    }
}

/// ONNX Runtime values for the bound inputs, made once and reused by every run.
pub struct PreparedInputs {
    pub(crate) values: Vec<(String, ort::value::DynValue)>,
}

impl PreparedInputs {
    pub fn new(tensors: &[(String, HostTensor)]) -> Result<PreparedInputs> {
        let values = tensors
            .iter()
            .map(|(name, t)| Ok((name.clone(), tensor_to_ort(t).map_err(|e| anyhow::anyhow!("input '{name}': {e}"))?)))
            .collect::<Result<_>>()?;
        Ok(PreparedInputs { values })
    }
}
