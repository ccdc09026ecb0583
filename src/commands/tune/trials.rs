//! tune's trials as items of the one batch runner: each in a child dmlrun where DirectML is in
//! the plan or a limit holds (one that hangs, crashes or is stopped is that candidate's failure,
//! not the search's), under a limit scaled from the original's own run where none was given.

use std::time::{Duration, Instant};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::batch;
use crate::exit::ExitStatus;
use crate::isolation::{Placement, PlacementRequest};
use crate::progress::Counting;
use crate::report::tune::{Candidate, Outcome};
use crate::runtime::engine;
use crate::runtime::plan::PlanRequest;
use crate::runtime::Runtime;
use crate::settings::TuneSettings;

/// A trial's limit where no --timeout was given: its share of the budget plus this many times
/// the original's own run on the reference (a model file's run) ...
const LIMIT_SCALE: f64 = 10.0;
/// ... or its 16 greedy tokens (a decoder's), which cost a candidate far less than what it does
/// besides: its model made twice (checked, then timed), three sessions, its parted tokens compared
/// step by step on the reference, 14 timed generations. On the H200 the builder's int4 Qwen2-0.5B
/// with its weights dequantized took 102 s against a 2.2 s reference; 30 times (105 s in all) had
/// stopped it ...
const DECODER_LIMIT_SCALE: f64 = 60.0;
/// ... at least this (a DirectML session compiles what the CPU EP only loads), at most the cap.
const LIMIT_FLOOR: Duration = Duration::from_secs(30);
const LIMIT_CAP: Duration = Duration::from_secs(600);

/// What a trial runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) enum Kind {
    /// A model file as written, checked on the reference EP: that it runs, and how long it takes.
    Original,
    /// A model file's candidate, checked and timed beside the original for `share_ms`.
    Model { share_ms: u64 },
    /// A decoder's original on the reference EP: the greedy tokens candidates are held to.
    ReferenceTokens,
    /// A decoder's candidate, held to the reference's tokens, then timed as generate times it.
    Decoder { tokens: Vec<i64> },
}

/// One trial as an item of the batch runner: what a child is handed.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Trial {
    pub(super) name: String,
    pub(super) flags: Vec<String>,
    pub(super) request: PlanRequest,
    pub(super) kind: Kind,
}

/// A trial's record; where the session said it, the device it ran on; for the reference's run
/// of a decoder, its tokens.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct TrialOutcome {
    pub(super) candidate: Candidate,
    pub(super) device: Option<String>,
    pub(super) tokens: Option<Vec<i64>>,
}

impl TrialOutcome {
    pub(super) fn of(outcome: Outcome) -> TrialOutcome {
        TrialOutcome { candidate: Candidate::of(Vec::new(), outcome, 0.0), device: None, tokens: None }
    }

    pub(super) fn failed(e: &anyhow::Error) -> TrialOutcome {
        TrialOutcome::of(Outcome::Fails(crate::exit::one_line(e)))
    }

    /// Why a run that had to pass did not.
    pub(super) fn why_not(&self) -> String {
        match &self.candidate.outcome {
            Outcome::Fails(why) | Outcome::Differs(why) => why.clone(),
            other => other.word().to_string(),
        }
    }
}

/// What every trial shares, and where they run.
pub(super) struct Trials<'a> {
    pub(super) runtime: &'a Runtime,
    pub(super) settings: &'a TuneSettings,
    placement: Placement,
    directml: bool,
}

impl<'a> Trials<'a> {
    /// Where the trials of `settings` run: in children where DirectML is in the plan or a limit
    /// holds (the default's, scaled later by [`Trials::scaled`]).
    pub(super) fn new(runtime: &'a Runtime, settings: &'a TuneSettings) -> Result<Trials<'a>> {
        let directml = engine::plans_directml(runtime, &settings.request);
        let placement = PlacementRequest {
            isolation: settings.isolation,
            timeout: settings.timeout,
            default_limit: LIMIT_CAP,
            directml,
            print_plan: false,
        }
        .resolve()?;
        Ok(Trials { runtime, settings, placement, directml })
    }

    /// Where no --timeout was given, a trial may take its share of the budget plus LIMIT_SCALE
    /// (a decoder's: DECODER_LIMIT_SCALE) times the original's own run, within LIMIT_FLOOR and
    /// LIMIT_CAP: a candidate that hangs costs a small multiple of the model's own time.
    pub(super) fn scaled(self, share: Duration, original_seconds: f64) -> Trials<'a> {
        if !self.placement.default_limit || !self.placement.in_children {
            return self;
        }
        let scale = if self.settings.decoder { DECODER_LIMIT_SCALE } else { LIMIT_SCALE };
        let limit = (share + Duration::from_secs_f64(original_seconds * scale)).clamp(LIMIT_FLOOR, LIMIT_CAP);
        Trials { placement: Placement { limit: Some(limit), ..self.placement }, ..self }
    }

    /// `trial` as the one item of a batch, here or in a child, its outcome given the trial's flags
    /// and the parent's seconds (a child's start and a trial it had to stop count against the
    /// budget).
    pub(super) fn run_one(&self, trial: Trial) -> TrialOutcome {
        let (flags, started) = (trial.flags.clone(), Instant::now());
        let options = batch::Options::new(self.placement, self.directml, (1, 1), Counting::Attempts, true);
        let ran = batch::run_alone(self, trial, &options);
        let seconds = started.elapsed().as_secs_f64();
        let mut outcome = ran.unwrap_or_else(|why| TrialOutcome::of(Outcome::Fails(why)));
        outcome.candidate.flags = flags;
        outcome.candidate.seconds = seconds;
        outcome
    }
}

/// A child's side: the trial its parent handed it, here, its record appended to the runner's
/// results file.
pub(super) fn trial_as_child(settings: &TuneSettings, child: &batch::Handoff) -> Result<ExitStatus> {
    let runtime = settings.ort.load()?;
    let trials = Trials { runtime: &runtime, settings, placement: Placement::default(), directml: false };
    batch::serve_parent(&trials, child)?;
    Ok(ExitStatus::Success)
}
