//! The walk over a graph that finds each node a rule fits and writes the nodes that replace it
//! (`Writer`), and those nodes as a rule builds them (`Built`).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use anyhow::{Context, Result};
use prost::Message;

use super::{
    drop_unread, int_attribute, ints_attribute, Rewrite, RewriteSummary, Scope, ATTRIBUTE_TENSOR, FLOAT, INT64,
};
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::external::ExternalReader;
use crate::formats::onnx_proto::lossless::{EditAttribute, EditNode, EditTensor, RawGraph};

/// Writes the rewritten graph, node by node, subgraphs first.
pub(super) struct Writer<'a> {
    pub(super) rewrites: &'a [Rewrite],
    /// The model's default-domain opset: ReduceMean takes its axes as an input from 18.
    pub(super) opset: i64,
    /// What the model declares of its tensors (element types and shapes); while a subgraph is
    /// walked, its own declarations over its enclosing graphs'.
    pub(super) declared: std::rc::Rc<HashMap<String, super::Declared>>,
    /// The shapes ONNX Runtime inferred, over what each graph declares.
    pub(super) inferred: &'a super::InferredShapes,
    /// The `If` conditions a run decided.
    pub(super) decided: &'a HashMap<String, bool>,
    pub(super) taken: HashSet<String>,
    pub(super) counter: usize,
    pub(super) summary: RewriteSummary,
    /// Only find what would be rewritten: the summary names the nodes, the graph stays as it is.
    pub(super) dry: bool,
}

