//! The shapes a rewrite reads where the model declares none (`--binary-as-reduce` rewrites only an
//! op whose two operands it knows to be of one shape): ONNX Runtime's own inference, read off the
//! model it saves when it opens one with every value named (`Graph::with_every_value_named`) on
//! the reference EP, with each free dimension fixed to the size the inputs about to be bound give
//! it. Its basic optimisations fold the shape arithmetic exporters write (`Shape`, `Gather`,
//! `Concat` into a `Reshape`), so sizes computed from the input's come out too.

use std::path::Path;

use anyhow::{Context, Result};

use super::open::load;
use super::runs::PreparedInputs;
use crate::formats::model::ModelInfo;
use crate::graph::{Graph, InferredShapes};
use crate::runtime::plan::{OptimizationLevel, PlanRequest, Precision};
use crate::runtime::Runtime;

/// The shapes ONNX Runtime infers for the model at `model_path` on `reference`'s EP, its free
/// dimensions fixed by `reference` and, where it leaves them free, by `prepared`'s shapes.
pub fn inferred_shapes(
    runtime: &Runtime,
    model_path: &Path,
    info: &ModelInfo,
    reference: &PlanRequest,
    prepared: &PreparedInputs,
) -> Result<InferredShapes> {
    crate::stage::step("the shapes ONNX Runtime infers");
    let graph = Graph::read(model_path)?;
    let folder = tempfile::tempdir().context("a temporary folder for the shapes' session")?;
    let stem = model_path.file_stem().map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
    let named = folder.path().join(format!("{stem}.onnx"));
    let shapes = input_shapes(prepared);
    crate::formats::onnx_proto::write_model_from(&named, &graph.with_every_value_named(&shapes)?, graph.folder())?;
    let saved = folder.path().join("inferred.onnx");
    let mut dims = reference.dims.clone();
    for (name, size) in free_dim_sizes(info, &shapes) {
        if !dims.iter().any(|(given, _)| *given == name) {
            dims.push((name, size));
        }
    }
    // The weights go to a file beside the saved model: only its graph is read back.
    let mut session_config = reference.session_config.clone();
    session_config.extend([
        ("session.optimized_model_external_initializers_file_name".to_string(), "inferred.data".to_string()),
        ("session.optimized_model_external_initializers_min_size_in_bytes".to_string(), "64".to_string()),
    ]);
    let request = PlanRequest {
        optimization_level: OptimizationLevel::Basic,
        optimized_model_path: Some(saved.clone()),
        dims,
        session_config,
        auto_dims: false,
        rewrites: Vec::new(),
        precision: Precision::Fp32,
        keep_fp32: Vec::new(),
        profile_prefix: None,
        ..reference.clone()
    };
    load(runtime, &named, info, &request)?;
    let bytes = std::fs::read(&saved).with_context(|| format!("reading {}", saved.display()))?;
    InferredShapes::read(&bytes)
}

/// Each tensor input's shape, by name.
fn input_shapes(prepared: &PreparedInputs) -> Vec<(String, Vec<i64>)> {
    (prepared.values.iter())
        .filter_map(|(name, value)| match value.dtype() {
            ort::value::ValueType::Tensor { shape, .. } => Some((name.clone(), shape.to_vec())),
            _ => None,
        })
        .collect()
}

/// The size the inputs' `shapes` give each named free dimension of the model's inputs.
fn free_dim_sizes(info: &ModelInfo, shapes: &[(String, Vec<i64>)]) -> Vec<(String, i64)> {
    let mut sizes: Vec<(String, i64)> = Vec::new();
    for input in &info.inputs {
        let Some((_, shape)) = shapes.iter().find(|(name, _)| *name == input.name) else { continue };
        if shape.len() != input.dims.len() {
            continue;
        }
        for (dim, &size) in input.dims.iter().zip(shape.iter()) {
            if let (None, Some(name)) = (dim.value, &dim.param) {
                if !sizes.iter().any(|(n, _)| n == name) {
                    sizes.push((name.clone(), size));
                }
            }
        }
    }
    sizes
}
