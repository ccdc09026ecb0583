//! Which quantized form a model holds, read from its graph without its weights: block-quantized
//! weights (`MatMulNBits`, `GatherBlockQuantized`: bits, block sizes, zero points), QDQ
//! (`QuantizeLinear`/`DequantizeLinear`: per tensor, per channel or blocked) and QOperator ops
//! (`QLinearConv`, `QLinearMatMul`, ...), and their share of the weights' bytes. `info` says it;
//! the engine's reports name the form where a comparison is about quantized values.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::outline::NodeOutline;
use crate::tensor::DType;

/// The quantized form of a model's main graph; `None` from [`QuantizedForm::of`] where it holds
/// none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuantizedForm {
    /// Block-quantized weights, grouped by operator, bits, block size and zero points.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blockwise: Vec<BlockwiseGroup>,
    /// `DequantizeLinear` nodes over a constant weight, by how they are scaled.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub qdq_weights: BTreeMap<String, usize>,
    /// `QuantizeLinear` and `DequantizeLinear` nodes, all of them.
    #[serde(default)]
    pub quantize_linear: usize,
    #[serde(default)]
    pub dequantize_linear: usize,
    /// QOperator ops (`QLinearConv`, `MatMulInteger`, ...), by type.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub qoperator: BTreeMap<String, usize>,
    /// Bytes of the weights held quantized (4-bit, 8-bit), and of every initializer.
    pub quantized_bytes: u64,
    pub weight_bytes: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockwiseGroup {
    pub op_type: String,
    pub bits: i64,
    pub block_size: i64,
    pub zero_points: bool,
    pub nodes: usize,
    /// `MatMulNBits` whose K is not a whole number of blocks (DirectML's kernel takes whole
    /// blocks: such a node runs on the CPU).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub partial_blocks: usize,
    /// `MatMulNBits` with a bias or a `g_idx` input.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub with_bias: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub with_g_idx: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// An initializer's element type and dimensions.
pub type Initializers = HashMap<String, (i32, Vec<i64>)>;

const QOPERATOR: &[&str] = &[
    "QLinearConv",
    "QLinearMatMul",
    "QLinearAdd",
    "QLinearMul",
    "QLinearSigmoid",
    "QLinearLeakyRelu",
    "QLinearSoftmax",
    "QLinearConcat",
    "QLinearGlobalAveragePool",
    "QLinearAveragePool",
    "QGemm",
    "QAttention",
    "ConvInteger",
    "MatMulInteger",
    "DynamicQuantizeLinear",
    "DynamicQuantizeMatMul",
    "MatMulIntegerToFloat",
];

impl QuantizedForm {
    pub fn of(nodes: &[NodeOutline], initializers: &Initializers) -> Option<QuantizedForm> {
        let mut form = QuantizedForm::default();
        let mut quantized: Vec<&str> = Vec::new();
        for node in nodes {
            let op = node.op_type.as_str();
            match op {
                "MatMulNBits" | "GatherBlockQuantized" => {
                    form.add_blockwise(node);
                    // MatMulNBits(A, B, ...) holds its weight in B; GatherBlockQuantized its table first.
                    let at = usize::from(op == "MatMulNBits");
                    quantized.extend(node.inputs.get(at).map(String::as_str));
                }
                "QuantizeLinear" => form.quantize_linear += 1,
                "DequantizeLinear" => {
                    form.dequantize_linear += 1;
                    let weight = node.inputs.first().and_then(|w| initializers.get(w).map(|i| (w, i)));
                    if let Some((name, (data_type, _))) = weight {
                        let scale = node.inputs.get(1).and_then(|s| initializers.get(s));
                        let how = match (node.int("block_size").filter(|b| *b > 0), scale) {
                            (Some(_), _) => "blocked",
                            (None, Some((_, dims))) if element_count(dims).is_none_or(|n| n > 1) => "per-channel",
                            _ => "per-tensor",
                        };
                        let kind = DType::from_onnx_code(*data_type).map_or("?", DType::name);
                        *form.qdq_weights.entry(format!("{kind} {how}")).or_insert(0) += 1;
                        quantized.push(name);
                    }
                }
                _ if QOPERATOR.contains(&op) => {
                    *form.qoperator.entry(op.to_string()).or_insert(0) += 1;
                    // A QLinear op's weight is its quantized input 3 (Conv, MatMul), an Integer
                    // op's its input 1.
                    let at = if op.starts_with("QLinear") { 3 } else { 1 };
                    quantized.extend(
                        node.inputs.get(at).filter(|w| initializers.contains_key(w.as_str())).map(String::as_str),
                    );
                }
                _ => {}
            }
        }
        if form.blockwise.is_empty()
            && form.qdq_weights.is_empty()
            && form.qoperator.is_empty()
            && form.quantize_linear == 0
        {
            return None;
        }
        quantized.sort_unstable();
        quantized.dedup();
        let weights = quantized.iter().filter_map(|w| initializers.get(*w));
        form.quantized_bytes = weights.map(bytes_of).fold(0, u64::saturating_add);
        form.weight_bytes = initializers.values().map(bytes_of).fold(0, u64::saturating_add);
        Some(form)
    }

    fn add_blockwise(&mut self, node: &NodeOutline) {
        let matmul = node.op_type == "MatMulNBits";
        let bits = node.int("bits").unwrap_or(4);
        let block_size = node.int("block_size").unwrap_or(if matmul { 32 } else { 128 });
        let given = |i: usize| node.inputs.get(i).is_some_and(|n| !n.is_empty());
        let zero_points = given(3);
        let group = match self.blockwise.iter_mut().find(|g| {
            g.op_type == node.op_type && g.bits == bits && g.block_size == block_size && g.zero_points == zero_points
        }) {
            Some(group) => group,
            None => {
                self.blockwise.push(BlockwiseGroup {
                    op_type: node.op_type.clone(),
                    bits,
                    block_size,
                    zero_points,
                    ..BlockwiseGroup::default()
                });
                self.blockwise.last_mut().expect("just pushed")
            }
        };
        group.nodes += 1;
        if matmul {
            let k = node.int("K").unwrap_or(0);
            group.partial_blocks += usize::from(block_size > 0 && k % block_size != 0);
            group.with_g_idx += usize::from(given(4));
            group.with_bias += usize::from(given(5));
        }
    }

    /// `MatMulNBits 168 (4 bits, block 32, symmetric; 2 with K not a whole number of blocks),
    /// GatherBlockQuantized 1 (4 bits, block 32); the quantized tensors are 612 MiB of the weights' 658 MiB (93%)`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .blockwise
            .iter()
            .map(|g| {
                let zero = if g.zero_points { "zero points" } else { "symmetric" };
                let mut notes = Vec::new();
                if g.partial_blocks > 0 {
                    notes.push(format!("{} with K not a whole number of blocks", g.partial_blocks));
                }
                if g.with_bias > 0 {
                    notes.push(format!("{} with a bias", g.with_bias));
                }
                if g.with_g_idx > 0 {
                    notes.push(format!("{} with g_idx", g.with_g_idx));
                }
                let notes = if notes.is_empty() { String::new() } else { format!("; {}", notes.join(", ")) };
                format!("{} {} ({} bits, block {}, {zero}{notes})", g.op_type, g.nodes, g.bits, g.block_size)
            })
            .collect();
        if self.quantize_linear + self.dequantize_linear > 0 {
            let weights: Vec<String> = self.qdq_weights.iter().map(|(how, n)| format!("{n} {how}")).collect();
            let weights = if weights.is_empty() { String::new() } else { format!("; weights: {}", weights.join(", ")) };
            parts.push(format!(
                "QDQ: QuantizeLinear {}, DequantizeLinear {}{weights}",
                self.quantize_linear, self.dequantize_linear
            ));
        }
        if !self.qoperator.is_empty() {
            let ops: Vec<String> = self.qoperator.iter().map(|(op, n)| format!("{op} {n}")).collect();
            parts.push(format!("QOperator: {}", ops.join(", ")));
        }
        let share = match self.weight_bytes {
            0 => String::new(),
            total => format!(
                "; the quantized tensors are {} of the weights' {} ({:.0}%)",
                mib(self.quantized_bytes),
                mib(total),
                100.0 * self.quantized_bytes as f64 / total as f64
            ),
        };
        format!("{}{share}", parts.join(", "))
    }
}

