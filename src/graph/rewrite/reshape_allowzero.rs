//! `--reshape-allowzero-off`: a `Reshape` with `allowzero=1` (every one torch's exporter writes)
//! whose shape is a constant without a zero loses the attribute, which changes nothing there: ONNX
//! Runtime's DirectML (1.24) rejects the attribute at session creation.

use anyhow::Result;

use super::rule::{Rule, Scope};
use super::Built;
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::lossless::EditNode;

pub struct ReshapeAllowzeroOff;

impl Rule for ReshapeAllowzeroOff {
    fn flag(&self) -> &'static str {
        "reshape-allowzero-off"
    }

    fn help(&self) -> &'static str {
        "Drop `allowzero=1` from every Reshape whose shape is a constant without a zero, where the \
         attribute changes nothing, before the session.\n\n\
         torch's ONNX exporter writes allowzero=1 on every Reshape, and ONNX Runtime's DirectML \
         (1.24) rejects it at session creation (E_INVALIDARG in MLOperatorAuthorImpl.cpp). Checked \
         against the original as --decompose is.\n\n\
         Example: dmlrun bert.onnx --device 0 --gemm-zero-bias --reshape-allowzero-off"
    }

    fn op_type(&self) -> &'static str {
        "Reshape"
    }

    fn what_it_fits(&self) -> &'static str {
        "Reshape with allowzero=1"
    }

    fn fits(&self, node: &NodeOutline, _graph: &[NodeOutline]) -> bool {
        node.op_type == "Reshape" && node.int("allowzero") == Some(1)
    }

    /// allowzero changes nothing where the shape holds no zero: only such a Reshape is rewritten,
    /// one whose shape is a constant of its graph.
    fn rewrites_in(&self, node: &EditNode, graph: &Scope<'_>) -> bool {
        shape_has_no_zero(node, graph)
    }

    fn nothing_rewritten(&self, _ops: &std::collections::HashSet<String>) -> String {
        "no Reshape of the model has allowzero=1 and a constant shape without a zero".into()
    }

    /// The Reshape as it is, without its `allowzero`.
    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, _graph: &Scope<'_>) -> Result<()> {
        let mut reshape = node.clone();
        reshape.attribute.retain(|a| a.name.as_deref() != Some("allowzero"));
        built.nodes.push(reshape);
        Ok(())
    }
}

/// Whether the Reshape's shape input is an initializer of `graph` holding no zero (where
/// `allowzero` changes nothing: only a 0 in the shape reads differently with it).
fn shape_has_no_zero(node: &EditNode, graph: &Scope<'_>) -> bool {
    let Some(shape) = node.input.get(1) else { return false };
    super::initializer(graph, shape)
        .ok()
        .and_then(|t| match (&t.raw_data, t.int64_data.is_empty()) {
            (Some(raw), _) => Some(raw.chunks_exact(8).all(|c| c != [0u8; 8])),
            (None, false) => Some(t.int64_data.iter().all(|v| *v != 0)),
            (None, true) => None,
        })
        .unwrap_or(false)
}
