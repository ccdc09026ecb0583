//! What a model file says about itself, read from its `ModelProto` without ONNX Runtime:
//! inputs and outputs with symbolic dimensions and denotations, opsets, producer and metadata.
//!
//! ONNX Runtime's own metadata API does not expose dimension denotations or the opset imports
//! of every domain, and `--dim` must be validated before the session is created.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use prost::Message;
use serde::{Deserialize, Serialize};

pub use super::outline::NodeOutline;
use crate::formats::onnx_proto::{ContainerTypeProto, ModelProto, TypeProto, ValueInfoProto};
use crate::tensor::DType;

/// One dimension of a graph input or output as declared in the model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DimInfo {
    /// A fixed size.
    pub value: Option<i64>,
    /// A symbolic (free) dimension's name, e.g. `batch`.
    pub param: Option<String>,
    /// The dimension's denotation, e.g. `DATA_BATCH`.
    pub denotation: Option<String>,
}

impl DimInfo {
    /// A free dimension no name can reach (`?`, empty or a negative size in the model).
    pub fn is_unnamed_free(&self) -> bool {
        self.value.is_none() && self.param.is_none()
    }

    /// `3`, `batch`, or `?` for a free dimension without a name.
    pub fn label(&self) -> String {
        match (&self.value, &self.param) {
            (Some(v), _) => v.to_string(),
            (None, Some(p)) => p.clone(),
            (None, None) => "?".to_string(),
        }
    }
}

/// What kind of value a graph input or output is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    #[default]
    Tensor,
    Sequence,
    /// `optional(tensor)` or `optional(sequence)`.
    Optional,
    Other,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoInfo {
    pub name: String,
    pub kind: ValueKind,
    /// ONNX element type name (`float32`, `int64`, ... and the complex types dmlrun does not
    /// carry), or `None` for non-tensor values: what `info` shows. Code reads it typed, through
    /// [`IoInfo::element_type`].
    pub dtype: Option<String>,
    pub dims: Vec<DimInfo>,
    /// The whole type for what is not a tensor, e.g. `seq(map(int64, float32))`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub type_name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opset {
    pub domain: String,
    pub version: i64,
}

/// A model file read once: what its header says, its SHA-256 (for cache keys) and its size.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelFile {
    pub info: ModelInfo,
    pub sha256: [u8; 32],
    /// The model file and its external data files together: what the model weighs.
    pub size_bytes: u64,
    /// The part of `size_bytes` in external data files (those that exist).
    pub external_data_bytes: u64,
    /// Reading, hashing and decoding the header.
    pub read_time: std::time::Duration,
}

/// A model file's bytes, or one line that says why not in the user's terms: no such file, a
/// folder, unreadable.
pub fn read_model_bytes(path: &Path) -> Result<Vec<u8>> {
    if path.is_dir() {
        anyhow::bail!("model {}: is a folder, not a model file", path.display());
    }
    std::fs::read(path).map_err(|e| anyhow::anyhow!("model {}: {}", path.display(), crate::fsutil::os_words(&e)))
}

