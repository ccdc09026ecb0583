//! `dmlrun tune MODEL|FOLDER`: the fastest verified form of a model on the device at hand. Each
//! candidate form (a rule that fits the model, float16, a session option) is checked against the
//! original on the reference EP and timed beside the original in alternating rounds, each in a
//! child under a limit scaled from the original's own run (`trials`); it is kept only where the
//! paired test (Mann-Whitney U and a bootstrap interval of the ratio of medians) says faster, the
//! kept ones are combined and measured again, and the fastest verified form is written with its
//! record. Where nothing is faster, that is said and nothing written. A model file is timed by
//! its runs (`model`), a genai folder's decoder as `generate` times it (`decoder`).

mod decoder;
mod model;
mod trials;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::batch::{Batch, Ended};
use crate::cli::TuneArgs;
use crate::exit::ExitStatus;
use crate::graph::{Graph, Rewrite};
use crate::report::tune::{self as report, Candidate, Outcome, TuneReport};
use crate::runtime::engine::Preflight;
use crate::runtime::plan::{OptimizationLevel, PlanRequest, Precision, DML_DISABLE_FUSION};
use crate::settings::TuneSettings;
use crate::stats::change::Change;
use trials::{Kind, Trial, TrialOutcome, Trials};

/// A change smaller than this is taken as none.
const THRESHOLD: f64 = 0.01;

pub fn execute(args: &TuneArgs) -> Result<ExitStatus> {
    let settings = TuneSettings::resolve(args)?;
    match (&settings.child, settings.decoder) {
        (Some(child), _) => trials::trial_as_child(&settings, child),
        (None, true) => decoder::tune(&settings),
        (None, false) => model::tune(&settings),
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

/// `0.940x the original's p50 [0.930, 0.960] (Mann-Whitney U p 0.000, 8 rounds interleaved)`.
fn against_original(change: Option<&Change>, rounds: usize) -> String {
    format!(
        "{:.3}x the original's p50 [{:.3}, {:.3}] (Mann-Whitney U p {:.3}, {rounds} rounds interleaved)",
        change.map_or(f64::NAN, |c| c.ratio),
        change.map_or(f64::NAN, |c| c.ci_low),
        change.map_or(f64::NAN, |c| c.ci_high),
        change.map_or(f64::NAN, |c| c.p_value),
    )
}

/// `; run it with --opt-level extended`, where the form has options a model file cannot hold.
fn run_with(form: &Form) -> String {
    match form.session_options.is_empty() {
        true => String::new(),
        false => format!("; run it with {}", form.session_options.join(" ")),
    }
}

fn say(settings: &TuneSettings, line: String) {
    if !settings.quiet {
        crate::errln!("tune: {line}");
    }
}

/// A trial as the batch runner runs it: here, or in a child that runs it here.
impl Batch for Trials<'_> {
    type Item = Trial;
    type Outcome = TrialOutcome;

    fn name<'a>(&self, trial: &'a Trial) -> &'a str {
        &trial.name
    }

    /// The trial's outcome; its flags and seconds are the parent's to give (`Trials::run_one`).
    fn run(&self, trial: &Trial, _bars: &indicatif::MultiProgress) -> TrialOutcome {
        match &trial.kind {
            Kind::Original => model::original(self),
            Kind::Model { share_ms } => model::candidate(self, trial, Duration::from_millis(*share_ms)),
            Kind::ReferenceTokens => decoder::reference(self),
            Kind::Decoder { tokens } => decoder::candidate(self, trial, tokens),
        }
    }

    fn ended(&self, _trial: &Trial, end: Ended) -> TrialOutcome {
        let how = match end {
            Ended::Crash(how) | Ended::Timeout(how) | Ended::Interrupted(how) => how,
        };
        TrialOutcome::of(Outcome::Fails(how))
    }
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

/// What the search found: every candidate with its form, the kept ones combined, the fastest,
/// and the device the trials said they ran on.
struct Searched {
    started: Instant,
    tried: Vec<(Candidate, Form)>,
    combination: Option<(Candidate, Form)>,
    best: Option<(Candidate, Form)>,
    device: Option<String>,
}

