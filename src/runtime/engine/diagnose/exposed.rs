//! Reference runs with the graph's intermediate tensors exposed as outputs: what the tensors
//! around a failing node hold (for the diagnosis), and every tensor's value (for `reduce`).

use super::super::open::{load, DeviceReport};
use super::super::preflight::BoundForSession;
use super::super::runs::{run_to_host_values, PreparedInputs};
use super::say_made_as;
use crate::formats::model::ModelInfo;
use crate::graph::Graph;
use crate::inputs::BoundInputs;
use crate::runtime::plan::PlanRequest;
use crate::runtime::Runtime;
use crate::tensor::HostValue;

/// `tensors` as a reference run of the model with them exposed gives them: name and
/// `dtype [shape]`.
pub(super) fn exposed_values(
    runtime: &Runtime,
    graph: &Graph,
    reference: &PlanRequest,
    prepared: &PreparedInputs,
    tensors: &[String],
) -> anyhow::Result<Vec<(String, String)>> {
    let (values, _) = run_exposed(runtime, graph, reference, prepared, tensors)?;
    Ok(values.into_iter().map(|(name, value)| (name, value_text(&value))).collect())
}

/// One run of `graph` on `request` with `tensors` exposed as outputs beside the model's own:
/// their values, and where the session ran.
pub fn run_exposed(
    runtime: &Runtime,
    graph: &Graph,
    request: &PlanRequest,
    prepared: &PreparedInputs,
    tensors: &[String],
) -> anyhow::Result<(Vec<(String, HostValue)>, DeviceReport)> {
    let (bytes, file) = exposed_model(graph, tensors)?;
    let path = file.to_path_buf();
    let info = ModelInfo::from_bytes(&bytes)?;
    // An error about the copy names the user's model, and what was done to it.
    let named = |e| say_made_as(e, &path, graph.source(), "with its intermediate tensors as outputs");
    let mut session = load(runtime, &path, &info, request).map_err(named)?;
    let values = run_to_host_values(&mut session.session, prepared).map_err(named)?;
    Ok((values, session.device.clone()))
}

/// The model with `tensors` exposed, written where ONNX Runtime can open it: a model with external
/// data beside its own (its tensors left in their files, read from there: a model past 2 GiB fits,
/// and nothing is copied), under a hidden temporary name removed after; where that folder cannot
/// be written, or the model holds its weights itself, in a temporary folder with every tensor inline.
fn exposed_model(graph: &Graph, tensors: &[String]) -> anyhow::Result<(Vec<u8>, tempfile::TempPath)> {
    if graph.has_external_data() {
        let beside = tempfile::Builder::new().prefix(".dmlrun-exposed-").suffix(".onnx").tempfile_in(graph.folder());
        if let Ok(file) = beside {
            let bytes = graph.with_outputs_beside(tensors)?;
            std::fs::write(file.path(), &bytes)?;
            return Ok((bytes, file.into_temp_path()));
        }
    }
    let bytes = graph.with_outputs(tensors)?;
    let file = tempfile::Builder::new().prefix("exposed-").suffix(".onnx").tempfile()?;
    std::fs::write(file.path(), &bytes)?;
    Ok((bytes, file.into_temp_path()))
}

/// A reference run of a whole model for `dmlrun reduce`: the inputs bound as `run` binds them
/// (files, images, generated), and the value of every tensor the graph computes.
pub struct ReferenceRun {
    pub bound: BoundInputs,
    pub values: Vec<(String, HostValue)>,
    pub device: DeviceReport,
}

/// Runs `graph` on `request` (the reference EP's) with every intermediate tensor exposed, on the
/// inputs bound for it through its preflight (`Preflight::bind`), as `run` binds them.
pub fn reference_run(
    runtime: &Runtime,
    graph: &Graph,
    request: &PlanRequest,
    inputs: BoundForSession,
) -> anyhow::Result<ReferenceRun> {
    let (values, device) = run_exposed(runtime, graph, request, &inputs.prepared, &graph.intermediate_tensors())?;
    Ok(ReferenceRun { bound: inputs.bound, values, device })
}

/// `float32 [6, 3, 48, 192]`.
pub fn value_text(value: &HostValue) -> String {
    match value {
        HostValue::Tensor(t) => format!("{} {}", t.dtype.name(), crate::tensor::format_shape(&t.shape)),
        HostValue::Sequence(items) => format!("sequence of {} tensors", items.len()),
        HostValue::Absent => "absent".to_string(),
        other => other.kind().to_string(),
    }
}
