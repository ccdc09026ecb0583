//! ONNX graph surgery for the diagnosis (`dmlrun reduce`): a model read with every field kept,
//! its nodes in topological order with what each reads and writes, and two edits, each written
//! as a new model:
//!
//! - [`Graph::with_outputs`]: the same model with more tensors as graph outputs (intermediate
//!   tensors exposed, to take a reference run's values of them);
//! - [`Graph::extract`]: a contiguous run of nodes as a model of its own, the tensors it takes
//!   from outside (but initializers) becoming graph inputs of the shapes and types given, so a
//!   reference run's values can be fed to them. Initializers stored in external files are read
//!   into the new model, which stands alone in any folder.

mod float16;
pub mod quantize;
mod rewrite;

pub use float16::Conversion;
pub use quantize::{describe_accuracy_level, quantize_model, Blockwise, Quantization, WeightOnly};
pub use rewrite::{Decomposable, InferredShapes, Rewrite, RewriteSummary, Rule, RuleId, RULES};

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use prost::Message;

use crate::formats::onnx_proto::lossless::{
    EditAttribute, EditNode, OpsetView, RawGraph, RawModel, SubgraphView, TensorName, ValueName,
};
use crate::formats::onnx_proto::ValueInfoProto;
use crate::tensor::DType;

/// One node of the main graph, in topological order.
#[derive(Debug, Clone)]
pub struct Node {
    /// Its place in the topological order.
    pub index: usize,
    /// Its name, or `#INDEX (OP)` for an unnamed node.
    pub name: String,
    pub op_type: String,
    /// `ai.onnx` for the default domain.
    pub domain: String,
    /// Its inputs, `""` for an optional input left out.
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    /// Names its subgraphs read from the enclosing scope.
    pub outer_inputs: Vec<String>,
    /// Its attributes as `name=value`, subgraphs as `name=<graph of N nodes>`.
    pub attributes: Vec<String>,
    raw: Vec<u8>,
}

impl Node {
    /// Every tensor it reads: inputs and the outer-scope names of its subgraphs.
    pub fn reads(&self) -> impl Iterator<Item = &str> {
        self.inputs.iter().chain(&self.outer_inputs).map(String::as_str).filter(|n| !n.is_empty())
    }

    /// `Mul 'Mul@0'`, or `Mul #3` for an unnamed node.
    pub fn label(&self) -> String {
        format!("{} '{}'", self.op_type, self.name)
    }
}

/// A tensor given to an extracted model as a graph input: its element type and shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorType {
    pub dtype: DType,
    pub shape: Vec<usize>,
}

/// A model read for surgery.
pub struct Graph {
    model: RawModel,
    graph: RawGraph,
    nodes: Vec<Node>,
    /// Initializer name -> its encoded `TensorProto`, external data read in.
    initializers: HashMap<String, Vec<u8>>,
    /// Names of the graph inputs that are not initializers: what a run must feed.
    inputs: Vec<String>,
    outputs: Vec<String>,
    opsets: BTreeMap<String, i64>,
    folder: PathBuf,
    /// The file it was read from, for what is said of it (empty for bytes given).
    source: PathBuf,
    /// The external data files, read a tensor at a time (see `inline_external`).
    external: std::cell::RefCell<crate::formats::onnx_proto::external::ExternalReader>,
    /// Shapes ONNX Runtime inferred where the model declares less (none until `with_inferred`).
    inferred: InferredShapes,
    /// The `If` conditions a run of the model's inputs decided (none until `with_decided`).
    decided: HashMap<String, bool>,
}

impl Graph {
    /// Reads the model at `path` (and its external data, when the surgery needs it).
    pub fn read(path: &Path) -> Result<Graph> {
        let bytes = crate::formats::model::read_model_bytes(path)?;
        let folder = path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let mut graph = Graph::from_bytes(&bytes, &folder).with_context(|| format!("model {}", path.display()))?;
        graph.source = path.to_path_buf();
        Ok(graph)
    }

