//! `dmlrun tune FOLDER`: an onnxruntime-genai folder's decoder. Each candidate form is checked
//! by what it generates (its greedy tokens against the original's on the reference EP, and
//! where they part every step's logits, as `fix` checks a decoder), then timed as `generate`
//! times it: the original and the candidate both open, one generation each in alternating
//! rounds at a stated synthetic prompt, each decode step and the time to first token kept. A
//! candidate is kept where its decode step is faster by the paired test and its time to first
//! token is not slower. Each trial runs in a child process (where DirectML is in the plan or a
//! limit holds) under a time limit scaled from the reference's own run, so one that hangs costs
//! that candidate, not the search.

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

use super::{candidates, combined, fastest, print_report, Form, THRESHOLD};
use crate::batch::{self, Batch, Ended, Entry};
use crate::exit::ExitStatus;
use crate::graph::Graph;
use crate::isolation::{Placement, PlacementRequest};
use crate::progress::Counting;
use crate::report::tune::{self as report, Candidate, Outcome, TuneReport};
use crate::runtime::engine::{self, Against, DecodeTimes, Generated, PairedDecode, Preflight, Scope};
use crate::runtime::plan::PlanRequest;
use crate::runtime::Runtime;
use crate::settings::TuneSettings;
use crate::stats::change::{judge, Change, Timed, Verdict};

/// The timed rounds of each side (one generation each), after one to warm both up.
const ROUNDS: usize = 6;
/// A trial's limit where no --timeout was given: its share of the budget plus this many times
/// the reference's own run (a session and 16 tokens) ...
const LIMIT_SCALE: f64 = 10.0;
/// ... at least this (a DirectML session compiles what the CPU EP only loads), at most the cap.
const LIMIT_FLOOR: Duration = Duration::from_secs(30);
const LIMIT_CAP: Duration = Duration::from_secs(600);

/// One trial as an item of the batch runner (what a child is handed): the original on the
/// reference EP (no tokens to be held to: it gives them), or a candidate held to them.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Trial {
    name: String,
    flags: Vec<String>,
    request: PlanRequest,
    reference_tokens: Option<Vec<i64>>,
}

/// A trial's record, and for the reference's run its tokens.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct TrialOutcome {
    candidate: Candidate,
    tokens: Option<Vec<i64>>,
}

/// What every trial shares.
pub(super) struct Trials<'a> {
    runtime: &'a Runtime,
    settings: &'a TuneSettings,
}

impl Batch for Trials<'_> {
    type Item = Trial;
    type Outcome = TrialOutcome;

    fn name<'a>(&self, trial: &'a Trial) -> &'a str {
        &trial.name
    }

    fn run(&self, trial: &Trial, _bars: &indicatif::MultiProgress) -> TrialOutcome {
        let started = Instant::now();
        let mut outcome = match &trial.reference_tokens {
            None => self.reference(),
            Some(tokens) => self.candidate(trial, tokens),
        };
        outcome.candidate.flags.clone_from(&trial.flags);
        outcome.candidate.seconds = started.elapsed().as_secs_f64();
        outcome
    }

    fn ended(&self, trial: &Trial, end: Ended) -> TrialOutcome {
        let how = match end {
            Ended::Crash(how) | Ended::Timeout(how) | Ended::Interrupted(how) => how,
        };
        TrialOutcome { candidate: Candidate::of(trial.flags.clone(), Outcome::Fails(how), 0.0), tokens: None }
    }
}

