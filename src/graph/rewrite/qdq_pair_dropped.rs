//! `--drop-qdq-pair`: the QuantizeLinear-DequantizeLinear pair after a Softmax, LeakyRelu or Mul
//! of a QDQ model is dropped, the op's float output read where the pair's was. ONNX Runtime's QDQ
//! fusion turns `DequantizeLinear -> op -> QuantizeLinear` into one quantized op (QLinearSoftmax,
//! QLinearLeakyRelu, QLinearMul) that ONNX Runtime's DirectML has no kernel for: the node falls to
//! the CPU, or session creation fails (onnxruntime #26882, where removing the pair is the way
//! round that keeps the QDQ fusion of the rest). Without the pair after it the op is no longer
//! fused; it runs in float, as the DequantizeLinear before it gives it. The outputs change by the
//! rounding the pair did (half a quantization step of that tensor, at most, where its values are
//! in the calibrated range), which the check against the original reports.

use anyhow::{Context, Result};
use prost::Message;

use super::rule::{Rule, Scope};
use super::Built;
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::lossless::EditNode;

/// The operators whose QDQ fusion gives a quantized operator ONNX Runtime's DirectML has no kernel
/// for: QLinearSoftmax and QLinearMul, seen left off DirectML on the H100 (docs/gpu.md), and
/// QLinearLeakyRelu (onnxruntime #26882).
const FUSED_WITHOUT_A_DIRECTML_KERNEL: &[&str] = &["Softmax", "LeakyRelu", "Mul"];

pub struct QdqPairDropped;

impl Rule for QdqPairDropped {
    fn flag(&self) -> &'static str {
        "drop-qdq-pair"
    }

    fn help(&self) -> &'static str {
        "Drop the QuantizeLinear-DequantizeLinear pair after every Softmax, LeakyRelu and Mul of a \
         QDQ model, before the session, so the op runs in float.\n\n\
         ONNX Runtime fuses DequantizeLinear, the op and the QuantizeLinear after it into \
         QLinearSoftmax, QLinearLeakyRelu or QLinearMul, which its DirectML has no kernel for: the \
         node runs on the CPU, or the session cannot be created (onnxruntime #26882). Without the \
         pair the op is not fused and the rest of the model keeps its QDQ fusions; the outputs \
         change by the rounding the pair did. Checked against the original as --decompose is; \
         --session-config session.disable_quant_qdq=1 turns every QDQ fusion off instead.\n\n\
         Example: dmlrun squeezenet_qdq.onnx --device 0 --drop-qdq-pair"
    }

    fn op_type(&self) -> &'static str {
        "DequantizeLinear"
    }

    fn what_it_fits(&self) -> &'static str {
        "QuantizeLinear-DequantizeLinear pair after a Softmax, LeakyRelu or Mul"
    }

    /// A DequantizeLinear of the default domain reading a QuantizeLinear with the same scale and
    /// zero point, whose input a Softmax, LeakyRelu or Mul makes.
    fn fits(&self, node: &NodeOutline, graph: &[NodeOutline]) -> bool {
        let default_domain = |n: &NodeOutline| n.domain.is_empty() || n.domain == "ai.onnx";
        let made_by = |name: &str| graph.iter().find(|n| n.outputs.iter().any(|o| o == name));
        if node.op_type != "DequantizeLinear" || !default_domain(node) {
            return false;
        }
        let Some(quantize) = node.inputs.first().and_then(|i| made_by(i)) else { return false };
        let pair = quantize.op_type == "QuantizeLinear"
            && default_domain(quantize)
            && quantize.inputs.get(1..) == node.inputs.get(1..)
            && quantize.ints.get("axis") == node.ints.get("axis");
        let fused = quantize
            .inputs
            .first()
            .and_then(|i| made_by(i))
            .is_some_and(|op| default_domain(op) && FUSED_WITHOUT_A_DIRECTML_KERNEL.contains(&op.op_type.as_str()));
        pair && fused
    }

    fn nothing_rewritten(&self, ops: &std::collections::HashSet<String>) -> String {
        match ops.contains("QuantizeLinear") {
            true => format!("the model has no {}", self.what_it_fits()),
            false => "the model has no QuantizeLinear node (it is not a QDQ model)".into(),
        }
    }

    /// `DequantizeLinear(QuantizeLinear(x))` as `Identity(x)`; the QuantizeLinear, read by nothing
    /// once every DequantizeLinear after it is rewritten, is dropped with them.
    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, graph: &Scope<'_>) -> Result<()> {
        let quantized = node.input.first().context("a DequantizeLinear with no input")?;
        let quantize = graph
            .node
            .iter()
            .filter_map(|raw| EditNode::decode(raw.as_slice()).ok())
            .find(|n| n.output.first() == Some(quantized))
            .with_context(|| format!("no node makes its input '{quantized}'"))?;
        let float = quantize.input.first().context("a QuantizeLinear with no input")?;
        let output = node.output.first().context("a DequantizeLinear with no output")?;
        built.op("Identity", &[float.as_str()], Some(output.as_str()), Vec::new());
        Ok(())
    }
}
