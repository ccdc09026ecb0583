//! Measuring one model with its inputs in host memory: open, bind, run, warm up, time, and
//! compare with a reference execution provider. `--io-on-device` branches to `device_io`.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::Serialize;

use super::device_io::{measure_on_device, DeviceIo};
use super::diagnose::{self, Stage};
use super::made::{made_label, Check};
use super::open::{load, open, DeviceReport, LoadedModel};
use super::opened::{open_made, Explaining, Opened};
use super::paired::{alternate, PairedRuns, Pairing};
use super::precision::PrecisionReport;
use super::preflight::{BoundForSession, Preflight};
use super::rewrite::RewriteReport;
use super::runs::{run_to_host_values, timed_runs, warm_up, Feed, PreparedInputs, RunBudget};
use crate::compare::Tolerance;
use crate::inputs::{BoundInputs, InputSpec, LoadOptions};
use crate::runtime::plan::{self, EpRequest, PlanRequest, Precision, SessionPlan};
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

/// What `run` and `bench` measure of one model: its preflight, which inputs, how many runs, and
/// what to compare with.
pub struct MeasureRequest<'a> {
    pub preflight: &'a Preflight,
    /// The model's name in a run of several (bench), said before each warning.
    pub label: Option<&'a str>,
    pub print_plan: bool,
    pub inputs: &'a [InputSpec],
    pub load: &'a LoadOptions,
    pub warmup: u64,
    pub budget: RunBudget,
    /// `--compare-ep`: the reference plan (made from the preflight's request) and the tolerance.
    pub reference: Option<(PlanRequest, Tolerance)>,
    /// Time the reference session too, with the same warm-up and budget (bench: both execution
    /// providers side by side).
    pub time_reference: bool,
    /// Under `--precision fp16`: time the float32 model too, on the same plan (bench: both
    /// precisions side by side).
    pub time_float32: bool,
    /// The timed runs in this many rounds (consecutive blocks), so a slow spell shows as one.
    pub rounds: usize,
    /// `bench --baseline-model`: the baseline model timed in alternating rounds with this one.
    pub paired: Option<Pairing<'a>>,
    /// Keep the bytes of the model dmlrun made for the session (rewritten, converted), for
    /// `--save-model` and `--as-test-data`.
    pub keep_made_model: bool,
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
    /// The sizes of the consecutive rounds `samples` came in.
    pub rounds: Vec<usize>,
    /// With a pairing: the baseline model's side.
    pub paired: Option<PairedRuns>,
    /// With `keep_made_model`: the model the session ran, where dmlrun made it (a rewrite, the
    /// float16 conversion); `None` where the session ran the user's file as it is.
    pub made_model: Option<Vec<u8>>,
    pub comparison: Option<Comparison>,
    /// With `--io-on-device`: the copies timed apart and the check of the bound outputs.
    pub device_io: Option<DeviceIo>,
    /// Said on stderr as they arose, and kept for the report.
    pub warnings: Vec<String>,
    /// `--precision fp16`: what was converted, and the outputs against the float32 model's.
    pub precision: Option<PrecisionReport>,
    /// `--decompose`, `--gemm-zero-bias`: what was rewritten, and the outputs against the original's.
    pub rewrite: Option<RewriteReport>,
}

