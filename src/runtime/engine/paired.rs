//! Old against new in one session (`bench --baseline-model`): the baseline model opened beside
//! the measured one with the same execution provider, device and session options, and the two
//! timed in alternating rounds, A B B A A B B A ..., so that a slow spell of the machine falls on
//! both rather than on whichever ran during it.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::open::{open, DeviceReport, LoadedModel};
use super::preflight::{bound_shapes, finish_plan, Preflight};
use super::runs::{run_to_host_values, timed_runs, warm_up, Feed, PreparedInputs, RunBudget};
use crate::inputs::{InputSpec, LoadOptions};
use crate::runtime::Runtime;

/// The baseline model's side of a paired measurement.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PairedRuns {
    #[serde(with = "crate::fsutil::any_path")]
    pub model: std::path::PathBuf,
    pub device: DeviceReport,
    pub first_run_ms: f64,
    /// Every timed run (ms), in the order run, and the sizes of its rounds.
    #[serde(serialize_with = "crate::stats::tenth_microseconds")]
    pub samples_ms: Vec<f64>,
    pub rounds: Vec<usize>,
}

/// What a paired measurement needs beside the measured model's own session.
pub struct Pairing<'a> {
    pub baseline: &'a Preflight,
    pub inputs: &'a [InputSpec],
    pub load: &'a LoadOptions,
    pub warmup: u64,
    pub budget: RunBudget,
    pub rounds: usize,
}

/// Opens the baseline model with inputs bound to its own signature (the same files or the same
/// seed), warms it up, then times the two in alternating rounds. Returns the measured model's
/// samples and round sizes, and the baseline's side.
pub(super) fn alternate(
    runtime: &Runtime,
    model: &mut LoadedModel,
    prepared: &PreparedInputs,
    pairing: &Pairing,
    bar: &indicatif::ProgressBar,
) -> Result<(Vec<f64>, Vec<usize>, PairedRuns)> {
    let baseline = pairing.baseline;
    let said = || format!("--baseline-model {}", baseline.model_path.display());
    let bound = crate::inputs::bind(pairing.inputs, &baseline.input_signatures(), pairing.load)
        .with_context(|| format!("{}: its inputs", said()))?;
    let mut plan = baseline.plan.clone();
    finish_plan(runtime, &mut plan, baseline.info(), &baseline.request, &bound_shapes(&bound), false)?;
    let baseline_inputs = PreparedInputs::new(&bound.tensors)?;
    crate::stage::step("the baseline model's session");
    let mut old = open(runtime, &baseline.model_path, baseline.info().clone(), baseline.model.read_time, plan)
        .with_context(said)?;
    let started = Instant::now();
    run_to_host_values(&mut old.session, &baseline_inputs).with_context(|| format!("{}: its first run", said()))?;
    let first_run = started.elapsed();
    warm_up(&mut old.session, &Feed::Host(&baseline_inputs), pairing.warmup)?;

    crate::stage::step("the timed runs, old and new in alternating rounds");
    let per_round = round_budget(pairing.budget, pairing.rounds);
    let hidden = indicatif::ProgressBar::hidden();
    let (mut new_samples, mut new_rounds, mut old_samples, mut old_rounds) = (vec![], vec![], vec![], vec![]);
    for round in 0..pairing.rounds {
        // A B, then B A: each model runs first in half the rounds.
        for new_first in [round % 2 == 0, round % 2 != 0] {
            if crate::interrupt::interrupted() {
                break;
            }
            let (samples, rounds) = if new_first {
                let timed =
                    timed_runs(&mut model.session, &Feed::Host(prepared), per_round, bar, model.memory.as_mut())?;
                (timed, &mut new_rounds)
            } else {
                let timed = timed_runs(&mut old.session, &Feed::Host(&baseline_inputs), per_round, &hidden, None)
                    .with_context(said)?;
                (timed, &mut old_rounds)
            };
            if !samples.is_empty() {
                rounds.push(samples.len());
            }
            if new_first {
                new_samples.extend(samples);
            } else {
                old_samples.extend(samples);
            }
        }
    }
    let paired = PairedRuns {
        model: baseline.model_path.clone(),
        device: old.device.clone(),
        first_run_ms: first_run.as_secs_f64() * 1000.0,
        samples_ms: old_samples,
        rounds: old_rounds,
    };
    Ok((new_samples, new_rounds, paired))
}

/// One round's share of the whole budget: a count split evenly (rounded up), a time box
/// divided, the minimum shared out.
fn round_budget(budget: RunBudget, rounds: usize) -> RunBudget {
    let rounds = rounds.max(1) as u64;
    RunBudget {
        max: budget.max.div_ceil(rounds),
        time_box: budget.time_box.map(|d| d / rounds as u32).map(|d| d.max(Duration::from_millis(1))),
        min: budget.min.div_ceil(rounds),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_gets_its_share_of_the_budget() {
        let b = round_budget(RunBudget { max: 100, time_box: None, min: 0 }, 10);
        assert_eq!((b.max, b.time_box, b.min), (10, None, 0));
        let b = round_budget(RunBudget { max: 1_000_000, time_box: Some(Duration::from_secs(10)), min: 15 }, 4);
        assert_eq!((b.time_box, b.min), (Some(Duration::from_millis(2500)), 4));
        assert_eq!(round_budget(RunBudget { max: 7, time_box: None, min: 0 }, 10).max, 1);
    }
}
