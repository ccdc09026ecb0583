//! `dmlrun tune MODEL`: a model file, each candidate checked by its outputs against the
//! original's on the reference EP and timed by its runs beside the original's, rounds
//! interleaved (bench's pairing), for its share of the budget.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

use super::trials::{Kind, Trial, TrialOutcome, Trials};
use super::{candidates, search, Form, THRESHOLD};
use crate::exit::ExitStatus;
use crate::graph::Graph;
use crate::report::tune::{Candidate, Outcome};
use crate::runtime::engine::{self, Measurement, Pairing, Preflight, RunBudget, Scope};
use crate::runtime::plan::Precision;
use crate::runtime::Runtime;
use crate::settings::TuneSettings;
use crate::stats::change::{judge, Timed, Verdict};

/// The rounds each side is timed in, interleaved.
const ROUNDS: usize = 8;
/// The least a side is run, whatever the budget: the test needs samples.
const MIN_RUNS: u64 = 16;
/// The most: a model of microseconds would otherwise give the bootstrap millions of samples.
const MAX_RUNS: u64 = 2000;

/// The steps: the original run alone (that it runs, and how long that takes, which scales each
/// candidate's limit), each candidate that fits checked and timed while the budget lasts, the
/// kept ones together, the fastest written, the report.
pub(super) fn tune(settings: &TuneSettings) -> Result<ExitStatus> {
    let runtime = settings.ort.load()?;
    engine::check_request(&runtime, &settings.request)?;
    let original = Preflight::read(&runtime, &settings.model, &settings.request, Scope::Alone)?;
    let (forms, not_fitting) = candidates(&Graph::read(&settings.model)?, &original);
    let trials = Trials::new(&runtime, settings)?;
    super::say(settings, format!("the original, checked on the reference ({})", settings.compare_ep));
    let request = settings.request.clone();
    let alone = trials.run_one(Trial { name: "the original".into(), flags: Vec::new(), request, kind: Kind::Original });
    if alone.candidate.outcome != Outcome::NotFaster {
        anyhow::bail!("model {}: the original: {}", settings.model.display(), alone.why_not());
    }
    let kind = |share: Duration| Kind::Model { share_ms: share.as_millis() as u64 };
    let mut searched = search(settings, trials, forms, alone.candidate.seconds, &kind);
    // The original's own run says where it ran, where no candidate's did.
    searched.device = searched.device.or(alone.device);
    let written = match (&searched.best, &settings.output) {
        (Some((candidate, form)), Some(path)) => {
            let on = searched.device(settings);
            Some(write(&runtime, settings, (candidate, form), &on, path)?)
        }
        _ => None,
    };
    let timed = format!("each run (ms), {ROUNDS} rounds interleaved with the original's");
    super::finish(settings, searched, not_fitting, timed, written)
}

/// The original alone on the EP under test, its outputs checked on the reference: a model that
/// does not run as written has no form to beat.
pub(super) fn original(trials: &Trials) -> TrialOutcome {
    let settings = trials.settings;
    let measured = Preflight::read(trials.runtime, &settings.model, &settings.request, Scope::Alone).and_then(|p| {
        let budget = RunBudget { max: MIN_RUNS, time_box: None, min: 1 };
        measure(trials.runtime, settings, &p, None, budget)
    });
    match measured {
        Ok(m) => TrialOutcome { device: Some(m.model.device.describe()), ..TrialOutcome::of(Outcome::NotFaster) },
        Err(e) => TrialOutcome::failed(&e),
    }
}

