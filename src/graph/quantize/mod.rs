//! `--precision int4` / `int8`: weight-only quantization, as ONNX Runtime's
//! `MatMulNBitsQuantizer` does it by default (QOperator, no accuracy level): every `MatMul` of the
//! main graph whose second input is a float32 or float16 initializer of two dimensions becomes a
//! `com.microsoft` `MatMulNBits` (attributes K, N, bits, block_size) reading the weight quantized
//! block-wise ([`blockwise`]), named as that quantizer names them (`NODE_Q4`, `W_Q4`, `W_scales`,
//! `W_zero_points`); the rest of the graph is copied as it is, byte for byte.
//!
//! The pass streams: each weight is read (from the model, or from its external data file at its
//! offset), quantized and written before the next is read, so a model of gigabytes needs about
//! one weight's memory, not the model's. A model with external data is written with external
//! data (its own `NAME.data`, each tensor at an aligned offset: `onnx_proto::external`); one without stays one file.

mod blockwise;

pub use blockwise::Blockwise;

use std::collections::{BTreeMap, HashMap, HashSet};

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use half::f16;
use prost::Message;
use serde::{Deserialize, Serialize};

use crate::formats::onnx_proto::external::{DataFile, ExternalReader, ExternalRef, INLINE_BELOW};
use crate::formats::onnx_proto::header::TensorHeader;
use crate::formats::onnx_proto::lossless::{
    EditAttribute, EditNode, EditTensor, OpsetView, RawGraph, RawModel, TensorName, ValueName,
};

const FLOAT: i32 = 1;
const UINT8: i32 = 2;
const FLOAT16: i32 = 10;
const INT_ATTRIBUTE: i32 = 2;

/// What `--precision int4` asks of the pass.
#[derive(Debug, Clone)]
pub struct WeightOnly {
    pub blockwise: Blockwise,
    /// Node names (or `*` patterns, or operator types) left as they are: `--keep-fp32`.
    pub keep: Vec<String>,
    /// DirectML's `MatMulNBits` takes whole blocks only: a weight whose K is not a multiple of
    /// the block size is left as it is (it would run on the CPU), not padded as ONNX Runtime's
    /// quantizer pads it for its CPU kernel.
    pub whole_blocks_only: bool,
    /// The nodes' `accuracy_level` attribute; none written where `None` (or 0), as ONNX
    /// Runtime's quantizer leaves it out.
    pub accuracy_level: Option<u8>,
}

/// A `MatMul` left as written, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftMatMul {
    pub node: String,
    pub why: String,
}

/// What the quantization did, for the reports and the saved model's record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Quantization {
    pub bits: u8,
    pub block_size: usize,
    pub symmetric: bool,
    /// The `accuracy_level` the nodes were written with (none: the attribute left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy_level: Option<u8>,
    /// `MatMul` nodes in the main graph.
    pub matmuls: usize,
    /// Of them, now `MatMulNBits`.
    pub converted: usize,
    /// Those left as written, each with why.
    #[serde(default)]
    pub left: Vec<LeftMatMul>,
    /// Converted MatMuls whose K is not a whole number of blocks: their last block padded with
    /// zeros, as ONNX Runtime's quantizer pads it (its CPU kernel takes it; DirectML's does not,
    /// and there they are left instead).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub padded: Vec<String>,
    /// The converted weights' bytes before, and the bytes of what replaced them.
    pub bytes_before: u64,
    pub bytes_after: u64,
}

impl Quantization {
    pub fn converted_anything(&self) -> bool {
        self.converted > 0
    }