impl Trials<'_> {
    fn reference_request(&self) -> PlanRequest {
        self.settings.request.reference(self.settings.compare_ep.clone(), None)
    }

    /// The original's greedy tokens on the reference EP.
    fn reference(&self) -> TrialOutcome {
        match engine::greedy_tokens(self.runtime, &self.settings.model, &self.reference_request(), None) {
            Ok(run) => {
                TrialOutcome { candidate: Candidate::of(Vec::new(), Outcome::NotFaster, 0.0), tokens: Some(run.tokens) }
            }
            Err(e) => failed(&e),
        }
    }

    /// A candidate checked against the reference's tokens, then timed beside the original.
    fn candidate(&self, trial: &Trial, tokens: &[i64]) -> TrialOutcome {
        let (runtime, settings) = (self.runtime, self.settings);
        let reference = self.reference_request();
        let against = Against { request: &reference, tokens };
        let checked = engine::greedy_tokens(runtime, &settings.model, &trial.request, Some(against));
        let note = match checked.map(|run| run.against(tokens)) {
            Ok(Generated::Agrees(note)) => note,
            Ok(Generated::Differs(why)) => return outcome(Outcome::Differs(why)),
            Ok(Generated::Uncaptured(why, _)) => return outcome(Outcome::Fails(why)),
            Err(e) => return failed(&e),
        };
        let how =
            PairedDecode { prompt_tokens: settings.prompt_tokens, new_tokens: settings.new_tokens, rounds: ROUNDS };
        let (original, candidate) =
            match engine::time_paired(runtime, &settings.model, (&settings.request, &trial.request), how) {
                Ok(both) => both,
                Err(e) => return failed(&e),
            };
        let (decode, ttft) = judged(&original, &candidate);
        let faster = kept(decode.as_ref(), ttft.as_ref());
        let candidate = Candidate {
            change: decode,
            p50_ms: crate::stats::summarize(&candidate.step_ms).map(|s| s.p50),
            original_p50_ms: crate::stats::summarize(&original.step_ms).map(|s| s.p50),
            ttft,
            note,
            ..Candidate::of(Vec::new(), if faster { Outcome::Faster } else { Outcome::NotFaster }, 0.0)
        };
        TrialOutcome { candidate, tokens: None }
    }

    /// `trial` as the one item of a batch: in a child held to the limit where the placement
    /// says so (one that hangs, crashes or is stopped is that candidate's failure), else here.
    fn through_runner(&self, placement: Placement, directml: bool, trial: Trial) -> TrialOutcome {
        let (flags, started) = (trial.flags.clone(), Instant::now());
        let options = batch::Options::new(placement, directml, (1, 1), Counting::Attempts, true);
        let mut outcome = None;
        let ran = batch::run(self, vec![Entry::Run(trial)], &options, &mut |_, one| {
            outcome = Some(one);
            Ok(())
        });
        // The parent's clock: a child's start and a trial it had to stop count against the budget.
        let seconds = started.elapsed().as_secs_f64();
        let why = match (ran, outcome) {
            (Ok(()), Some(outcome)) => {
                return TrialOutcome { candidate: Candidate { seconds, ..outcome.candidate }, ..outcome };
            }
            (Err(e), _) => crate::exit::one_line(&e),
            (Ok(()), None) => crate::interrupt::interrupted_in(""),
        };
        TrialOutcome { candidate: Candidate::of(flags, Outcome::Fails(why), seconds), tokens: None }
    }
}

fn outcome(outcome: Outcome) -> TrialOutcome {
    TrialOutcome { candidate: Candidate::of(Vec::new(), outcome, 0.0), tokens: None }
}

fn failed(e: &anyhow::Error) -> TrialOutcome {
    outcome(Outcome::Fails(crate::exit::one_line(e)))
}

/// The candidate's decode steps and times to first token against the original's: each round a
/// block of the bootstrap, as bench's rounds are.
fn judged(original: &DecodeTimes, candidate: &DecodeTimes) -> (Option<Change>, Option<Change>) {
    let decode = judge(
        Timed { samples: &original.step_ms, rounds: &original.steps_per_round },
        Timed { samples: &candidate.step_ms, rounds: &candidate.steps_per_round },
        THRESHOLD,
    );
    let (old, new) = (&original.ttft_ms, &candidate.ttft_ms);
    let ones = vec![1; old.len().max(new.len())];
    let ttft = judge(
        Timed { samples: old, rounds: &ones[..old.len()] },
        Timed { samples: new, rounds: &ones[..new.len()] },
        THRESHOLD,
    );
    (decode, ttft)
}

/// A candidate is kept where its decode step is faster by the paired test and its time to first
/// token not slower by it.
fn kept(decode: Option<&Change>, ttft: Option<&Change>) -> bool {
    decode.is_some_and(|c| c.verdict == Verdict::Improvement) && ttft.is_none_or(|c| c.verdict != Verdict::Regression)
}

/// A child's side: the trial its parent handed it, here, its record appended to the runner's
/// results file.
pub(super) fn trial_as_child(settings: &TuneSettings, child: &batch::Handoff) -> Result<ExitStatus> {
    let runtime = settings.ort.load()?;
    batch::serve_parent(&Trials { runtime: &runtime, settings }, child)?;
    Ok(ExitStatus::Success)
}

