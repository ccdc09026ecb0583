//! Verified graph rewrites, in one place: each rule names what it changes and builds the nodes
//! that replace it; the engine runs the rewritten model beside the original on the reference EP
//! and reports how far apart they are (`engine::rewrite`).
//!
//! - Decompositions (`--decompose OP`): each node of a normalisation op becomes primitive ONNX
//!   ops with the same meaning, the statistics and the normalisation computed in float32 whatever
//!   the model's float type (as ONNX Runtime's kernels compute them, and `stash_type` asks), the
//!   scale and bias applied in the model's type (as ONNX's function body of LayerNormalization
//!   does), with every optional output. Some
//!   execution providers, or their drivers, hang or fail on the fused op and run the primitives
//!   (DirectML on this stack's H100, Wine 8 + vkd3d 1.6). The primitives are chosen so that ONNX
//!   Runtime's own fusions (LayerNormFusion, SimplifiedLayerNormFusion) do not put the op back:
//!   `Reciprocal` and `Mul` where they look for `Div`. Each binary op has a broadcast operand
//!   (a scalar, a reduced statistic, a scale) but a skip norm's residual sum, which is in the
//!   model's own type: DirectML on this project's stack rejects a float32 op on two tensors of
//!   one shape.
//! - `--reshape-allowzero-off`: a `Reshape` with `allowzero=1` (every one torch's exporter writes)
//!   whose shape is a constant without a zero loses the attribute, which changes nothing there:
//!   ONNX Runtime's DirectML (1.24) rejects the attribute at session creation.
//! - `--gemm-zero-bias`: a `Gemm` without its optional bias gets an explicit zero one of its
//!   output's width and its weight's type. ONNX Runtime's DirectML fuses `Gemm` with a following
//!   activation into a `DmlFusedGemm` that demands three inputs, and rejects its own fusion when
//!   the bias is absent (what torch's exporter writes for a pooler).
//!
//! Nodes in subgraphs (`If`, `Loop`, `Scan` bodies) are rewritten too. Constants are written as
//! `Constant` nodes beside the nodes that read them, so a rewritten subgraph stands alone.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use anyhow::{bail, Context, Result};
use prost::Message;
use serde::{Deserialize, Serialize};

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

/// An operator `--decompose` can write as primitive ops: the variants are the operators' names.
#[allow(clippy::enum_variant_names)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Decomposable {
    /// ONNX's (opset 17): mean and variance over `axis` and after.
    LayerNormalization,
    /// ONNX's (opset 23): root mean square over `axis` and after.
    #[serde(rename = "RMSNormalization")]
    RmsNormalization,
    /// ONNX Runtime's RMS norm in the default domain (what onnxruntime-genai's builder writes).
    SimplifiedLayerNormalization,
    /// `com.microsoft`: a residual add, then layer norm over the last axis.
    SkipLayerNormalization,
    /// `com.microsoft`: a residual add, then RMS norm over the last axis.
    SkipSimplifiedLayerNormalization,
    /// ONNX's (opset 20, a function op; `approximate` "none" or "tanh") and `com.microsoft`'s
    /// (exact): what torch's exporter writes in every BERT and ViT.
    Gelu,
}

impl Decomposable {
    pub const ALL: [Decomposable; 6] = [
        Decomposable::LayerNormalization,
        Decomposable::RmsNormalization,
        Decomposable::SimplifiedLayerNormalization,
        Decomposable::SkipLayerNormalization,
        Decomposable::SkipSimplifiedLayerNormalization,
        Decomposable::Gelu,
    ];

