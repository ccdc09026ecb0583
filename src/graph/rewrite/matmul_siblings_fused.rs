//! `--fuse-sibling-matmuls`: MatMuls that read the same input, each by a constant weight of two
//! dimensions with the same K and element type (an MLP's gate and up), written as one MatMul by
//! the weights side by side ([K, N1 + N2 + ...]) and a Split of its last axis into each one's
//! output. The same dot products, one GEMM instead of several. A speed rule: `dmlrun tune` tries
//! it and keeps it only where it is measured faster on the device at hand; `fix` never offers it.
//!
//! A MatMul an attention operator reads (q, k and v, through a bias or the rotary embedding) is
//! left alone: with q, k and v split from one product into GroupQueryAttention, DirectML gives
//! wrong logits on this project's stack (the H200's driver and lavapipe alike, graph fusion on or
//! off), where the CPU EP's are the original's to the bit; the MLP's gate and up fused agree on
//! both.

use std::collections::HashSet;

use anyhow::{bail, Context, Result};
use prost::Message;

use super::rule::{Purpose, Rule, Scope};
use super::{initializer, Built, INT64};
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::lossless::{EditNode, EditTensor, TensorName};
use crate::formats::onnx_proto::TensorHeader;

pub struct MatMulSiblingsFused;

/// A plain MatMul of two inputs.
fn is_matmul(node: &NodeOutline) -> bool {
    node.op_type == "MatMul" && matches!(node.domain.as_str(), "" | "ai.onnx") && node.inputs.len() == 2
}

/// The operators whose inputs a fused product must not feed (see the module's text).
const ATTENTION: &[&str] = &["GroupQueryAttention", "MultiHeadAttention", "Attention"];

/// What a product passes through on its way to attention (a bias, the rotary embedding, a
/// reshape to heads).
const ON_THE_WAY: &[&str] = &["Add", "RotaryEmbedding", "Reshape", "Transpose", "Cast"];

/// Every name an attention operator of `nodes` reads, directly or through operators of
/// [`ON_THE_WAY`] (the builder's q and k reach GroupQueryAttention through RotaryEmbedding,
/// Qwen2's through the Add of a bias first).
fn read_by_attention<'a>(nodes: impl Iterator<Item = &'a NodeOutline> + Clone) -> HashSet<&'a str> {
    let mut read: HashSet<&str> = (nodes.clone())
        .filter(|n| ATTENTION.contains(&n.op_type.as_str()))
        .flat_map(|n| n.inputs.iter().map(String::as_str))
        .collect();
    let on_the_way: Vec<&NodeOutline> = nodes.filter(|n| ON_THE_WAY.contains(&n.op_type.as_str())).collect();
    loop {
        let before = read.len();
        for node in &on_the_way {
            if node.outputs.first().is_some_and(|o| read.contains(o.as_str())) {
                read.extend(node.inputs.iter().map(String::as_str));
            }
        }
        if read.len() == before {
            return read;
        }
    }
}

/// A MatMul that may be fused: no attention operator reads what it makes.
fn fusable(node: &NodeOutline, attention: &HashSet<&str>) -> bool {
    is_matmul(node) && node.outputs.first().is_some_and(|o| !attention.contains(o.as_str()))
}

/// One sibling: its output, its weight's name, and the weight's K, N and element type.
struct Sibling {
    output: String,
    weight: String,
    k: i64,
    n: i64,
    data_type: i32,
}

/// The MatMuls of `graph` that read `node`'s input with a constant 2-D weight of the same K and
/// element type as `node`'s, in the graph's order, `node` among them; empty where `node`'s own
/// weight is not such a constant.
fn siblings(node: &EditNode, graph: &Scope<'_>) -> Vec<Sibling> {
    let Some(input) = node.input.first() else { return Vec::new() };
    let Some((k, _, data_type)) = node.input.get(1).and_then(|w| header(graph, w)) else { return Vec::new() };
    let nodes: Vec<NodeOutline> = graph
        .node
        .iter()
        .filter_map(|raw| EditNode::decode(raw.as_slice()).ok())
        .map(|n| NodeOutline::of(&n))
        .collect();
    let attention = read_by_attention(nodes.iter());
    if !fusable(&NodeOutline::of(node), &attention) {
        return Vec::new();
    }
    nodes
        .iter()
        .filter(|other| fusable(other, &attention) && other.inputs.first() == Some(input))
        .filter_map(|other| {
            let weight = other.inputs.get(1)?.clone();
            let (wk, n, wtype) = header(graph, &weight)?;
            let output = other.outputs.first()?.clone();
            (wk == k && wtype == data_type).then_some(Sibling { output, weight, k, n, data_type })
        })
        .collect()
}

/// The K, N and element type of `name` where it is a 2-D initializer of `graph`, read from its
/// header alone (its data, perhaps gigabytes outside the model, stays where it is).
fn header(graph: &Scope<'_>, name: &str) -> Option<(i64, i64, i32)> {
    let raw = (graph.initializer.iter())
        .find(|raw| TensorName::decode(raw.as_slice()).is_ok_and(|t| t.name.as_deref() == Some(name)))?;
    let tensor = TensorHeader::decode(raw.as_slice()).ok()?;
    match tensor.dims.as_slice() {
        [k, n] => Some((*k, *n, tensor.data_type?)),
        _ => None,
    }
}

