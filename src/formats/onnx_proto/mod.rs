//! ONNX's protobuf messages (onnx/onnx.proto, field numbers ONNX's), in one home, as two views
//! of the same bytes:
//!
//! - [`header`]: what dmlrun reads of a model without its weights (inputs, outputs, opsets,
//!   node op types, initializer names): the fields it does not declare are skipped unallocated,
//!   so reading a large model's header stays cheap;
//! - [`lossless`]: a model read for rewriting (reduce's extraction, the float16 conversion, the
//!   verified rewrites): every field declared, the messages not looked into kept as their
//!   encoded bytes, so nothing is lost when a model is written back.

pub mod external;
pub mod header;
pub mod lossless;

pub use external::EXTERNAL_DATA_ALIGN;

pub use header::*;

/// `model` (a ModelProto's bytes) with `entries` as its metadata_props under `prefix`: the
/// entries already under that prefix (a model dmlrun wrote before) are replaced, every other
/// field is kept as it was, byte for byte.
pub fn with_metadata(model: &[u8], prefix: &str, entries: &[(String, String)]) -> anyhow::Result<Vec<u8>> {
    use prost::Message;
    let mut raw = lossless::RawModel::decode(model).map_err(|e| anyhow::anyhow!("not an ONNX model: {e}"))?;
    raw.metadata_props.retain(|entry| {
        header::StringStringEntryProto::decode(entry.as_slice())
            .map_or(true, |e| !e.key.as_deref().unwrap_or("").starts_with(prefix))
    });
    for (key, value) in entries {
        let entry = header::StringStringEntryProto { key: Some(key.clone()), value: Some(value.clone()) };
        raw.metadata_props.push(entry.encode_to_vec());
    }
    Ok(raw.encode_to_vec())
}

/// The sizes `with_fixed_dims` gives: free dimensions by name (`dim_param`) or by denotation,
/// and whole input shapes (`--shape`).
pub struct FixedDims<'a> {
    pub by_name: &'a [(String, i64)],
    pub by_denotation: &'a [(String, i64)],
    pub shapes: &'a std::collections::BTreeMap<String, Vec<usize>>,
}

/// `model` with the free dimensions of its graph's inputs and outputs written as the sizes in
/// `dims` (what a session fixed through its options): every other field is kept as it was. An
/// input or output whose type holds what dmlrun does not model (its bytes would not survive being
/// read and written back) is left as it is. Returns the bytes and how many dimensions were fixed.
pub fn with_fixed_dims(model: &[u8], dims: &FixedDims) -> anyhow::Result<(Vec<u8>, usize)> {
    use prost::Message;
    let mut raw = lossless::RawModel::decode(model).map_err(|e| anyhow::anyhow!("not an ONNX model: {e}"))?;
    let Some(graph_bytes) = raw.graph.as_deref() else { return Ok((model.to_vec(), 0)) };
    let mut graph =
        lossless::RawGraph::decode(graph_bytes).map_err(|e| anyhow::anyhow!("not an ONNX model's graph: {e}"))?;
    let mut fixed = 0;
    let mut fix = |values: &mut Vec<Vec<u8>>, shapes: Option<&std::collections::BTreeMap<String, Vec<usize>>>| {
        for bytes in values.iter_mut() {
            let Ok(mut value) = header::ValueInfoProto::decode(bytes.as_slice()) else { continue };
            if value.encode_to_vec() != *bytes {
                continue;
            }
            let shape = shapes.and_then(|s| s.get(value.name.as_deref().unwrap_or_default()));
            let Some(tensor_shape) =
                value.r#type.as_mut().and_then(|t| t.tensor_type.as_mut()).and_then(|t| t.shape.as_mut())
            else {
                continue;
            };
            let mut changed = false;
            for (axis, dim) in tensor_shape.dim.iter_mut().enumerate() {
                if dim.dim_value.is_some() {
                    continue;
                }
                let by_name = dim.dim_param.as_deref().and_then(|p| dims.by_name.iter().find(|(k, _)| k == p));
                let by_denotation =
                    dim.denotation.as_deref().and_then(|d| dims.by_denotation.iter().find(|(k, _)| k == d));
                let size = by_name
                    .or(by_denotation)
                    .map(|(_, v)| *v)
                    .or_else(|| shape.and_then(|s| s.get(axis)).map(|&v| v as i64));
                if let Some(size) = size {
                    dim.dim_value = Some(size);
                    dim.dim_param = None;
                    changed = true;
                    fixed += 1;
                }
            }
            if changed {
                *bytes = value.encode_to_vec();
            }
        }
    };
    fix(&mut graph.input, Some(dims.shapes));
    fix(&mut graph.output, None);
    raw.graph = Some(graph.encode_to_vec());
    Ok((raw.encode_to_vec(), fixed))
}

