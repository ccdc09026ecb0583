//! Verified graph rewrites: each rule, one file here, names what it changes and builds the nodes
//! that replace it; the engine runs the rewritten model beside the original on the reference EP
//! and reports how far apart they are (`engine::rewrite`).
//!
//! - `decompose`: `--decompose OP`, a normalisation or Gelu as primitive ONNX ops;
//! - `reshape_allowzero`: `--reshape-allowzero-off`;
//! - `gemm_zero_bias`: `--gemm-zero-bias`.
//!
//! This file holds what they share: the rewrite asked for and its summary, the walk over the
//! graph that finds each node a rule matches (`Writer`), and the nodes written in its place
//! (`Built`). Nodes in subgraphs (`If`, `Loop`, `Scan` bodies) are rewritten too. Constants are
//! written as `Constant` nodes beside the nodes that read them, so a rewritten subgraph stands
//! alone.

mod decompose;
mod gemm_zero_bias;
mod reshape_allowzero;

use std::collections::{BTreeMap, HashMap, HashSet};

use anyhow::{bail, Context, Result};
use prost::Message;
use serde::{Deserialize, Serialize};

pub use decompose::Decomposable;

use super::Graph;
use crate::formats::onnx_proto::lossless::{EditAttribute, EditNode, EditTensor, OpsetView, RawGraph};
use crate::formats::onnx_proto::ValueInfoProto;

/// TensorProto.DataType values the rewrites write.
const FLOAT: i32 = 1;
const INT64: i32 = 7;
/// AttributeProto.AttributeType values the rewrites write.
const ATTRIBUTE_INT: i32 = 2;
const ATTRIBUTE_TENSOR: i32 = 4;
const ATTRIBUTE_INTS: i32 = 7;

/// One rewrite the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rewrite {
    Decompose(Decomposable),
    GemmZeroBias,
    ReshapeAllowzeroOff,
}

impl Rewrite {
    /// The flag that asks for it: `--decompose LayerNormalization`, `--gemm-zero-bias`.
    pub fn flag(self) -> String {
        self.args().join(" ")
    }

    /// The flags that ask for `rewrites`, the operators to decompose as one list:
    /// `--decompose LayerNormalization,Gelu --gemm-zero-bias`.
    pub fn flags(rewrites: &[Rewrite]) -> String {
        let ops: Vec<String> = rewrites
            .iter()
            .filter_map(|r| match r {
                Rewrite::Decompose(op) => Some(op.to_string()),
                _ => None,
            })
            .collect();
        let mut words: Vec<String> = Vec::new();
        if !ops.is_empty() {
            words.push(format!("--decompose {}", ops.join(",")));
        }
        words.extend(rewrites.iter().filter(|r| !matches!(r, Rewrite::Decompose(_))).map(|r| r.flag()));
        words.join(" ")
    }

    /// The command-line arguments that ask for it, one word each.
    pub fn args(self) -> Vec<String> {
        match self {
            Rewrite::Decompose(op) => vec!["--decompose".into(), op.to_string()],
            Rewrite::GemmZeroBias => vec!["--gemm-zero-bias".into()],
            Rewrite::ReshapeAllowzeroOff => vec!["--reshape-allowzero-off".into()],
        }
    }

    /// The operator type it rewrites.
    pub fn op_type(self) -> &'static str {
        match self {
            Rewrite::Decompose(op) => op.op_type(),
            Rewrite::GemmZeroBias => "Gemm",
            Rewrite::ReshapeAllowzeroOff => "Reshape",
        }
    }

    fn matches(self, node: &EditNode) -> bool {
        let op = node.op_type.as_deref().unwrap_or_default();
        match self {
            Rewrite::GemmZeroBias => op == "Gemm" && node.input.get(2).is_none_or(|c| c.is_empty()),
            Rewrite::ReshapeAllowzeroOff => op == "Reshape" && int_of(node, "allowzero") == Some(1),
            Rewrite::Decompose(d) => op == d.op_type(),
        }
    }
}

/// What the rewrites did, for the report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RewriteSummary {
    /// Per rewrite (its flag): the nodes it replaced, by name (`#INDEX (OP)` when unnamed).
    pub rewritten: BTreeMap<String, Vec<String>>,
    /// Nodes the rewrites wrote in their place.
    pub nodes_added: usize,
}

impl RewriteSummary {
    /// `--decompose SimplifiedLayerNormalization: 24 nodes; --gemm-zero-bias: 1 node ('pooler'),
    /// 203 primitive nodes in their place`.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .rewritten
            .iter()
            .map(|(flag, nodes)| match nodes.as_slice() {
                [one] => format!("{flag}: 1 node ('{one}')"),
                many => format!("{flag}: {} nodes", many.len()),
            })
            .collect();
        format!("{}, {} nodes in their place", parts.join("; "), self.nodes_added)
    }
}

impl Graph {
    /// Every operator type in the model, subgraphs included.
    pub fn op_types(&self) -> HashSet<String> {
        let mut found = HashSet::new();
        for node in &self.nodes {
            found.insert(node.op_type.clone());
        }
        for raw in &self.graph.node {
            if let Ok(node) = EditNode::decode(raw.as_slice()) {
                collect_subgraph_ops(&node, &mut found);
            }
        }
        found
    }