    /// The operator type as a model names it.
    pub fn op_type(self) -> &'static str {
        match self {
            Decomposable::LayerNormalization => "LayerNormalization",
            Decomposable::RmsNormalization => "RMSNormalization",
            Decomposable::SimplifiedLayerNormalization => "SimplifiedLayerNormalization",
            Decomposable::SkipLayerNormalization => "SkipLayerNormalization",
            Decomposable::SkipSimplifiedLayerNormalization => "SkipSimplifiedLayerNormalization",
            Decomposable::Gelu => "Gelu",
        }
    }

    /// The operator types ONNX Runtime's fusions would make of the primitives again: the op
    /// itself, and for Gelu the fused forms of its contrib domain (GeluFusion, FastGeluFusion,
    /// BiasGeluFusion).
    pub fn fused_forms(self) -> &'static [&'static str] {
        match self {
            Decomposable::LayerNormalization => &["LayerNormalization"],
            Decomposable::RmsNormalization => &["RMSNormalization"],
            Decomposable::SimplifiedLayerNormalization => &["SimplifiedLayerNormalization"],
            Decomposable::SkipLayerNormalization => &["SkipLayerNormalization"],
            Decomposable::SkipSimplifiedLayerNormalization => &["SkipSimplifiedLayerNormalization"],
            Decomposable::Gelu => &["Gelu", "FastGelu", "BiasGelu"],
        }
    }

    /// `--decompose`'s value: an operator type, as the model names it.
    pub fn parse(text: &str) -> Result<Decomposable, String> {
        Decomposable::ALL.into_iter().find(|d| d.op_type() == text).ok_or_else(|| {
            let names: Vec<&str> = Decomposable::ALL.iter().map(|d| d.op_type()).collect();
            let near = crate::suggest::closest(text, names.iter().map(|n| n.to_string()));
            let near = near.first().map(|n| format!(" (did you mean {n}?)")).unwrap_or_default();
            format!("'{text}' is not an operator dmlrun can decompose{near}; it can: {}", names.join(", "))
        })
    }
}