/// The largest model dmlrun writes as one file: protobuf's 2 GiB, less a margin for the fields
/// around the weights.
pub const SINGLE_FILE_LIMIT: usize = (2 << 30) - (64 << 20);

/// Writes a model dmlrun made (its tensors all in the model) to `path`: as one file up to
/// [`SINGLE_FILE_LIMIT`], else with its weights in `NAME.data` beside it, as a model past
/// protobuf's 2 GiB must be. Returns the files.
pub fn write_model(path: &std::path::Path, model: &[u8]) -> anyhow::Result<Vec<std::path::PathBuf>> {
    write_model_within(path, model, None, SINGLE_FILE_LIMIT)
}

/// Writes `model`, whose external data files are named relative to `folder`, to `path`: a model
/// with external data gets its own `NAME.data` beside it, each tensor copied there from where it
/// was (a tensor at a time) at an aligned offset ([`external::aligned_offset`]: 64 KiB, Windows'
/// mapping granularity, for a tensor of 1 MiB or more); one without, as [`write_model`] writes it.
/// The data file and the model are each written whole or not at all. Returns the files.
pub fn write_model_from(
    path: &std::path::Path,
    model: &[u8],
    folder: &std::path::Path,
) -> anyhow::Result<Vec<std::path::PathBuf>> {
    write_model_within(path, model, Some(folder), SINGLE_FILE_LIMIT)
}

fn write_model_within(
    path: &std::path::Path,
    model: &[u8],
    folder: Option<&std::path::Path>,
    limit: usize,
) -> anyhow::Result<Vec<std::path::PathBuf>> {
    use anyhow::Context;
    use prost::Message;
    // The header view skips the weights' bytes: a model written as one file is not decoded whole.
    let header = header::ModelProto::decode(model).map_err(|e| anyhow::anyhow!("not an ONNX model: {e}"))?;
    let external = header.graph.iter().flat_map(|g| &g.initializer).any(|t| !t.external_data.is_empty());
    if !external && model.len() <= limit {
        crate::fsutil::write_atomic(path, model)?;
        return Ok(vec![path.to_path_buf()]);
    }
    let mut raw = lossless::RawModel::decode(model).map_err(|e| anyhow::anyhow!("not an ONNX model: {e}"))?;
    let graph_bytes = raw.graph.take().context("the model has no graph")?;
    let mut graph =
        lossless::RawGraph::decode(graph_bytes.as_slice()).map_err(|e| anyhow::anyhow!("the model's graph: {e}"))?;
    let Some(folder) = folder.or((!external).then_some(std::path::Path::new("."))) else {
        anyhow::bail!("{}: the model keeps tensors in external data, and where is not known", path.display())
    };
    let mut data = external::DataFile::beside(path)?;
    let mut reader = external::ExternalReader::new(folder);
    for initializer in &mut graph.initializer {
        *initializer = data.copy(initializer, &mut reader)?;
    }
    raw.graph = Some(graph.encode_to_vec());
    let bytes = raw.encode_to_vec();
    if bytes.len() >= (2usize << 30) {
        anyhow::bail!(
            "{}: the model would be {} bytes without its weights, over protobuf's 2 GiB",
            path.display(),
            bytes.len()
        );
    }
    let data_path = data.finish()?;
    crate::fsutil::write_atomic(path, &bytes)?;
    Ok(vec![path.to_path_buf(), data_path])
}

/// `tensor` pointed at `length` bytes at `offset` of the data file `location` (ONNX's external
/// data: its `raw_data` gone, `data_location` EXTERNAL).
pub fn point_to_external(tensor: &mut lossless::EditTensor, location: &str, offset: u64, length: usize) {
    use prost::Message;
    let entry = |key: &str, value: String| {
        header::StringStringEntryProto { key: Some(key.into()), value: Some(value) }.encode_to_vec()
    };
    tensor.external_data = vec![
        entry("location", location.to_string()),
        entry("offset", offset.to_string()),
        entry("length", length.to_string()),
    ];
    tensor.data_location = Some(1);
    tensor.raw_data = None;
}