    /// The rewrites that would find something to rewrite in the model's graph, in `dmlrun fix`'s
    /// order: ONNX Runtime's own fused-Gemm bug and torch's Reshape first (one node each, exact),
    /// then the decompositions (which replace a kernel with primitives).
    pub fn applicable_rewrites(&self) -> Vec<Rewrite> {
        Graph::rewrites_fitting(&self.nodes)
    }

    /// The rewrites that would find something to rewrite among `nodes` (a run of the model's
    /// nodes, as `reduce` keeps one), in the order of [`Graph::applicable_rewrites`].
    pub fn rewrites_fitting(nodes: &[super::Node]) -> Vec<Rewrite> {
        let nodes: Vec<EditNode> = nodes.iter().filter_map(|node| EditNode::decode(node.raw.as_slice()).ok()).collect();
        [Rewrite::GemmZeroBias, Rewrite::ReshapeAllowzeroOff]
            .into_iter()
            .chain(Decomposable::ALL.map(Rewrite::Decompose))
            .filter(|rewrite| nodes.iter().any(|node| rewrite.matches(node)))
            .collect()
    }

    /// The model with `rewrites` applied. A rewrite that finds nothing to rewrite is an error
    /// naming the operator: a flag that changes nothing would say something untrue.
    pub fn rewrite(&self, rewrites: &[Rewrite]) -> Result<(Vec<u8>, RewriteSummary)> {
        let opset = self.opsets.get("ai.onnx").copied();
        let mut writer = Writer {
            rewrites,
            opset: opset.unwrap_or(17),
            ranks: self.known_ranks(),
            taken: self.names_in_use(),
            counter: 0,
            summary: RewriteSummary::default(),
        };
        let mut graph = self.graph.clone();
        graph.node = self.nodes.iter().map(|n| n.raw.clone()).collect();
        graph.initializer = graph.initializer.iter().map(|raw| self.inline_external(raw)).collect::<Result<_>>()?;
        let graph = writer.graph(graph)?;
        for rewrite in rewrites {
            if !writer.summary.rewritten.contains_key(&rewrite.flag()) {
                match rewrite {
                    Rewrite::GemmZeroBias if self.op_types().contains("Gemm") => {
                        bail!("--gemm-zero-bias: every Gemm of the model has its bias already")
                    }
                    Rewrite::ReshapeAllowzeroOff => bail!(
                        "--reshape-allowzero-off: no Reshape of the model has allowzero=1 and a constant shape without a zero"
                    ),
                    _ => bail!("{}: the model has no {} node", rewrite.flag(), rewrite.op_type()),
                }
            }
        }
        let mut model = self.model.clone();
        // The primitives are default-domain ops: a model that imports no default opset gets one.
        if opset.is_none() {
            model.opset_import.push(OpsetView { domain: Some(String::new()), version: Some(17) }.encode_to_vec());
        }
        model.graph = Some(graph.encode_to_vec());
        Ok((model.encode_to_vec(), writer.summary))
    }

    /// The rank of every tensor the model declares one for (inputs, outputs, value infos).
    fn known_ranks(&self) -> HashMap<String, usize> {
        self.graph
            .input
            .iter()
            .chain(&self.graph.value_info)
            .chain(&self.graph.output)
            .filter_map(|raw| ValueInfoProto::decode(raw.as_slice()).ok())
            .filter_map(|v| {
                let shape = v.r#type?.tensor_type?.shape?;
                Some((v.name?, shape.dim.len()))
            })
            .collect()
    }

    fn names_in_use(&self) -> HashSet<String> {
        let mut taken: HashSet<String> = self.inputs.iter().chain(&self.outputs).cloned().collect();
        taken.extend(self.initializers.keys().cloned());
        for node in &self.nodes {
            taken.extend(node.inputs.iter().chain(&node.outputs).cloned());
            taken.insert(node.name.clone());
        }
        taken
    }
}

fn collect_subgraph_ops(node: &EditNode, found: &mut HashSet<String>) {
    for attribute in &node.attribute {
        for g in attribute.g.iter().chain(&attribute.graphs) {
            let Ok(graph) = RawGraph::decode(g.as_slice()) else { continue };
            for raw in &graph.node {
                if let Ok(inner) = EditNode::decode(raw.as_slice()) {
                    found.insert(inner.op_type.clone().unwrap_or_default());
                    collect_subgraph_ops(&inner, found);
                }
            }
        }
    }
}

/// Writes the rewritten graph, node by node, subgraphs first.
struct Writer<'a> {
    rewrites: &'a [Rewrite],
    /// The model's default-domain opset: ReduceMean takes its axes as an input from 18.
    opset: i64,
    ranks: HashMap<String, usize>,
    taken: HashSet<String>,
    counter: usize,
    summary: RewriteSummary,
}

