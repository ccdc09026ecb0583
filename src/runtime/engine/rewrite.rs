//! `--decompose OP` and `--gemm-zero-bias`: the model rewritten before its session
//! (`graph::Graph::rewrite`), and checked, not assumed: the rewritten model and the original run
//! on the reference EP with the same inputs, and the largest difference of each output is in the
//! report, as the float16 conversion's is.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::diagnose::say_made_as;
use super::open::{load, DeviceReport};
use super::precision::{accuracy, OutputAccuracy};
use super::runs::{run_to_host_values, PreparedInputs};
use super::shapes::inferred_shapes;
use crate::formats::model::{ModelFile, ModelInfo};
use crate::graph::{Graph, InferredShapes, Rewrite, RewriteSummary};
use crate::runtime::plan::{OptimizationLevel, PlanRequest};
use crate::runtime::Runtime;

/// A model rewritten for one run.
pub struct RewrittenModel {
    /// The rewritten model, in a temporary folder that lives as long as this value.
    pub path: PathBuf,
    _folder: tempfile::TempDir,
    pub report: RewriteReport,
}

/// What the rewrites did, and how far the rewritten model's outputs are from the original's.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RewriteReport {
    pub summary: RewriteSummary,
    /// Where both models ran for the comparison; absent where they were not compared.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub compared_on: Option<DeviceReport>,
    /// Each output of the rewritten model against the original's.
    #[serde(default)]
    pub outputs: Vec<OutputAccuracy>,
    /// Why the outputs were not compared (generate compares tokens instead, with --compare-ep).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub not_compared: Option<String>,
    /// Where a rewrite reads shapes: how many ONNX Runtime inferred, or why it could not.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub shapes: Option<String>,
    /// Decomposed operators that ONNX Runtime's optimiser put back (its fusions, at the reference
    /// run's optimisation level): none, or the rewrite did not hold.
    #[serde(default)]
    pub fused_back: Vec<String>,
}

impl RewriteReport {
    /// `rewritten: --decompose LayerNormalization: 2 nodes, 26 nodes in their place; against the
    /// original on CPUExecutionProvider: y: max |diff| 4.8e-7`.
    pub fn describe(&self) -> String {
        let compared = match (&self.compared_on, &self.not_compared) {
            (Some(on), _) => {
                format!("; against the original on {}: {}", on.describe(), describe_outputs(&self.outputs))
            }
            (None, Some(why)) => format!("; not compared: {why}"),
            (None, None) => String::new(),
        };
        let fused = match self.fused_back.as_slice() {
            [] => String::new(),
            ops => format!("; ONNX Runtime's optimiser fused {} back", ops.join(", ")),
        };
        let shapes = self.shapes.as_ref().map_or_else(String::new, |s| format!("; {s}"));
        format!("{}{shapes}{compared}{fused}", self.summary.describe())
    }
}

fn describe_outputs(outputs: &[OutputAccuracy]) -> String {
    if outputs.is_empty() {
        return "no output is a float tensor to compare".to_string();
    }
    outputs.iter().map(OutputAccuracy::describe).collect::<Vec<_>>().join("; ")
}

/// The decomposed operators ONNX Runtime's optimiser puts back, read off the graph it writes
/// when it optimises the rewritten model for the reference EP. Its fusions (LayerNormFusion,
/// SimplifiedLayerNormFusion) run at the extended level, the last that writes a graph any
/// machine can read back (the next adds layout changes for this CPU).
fn fused_back(
    runtime: &Runtime,
    rewritten: &Path,
    info: &ModelInfo,
    reference: &PlanRequest,
    rewrites: &[Rewrite],
    folder: &Path,
) -> Result<Vec<String>> {
    let decomposed: Vec<&str> = rewrites
        .iter()
        .filter_map(|r| match r {
            Rewrite::Decompose(op) => Some(op.fused_forms()),
            _ => None,
        })
        .flatten()
        .copied()
        .collect();
    if decomposed.is_empty() {
        return Ok(Vec::new());
    }
    let optimized = folder.join("optimized.onnx");
    let level = reference.optimization_level.min(OptimizationLevel::Extended);
    let request =
        PlanRequest { optimized_model_path: Some(optimized.clone()), optimization_level: level, ..reference.clone() };
    load(runtime, rewritten, info, &request).context("the rewritten model, optimised as ONNX Runtime optimises it")?;
    // More of a fused form than the rewritten model has (a model may hold FastGelu of its own).
    let ops = ModelFile::read(&optimized)?.info.op_types;
    let before = ModelFile::read(rewritten)?.info.op_types;
    let count = |ops: &std::collections::BTreeMap<String, usize>, op: &str| ops.get(op).copied().unwrap_or(0);
    Ok(decomposed.into_iter().filter(|op| count(&ops, op) > count(&before, op)).map(String::from).collect())
}