impl Writer<'_> {
    pub(super) fn graph(&mut self, mut graph: RawGraph, external: &RefCell<ExternalReader>) -> Result<RawGraph> {
        let mut nodes = Vec::with_capacity(graph.node.len());
        let mut replaced_inputs: HashSet<String> = HashSet::new();
        // Each node decoded once: a rule that reads a node's neighbours reads them in `outlines`.
        let decoded = (graph.node.iter().enumerate())
            .map(|(index, raw)| EditNode::decode(raw.as_slice()).with_context(|| format!("node {index}")))
            .collect::<Result<Vec<_>>>()?;
        let outlines: Vec<NodeOutline> = decoded.iter().map(NodeOutline::of).collect();
        let declared = std::rc::Rc::clone(&self.declared);
        let decided = self.decided;
        let mut added_initializers = Vec::new();
        for (index, mut node) in decoded.into_iter().enumerate() {
            for attribute in &mut node.attribute {
                if let Some(g) = &attribute.g {
                    attribute.g = Some(self.subgraph(g, external)?);
                }
                for g in &mut attribute.graphs {
                    *g = self.subgraph(g, external)?;
                }
            }
            let scope = Scope { graph: &graph, external, declared: &declared, decided };
            let fits = |r: &Rewrite| r.fits(&outlines[index], &outlines) && r.rewrites_in(&node, &scope);
            if self.dry {
                // Every rule that would rewrite the node, as if each were asked for alone.
                for rewrite in self.rewrites.iter().copied().filter(fits) {
                    self.summary.rewritten.entry(rewrite.flag()).or_default().push(node_label(&node, index));
                }
                nodes.push(node.encode_to_vec());
                continue;
            }
            let rewrite = self.rewrites.iter().copied().find(fits);
            let Some(rewrite) = rewrite else {
                nodes.push(node.encode_to_vec());
                continue;
            };
            let name = node_label(&node, index);
            let (written, initializers) = {
                let mut built = Built::new(self, &name);
                match rewrite {
                    Rewrite::Rule(id) => id.rule().apply(&mut built, &node, &scope),
                    Rewrite::Decompose(op) => built.decompose(op, &node),
                }
                .with_context(|| format!("{} '{name}'", rewrite.flag()))?;
                (built.nodes, built.initializers)
            };
            added_initializers.extend(initializers);
            replaced_inputs.extend(node.input.iter().cloned());
            self.summary.nodes_added += written.len();
            nodes.extend(written.iter().map(Message::encode_to_vec));
            self.summary.rewritten.entry(rewrite.flag()).or_default().push(name);
        }
        graph.node = nodes;
        graph.initializer.extend(added_initializers);
        // The value infos typed the nodes replaced; ONNX Runtime infers the new ones'.
        if !self.summary.rewritten.is_empty() {
            graph.value_info.clear();
        }
        // What only a replaced node read (a quantized table written out dequantized, the Reshape
        // that made it) is not carried as dead weight.
        if !replaced_inputs.is_empty() {
            drop_unread(&mut graph, replaced_inputs);
        }
        Ok(graph)
    }

    pub(super) fn subgraph(&mut self, bytes: &[u8], external: &RefCell<ExternalReader>) -> Result<Vec<u8>> {
        let graph = RawGraph::decode(bytes).context("a subgraph")?;
        // What the subgraph declares of its own tensors, over what the graphs around it declare.
        let declared = super::declared::of_graph(&graph, &self.declared, self.inferred);
        let enclosing = std::mem::replace(&mut self.declared, std::rc::Rc::new(declared));
        let walked = self.graph(graph, external);
        self.declared = enclosing;
        Ok(walked?.encode_to_vec())
    }

    /// The rank the model declares for `name`.
    pub(super) fn rank(&self, name: &str) -> Option<usize> {
        self.declared.get(name).map(|d| d.dims.len())
    }

    pub(super) fn fresh(&mut self, base: &str) -> String {
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
pub struct Built<'w, 'a> {
    pub(super) writer: &'w mut Writer<'a>,
    pub(super) base: String,
    pub(super) nodes: Vec<EditNode>,
    /// Encoded `TensorProto`s added to the graph's initializers (a branch's, inlined).
    pub(super) initializers: Vec<Vec<u8>>,
}

impl<'w, 'a> Built<'w, 'a> {
    fn new(writer: &'w mut Writer<'a>, base: &str) -> Built<'w, 'a> {
        Built { writer, base: base.to_string(), nodes: Vec::new(), initializers: Vec::new() }
    }

    /// Adds an initializer as it is (an encoded `TensorProto`, named).
    pub(super) fn initializer(&mut self, raw: Vec<u8>) {
        self.initializers.push(raw);
    }

    /// Adds `op(inputs)` writing `output` (a fresh name when `None`); returns the output's name.
    pub(super) fn op(
        &mut self,
        op: &str,
        inputs: &[&str],
        output: Option<&str>,
        attribute: Vec<EditAttribute>,
    ) -> String {
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

    /// Adds `op(inputs)` writing every one of `outputs` (a Split's).
    pub(super) fn op_with_outputs(
        &mut self,
        op: &str,
        inputs: &[&str],
        outputs: &[&str],
        attribute: Vec<EditAttribute>,
    ) {
        let name = self.writer.fresh(&self.base);
        self.nodes.push(EditNode {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: outputs.iter().map(|s| s.to_string()).collect(),
            name: Some(name),
            op_type: Some(op.to_string()),
            attribute,
            ..EditNode::default()
        });
    }

    /// Adds a node as it is (a branch's, inlined).
    pub(super) fn node(&mut self, node: EditNode) {
        self.nodes.push(node);
    }

    pub(super) fn constant(&mut self, data_type: i32, dims: &[i64], raw: Vec<u8>) -> String {
        // A table or a weight, not the scalars a decomposition writes.
        if raw.len() >= 1024 {
            self.writer.summary.constant_bytes += raw.len() as u64;
        }
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

    pub(super) fn float_scalar(&mut self, value: f32) -> String {
        self.constant(FLOAT, &[], value.to_le_bytes().to_vec())
    }

    pub(super) fn cast_to_float(&mut self, input: &str) -> String {
        self.op("Cast", &[input], None, vec![int_attribute("to", FLOAT as i64)])
    }

    /// `x` with a new axis of one at `axis`.
    pub(super) fn unsqueeze(&mut self, x: &str, axis: i64) -> String {
        self.unsqueeze_axes(x, &[axis])
    }

    /// `x` with new axes of one at `axes`: Unsqueeze takes its axes as an input from opset 13,
    /// as an attribute before.
    pub(super) fn unsqueeze_axes(&mut self, x: &str, axes: &[i64]) -> String {
        match self.writer.opset >= 13 {
            true => {
                let raw = axes.iter().flat_map(|a| a.to_le_bytes()).collect();
                let axes = self.constant(INT64, &[axes.len() as i64], raw);
                self.op("Unsqueeze", &[x, &axes], None, vec![])
            }
            false => self.op("Unsqueeze", &[x], None, vec![ints_attribute("axes", axes)]),
        }
    }

    /// `reduce` (ReduceSum, ReduceMean, ReduceProd, ...) of `x` over `axes` into `output` (a fresh
    /// name where `None`): ReduceSum takes its axes as an input from opset 13, the others from 18,
    /// as an attribute before.
    pub(super) fn reduce(
        &mut self,
        reduce: &str,
        x: &str,
        axes: &[i64],
        keepdims: bool,
        output: Option<&str>,
    ) -> String {
        let keep = int_attribute("keepdims", keepdims as i64);
        let axes_as_input = match reduce {
            "ReduceSum" => self.writer.opset >= 13,
            _ => self.writer.opset >= 18,
        };
        match axes_as_input {
            true => {
                let raw = axes.iter().flat_map(|a| a.to_le_bytes()).collect();
                let axes = self.constant(INT64, &[axes.len() as i64], raw);
                self.op(reduce, &[x, &axes], output, vec![keep])
            }
            false => self.op(reduce, &[x], output, vec![keep, ints_attribute("axes", axes)]),
        }
    }
}

/// A node's name in a rewrite's summary: its own, or `#INDEX (OP)` where it has none.
fn node_label(node: &EditNode, index: usize) -> String {
    match node.name.as_deref() {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => format!("#{index} ({})", node.op_type.as_deref().unwrap_or("?")),
    }
}
