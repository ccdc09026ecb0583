//! Measuring one model with its inputs in host memory: open, bind, run, warm up, time, and
//! compare with a reference execution provider. `--io-on-device` branches to `device_io`.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::Serialize;

use super::device_io::{measure_on_device, DeviceIo};
use super::diagnose::{self, Stage};
use super::open::DeviceReport;
use super::runs::{run_to_host_values, timed_runs, warm_up, Feed, PreparedInputs, RunBudget};
use super::{bound_shapes, finish_plan, input_signatures, load, open, resolve_plan, LoadedModel};
use crate::compare::Tolerance;
use crate::formats::model::ModelFile;
use crate::inputs::{BoundInputs, InputSpec, LoadOptions};
use crate::runtime::plan::{self, PlanRequest, SessionPlan};
use crate::runtime::Runtime;
use crate::tensor::{flatten, HostValue};

/// A `--compare-ep` reference run's outcome: where it ran and how far apart the outputs are.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub reference: DeviceReport,
    pub reference_optimization_level: plan::OptimizationLevel,
    pub tolerance: Tolerance,
    pub outputs_compared: usize,
    pub mismatches: Vec<crate::compare::Mismatch>,
    /// Largest absolute and relative differences per float output, passing or not.
    pub differences: Vec<crate::compare::Difference>,
    /// With `time_reference`: the reference's timed runs (ms), as many as the main run's budget.
    #[serde(skip)]
    pub reference_samples: Vec<f64>,
}

/// What `run` and `bench` measure of one model: which model, which plan, which inputs, how many
/// runs, and what to compare with.
pub struct MeasureRequest<'a> {
    pub model_path: &'a Path,
    /// The model file as dmlrun read it (once).
    pub model: &'a ModelFile,
    pub plan: &'a PlanRequest,
    pub print_plan: bool,
    pub inputs: &'a [InputSpec],
    pub load: &'a LoadOptions,
    pub warmup: u64,
    pub budget: RunBudget,
    /// `--compare-ep`: the reference plan and the tolerance.
    pub reference: Option<(PlanRequest, Tolerance)>,
    /// Time the reference session too, with the same warm-up and budget (bench: both execution
    /// providers side by side).
    pub time_reference: bool,
}

/// One model measured: the open session, the bound inputs, the first run's outputs, the timed
/// runs' latencies (ms), and the comparison with the reference, if asked.
pub struct Measurement {
    pub model: LoadedModel,
    pub bound: BoundInputs,
    /// Decoding, preprocessing or generating the inputs, and copying them into ONNX Runtime.
    pub input_prepare: Duration,
    pub first_run: Duration,
    pub outputs: Vec<(String, HostValue)>,
    pub samples: Vec<f64>,
    pub comparison: Option<Comparison>,
    /// With `--io-on-device`: the copies timed apart and the check of the bound outputs.
    pub device_io: Option<DeviceIo>,
    /// Said on stderr as they arose, and kept for the report.
    pub warnings: Vec<String>,
}