    /// `int4, block 32, symmetric, no accuracy level (the kernel's default): 30 of 31 MatMuls now MatMulNBits, their weights 512.0 MiB
    /// now 72.0 MiB; left: '/lm_head/MatMul' (kept by --keep-fp32)`.
    pub fn describe(&self) -> String {
        let kind = if self.symmetric { "symmetric" } else { "asymmetric (zero points)" };
        let mut text = format!(
            "int{}, block {}, {kind}, {}: {} of {} MatMuls now MatMulNBits",
            self.bits,
            self.block_size,
            describe_accuracy_level(self.accuracy_level),
            self.converted,
            self.matmuls
        );
        if self.converted > 0 {
            text += &format!(", their weights {} now {}", size(self.bytes_before), size(self.bytes_after));
        }
        if !self.left.is_empty() {
            let mut by_why: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for left in &self.left {
                by_why.entry(&left.why).or_default().push(&left.node);
            }
            let parts: Vec<String> = by_why
                .into_iter()
                .map(|(why, nodes)| {
                    let shown: Vec<String> = nodes.iter().take(3).map(|n| format!("'{n}'")).collect();
                    let more = if nodes.len() > 3 { format!(" and {} more", nodes.len() - 3) } else { String::new() };
                    format!("{}{more} ({why})", shown.join(", "))
                })
                .collect();
            text += &format!("; left as written: {}", parts.join("; "));
        }
        if !self.padded.is_empty() {
            let nodes: Vec<String> = self.padded.iter().take(3).map(|n| format!("'{n}'")).collect();
            let more = match self.padded.len() {
                n if n > 3 => format!(" and {} more", n - 3),
                _ => String::new(),
            };
            text += &format!(
                "; {}{more} with K not a whole number of blocks, the last block padded with zeros",
                nodes.join(", ")
            );
        }
        text
    }
}

/// `accuracy level 4 (int8 activations)`, or `no accuracy level` where the attribute is left out.
pub fn describe_accuracy_level(level: Option<u8>) -> String {
    let what = match level {
        None | Some(0) => return "no accuracy level (the kernel's default)".into(),
        Some(1) => "float32",
        Some(2) => "float16",
        Some(3) => "bfloat16",
        Some(_) => "int8 activations",
    };
    format!("accuracy level {} ({what})", level.unwrap_or_default())
}

/// `512.0 MiB`, `20.5 KiB`.
fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
        b => format!("{:.1} KiB", b as f64 / 1024.0),
    }
}

/// A weight as the model stores it: its header, and where its bytes are.
struct Weight {
    dims: Vec<i64>,
    data_type: i32,
    /// In the model (`raw_data` or `float_data`), or in an external file.
    external: Option<ExternalRef>,
}

/// Quantizes the model at `source` into `dest` (and `dest.data` where the source keeps its
/// weights in external data). Returns the files written and what was done.
pub fn quantize_model(source: &Path, dest: &Path, options: &WeightOnly) -> Result<(Vec<PathBuf>, Quantization)> {
    let bytes = crate::formats::model::read_model_bytes(source)?;
    let folder = source.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let mut model = RawModel::decode(bytes.as_slice()).context("not an ONNX model (protobuf)")?;
    let graph_bytes = model.graph.take().context("the model has no graph")?;
    drop(bytes);
    let mut graph = RawGraph::decode(graph_bytes.as_slice()).context("the model's graph is not valid protobuf")?;
    drop(graph_bytes);
    let mut plan = Plan::of(&graph, &folder, options)?;
    let data = match plan.external {
        true => Some(DataFile::beside(dest)?),
        false => None,
    };
    let mut writer = TensorWriter { data };
    let mut reader = ExternalReader::new(&folder);

    // The originals, but the weights only converted nodes read (kept aside, each until it is
    // quantized: a model's data is held once); then the new tensors.
    let to_quantize: HashSet<String> = plan.converted.values().map(|c| c.weight.clone()).collect();
    let mut initializers = Vec::with_capacity(graph.initializer.len());
    for raw in std::mem::take(&mut graph.initializer) {
        let name = TensorName::decode(raw.as_slice())?.name.unwrap_or_default();
        if plan.dropped.contains(&name) {
            plan.raw.insert(name, raw);
            continue;
        }
        if to_quantize.contains(&name) {
            plan.raw.insert(name, raw.clone());
        }
        initializers.push(writer.copy(raw, &mut reader)?);
    }
    let mut report = std::mem::take(&mut plan.report);
    let mut made: HashMap<String, Vec<String>> = HashMap::new();
    let mut nodes = Vec::with_capacity(graph.node.len());
    for raw in std::mem::take(&mut graph.node) {
        let Some(convert) = plan.converted.remove(&nodes.len()) else {
            nodes.push(raw);
            continue;
        };
        if !made.contains_key(&convert.weight) {
            let (names, tensors) = quantize_weight(&mut plan, &convert.weight, options, &mut reader, &mut report)?;
            for (name, data_type, dims, data) in tensors {
                initializers.push(writer.write_new(&name, data_type, &dims, data)?);
            }
            made.insert(convert.weight.clone(), names);
        }
        let view = EditNode::decode(raw.as_slice())?;
        let weight = &plan.weights[&convert.weight];
        nodes.push(matmul_nbits(&view, &made[&convert.weight], options, weight).encode_to_vec());
    }
    graph.node = nodes;
    graph.initializer = initializers;
    if !model
        .opset_import
        .iter()
        .any(|o| OpsetView::decode(o.as_slice()).is_ok_and(|o| o.domain.as_deref() == Some("com.microsoft")))
    {
        let opset = OpsetView { domain: Some("com.microsoft".into()), version: Some(1) };
        model.opset_import.push(opset.encode_to_vec());
    }
    model.graph = Some(graph.encode_to_vec());
    let mut files = writer.finish()?;
    let bytes = model.encode_to_vec();
    if bytes.len() >= (2usize << 30) {
        bail!("the quantized model would be {} bytes, over protobuf's 2 GiB", bytes.len());
    }
    crate::fsutil::write_atomic(dest, &bytes)?;
    files.insert(0, dest.to_path_buf());
    Ok((files, report))
}

