//! A model's float32 computation in float16, as DirectML's and ONNX Runtime's guidance ask for
//! speed on a GPU: float32 initializers and constants stored as float16, the operators computing
//! in float16, the model's inputs and outputs staying float32 through Casts at the edges, and a
//! keep-list of operators (and nodes) left in float32 with Casts around them.
//!
//! Which tensors are float32 comes from a run of the float32 model with every tensor exposed
//! (`types`): the graph says names, not types, and a Cast may only be put where the value is a
//! float. Control flow (`If`, `Loop`, `Scan`, any node with a subgraph) stays float32: a
//! subgraph's own tensors are not exposed by such a run, so its body runs as written, and the
//! outer-scope float tensors it reads are cast back to float32 for it.

mod values;

use std::collections::{BTreeMap, HashMap, HashSet};

use anyhow::{bail, Context, Result};
use half::f16;
use prost::Message;
use serde::{Deserialize, Serialize};

use super::Graph;
use crate::formats::onnx_proto::lossless::{
    EditAttribute, EditNode, EditTensor, InitializerType, RawGraph, TensorName,
};
use crate::formats::onnx_proto::ValueInfoProto;
use crate::tensor::DType;

use values::{convert_attributes, to_half};

const FLOAT: i32 = 1;
const FLOAT16: i32 = 10;
/// AttributeProto.AttributeType TENSOR and INT.
const TENSOR_ATTRIBUTE: i32 = 4;
const INT_ATTRIBUTE: i32 = 2;

/// The operators left in float32 by default: where float16 loses what the operator is for
/// (indices and scores: `TopK`, `NonMaxSuppression`, `RoiAlign`; running sums: `CumSum`;
/// `Range`, which ONNX does not define for float16), random draws whose dtype is their input's,
/// the spectral operators, quantization (its scales are float32 by definition), and control flow
/// (see the module's text). Classic-ML operators (`ai.onnx.ml`) stay float32 whatever the list.
pub const DEFAULT_KEEP_FP32: &[&str] = &[
    "TopK",
    "NonMaxSuppression",
    "RoiAlign",
    "CumSum",
    "Range",
    "RandomNormalLike",
    "RandomUniformLike",
    "MelWeightMatrix",
    "STFT",
    "DFT",
    "QuantizeLinear",
    "DequantizeLinear",
    "DynamicQuantizeLinear",
    "If",
    "Loop",
    "Scan",
];

/// What the conversion did, for the report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Conversion {
    /// Nodes that now compute in float16.
    pub nodes_converted: usize,
    /// Nodes left in float32, by operator type.
    pub nodes_kept: BTreeMap<String, usize>,
    /// Float32 initializers and constants stored as float16 now.
    pub tensors_converted: usize,
    /// Their size before and after (bytes).
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// Float32 initializers left so, read only where float32 is needed.
    pub tensors_kept: usize,
    pub casts_inserted: usize,
    /// Finite values beyond float16's range (±65504), stored as its largest.
    pub values_clamped: usize,
    /// Nonzero values below float16's smallest, stored as zero.
    pub values_flushed: usize,
    /// Why nothing was converted (no float32 tensor: a float64 model, one in float16 already):
    /// the model then runs as it is.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub nothing_converted: Option<String>,
}

impl Conversion {
    /// Whether anything was converted: a model without float32 tensors comes out as it went in.
    pub fn converted_anything(&self) -> bool {
        self.nodes_converted + self.tensors_converted > 0
    }