impl ModelFile {
    /// Reads the file once, hashing the bytes read and decoding the header from them.
    pub fn read(path: &Path) -> Result<ModelFile> {
        use sha2::Digest;
        let started = std::time::Instant::now();
        let bytes = read_model_bytes(path)?;
        let info = ModelInfo::from_bytes(&bytes).with_context(|| format!("model {}", path.display()))?;
        let folder = path.parent().unwrap_or(Path::new("."));
        let external_data_bytes: u64 = info
            .external_data
            .iter()
            .filter_map(|file| std::fs::metadata(folder.join(file)).ok())
            .map(|m| m.len())
            .sum();
        Ok(ModelFile {
            info,
            sha256: sha2::Sha256::digest(&bytes).into(),
            size_bytes: bytes.len() as u64 + external_data_bytes,
            external_data_bytes,
            read_time: started.elapsed(),
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub ir_version: Option<i64>,
    pub producer_name: Option<String>,
    pub producer_version: Option<String>,
    pub domain: Option<String>,
    pub model_version: Option<i64>,
    pub doc_string: Option<String>,
    pub graph_name: Option<String>,
    pub node_count: usize,
    /// How many nodes of each operator type the main graph has.
    #[serde(default)]
    pub op_types: BTreeMap<String, usize>,
    /// The main graph's nodes, in outline: what `graph::Rewrite::fits` asks of them. Carried to
    /// an isolation child with the rest; `info --json` leaves it out.
    #[serde(default)]
    pub nodes: Vec<NodeOutline>,
    /// The nodes of its subgraphs (`If` branches, `Loop` and `Scan` bodies, at any depth), in
    /// outline: a rule rewrites there too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subgraph_nodes: Vec<NodeOutline>,
    /// The quantized form the model holds, if any (`info` says it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantized: Option<super::quantized::QuantizedForm>,
    /// Parameters and bytes of the weights (initializers) by element type.
    #[serde(default)]
    pub weights: super::weights::WeightSummary,
    pub opsets: Vec<Opset>,
    pub inputs: Vec<IoInfo>,
    pub outputs: Vec<IoInfo>,
    pub metadata: Vec<(String, String)>,
    /// The files initializers keep their data in (`location`, relative to the model), each once.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub external_data: Vec<String>,
}

/// ONNX `TensorProto.DataType` code to its numpy-style name: the names of [`DType`], so that
/// `info` and the input checks never disagree, plus the complex types dmlrun does not carry.
pub fn onnx_type_name(code: i32) -> &'static str {
    match DType::from_onnx_code(code) {
        Some(dtype) => dtype.name(),
        None if code == 14 => "complex64",
        None if code == 15 => "complex128",
        None => "undefined",
    }
}

/// How one of a model's outputs is quantized, where it is: what a difference in it is counted in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuantizedOutput {
    /// Written by a DequantizeLinear whose scale is this initializer: its step is the scale.
    Dequantized { scale: String },
    /// An integer tensor a QuantizeLinear or a QLinear operator writes: its step is 1.
    Integer,
}

impl IoInfo {
    /// The element type as dmlrun carries it; `None` for a non-tensor value or a type dmlrun
    /// does not carry (complex).
    pub fn element_type(&self) -> Option<DType> {
        self.dtype.as_deref().and_then(DType::parse)
    }
}

impl ModelInfo {
    /// The model's outputs that are quantized values, by name.
    pub fn quantized_outputs(&self) -> Vec<(String, QuantizedOutput)> {
        let mut found = Vec::new();
        for output in &self.outputs {
            let Some(node) = self.nodes.iter().find(|n| n.outputs.first() == Some(&output.name)) else { continue };
            let quantizing = node.op_type == "QuantizeLinear" || node.op_type.starts_with("QLinear");
            match node.op_type.as_str() {
                "DequantizeLinear" => match node.inputs.get(1) {
                    Some(scale) if !scale.is_empty() => {
                        found.push((output.name.clone(), QuantizedOutput::Dequantized { scale: scale.clone() }))
                    }
                    _ => {}
                },
                _ if quantizing => found.push((output.name.clone(), QuantizedOutput::Integer)),
                _ => {}
            }
        }
        found
    }