impl Writer<'_> {
    fn graph(&mut self, mut graph: RawGraph) -> Result<RawGraph> {
        let mut nodes = Vec::with_capacity(graph.node.len());
        for (index, raw) in graph.node.iter().enumerate() {
            let mut node = EditNode::decode(raw.as_slice()).with_context(|| format!("node {index}"))?;
            for attribute in &mut node.attribute {
                if let Some(g) = &attribute.g {
                    attribute.g = Some(self.subgraph(g)?);
                }
                for g in &mut attribute.graphs {
                    *g = self.subgraph(g)?;
                }
            }
            let rewrite = self.rewrites.iter().copied().find(|r| r.matches(&node));
            // allowzero changes nothing where the shape holds no zero: only such a Reshape is
            // rewritten, one whose shape is a constant of its graph.
            let rewrite = rewrite
                .filter(|r| *r != Rewrite::ReshapeAllowzeroOff || reshape_allowzero::shape_has_no_zero(&node, &graph));
            let Some(rewrite) = rewrite else {
                nodes.push(node.encode_to_vec());
                continue;
            };
            let name = match node.name.as_deref() {
                Some(n) if !n.is_empty() => n.to_string(),
                _ => format!("#{index} ({})", rewrite.op_type()),
            };
            let written = {
                let mut built = Built::new(self, &name);
                match rewrite {
                    Rewrite::GemmZeroBias => built.gemm_zero_bias(&node, &graph),
                    Rewrite::ReshapeAllowzeroOff => built.reshape_allowzero_off(&node),
                    Rewrite::Decompose(op) => built.decompose(op, &node),
                }
                .with_context(|| format!("{} '{name}'", rewrite.flag()))?;
                built.nodes
            };
            self.summary.nodes_added += written.len();
            nodes.extend(written.iter().map(Message::encode_to_vec));
            self.summary.rewritten.entry(rewrite.flag()).or_default().push(name);
        }
        graph.node = nodes;
        // The value infos typed the nodes replaced; ONNX Runtime infers the new ones'.
        if !self.summary.rewritten.is_empty() {
            graph.value_info.clear();
        }
        Ok(graph)
    }

    fn subgraph(&mut self, bytes: &[u8]) -> Result<Vec<u8>> {
        let graph = RawGraph::decode(bytes).context("a subgraph")?;
        Ok(self.graph(graph)?.encode_to_vec())
    }

    fn fresh(&mut self, base: &str) -> String {
        loop {
            self.counter += 1;
            let name = format!("{base}/dmlrun_rewrite_{}", self.counter);
            if self.taken.insert(name.clone()) {
                return name;
            }
        }
    }
}

/// The nodes that replace one node.
struct Built<'w, 'a> {
    writer: &'w mut Writer<'a>,
    base: String,
    nodes: Vec<EditNode>,
}

impl<'w, 'a> Built<'w, 'a> {
    fn new(writer: &'w mut Writer<'a>, base: &str) -> Built<'w, 'a> {
        Built { writer, base: base.to_string(), nodes: Vec::new() }
    }

    /// Adds `op(inputs)` writing `output` (a fresh name when `None`); returns the output's name.
    fn op(&mut self, op: &str, inputs: &[&str], output: Option<&str>, attribute: Vec<EditAttribute>) -> String {
        let output = match output {
            Some(name) => name.to_string(),
            None => self.writer.fresh(&self.base),
        };
        let name = self.writer.fresh(&self.base);
        self.nodes.push(EditNode {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![output.clone()],
            name: Some(name),
            op_type: Some(op.to_string()),
            attribute,
            ..EditNode::default()
        });
        output
    }

    fn constant(&mut self, data_type: i32, dims: &[i64], raw: Vec<u8>) -> String {
        let tensor =
            EditTensor { dims: dims.to_vec(), data_type: Some(data_type), raw_data: Some(raw), ..Default::default() };
        let value = EditAttribute {
            name: Some("value".into()),
            t: Some(tensor.encode_to_vec()),
            r#type: Some(ATTRIBUTE_TENSOR),
            ..Default::default()
        };
        self.op("Constant", &[], None, vec![value])
    }

    fn float_scalar(&mut self, value: f32) -> String {
        self.constant(FLOAT, &[], value.to_le_bytes().to_vec())
    }

    fn cast_to_float(&mut self, input: &str) -> String {
        self.op("Cast", &[input], None, vec![int_attribute("to", FLOAT as i64)])
    }
}

fn int_attribute(name: &str, value: i64) -> EditAttribute {
    EditAttribute { name: Some(name.into()), i: Some(value), r#type: Some(ATTRIBUTE_INT), ..Default::default() }
}

fn ints_attribute(name: &str, values: &[i64]) -> EditAttribute {
    EditAttribute { name: Some(name.into()), ints: values.to_vec(), r#type: Some(ATTRIBUTE_INTS), ..Default::default() }
}

fn int_of(node: &EditNode, name: &str) -> Option<i64> {
    node.attribute.iter().find(|a| a.name.as_deref() == Some(name)).and_then(|a| a.i)
}

fn float_of(node: &EditNode, name: &str) -> Option<f32> {
    node.attribute.iter().find(|a| a.name.as_deref() == Some(name)).and_then(|a| a.f)
}
