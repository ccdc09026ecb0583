//! What a rule knows of a tensor's element type and shape: what the model declares (its value
//! infos, graph inputs and outputs), and, where it declares less, what ONNX Runtime inferred when
//! it opened the model with its free dimensions fixed as the run fixes them. Exporters that write
//! no value infos (PaddlePaddle's, tf2onnx's) leave a rule that reads shapes nothing to go on
//! otherwise. The session that infers them is the engine's (`engine::inferred_shapes`); this file
//! names every value of the model for it and reads back what it saved.

use std::collections::{HashMap, HashSet};

use anyhow::{Context, Result};
use prost::Message;

use crate::formats::onnx_proto::lossless::{EditNode, RawGraph, RawModel, TensorName, ValueName};
use crate::formats::onnx_proto::ValueInfoProto;
use crate::graph::Graph;

/// A tensor's element type and shape as the model declares them (a value info, a graph input or
/// output).
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    pub elem_type: i32,
    pub dims: Vec<Dim>,
}

impl Declared {
    /// Every dimension a size.
    fn is_sized(&self) -> bool {
        self.dims.iter().all(|d| matches!(d, Dim::Size(_)))
    }
}

/// One declared dimension: a size, a name (the same name is the same size), or neither.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dim {
    Size(i64),
    Named(String),
    Unknown,
}

impl Dim {
    fn of(value: Option<i64>, param: Option<String>) -> Dim {
        match (value, param) {
            (Some(v), _) => Dim::Size(v),
            (None, Some(p)) if !p.is_empty() => Dim::Named(p),
            _ => Dim::Unknown,
        }
    }
}

/// The shapes ONNX Runtime inferred for a model at one set of dimensions, every dimension a
/// size, by tensor name (a subgraph's too: ONNX names a value once in a model). They hold for
/// those dimensions only, as the session they are read for is fixed to them.
#[derive(Debug, Clone, Default)]
pub struct InferredShapes(HashMap<String, Declared>);

impl InferredShapes {
    /// The sized declarations of every graph of the model ONNX Runtime saved (`model`: its bytes).
    pub fn read(model: &[u8]) -> Result<InferredShapes> {
        let model = RawModel::decode(model).context("the model ONNX Runtime saved")?;
        let mut found = HashMap::new();
        if let Some(graph) = &model.graph {
            collect_sized(&RawGraph::decode(graph.as_slice())?, &mut found)?;
        }
        Ok(InferredShapes(found))
    }

    /// How many tensors' shapes it holds.
    pub fn count(&self) -> usize {
        self.0.len()
    }
}

fn collect_sized(graph: &RawGraph, found: &mut HashMap<String, Declared>) -> Result<()> {
    found.extend(declared_types(graph).into_iter().filter(|(_, d)| d.is_sized()));
    for raw in &graph.node {
        for attribute in EditNode::decode(raw.as_slice())?.attribute {
            for sub in attribute.g.iter().chain(&attribute.graphs) {
                collect_sized(&RawGraph::decode(sub.as_slice())?, found)?;
            }
        }
    }
    Ok(())
}

/// What a rule reads of `graph`'s tensors: `enclosing` (the graphs around a subgraph), the
/// graph's own declarations over it, and the inferred shapes over both (they are the sizes the
/// session will run at; a declaration may name a dimension or leave it unknown).
pub(super) fn of_graph(
    graph: &RawGraph,
    enclosing: &HashMap<String, Declared>,
    inferred: &InferredShapes,
) -> HashMap<String, Declared> {
    let mut declared = enclosing.clone();
    declared.extend(declared_types(graph));
    declared.extend(inferred.0.iter().map(|(name, d)| (name.clone(), d.clone())));
    declared
}

/// The element type and shape of every tensor `graph` declares one for (its inputs, outputs and
/// value infos).
fn declared_types(graph: &RawGraph) -> HashMap<String, Declared> {
    graph
        .input
        .iter()
        .chain(&graph.value_info)
        .chain(&graph.output)
        .filter_map(|raw| ValueInfoProto::decode(raw.as_slice()).ok())
        .filter_map(|v| {
            let tensor = v.r#type?.tensor_type?;
            let dims = tensor.shape?.dim.into_iter().map(|d| Dim::of(d.dim_value, d.dim_param)).collect();
            Some((v.name?, Declared { elem_type: tensor.elem_type.unwrap_or(0), dims }))
        })
        .collect()
}

