//! `bench --sessions N`: several sessions of one model running at once, one thread each.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::device_io::{bind_on_device, device_memory};
use super::open::{open, LoadedModel};
use super::runs::{timed_runs, warm_up, Feed, PreparedInputs, RunBudget};
use crate::inputs::BoundInputs;
use crate::runtime::Runtime;

/// `bench --sessions N`: N sessions of one model run at once, each by its own thread.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConcurrentSessions {
    pub sessions: usize,
    /// From the moment every session was warmed up and released to the last one's end.
    pub wall_s: f64,
    pub runs: u64,
    /// All sessions' runs over the wall time.
    pub throughput_per_s: f64,
    /// Each session's latencies over its timed runs (ms).
    pub per_session: Vec<crate::stats::LatencyStats>,
}

/// Opens `count` fresh sessions of the plan `model` was measured with and runs them at once,
/// one thread per session: DirectML's one-`Run`-at-a-time rule is per session, and a thread
/// that owns its session (`&mut Session`) cannot break it. Each thread binds its own inputs
/// (on the device with `--io-on-device`), warms up, and waits for the others before its timed
/// runs, so the sessions overlap for the whole measurement.
pub fn measure_sessions(
    runtime: &Runtime,
    model: &LoadedModel,
    bound: &BoundInputs,
    count: usize,
    (warmup, budget): (u64, RunBudget),
) -> Result<ConcurrentSessions> {
    let mut plan = model.plan.clone();
    plan.profile_prefix = None;
    plan.optimized_model_path = None;
    let mut sessions = Vec::with_capacity(count);
    for i in 0..count {
        let opened = open(runtime, &model.model_path, model.info.clone(), Duration::ZERO, plan.clone())
            .with_context(|| format!("--sessions: session {} of {count}", i + 1))?;
        sessions.push(opened.session);
    }
    let barrier = std::sync::Barrier::new(count);
    let (on_device, device_id) = (plan.io_on_device, plan.device_id().unwrap_or(0) as i32);
    let results: Vec<Result<(Vec<f64>, Instant, Instant)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = sessions
            .iter_mut()
            .map(|session| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let ready = (|| -> Result<(PreparedInputs, Option<ort::session::IoBinding>)> {
                        let prepared = PreparedInputs::new(&bound.tensors)?;
                        let binding = if on_device {
                            Some(bind_on_device(session, &prepared, &device_memory(device_id)?)?.0)
                        } else {
                            None
                        };
                        Ok((prepared, binding))
                    })();
                    let ready = ready.and_then(|(prepared, binding)| {
                        let feed = binding.as_ref().map_or(Feed::Host(&prepared), Feed::Device);
                        warm_up(session, &feed, warmup.max(1))?;
                        Ok((prepared, binding))
                    });
                    // Every thread reaches the barrier, failed or not, so none waits forever.
                    barrier.wait();
                    let (prepared, binding) = ready?;
                    let feed = binding.as_ref().map_or(Feed::Host(&prepared), Feed::Device);
                    let started = Instant::now();
                    let samples = timed_runs(session, &feed, budget, &indicatif::ProgressBar::hidden(), None)?;
                    Ok((samples, started, Instant::now()))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("a --sessions thread panicked"))))
            .collect()
    });
    let mut per_session = Vec::new();
    let (mut first_start, mut last_end, mut runs) = (None::<Instant>, None::<Instant>, 0u64);
    for (i, result) in results.into_iter().enumerate() {
        let (samples, start, end) = result.with_context(|| format!("--sessions: session {} of {count}", i + 1))?;
        runs += samples.len() as u64;
        per_session.push(crate::stats::summarize(&samples).context("--sessions: a session made no timed runs")?);
        first_start = Some(first_start.map_or(start, |f| f.min(start)));
        last_end = Some(last_end.map_or(end, |l| l.max(end)));
    }
    let wall_s = match (first_start, last_end) {
        (Some(s), Some(e)) => (e - s).as_secs_f64(),
        _ => 0.0,
    };
    Ok(ConcurrentSessions {
        sessions: count,
        wall_s,
        runs,
        throughput_per_s: if wall_s > 0.0 { runs as f64 / wall_s } else { 0.0 },
        per_session,
    })
}