    /// A model's bytes; `folder` is where its external data files are.
    pub fn from_bytes(bytes: &[u8], folder: &Path) -> Result<Graph> {
        let mut model = RawModel::decode(bytes).context("not an ONNX model (protobuf)")?;
        let graph_bytes = model.graph.take().context("the model has no graph")?;
        let graph = RawGraph::decode(graph_bytes.as_slice()).context("the model's graph is not valid protobuf")?;
        let opsets = model
            .opset_import
            .iter()
            .filter_map(|o| OpsetView::decode(o.as_slice()).ok())
            .map(|o| (domain_name(o.domain.as_deref()), o.version.unwrap_or(0)))
            .collect();
        let mut initializers = HashMap::new();
        for raw in &graph.initializer {
            let name = TensorName::decode(raw.as_slice()).context("an initializer")?.name.unwrap_or_default();
            initializers.insert(name, raw.clone());
        }
        let names = |list: &[Vec<u8>]| -> Result<Vec<String>> {
            list.iter().map(|v| Ok(ValueName::decode(v.as_slice())?.name.unwrap_or_default())).collect()
        };
        let inputs = names(&graph.input)?.into_iter().filter(|n| !initializers.contains_key(n)).collect();
        let outputs = names(&graph.output)?;
        let mut nodes = Vec::with_capacity(graph.node.len());
        for (i, raw) in graph.node.iter().enumerate() {
            let node = EditNode::decode(raw.as_slice()).map_err(anyhow::Error::from);
            nodes.push(node.and_then(|node| node_of(i, node, raw.clone())).with_context(|| format!("node {i}"))?);
        }
        let nodes = topological_order(nodes)?;
        let source = PathBuf::new();
        Ok(Graph {
            model,
            graph,
            nodes,
            initializers,
            inputs,
            outputs,
            opsets,
            folder: folder.to_path_buf(),
            source,
            external: std::cell::RefCell::new(crate::formats::onnx_proto::external::ExternalReader::new(folder)),
            inferred: InferredShapes::default(),
            decided: HashMap::new(),
        })
    }

    /// The file the model was read from.
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// The value of a one-element float initializer (a quantization scale), where `name` is one.
    pub fn scalar(&self, name: &str) -> Option<f64> {
        let raw = self.inline_external(self.initializers.get(name)?).ok()?;
        let tensor = crate::formats::onnx_proto::lossless::EditTensor::decode(raw.as_slice()).ok()?;
        if tensor.dims.iter().product::<i64>() != 1 {
            return None;
        }
        let bytes = tensor.raw_data.unwrap_or_default();
        match tensor.data_type? {
            1 => Some(f64::from(match bytes.get(..4) {
                Some(b) => f32::from_le_bytes(b.try_into().ok()?),
                None => *tensor.float_data.first()?,
            })),
            10 => Some(f64::from(match bytes.get(..2) {
                Some(b) => half::f16::from_le_bytes(b.try_into().ok()?),
                None => half::f16::from_bits(*tensor.int32_data.first()? as u16),
            })),
            11 => match bytes.get(..8) {
                Some(b) => Some(f64::from_le_bytes(b.try_into().ok()?)),
                None => tensor.double_data.first().copied(),
            },
            _ => None,
        }
    }

    /// The folder its external data files are named relative to.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The graph inputs a run feeds (initializers listed as inputs excluded).
    pub fn inputs(&self) -> &[String] {
        &self.inputs
    }

    pub fn outputs(&self) -> &[String] {
        &self.outputs
    }

    pub fn is_initializer(&self, name: &str) -> bool {
        self.initializers.contains_key(name)
    }

    /// The opset version the node's domain is imported at.
    pub fn opset(&self, node: &Node) -> Option<i64> {
        self.opsets.get(&node.domain).copied()
    }

    /// The graph whose `--inline-if` reads these conditions (a name and the value a run gave it).
    pub fn with_decided(mut self, decided: HashMap<String, bool>) -> Graph {
        self.decided = decided;
        self
    }

    /// The conditions of the main graph's `If` nodes: what a run decides for `--inline-if`.
    pub fn if_conditions(&self) -> Vec<String> {
        let conditions = self.nodes.iter().filter(|n| n.op_type == "If").filter_map(|n| n.inputs.first());
        conditions.filter(|c| !c.is_empty()).cloned().collect()
    }

