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