/// Bytes an element of a float type takes.
fn element_bytes(data_type: i32) -> Option<usize> {
    match data_type {
        1 => Some(4),       // FLOAT
        10 | 16 => Some(2), // FLOAT16, BFLOAT16
        11 => Some(8),      // DOUBLE
        _ => None,
    }
}

impl Rule for MatMulSiblingsFused {
    fn flag(&self) -> &'static str {
        "fuse-sibling-matmuls"
    }

    fn help(&self) -> &'static str {
        "Write MatMuls that read the same input, each by a constant weight of two dimensions with \
         the same K, as one MatMul by the weights side by side and a Split of its last axis, \
         before the session.\n\n\
         An MLP's gate and up projections become one GEMM instead of two: the same dot products, \
         fewer kernels, a wider product that some devices run faster. dmlrun tune tries it and \
         keeps it only where it is measured faster. A MatMul an attention operator reads (q, k, \
         v) is left alone: split into GroupQueryAttention, DirectML gave wrong logits. Checked \
         against the original as --decompose is.\n\n\
         Example: dmlrun decoder.onnx --device 0 --fuse-sibling-matmuls"
    }

    fn op_type(&self) -> &'static str {
        "MatMul"
    }

    fn what_it_fits(&self) -> &'static str {
        "two MatMuls reading one input (and read by no attention operator)"
    }

    fn purpose(&self) -> Purpose {
        Purpose::Speed
    }

    fn fits(&self, node: &NodeOutline, graph: &[NodeOutline]) -> bool {
        let attention = read_by_attention(graph.iter());
        fusable(node, &attention)
            && graph.iter().filter(|o| fusable(o, &attention) && o.inputs.first() == node.inputs.first()).count() >= 2
    }

    /// Its weight and at least one sibling's are constants of the same K and a float type.
    fn rewrites_in(&self, node: &EditNode, graph: &Scope<'_>) -> bool {
        let found = siblings(node, graph);
        found.len() >= 2 && found.first().and_then(|s| element_bytes(s.data_type)).is_some()
    }

    fn nothing_rewritten(&self, ops: &std::collections::HashSet<String>) -> String {
        match ops.contains("MatMul") {
            true => {
                "no two MatMuls of the model read one input by constant weights of the same K, outside attention".into()
            }
            false => "the model has no MatMul".into(),
        }
    }

    /// The first sibling writes the fused MatMul and the Split that gives every sibling's output;
    /// the others write nothing in their place.
    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, graph: &Scope<'_>) -> Result<()> {
        let found = siblings(node, graph);
        let Some(first) = found.first() else { bail!("a MatMul with no siblings") };
        if node.output.first() != Some(&first.output) {
            return Ok(());
        }
        let input = node.input.first().context("a MatMul with no A")?.clone();
        let size = element_bytes(first.data_type).context("a weight of a non-float type")?;
        let weights = (found.iter())
            .map(|s| initializer(graph, &s.weight).and_then(|t| row_major(&t, s.k as usize * s.n as usize * size)))
            .collect::<Result<Vec<_>>>()?;
        // [K, N1 + N2 + ...]: row k is each weight's row k, one after another.
        let mut side_by_side = Vec::with_capacity(weights.iter().map(Vec::len).sum());
        for row in 0..first.k as usize {
            for (sibling, weight) in found.iter().zip(&weights) {
                let width = sibling.n as usize * size;
                side_by_side.extend_from_slice(&weight[row * width..(row + 1) * width]);
            }
        }
        let total: i64 = found.iter().map(|s| s.n).sum();
        let weight = built.constant(first.data_type, &[first.k, total], side_by_side);
        let product = built.op("MatMul", &[&input, &weight], None, vec![]);
        let outputs: Vec<&str> = found.iter().map(|s| s.output.as_str()).collect();
        let widths: Vec<i64> = found.iter().map(|s| s.n).collect();
        // Split takes its sizes as an input from opset 13, as an attribute before; a negative
        // axis from 11.
        let axis = match (built.writer.opset, built.writer.rank(&input)) {
            (11.., _) => -1,
            (_, Some(rank)) => rank as i64 - 1,
            (_, None) => {
                bail!("the rank of '{input}' is not known, and opset {} takes no negative axis", built.writer.opset)
            }
        };
        let axis = super::int_attribute("axis", axis);
        match built.writer.opset >= 13 {
            true => {
                let sizes = widths.iter().flat_map(|n| n.to_le_bytes()).collect();
                let sizes = built.constant(INT64, &[found.len() as i64], sizes);
                built.op_with_outputs("Split", &[&product, &sizes], &outputs, vec![axis]);
            }
            false => {
                let split = super::ints_attribute("split", &widths);
                built.op_with_outputs("Split", &[&product], &outputs, vec![axis, split]);
            }
        }
        Ok(())
    }
}

/// A weight's bytes in row-major order, `expected` of them.
fn row_major(tensor: &EditTensor, expected: usize) -> Result<Vec<u8>> {
    let bytes = super::gather_dequantized::stored_bytes(tensor)?;
    if bytes.len() != expected {
        bail!("a weight of {} bytes, not {expected}", bytes.len());
    }
    Ok(bytes)
}