/// Where an initializer named `name` keeps its data, from its `external_data` entries: the file
/// (relative to the model's folder), the offset (0 if not given) and the length (the rest of the
/// file if not given).
pub fn external_location(
    entries: &[header::StringStringEntryProto],
    name: &str,
) -> anyhow::Result<(String, u64, Option<u64>)> {
    use anyhow::Context;
    let field = |key: &str| entries.iter().find(|e| e.key.as_deref() == Some(key))?.value.clone();
    let location =
        field("location").with_context(|| format!("initializer '{name}': external data without a location"))?;
    let number = |key: &str| -> anyhow::Result<Option<u64>> {
        field(key).map(|v| v.parse::<u64>()).transpose().with_context(|| format!("initializer '{name}': {key}"))
    };
    Ok((location, number("offset")?.unwrap_or(0), number("length")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_past_the_limit_is_written_with_its_weights_beside_it_and_reads_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models/gemm_tanh_no_bias.onnx");
        let bytes = std::fs::read(&source).unwrap();
        // Under the limit: one file, byte for byte.
        let one = dir.path().join("one.onnx");
        assert_eq!(write_model_within(&one, &bytes, None, bytes.len()).unwrap(), std::slice::from_ref(&one));
        assert_eq!(std::fs::read(&one).unwrap(), bytes);
        // Past it: the weights in big.onnx.data, which the model names, at aligned offsets.
        let big = dir.path().join("big.onnx");
        let written = write_model_within(&big, &bytes, None, 100).unwrap();
        assert_eq!(written, [big.clone(), dir.path().join("big.onnx.data")]);
        let info = crate::formats::model::ModelInfo::from_bytes(&std::fs::read(&big).unwrap()).unwrap();
        assert_eq!(info.external_data, ["big.onnx.data"]);
        assert!(std::fs::metadata(&big).unwrap().len() < 1000);
        // Each initializer's bytes, read where its entries point, are the original's.
        let initializers = |model: &[u8]| -> Vec<lossless::EditTensor> {
            use prost::Message;
            let raw = lossless::RawModel::decode(model).unwrap();
            let graph = lossless::RawGraph::decode(raw.graph.unwrap().as_slice()).unwrap();
            graph.initializer.iter().map(|t| lossless::EditTensor::decode(t.as_slice()).unwrap()).collect()
        };
        let data = std::fs::read(dir.path().join("big.onnx.data")).unwrap();
        let (before, after) = (initializers(&bytes), initializers(&std::fs::read(&big).unwrap()));
        assert_eq!(before.len(), after.len());
        for (b, a) in before.iter().zip(&after) {
            use prost::Message;
            let field = |key: &str| -> usize {
                let entry = a
                    .external_data
                    .iter()
                    .map(|e| header::StringStringEntryProto::decode(e.as_slice()).unwrap())
                    .find(|e| e.key.as_deref() == Some(key))
                    .unwrap();
                entry.value.unwrap().parse().unwrap_or(0)
            };
            let (offset, length) = (field("offset"), field("length"));
            assert_eq!(offset % 4096, 0);
            assert_eq!((a.data_location, a.raw_data.as_ref()), (Some(1), None));
            assert_eq!(&data[offset..offset + length], b.raw_data.as_deref().unwrap(), "{:?}", b.name);
        }
    }

    #[test]
    fn a_model_with_external_data_is_written_with_its_own_data_file_read_a_tensor_at_a_time() {
        use prost::Message;
        let dir = tempfile::tempdir().unwrap();
        let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models/tiny_decoder/model.onnx");
        let bytes = std::fs::read(&source).unwrap();
        let copy = dir.path().join("copy.onnx");
        // Without the folder its data is in, it is refused rather than written pointing nowhere.
        let refused = write_model(&copy, &bytes).unwrap_err().to_string();
        assert!(refused.contains("external data, and where is not known"), "{refused}");
        assert!(!copy.exists());
        let written = write_model_from(&copy, &bytes, source.parent().unwrap()).unwrap();
        assert_eq!(written, [copy.clone(), dir.path().join("copy.onnx.data")]);
        let info = crate::formats::model::ModelInfo::from_bytes(&std::fs::read(&copy).unwrap()).unwrap();
        assert_eq!(info.external_data, ["copy.onnx.data"]);
        // Each tensor's values where its entries point are the original's, at an aligned offset.
        let tensors = |path: &std::path::Path| -> Vec<lossless::EditTensor> {
            let raw = lossless::RawModel::decode(std::fs::read(path).unwrap().as_slice()).unwrap();
            let graph = lossless::RawGraph::decode(raw.graph.unwrap().as_slice()).unwrap();
            let mut reader = external::ExternalReader::new(path.parent().unwrap());
            graph
                .initializer
                .iter()
                .map(|t| {
                    let tensor = lossless::EditTensor::decode(t.as_slice()).unwrap();
                    if let Some(at) = external::tensor_external_ref(&tensor, path.parent().unwrap()).unwrap() {
                        assert_eq!(at.offset, external::aligned_offset(at.offset, at.length.unwrap()));
                    }
                    reader.inline(tensor).unwrap()
                })
                .collect()
        };
        let (before, after) = (tensors(&source), tensors(&copy));
        assert_eq!(before.len(), after.len());
        for (b, a) in before.iter().zip(&after) {
            assert_eq!((&b.name, &b.raw_data, &b.dims), (&a.name, &a.raw_data, &a.dims));
        }
    }
}