/// Writes `graph` with `rewrites` applied to `into` (its weights where
/// `onnx_proto::write_model_from` puts them), the rules reading `inferred` where the model declares
/// less. Returns what was rewritten, and what is said of the shapes where some were asked for.
fn rewrite_into(
    mut graph: Graph,
    rewrites: &[Rewrite],
    inferred: Option<Result<InferredShapes>>,
    into: &Path,
) -> Result<(RewriteSummary, Option<String>)> {
    // A rule that finds no shape leaves its op alone: the model's own declarations still serve.
    let (shapes, not_inferred) = match inferred {
        Some(Ok(inferred)) => {
            let said = format!("shapes of {} tensors as ONNX Runtime infers them", inferred.count());
            graph = graph.with_inferred(inferred);
            (Some(said), None)
        }
        Some(Err(e)) => {
            let why = crate::exit::one_line(&e);
            (Some(format!("ONNX Runtime's shapes not read ({why}): the model's own only")), Some(why))
        }
        None => (None, None),
    };
    let (bytes, summary) = (graph.rewrite(rewrites)).map_err(|e| match &not_inferred {
        Some(why) => anyhow::anyhow!("{e:#} (ONNX Runtime could not infer the shapes the model leaves out: {why})"),
        None => e,
    })?;
    // Weights the original keeps in external data (or past protobuf's 2 GiB) go to a data file
    // beside it, a tensor at a time.
    crate::formats::onnx_proto::write_model_from(into, &bytes, graph.folder())
        .with_context(|| format!("writing the rewritten model {}", into.display()))?;
    Ok((summary, shapes))
}

/// How deep `--inline-if` writes out Ifs inside the branches it writes out.
const MAX_IF_NESTING: usize = 4;

/// The value each condition of the main graph's `If` nodes takes in a run of `graph` on the
/// reference EP with the inputs about to be bound.
pub fn decided_conditions(
    runtime: &Runtime,
    graph: &Graph,
    reference: &PlanRequest,
    prepared: &PreparedInputs,
) -> Result<std::collections::HashMap<String, bool>> {
    crate::stage::step("the If conditions the inputs decide");
    let conditions = graph.if_conditions();
    let (values, _) = super::diagnose::run_exposed(runtime, graph, reference, prepared, &conditions)
        .context("the original model, for the conditions of its If nodes")?;
    let decided =
        values.into_iter().filter(|(name, _)| conditions.contains(name)).filter_map(|(name, value)| match value {
            crate::tensor::HostValue::Tensor(t) if t.dtype == crate::tensor::DType::Bool => match &t.data {
                crate::tensor::TensorData::Bytes(bytes) if bytes.len() == 1 => Some((name, bytes[0] != 0)),
                _ => None,
            },
            _ => None,
        });
    Ok(decided.collect())
}