/// The open, bind, run, warm up, time and compare sequence `run` and `bench` share.
///
/// Inputs are bound before the session is created, so DirectML's automatic dimension overrides
/// can use their shapes; the first run's outputs are the ones reported and compared.
pub fn measure(runtime: &Runtime, request: &MeasureRequest, bar: &indicatif::ProgressBar) -> Result<Measurement> {
    let preflight = request.preflight;
    let mut warnings = Warnings { label: request.label, said: Vec::new() };
    let BoundForSession { bound, prepared, plan, warnings: said, took: input_prepare } =
        preflight.bind(runtime, request.inputs, request.load, request.print_plan)?;
    // Said before the (possibly long) session creation.
    said.into_iter().for_each(|w| warnings.say(w));
    let reference = match &request.reference {
        Some((reference, _)) => reference.clone(),
        None => preflight.request.reference(EpRequest::Cpu, None),
    };
    let explaining = Explaining {
        runtime,
        preflight,
        reference: request.reference.as_ref().map(|(r, _)| r),
        bound: Some(&bound),
        blame: true,
    };
    let check = Check::On(&reference, &prepared);
    let mut opened = open_made(explaining, &plan, check, &prepared, &mut |w| warnings.say(w))?;
    let source_model = opened.made.source().to_path_buf();
    let made_model = if request.keep_made_model { opened.made.bytes()? } else { None };
    if let Some(w) = opened.model.device.placement_warning() {
        warnings.say(w);
    }
    let model = &mut opened.model;
    let (mut runs, device_io) = match model.plan.io_on_device {
        true => {
            let tolerance = request.reference.as_ref().map_or(Tolerance::default(), |(_, t)| *t);
            let (first_run, outputs, samples, io) =
                measure_on_device(runtime, model, &prepared, (request.warmup, request.budget), tolerance, bar)
                    .map_err(|e| opened.explain(Stage::Run, &prepared, e))?;
            (HostRuns { first_run, outputs, samples, paired: None }, io)
        }
        false => (
            runs_in_host_memory(runtime, request, model, &prepared, bar)
                .map_err(|e| opened.explain(Stage::Run, &prepared, e))?,
            None,
        ),
    };
    let (rounds, paired) = runs.rounds(request.rounds);
    let HostRuns { first_run, outputs, samples, .. } = runs;
    bar.finish_and_clear();
    if let Some(w) = device_io.as_ref().and_then(DeviceIo::mismatch_warning) {
        warnings.say(w);
    }
    let reference = request.reference.as_ref();
    let comparison = reference.map(|r| compare_with_reference(runtime, request, r, &prepared, &outputs)).transpose()?;
    let Opened { made, model, .. } = opened;
    let mut precision = made.precision_report(&outputs);
    // Timed beside it only where something was converted: the same model twice is no comparison.
    let converted = precision.as_ref().is_some_and(PrecisionReport::converted_anything);
    if let (Some(report), true) = (&mut precision, request.time_float32 && converted) {
        time_float32(runtime, request, (&source_model, &model.plan), &prepared, report);
    }
    Ok(Measurement {
        model,
        bound,
        input_prepare,
        first_run,
        outputs,
        samples,
        rounds,
        paired,
        made_model,
        comparison,
        device_io,
        warnings: warnings.said,
        precision,
        rewrite: made.rewrite(),
    })
}

/// The warnings of one measurement: said on stderr as they arise (after the model's name in a
/// run of several), and kept for the report.
struct Warnings<'a> {
    label: Option<&'a str>,
    said: Vec<String>,
}

impl Warnings<'_> {
    fn say(&mut self, w: String) {
        match self.label {
            Some(label) => crate::errln!("warning: {label}: {w}"),
            None => crate::errln!("warning: {w}"),
        }
        self.said.push(w);
    }
}

/// What the runs in host memory give: the first run's time and outputs, the timed runs (ms), and
/// with a pairing the rounds and the baseline model's side.
struct HostRuns {
    first_run: Duration,
    outputs: Vec<(String, HostValue)>,
    samples: Vec<f64>,
    paired: Option<(Vec<usize>, PairedRuns)>,
}

impl HostRuns {
    /// The rounds the timed runs came in, and the baseline's side. Timed as one block, the runs
    /// are split into consecutive rounds after the fact: the same runs in the order they ran,
    /// grouped so that a slow spell shows as a slow round.
    fn rounds(&mut self, rounds: usize) -> (Vec<usize>, Option<PairedRuns>) {
        match self.paired.take() {
            Some((rounds, baseline)) => (rounds, Some(baseline)),
            None => (crate::stats::change::split_rounds(self.samples.len(), rounds), None),
        }
    }
}

