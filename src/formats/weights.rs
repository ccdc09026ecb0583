//! What a model's weights are, as `info` says it: how many parameters, and their bytes by element
//! type, read from the header (no weight's bytes are read).

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use super::outline::NodeOutline;
use super::quantized::Initializers;
use crate::tensor::DType;

/// The initializers of the main graph, summed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeightSummary {
    /// The values the weights stand for: a `MatMulNBits` weight counts its K x N values, not its
    /// packed bytes, and its scales and zero points count none.
    pub parameters: u64,
    /// Bytes by element type (`float32`, `float16`, `int4` for a 4-bit `MatMulNBits` weight...),
    /// largest first when described.
    pub bytes_by_type: BTreeMap<String, u64>,
}

impl WeightSummary {
    pub fn of(nodes: &[NodeOutline], initializers: &Initializers) -> WeightSummary {
        let mut packed: BTreeMap<&str, (u64, i64)> = BTreeMap::new();
        let mut quantization_data: HashSet<&str> = HashSet::new();
        for node in nodes.iter().filter(|n| n.op_type == "MatMulNBits") {
            let (Some(k), Some(n), Some(bits)) = (node.int("K"), node.int("N"), node.int("bits")) else { continue };
            if let Some(weight) = node.inputs.get(1) {
                packed.insert(weight, (u64::try_from(k.saturating_mul(n)).unwrap_or(0), bits));
            }
            quantization_data.extend(node.inputs.iter().skip(2).map(String::as_str));
        }
        let mut summary = WeightSummary::default();
        for (name, header) in initializers {
            let count = super::quantized::element_count(&header.1).unwrap_or(0);
            let dtype = DType::from_onnx_code(header.0);
            let bytes = super::quantized::bytes_of(header);
            let (parameters, type_name) = match packed.get(name.as_str()) {
                Some((values, bits)) => (*values, format!("int{bits}")),
                None if quantization_data.contains(name.as_str()) => (0, dtype.map_or("other", DType::name).into()),
                None => (count, dtype.map_or("other", DType::name).into()),
            };
            summary.parameters += parameters;
            *summary.bytes_by_type.entry(type_name).or_default() += bytes;
        }
        summary
    }

    /// `134.5 M parameters; float32 513.0 MiB (99%), int64 8 B`, or `no weights`.
    pub fn describe(&self) -> String {
        let total: u64 = self.bytes_by_type.values().sum();
        if total == 0 && self.parameters == 0 {
            return "no weights".into();
        }
        let mut by_size: Vec<(&String, &u64)> = self.bytes_by_type.iter().collect();
        by_size.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let types: Vec<String> = by_size
            .iter()
            .map(|(name, bytes)| match total {
                0 => format!("{name} {}", size(**bytes)),
                _ => format!("{name} {} ({:.0}%)", size(**bytes), 100.0 * **bytes as f64 / total as f64),
            })
            .collect();
        format!("{} parameters; {}", count(self.parameters), types.join(", "))
    }
}

/// `134.5 M`, `20.1 K`, `512`.
fn count(n: u64) -> String {
    match n {
        n if n >= 1_000_000_000 => format!("{:.2} G", n as f64 / 1e9),
        n if n >= 1_000_000 => format!("{:.1} M", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1} K", n as f64 / 1e3),
        n => n.to_string(),
    }
}

/// `513.0 MiB`, `20.1 KiB`, `8 B`.
pub fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(op: &str, inputs: &[&str], ints: &[(&str, i64)]) -> NodeOutline {
        NodeOutline::made(op, inputs, ints)
    }

    #[test]
    fn a_packed_weight_counts_its_values_and_its_scales_count_none() {
        let nodes = [
            outline(
                "MatMulNBits",
                &["x", "W_Q4", "W_scales"],
                &[("K", 64), ("N", 48), ("bits", 4), ("block_size", 32)],
            ),
            outline("MatMul", &["y", "B"], &[]),
        ];
        let initializers: Initializers = [
            ("W_Q4".to_string(), (2, vec![48, 2, 16])),
            ("W_scales".to_string(), (1, vec![48, 2])),
            ("B".to_string(), (1, vec![10, 10])),
        ]
        .into_iter()
        .collect();
        let summary = WeightSummary::of(&nodes, &initializers);
        assert_eq!(summary.parameters, 64 * 48 + 100);
        assert_eq!(summary.bytes_by_type["int4"], 48 * 2 * 16);
        assert_eq!(summary.bytes_by_type["float32"], (96 + 100) * 4);
        assert_eq!(summary.describe(), "3.2 K parameters; int4 1.5 KiB (66%), float32 784 B (34%)");
    }
}
