//! The one batch runner under `test` and `bench` (their cases, models, sweep points and manifest
//! entries alike): sharding, where each item runs (here, `--jobs` at a time, or in child
//! processes held to a time limit), Ctrl-C, and the exports, rewritten as items finish. A
//! command says only what one item is ([`Batch::run`]) and what an item that ended without a
//! result of its own reads as ([`Batch::ended`]); every promise about the batch is kept here,
//! once, for both.
//!
//! Each finished item's outcome goes to the command's sink the moment it is known, from this
//! process or from a child (which appends it to its results file as one JSON line: see
//! [`crate::isolation`]). So an interrupt, a crash or a time-out never loses a finished item;
//! the item under way is the only one it touches, and it is said to be `interrupted`, `crash` or
//! `timeout`, never anything else.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result};
use indicatif::MultiProgress;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::isolation::{self, ChildEnd, ChildFiles, Placement};
use crate::progress::Counting;
use crate::suites::shard::{Shard, ShardInfo};

/// What a command runs as a batch.
pub trait Batch: Sync {
    /// One item, resolved (its preflight made): handed whole to an isolation child.
    type Item: Serialize + DeserializeOwned + Send + Sync;
    /// What one item came to.
    type Outcome: Serialize + DeserializeOwned + Send;

    /// The item's name in reports: unique within the batch.
    fn name<'a>(&self, item: &'a Self::Item) -> &'a str;

    /// Runs one item in this process. A run stopped by Ctrl-C is an outcome too (`interrupted`).
    fn run(&self, item: &Self::Item, bars: &MultiProgress) -> Self::Outcome;

    /// The outcome of an item that ended without one of its own.
    fn ended(&self, item: &Self::Item, end: Ended) -> Self::Outcome;

    /// Lines for stderr when `outcome` arrives: `ran_here` when this process ran the item (it
    /// said its warnings as they arose), false when a child did or it never ran.
    fn said(&self, _outcome: &Self::Outcome, _ran_here: bool) -> Vec<String> {
        Vec::new()
    }
}

/// How an item ended without an outcome of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// The process running it died: how.
    Crash(String),
    /// It ran past the time limit: `ran past --timeout 5m in session creation: killed`.
    Timeout(String),
    /// Ctrl-C stopped it: where.
    Interrupted(String),
}

/// One item of a batch: to run, or already decided (its preflight failed: a model that cannot
/// be read, a flag that does not fit it).
pub enum Entry<I, O> {
    Run(I),
    Decided(O),
}

/// How a batch runs, resolved from the flags once.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub placement: Placement,
    /// Items at once (each in a thread here, or each worker with its own children).
    pub jobs: usize,
    /// The most items one child runs: a child that dies re-runs the rest in a new one, so this
    /// only bounds what one process accumulates (sessions, memory).
    pub per_child: usize,
    /// What the progress bar counts.
    pub counting: Counting,
    pub quiet: bool,
}

impl Options {
    /// Where a batch's items run: `jobs` at a time and at most `per_child` in one child, as the
    /// command asks; but one at a time where DirectML is in the plan (its sessions share one
    /// device queue, and timings would measure each other), and under Wine no more in one child
    /// than a process there can open DirectML sessions.
    pub fn new(
        placement: Placement,
        directml: bool,
        (jobs, per_child): (usize, usize),
        counting: Counting,
        quiet: bool,
    ) -> Options {
        let (jobs, per_child) = match directml {
            false => (jobs, per_child),
            true => {
                let cap = crate::runtime::wine::directml_sessions_per_process().unwrap_or(per_child);
                (1, per_child.min(cap))
            }
        };
        Options { placement, jobs, per_child, counting, quiet }
    }
}

/// `--shard K/N` (or the part `--shard auto` read, with the variables it read it from) applied
/// to the items in the order given (discovery sorts test cases by name; bench keeps the command
/// line's order): the items this run takes, and what the reports say of it.
pub fn shard<T>(
    items: Vec<T>,
    shard: Option<&(Shard, Option<String>)>,
    name: impl Fn(&T) -> &str,
) -> (Vec<T>, Option<ShardInfo>) {
    match shard {
        Some(&(shard, ref from)) => {
            let info = ShardInfo { shard, of_items: items.len(), from: from.clone() };
            (shard.select(items, name), Some(info))
        }
        None => (items, None),
    }
}

/// Runs one item alone (an attempt of `fix`, a candidate of `tune`), one at a time: its outcome,
/// or why there is none (the runner's error, or Ctrl-C before it ended).
pub fn run_alone<B: Batch>(batch: &B, item: B::Item, options: &Options) -> std::result::Result<B::Outcome, String> {
    let mut outcome = None;
    let ran = run(batch, vec![Entry::Run(item)], options, &mut |_, one| {
        outcome = Some(one);
        Ok(())
    });
    match (ran, outcome) {
        (Ok(()), Some(outcome)) => Ok(outcome),
        (Err(e), _) => Err(crate::exit::one_line(&e)),
        (Ok(()), None) => Err(crate::interrupt::interrupted_in("")),
    }
}

