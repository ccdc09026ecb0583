//! `--reshape-allowzero-off`: a `Reshape` with `allowzero=1` (every one torch's exporter writes)
//! whose shape is a constant without a zero loses the attribute, which changes nothing there: ONNX
//! Runtime's DirectML (1.24) rejects the attribute at session creation.

use anyhow::Result;
use prost::Message;

use super::Built;
use crate::formats::onnx_proto::lossless::{EditNode, EditTensor, RawGraph};

impl Built<'_, '_> {
    /// The Reshape as it is, without its `allowzero`.
    pub(super) fn reshape_allowzero_off(&mut self, node: &EditNode) -> Result<()> {
        let mut reshape = node.clone();
        reshape.attribute.retain(|a| a.name.as_deref() != Some("allowzero"));
        self.nodes.push(reshape);
        Ok(())
    }
}

/// Whether the Reshape's shape input is an initializer of `graph` holding no zero (where
/// `allowzero` changes nothing: only a 0 in the shape reads differently with it).
pub(super) fn shape_has_no_zero(node: &EditNode, graph: &RawGraph) -> bool {
    let Some(shape) = node.input.get(1) else { return false };
    graph
        .initializer
        .iter()
        .filter_map(|raw| EditTensor::decode(raw.as_slice()).ok())
        .find(|t| t.name.as_deref() == Some(shape.as_str()))
        .and_then(|t| match (&t.raw_data, t.int64_data.is_empty()) {
            (Some(raw), _) => Some(raw.chunks_exact(8).all(|c| c != [0u8; 8])),
            (None, false) => Some(t.int64_data.iter().all(|v| *v != 0)),
            (None, true) => None,
        })
        .unwrap_or(false)
}