    /// `312 of 330 nodes in float16 (kept: TopK 2, Loop 1), 49.8 MiB of weights now 24.9 MiB, 14 casts`.
    pub fn describe(&self) -> String {
        if let Some(why) = &self.nothing_converted {
            return why.clone();
        }
        let kept_count: usize = self.nodes_kept.values().sum();
        let kept = if self.nodes_kept.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = self.nodes_kept.iter().map(|(op, n)| format!("{op} {n}")).collect();
            format!(" (kept in float32: {})", list.join(", "))
        };
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        let mut text = format!(
            "{} of {} nodes in float16{kept}, {} tensors of {:.1} MiB now {:.1} MiB, {} casts",
            self.nodes_converted,
            self.nodes_converted + kept_count,
            self.tensors_converted,
            mib(self.bytes_before),
            mib(self.bytes_after),
            self.casts_inserted
        );
        if self.values_clamped + self.values_flushed > 0 {
            text += &format!(
                "; {} values beyond float16's range clamped, {} below it flushed to zero",
                self.values_clamped, self.values_flushed
            );
        }
        text
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Precision {
    Half,
    Single,
}

impl Precision {
    fn onnx_code(self) -> i32 {
        match self {
            Precision::Half => FLOAT16,
            Precision::Single => FLOAT,
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Precision::Half => "fp16",
            Precision::Single => "fp32",
        }
    }
}

/// Inputs of operators that ONNX types as float32 whatever the rest: (op, input index).
const FLOAT32_INPUTS: &[(&str, usize)] = &[("Resize", 2), ("Upsample", 1)];

impl Graph {
    /// The model in float16 as the module's text says, its inputs and outputs float32.
    /// `types` holds the element type of every tensor a float32 run saw (inputs, the tensors
    /// nodes read, outputs); `keep_fp32` names operator types or nodes to leave in float32 on
    /// top of [`DEFAULT_KEEP_FP32`].
    pub fn to_float16(&self, types: &HashMap<String, DType>, keep_fp32: &[String]) -> Result<(Vec<u8>, Conversion)> {
        let mut report = Conversion::default();
        let mut nodes: Vec<EditNode> = self
            .nodes
            .iter()
            .map(|n| EditNode::decode(n.raw.as_slice()).with_context(|| format!("node {}", n.name)))
            .collect::<Result<_>>()?;
        // A value the float32 run saw but not as a tensor (a sequence, a map, an optional) has an
        // element type its node decides: that node stays float32, and what it reads with it.
        let read: HashSet<&str> =
            self.nodes.iter().flat_map(|n| n.reads()).chain(self.outputs.iter().map(String::as_str)).collect();
        let untyped = |t: &str| !t.is_empty() && !types.contains_key(t) && !self.initializers.contains_key(t);
        let kept: Vec<bool> = self
            .nodes
            .iter()
            .zip(&nodes)
            .map(|(n, edit)| {
                let has_subgraph = edit.attribute.iter().any(|a| a.g.is_some() || !a.graphs.is_empty());
                let reads_untyped = n.inputs.iter().any(|t| untyped(t));
                let writes_untyped = n.outputs.iter().any(|t| untyped(t) && read.contains(t.as_str()));
                has_subgraph
                    || reads_untyped
                    || writes_untyped
                    || n.domain == "ai.onnx.ml"
                    || DEFAULT_KEEP_FP32.contains(&n.op_type.as_str())
                    || keep_fp32.iter().any(|k| k == &n.op_type || k == &n.name)
            })
            .collect();
        // A name that is neither an operator type nor a node of the model keeps nothing: a typo.
        let op_types = self.op_types();
        for name in keep_fp32 {
            if !op_types.contains(name) && self.node_named(name).is_none() {
                let candidates = op_types.iter().cloned().chain(self.nodes.iter().map(|n| n.name.clone()));
                let near = crate::suggest::closest(name, candidates);
                let near =
                    if near.is_empty() { String::new() } else { format!(" (did you mean {}?)", near.join(", ")) };
                bail!("--keep-fp32 {name}: the model has no operator type or node of that name{near}");
            }
        }

        // Which tensors are float32, and in which precision each is produced after conversion.
        let float_initializers: HashSet<String> = self
            .graph
            .initializer
            .iter()
            .filter_map(|raw| InitializerType::decode(raw.as_slice()).ok())
            .filter(|t| t.data_type == Some(FLOAT))
            .filter_map(|t| t.name)
            .collect();
        let is_float = |t: &str| float_initializers.contains(t) || types.get(t) == Some(&DType::Float32);
        // Only a node that reads or writes a float32 tensor computes in another precision: one
        // that does not (integers, float64, a model already in float16) is neither converted
        // nor kept, and is not counted.
        let touches_float: Vec<bool> = self
            .nodes
            .iter()
            .map(|n| n.inputs.iter().chain(&n.outputs).any(|t| !t.is_empty() && is_float(t)))
            .collect();
        for ((node, _), _) in self.nodes.iter().zip(&kept).zip(&touches_float).filter(|((_, k), f)| **k && **f) {
            *report.nodes_kept.entry(node.op_type.clone()).or_default() += 1;
        }
        report.nodes_converted = kept.iter().zip(&touches_float).filter(|(k, f)| !**k && **f).count();
        let mut produced: HashMap<String, Precision> = HashMap::new();
        let mut producer: HashMap<String, usize> = HashMap::new();
        for input in self.inputs.iter().filter(|t| is_float(t)) {
            produced.insert(input.clone(), Precision::Single);
        }
        for (i, node) in nodes.iter().enumerate() {
            for out in node.output.iter().filter(|o| !o.is_empty()) {
                producer.insert(out.clone(), i);
                if is_float(out) {
                    produced.insert(out.clone(), if kept[i] { Precision::Single } else { Precision::Half });
                }
            }
        }
        // What each node wants of its float inputs; an initializer is stored as float16 where
        // some node wants it so.
        let wants = |i: usize, slot: usize| {
            if kept[i] || FLOAT32_INPUTS.contains(&(self.nodes[i].op_type.as_str(), slot)) {
                Precision::Single
            } else {
                Precision::Half
            }
        };
        for name in &float_initializers {
            let half_wanted = nodes.iter().enumerate().any(|(i, n)| {
                n.input.iter().enumerate().any(|(slot, t)| t == name && wants(i, slot) == Precision::Half)
            });
            produced.insert(name.clone(), if half_wanted { Precision::Half } else { Precision::Single });
        }

        // Names: a float16 graph output is written under another name and cast to its own.
        let mut names = Names::new(self, &nodes);
        let outputs: HashSet<&str> = self.outputs.iter().map(String::as_str).collect();
        let renamed: HashMap<String, String> = self
            .outputs
            .iter()
            .filter(|t| produced.get(t.as_str()) == Some(&Precision::Half))
            .map(|t| (t.clone(), names.fresh(&format!("{t}__fp16"))))
            .collect();
        let written = |t: &str| renamed.get(t).cloned().unwrap_or_else(|| t.to_string());
        let mut casts = Casts::default();
        let mut at = |t: &str, want: Precision, names: &mut Names| -> String {
            let Some(&have) = produced.get(t) else { return t.to_string() };
            if have == want {
                return written(t);
            }
            let target = if want == Precision::Single && outputs.contains(t) && renamed.contains_key(t) {
                t.to_string()
            } else {
                names.fresh(&format!("{t}__{}", want.suffix()))
            };
            casts.add(t, &written(t), want, target, producer.get(t).copied())
        };

        // Every node's float inputs in the precision it wants; outputs under their written names.
        let mut outer_renames: Vec<HashMap<String, String>> = vec![HashMap::new(); nodes.len()];
        for i in 0..nodes.len() {
            let inputs = nodes[i].input.clone();
            for (slot, t) in inputs.iter().enumerate().filter(|(_, t)| !t.is_empty()) {
                nodes[i].input[slot] = at(t, wants(i, slot), &mut names);
            }
            // Control flow stays float32, and so must what its subgraphs read from outside.
            for t in &self.nodes[i].outer_inputs {
                if produced.get(t) == Some(&Precision::Half) {
                    let single = at(t, Precision::Single, &mut names);
                    outer_renames[i].insert(t.clone(), single);
                }
            }
            let outs = nodes[i].output.clone();
            for (slot, t) in outs.iter().enumerate().filter(|(_, t)| !t.is_empty()) {
                nodes[i].output[slot] = written(t);
            }
            // A converted CastLike to a float tensor casts to float16: written as the Cast it is.
            // ONNX Runtime 1.24's CPU EP (the one DirectML's package ships) cannot type a CastLike
            // that its InsertCastTransformer runs in float32 between float16 tensors.
            let like_is_float = inputs.get(1).is_some_and(|t| is_float(t));
            if !kept[i] && self.nodes[i].op_type == "CastLike" && like_is_float {
                nodes[i].op_type = Some("Cast".to_string());
                nodes[i].input.truncate(1);
                nodes[i].attribute.retain(|a| a.name.as_deref() == Some("saturate"));
                nodes[i].attribute.push(EditAttribute {
                    name: Some("to".to_string()),
                    i: Some(i64::from(FLOAT16)),
                    r#type: Some(INT_ATTRIBUTE),
                    ..EditAttribute::default()
                });
            }
            if !kept[i] {
                report.tensors_converted += convert_attributes(&mut nodes[i], &mut report)?;
            }
        }
        for t in &self.outputs {
            at(t, Precision::Single, &mut names);
        }
        report.casts_inserted = casts.count();

        // The graph: each node followed by the casts of what it writes; inputs' and
        // initializers' casts first.
        let mut graph = self.graph.clone();
        graph.node = casts.take(None);
        for (i, mut node) in nodes.into_iter().enumerate() {
            if !outer_renames[i].is_empty() {
                for attribute in &mut node.attribute {
                    if let Some(g) = &attribute.g {
                        attribute.g = Some(rename_reads(g, &outer_renames[i])?);
                    }
                    for g in &mut attribute.graphs {
                        *g = rename_reads(g, &outer_renames[i])?;
                    }
                }
            }
            graph.node.push(node.encode_to_vec());
            graph.node.extend(casts.take(Some(i)));
        }
        graph.initializer = Vec::with_capacity(self.graph.initializer.len());
        for raw in &self.graph.initializer {
            let raw = self.inline_external(raw)?;
            let name = TensorName::decode(raw.as_slice())?.name.unwrap_or_default();
            if produced.get(&name) == Some(&Precision::Half) {
                let mut tensor = EditTensor::decode(raw.as_slice()).with_context(|| format!("initializer '{name}'"))?;
                to_half(&mut tensor, &mut report).with_context(|| format!("initializer '{name}'"))?;
                report.tensors_converted += 1;
                graph.initializer.push(tensor.encode_to_vec());
            } else {
                report.tensors_kept += usize::from(float_initializers.contains(&name));
                graph.initializer.push(raw);
            }
        }
        // Models of IR 3 list initializers among the graph's inputs, typed: float16 now.
        for raw in &mut graph.input {
            let mut value = ValueInfoProto::decode(raw.as_slice()).context("a graph input")?;
            let name = value.name.clone().unwrap_or_default();
            if self.initializers.contains_key(&name) && produced.get(&name) == Some(&Precision::Half) {
                if let Some(tensor) = value.r#type.as_mut().and_then(|t| t.tensor_type.as_mut()) {
                    tensor.elem_type = Some(FLOAT16);
                    *raw = value.encode_to_vec();
                }
            }
        }
        // The value infos typed the float32 graph; ONNX Runtime infers the new one's.
        graph.value_info.clear();
        let bytes = self.encode(graph)?;
        Ok((bytes, report))
    }
}