/// One form checked against the original on the reference EP and timed beside it.
pub(super) fn candidate(trials: &Trials, trial: &Trial, share: Duration) -> TrialOutcome {
    let (runtime, settings) = (trials.runtime, trials.settings);
    // Half the share a side, as the pairing splits it into its rounds.
    let budget = RunBudget { max: MAX_RUNS, time_box: Some(share / 2), min: MIN_RUNS };
    let measured = Preflight::read(runtime, &settings.model, &settings.request, Scope::Alone).and_then(|original| {
        let preflight = Preflight::read(runtime, &settings.model, &trial.request, Scope::Alone)?;
        measure(runtime, settings, &preflight, Some(&original), budget)
    });
    let measured = match measured {
        Ok(measured) => measured,
        Err(e) => return TrialOutcome::failed(&e),
    };
    let device = Some(measured.model.device.describe());
    let comparison = measured.comparison.as_ref();
    let max_abs_diff = comparison.and_then(|c| c.differences.iter().map(|d| d.max_abs).reduce(f64::max));
    if let Some(first) = comparison.and_then(|c| c.mismatches.first()) {
        let candidate =
            Candidate { max_abs_diff, ..Candidate::of(Vec::new(), Outcome::Differs(first.to_string()), 0.0) };
        return TrialOutcome { candidate, device, tokens: None };
    }
    let old = measured.paired.as_ref().map(|p| Timed { samples: &p.samples_ms, rounds: &p.rounds });
    let new = Timed { samples: &measured.samples, rounds: &measured.rounds };
    let change = old.and_then(|old| judge(old, new, THRESHOLD));
    let faster = change.as_ref().is_some_and(|c| c.verdict == Verdict::Improvement);
    let candidate = Candidate {
        change,
        p50_ms: crate::stats::summarize(&measured.samples).map(|s| s.p50),
        original_p50_ms: measured.paired.as_ref().and_then(|p| crate::stats::summarize(&p.samples_ms)).map(|s| s.p50),
        max_abs_diff,
        ..Candidate::of(Vec::new(), if faster { Outcome::Faster } else { Outcome::NotFaster }, 0.0)
    };
    TrialOutcome { candidate, device, tokens: None }
}

/// The form's session (beside the original's, rounds interleaved, where one is given), its
/// outputs checked against the original's on the reference EP (float16 at float16's tolerance).
fn measure(
    runtime: &Runtime,
    settings: &TuneSettings,
    preflight: &Preflight,
    original: Option<&Preflight>,
    budget: RunBudget,
) -> Result<Measurement> {
    let tolerance = match preflight.request.precision {
        Precision::Fp16 => settings.tolerance.at_least(crate::compare::FLOAT16),
        _ => settings.tolerance,
    };
    let request = engine::MeasureRequest {
        preflight,
        label: None,
        print_plan: false,
        inputs: &settings.inputs,
        load: &settings.load,
        warmup: 3,
        budget,
        reference: Some((preflight.request.reference(settings.compare_ep.clone(), None), tolerance)),
        time_reference: false,
        time_float32: false,
        rounds: ROUNDS,
        paired: original.map(|baseline| Pairing {
            baseline,
            inputs: &settings.inputs,
            load: &settings.load,
            warmup: 3,
            budget,
            rounds: ROUNDS,
        }),
        keep_made_model: false,
    };
    engine::measure(runtime, &request, &indicatif::ProgressBar::hidden())
}

/// The chosen form made again here, as the session made it, and written as `run --save-model`
/// writes it, with the measured ratio and where it was measured in `dmlrun.tuned`.
fn write(
    runtime: &Runtime,
    settings: &TuneSettings,
    (candidate, form): (&Candidate, &Form),
    on: &str,
    path: &Path,
) -> Result<PathBuf> {
    let preflight = Preflight::read(runtime, &settings.model, &form.request, Scope::Alone)?;
    let why = "its outputs were checked against the original's when it was timed";
    let made = engine::made_for_session(runtime, &preflight, &preflight.plan, engine::Check::Not(why), &mut |w| {
        crate::errln!("dmlrun: warning: tune: {w}")
    })?;
    let made_bytes = made.bytes()?;
    let model =
        engine::saved_model(&settings.model, &preflight, made_bytes.as_deref(), made.rewrite().as_ref(), None, false)?;
    let said = format!(
        "{}: {} on {on}{}",
        form.flags.join(" "),
        super::against_original(candidate.change.as_ref(), ROUNDS),
        super::run_with(form)
    );
    let model =
        crate::formats::onnx_proto::with_metadata(&model, "dmlrun.tuned", &[("dmlrun.tuned".to_string(), said)])?;
    let from = match made_bytes.is_some() {
        true => crate::fsutil::folder_of(made.path()),
        false => crate::fsutil::folder_of(&settings.model),
    };
    crate::formats::onnx_proto::write_model_from(path, &model, from)
        .with_context(|| format!("--output {}", path.display()))?;
    Ok(path.to_path_buf())
}