/// The first run (its outputs the ones reported), the warm-up and the timed runs, inputs and
/// outputs in host memory; with a pairing, alternating with the baseline model.
fn runs_in_host_memory(
    runtime: &Runtime,
    request: &MeasureRequest,
    model: &mut LoadedModel,
    prepared: &PreparedInputs,
    bar: &indicatif::ProgressBar,
) -> Result<HostRuns> {
    crate::stage::step("the first run");
    let started = Instant::now();
    let outputs = run_to_host_values(&mut model.session, prepared)?;
    let first_run = started.elapsed();
    crate::stage::step("the warm-up and timed runs");
    warm_up(&mut model.session, &Feed::Host(prepared), request.warmup)?;
    let mut paired = None;
    let samples = match &request.paired {
        Some(pairing) => {
            let (samples, rounds, baseline) = alternate(runtime, model, prepared, pairing, bar)?;
            paired = Some((rounds, baseline));
            samples
        }
        None => timed_runs(&mut model.session, &Feed::Host(prepared), request.budget, bar, model.memory.as_mut())?,
    };
    Ok(HostRuns { first_run, outputs, samples, paired })
}

/// `--compare-ep`: the original model on the reference EP with the same inputs, its outputs
/// against the session's (a quantized output's difference counted in its steps), and with
/// `time_reference` its timed runs.
fn compare_with_reference(
    runtime: &Runtime,
    request: &MeasureRequest,
    (reference_plan, tolerance): &(PlanRequest, Tolerance),
    prepared: &PreparedInputs,
    outputs: &[(String, HostValue)],
) -> Result<Comparison> {
    let preflight = request.preflight;
    let mut reference = load(runtime, &preflight.model_path, preflight.info(), reference_plan)
        .context("--compare-ep reference session")?;
    let expected = run_to_host_values(&mut reference.session, prepared).context("--compare-ep reference run")?;
    let reference_samples = match request.time_reference {
        true => {
            let feed = Feed::Host(prepared);
            warm_up(&mut reference.session, &feed, request.warmup)?;
            timed_runs(&mut reference.session, &feed, request.budget, &indicatif::ProgressBar::hidden(), None)?
        }
        false => Vec::new(),
    };
    let mut differences = crate::compare::differences(&flatten(&expected), &flatten(outputs));
    super::steps::count_in_steps(&mut differences, preflight);
    Ok(Comparison {
        reference_samples,
        reference: reference.device.clone(),
        reference_optimization_level: reference_plan.optimization_level,
        tolerance: *tolerance,
        outputs_compared: expected.len(),
        mismatches: crate::compare::compare_outputs(&expected, outputs, *tolerance),
        differences,
    })
}

/// `bench --precision fp16`: the float32 model the conversion started from, timed with the same
/// warm-up and budget on the session's plan; a failure is kept in the report, not raised.
fn time_float32(
    runtime: &Runtime,
    request: &MeasureRequest,
    (source_model, plan): (&std::path::Path, &SessionPlan),
    prepared: &PreparedInputs,
    report: &mut PrecisionReport,
) {
    let preflight = request.preflight;
    crate::stage::step("the float32 model's timed runs");
    let float32 = SessionPlan { precision: Precision::Fp32, ..plan.clone() };
    let timed =
        open(runtime, source_model, preflight.info().clone(), Duration::ZERO, float32.clone()).and_then(|mut m| {
            let feed = Feed::Host(prepared);
            warm_up(&mut m.session, &feed, request.warmup)?;
            timed_runs(&mut m.session, &feed, request.budget, &indicatif::ProgressBar::hidden(), None)
        });
    match timed {
        Ok(samples) => report.float32_latency_ms = crate::stats::summarize(&samples),
        Err(e) => {
            let e = match source_model == preflight.model_path {
                true => e,
                false => diagnose::say_made_as(e, source_model, &preflight.model_path, &made_label(&float32)),
            };
            report.float32_error = Some(crate::exit::one_line(&e));
        }
    }
}

/// The batch size of a run: the first axis of the first input, when that input has a batch
/// axis (rank 2 or more).
pub fn batch_size(model: &LoadedModel, bound: &BoundInputs) -> Option<usize> {
    let first = bound.tensors.first()?;
    model.inputs.first().filter(|s| s.dims.len() >= 2)?;
    first.1.shape.first().copied()
}