/// The open, bind, run, warm up, time and compare sequence `run` and `bench` share.
///
/// Inputs are bound before the session is created, so DirectML's automatic dimension overrides
/// can use their shapes; the first run's outputs are the ones reported and compared.
pub fn measure(runtime: &Runtime, request: &MeasureRequest, bar: &indicatif::ProgressBar) -> Result<Measurement> {
    let (info, model_load) = (request.model.info.clone(), request.model.read_time);
    let mut plan = resolve_plan(runtime, &info, request.plan, request.print_plan)?;
    let started = Instant::now();
    let bound = crate::inputs::bind(request.inputs, &input_signatures(&info, &plan), request.load)?;
    let mut input_prepare = started.elapsed();
    finish_plan(runtime, &mut plan, &info, request.plan, &bound_shapes(&bound), request.print_plan)?;

    let mut warnings = Vec::new();
    let mut warn = |w: String| {
        crate::errln!("warning: {w}");
        warnings.push(w);
    };
    for w in bound.warnings.iter().chain(&plan.notes) {
        warn(w.clone());
    }
    // Said before the (possibly long) session creation.
    if let Some(w) = plan.dynamic_shape_warning() {
        warn(w);
    }
    for w in plan.option_warnings() {
        warn(w);
    }
    let started = Instant::now();
    let prepared = PreparedInputs::new(&bound.tensors)?;
    input_prepare += started.elapsed();
    let explain = |plan: &SessionPlan, stage: Stage, error: anyhow::Error| {
        let reference = request.reference.as_ref().map(|(r, _)| r);
        let failed = diagnose::Failed { model_path: request.model_path, info: &request.model.info, plan, stage };
        diagnose::explain(runtime, &failed, reference, request.plan, &prepared, Some(&bound), error)
    };
    let mut model = match open(runtime, request.model_path, info, model_load, plan.clone()) {
        Ok(model) => model,
        Err(e) => return Err(explain(&plan, Stage::SessionCreation, e)),
    };
    if let Some(w) = model.device.placement_warning() {
        warn(w);
    }

    let (first_run, outputs, samples, device_io) = if model.plan.io_on_device {
        measure_on_device(runtime, request, &mut model, &prepared, bar)
            .map_err(|e| explain(&model.plan, Stage::Run, e))?
    } else {
        let started = Instant::now();
        let outputs =
            run_to_host_values(&mut model.session, &prepared).map_err(|e| explain(&model.plan, Stage::Run, e))?;
        let first_run = started.elapsed();
        warm_up(&mut model.session, &Feed::Host(&prepared), request.warmup)?;
        let samples =
            timed_runs(&mut model.session, &Feed::Host(&prepared), request.budget, bar, model.memory.as_mut())?;
        (first_run, outputs, samples, None)
    };
    bar.finish_and_clear();
    if let Some(io) = &device_io {
        if !io.outputs_match() {
            warn(format!(
                "--io-on-device: {} of {} outputs kept on the device differ from {} beyond rtol {} atol {}",
                io.mismatches.len(),
                io.outputs_checked,
                io.checked_against,
                io.tolerance.rtol,
                io.tolerance.atol
            ));
        }
    }

    let comparison = match &request.reference {
        Some((reference_plan, tolerance)) => {
            let mut reference = load(runtime, request.model_path, &request.model.info, reference_plan)
                .context("--compare-ep reference session")?;
            let expected =
                run_to_host_values(&mut reference.session, &prepared).context("--compare-ep reference run")?;
            let reference_samples = if request.time_reference {
                let feed = Feed::Host(&prepared);
                warm_up(&mut reference.session, &feed, request.warmup)?;
                let hidden = indicatif::ProgressBar::hidden();
                timed_runs(&mut reference.session, &feed, request.budget, &hidden, None)?
            } else {
                Vec::new()
            };
            Some(Comparison {
                reference_samples,
                reference: reference.device.clone(),
                reference_optimization_level: reference_plan.optimization_level,
                tolerance: *tolerance,
                outputs_compared: expected.len(),
                mismatches: crate::compare::compare_outputs(&expected, &outputs, *tolerance),
                differences: crate::compare::differences(&flatten(&expected), &flatten(&outputs)),
            })
        }
        None => None,
    };
    Ok(Measurement { model, bound, input_prepare, first_run, outputs, samples, comparison, device_io, warnings })
}

/// What dmlrun chose for generated inputs and how to change it, when the inputs are to blame
/// for a failed run: the model may simply not take those sizes (a 1x1 image for a convolution).
pub(super) fn generated_advice(bound: &BoundInputs) -> Option<String> {
    let generated: Vec<String> = bound
        .sources
        .iter()
        .filter(|s| s.kind == "generated")
        .map(|s| {
            let chosen = s.detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
            format!("'{}' {} {}{chosen}", s.name, s.dtype, crate::tensor::format_shape(&s.shape))
        })
        .collect();
    (!generated.is_empty()).then(|| format!(
        "on generated input(s) {}: if the model takes other sizes or values, set them with --shape NAME=D0,D1,..., --dim NAME=N, --free-dim-size N or --generate-range NAME=LO,HI (a manifest's shapes, dims), or give the inputs with --input",
        generated.join("; ")
    ))
}

/// A failed run on generated data, with [`generated_advice`].
pub(super) fn generated_hint(error: anyhow::Error, bound: &BoundInputs) -> anyhow::Error {
    match generated_advice(bound) {
        Some(advice) => error.context(advice),
        None => error,
    }
}
