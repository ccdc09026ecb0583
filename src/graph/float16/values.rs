//! Float32 values written as float16: initializers, and the tensors in Constant nodes'
//! attributes, each value beyond float16's range clamped and each below it flushed, counted in
//! the conversion's report.

use super::*;

/// A converted node's attributes that make float32 where the node should make float16: Cast to
/// float, Constant and ConstantOfShape values, random draws' dtype. Returns the tensors converted.
pub(super) fn convert_attributes(node: &mut EditNode, report: &mut Conversion) -> Result<usize> {
    let op = node.op_type.clone().unwrap_or_default();
    let mut converted = 0;
    match op.as_str() {
        "Cast" => {
            for a in node.attribute.iter_mut().filter(|a| a.name.as_deref() == Some("to")) {
                if a.i == Some(i64::from(FLOAT)) {
                    a.i = Some(i64::from(FLOAT16));
                }
            }
        }
        "Constant" | "ConstantOfShape" => {
            let mut has_value = false;
            for a in &mut node.attribute {
                match a.name.as_deref() {
                    Some("value") => {
                        has_value = true;
                        if let Some(raw) = &a.t {
                            let mut tensor = EditTensor::decode(raw.as_slice())?;
                            if tensor.data_type == Some(FLOAT) {
                                to_half(&mut tensor, report)?;
                                a.t = Some(tensor.encode_to_vec());
                                converted += 1;
                            }
                        }
                    }
                    Some("value_float") => {
                        let value = a.f.unwrap_or_default();
                        *a = half_tensor_attribute(&[value], &[], report);
                        converted += 1;
                    }
                    Some("value_floats") => {
                        let values = a.floats.clone();
                        *a = half_tensor_attribute(&values, &[values.len() as i64], report);
                        converted += 1;
                    }
                    _ => {}
                }
            }
            // ConstantOfShape without a value makes float32 zeros.
            if op == "ConstantOfShape" && !has_value {
                node.attribute.push(half_tensor_attribute(&[0.0], &[1], report));
            }
        }
        "RandomNormal" | "RandomUniform" | "EyeLike" | "Bernoulli" => {
            let dtype = node.attribute.iter_mut().find(|a| a.name.as_deref() == Some("dtype"));
            match dtype {
                Some(a) if a.i == Some(i64::from(FLOAT)) => a.i = Some(i64::from(FLOAT16)),
                Some(_) => {}
                // Only the draws from nothing default to float32; the others take their input's.
                None if matches!(op.as_str(), "RandomNormal" | "RandomUniform") => node.attribute.push(EditAttribute {
                    name: Some("dtype".to_string()),
                    i: Some(i64::from(FLOAT16)),
                    r#type: Some(INT_ATTRIBUTE),
                    ..EditAttribute::default()
                }),
                None => {}
            }
        }
        _ => {}
    }
    Ok(converted)
}

/// A `value` attribute holding `values` as a float16 tensor of `dims`.
pub(super) fn half_tensor_attribute(values: &[f32], dims: &[i64], report: &mut Conversion) -> EditAttribute {
    let mut tensor =
        EditTensor { dims: dims.to_vec(), data_type: Some(FLOAT), float_data: values.to_vec(), ..Default::default() };
    // A float32 tensor built here always converts.
    to_half(&mut tensor, report).expect("float_data of the right length");
    EditAttribute {
        name: Some("value".to_string()),
        t: Some(tensor.encode_to_vec()),
        r#type: Some(TENSOR_ATTRIBUTE),
        ..EditAttribute::default()
    }
}

/// A float32 tensor's data as float16 (raw, little-endian): finite values beyond float16's range
/// clamped to ±65504, counted, as are nonzero values that become zero.
pub(super) fn to_half(tensor: &mut EditTensor, report: &mut Conversion) -> Result<()> {
    let values: Vec<f32> = match tensor.raw_data.take() {
        Some(raw) => {
            anyhow::ensure!(raw.len() % 4 == 0, "raw float32 data of {} bytes", raw.len());
            raw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
        }
        None => std::mem::take(&mut tensor.float_data),
    };
    report.bytes_before += 4 * values.len() as u64;
    report.bytes_after += 2 * values.len() as u64;
    let mut raw = Vec::with_capacity(2 * values.len());
    for v in values {
        let clamped = if v.is_finite() && v.abs() > f16::MAX.to_f32() {
            report.values_clamped += 1;
            f16::MAX.to_f32().copysign(v)
        } else {
            v
        };
        let half = f16::from_f32(clamped);
        if clamped != 0.0 && half.to_f32() == 0.0 {
            report.values_flushed += 1;
        }
        raw.extend_from_slice(&half.to_le_bytes());
    }
    tensor.data_type = Some(FLOAT16);
    tensor.raw_data = Some(raw);
    Ok(())
}
