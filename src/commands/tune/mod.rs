//! `dmlrun tune MODEL`: the fastest verified form of a model on the device at hand. Each
//! candidate form (a speed rule that fits the model, float16, a session option) is checked
//! against the original on the reference EP and timed beside the original in alternating rounds;
//! it is kept only where the paired test (Mann-Whitney U and a bootstrap interval of the ratio of
//! medians) says faster, the kept ones are combined and measured again, and the fastest verified
//! form is written with its record. Where nothing is faster, that is said and nothing written.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

mod decoder;

use crate::cli::TuneArgs;
use crate::exit::ExitStatus;
use crate::graph::{Graph, Rewrite};
use crate::report::tune::{self as report, Candidate, Outcome, TuneReport};
use crate::runtime::engine::{self, Measurement, Pairing, Preflight, RunBudget, Scope};
use crate::runtime::plan::{OptimizationLevel, PlanRequest, Precision, DML_DISABLE_FUSION};
use crate::runtime::Runtime;
use crate::settings::TuneSettings;
use crate::stats::change::{judge, Timed, Verdict};

/// The rounds each side is timed in, interleaved.
const ROUNDS: usize = 8;
/// The least a side is run, whatever the budget: the test needs samples.
const MIN_RUNS: u64 = 16;
/// The most: a model of microseconds would otherwise give the bootstrap millions of samples.
const MAX_RUNS: u64 = 2000;
/// A change smaller than this is taken as none.
const THRESHOLD: f64 = 0.01;

pub fn execute(args: &TuneArgs) -> Result<ExitStatus> {
    let settings = TuneSettings::resolve(args)?;
    match (&settings.child, settings.decoder) {
        (Some(child), _) => decoder::trial_as_child(&settings, child),
        (None, true) => decoder::tune(&settings),
        (None, false) => tune(&settings),
    }
}

/// A candidate form: the flags that make it, the request they make, and the session options
/// among them (which a model file cannot hold).
#[derive(Debug, Clone)]
struct Form {
    flags: Vec<String>,
    request: PlanRequest,
    session_options: Vec<String>,
}

/// One candidate tried: its record, and (where it passed its check) the model it ran.
struct Tried {
    candidate: Candidate,
    form: Form,
    made: Option<(Preflight, Measurement)>,
}

fn tune(settings: &TuneSettings) -> Result<ExitStatus> {
    let started = Instant::now();
    let runtime = settings.ort.load()?;
    engine::check_request(&runtime, &settings.request)?;
    let original = Preflight::read(&runtime, &settings.model, &settings.request, Scope::Alone)?;
    let (forms, not_fitting) = candidates(&Graph::read(&settings.model)?, &original);
    // Each candidate's share, and one for the combination.
    let share = settings.budget / (forms.len() as u32 + 1).max(1);
    let mut tried = Vec::new();
    for form in forms {
        let spent = started.elapsed() + share > settings.budget || crate::interrupt::interrupted();
        let one = match spent {
            true => Tried { candidate: not_tried(&form), form, made: None },
            false => try_form(&runtime, settings, &original, form, share),
        };
        if !settings.quiet {
            crate::errln!("tune: {}: {}", one.candidate.label(), one.candidate.outcome.word());
        }
        tried.push(one);
    }
    let combined = combine(&runtime, settings, &original, &tried, share);
    let best = fastest(tried.iter().chain(combined.as_ref()), |t| &t.candidate);
    let written = match (best, &settings.output) {
        (Some(best), Some(path)) => Some(write(settings, best, path)?),
        _ => None,
    };
    let device = tried.iter().find_map(|t| t.made.as_ref()).map(|(_, m)| m.model.device.describe());
    let report = TuneReport {
        schema: report::TUNE_SCHEMA,
        dmlrun_version: env!("CARGO_PKG_VERSION"),
        model: settings.model.clone(),
        device: device.unwrap_or_else(|| settings.request.describe_ep()),
        reference: settings.compare_ep.to_string(),
        timed: format!("each run (ms), {ROUNDS} rounds interleaved with the original's"),
        not_fitting,
        candidates: tried.iter().map(|t| t.candidate.clone()).collect(),
        combined: combined.as_ref().map(|c| c.candidate.clone()),
        chosen: best.map(|b| b.form.flags.clone()).unwrap_or_default(),
        written,
        run_with: best.map(|b| b.form.session_options.clone()).unwrap_or_default(),
        budget_s: settings.budget.as_secs_f64(),
        seconds: started.elapsed().as_secs_f64(),
    };
    print_report(settings, &report)?;
    Ok(if crate::interrupt::interrupted() { ExitStatus::Interrupted } else { ExitStatus::Success })
}