/// The steps: the reference's tokens, each candidate that fits checked and timed while the
/// budget lasts, the kept ones together, the fastest written as a folder, the report.
pub(super) fn tune(settings: &TuneSettings) -> Result<ExitStatus> {
    let started = Instant::now();
    let runtime = settings.ort.load()?;
    engine::check_request(&runtime, &settings.request)?;
    let decoder = engine::decoder_file(&settings.model)?;
    let original = Preflight::read(&runtime, &decoder, &settings.request, Scope::Alone)?;
    let directml = engine::plans_directml(&runtime, &settings.request);
    let placement = PlacementRequest {
        isolation: settings.isolation,
        timeout: settings.timeout,
        default_limit: LIMIT_CAP,
        directml,
        print_plan: false,
    }
    .resolve()?;
    // A decoder is not converted to float16 (its builder writes one).
    let (forms, not_fitting) = candidates(&Graph::read(&decoder)?, &original);
    let forms: Vec<Form> = forms.into_iter().filter(|f| f.request.precision == settings.request.precision).collect();
    let trials = Trials { runtime: &runtime, settings };
    let say = |line: String| {
        if !settings.quiet {
            crate::errln!("tune: {line}");
        }
    };
    say(format!("the original's tokens on the reference ({})", settings.compare_ep));
    let reference = Trial {
        name: "the reference".into(),
        flags: Vec::new(),
        request: settings.request.clone(),
        reference_tokens: None,
    };
    let reference = trials.through_runner(placement, directml, reference);
    let Some(tokens) = reference.tokens else {
        let why = match reference.candidate.outcome {
            Outcome::Fails(why) => why,
            other => other.word().to_string(),
        };
        bail!("the original on the reference ({}): {why}", settings.compare_ep);
    };
    let share = settings.budget / (forms.len() as u32 + 1).max(1);
    let placement = scaled(placement, share, reference.candidate.seconds);
    let mut tried: Vec<(Candidate, Form)> = Vec::new();
    // The longest trial so far: one more is begun only where the budget has room for it.
    let mut longest = share;
    for form in forms {
        let spent = started.elapsed() + longest > settings.budget || crate::interrupt::interrupted();
        let candidate = match spent {
            true => Candidate::of(form.flags.clone(), Outcome::NotTried, 0.0),
            false => try_form(&trials, placement, directml, &form, &tokens),
        };
        longest = longest.max(Duration::from_secs_f64(candidate.seconds));
        say(format!("{}: {}", candidate.label(), candidate.outcome.word()));
        tried.push((candidate, form));
    }
    let combination = combined(&settings.request, tried.iter().map(|(c, f)| (c, f)))
        .filter(|_| !crate::interrupt::interrupted())
        .map(|form| (try_form(&trials, placement, directml, &form, &tokens), form));
    let best = fastest(tried.iter().chain(combination.as_ref()), |(c, _)| c);
    let written = match (best, &settings.output) {
        (Some((candidate, form)), Some(output)) => {
            let said = [("dmlrun.tuned".to_string(), record(settings, candidate, form))];
            engine::write_decoder_folder(&runtime, &settings.model, &form.request, &said, output)?;
            Some(output.clone())
        }
        _ => None,
    };
    let report = TuneReport {
        schema: report::TUNE_SCHEMA,
        dmlrun_version: env!("CARGO_PKG_VERSION"),
        model: settings.model.clone(),
        device: settings.request.describe_ep(),
        reference: settings.compare_ep.to_string(),
        timed: timed(settings),
        not_fitting,
        candidates: tried.iter().map(|(c, _)| c.clone()).collect(),
        combined: combination.as_ref().map(|(c, _)| c.clone()),
        chosen: best.map(|(_, f)| f.flags.clone()).unwrap_or_default(),
        written,
        run_with: best.map(|(_, f)| f.session_options.clone()).unwrap_or_default(),
        budget_s: settings.budget.as_secs_f64(),
        seconds: started.elapsed().as_secs_f64(),
    };
    print_report(settings, &report)?;
    Ok(if crate::interrupt::interrupted() { ExitStatus::Interrupted } else { ExitStatus::Success })
}

fn try_form(trials: &Trials, placement: Placement, directml: bool, form: &Form, tokens: &[i64]) -> Candidate {
    let trial = Trial {
        name: form.flags.join(" "),
        flags: form.flags.clone(),
        request: form.request.clone(),
        reference_tokens: Some(tokens.to_vec()),
    };
    trials.through_runner(placement, directml, trial).candidate
}

