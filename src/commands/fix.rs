//! `dmlrun fix MODEL -o OUT`: the model run whole on the EP under test against the reference on
//! the original; where it fails or differs, the remedies that fit it tried in a fixed order, each
//! attempt a whole run against the reference; the first set that passes pruned to the fewest
//! that still pass, and written as `--save-model` writes a model, with the record of every attempt.

use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};

use crate::cli::FixArgs;
use crate::compare::Tolerance;
use crate::exit::ExitStatus;
use crate::graph::{Graph, Rewrite};
use crate::inputs::LoadOptions;
use crate::report::fix::{self as report, Attempt, AttemptOutcome, FixReport, FIX_SCHEMA};
use crate::runtime::engine::{self, Preflight, Scope};
use crate::runtime::plan::{PlanRequest, Precision};
use crate::runtime::Runtime;
use crate::settings;

/// One thing dmlrun knows to do to a model an execution provider rejects or gets wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Remedy {
    Rewrite(Rewrite),
    /// Float32 converted to float16 (with the float32 run typing the conversion), for a float32
    /// kernel an EP cannot compile.
    Float16,
}

impl Remedy {
    fn flag(self) -> String {
        match self {
            Remedy::Rewrite(rewrite) => rewrite.flag(),
            Remedy::Float16 => "--precision fp16".to_string(),
        }
    }
}

/// One attempt's record, and the model to write where it passed (or why there is none).
struct Tried {
    attempt: Attempt,
    model: Option<std::result::Result<Vec<u8>, String>>,
}

impl Tried {
    fn passes(&self) -> bool {
        matches!(self.attempt.outcome, AttemptOutcome::Passes)
    }
}

/// What every attempt shares.
struct Attempts<'a> {
    runtime: &'a Runtime,
    args: &'a FixArgs,
    base: &'a PlanRequest,
    load: &'a LoadOptions,
    tolerance: Tolerance,
}

pub fn execute(args: &FixArgs) -> Result<ExitStatus> {
    let model_path = args.model.as_path();
    if model_path.is_dir() {
        bail!("model {}: is a folder; dmlrun fix takes one model file", model_path.display());
    }
    if !model_path.is_file() {
        bail!("model {}: no such file", model_path.display());
    }
    crate::report::export::check_writable(&args.output)
        .with_context(|| format!("--output {}", args.output.display()))?;
    if let Some(path) = args.json.as_deref().filter(|p| *p != Path::new("-")) {
        crate::report::export::check_writable(path).with_context(|| format!("--json {}", path.display()))?;
    }
    let runtime = Runtime::load(args.ort.ort_lib.as_deref(), args.ort.ort_log_level, &args.ort.ep_libraries)?;
    let request = settings::plan_request(&args.session, args.ort.ort_log_level)?;
    engine::check_request(&runtime, &request)?;
    let load = settings::load_options(&args.input, &args.preprocess);
    let tolerance = Tolerance { atol: args.atol, rtol: args.rtol };
    let graph = Graph::read(model_path)?;

    // The reference must run the original: its outputs are what every attempt is held to.
    crate::stage::step("the reference run");
    let reference = reference_of(&request, args);
    run_once(&runtime, args, &reference, &load, None).map_err(|e| {
        anyhow!(
            "model {}: the reference ({}) cannot run it either, so there is nothing {} could be fixed against: {}",
            model_path.display(),
            args.compare_ep,
            args.session.ep,
            crate::exit::one_line(&e)
        )
    })?;

    // The remedies the user gave stay in every attempt; those that fit the model are tried after.
    let fit: Vec<Remedy> = graph
        .applicable_rewrites()
        .into_iter()
        .filter(|r| !request.rewrites.contains(r))
        .map(Remedy::Rewrite)
        .chain((request.precision == Precision::Fp32).then_some(Remedy::Float16))
        .collect();
    let attempts = Attempts { runtime: &runtime, args, base: &request, load: &load, tolerance };
    let mut record = Vec::new();
    let mut note = |tried: &Tried| {
        if !args.quiet {
            crate::errln!("fix: {}", tried.attempt.describe());
        }
        record.push(tried.attempt.clone());
    };

    let as_is = attempts.run(&[]);
    note(&as_is);
    let passing = if as_is.passes() {
        Some((Vec::new(), as_is))
    } else {
        // Added one after another in the fixed order, each attempt the whole model.
        let mut applied = Vec::new();
        let mut passing = None;
        for remedy in &fit {
            applied.push(*remedy);
            let tried = attempts.run(&applied);
            note(&tried);
            if tried.passes() {
                passing = Some((applied.clone(), tried));
                break;
            }
        }
        // The fewest that still pass: each remedy but the last left out in turn, earliest first.
        if let Some((mut kept, mut best)) = passing.take() {
            // Without the last, the attempt before it ran already, and failed.
            let last = kept.last().copied();
            for remedy in kept.clone().into_iter().filter(|r| Some(*r) != last) {
                let without: Vec<Remedy> = kept.iter().copied().filter(|r| *r != remedy).collect();
                let tried = attempts.run(&without);
                note(&tried);
                if tried.passes() {
                    kept = without;
                    best = tried;
                }
            }
            passing = Some((kept, best));
        }
        passing
    };

    let write = |tried: &Tried| -> Result<std::path::PathBuf> {
        let bytes = match &tried.model {
            Some(Ok(bytes)) => bytes,
            Some(Err(why)) => bail!("--output {}: {why}", args.output.display()),
            None => bail!("--output {}: no model to write", args.output.display()),
        };
        crate::fsutil::write_atomic(&args.output, bytes)
            .with_context(|| format!("--output {}", args.output.display()))?;
        Ok(args.output.clone())
    };
    let (verdict, remedies, written) = match &passing {
        Some((kept, tried)) if kept.is_empty() => {
            ("passes", Vec::new(), if args.write_unchanged { Some(write(tried)?) } else { None })
        }
        Some((kept, tried)) => ("fixed", kept.iter().map(|r| r.flag()).collect(), Some(write(tried)?)),
        None => ("not_fixed", Vec::new(), None),
    };
    let report = FixReport {
        schema: FIX_SCHEMA,
        dmlrun_version: env!("CARGO_PKG_VERSION"),
        model: args.model.clone(),
        execution_provider: args.session.ep.to_string(),
        reference: args.compare_ep.to_string(),
        tolerance,
        remedies_that_fit: fit.iter().map(|r| r.flag()).collect(),
        attempts: record,
        verdict,
        remedies,
        written,
    };
    let json_on_stdout = match &args.json {
        Some(path) => crate::report::write_json(path, &report, "--json")?,
        None => false,
    };
    let human = report::human(&report);
    if json_on_stdout {
        crate::err!("{human}");
    } else {
        crate::out!("{human}");
    }
    Ok(if verdict == "not_fixed" { ExitStatus::Failed } else { ExitStatus::Success })
}

