//! A node in outline: what the rewrite rules and the quantized-form summary ask of a node (its
//! operator, inputs and integer attributes), read from its one decoding, `EditNode`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::onnx_proto::lossless::EditNode;

/// A node as the rewrite rules read it to say whether they fit: its operator, inputs and integer
/// attributes (no weights, no subgraph).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeOutline {
    /// Its name (empty where the model gives none): what ONNX Runtime's placement log names.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    pub op_type: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub domain: String,
    pub inputs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ints: BTreeMap<String, i64>,
}

impl NodeOutline {
    pub fn of(node: &EditNode) -> NodeOutline {
        NodeOutline {
            name: node.name.clone().unwrap_or_default(),
            op_type: node.op_type.clone().unwrap_or_default(),
            domain: node.domain.clone().unwrap_or_default(),
            inputs: node.input.clone(),
            outputs: node.output.clone(),
            ints: node.attribute.iter().filter_map(|a| Some((a.name.clone()?, a.i?))).collect(),
        }
    }

    pub fn int(&self, name: &str) -> Option<i64> {
        self.ints.get(name).copied()
    }

    /// A node of `op` reading `inputs`, with integer attributes `ints`: what the tests that
    /// read outlines make.
    #[cfg(test)]
    pub fn made(op: &str, inputs: &[&str], ints: &[(&str, i64)]) -> NodeOutline {
        NodeOutline {
            name: String::new(),
            op_type: op.into(),
            domain: String::new(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            outputs: Vec::new(),
            ints: ints.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }
}