/// A new tensor: name, ONNX element type, dims, bytes.
type NewTensor = (String, i32, Vec<usize>, Vec<u8>);

/// One weight read and quantized: the names of what replaces it, and those tensors.
fn quantize_weight(
    plan: &mut Plan,
    name: &str,
    options: &WeightOnly,
    reader: &mut ExternalReader,
    report: &mut Quantization,
) -> Result<(Vec<String>, Vec<NewTensor>)> {
    let raw = plan.raw.remove(name).unwrap_or_default();
    let weight = &plan.weights[name];
    let bytes = weight_values(reader, name, weight, &raw)?;
    drop(raw);
    let (k, n) = (weight.dims[0] as usize, weight.dims[1] as usize);
    let quantized = match weight.data_type {
        FLOAT16 => options.blockwise.quantize::<f16>(&bytes, k, n),
        _ => options.blockwise.quantize::<f32>(&bytes, k, n),
    };
    report.bytes_before += (k * n * if weight.data_type == FLOAT16 { 2 } else { 4 }) as u64;
    let names = new_tensors(name, options.blockwise.bits);
    let mut tensors = vec![
        (names[0].clone(), UINT8, vec![n, quantized.blocks, quantized.blob], quantized.packed),
        (names[1].clone(), weight.data_type, vec![n, quantized.blocks], quantized.scales),
    ];
    if let Some(zero_points) = quantized.zero_points {
        tensors.push((names[2].clone(), UINT8, vec![n, quantized.zero_point_bytes], zero_points));
    }
    report.bytes_after += tensors.iter().map(|t| t.3.len() as u64).sum::<u64>();
    Ok((names, tensors))
}

/// `W_Q4`, `W_scales`, `W_zero_points`: ONNX Runtime's quantizer's names.
fn new_tensors(weight: &str, bits: u8) -> Vec<String> {
    vec![format!("{weight}_Q{bits}"), format!("{weight}_scales"), format!("{weight}_zero_points")]
}

fn matmul_nbits(view: &EditNode, names: &[String], options: &WeightOnly, weight: &Weight) -> EditNode {
    let int = |name: &str, value: i64| EditAttribute {
        name: Some(name.into()),
        i: Some(value),
        r#type: Some(INT_ATTRIBUTE),
        ..EditAttribute::default()
    };
    let mut inputs = vec![view.input[0].clone(), names[0].clone(), names[1].clone()];
    if !options.blockwise.symmetric {
        inputs.push(names[2].clone());
    }
    let name = view.name.as_deref().filter(|n| !n.is_empty());
    EditNode {
        input: inputs,
        output: view.output.clone(),
        name: Some(name.map_or_else(String::new, |n| format!("{n}_Q{}", options.blockwise.bits))),
        op_type: Some("MatMulNBits".into()),
        domain: Some("com.microsoft".into()),
        // As onnx.helper.make_node writes them: sorted by name (upper case first), and
        // accuracy_level only where it is not 0, as ONNX Runtime's quantizer writes it.
        attribute: [
            Some(int("K", weight.dims[0])),
            Some(int("N", weight.dims[1])),
            options.accuracy_level.filter(|&level| level > 0).map(|level| int("accuracy_level", level as i64)),
            Some(int("bits", options.blockwise.bits as i64)),
            Some(int("block_size", options.blockwise.block_size as i64)),
        ]
        .into_iter()
        .flatten()
        .collect(),
        ..EditNode::default()
    }
}