impl Attempts<'_> {
    /// The whole model with `remedies` (beside the user's own flags) on the EP under test,
    /// against the reference on the original model.
    fn run(&self, remedies: &[Remedy]) -> Tried {
        let started = Instant::now();
        let mut request = self.base.clone();
        for remedy in remedies {
            match remedy {
                Remedy::Rewrite(rewrite) => request.rewrites.push(*rewrite),
                Remedy::Float16 => request.precision = Precision::Fp16,
            }
        }
        let (outcome, max_abs_diff, model) =
            match run_once(self.runtime, self.args, &request, self.load, Some(self.tolerance)) {
                Ok(ran) => match ran.mismatches.first() {
                    None => (AttemptOutcome::Passes, ran.max_abs_diff, ran.model),
                    Some(first) => (AttemptOutcome::Differs(first.to_string()), ran.max_abs_diff, None),
                },
                Err(e) => (AttemptOutcome::Fails(crate::exit::one_line(&e)), None, None),
            };
        let attempt = Attempt {
            remedies: remedies.iter().map(|r| r.flag()).collect(),
            outcome,
            max_abs_diff,
            seconds: started.elapsed().as_secs_f64(),
        };
        Tried { attempt, model }
    }
}

/// One whole run's result against the reference.
struct Ran {
    mismatches: Vec<crate::compare::Mismatch>,
    max_abs_diff: Option<f64>,
    /// Where it passed against the reference: the model the session ran, as `--save-model`
    /// writes it, or why it cannot be written.
    model: Option<std::result::Result<Vec<u8>, String>>,
}

/// Runs the model once with `request`, against the reference on the original where `tolerance`
/// is given.
fn run_once(
    runtime: &Runtime,
    args: &FixArgs,
    request: &PlanRequest,
    load: &LoadOptions,
    tolerance: Option<Tolerance>,
) -> Result<Ran> {
    let preflight = Preflight::read(runtime, &args.model, request, Scope::Alone)?;
    let reference = tolerance.map(|t| (reference_of(&preflight.request, args), t));
    let measure = engine::MeasureRequest {
        preflight: &preflight,
        label: None,
        print_plan: false,
        inputs: &args.input.inputs,
        load,
        warmup: 0,
        budget: engine::RunBudget { max: 1, time_box: None, min: 0 },
        reference,
        time_reference: false,
        time_float32: false,
        rounds: 1,
        paired: None,
        // The reference check (no tolerance) ships nothing.
        keep_made_model: tolerance.is_some(),
    };
    let measured = engine::measure(runtime, &measure, &indicatif::ProgressBar::hidden())?;
    let (mismatches, max_abs_diff) = match measured.comparison {
        Some(c) => {
            let largest =
                c.differences.iter().map(|d| d.max_abs).fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.max(d))));
            (c.mismatches, largest)
        }
        None => (Vec::new(), None),
    };
    // The model to ship, made only where the attempt passed: re-encoding a large model for an
    // attempt that differs would be work thrown away.
    let model = (tolerance.is_some() && mismatches.is_empty()).then(|| {
        engine::saved_model(
            &args.model,
            &preflight,
            measured.made_model.as_deref(),
            measured.rewrite.as_ref(),
            measured.precision.as_ref(),
        )
        .map_err(|e| crate::exit::one_line(&e))
    });
    Ok(Ran { mismatches, max_abs_diff, model })
}

/// The reference runs the model as ONNX Runtime does by default: the options under test
/// (`--session-config`, `--ep-option`) are the EP under test's alone, as in reduce.
fn reference_of(request: &PlanRequest, args: &FixArgs) -> PlanRequest {
    PlanRequest {
        session_config: Vec::new(),
        ep_options: Vec::new(),
        ..request.reference(args.compare_ep.clone(), None)
    }
}