impl fmt::Display for Decomposable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.op_type())
    }
}

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
        match self {
            Rewrite::Decompose(op) => format!("--decompose {op}"),
            Rewrite::GemmZeroBias => "--gemm-zero-bias".to_string(),
            Rewrite::ReshapeAllowzeroOff => "--reshape-allowzero-off".to_string(),
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
        let nodes: Vec<EditNode> =
            self.graph.node.iter().filter_map(|raw| EditNode::decode(raw.as_slice()).ok()).collect();
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
            let rewrite = rewrite.filter(|r| *r != Rewrite::ReshapeAllowzeroOff || shape_has_no_zero(&node, &graph));
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
                    Rewrite::ReshapeAllowzeroOff => {
                        let mut reshape = node.clone();
                        reshape.attribute.retain(|a| a.name.as_deref() != Some("allowzero"));
                        built.nodes.push(reshape);
                        Ok(())
                    }
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

    /// The mean over `axes`, dimensions kept.
    fn mean(&mut self, input: &str, axes: &[i64]) -> String {
        let keep = int_attribute("keepdims", 1);
        if self.writer.opset >= 18 {
            let raw = axes.iter().flat_map(|a| a.to_le_bytes()).collect();
            let axes = self.constant(INT64, &[axes.len() as i64], raw);
            self.op("ReduceMean", &[input, &axes], None, vec![keep])
        } else {
            self.op("ReduceMean", &[input], None, vec![keep, ints_attribute("axes", axes)])
        }
    }

    /// The axes a norm of `axis` covers, as negative axes when the rank is not known.
    fn norm_axes(&self, input: &str, axis: i64) -> Result<Vec<i64>> {
        if axis < 0 {
            return Ok((axis..0).collect());
        }
        match self.writer.ranks.get(input) {
            Some(&rank) if (axis as usize) < rank => Ok((axis..rank as i64).collect()),
            Some(&rank) => bail!("axis {axis} is beyond its input's rank {rank}"),
            None => bail!("axis {axis} counts from the front, and the model does not declare the rank of '{input}'"),
        }
    }

    /// The float32 normalisation of `x` (already float32) over `axes`: the normalised values,
    /// and the mean and reciprocal standard deviation (root mean square for `rms`).
    fn normalize(&mut self, x: &str, axes: &[i64], epsilon: f32, rms: bool, want_mean: bool) -> Norm {
        let (centred, mean) = if rms {
            (x.to_string(), want_mean.then(|| self.mean(x, axes)))
        } else {
            let mean = self.mean(x, axes);
            (self.op("Sub", &[x, &mean], None, vec![]), Some(mean))
        };
        // Pow with a scalar exponent, not x * x: DirectML under Wine 8's vkd3d rejects a float32
        // element-wise op on two tensors of one shape (it writes those shaders in DXIL, which
        // vkd3d 1.6 cannot compile) and runs one with a broadcast operand.
        let two = self.float_scalar(2.0);
        let squared = self.op("Pow", &[&centred, &two], None, vec![]);
        let variance = self.mean(&squared, axes);
        let epsilon = self.float_scalar(epsilon);
        let shifted = self.op("Add", &[&variance, &epsilon], None, vec![]);
        let deviation = self.op("Sqrt", &[&shifted], None, vec![]);
        let inv_std = self.op("Reciprocal", &[&deviation], None, vec![]);
        let normalized = self.op("Mul", &[&centred, &inv_std], None, vec![]);
        Norm { normalized, mean, inv_std }
    }

    /// `normalized` (float32) cast back to `like`'s type, then `* scale (+ bias)` in that type,
    /// written as `output`. The scale and bias stay as the model has them: DirectML on this
    /// project's stack (Wine 8, vkd3d 1.6) rejects a float32 Mul by a scale cast from float16 (seen
    /// on the H100), and runs the model's own type's.
    fn scale_and_cast(&mut self, norm: &str, scale: &str, bias: Option<&str>, like: &str, output: &str) {
        let cast = self.op("CastLike", &[norm, like], None, vec![]);
        match bias {
            Some(bias) => {
                let scaled = self.op("Mul", &[&cast, scale], None, vec![]);
                self.op("Add", &[&scaled, bias], Some(output), vec![]);
            }
            None => {
                self.op("Mul", &[&cast, scale], Some(output), vec![]);
            }
        }
    }

    /// A statistic (mean, inverse deviation) written as `output` in `stash_type`.
    fn statistic(&mut self, value: &str, output: &str, stash_type: i64) {
        if stash_type == FLOAT as i64 {
            self.op("Identity", &[value], Some(output), vec![]);
        } else {
            self.op("Cast", &[value], Some(output), vec![int_attribute("to", stash_type)]);
        }
    }

    fn decompose(&mut self, op: Decomposable, node: &EditNode) -> Result<()> {
        if self.writer.opset < 15 {
            bail!("the model's default opset {} is below 15, where CastLike begins", self.writer.opset);
        }
        let input = |i: usize| node.input.get(i).map(String::as_str).filter(|s| !s.is_empty());
        let output = |i: usize| node.output.get(i).map(String::as_str).filter(|s| !s.is_empty());
        let x = input(0).context("no input")?;
        match op {
            Decomposable::LayerNormalization
            | Decomposable::RmsNormalization
            | Decomposable::SimplifiedLayerNormalization => {
                let rms = op != Decomposable::LayerNormalization;
                let axis = int_of(node, "axis").unwrap_or(-1);
                let epsilon = float_of(node, "epsilon").unwrap_or(1e-5);
                let stash_type = int_of(node, "stash_type").unwrap_or(FLOAT as i64);
                if stash_type != FLOAT as i64 {
                    bail!("stash_type {stash_type}: only float32 (1) arithmetic is written");
                }
                let axes = self.norm_axes(x, axis)?;
                let scale = input(1).context("no scale")?;
                let bias = if op == Decomposable::LayerNormalization { input(2) } else { None };
                // LayerNormalization writes Mean then InvStdDev; the RMS norms InvStdDev alone.
                let (mean_out, inv_out) = match op {
                    Decomposable::LayerNormalization => (output(1), output(2)),
                    Decomposable::SimplifiedLayerNormalization => (None, output(1)),
                    _ => (None, None),
                };
                let xf = self.cast_to_float(x);
                let norm = self.normalize(&xf, &axes, epsilon, rms, mean_out.is_some());
                self.scale_and_cast(&norm.normalized, scale, bias, x, output(0).context("no output")?);
                if let (Some(out), Some(mean)) = (mean_out, &norm.mean) {
                    self.statistic(mean, out, stash_type);
                }
                if let Some(out) = inv_out {
                    self.statistic(&norm.inv_std, out, stash_type);
                }
            }
            Decomposable::SkipLayerNormalization | Decomposable::SkipSimplifiedLayerNormalization => {
                let rms = op == Decomposable::SkipSimplifiedLayerNormalization;
                let epsilon = float_of(node, "epsilon").unwrap_or(1e-12);
                let skip = input(1).context("no skip")?;
                let gamma = input(2).context("no gamma")?;
                // SkipLayerNormalization: input, skip, gamma, beta, bias;
                // SkipSimplifiedLayerNormalization: input, skip, gamma, bias.
                let (beta, bias) = if rms { (None, input(3)) } else { (input(3), input(4)) };
                // The residual sum in the model's own type, as the model adds elsewhere: a float32
                // Add of two tensors of one shape is what DirectML under vkd3d 1.6 rejects. Two
                // float16 values add to the float16 ONNX Runtime's kernel writes; the sum is then
                // normalised in float32.
                let mut own = self.op("Add", &[x, skip], None, vec![]);
                if let Some(bias) = bias {
                    own = self.op("Add", &[&own, bias], None, vec![]);
                }
                let sum = self.cast_to_float(&own);
                let norm = self.normalize(&sum, &[-1], epsilon, rms, false);
                self.scale_and_cast(&norm.normalized, gamma, beta, x, output(0).context("no output")?);
                if let Some(out) = output(1) {
                    // ONNX Runtime's kernel writes zeros for an RMS norm's mean: so does this.
                    let mean = match &norm.mean {
                        Some(mean) => mean.clone(),
                        None => self.op("Sub", &[&norm.inv_std, &norm.inv_std], None, vec![]),
                    };
                    self.statistic(&mean, out, FLOAT as i64);
                }
                if let Some(out) = output(2) {
                    self.statistic(&norm.inv_std, out, FLOAT as i64);
                }
                if let Some(out) = output(3) {
                    self.op("Identity", &[&own], Some(out), vec![]);
                }
            }
            Decomposable::Gelu => self.gelu(node, x, output(0).context("no output")?)?,
        }
        Ok(())
    }

    /// Gelu in its input's own type, as ONNX's function body computes it, in forms ONNX
    /// Runtime's Gelu fusions do not match (they look for `Div` by sqrt(2), then `Erf`, then
    /// `Add` of 1; and for `Tanh`):
    /// - exact: `x * (0.5 + 0.5 * erf(x * (1 / sqrt(2))))`;
    /// - tanh: `x * sigmoid(2 * sqrt(2 / pi) * (x + 0.044715 * x^3))`, the same function, since
    ///   `(1 + tanh(z)) / 2 = sigmoid(2z)`.
    fn gelu(&mut self, node: &EditNode, x: &str, output: &str) -> Result<()> {
        let approximate = node
            .attribute
            .iter()
            .find(|a| a.name.as_deref() == Some("approximate"))
            .and_then(|a| a.s.as_deref())
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .unwrap_or_else(|| "none".to_string());
        let constant = |built: &mut Self, value: f32| {
            let scalar = built.float_scalar(value);
            built.op("CastLike", &[&scalar, x], None, vec![])
        };
        let gate = match approximate.as_str() {
            "none" => {
                let inv_sqrt2 = constant(self, std::f32::consts::FRAC_1_SQRT_2);
                let half = constant(self, 0.5);
                let scaled = self.op("Mul", &[x, &inv_sqrt2], None, vec![]);
                let erf = self.op("Erf", &[&scaled], None, vec![]);
                let halved = self.op("Mul", &[&erf, &half], None, vec![]);
                self.op("Add", &[&halved, &half], None, vec![])
            }
            "tanh" => {
                let three = constant(self, 3.0);
                let coefficient = constant(self, 0.044715);
                let twice_sqrt_2_over_pi = constant(self, 2.0 * (2.0 / std::f32::consts::PI).sqrt());
                let cubed = self.op("Pow", &[x, &three], None, vec![]);
                let term = self.op("Mul", &[&cubed, &coefficient], None, vec![]);
                let inner = self.op("Add", &[x, &term], None, vec![]);
                let z = self.op("Mul", &[&inner, &twice_sqrt_2_over_pi], None, vec![]);
                self.op("Sigmoid", &[&z], None, vec![])
            }
            other => bail!("approximate '{other}': ONNX defines 'none' and 'tanh'"),
        };
        self.op("Mul", &[x, &gate], Some(output), vec![]);
        Ok(())
    }

    /// `Gemm(A, B)` as `Gemm(A, B, zeros(N))`, N being B's output width, the zeros B's type.
    fn gemm_zero_bias(&mut self, node: &EditNode, graph: &RawGraph) -> Result<()> {
        let b = node.input.get(1).context("a Gemm with no B")?;
        let weight = graph
            .initializer
            .iter()
            .filter_map(|raw| EditTensor::decode(raw.as_slice()).ok())
            .find(|t| t.name.as_deref() == Some(b.as_str()))
            .with_context(|| {
                format!("its weight '{b}' is not an initializer of its graph, so the bias's width is not known")
            })?;
        let trans_b = int_of(node, "transB").unwrap_or(0) != 0;
        let [rows, cols] = weight.dims[..] else {
            bail!("its weight '{b}' has {} dimensions, not 2", weight.dims.len());
        };
        let width = if trans_b { rows } else { cols };
        let data_type = weight.data_type.unwrap_or(FLOAT);
        let bytes = element_bytes(data_type).with_context(|| format!("its weight's type ({data_type})"))?;
        let zeros = self.constant(data_type, &[width], vec![0; bytes * width.max(0) as usize]);
        let mut gemm = node.clone();
        gemm.input.truncate(2);
        gemm.input.push(zeros);
        self.nodes.push(gemm);
        Ok(())
    }
}

