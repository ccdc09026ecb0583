//! Verified graph rewrites: each rule, one file here, names what it changes and builds the nodes
//! that replace it; the engine runs the rewritten model beside the original on the reference EP
//! and reports how far apart they are (`engine::rewrite`).
//!
//! - `rule.rs`: what a rule is; [`RULES`] below lists them, one file each:
//!   `if_inlined` (`--inline-if`), `gemm_zero_bias` (`--gemm-zero-bias`), `reshape_allowzero` (`--reshape-allowzero-off`),
//!   `binary_as_reduce` (`--binary-as-reduce`),
//!   `gather_dequantized` (`--dequantize-gather`), `matmul_nbits_inputs` (`--matmulnbits-bias-add`,
//!   `--matmulnbits-drop-g-idx`), `matmul_nbits_dequantized` (`--dequantize-matmulnbits`), `qdq_pair_dropped` (`--drop-qdq-pair`);
//!   and the speed rules `tune` measures (`Purpose::Speed`): `matmul_as_mul_reducesum`
//!   (`--matmul-as-mul-reducesum`), `matmul_siblings_fused` (`--fuse-sibling-matmuls`),
//!   `matmul_nbits_accuracy` (`--matmulnbits-accuracy-level`);
//! - `decompose`: `--decompose OP`, a normalisation or Gelu as primitive ONNX ops (a rule with a
//!   value: the operator).
//!
//! This file holds what they share: the rewrite asked for and its summary, and the helpers the
//! rules read a graph with; `writer.rs` the walk over the graph that finds each node a rule fits
//! (`Writer`) and the nodes written in its place (`Built`). Nodes in subgraphs (`If`, `Loop`, `Scan` bodies) are rewritten too. Constants are
//! written as `Constant` nodes beside the nodes that read them, so a rewritten subgraph stands
//! alone.

mod binary_as_reduce;
mod declared;
mod decompose;
mod gather_dequantized;
mod gemm_zero_bias;
mod if_inlined;
mod matmul_as_mul_reducesum;
mod matmul_nbits_accuracy;
mod matmul_nbits_dequantized;
mod matmul_nbits_inputs;
mod matmul_siblings_fused;
mod qdq_pair_dropped;
mod reshape_allowzero;
mod rule;
mod writer;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};

use anyhow::{bail, Context, Result};
use prost::Message;
use serde::{Deserialize, Serialize};

pub use declared::{Declared, Dim, InferredShapes};
pub use decompose::Decomposable;
pub use rule::{Purpose, Rule, Scope};
pub use writer::Built;
use writer::Writer;

use super::Graph;
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::external::ExternalReader;
use crate::formats::onnx_proto::lossless::{EditAttribute, EditNode, EditTensor, OpsetView, RawGraph, TensorName};

/// TensorProto.DataType values the rewrites write.
const FLOAT: i32 = 1;
const INT64: i32 = 7;
/// AttributeProto.AttributeType values the rewrites write.
const ATTRIBUTE_FLOAT: i32 = 1;
const ATTRIBUTE_INT: i32 = 2;
const ATTRIBUTE_TENSOR: i32 = 4;
const ATTRIBUTE_INTS: i32 = 7;

/// Every rule, in the order `fix` tries them (the exact ones first; `--decompose` comes after
/// them all, since it replaces a kernel with primitives).
pub static RULES: &[&dyn Rule] = &[
    &if_inlined::IfInlined,
    &gemm_zero_bias::GemmZeroBias,
    &reshape_allowzero::ReshapeAllowzeroOff,
    &binary_as_reduce::BinaryAsReduce,
    &gather_dequantized::GatherDequantized,
    &matmul_nbits_inputs::MatMulNBitsBiasAdd,
    &matmul_nbits_inputs::MatMulNBitsDropGIdx,
    &matmul_nbits_dequantized::MatMulNBitsDequantized,
    &qdq_pair_dropped::QdqPairDropped,
    &matmul_as_mul_reducesum::MatMulAsMulReduceSum,
    &matmul_siblings_fused::MatMulSiblingsFused,
    &matmul_nbits_accuracy::MatMulNBitsAccuracyLevel,
];

/// A rule of [`RULES`], by its place in the list (which is the order `fix` tries them in).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(usize);