/// The forms worth trying on this model, in the order of their expected gain (the speed rules,
/// then float16, then the session options), and the speed rules that do not fit, with why.
fn candidates(graph: &Graph, original: &Preflight) -> (Vec<Form>, Vec<String>) {
    let request = &original.request;
    let fitting = graph.speedups_fitting();
    let ops: std::collections::HashSet<String> = graph.nodes().iter().map(|n| n.op_type.clone()).collect();
    let not_fitting = Rewrite::all()
        .filter_map(|r| match r {
            Rewrite::Rule(id) if r.tried_by_tune() && !fitting.contains(&r) => {
                Some(format!("{}: {}", r.flag(), id.rule().nothing_rewritten(&ops)))
            }
            _ => None,
        })
        .collect();
    let mut forms: Vec<Form> = fitting
        .into_iter()
        .filter(|r| !request.rewrites.contains(r))
        .map(|r| {
            let mut changed = request.clone();
            changed.rewrites.push(r);
            Form { flags: vec![r.flag()], request: changed, session_options: Vec::new() }
        })
        .collect();
    if request.precision == Precision::Fp32 {
        let changed = PlanRequest { precision: Precision::Fp16, ..request.clone() };
        forms.push(Form { flags: vec!["--precision fp16".into()], request: changed, session_options: Vec::new() });
    }
    if request.optimization_level == OptimizationLevel::All {
        let changed = PlanRequest { optimization_level: OptimizationLevel::Extended, ..request.clone() };
        let flag = "--opt-level extended".to_string();
        forms.push(Form { flags: vec![flag.clone()], request: changed, session_options: vec![flag] });
    }
    if original.plan.uses_directml() {
        let mut fusion_off = request.clone();
        fusion_off.session_config.push((DML_DISABLE_FUSION.to_string(), "1".to_string()));
        let flag = format!("--session-config {DML_DISABLE_FUSION}=1");
        forms.push(Form { flags: vec![flag.clone()], request: fusion_off, session_options: vec![flag] });
        if !request.dml_disable_metacommands {
            let changed = PlanRequest { dml_disable_metacommands: true, ..request.clone() };
            let flag = "--dml-disable-metacommands".to_string();
            forms.push(Form { flags: vec![flag.clone()], request: changed, session_options: vec![flag] });
        }
    }
    (forms, not_fitting)
}

/// One form checked against the original on the reference EP and timed beside it.
fn try_form(runtime: &Runtime, settings: &TuneSettings, original: &Preflight, form: Form, share: Duration) -> Tried {
    let started = Instant::now();
    let record = |outcome: Outcome| Candidate::of(form.flags.clone(), outcome, started.elapsed().as_secs_f64());
    let measured = Preflight::read(runtime, &settings.model, &form.request, Scope::Alone)
        .and_then(|preflight| measure(runtime, settings, original, &preflight, share).map(|m| (preflight, m)));
    let (preflight, measured) = match measured {
        Ok(both) => both,
        Err(e) => return Tried { candidate: record(Outcome::Fails(crate::exit::one_line(&e))), form, made: None },
    };
    let comparison = measured.comparison.as_ref();
    let max_abs_diff = comparison.and_then(|c| c.differences.iter().map(|d| d.max_abs).reduce(f64::max));
    if let Some(first) = comparison.and_then(|c| c.mismatches.first()) {
        let candidate = Candidate { max_abs_diff, ..record(Outcome::Differs(first.to_string())) };
        return Tried { candidate, form, made: None };
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
        ..record(if faster { Outcome::Faster } else { Outcome::NotFaster })
    };
    Tried { candidate, form, made: Some((preflight, measured)) }
}

