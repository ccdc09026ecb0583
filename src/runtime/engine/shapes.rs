//! The shapes a rewrite reads where the model declares none (`--binary-as-reduce` rewrites only an
//! op whose two operands it knows to be of one shape): ONNX Runtime's own inference, read off the
//! model it saves when it opens one with every value named (`Graph::with_every_value_named`) on
//! the reference EP, with each free dimension fixed to the size the inputs about to be bound give
//! it. Its basic optimisations fold the shape arithmetic exporters write (`Shape`, `Gather`,
//! `Concat` into a `Reshape`), so sizes computed from the input's come out too.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};

use super::diagnose::say_made_as;
use super::open::open;
use super::runs::PreparedInputs;
use crate::formats::model::ModelInfo;
use crate::graph::{Graph, InferredShapes};
use crate::runtime::plan::{self, BoundShape, OptimizationLevel, PlanRequest, Precision};
use crate::runtime::Runtime;

/// The shapes ONNX Runtime infers for `graph` (the model `info` describes) on `reference`'s EP,
/// its free dimensions fixed by `reference` and, where it leaves them free, by `prepared`'s
/// shapes. A failure is said of `user_model`, the model the user gave.
pub fn inferred_shapes(
    runtime: &Runtime,
    graph: &Graph,
    user_model: &Path,
    info: &ModelInfo,
    reference: &PlanRequest,
    prepared: &PreparedInputs,
) -> Result<InferredShapes> {
    crate::stage::step("the shapes ONNX Runtime infers");
    let folder = tempfile::tempdir().context("a temporary folder for the shapes' session")?;
    let stem = user_model.file_stem().map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
    let named = folder.path().join(format!("{stem}.onnx"));
    let shapes = input_shapes(prepared);
    crate::formats::onnx_proto::write_model_from(&named, &graph.with_every_value_named(&shapes)?, graph.folder())?;
    let saved = folder.path().join("inferred.onnx");
    // The weights go to a file beside the saved model: only its graph is read back.
    let mut session_config = reference.session_config.clone();
    session_config.extend([
        ("session.optimized_model_external_initializers_file_name".to_string(), "inferred.data".to_string()),
        ("session.optimized_model_external_initializers_min_size_in_bytes".to_string(), "64".to_string()),
    ]);
    let request = PlanRequest {
        optimization_level: OptimizationLevel::Basic,
        optimized_model_path: Some(saved.clone()),
        session_config,
        rewrites: Vec::new(),
        precision: Precision::Fp32,
        keep_fp32: Vec::new(),
        profile_prefix: None,
        ..reference.clone()
    };
    let offered = runtime.offered();
    let mut plan = plan::resolve(&request, &offered, info)?;
    plan::check_available(&plan, &request, &offered)?;
    // The named free dimensions the request leaves free take the inputs' sizes, as DirectML's plan
    // takes them (a name two inputs size differently stays free).
    let bound: Vec<BoundShape> = (shapes.iter())
        .map(|(input, shape)| BoundShape {
            input: input.clone(),
            shape: shape.iter().map(|&d| d.max(0) as usize).collect(),
            from: "the inputs about to be bound".to_string(),
        })
        .collect();
    plan.auto_dims = true;
    plan::fix_dims_from_inputs(&mut plan, info, &bound)?;
    plan.auto_dims = false;
    let said_of_the_user_model = |e| say_made_as(e, &named, user_model, "with every value named, for its shapes");
    open(runtime, &named, info.clone(), Duration::ZERO, plan).map_err(said_of_the_user_model)?;
    let bytes = std::fs::read(&saved).context("reading the model ONNX Runtime saved with the shapes it inferred")?;
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
