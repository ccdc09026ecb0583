//! Two rules for the optional inputs of `com.microsoft` `MatMulNBits` that ONNX Runtime's DirectML
//! kernel does not take (a session that holds one fails to create, or the node falls to the CPU):
//!
//! - `--matmulnbits-bias-add`: a MatMulNBits with a `bias` (input 5) becomes the MatMulNBits
//!   without it and an `Add` of the bias;
//! - `--matmulnbits-drop-g-idx`: a `g_idx` (input 4) that says what the blocks say anyway (row k
//!   in block k / block_size: what a quantizer without act-order writes) is dropped, where the
//!   node has no zero points: ONNX Runtime's CPU kernel reads uint8 zero points otherwise with a
//!   g_idx than without one (its g_idx path gives other values than its own path without, on
//!   the same weights), so dropping it there would change what the model computes on the CPU.

use anyhow::{Context, Result};

use super::rule::{Rule, Scope};
use super::{initializer, int_of, Built};
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::lossless::EditNode;

/// TensorProto.DataType of `g_idx`.
const INT32: i32 = 6;

fn given(inputs: &[String], at: usize) -> bool {
    inputs.get(at).is_some_and(|n| !n.is_empty())
}

/// The inputs with `at` emptied, and the empty ones at the end dropped.
fn without_input(node: &EditNode, at: usize) -> Vec<String> {
    let mut inputs = node.input.clone();
    if let Some(slot) = inputs.get_mut(at) {
        slot.clear();
    }
    while inputs.last().is_some_and(|n| n.is_empty()) {
        inputs.pop();
    }
    inputs
}

pub struct MatMulNBitsBiasAdd;

impl Rule for MatMulNBitsBiasAdd {
    fn flag(&self) -> &'static str {
        "matmulnbits-bias-add"
    }

    fn help(&self) -> &'static str {
        "Write every MatMulNBits that has a bias as the MatMulNBits without it and an Add of the \
         bias, before the session.\n\n\
         ONNX Runtime's DirectML kernel for MatMulNBits takes no bias input: such a node fails \
         session creation or runs on the CPU. Checked against the original as --decompose is.\n\n\
         Example: dmlrun decoder.onnx --device 0 --matmulnbits-bias-add"
    }

    fn op_type(&self) -> &'static str {
        "MatMulNBits"
    }

    fn what_it_fits(&self) -> &'static str {
        "MatMulNBits with a bias"
    }

    fn fits(&self, node: &NodeOutline, _graph: &[NodeOutline]) -> bool {
        node.op_type == "MatMulNBits" && given(&node.inputs, 5)
    }

    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, _graph: &Scope<'_>) -> Result<()> {
        let bias = node.input.get(5).context("no bias")?.clone();
        let output = node.output.first().context("no output")?.clone();
        let product = built.writer.fresh(&built.base);
        let mut matmul = node.clone();
        matmul.input = without_input(node, 5);
        matmul.output = vec![product.clone()];
        built.nodes.push(matmul);
        built.op("Add", &[&product, &bias], Some(&output), vec![]);
        Ok(())
    }
}

pub struct MatMulNBitsDropGIdx;

impl Rule for MatMulNBitsDropGIdx {
    fn flag(&self) -> &'static str {
        "matmulnbits-drop-g-idx"
    }

    fn help(&self) -> &'static str {
        "Drop the g_idx input of every MatMulNBits whose g_idx says what its blocks say anyway \
         (row k in block k / block_size), before the session.\n\n\
         GPTQ exporters write such a g_idx where no act-order reordered the rows, and ONNX \
         Runtime's DirectML kernel for MatMulNBits takes no g_idx input: such a node fails \
         session creation or runs on the CPU. A g_idx that reorders is left alone, and so is one \
         on a node with zero points (ONNX Runtime's CPU kernel reads them otherwise with a g_idx). \
         Checked against the original as --decompose is.\n\n\
         Example: dmlrun gptq-decoder.onnx --device 0 --matmulnbits-drop-g-idx"
    }

    fn op_type(&self) -> &'static str {
        "MatMulNBits"
    }

    fn what_it_fits(&self) -> &'static str {
        "MatMulNBits with a g_idx"
    }

    fn fits(&self, node: &NodeOutline, _graph: &[NodeOutline]) -> bool {
        node.op_type == "MatMulNBits" && given(&node.inputs, 4)
    }

    /// Only a g_idx that is a constant saying row k is in block k / block_size, on a node without
    /// zero points.
    fn rewrites_in(&self, node: &EditNode, graph: &Scope<'_>) -> bool {
        !given(&node.input, 3) && trivial_g_idx(node, graph).unwrap_or(false)
    }

    fn nothing_rewritten(&self, ops: &std::collections::HashSet<String>) -> String {
        match ops.contains("MatMulNBits") {
            true => "no MatMulNBits of the model has a constant g_idx that keeps the rows in their blocks and no zero points".into(),
            false => "the model has no MatMulNBits node".into(),
        }
    }

    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, _graph: &Scope<'_>) -> Result<()> {
        let mut matmul = node.clone();
        matmul.input = without_input(node, 4);
        built.nodes.push(matmul);
        Ok(())
    }
}

/// Whether the node's g_idx is an int32 constant with row k in block k / block_size.
fn trivial_g_idx(node: &EditNode, graph: &Scope<'_>) -> Option<bool> {
    let g_idx = initializer(graph, node.input.get(4)?).ok()?;
    let block = int_of(node, "block_size")?;
    if g_idx.data_type != Some(INT32) || block <= 0 {
        return Some(false);
    }
    let values: Vec<i32> = match &g_idx.raw_data {
        Some(raw) => raw.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
        None => g_idx.int32_data.clone(),
    };
    let k = int_of(node, "K")?;
    Some(values.len() as i64 == k && values.iter().enumerate().all(|(row, b)| *b as i64 == row as i64 / block))
}
