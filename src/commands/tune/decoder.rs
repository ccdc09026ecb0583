//! `dmlrun tune FOLDER`: an onnxruntime-genai folder's decoder. Each candidate form is checked
//! by what it generates (its greedy tokens against the original's on the reference EP, and
//! where they part every step's logits, as `fix` checks a decoder), then timed as `generate`
//! times it: the original and the candidate both open, one generation each in alternating
//! rounds at a stated synthetic prompt, each decode step and the time to first token kept. A
//! candidate is kept where its decode step is faster by the paired test and its time to first
//! token is not slower.

use anyhow::{bail, Result};

use super::trials::{Kind, Trial, TrialOutcome, Trials};
use super::{candidates, search, Form, THRESHOLD};
use crate::exit::ExitStatus;
use crate::graph::Graph;
use crate::report::tune::{Candidate, Outcome};
use crate::runtime::engine::{self, Against, DecodeTimes, Generated, PairedDecode, PairedTimes, Preflight, Scope};
use crate::runtime::plan::PlanRequest;
use crate::settings::TuneSettings;
use crate::stats::change::{judge, Change, Timed, Verdict};

/// The timed rounds of each side (one generation each), after one to warm both up.
const ROUNDS: usize = 6;

/// The original's greedy tokens on the reference EP.
pub(super) fn reference(trials: &Trials) -> TrialOutcome {
    let settings = trials.settings;
    let reference = settings.request.reference(settings.compare_ep.clone(), None);
    match engine::greedy_tokens(trials.runtime, &settings.model, &reference, None) {
        Ok(run) => TrialOutcome { tokens: Some(run.tokens), ..TrialOutcome::of(Outcome::NotFaster) },
        Err(e) => TrialOutcome::failed(&e),
    }
}

/// A candidate checked against the reference's tokens, then timed beside the original.
pub(super) fn candidate(trials: &Trials, trial: &Trial, tokens: &[i64]) -> TrialOutcome {
    let (runtime, settings) = (trials.runtime, trials.settings);
    let reference = settings.request.reference(settings.compare_ep.clone(), None);
    let against = Against { request: &reference, tokens };
    let checked = engine::greedy_tokens(runtime, &settings.model, &trial.request, Some(against));
    let note = match checked.map(|run| run.against(tokens)) {
        Ok(Generated::Agrees(note)) => note,
        Ok(Generated::Differs(why)) => return TrialOutcome::of(Outcome::Differs(why)),
        Ok(Generated::Uncaptured(why, _)) => return TrialOutcome::of(Outcome::Fails(why)),
        Err(e) => return TrialOutcome::failed(&e),
    };
    let how = PairedDecode { prompt_tokens: settings.prompt_tokens, new_tokens: settings.new_tokens, rounds: ROUNDS };
    let PairedTimes { original, candidate, device } =
        match engine::time_paired(runtime, &settings.model, (&settings.request, &trial.request), how) {
            Ok(both) => both,
            Err(e) => return TrialOutcome::failed(&e),
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
    TrialOutcome { candidate, device: Some(device), tokens: None }
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

/// The steps: the reference's tokens, each candidate that fits checked and timed while the
/// budget lasts, the kept ones together, the fastest written as a folder, the report.
pub(super) fn tune(settings: &TuneSettings) -> Result<ExitStatus> {
    let runtime = settings.ort.load()?;
    engine::check_request(&runtime, &settings.request)?;
    let decoder = engine::decoder_file(&settings.model)?;
    let original = Preflight::read(&runtime, &decoder, &settings.request, Scope::Alone)?;
    // A decoder is not converted to float16 (its builder writes one).
    let (forms, not_fitting) = candidates(&Graph::read(&decoder)?, &original);
    let forms = with_decode_step_forms(
        forms.into_iter().filter(|f| f.request.precision == settings.request.precision).collect(),
        &settings.request,
    );
    let trials = Trials::new(&runtime, settings)?;
    super::say(settings, format!("the original's tokens on the reference ({})", settings.compare_ep));
    let request = settings.request.clone();
    let reference =
        trials.run_one(Trial { name: "the reference".into(), flags: Vec::new(), request, kind: Kind::ReferenceTokens });
    let Some(tokens) = reference.tokens.clone() else {
        bail!("the original on the reference ({}): {}", settings.compare_ep, reference.why_not());
    };
    let searched =
        search(settings, trials, forms, reference.candidate.seconds, &|_| Kind::Decoder { tokens: tokens.clone() });
    let written = match (&searched.best, &settings.output) {
        (Some((candidate, form)), Some(output)) => {
            let on = searched.device(settings);
            let said = [("dmlrun.tuned".to_string(), record(settings, candidate, form, &on))];
            engine::write_decoder_folder(&runtime, &settings.model, &form.request, &said, output)?;
            Some(output.clone())
        }
        _ => None,
    };
    super::finish(settings, searched, not_fitting, timed(settings), written)
}

/// `forms`, with each rule for one row that fits tried in the decode step alone (a session of its
/// own) right after the rule on the whole decoder: a prompt of many rows keeps the model as
/// written. A folder cannot hold it: the record says to run it with the flag.
fn with_decode_step_forms(forms: Vec<Form>, request: &PlanRequest) -> Vec<Form> {
    let mut with = Vec::with_capacity(forms.len() + 1);
    for form in forms {
        // A rule's form: the request's rewrites and that rule.
        let added = form.request.rewrites.last().filter(|_| form.request.rewrites.len() == request.rewrites.len() + 1);
        let decode_step = match added {
            Some(&rewrite) if rewrite.for_one_row() && !request.decode_rewrites.contains(&rewrite) => {
                let flag = format!("--decode-rewrite {}", rewrite.flag().trim_start_matches("--"));
                let mut changed = request.clone();
                changed.decode_rewrites.push(rewrite);
                Some(Form { flags: vec![flag.clone()], request: changed, session_options: vec![flag] })
            }
            _ => None,
        };
        with.push(form);
        with.extend(decode_step);
    }
    with
}

fn timed(settings: &TuneSettings) -> String {
    format!(
        "each decode step (ms) and the time to first token, a {}-token synthetic prompt and {} new tokens, {ROUNDS} rounds of one generation each interleaved with the original's",
        settings.prompt_tokens, settings.new_tokens
    )
}

/// The written folder's record: what was applied and what was measured.
fn record(settings: &TuneSettings, candidate: &Candidate, form: &Form, on: &str) -> String {
    format!(
        "{}: the decode step {}, the time to first token {:.3}x, at a {}-token prompt on {on}{}",
        form.flags.join(" "),
        super::against_original(candidate.change.as_ref(), ROUNDS),
        candidate.ttft.as_ref().map_or(f64::NAN, |c| c.ratio),
        settings.prompt_tokens,
        super::run_with(form),
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