fn mib(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b => format!("{:.1} KiB", b as f64 / 1024.0),
    }
}

/// The elements `dims` hold; `None` where a dimension is negative or the product overflows (a
/// damaged file).
pub(super) fn element_count(dims: &[i64]) -> Option<u64> {
    dims.iter().try_fold(1u64, |n, d| n.checked_mul(u64::try_from(*d).ok()?))
}

pub(super) fn bytes_of((data_type, dims): &(i32, Vec<i64>)) -> u64 {
    let count = element_count(dims).and_then(|n| usize::try_from(n).ok());
    count.and_then(|n| DType::from_onnx_code(*data_type)?.byte_len(n)).unwrap_or(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(op: &str, inputs: &[&str], ints: &[(&str, i64)]) -> NodeOutline {
        NodeOutline::made(op, inputs, ints)
    }

    #[test]
    fn the_form_is_counted_and_a_damaged_file_s_dimensions_count_nothing() {
        let nodes = [
            node("MatMulNBits", &["a", "B", "s"], &[("K", 48), ("block_size", 32), ("bits", 4)]),
            node("DequantizeLinear", &["w", "w_scale"], &[]),
        ];
        let initializers: Initializers = [
            ("B".to_string(), (2, vec![16, 2, 16])),
            ("w".to_string(), (3, vec![i64::MAX, 4])),
            ("w_scale".to_string(), (1, vec![-1])),
        ]
        .into_iter()
        .collect();
        let form = QuantizedForm::of(&nodes, &initializers).unwrap();
        assert_eq!(form.blockwise[0].partial_blocks, 1);
        assert_eq!(form.quantized_bytes, 512, "B's 512 bytes; w's dimensions overflow and count nothing");
        assert_eq!(form.qdq_weights.get("int8 per-channel"), Some(&1), "{form:?}");
        assert!(QuantizedForm::of(&[node("Relu", &["x"], &[])], &initializers).is_none());
    }
}
