//! `--matmulnbits-accuracy-level`: every `MatMulNBits` without an `accuracy_level` given level 4,
//! the int8 computation ONNX Runtime's CPU kernel has fast code for. A model quantized elsewhere
//! (ONNX Runtime's quantizer by default, many exporters) leaves it out, and on the CPU EP its
//! weights are then dequantized to float32 on every run: SmolLM2-135M int8 decoded 9.4x slower
//! than float32 so (scripts/bench-precision). A speed rule: `dmlrun tune` tries it and keeps it
//! where it is measured faster and its outputs stay within the tolerance.

use anyhow::Result;

use super::rule::{Purpose, Rule, Scope};
use super::{int_attribute, Built};
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::lossless::EditNode;

/// ONNX Runtime's `accuracy_level` for int8 activations.
const INT8_ACTIVATIONS: i64 = 4;

pub struct MatMulNBitsAccuracyLevel;

impl Rule for MatMulNBitsAccuracyLevel {
    fn flag(&self) -> &'static str {
        "matmulnbits-accuracy-level"
    }

    fn help(&self) -> &'static str {
        "Give every MatMulNBits without an accuracy_level the level 4 (int8 activations), before \
         the session.\n\n\
         ONNX Runtime's CPU kernel then takes the quantized weights as they are instead of \
         dequantizing them to float32 on every run, several times faster, its outputs moved by \
         the activations' quantization. DirectML's kernel does not read the attribute. Checked \
         against the original as --decompose is.\n\n\
         Example: dmlrun int8-decoder.onnx --ep cpu --matmulnbits-accuracy-level"
    }

    fn op_type(&self) -> &'static str {
        "MatMulNBits"
    }

    fn what_it_fits(&self) -> &'static str {
        "MatMulNBits without an accuracy level"
    }

    fn purpose(&self) -> Purpose {
        Purpose::Speed
    }

    fn fits(&self, node: &NodeOutline, _graph: &[NodeOutline]) -> bool {
        node.op_type == "MatMulNBits" && node.int("accuracy_level").unwrap_or(0) == 0
    }

    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, _graph: &Scope<'_>) -> Result<()> {
        let mut given = node.clone();
        given.attribute.retain(|a| a.name.as_deref() != Some("accuracy_level"));
        given.attribute.push(int_attribute("accuracy_level", INT8_ACTIVATIONS));
        built.nodes.push(given);
        Ok(())
    }
}