    /// The node named `name` (or labelled so, for an unnamed one).
    pub fn node_named(&self, name: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// Every tensor a node writes and another reads, in topological order: what a reference run
    /// can expose.
    pub fn intermediate_tensors(&self) -> Vec<String> {
        let outputs: HashSet<&str> = self.outputs.iter().map(String::as_str).collect();
        let read = self.read_tensors();
        self.nodes
            .iter()
            .flat_map(|n| &n.outputs)
            .filter(|o| !o.is_empty() && !outputs.contains(o.as_str()) && read.contains(o.as_str()))
            .cloned()
            .collect()
    }

    /// Every tensor some node reads (a subgraph's outer-scope reads included).
    fn read_tensors(&self) -> HashSet<&str> {
        self.nodes.iter().flat_map(|n| n.reads()).collect()
    }

    /// The model with `extra` tensors added to its graph outputs (after the model's own), as
    /// ONNX Runtime accepts them: by name, their types inferred.
    pub fn with_outputs(&self, extra: &[String]) -> Result<Vec<u8>> {
        self.exposing(extra, true)
    }

    /// As [`Graph::with_outputs`], the initializers kept as the model holds them: a tensor in
    /// external data stays a reference to its file, so the model must be written in this model's
    /// folder; a model past protobuf's 2 GiB (ViT-H/14, Stable Diffusion's UNet) fits so.
    pub fn with_outputs_beside(&self, extra: &[String]) -> Result<Vec<u8>> {
        self.exposing(extra, false)
    }

    /// Whether a tensor of the model is in an external data file.
    pub fn has_external_data(&self) -> bool {
        // The header alone: a tensor's payload is skipped, not copied.
        use crate::formats::onnx_proto::header::TensorHeader;
        self.graph
            .initializer
            .iter()
            .any(|raw| TensorHeader::decode(raw.as_slice()).is_ok_and(|t| t.data_location == Some(1)))
    }

    fn exposing(&self, extra: &[String], inline: bool) -> Result<Vec<u8>> {
        let mut graph = self.graph.clone();
        graph.node = self.nodes.iter().map(|n| n.raw.clone()).collect();
        let known: HashSet<&str> = self.outputs.iter().map(String::as_str).collect();
        // A node output nothing reads may never be written (an optional output such as
        // SkipSimplifiedLayerNormalization's mean): ONNX Runtime 1.24 hands back an empty value
        // for it, which cannot be read as a tensor. Only tensors that something reads are exposed.
        let read = self.read_tensors();
        graph.output.extend(
            extra.iter().filter(|n| !known.contains(n.as_str()) && read.contains(n.as_str())).map(|n| named_value(n)),
        );
        // External data read in: the model is written elsewhere than the original.
        if inline {
            graph.initializer = graph.initializer.iter().map(|raw| self.inline_external(raw)).collect::<Result<_>>()?;
        }
        self.encode(graph)
    }

    /// What the nodes in `range` read from outside it (graph inputs, or tensors earlier nodes
    /// write; initializers excluded), in order of first use.
    pub fn boundary_inputs(&self, range: &RangeInclusive<usize>) -> Vec<String> {
        let nodes = &self.nodes[range.clone()];
        let written: HashSet<&str> = nodes.iter().flat_map(|n| &n.outputs).map(String::as_str).collect();
        let mut seen = HashSet::new();
        nodes
            .iter()
            .flat_map(Node::reads)
            .filter(|name| !written.contains(name) && !self.initializers.contains_key(*name))
            .filter(|name| seen.insert(*name))
            .map(str::to_string)
            .collect()
    }

    /// What the nodes in `range` write that is read after it or is a model output; the last
    /// node's first output when nothing is (a range whose results are dropped).
    pub fn boundary_outputs(&self, range: &RangeInclusive<usize>) -> Vec<String> {
        let after: HashSet<&str> = self.nodes[range.end() + 1..].iter().flat_map(Node::reads).collect();
        let model_outputs: HashSet<&str> = self.outputs.iter().map(String::as_str).collect();
        let outputs: Vec<String> = self.nodes[range.clone()]
            .iter()
            .flat_map(|n| &n.outputs)
            .filter(|o| !o.is_empty() && (after.contains(o.as_str()) || model_outputs.contains(o.as_str())))
            .cloned()
            .collect();
        if outputs.is_empty() {
            return self.nodes[*range.end()].outputs.iter().filter(|o| !o.is_empty()).take(1).cloned().collect();
        }
        outputs
    }

    /// The nodes in `range` as a model of their own: [`Graph::boundary_inputs`] become graph
    /// inputs typed by `types`, [`Graph::boundary_outputs`] its outputs; the initializers they
    /// read come along, external data read in.
    pub fn extract(&self, range: &RangeInclusive<usize>, types: &HashMap<String, TensorType>) -> Result<Vec<u8>> {
        let nodes = &self.nodes[range.clone()];
        let mut graph = RawGraph {
            name: Some(format!(
                "{}_nodes_{}_to_{}",
                self.graph.name.as_deref().unwrap_or("graph"),
                range.start(),
                range.end()
            )),
            node: nodes.iter().map(|n| n.raw.clone()).collect(),
            // The original's inputs, outputs and value infos do not describe this boundary.
            ..RawGraph::default()
        };
        // A tensor only a subgraph reads keeps its rank and sizes free: ONNX Runtime infers every
        // branch's shapes at load, and the branch not taken may not fit the sizes of this run.
        let direct: HashSet<&str> = nodes.iter().flat_map(|n| &n.inputs).map(String::as_str).collect();
        for name in self.boundary_inputs(range) {
            let Some(t) = types.get(&name) else {
                bail!("no type and shape for '{name}', which the extracted nodes read")
            };
            graph.input.push(typed_value(&name, t, direct.contains(name.as_str())));
        }
        graph.output = self.boundary_outputs(range).iter().map(|n| named_value(n)).collect();
        let read: BTreeSet<&str> = nodes.iter().flat_map(Node::reads).collect();
        for name in read {
            if let Some(raw) = self.initializers.get(name) {
                graph.initializer.push(self.inline_external(raw)?);
            }
        }
        self.encode(graph)
    }

    fn encode(&self, graph: RawGraph) -> Result<Vec<u8>> {
        let mut model = self.model.clone();
        model.graph = Some(graph.encode_to_vec());
        let bytes = model.encode_to_vec();
        // protobuf's 2 GiB limit, which ONNX Runtime enforces when it parses.
        if bytes.len() >= (2usize << 30) {
            bail!("the model written would be {} bytes, over protobuf's 2 GiB", bytes.len());
        }
        Ok(bytes)
    }

    /// An initializer with its external data read into `raw_data`: the one tensor, from its file
    /// (opened once for the whole model), not the file whole.
    fn inline_external(&self, raw: &[u8]) -> Result<Vec<u8>> {
        let tensor = crate::formats::onnx_proto::lossless::EditTensor::decode(raw).context("an initializer")?;
        if tensor.data_location != Some(1) {
            return Ok(raw.to_vec());
        }
        Ok(self.external.borrow_mut().inline(tensor)?.encode_to_vec())
    }
}

fn domain_name(domain: Option<&str>) -> String {
    match domain {
        None | Some("") | Some("ai.onnx") => "ai.onnx".to_string(),
        Some(d) => d.to_string(),
    }
}

fn named_value(name: &str) -> Vec<u8> {
    ValueInfoProto { name: Some(name.to_string()), ..ValueInfoProto::default() }.encode_to_vec()
}

/// A graph input of `t`'s element type, with its shape when `with_shape`.
fn typed_value(name: &str, t: &TensorType, with_shape: bool) -> Vec<u8> {
    ValueInfoProto::tensor(name, t.dtype, with_shape.then_some(t.shape.as_slice())).encode_to_vec()
}

/// The surgery's node `index` read from its lossless decoding (and its bytes, kept to write it
/// back as it was).
fn node_of(index: usize, node: EditNode, raw: Vec<u8>) -> Result<Node> {
    let op_type = node.op_type.clone().unwrap_or_default();
    let name = match node.name.as_deref() {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => format!("#{index} ({op_type})"),
    };
    let (mut outer, mut attributes) = (Vec::new(), Vec::new());
    for a in &node.attribute {
        // Each subgraph decoded once: for the names it reads from outside, and its size.
        let subgraphs = a.subgraphs()?;
        for g in &subgraphs {
            outer_names(g, &mut Vec::new(), &mut outer)?;
        }
        attributes.push(attribute_text(a, &subgraphs));
    }
    let mut seen = HashSet::new();
    outer.retain(|n: &String| seen.insert(n.clone()));
    Ok(Node {
        index,
        name,
        op_type,
        domain: domain_name(node.domain.as_deref()),
        attributes,
        inputs: node.input,
        outputs: node.output,
        outer_inputs: outer,
        raw,
    })
}

/// The names `graph` (and the subgraphs inside it) reads that neither it nor an enclosing
/// subgraph (`scopes`) defines: what it takes from the main graph.
fn outer_names(graph: &SubgraphView, scopes: &mut Vec<HashSet<String>>, found: &mut Vec<String>) -> Result<()> {
    let mut defined: HashSet<String> = HashSet::new();
    defined.extend(graph.input.iter().filter_map(|v| v.name.clone()));
    defined.extend(graph.initializer.iter().filter_map(|t| t.name.clone()));
    defined.extend(graph.sparse_initializer.iter().filter_map(|s| s.values.as_ref()?.name.clone()));
    for node in &graph.node {
        defined.extend(node.output.iter().cloned());
    }
    scopes.push(defined);
    for node in &graph.node {
        for input in node.input.iter().filter(|i| !i.is_empty()) {
            if !scopes.iter().any(|s| s.contains(input)) {
                found.push(input.clone());
            }
        }
        for a in &node.attribute {
            for g in a.subgraphs()? {
                outer_names(&g, scopes, found)?;
            }
        }
    }
    scopes.pop();
    Ok(())
}

fn attribute_text(a: &EditAttribute, subgraphs: &[SubgraphView]) -> String {
    let name = a.name.as_deref().unwrap_or("?");
    let list = |v: Vec<String>| format!("[{}]", v.join(","));
    let value = match a.r#type.unwrap_or(0) {
        1 => a.f.unwrap_or_default().to_string(),
        2 => a.i.unwrap_or_default().to_string(),
        3 => format!("'{}'", String::from_utf8_lossy(a.s.as_deref().unwrap_or_default())),
        4 => "<tensor>".to_string(),
        5 => format!("<graph of {} nodes>", subgraphs.first().map_or(0, |g| g.node.len())),
        6 => list(a.floats.iter().map(f32::to_string).collect()),
        7 => list(a.ints.iter().map(i64::to_string).collect()),
        10 => format!("<{} graphs>", a.graphs.len()),
        _ => "<...>".to_string(),
    };
    format!("{name}={value}")
}