/// The form's session beside the original's, rounds interleaved, each side's outputs checked
/// against the original's on the reference EP (float16 at float16's tolerance).
fn measure(
    runtime: &Runtime,
    settings: &TuneSettings,
    original: &Preflight,
    preflight: &Preflight,
    share: Duration,
) -> Result<Measurement> {
    let tolerance = match preflight.request.precision {
        Precision::Fp16 => settings.tolerance.at_least(crate::compare::FLOAT16),
        _ => settings.tolerance,
    };
    // Half the share a side, as the pairing splits it into its rounds.
    let budget = RunBudget { max: MAX_RUNS, time_box: Some(share / 2), min: MIN_RUNS };
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
        paired: Some(Pairing {
            baseline: original,
            inputs: &settings.inputs,
            load: &settings.load,
            warmup: 3,
            budget,
            rounds: ROUNDS,
        }),
        keep_made_model: settings.output.is_some(),
    };
    engine::measure(runtime, &request, &indicatif::ProgressBar::hidden())
}

fn not_tried(form: &Form) -> Candidate {
    Candidate::of(form.flags.clone(), Outcome::NotTried, 0.0)
}

/// The kept forms together, checked and timed once more, where two or more can be combined.
fn combine(
    runtime: &Runtime,
    settings: &TuneSettings,
    original: &Preflight,
    tried: &[Tried],
    share: Duration,
) -> Option<Tried> {
    if crate::interrupt::interrupted() {
        return None;
    }
    let form = combined(&original.request, tried.iter().map(|t| (&t.candidate, &t.form)))?;
    Some(try_form(runtime, settings, original, form, share))
}

/// The kept forms' changes to `original` made at once, where two or more combine: taken fastest
/// first, a form that rewrites an operator a form already taken rewrites is left out (once
/// `--dequantize-matmulnbits` has replaced every MatMulNBits, `--matmulnbits-accuracy-level` has
/// none left to give a level).
fn combined<'a>(original: &PlanRequest, tried: impl Iterator<Item = (&'a Candidate, &'a Form)>) -> Option<Form> {
    let ratio = |c: &Candidate| c.change.as_ref().map_or(f64::INFINITY, |c| c.ratio);
    let mut kept: Vec<(&Candidate, &Form)> = tried.filter(|(c, _)| c.outcome == Outcome::Faster).collect();
    kept.sort_by(|a, b| ratio(a.0).total_cmp(&ratio(b.0)));
    let mut request = original.clone();
    let mut form = Form { flags: Vec::new(), request: request.clone(), session_options: Vec::new() };
    let mut taken = 0;
    for (_, one) in kept {
        let added: Vec<Rewrite> =
            one.request.rewrites.iter().filter(|r| !request.rewrites.contains(r)).copied().collect();
        if added.iter().any(|r| request.rewrites.iter().any(|t| t.op_type() == r.op_type())) {
            continue;
        }
        request.rewrites.extend(added);
        for entry in &one.request.session_config {
            if !request.session_config.contains(entry) {
                request.session_config.push(entry.clone());
            }
        }
        if one.request.precision != original.precision {
            request.precision = one.request.precision;
        }
        if one.request.optimization_level != original.optimization_level {
            request.optimization_level = one.request.optimization_level;
        }
        request.dml_disable_metacommands |= one.request.dml_disable_metacommands;
        form.flags.extend(one.flags.iter().cloned());
        form.session_options.extend(one.session_options.iter().cloned());
        taken += 1;
    }
    form.request = request;
    (taken >= 2).then_some(form)
}

/// The verified form with the lowest ratio to the original among those measured faster.
fn fastest<'a, T>(tried: impl Iterator<Item = &'a T>, candidate: impl Fn(&T) -> &Candidate) -> Option<&'a T> {
    let ratio = |c: &Candidate| c.change.as_ref().map_or(f64::INFINITY, |c| c.ratio);
    tried
        .filter(|t| candidate(t).outcome == Outcome::Faster)
        .min_by(|a, b| ratio(candidate(a)).total_cmp(&ratio(candidate(b))))
}