/// Rewrites the model at `model_path` and, with `check` (the reference EP's request and the
/// inputs about to be bound), runs it and the original there to say how far apart they are.
pub fn rewrite(
    runtime: &Runtime,
    model_path: &Path,
    info: &ModelInfo,
    rewrites: &[Rewrite],
    check: Option<(&PlanRequest, &PreparedInputs)>,
) -> Result<RewrittenModel> {
    crate::stage::step("the rewrite");
    let flags: Vec<String> = rewrites.iter().map(|r| r.flag()).collect();
    let what = flags.join(" ");
    let folder = tempfile::tempdir().context("a temporary folder for the rewritten model")?;
    // Named after the model, so that what ONNX Runtime says of it names the model.
    let stem = model_path.file_stem().map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
    let path = folder.path().join(format!("{stem}.rewritten.onnx"));
    // The rules that read the run's If conditions run first (the branch taken is what the others
    // rewrite); the rules that read shapes last, over what the others wrote (a decomposed Gelu's
    // product is a Mul of one shape too), with the shapes of that model.
    let (deciders, rest): (Vec<Rewrite>, Vec<Rewrite>) = rewrites.iter().partition(|r| r.reads_conditions());
    let (readers, others): (Vec<Rewrite>, Vec<Rewrite>) = rest.into_iter().partition(|r| r.reads_shapes());
    let mut source = model_path.to_path_buf();
    let mut summary = RewriteSummary::default();
    let context = || format!("model {}", model_path.display());
    if !deciders.is_empty() {
        let Some((reference, prepared)) = check else {
            anyhow::bail!(
                "model {}: --inline-if decides each If by a run of the model's inputs, and there are none to run it on here",
                model_path.display()
            )
        };
        // A branch written out may hold Ifs of its own, now of the main graph: decided and
        // written out in turn, a level a round. (ONNX Runtime 1.24, the Windows build's, cannot
        // open for its shapes a model whose If it folds to a branch holding a constant of 128
        // bytes or more, `HasExternalDataInMemory`: Silero VAD's inner Ifs, sized.)
        for level in 0..MAX_IF_NESTING {
            let graph = Graph::read(&source)?;
            let conditions = decided_conditions(runtime, &graph, reference, prepared)?;
            if level > 0 && conditions.is_empty() {
                break;
            }
            let into = folder.path().join(format!("{stem}.decided{level}.onnx"));
            let written = rewrite_into(graph.with_decided(conditions), &deciders, None, &into).with_context(context)?.0;
            summary = summary.merged(written);
            source = into;
        }
        if readers.is_empty() && others.is_empty() {
            std::fs::rename(&source, &path).context("the rewritten model")?;
        }
    }
    if !others.is_empty() {
        let first = folder.path().join(format!("{stem}.first.onnx"));
        let into = if readers.is_empty() { &path } else { &first };
        let read = rewrite_into(Graph::read(&source)?, &others, None, into).with_context(context)?.0;
        summary = summary.merged(read);
        source = into.clone();
    }
    let mut shapes = None;
    if !readers.is_empty() {
        let graph = Graph::read(&source)?;
        let inferred =
            check.map(|(reference, prepared)| inferred_shapes(runtime, &graph, model_path, info, reference, prepared));
        let (read, said) = rewrite_into(graph, &readers, inferred, &path)
            .with_context(|| format!("model {}", model_path.display()))?;
        summary = summary.merged(read);
        shapes = said;
    }
    let mut report = RewriteReport {
        summary,
        compared_on: None,
        outputs: Vec::new(),
        not_compared: None,
        shapes,
        fused_back: Vec::new(),
    };
    match check {
        Some((reference, prepared)) => {
            crate::stage::step("the rewrite's check against the original");
            let mut original =
                load(runtime, model_path, info, reference).context("the original model, for the rewrite's check")?;
            let want = run_to_host_values(&mut original.session, prepared)
                .context("the original model, for the rewrite's check")?;
            let made = format!("rewritten by {what}");
            let named = |e| say_made_as(e, &path, model_path, &made);
            let mut rewritten = load(runtime, &path, info, reference).map_err(named)?;
            let got = run_to_host_values(&mut rewritten.session, prepared).map_err(named)?;
            report.outputs = accuracy(&want, &got);
            report.compared_on = Some(rewritten.device);
            report.fused_back = fused_back(runtime, &path, info, reference, rewrites, folder.path())?;
        }
        None => report.not_compared = Some("no inputs to run it on here".to_string()),
    }
    Ok(RewrittenModel { path, _folder: folder, report })
}
