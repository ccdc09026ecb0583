//! ONNX's protobuf messages (onnx/onnx.proto, field numbers ONNX's), in one home, as two views
//! of the same bytes:
//!
//! - [`header`]: what dmlrun reads of a model without its weights (inputs, outputs, opsets,
//!   node op types, initializer names): the fields it does not declare are skipped unallocated,
//!   so reading a large model's header stays cheap;
//! - [`lossless`]: a model read for rewriting (reduce's extraction, the float16 conversion, the
//!   verified rewrites): every field declared, the messages not looked into kept as their
//!   encoded bytes, so nothing is lost when a model is written back.

pub mod header;
pub mod lossless;

pub use header::*;

/// `model` (a ModelProto's bytes) with `entries` as its metadata_props under `prefix`: the
/// entries already under that prefix (a model dmlrun wrote before) are replaced, every other
/// field is kept as it was, byte for byte.
pub fn with_metadata(model: &[u8], prefix: &str, entries: &[(String, String)]) -> anyhow::Result<Vec<u8>> {
    use prost::Message;
    let mut raw = lossless::RawModel::decode(model).map_err(|e| anyhow::anyhow!("not an ONNX model: {e}"))?;
    raw.metadata_props.retain(|entry| {
        header::StringStringEntryProto::decode(entry.as_slice())
            .map_or(true, |e| !e.key.as_deref().unwrap_or("").starts_with(prefix))
    });
    for (key, value) in entries {
        let entry = header::StringStringEntryProto { key: Some(key.clone()), value: Some(value.clone()) };
        raw.metadata_props.push(entry.encode_to_vec());
    }
    Ok(raw.encode_to_vec())
}

/// The sizes `with_fixed_dims` gives: free dimensions by name (`dim_param`) or by denotation,
/// and whole input shapes (`--shape`).
pub struct FixedDims<'a> {
    pub by_name: &'a [(String, i64)],
    pub by_denotation: &'a [(String, i64)],
    pub shapes: &'a std::collections::BTreeMap<String, Vec<usize>>,
}

/// `model` with the free dimensions of its graph's inputs and outputs written as the sizes in
/// `dims` (what a session fixed through its options): every other field is kept as it was. An
/// input or output whose type holds what dmlrun does not model (its bytes would not survive being
/// read and written back) is left as it is. Returns the bytes and how many dimensions were fixed.
pub fn with_fixed_dims(model: &[u8], dims: &FixedDims) -> anyhow::Result<(Vec<u8>, usize)> {
    use prost::Message;
    let mut raw = lossless::RawModel::decode(model).map_err(|e| anyhow::anyhow!("not an ONNX model: {e}"))?;
    let Some(graph_bytes) = raw.graph.as_deref() else { return Ok((model.to_vec(), 0)) };
    let mut graph =
        lossless::RawGraph::decode(graph_bytes).map_err(|e| anyhow::anyhow!("not an ONNX model's graph: {e}"))?;
    let mut fixed = 0;
    let mut fix = |values: &mut Vec<Vec<u8>>, shapes: Option<&std::collections::BTreeMap<String, Vec<usize>>>| {
        for bytes in values.iter_mut() {
            let Ok(mut value) = header::ValueInfoProto::decode(bytes.as_slice()) else { continue };
            if value.encode_to_vec() != *bytes {
                continue;
            }
            let shape = shapes.and_then(|s| s.get(value.name.as_deref().unwrap_or_default()));
            let Some(tensor_shape) =
                value.r#type.as_mut().and_then(|t| t.tensor_type.as_mut()).and_then(|t| t.shape.as_mut())
            else {
                continue;
            };
            let mut changed = false;
            for (axis, dim) in tensor_shape.dim.iter_mut().enumerate() {
                if dim.dim_value.is_some() {
                    continue;
                }
                let by_name = dim.dim_param.as_deref().and_then(|p| dims.by_name.iter().find(|(k, _)| k == p));
                let by_denotation =
                    dim.denotation.as_deref().and_then(|d| dims.by_denotation.iter().find(|(k, _)| k == d));
                let size = by_name
                    .or(by_denotation)
                    .map(|(_, v)| *v)
                    .or_else(|| shape.and_then(|s| s.get(axis)).map(|&v| v as i64));
                if let Some(size) = size {
                    dim.dim_value = Some(size);
                    dim.dim_param = None;
                    changed = true;
                    fixed += 1;
                }
            }
            if changed {
                *bytes = value.encode_to_vec();
            }
        }
    };
    fix(&mut graph.input, Some(dims.shapes));
    fix(&mut graph.output, None);
    raw.graph = Some(graph.encode_to_vec());
    Ok((raw.encode_to_vec(), fixed))
}