/// A `MatMul` to convert: its weight's name.
struct Convert {
    weight: String,
}

/// What the pass will do, decided from the graph before any weight is read.
struct Plan {
    /// By node index.
    converted: HashMap<usize, Convert>,
    /// Weights only converted nodes read.
    dropped: HashSet<String>,
    weights: HashMap<String, Weight>,
    /// The encoded initializers of the weights to convert (their data, when in the model), from
    /// when the initializers are copied until each is quantized.
    raw: HashMap<String, Vec<u8>>,
    /// Whether the output keeps its weights in external data.
    external: bool,
    report: Quantization,
}

impl Plan {
    fn of(graph: &RawGraph, folder: &Path, options: &WeightOnly) -> Result<Plan> {
        let graph_inputs: HashSet<String> =
            graph.input.iter().filter_map(|v| ValueName::decode(v.as_slice()).ok()?.name).collect();
        let mut weights = HashMap::new();
        let mut external = false;
        for raw in &graph.initializer {
            let header = TensorHeader::decode(raw.as_slice()).context("an initializer")?;
            let name = header.name.clone().unwrap_or_default();
            let external_ref = header.external_ref(folder)?;
            external |= external_ref.is_some();
            weights.insert(
                name.clone(),
                Weight { dims: header.dims.clone(), data_type: header.data_type.unwrap_or(0), external: external_ref },
            );
        }
        let mut report = Quantization {
            bits: options.blockwise.bits,
            block_size: options.blockwise.block_size,
            symmetric: options.blockwise.symmetric,
            accuracy_level: options.accuracy_level.filter(|&level| level > 0),
            ..Quantization::default()
        };
        let mut converted = HashMap::new();
        let mut matmul_names = Vec::new();
        let mut readers: HashMap<String, usize> = HashMap::new();
        let mut converted_readers: HashMap<String, usize> = HashMap::new();
        for (index, raw) in graph.node.iter().enumerate() {
            let view = EditNode::decode(raw.as_slice()).context("a node")?;
            let node = super::node_of(index, view, Vec::new())?;
            for read in node.reads() {
                *readers.entry(read.to_string()).or_default() += 1;
            }
            if node.op_type != "MatMul" || node.domain != "ai.onnx" || node.inputs.len() != 2 {
                continue;
            }
            report.matmuls += 1;
            matmul_names.push(node.name.clone());
            let weight_name = &node.inputs[1];
            match why_left(&node, weights.get(weight_name), graph_inputs.contains(weight_name), options) {
                Some(why) => report.left.push(LeftMatMul { node: node.name.clone(), why }),
                None => {
                    let k = weights[weight_name].dims[0] as usize;
                    if k % options.blockwise.block_size != 0 {
                        report.padded.push(node.name.clone());
                    }
                    report.converted += 1;
                    *converted_readers.entry(weight_name.clone()).or_default() += 1;
                    converted.insert(index, Convert { weight: weight_name.clone() });
                }
            }
        }
        check_keep_matches(&options.keep, &matmul_names)?;
        let dropped: HashSet<String> = converted_readers
            .iter()
            .filter(|(name, n)| readers.get(*name) == Some(n))
            .map(|(n, _)| n.clone())
            .collect();
        Ok(Plan { converted, dropped, weights, raw: HashMap::new(), external, report })
    }
}