/// Where no --timeout was given, a trial may take its share of the budget plus LIMIT_SCALE times
/// the reference's own run, within LIMIT_FLOOR and LIMIT_CAP: a candidate that hangs costs a
/// small multiple of the model's own time.
fn scaled(placement: Placement, share: Duration, reference_seconds: f64) -> Placement {
    if !placement.default_limit || !placement.in_children {
        return placement;
    }
    let limit = (share + Duration::from_secs_f64(reference_seconds * LIMIT_SCALE)).clamp(LIMIT_FLOOR, LIMIT_CAP);
    Placement { limit: Some(limit), ..placement }
}

fn timed(settings: &TuneSettings) -> String {
    format!(
        "each decode step (ms) and the time to first token, a {}-token synthetic prompt and {} new tokens, {ROUNDS} rounds of one generation each interleaved with the original's",
        settings.prompt_tokens, settings.new_tokens
    )
}

/// The written folder's record: what was applied and what was measured.
fn record(settings: &TuneSettings, candidate: &Candidate, form: &Form) -> String {
    let change = candidate.change.as_ref();
    let ttft = candidate.ttft.as_ref();
    format!(
        "{}: the decode step {:.3}x the original's p50 [{:.3}, {:.3}] (Mann-Whitney U p {:.3}, {ROUNDS} rounds interleaved), the time to first token {:.3}x, at a {}-token prompt on {}{}",
        form.flags.join(" "),
        change.map_or(f64::NAN, |c| c.ratio),
        change.map_or(f64::NAN, |c| c.ci_low),
        change.map_or(f64::NAN, |c| c.ci_high),
        change.map_or(f64::NAN, |c| c.p_value),
        ttft.map_or(f64::NAN, |c| c.ratio),
        settings.prompt_tokens,
        settings.request.describe_ep(),
        match form.session_options.is_empty() {
            true => String::new(),
            false => format!("; run it with {}", form.session_options.join(" ")),
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Both sides drawn alike: each round's level moved by up to 5% (a process, a clock), each
    /// step by up to 10% more (what a decode step's time does), a first token's by 20%.
    fn drawn(rng: &mut rand::rngs::StdRng) -> DecodeTimes {
        let mut times = DecodeTimes::default();
        for _ in 0..ROUNDS {
            let level = 10.0 * (1.0 + rng.random_range(-0.05..0.05));
            times.ttft_ms.push(100.0 * (1.0 + rng.random_range(-0.2..0.2)));
            times.step_ms.extend((0..15).map(|_| level * (1.0 + rng.random_range(0.0..0.1))));
            times.steps_per_round.push(15);
        }
        times
    }

    /// An A/A candidate (timed alike with the original) is kept no more often than the interval's
    /// one-sided error, 2.5%: the interval resamples whole rounds, so a round's drift widens it
    /// where the pooled steps alone would call the drift significant.
    #[test]
    fn a_candidate_timed_alike_with_the_original_is_kept_at_most_at_the_test_s_error_rate() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let draws = 200;
        let kept_alike = (0..draws)
            .filter(|_| {
                let (original, candidate) = (drawn(&mut rng), drawn(&mut rng));
                let (decode, ttft) = judged(&original, &candidate);
                kept(decode.as_ref(), ttft.as_ref())
            })
            .count();
        // A one-sided error of the 95% interval is 2.5% at most (a thousand draws of 63 steps a
        // round kept 6 when this was written).
        assert!(kept_alike * 40 <= draws, "{kept_alike} of {draws} kept");
    }

    /// A candidate 20% faster a step is kept; the same with a first token twice as slow is not.
    #[test]
    fn a_faster_decode_is_kept_unless_its_first_token_is_slower() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        let original = drawn(&mut rng);
        let mut candidate = drawn(&mut rng);
        candidate.step_ms.iter_mut().for_each(|s| *s *= 0.8);
        let (decode, ttft) = judged(&original, &candidate);
        assert!(kept(decode.as_ref(), ttft.as_ref()), "{decode:?}");
        candidate.ttft_ms.iter_mut().for_each(|s| *s *= 2.0);
        let (decode, ttft) = judged(&original, &candidate);
        assert_eq!(ttft.as_ref().map(|c| c.verdict), Some(Verdict::Regression));
        assert!(!kept(decode.as_ref(), ttft.as_ref()));
    }
}