/// Every name the graph uses, so that new ones are new.
struct Names(HashSet<String>);

impl Names {
    fn new(graph: &Graph, nodes: &[EditNode]) -> Names {
        let mut taken: HashSet<String> = graph.inputs.iter().chain(&graph.outputs).cloned().collect();
        taken.extend(graph.initializers.keys().cloned());
        taken.extend(nodes.iter().flat_map(|n| n.input.iter().chain(&n.output)).cloned());
        Names(taken)
    }

    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 2;
        while self.0.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.0.insert(name.clone());
        name
    }
}

/// The casts inserted, one per tensor and precision, each to be written right after the node
/// that writes its tensor (`None`: a graph input or an initializer, written first).
#[derive(Default)]
struct Casts {
    made: HashMap<(String, Precision), String>,
    after: BTreeMap<Option<usize>, Vec<Vec<u8>>>,
}

impl Casts {
    /// The name `tensor` has in `to`, casting `source` (its written name) there once.
    fn add(&mut self, tensor: &str, source: &str, to: Precision, target: String, after: Option<usize>) -> String {
        if let Some(name) = self.made.get(&(tensor.to_string(), to)) {
            return name.clone();
        }
        let node = EditNode {
            input: vec![source.to_string()],
            output: vec![target.clone()],
            name: Some(format!("{target}__cast")),
            op_type: Some("Cast".to_string()),
            attribute: vec![EditAttribute {
                name: Some("to".to_string()),
                i: Some(i64::from(to.onnx_code())),
                r#type: Some(INT_ATTRIBUTE),
                ..EditAttribute::default()
            }],
            ..EditNode::default()
        };
        self.after.entry(after).or_default().push(node.encode_to_vec());
        self.made.insert((tensor.to_string(), to), target.clone());
        target
    }