struct Norm {
    normalized: String,
    mean: Option<String>,
    inv_std: String,
}

/// Whether the Reshape's shape input is an initializer of `graph` holding no zero (where
/// `allowzero` changes nothing: only a 0 in the shape reads differently with it).
fn shape_has_no_zero(node: &EditNode, graph: &RawGraph) -> bool {
    let Some(shape) = node.input.get(1) else { return false };
    graph
        .initializer
        .iter()
        .filter_map(|raw| EditTensor::decode(raw.as_slice()).ok())
        .find(|t| t.name.as_deref() == Some(shape.as_str()))
        .and_then(|t| match (&t.raw_data, t.int64_data.is_empty()) {
            (Some(raw), _) => Some(raw.chunks_exact(8).all(|c| c != [0u8; 8])),
            (None, false) => Some(t.int64_data.iter().all(|v| *v != 0)),
            (None, true) => None,
        })
        .unwrap_or(false)
}

fn element_bytes(data_type: i32) -> Option<usize> {
    match data_type {
        1 | 6 | 12 => Some(4),      // float, int32, uint32
        10 | 16 | 5 | 4 => Some(2), // float16, bfloat16, int16, uint16
        11 | 7 | 13 => Some(8),     // double, int64, uint64
        2 | 3 => Some(1),           // uint8, int8
        _ => None,
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