/// A `--keep-fp32` entry that names no MatMul keeps nothing: a typo (`'*lm_haed*'`) would quantize
/// the head silently, so it is refused, the nearest names or a few of the MatMuls named.
fn check_keep_matches(keep: &[String], matmuls: &[String]) -> Result<()> {
    for entry in keep {
        if entry == "MatMul" || matmuls.iter().any(|name| matches_pattern(entry, name)) {
            continue;
        }
        let near = crate::suggest::closest(entry, matmuls.iter().cloned());
        let shown: Vec<String> = match near.is_empty() {
            false => near.iter().map(|n| format!("'{n}'")).collect(),
            true => matmuls.iter().take(3).map(|n| format!("'{n}'")).collect(),
        };
        let candidates = match (near.is_empty(), matmuls.len()) {
            (_, 0) => "it has none".to_string(),
            (false, _) => format!("did you mean {}?", shown.join(", ")),
            (true, n) if n > 3 => format!("its MatMuls: {} and {} more", shown.join(", "), n - 3),
            (true, _) => format!("its MatMuls: {}", shown.join(", ")),
        };
        bail!("--keep-fp32 {entry}: no MatMul of the model is named so or matches it ({candidates})");
    }
    Ok(())
}

/// Why a `MatMul` is left as written, or `None` where it is converted.
fn why_left(node: &super::Node, weight: Option<&Weight>, overridable: bool, options: &WeightOnly) -> Option<String> {
    if options.keep.iter().any(|k| k == &node.op_type || matches_pattern(k, &node.name)) {
        return Some("kept by --keep-fp32".into());
    }
    let Some(weight) = weight else { return Some("its weight is computed, not an initializer".into()) };
    if overridable {
        return Some("its weight is also a graph input, which a run may replace".into());
    }
    if weight.dims.len() != 2 {
        return Some(format!("its weight has {} dimensions, not 2", weight.dims.len()));
    }
    if !matches!(weight.data_type, FLOAT | FLOAT16) {
        return Some("its weight is neither float32 nor float16".into());
    }
    let k = weight.dims[0] as usize;
    if options.whole_blocks_only && k % options.blockwise.block_size != 0 {
        return Some(format!(
            "K {k} is not a whole number of {}-blocks, which DirectML's MatMulNBits needs",
            options.blockwise.block_size
        ));
    }
    None
}