    fn count(&self) -> usize {
        self.made.len()
    }

    fn take(&mut self, after: Option<usize>) -> Vec<Vec<u8>> {
        self.after.remove(&after).unwrap_or_default()
    }
}

/// A subgraph (and the subgraphs in it) with its reads of outer-scope tensors renamed.
fn rename_reads(graph: &[u8], renames: &HashMap<String, String>) -> Result<Vec<u8>> {
    let mut graph = RawGraph::decode(graph).context("a subgraph")?;
    for raw in &mut graph.node {
        let mut node = EditNode::decode(raw.as_slice()).context("a subgraph's node")?;
        for input in &mut node.input {
            if let Some(new) = renames.get(input) {
                input.clone_from(new);
            }
        }
        for attribute in &mut node.attribute {
            if let Some(g) = &attribute.g {
                attribute.g = Some(rename_reads(g, renames)?);
            }
            for g in &mut attribute.graphs {
                *g = rename_reads(g, renames)?;
            }
        }
        *raw = node.encode_to_vec();
    }
    Ok(graph.encode_to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::model::ModelInfo;

    fn model(name: &str) -> Graph {
        Graph::read(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models").join(name)).unwrap()
    }

    fn float32(names: &[&str]) -> HashMap<String, DType> {
        names.iter().map(|n| (n.to_string(), DType::Float32)).collect()
    }

    fn nodes(bytes: &[u8]) -> Vec<EditNode> {
        let graph = Graph::from_bytes(bytes, std::path::Path::new(".")).unwrap();
        graph.nodes().iter().map(|n| EditNode::decode(n.raw.as_slice()).unwrap()).collect()
    }

    #[test]
    fn inputs_and_outputs_stay_float32_through_casts_at_the_edges() {
        let (bytes, report) = model("add_mul.onnx").to_float16(&float32(&["x", "y", "sum", "product"]), &[]).unwrap();
        let info = ModelInfo::from_bytes(&bytes).unwrap();
        for io in info.inputs.iter().chain(&info.outputs) {
            assert_eq!(io.dtype.as_deref(), Some("float32"), "{}", io.name);
        }
        let nodes = nodes(&bytes);
        let ops: Vec<&str> = nodes.iter().map(|n| n.op_type.as_deref().unwrap()).collect();
        assert_eq!(ops, ["Cast", "Cast", "Add", "Cast", "Mul", "Cast"]);
        let add = &nodes[2];
        assert_eq!(
            (add.input.as_slice(), add.output.as_slice()),
            (["x__fp16".to_string(), "y__fp16".to_string()].as_slice(), ["sum__fp16".to_string()].as_slice())
        );
        assert_eq!(nodes[3].output, ["sum"], "the graph output keeps its name, in float32");
        assert_eq!(nodes[3].attribute[0].i, Some(1));
        assert_eq!((report.nodes_converted, report.casts_inserted), (2, 4));
    }

    #[test]
    fn initializers_become_float16_external_data_read_in() {
        let graph = model("external_weights.onnx");
        let (bytes, report) = graph.to_float16(&float32(&["x", "y"]), &[]).unwrap();
        assert_eq!(report.tensors_converted, 1);
        assert_eq!((report.bytes_before, report.bytes_after), (16, 8));
        let converted = Graph::from_bytes(&bytes, std::path::Path::new("/nonexistent")).unwrap();
        let raw = converted.initializers.values().next().unwrap();
        let tensor = EditTensor::decode(raw.as_slice()).unwrap();
        assert_eq!(tensor.data_type, Some(FLOAT16));
        assert_eq!(tensor.data_location, None, "the data is in the model now");
        let halves: Vec<f32> =
            tensor.raw_data.unwrap().chunks(2).map(|b| f16::from_le_bytes([b[0], b[1]]).to_f32()).collect();
        assert_eq!(halves.len(), 4);
    }

    #[test]
    fn what_stays_float32_is_cast_around_and_control_flow_reads_float32() {
        // gelu_hang: Neg, Neg, Gelu, Less, Squeeze, Loop (which reads the second Neg's output).
        let types = float32(&["x", "n", "p", "g", "y"]);
        let (bytes, report) = model("gelu_hang.onnx").to_float16(&types, &["Less".to_string()]).unwrap();
        assert_eq!(report.nodes_kept.get("Loop"), Some(&1));
        assert_eq!(report.nodes_kept.get("Less"), Some(&1));
        let nodes = nodes(&bytes);
        let less = nodes.iter().find(|n| n.op_type.as_deref() == Some("Less")).unwrap();
        assert_eq!(less.input[0], "g__fp32", "a kept node reads float32");
        assert_eq!(less.input[1], "threshold", "an initializer only kept nodes read stays float32");
        let lp = nodes.iter().find(|n| n.op_type.as_deref() == Some("Loop")).unwrap();
        assert_eq!(lp.input[2], "p__fp32");
        assert_eq!(report.tensors_kept, 1);
    }

    #[test]
    fn values_beyond_float16_are_clamped_and_counted() {
        let mut tensor = EditTensor {
            dims: vec![4],
            data_type: Some(FLOAT),
            float_data: vec![1e9, -1e9, 1e-9, 0.5],
            ..Default::default()
        };
        let mut report = Conversion::default();
        to_half(&mut tensor, &mut report).unwrap();
        let halves: Vec<f32> =
            tensor.raw_data.unwrap().chunks(2).map(|b| f16::from_le_bytes([b[0], b[1]]).to_f32()).collect();
        assert_eq!(halves, [65504.0, -65504.0, 0.0, 0.5]);
        assert_eq!((report.values_clamped, report.values_flushed), (2, 1));
    }
}