impl Graph {
    /// The model with a value info, its type left out, for every value a node writes that none
    /// declares, in every graph: ONNX Runtime writes what it inferred for a declared value into
    /// the model it saves, and only for those. The free dimensions no name reaches (empty, a
    /// negative size or Paddle's `?`) of the inputs in `shapes` are given their sizes there, as no override can.
    pub fn with_every_value_named(&self, shapes: &[(String, Vec<i64>)]) -> Result<Vec<u8>> {
        let mut graph = self.graph.clone();
        graph.node = self.nodes.iter().map(|n| n.raw.clone()).collect();
        for input in &mut graph.input {
            size_unnamed_dims(input, shapes);
        }
        let mut model = self.model.clone();
        model.graph = Some(name_every_value(graph)?.encode_to_vec());
        Ok(model.encode_to_vec())
    }

    /// The graph whose rewrites read `inferred` where the model declares less. ONNX Runtime's
    /// optimiser removes an `Identity` (and an inference `Dropout`) before it saves the model, and
    /// its output's shape with it: that is its input's.
    pub fn with_inferred(mut self, mut inferred: InferredShapes) -> Graph {
        for node in self.nodes.iter().filter(|n| matches!(n.op_type.as_str(), "Identity" | "Dropout")) {
            let (Some(input), Some(output)) = (node.inputs.first(), node.outputs.first()) else { continue };
            if let (false, Some(shape)) = (inferred.0.contains_key(output), inferred.0.get(input).cloned()) {
                inferred.0.insert(output.clone(), shape);
            }
        }
        self.inferred = inferred;
        self
    }
}

fn size_unnamed_dims(input: &mut Vec<u8>, shapes: &[(String, Vec<i64>)]) {
    let Ok(mut value) = ValueInfoProto::decode(input.as_slice()) else { return };
    let Some((_, sizes)) = shapes.iter().find(|(name, _)| value.name.as_ref() == Some(name)) else { return };
    let tensor = value.r#type.as_mut().and_then(|t| t.tensor_type.as_mut());
    let Some(shape) = tensor.and_then(|t| t.shape.as_mut()).filter(|s| s.dim.len() == sizes.len()) else { return };
    let mut sized = false;
    for (dim, &size) in shape.dim.iter_mut().zip(sizes) {
        let no_size = dim.dim_value.is_none_or(|v| v < 0);
        if no_size && dim.dim_param.as_deref().is_none_or(|p| p.is_empty() || p == "?") {
            (dim.dim_value, dim.dim_param) = (Some(size), None);
            sized = true;
        }
    }
    if sized {
        *input = value.encode_to_vec();
    }
}

fn name_every_value(mut graph: RawGraph) -> Result<RawGraph> {
    let value_names = |list: &[Vec<u8>]| -> Vec<String> {
        list.iter().filter_map(|raw| ValueName::decode(raw.as_slice()).ok()?.name).collect()
    };
    let mut named: HashSet<String> =
        [&graph.input, &graph.output, &graph.value_info].into_iter().flat_map(|l| value_names(l)).collect();
    named.extend(graph.initializer.iter().filter_map(|raw| TensorName::decode(raw.as_slice()).ok()?.name));
    let mut nodes = Vec::with_capacity(graph.node.len());
    for raw in &graph.node {
        let mut node = EditNode::decode(raw.as_slice())?;
        for attribute in &mut node.attribute {
            for sub in attribute.g.iter_mut().chain(&mut attribute.graphs) {
                *sub = name_every_value(RawGraph::decode(sub.as_slice())?)?.encode_to_vec();
            }
        }
        for output in node.output.iter().filter(|o| !o.is_empty()) {
            if named.insert(output.clone()) {
                let value = ValueInfoProto { name: Some(output.clone()), ..Default::default() };
                graph.value_info.push(value.encode_to_vec());
            }
        }
        nodes.push(node.encode_to_vec());
    }
    graph.node = nodes;
    Ok(graph)
}