    /// Reads and decodes the model file's header (graph structure, not weights).
    pub fn read(path: &Path) -> Result<ModelInfo> {
        Ok(ModelFile::read(path)?.info)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<ModelInfo> {
        if bytes.is_empty() {
            anyhow::bail!("the file is empty, not an ONNX model");
        }
        // The decoder's own words (a wire type, a tag) tell a person nothing: what it means does.
        let model = ModelProto::decode(bytes).map_err(|_| {
            anyhow::anyhow!(
                "not an ONNX model: its bytes are not the protobuf an ONNX model is written in (a damaged or cut-short file, or another format)"
            )
        })?;
        let Some(graph) = model.graph else {
            anyhow::bail!("not a valid ONNX model (it has no graph)");
        };
        // Inputs are bound before ONNX Runtime sees the model, so what its checker would refuse
        // about them is refused here, as the model's fault.
        for (i, input) in graph.input.iter().enumerate() {
            let name = input.name.as_deref().unwrap_or_default();
            if name.is_empty() {
                anyhow::bail!("not a valid ONNX model (graph input {i} has no name)");
            }
            let Some(ty) = &input.r#type else {
                anyhow::bail!("not a valid ONNX model (graph input '{name}' has no type)");
            };
            if let Some(code) = ty.tensor_type.as_ref().and_then(|t| t.elem_type) {
                if onnx_type_name(code) == "undefined" {
                    anyhow::bail!("not a valid ONNX model (graph input '{name}' has element type {code}, which ONNX does not define)");
                }
            }
        }
        let nodes: Vec<NodeOutline> = graph.node.iter().map(NodeOutline::of).collect();
        let mut subgraph_nodes = Vec::new();
        outline_subgraphs(&graph.node, &mut subgraph_nodes);
        let initializers: super::quantized::Initializers = graph
            .initializer
            .iter()
            .filter_map(|t| Some((t.name.clone()?, (t.data_type.unwrap_or(0), t.dims.clone()))))
            .collect();
        let quantized = super::quantized::QuantizedForm::of(&nodes, &initializers);
        let weights = super::weights::WeightSummary::of(&nodes, &initializers);
        Ok(ModelInfo {
            ir_version: model.ir_version,
            producer_name: model.producer_name.filter(|s| !s.is_empty()),
            producer_version: model.producer_version.filter(|s| !s.is_empty()),
            domain: model.domain.filter(|s| !s.is_empty()),
            model_version: model.model_version,
            doc_string: model.doc_string.filter(|s| !s.is_empty()),
            graph_name: graph.name,
            node_count: graph.node.len(),
            op_types: {
                let mut counts = BTreeMap::new();
                for node in &graph.node {
                    *counts.entry(node.op_type.clone().unwrap_or_default()).or_insert(0) += 1;
                }
                counts
            },
            nodes,
            subgraph_nodes,
            quantized,
            weights,
            opsets: model
                .opset_import
                .iter()
                .map(|o| Opset {
                    domain: o.domain.clone().filter(|d| !d.is_empty()).unwrap_or_else(|| "ai.onnx".to_string()),
                    version: o.version.unwrap_or(0),
                })
                .collect(),
            inputs: graph
                .input
                .iter()
                .filter(|i| !graph.initializer.iter().any(|init| init.name.is_some() && init.name == i.name))
                .map(io_info)
                .collect(),
            outputs: graph.output.iter().map(io_info).collect(),
            external_data: {
                let mut files: Vec<String> = Vec::new();
                let locations = graph.initializer.iter().flat_map(|i| &i.external_data);
                for entry in locations.filter(|e| e.key.as_deref() == Some("location")) {
                    let file = entry.value.clone().unwrap_or_default();
                    if !files.contains(&file) {
                        files.push(file);
                    }
                }
                files
            },
            metadata: model
                .metadata_props
                .iter()
                .map(|e| (e.key.clone().unwrap_or_default(), e.value.clone().unwrap_or_default()))
                .collect(),
        })
    }

    /// Distinct symbolic dimension names over all inputs, in order of appearance.
    pub fn symbolic_dims(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for dim in self.inputs.iter().flat_map(|i| &i.dims) {
            if let (None, Some(p)) = (&dim.value, &dim.param) {
                if !names.contains(p) {
                    names.push(p.clone());
                }
            }
        }
        names
    }

    /// Distinct dimension denotations over all inputs.
    pub fn dim_denotations(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for den in self.inputs.iter().flat_map(|i| &i.dims).filter_map(|d| d.denotation.as_ref()) {
            if !names.contains(den) {
                names.push(den.clone());
            }
        }
        names
    }