/// Runs `entries`, handing each outcome to `sink` with the entry's index as soon as it is known
/// (decided entries first, in order). Ctrl-C: the items under way end as `interrupted`, no
/// further item starts, and the sink has had every finished one. A sink's error stops the batch
/// after the items under way and is returned.
pub fn run<B: Batch>(
    batch: &B,
    entries: Vec<Entry<B::Item, B::Outcome>>,
    options: &Options,
    sink: &mut dyn FnMut(usize, B::Outcome) -> Result<()>,
) -> Result<()> {
    let bars = MultiProgress::new();
    let counter = bars.add(crate::progress::counter(entries.len() as u64, options.counting, options.quiet));
    let mut items = Vec::new();
    let mut failure = None;
    // Hands an outcome on; false once the sink has failed.
    let mut deliver = |index: usize, outcome: B::Outcome, ran_here: bool| {
        counter.inc(1);
        for line in batch.said(&outcome, ran_here) {
            // suspend: a hidden bar (stderr not a terminal) would drop a println.
            bars.suspend(|| crate::errln!("{line}"));
        }
        if failure.is_none() {
            failure = sink(index, outcome).err();
        }
        failure.is_none()
    };
    for (index, entry) in entries.into_iter().enumerate() {
        match entry {
            Entry::Decided(outcome) => {
                deliver(index, outcome, false);
            }
            Entry::Run(item) => items.push((index, item)),
        }
    }
    let (sender, receiver) = mpsc::channel::<(usize, B::Outcome, bool)>();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let workers = options.jobs.max(1).min(items.len().max(1));
    let chunks = chunks_for_children(&items, options.per_child, workers);
    let dir = match options.placement.in_children {
        true => Some(tempfile::tempdir().context("a temporary folder for the isolation children's files")?),
        false => None,
    };
    let next = AtomicUsize::new(0);
    let ran = std::thread::scope(|scope| -> Result<()> {
        let handles: Vec<_> = if let Some(dir) = &dir {
            (0..workers)
                .map(|worker| {
                    let (sender, chunks, next, stop) = (sender.clone(), &chunks, &next, &stop);
                    scope.spawn(move || -> Result<()> {
                        let files = ChildFiles::in_folder(dir.path(), worker);
                        while let Some(chunk) = chunks.get(next.fetch_add(1, Ordering::SeqCst)) {
                            if crate::interrupt::interrupted() || stop.load(Ordering::SeqCst) {
                                break;
                            }
                            run_in_children(
                                batch,
                                chunk,
                                &files,
                                (options.placement.limit, options.placement.default_limit),
                                &mut |i, o| {
                                    let _ = sender.send((i, o, false));
                                },
                            )?;
                        }
                        Ok(())
                    })
                })
                .collect()
        } else {
            (0..workers)
                .map(|_| {
                    let (sender, items, next, bars, stop) = (sender.clone(), &items, &next, &bars, &stop);
                    scope.spawn(move || -> Result<()> {
                        while let Some((index, item)) = items.get(next.fetch_add(1, Ordering::SeqCst)) {
                            if crate::interrupt::interrupted() || stop.load(Ordering::SeqCst) {
                                break;
                            }
                            crate::stage::item(batch.name(item));
                            let outcome = batch.run(item, bars);
                            let _ = sender.send((*index, outcome, true));
                        }
                        Ok(())
                    })
                })
                .collect()
        };
        drop(sender);
        for (index, outcome, ran_here) in receiver {
            if !deliver(index, outcome, ran_here) {
                stop.store(true, Ordering::SeqCst);
            }
        }
        let mut first_error = None;
        for handle in handles {
            let ended = handle.join().unwrap_or_else(|_| Err(anyhow::anyhow!("a batch worker panicked")));
            if let (Err(e), None) = (ended, &first_error) {
                first_error = Some(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    });
    counter.finish_and_clear();
    ran?;
    failure.map_or(Ok(()), Err)
}

/// The items in runs of at most `per_child`, fewer where that gives every worker some.
fn chunks_for_children<T>(items: &[(usize, T)], per_child: usize, workers: usize) -> Vec<Vec<&(usize, T)>> {
    let per_child = per_child.min(items.len().div_ceil(workers.max(1)).max(1)).max(1);
    items.chunks(per_child).map(|chunk| chunk.iter().collect()).collect()
}

/// One line of a child's results file.
#[derive(Serialize, Deserialize)]
struct ResultLine<O> {
    index: usize,
    outcome: O,
}

/// Runs `chunk` in child processes, one after another until every item has an outcome: a child
/// that ends early (a crash, a time-out) leaves its item under way to be said so, and the rest
/// go to a new child. At Ctrl-C the item under way is `interrupted` and the rest do not run.
fn run_in_children<B: Batch>(
    batch: &B,
    chunk: &[&(usize, B::Item)],
    files: &ChildFiles,
    limit: (Option<Duration>, bool),
    deliver: &mut dyn FnMut(usize, B::Outcome),
) -> Result<()> {
    let mut pending: Vec<&(usize, B::Item)> = chunk.to_vec();
    while !pending.is_empty() {
        if crate::interrupt::interrupted() {
            return Ok(());
        }
        let handed: Vec<(usize, &B::Item)> = pending.iter().map(|(i, item)| (*i, item)).collect();
        isolation::write_for_child(&files.handoff, &handed)?;
        let mut done = Vec::new();
        let mut unreadable = None;
        let end = isolation::run_child(
            &isolation::child_args(&crate::report::export::report_flags(), &files.child_flags()),
            files,
            limit,
            &mut |line| match serde_json::from_str::<ResultLine<B::Outcome>>(line) {
                Ok(result) => {
                    done.push(result.index);
                    deliver(result.index, result.outcome);
                }
                Err(e) => unreadable = Some(e),
            },
        )?;
        if let Some(e) = unreadable {
            anyhow::bail!("reading an isolation child's results: {e}");
        }
        pending.retain(|(i, _)| !done.contains(i));
        let Some(&&(index, ref item)) = (match &end {
            ChildEnd::TimedOut(_, stage) | ChildEnd::Interrupted(stage) => {
                pending.iter().find(|(_, item)| batch.name(item) == stage.item).or(pending.first())
            }
            ChildEnd::Exited { .. } => pending.first(),
        }) else {
            return Ok(());
        };
        let ended = match end {
            ChildEnd::TimedOut(after, stage) => Ended::Timeout(isolation::timed_out_reason(after, &stage)),
            ChildEnd::Interrupted(stage) => Ended::Interrupted(crate::interrupt::interrupted_in(&stage.step)),
            // A child asked to stop that stopped: what it had not started does not run.
            ChildEnd::Exited { .. } if crate::interrupt::interrupted() => {
                if crate::stage::read(&files.progress).is_some_and(|s| s.item == batch.name(item)) {
                    deliver(index, batch.ended(item, Ended::Interrupted(crate::interrupt::interrupted_in(""))));
                }
                return Ok(());
            }
            ChildEnd::Exited { how, .. } => Ended::Crash(format!("the process running it died: {how}")),
        };
        let stopped = matches!(ended, Ended::Interrupted(_));
        deliver(index, batch.ended(item, ended));
        if stopped {
            return Ok(());
        }
        pending.retain(|(i, _)| *i != index);
    }
    Ok(())
}

/// What an isolation child was handed: the items as its parent resolved them, the file each
/// one's outcome is appended to, and the file the item and step under way are written to (the
/// parent's time limit runs from it).
#[derive(Debug, Clone)]
pub struct Handoff {
    pub items: PathBuf,
    pub results: PathBuf,
    pub progress: Option<PathBuf>,
}

/// An isolation child's part: runs the items its parent handed it (`--preflight FILE`) in
/// order, appending each outcome to `results` as one JSON line the moment it is known, until
/// they are done or Ctrl-C stops them.
pub fn serve_parent<B: Batch>(batch: &B, handoff: &Handoff) -> Result<()> {
    let results = handoff.results.as_path();
    use std::io::Write;
    crate::interrupt::as_child();
    if let Some(progress) = &handoff.progress {
        crate::stage::report_to(progress);
    }
    let items: Vec<(usize, B::Item)> = isolation::read_from_parent(&handoff.items)?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(results)
        .with_context(|| format!("--child-report {}", results.display()))?;
    let bars = MultiProgress::with_draw_target(indicatif::ProgressDrawTarget::hidden());
    for (index, item) in items {
        if crate::interrupt::interrupted() {
            break;
        }
        crate::stage::item(batch.name(&item));
        let outcome = batch.run(&item, &bars);
        let mut line = serde_json::to_string(&ResultLine { index, outcome }).context("an item's result as JSON")?;
        line.push('\n');
        file.write_all(line.as_bytes())
            .and_then(|()| file.flush())
            .with_context(|| format!("--child-report {}", results.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_run_one_at_a_time_where_directml_is_in_the_plan() {
        let placement = Placement::default();
        let cpu = Options::new(placement, false, (4, 64), Counting::Cases, true);
        assert_eq!((cpu.jobs, cpu.per_child), (4, 64));
        let directml = Options::new(placement, true, (4, 64), Counting::Cases, true);
        assert_eq!(directml.jobs, 1);
        // Under Wine a child also stops at the sessions one process there can open.
        let cap = crate::runtime::wine::directml_sessions_per_process().unwrap_or(64);
        assert_eq!(directml.per_child, cap.min(64));
    }
}