impl RuleId {
    pub fn rule(self) -> &'static dyn Rule {
        RULES[self.0]
    }

    /// Every rule, in the list's order.
    pub fn all() -> impl Iterator<Item = RuleId> {
        (0..RULES.len()).map(RuleId)
    }

    /// The rule whose flag is `flag` (`gemm-zero-bias`).
    pub fn of_flag(flag: &str) -> Option<RuleId> {
        RULES.iter().position(|r| r.flag() == flag).map(RuleId)
    }

    /// Its name in JSON: the flag with `_` for `-`.
    fn json_name(self) -> String {
        self.rule().flag().replace('-', "_")
    }
}

impl std::fmt::Debug for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "--{}", self.rule().flag())
    }
}

/// One rewrite the user asked for. In JSON, a rule by its name (`"gemm_zero_bias"`), a
/// decomposition as `{"decompose": "LayerNormalization"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rewrite {
    Rule(RuleId),
    Decompose(Decomposable),
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum RewriteJson {
    Rule(String),
    Decompose { decompose: Decomposable },
}

impl Serialize for Rewrite {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match *self {
            Rewrite::Rule(id) => RewriteJson::Rule(id.json_name()),
            Rewrite::Decompose(decompose) => RewriteJson::Decompose { decompose },
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Rewrite {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        match RewriteJson::deserialize(deserializer)? {
            RewriteJson::Decompose { decompose } => Ok(Rewrite::Decompose(decompose)),
            RewriteJson::Rule(name) => RuleId::all()
                .find(|id| id.json_name() == name)
                .map(Rewrite::Rule)
                .ok_or_else(|| serde::de::Error::custom(format!("no rewrite is named '{name}'"))),
        }
    }
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
            Rewrite::Rule(id) => vec![format!("--{}", id.rule().flag())],
        }
    }

    /// The operator type it rewrites.
    pub fn op_type(self) -> &'static str {
        match self {
            Rewrite::Decompose(op) => op.op_type(),
            Rewrite::Rule(id) => id.rule().op_type(),
        }
    }

    /// Whether it fits `node` (where it fits at all is what `info`, `reduce`, `fix` and the plan
    /// ask).
    /// What it is for: `--decompose` is a remedy.
    pub fn purpose(self) -> Purpose {
        match self {
            Rewrite::Decompose(_) => Purpose::Remedy,
            Rewrite::Rule(id) => id.rule().purpose(),
        }
    }

    /// Whether `tune` tries it (`--decompose` is a remedy alone).
    pub fn tried_by_tune(self) -> bool {
        match self {
            Rewrite::Decompose(_) => false,
            Rewrite::Rule(id) => id.rule().tried_by_tune(),
        }
    }

    /// Whether it reads the run's `If` conditions (see [`Rule::reads_conditions`]).
    pub fn reads_conditions(self) -> bool {
        match self {
            Rewrite::Decompose(_) => false,
            Rewrite::Rule(id) => id.rule().reads_conditions(),
        }
    }

    /// Whether its form is for one row (see [`Rule::for_one_row`]).
    pub fn for_one_row(self) -> bool {
        match self {
            Rewrite::Decompose(_) => false,
            Rewrite::Rule(id) => id.rule().for_one_row(),
        }
    }

    /// Whether it reads tensors' shapes (see [`Rule::reads_shapes`]).
    pub fn reads_shapes(self) -> bool {
        match self {
            Rewrite::Decompose(_) => false,
            Rewrite::Rule(id) => id.rule().reads_shapes(),
        }
    }

    pub fn fits(self, node: &NodeOutline, graph: &[NodeOutline]) -> bool {
        match self {
            Rewrite::Decompose(d) => node.op_type == d.op_type(),
            Rewrite::Rule(id) => id.rule().fits(node, graph),
        }
    }

    /// What a model lacks that it fits nowhere: `Gemm without a bias`, `LayerNormalization node`.
    pub fn what_it_fits(self) -> String {
        match self {
            Rewrite::Decompose(op) => format!("{op} node"),
            Rewrite::Rule(id) => id.rule().what_it_fits().to_string(),
        }
    }

    /// Every rewrite there is, in `fix`'s order: the rules, then the decompositions.
    pub fn all() -> impl Iterator<Item = Rewrite> {
        RuleId::all().map(Rewrite::Rule).chain(Decomposable::ALL.map(Rewrite::Decompose))
    }

    fn rewrites_in(self, node: &EditNode, graph: &Scope<'_>) -> bool {
        match self {
            Rewrite::Decompose(_) => true,
            Rewrite::Rule(id) => id.rule().rewrites_in(node, graph),
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
    /// Bytes of the constants of 1 KiB or more they wrote (a dequantized table or weight): what
    /// the rewrite costs in memory, before what it dropped.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub constant_bytes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl RewriteSummary {
    /// This and `later` (a second pass over what this one wrote) as one summary.
    pub fn merged(mut self, later: RewriteSummary) -> RewriteSummary {
        for (flag, nodes) in later.rewritten {
            self.rewritten.entry(flag).or_default().extend(nodes);
        }
        self.nodes_added += later.nodes_added;
        self.constant_bytes += later.constant_bytes;
        self
    }

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
        let constants = match self.constant_bytes {
            0 => String::new(),
            b if b < 1 << 20 => format!(", {:.1} KiB of constants written", b as f64 / 1024.0),
            b => format!(", {:.1} MiB of constants written", b as f64 / (1024.0 * 1024.0)),
        };
        format!("{}, {} nodes in their place{constants}", parts.join("; "), self.nodes_added)
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
        // Found by walking the graph as the rewrite would, subgraphs and all: a rule may fit a
        // node it cannot rewrite there (a shape the model does not declare, a shape that is
        // computed), and a remedy that would rewrite nothing is no remedy.
        let remedies: Vec<Rewrite> = Rewrite::all().filter(|r| r.purpose() == Purpose::Remedy).collect();
        match self.walk(&remedies, true) {
            Ok((_, summary)) => remedies.into_iter().filter(|r| summary.rewritten.contains_key(&r.flag())).collect(),
            Err(_) => Graph::rewrites_fitting(&self.nodes),
        }
    }

    /// The rules tune tries that would find something to rewrite in the model: its candidates.
    pub fn speedups_fitting(&self) -> Vec<Rewrite> {
        let nodes: Vec<NodeOutline> = self.outlines();
        Rewrite::all().filter(|r| r.tried_by_tune() && nodes.iter().any(|node| r.fits(node, &nodes))).collect()
    }

    fn outlines(&self) -> Vec<NodeOutline> {
        self.nodes
            .iter()
            .filter_map(|node| EditNode::decode(node.raw.as_slice()).ok())
            .map(|n| NodeOutline::of(&n))
            .collect()
    }

    /// The rewrites that would find something to rewrite among `nodes` (a run of the model's
    /// nodes, as `reduce` keeps one), in the order of [`Graph::applicable_rewrites`].
    pub fn rewrites_fitting(nodes: &[super::Node]) -> Vec<Rewrite> {
        let nodes: Vec<NodeOutline> = nodes
            .iter()
            .filter_map(|node| EditNode::decode(node.raw.as_slice()).ok())
            .map(|node| NodeOutline::of(&node))
            .collect();
        Rewrite::all()
            .filter(|rewrite| {
                rewrite.purpose() == Purpose::Remedy && nodes.iter().any(|node| rewrite.fits(node, &nodes))
            })
            .collect()
    }

    /// The model with `rewrites` applied. A rewrite that finds nothing to rewrite is an error
    /// naming the operator: a flag that changes nothing would say something untrue. Tensors in
    /// external data stay there (the model returned names the files relative to the original's
    /// folder, for `onnx_proto::write_model_from`): a rule reads the one tensor it needs.
    pub fn rewrite(&self, rewrites: &[Rewrite]) -> Result<(Vec<u8>, RewriteSummary)> {
        let opset = self.opsets.get("ai.onnx").copied();
        let (graph, summary) = self.walk(rewrites, false)?;
        for rewrite in rewrites {
            if !summary.rewritten.contains_key(&rewrite.flag()) {
                match rewrite {
                    Rewrite::Rule(id) => bail!("{}: {}", rewrite.flag(), id.rule().nothing_rewritten(&self.op_types())),
                    Rewrite::Decompose(op) => bail!("{}: the model has no {op} node", rewrite.flag()),
                }
            }
        }
        let mut model = self.model.clone();
        // The primitives are default-domain ops: a model that imports no default opset gets one.
        if opset.is_none() {
            model.opset_import.push(OpsetView { domain: Some(String::new()), version: Some(17) }.encode_to_vec());
        }
        model.graph = Some(graph.encode_to_vec());
        Ok((model.encode_to_vec(), summary))
    }

    /// The graph with `rewrites` applied and what was rewritten; `dry`, only what would be.
    fn walk(&self, rewrites: &[Rewrite], dry: bool) -> Result<(RawGraph, RewriteSummary)> {
        let mut writer = Writer {
            rewrites,
            opset: self.opsets.get("ai.onnx").copied().unwrap_or(17),
            declared: std::rc::Rc::new(declared::of_graph(&self.graph, &HashMap::new(), &self.inferred)),
            inferred: &self.inferred,
            decided: &self.decided,
            taken: self.names_in_use(),
            counter: 0,
            summary: RewriteSummary::default(),
            dry,
        };
        let mut graph = self.graph.clone();
        graph.node = self.nodes.iter().map(|n| n.raw.clone()).collect();
        let external = RefCell::new(ExternalReader::new(&self.folder));
        let graph = writer.graph(graph, &external)?;
        Ok((graph, writer.summary))
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

/// Drops from `graph` the nodes and initializers that made only `unread` values (the inputs of the
/// nodes a rule replaced) which nothing reads now, and, in turn, what made only theirs.
fn drop_unread(graph: &mut RawGraph, mut unread: HashSet<String>) {
    let interface: HashSet<String> = graph
        .input
        .iter()
        .chain(&graph.output)
        .filter_map(|raw| crate::formats::onnx_proto::lossless::ValueName::decode(raw.as_slice()).ok()?.name)
        .collect();
    loop {
        let read = names_read(&graph.node);
        let dead = |name: &String| unread.contains(name) && !read.contains(name) && !interface.contains(name);
        let mut dropped = Vec::new();
        graph.node.retain(|raw| match EditNode::decode(raw.as_slice()) {
            Ok(node) if !node.output.is_empty() && node.output.iter().all(|o| o.is_empty() || dead(o)) => {
                dropped.extend(node.input);
                false
            }
            _ => true,
        });
        if dropped.is_empty() {
            break;
        }
        unread.extend(dropped);
    }
    let read = names_read(&graph.node);
    graph.initializer.retain(|raw| match TensorName::decode(raw.as_slice()).ok().and_then(|t| t.name) {
        Some(name) => !unread.contains(&name) || read.contains(&name) || interface.contains(&name),
        None => true,
    });
}

/// Every name the nodes read, their subgraphs' nodes included.
fn names_read(nodes: &[Vec<u8>]) -> HashSet<String> {
    let mut read = HashSet::new();
    for raw in nodes {
        let Ok(node) = EditNode::decode(raw.as_slice()) else { continue };
        read.extend(node.input.iter().cloned());
        for attribute in &node.attribute {
            for g in attribute.g.iter().chain(&attribute.graphs) {
                if let Ok(graph) = RawGraph::decode(g.as_slice()) {
                    read.extend(names_read(&graph.node));
                }
            }
        }
    }
    read
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

/// The initializer of `graph` named `name`, whole (the others read for their names alone), its
/// data in `raw_data` wherever the model keeps it.
fn initializer(graph: &Scope<'_>, name: &str) -> Result<EditTensor> {
    let raw = graph
        .initializer
        .iter()
        .find(|raw| TensorName::decode(raw.as_slice()).is_ok_and(|t| t.name.as_deref() == Some(name)))
        .with_context(|| format!("'{name}' is not an initializer of its graph"))?;
    let tensor = EditTensor::decode(raw.as_slice()).with_context(|| format!("initializer '{name}'"))?;
    graph.external.borrow_mut().inline(tensor)
}

/// The int64 values of `name` where it is an initializer of `graph` or a `Constant` node's output
/// there (a shape).
fn constant_ints(graph: &Scope<'_>, name: &str) -> Option<Vec<i64>> {
    let tensor = match initializer(graph, name) {
        Ok(tensor) => tensor,
        Err(_) => {
            let node =
                graph.node.iter().filter_map(|raw| EditNode::decode(raw.as_slice()).ok()).find(|n| {
                    n.op_type.as_deref() == Some("Constant") && n.output.first().is_some_and(|o| o == name)
                })?;
            let value = node.attribute.iter().find(|a| a.name.as_deref() == Some("value"))?;
            EditTensor::decode(value.t.as_deref()?).ok()?
        }
    };
    if tensor.data_type != Some(INT64) {
        return None;
    }
    match &tensor.raw_data {
        Some(raw) => Some(raw.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default())).collect()),
        None => Some(tensor.int64_data.clone()),
    }
}

fn is_initializer(graph: &Scope<'_>, name: &str) -> bool {
    graph
        .initializer
        .iter()
        .any(|raw| TensorName::decode(raw.as_slice()).is_ok_and(|t| t.name.as_deref() == Some(name)))
}

fn float_attribute(name: &str, value: f32) -> EditAttribute {
    EditAttribute { name: Some(name.into()), f: Some(value), r#type: Some(ATTRIBUTE_FLOAT), ..Default::default() }
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
