//! ONNX Runtime's profile (Chrome trace JSON): per-operator totals.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// Time spent in one operator type over the profiled runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpTime {
    pub op_type: String,
    pub calls: u64,
    pub total_ms: f64,
    /// Share of all node time.
    pub percent: f64,
}

/// Sums node events (`"cat": "Node"`, the `*_kernel_time` events) by operator type, most time first.
pub fn op_times(trace_json: &str) -> Result<Vec<OpTime>> {
    let events: Vec<serde_json::Value> =
        serde_json::from_str(trace_json).context("ONNX Runtime profile is not a JSON list")?;
    let mut totals: BTreeMap<String, (u64, f64)> = BTreeMap::new();
    for e in &events {
        let is_kernel = e["cat"] == "Node" && e["name"].as_str().is_some_and(|n| n.ends_with("_kernel_time"));
        if !is_kernel {
            continue;
        }
        let op = e["args"]["op_name"].as_str().unwrap_or("?").to_string();
        let dur_us = e["dur"].as_f64().unwrap_or(0.0);
        let entry = totals.entry(op).or_default();
        entry.0 += 1;
        entry.1 += dur_us / 1000.0;
    }
    let all: f64 = totals.values().map(|(_, t)| t).sum();
    let mut ops: Vec<OpTime> = totals
        .into_iter()
        .map(|(op_type, (calls, total_ms))| OpTime {
            op_type,
            calls,
            total_ms,
            percent: if all > 0.0 { total_ms / all * 100.0 } else { 0.0 },
        })
        .collect();
    ops.sort_by(|a, b| b.total_ms.total_cmp(&a.total_ms));
    Ok(ops)
}

pub fn read_op_times(path: &Path) -> Result<Vec<OpTime>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading profile {}", path.display()))?;
    op_times(&text).with_context(|| format!("profile {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_kernel_time_by_operator() {
        let trace = r#"[
            {"cat":"Session","name":"model_run","dur":900},
            {"cat":"Node","name":"conv1_kernel_time","dur":300,"args":{"op_name":"Conv"}},
            {"cat":"Node","name":"conv2_kernel_time","dur":500,"args":{"op_name":"Conv"}},
            {"cat":"Node","name":"relu_fence_before","dur":5,"args":{"op_name":"Relu"}},
            {"cat":"Node","name":"relu_kernel_time","dur":200,"args":{"op_name":"Relu"}}
        ]"#;
        let ops = op_times(trace).unwrap();
        assert_eq!(ops[0], OpTime { op_type: "Conv".into(), calls: 2, total_ms: 0.8, percent: 80.0 });
        assert_eq!((ops[1].op_type.as_str(), ops[1].calls), ("Relu", 1));
    }
}