/// `name` against `pattern`, where `*` stands for any run of characters.
pub fn matches_pattern(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// A weight's values as little-endian bytes, from the model or its external file.
fn weight_values(reader: &mut ExternalReader, name: &str, weight: &Weight, raw: &[u8]) -> Result<Vec<u8>> {
    let count: usize = weight.dims.iter().map(|&d| d as usize).product();
    let bytes = match &weight.external {
        Some(at) => reader.read(name, at)?,
        None => {
            let tensor = EditTensor::decode(raw).context("an initializer")?;
            match tensor.raw_data {
                Some(bytes) => bytes,
                None if weight.data_type == FLOAT => tensor.float_data.iter().flat_map(|v| v.to_le_bytes()).collect(),
                // float16 without raw_data: its bit patterns in int32_data.
                None => tensor.int32_data.iter().flat_map(|&v| (v as u16).to_le_bytes()).collect(),
            }
        }
    };
    let width = if weight.data_type == FLOAT16 { 2 } else { 4 };
    if bytes.len() != count * width {
        bail!("initializer '{name}': {} bytes for {count} values", bytes.len());
    }
    Ok(bytes)
}

/// Where tensors go: into the model, or (external) into its data file, as they come.
struct TensorWriter {
    data: Option<DataFile>,
}

impl TensorWriter {
    /// An original initializer: as it is where the output is one file; else its data (from the
    /// model or the source's data file) moved to the output's data file.
    fn copy(&mut self, raw: Vec<u8>, reader: &mut ExternalReader) -> Result<Vec<u8>> {
        match &mut self.data {
            None => Ok(raw),
            Some(data) => data.copy(&raw, reader),
        }
    }

    fn write_new(&mut self, name: &str, data_type: i32, dims: &[usize], data: Vec<u8>) -> Result<Vec<u8>> {
        let mut tensor = EditTensor {
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type: Some(data_type),
            name: Some(name.to_string()),
            ..EditTensor::default()
        };
        match &mut self.data {
            Some(file) if data.len() >= INLINE_BELOW => file.place(&mut tensor, &data)?,
            _ => tensor.raw_data = Some(data),
        }
        Ok(tensor.encode_to_vec())
    }

    fn finish(self) -> Result<Vec<PathBuf>> {
        self.data.map(DataFile::finish).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(whole_blocks_only: bool) -> WeightOnly {
        WeightOnly {
            blockwise: Blockwise { bits: 4, block_size: 32, symmetric: true },
            keep: Vec::new(),
            whole_blocks_only,
            accuracy_level: None,
        }
    }

    #[test]
    fn directml_leaves_a_weight_that_is_not_whole_blocks_and_the_cpu_takes_it_padded() {
        let dir = tempfile::tempdir().unwrap();
        let source = Path::new("tests/models/matmul_weights.onnx");
        let (_, cpu) = quantize_model(source, &dir.path().join("cpu.onnx"), &options(false)).unwrap();
        let (_, dml) = quantize_model(source, &dir.path().join("dml.onnx"), &options(true)).unwrap();
        assert_eq!((cpu.converted, dml.converted), (3, 2));
        assert_eq!((cpu.padded.as_slice(), dml.padded.as_slice()), (&["partial".to_string()][..], &[][..]));
        let partial = dml.left.iter().find(|l| l.node == "partial").unwrap();
        assert_eq!(partial.why, "K 48 is not a whole number of 32-blocks, which DirectML's MatMulNBits needs");
    }

    #[test]
    fn a_model_with_external_data_is_written_with_its_own_aligned_data_file() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("model.onnx");
        let (files, q) =
            quantize_model(Path::new("tests/models/tiny_decoder/model.onnx"), &dest, &options(false)).unwrap();
        assert_eq!(files, [dest.clone(), dir.path().join("model.onnx.data")]);
        assert_eq!(q.converted, 15);
        let graph = crate::graph::Graph::read(&dest).unwrap();
        let model = RawModel::decode(std::fs::read(&dest).unwrap().as_slice()).unwrap();
        let raw = RawGraph::decode(model.graph.unwrap().as_slice()).unwrap();
        let mut external = 0;
        for tensor in &raw.initializer {
            let header = TensorHeader::decode(tensor.as_slice()).unwrap();
            if let Some(at) = header.external_ref(dir.path()).unwrap() {
                assert_eq!(at.offset % crate::formats::onnx_proto::EXTERNAL_DATA_ALIGN, 0, "{:?}", header.name);
                external += 1;
            }
        }
        assert!(external >= 15, "each quantized weight in the data file: {external}");
        assert_eq!(graph.nodes().iter().filter(|n| n.op_type == "MatMulNBits").count(), 15);
        assert!(graph.nodes().iter().all(|n| n.op_type != "MatMul"));
    }

    #[test]
    fn a_keep_entry_that_matches_no_matmul_is_refused_with_the_names_near_it() {
        let names = ["/model/lm_head/MatMul".to_string(), "/model/layers.0/mlp/MatMul".to_string()];
        assert!(check_keep_matches(&["*lm_head*".into(), "MatMul".into()], &names).is_ok());
        let typo = check_keep_matches(&["/model/lm_haed/MatMul".into()], &names).unwrap_err().to_string();
        assert!(typo.contains("did you mean '/model/lm_head/MatMul'"), "{typo}");
        let nothing = check_keep_matches(&["nomatch*".into()], &names).unwrap_err().to_string();
        assert_eq!(
            nothing,
            "--keep-fp32 nomatch*: no MatMul of the model is named so or matches it (its MatMuls: '/model/lm_head/MatMul', '/model/layers.0/mlp/MatMul')"
        );
    }

    #[test]
    fn a_pattern_matches_any_run_of_characters_where_it_says_star() {
        assert!(matches_pattern("/lm_head/MatMul", "/lm_head/MatMul"));
        assert!(matches_pattern("*lm_head*", "/model/lm_head/MatMul"));
        assert!(matches_pattern("head*", "head"));
        assert!(matches_pattern("/layers.*/attn/*", "/layers.3/attn/q_proj/MatMul"));
        assert!(!matches_pattern("head*", "lm_head"));
        assert!(!matches_pattern("a*b*c", "a-c-b"));
        assert!(!matches_pattern("ab*ba", "aba"));
    }
}