/// The form written as `run --save-model` writes it, with the measured ratio and where it was
/// measured in `dmlrun.tuned`.
fn write(settings: &TuneSettings, best: &Tried, path: &std::path::Path) -> Result<PathBuf> {
    let Some((preflight, measured)) = &best.made else { anyhow::bail!("--output: the chosen form was not kept") };
    let model = engine::saved_model(
        &settings.model,
        preflight,
        measured.made_model.as_deref(),
        measured.rewrite.as_ref(),
        measured.precision.as_ref(),
        false,
    )?;
    let change = best.candidate.change.as_ref();
    let said = format!(
        "{}: {:.3}x the original's p50 [{:.3}, {:.3}] (Mann-Whitney U p {:.3}, {} rounds interleaved) on {}{}",
        best.form.flags.join(" "),
        change.map_or(f64::NAN, |c| c.ratio),
        change.map_or(f64::NAN, |c| c.ci_low),
        change.map_or(f64::NAN, |c| c.ci_high),
        change.map_or(f64::NAN, |c| c.p_value),
        ROUNDS,
        measured.model.device.describe(),
        match best.form.session_options.is_empty() {
            true => String::new(),
            false => format!("; run it with {}", best.form.session_options.join(" ")),
        }
    );
    let model =
        crate::formats::onnx_proto::with_metadata(&model, "dmlrun.tuned", &[("dmlrun.tuned".to_string(), said)])?;
    crate::formats::onnx_proto::write_model_from(path, &model, crate::fsutil::folder_of(&settings.model))
        .with_context(|| format!("--output {}", path.display()))?;
    Ok(path.to_path_buf())
}

fn print_report(settings: &TuneSettings, report: &TuneReport) -> Result<()> {
    let json_on_stdout = match &settings.json {
        Some(path) => crate::report::write_json(path, report, "--json")?,
        None => false,
    };
    let human = report::human::render(report);
    if json_on_stdout {
        crate::err!("{human}");
    } else {
        crate::out!("{human}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(flag: &str, ratio: f64, original: &PlanRequest) -> (Candidate, Form) {
        let mut request = original.clone();
        let mut session_options = Vec::new();
        match Rewrite::all().find(|r| r.flag() == flag) {
            Some(rule) => request.rewrites.push(rule),
            None => {
                request.optimization_level = OptimizationLevel::Extended;
                session_options.push(flag.to_string());
            }
        }
        let change = crate::stats::change::Change {
            verdict: Verdict::Improvement,
            ratio,
            ci_low: ratio,
            ci_high: ratio,
            p_value: 0.0,
            threshold: THRESHOLD,
            noise: 0.0,
            test: String::new(),
            rounds: [ROUNDS, ROUNDS],
            runs: [MIN_RUNS as usize, MIN_RUNS as usize],
            reason: String::new(),
        };
        let candidate = Candidate { change: Some(change), ..Candidate::of(vec![flag.into()], Outcome::Faster, 0.0) };
        (candidate, Form { flags: vec![flag.into()], request, session_options })
    }

    /// Two rules on the same operator are not combined (the faster alone is kept); a rule and a
    /// session option are, the faster first.
    #[test]
    fn kept_forms_combine_unless_they_rewrite_the_same_operator() {
        let original = PlanRequest::default();
        let nbits =
            [kept("--matmulnbits-accuracy-level", 0.5, &original), kept("--dequantize-matmulnbits", 0.4, &original)];
        assert!(combined(&original, nbits.iter().map(|(c, f)| (c, f))).is_none());
        let mixed = [kept("--opt-level extended", 0.9, &original), kept("--dequantize-matmulnbits", 0.4, &original)];
        let form = combined(&original, mixed.iter().map(|(c, f)| (c, f))).unwrap();
        assert_eq!(form.flags, ["--dequantize-matmulnbits", "--opt-level extended"]);
        assert_eq!(form.request.optimization_level, OptimizationLevel::Extended);
        assert_eq!(form.request.rewrites.len(), 1);
        assert_eq!(form.session_options, ["--opt-level extended"]);
    }
}