impl Searched {
    /// Where the trials ran, as a session said it, else as the flags asked.
    fn device(&self, settings: &TuneSettings) -> String {
        self.device.clone().unwrap_or_else(|| settings.request.describe_ep())
    }
}

/// Each form tried as a trial of `kind` (given the form's share of the budget) while the budget
/// has room for one more as long as the longest so far, the kept ones combined and tried, the
/// fastest chosen. Each trial's limit is scaled from the original's own run.
fn search(
    settings: &TuneSettings,
    trials: Trials,
    forms: Vec<Form>,
    original_seconds: f64,
    kind: &dyn Fn(Duration) -> Kind,
) -> Searched {
    let started = Instant::now();
    // Each candidate's share, and one for the combination.
    let share = settings.budget / (forms.len() as u32 + 1).max(1);
    let trials = trials.scaled(share, original_seconds);
    let mut device = None;
    let mut try_form = |form: &Form| {
        let trial = Trial {
            name: form.flags.join(" "),
            flags: form.flags.clone(),
            request: form.request.clone(),
            kind: kind(share),
        };
        let outcome = trials.run_one(trial);
        device = device.take().or(outcome.device);
        outcome.candidate
    };
    let mut tried: Vec<(Candidate, Form)> = Vec::new();
    let mut longest = share;
    for form in forms {
        let spent = started.elapsed() + longest > settings.budget || crate::interrupt::interrupted();
        let candidate = match spent {
            true => Candidate::of(form.flags.clone(), Outcome::NotTried, 0.0),
            false => try_form(&form),
        };
        longest = longest.max(Duration::from_secs_f64(candidate.seconds));
        say(settings, format!("{}: {}", candidate.label(), candidate.outcome.word()));
        tried.push((candidate, form));
    }
    let combination = combined(&settings.request, tried.iter().map(|(c, f)| (c, f)))
        .filter(|_| !crate::interrupt::interrupted())
        .map(|form| (try_form(&form), form));
    let best = fastest(tried.iter().chain(combination.as_ref()), |(c, _)| c).cloned();
    Searched { started, tried, combination, best, device }
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
        let decode_added: Vec<Rewrite> =
            one.request.decode_rewrites.iter().filter(|r| !request.decode_rewrites.contains(r)).copied().collect();
        // One form of an operator: a rule on the whole model and in the decode step alone do not combine.
        let taken_ops = || request.rewrites.iter().chain(&request.decode_rewrites).map(|t| t.op_type());
        if added.iter().chain(&decode_added).any(|r| taken_ops().any(|op| op == r.op_type())) {
            continue;
        }
        request.rewrites.extend(added);
        request.decode_rewrites.extend(decode_added);
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

/// The report of what was searched, printed.
fn finish(
    settings: &TuneSettings,
    searched: Searched,
    not_fitting: Vec<String>,
    timed: String,
    written: Option<PathBuf>,
) -> Result<ExitStatus> {
    let device = searched.device(settings);
    let Searched { started, tried, combination, best, .. } = searched;
    let report = TuneReport {
        schema: report::TUNE_SCHEMA,
        dmlrun_version: env!("CARGO_PKG_VERSION"),
        model: settings.model.clone(),
        device,
        reference: settings.compare_ep.to_string(),
        timed,
        not_fitting,
        candidates: tried.into_iter().map(|(c, _)| c).collect(),
        combined: combination.map(|(c, _)| c),
        chosen: best.as_ref().map(|(_, f)| f.flags.clone()).unwrap_or_default(),
        written,
        run_with: best.map(|(_, f)| f.session_options).unwrap_or_default(),
        budget_s: settings.budget.as_secs_f64(),
        seconds: started.elapsed().as_secs_f64(),
    };
    print_report(settings, &report)?;
    Ok(if crate::interrupt::interrupted() { ExitStatus::Interrupted } else { ExitStatus::Success })
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
    use crate::stats::change::Verdict;

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
            rounds: [8, 8],
            runs: [16, 16],
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