/// The nodes in an order where every node comes after the nodes whose outputs it reads: the
/// file's own order when it is one (ONNX requires it), otherwise Kahn's algorithm keeping the
/// file's order among the ready nodes.
fn topological_order(nodes: Vec<Node>) -> Result<Vec<Node>> {
    let producer: HashMap<&str, usize> =
        nodes.iter().enumerate().flat_map(|(i, n)| n.outputs.iter().map(move |o| (o.as_str(), i))).collect();
    let mut pending: Vec<usize> =
        nodes.iter().map(|n| n.reads().filter(|r| producer.contains_key(r)).count()).collect();
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for r in n.reads() {
            if let Some(&p) = producer.get(r) {
                readers[p].push(i);
            }
        }
    }
    let mut ready: BTreeSet<usize> = (0..nodes.len()).filter(|&i| pending[i] == 0).collect();
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &r in &readers[i] {
            pending[r] -= 1;
            if pending[r] == 0 {
                ready.insert(r);
            }
        }
    }
    if order.len() != nodes.len() {
        bail!("the graph has a cycle: {} of its {} nodes cannot be ordered", nodes.len() - order.len(), nodes.len());
    }
    let mut slots: Vec<Option<Node>> = nodes.into_iter().map(Some).collect();
    Ok(order
        .into_iter()
        .enumerate()
        .map(|(index, i)| Node { index, ..slots[i].take().expect("each node once") })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_nothing_reads_are_not_exposed() {
        // LayerNormalization's mean is named but read by nothing; its normalised output is read.
        let graph = Graph::read(Path::new("tests/models/unread_output.onnx")).unwrap();
        assert_eq!(graph.intermediate_tensors(), vec!["normed".to_string()]);
        let exposed = crate::formats::model::ModelInfo::from_bytes(
            &graph.with_outputs(&["normed".into(), "mean".into()]).unwrap(),
        )
        .unwrap()
        .outputs
        .into_iter()
        .map(|o| o.name)
        .collect::<Vec<_>>();
        assert_eq!(exposed, ["y", "normed"]);
    }
}