    pub fn input(&self, name: &str) -> Option<&IoInfo> {
        self.inputs.iter().find(|i| i.name == name)
    }
}

fn io_info(value: &ValueInfoProto) -> IoInfo {
    let tensor = value.r#type.as_ref().and_then(|t| t.tensor_type.as_ref());
    let kind = match &value.r#type {
        Some(t) if t.tensor_type.is_some() => ValueKind::Tensor,
        Some(t) if t.sequence_type.is_some() => ValueKind::Sequence,
        Some(t) if t.optional_type.is_some() => ValueKind::Optional,
        _ => ValueKind::Other,
    };
    // For sequences and optionals, the innermost tensor's element type.
    let mut inner = value.r#type.as_ref();
    while let Some(t) = inner {
        if t.tensor_type.is_some() {
            break;
        }
        inner = t.sequence_type.as_ref().or(t.optional_type.as_ref()).and_then(|c| c.elem_type.as_deref());
    }
    let elem_type = inner.and_then(|t| t.tensor_type.as_ref()).and_then(|t| t.elem_type);
    IoInfo {
        name: value.name.clone().unwrap_or_default(),
        type_name: value.r#type.as_ref().filter(|t| t.tensor_type.is_none()).map(describe_type),
        kind,
        dtype: elem_type.map(|c| onnx_type_name(c).to_string()),
        dims: tensor
            .and_then(|t| t.shape.as_ref())
            .map(|s| {
                s.dim
                    .iter()
                    .map(|d| DimInfo {
                        // ONNX Runtime reads a negative size as unknown, as some exporters write them.
                        value: d.dim_value.filter(|v| *v >= 0),
                        param: d.dim_param.clone().filter(|p| !is_unnamed(p)),
                        denotation: d.denotation.clone().filter(|p| !p.is_empty()),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// ONNX's notation for a type: `float32`, `seq(float32)`, `map(int64, float32)`, `optional(...)`.
fn describe_type(ty: &TypeProto) -> String {
    let inner = |t: &Option<Box<ContainerTypeProto>>| {
        t.as_ref().and_then(|c| c.elem_type.as_deref()).map_or_else(|| "?".to_string(), describe_type)
    };
    if let Some(tensor) = &ty.tensor_type {
        tensor.elem_type.map_or("?", onnx_type_name).to_string()
    } else if ty.sequence_type.is_some() {
        format!("seq({})", inner(&ty.sequence_type))
    } else if let Some(map) = &ty.map_type {
        let value = map.value_type.as_deref().map_or_else(|| "?".to_string(), describe_type);
        format!("map({}, {value})", map.key_type.map_or("?", onnx_type_name))
    } else if ty.optional_type.is_some() {
        format!("optional({})", inner(&ty.optional_type))
    } else {
        "unknown".to_string()
    }
}

/// Whether a `dim_param` leaves its dimension without a name: empty, or Paddle's literal `?` for
/// "unknown" (two `?` in one input are two independent sizes, not one name used twice).
fn is_unnamed(param: &str) -> bool {
    param.is_empty() || param == "?"
}

/// The outlines of every node in `nodes`' subgraphs, at any depth (a subgraph that cannot be
/// decoded is left out: ONNX Runtime says what is wrong with it).
fn outline_subgraphs(nodes: &[super::onnx_proto::lossless::EditNode], found: &mut Vec<NodeOutline>) {
    for node in nodes {
        for subgraph in node.attribute.iter().filter_map(|a| a.subgraphs().ok()).flatten() {
            found.extend(subgraph.node.iter().map(NodeOutline::of));
            outline_subgraphs(&subgraph.node, found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_file_read_once_survives_the_trip_to_an_isolation_child() {
        // What a preflight hands a child: every model of the tests, the external-data one too.
        let models = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/models");
        for name in ["add_mul.onnx", "external_weights.onnx", "zipmap_classifier.onnx", "unnamed_dims.onnx"] {
            let file = ModelFile::read(&models.join(name)).unwrap();
            let back: ModelFile = serde_json::from_str(&serde_json::to_string(&file).unwrap()).unwrap();
            assert_eq!(back.info, file.info, "{name}");
            assert_eq!((back.sha256, back.size_bytes), (file.sha256, file.size_bytes), "{name}");
        }
    }

    #[test]
    fn type_names_cover_every_dtype() {
        for dtype in DType::ALL {
            assert_eq!(onnx_type_name(dtype.onnx_code()), dtype.name());
        }
        assert_eq!(onnx_type_name(26), "int2");
        assert_eq!(onnx_type_name(14), "complex64");
        assert_eq!(onnx_type_name(99), "undefined");
    }

    #[test]
    fn initializers_listed_as_inputs_are_not_inputs() {
        use crate::formats::onnx_proto::{GraphProto, InitializerName};
        let float = crate::formats::onnx_proto::TypeProto {
            tensor_type: Some(crate::formats::onnx_proto::TensorTypeProto { elem_type: Some(1), shape: None }),
            ..Default::default()
        };
        let input =
            |name: &str| ValueInfoProto { name: Some(name.into()), r#type: Some(float.clone()), doc_string: None };
        let model = ModelProto {
            ir_version: Some(3),
            graph: Some(GraphProto {
                input: vec![input("data"), input("conv_w")],
                initializer: vec![InitializerName { name: Some("conv_w".into()), ..Default::default() }],
                ..GraphProto::default()
            }),
            ..ModelProto::default()
        };
        let info = ModelInfo::from_bytes(&model.encode_to_vec()).unwrap();
        assert_eq!(info.inputs.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), ["data"]);
    }

    #[test]
    fn empty_and_garbage_bytes_are_clear_errors() {
        assert!(ModelInfo::from_bytes(b"").unwrap_err().to_string().contains("empty"));
        let err = ModelInfo::from_bytes(b"hello, this is a text file\n").unwrap_err().to_string();
        assert!(err.contains("not an ONNX model"), "{err}");
    }
}
