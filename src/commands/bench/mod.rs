//! `dmlrun bench`: many models, trustworthy statistics, exports, a regression gate.

use std::path::PathBuf;

use anyhow::{Context, Result};
use indicatif::MultiProgress;

use crate::batch::{self, Batch, Ended, Entry};
use crate::cli::BenchArgs;
use crate::exit::ExitStatus;
use crate::formats::model::{ModelFile, ModelInfo};
use crate::fsutil::OrtWritten;
use crate::report::bench::{
    self, BenchOutcome, BenchReport, FailedModel, ModelBench, ModelStatus, PeakScope, ProfileSummary, ReferenceBench,
};
use crate::report::export::{Exports, Formats};
use crate::report::ms;
use crate::runtime::engine::diagnose::{Blame, EpFailure};
use crate::runtime::engine::{self, Preflight};
use crate::runtime::plan::OptimizationLevel;
use crate::runtime::Runtime;
use crate::settings::BenchSettings;
use crate::suites::manifest::{self, BenchTarget};
use crate::suites::shard::ShardInfo;

mod baseline;
mod files;
mod generation;
mod sweep;

use baseline::{baseline_preflight, fingerprint, pair_baseline_models, read_baseline, settle_baseline};
use generation::bench_generation;
use sweep::{check_sweep_fits_some, swept};

/// Above this coefficient of variation the numbers are too noisy to compare.
const HIGH_COV: f64 = 0.10;

/// `bench`'s part of the batch: how one model (a sweep's point, a manifest's generate entry)
/// is measured and how its result reads.
struct Models<'a> {
    runtime: &'a Runtime,
    settings: &'a BenchSettings,
}

impl Batch for Models<'_> {
    type Item = ModelPlan;
    type Outcome = BenchOutcome;

    fn name<'a>(&self, item: &'a ModelPlan) -> &'a str {
        &item.target.name
    }

    fn run(&self, plan: &ModelPlan, bars: &MultiProgress) -> BenchOutcome {
        let target = &plan.target;
        let measured = match &target.generation {
            Some(wanted) => bench_generation(self.runtime, plan, wanted, self.settings),
            None => bench_model(self.runtime, plan, self.settings, bars),
        };
        match measured {
            Ok(Measured::Done(result)) => BenchOutcome::Measured(result),
            Ok(Measured::InterruptedBeforeTiming) => {
                self.ended(plan, Ended::Interrupted(crate::interrupt::interrupted_in(&crate::stage::current().step)))
            }
            // A run Ctrl-C stopped: nobody's failure, and no blame to look for.
            Err(_) if crate::interrupt::interrupted() => {
                self.ended(plan, Ended::Interrupted(crate::interrupt::interrupted_in(&crate::stage::current().step)))
            }
            Err(e) => BenchOutcome::Failed(failed_model(target, &e)),
        }
    }

    fn ended(&self, plan: &ModelPlan, end: Ended) -> BenchOutcome {
        let (status, error) = match end {
            Ended::Crash(how) => {
                (ModelStatus::Crash, how.replace("the process running it", "the process benchmarking it"))
            }
            Ended::Timeout(how) => (ModelStatus::Timeout, how),
            Ended::Interrupted(how) => (ModelStatus::Interrupted, how),
        };
        let target = &plan.target;
        BenchOutcome::Failed(FailedModel {
            name: target.name.clone(),
            path: target.path.clone(),
            status,
            error,
            node: None,
            sweep: target.sweep.clone(),
        })
    }

    fn said(&self, outcome: &BenchOutcome, ran_here: bool) -> Vec<String> {
        match outcome {
            BenchOutcome::Failed(f) if f.status == ModelStatus::Interrupted => Vec::new(),
            BenchOutcome::Failed(f) => vec![format!("dmlrun: model {} failed: {}", f.name, f.error)],
            BenchOutcome::Measured(_) if ran_here => Vec::new(),
            // A child's stderr is not shown: what it said is in its report.
            BenchOutcome::Measured(m) => m.warnings.iter().map(|w| format!("warning: {}: {w}", m.name)).collect(),
        }
    }
}

/// A model that could not be measured, with its status: the EP's rejection (where the reference
/// runs what it rejects, with the node where one is known) or the model's failure.
fn failed_model(target: &BenchTarget, error: &anyhow::Error) -> FailedModel {
    let rejected = error.downcast_ref::<EpFailure>().filter(|f| f.blame == Blame::Ep);
    FailedModel {
        name: target.name.clone(),
        path: target.path.clone(),
        status: if rejected.is_some() { ModelStatus::EpRejected } else { ModelStatus::Failed },
        error: crate::exit::one_line(error),
        node: rejected.and_then(EpFailure::node_names),
        sweep: target.sweep.clone(),
    }
}

pub fn execute(args: &BenchArgs) -> Result<ExitStatus> {
    bench(&BenchSettings::resolve(args)?)
}

fn bench(settings: &BenchSettings) -> Result<ExitStatus> {
    let run = &settings.batch;
    let runtime = run.ort.load()?;
    let models = Models { runtime: &runtime, settings };
    if let Some(child) = &run.child {
        // An isolation child measures the models its parent resolved, and nothing else.
        batch::serve_parent(&models, child)?;
        return Ok(ExitStatus::Success);
    }
    // Every export checked before any model runs: a typo in a folder costs nothing.
    let mut exports = Exports::checked(BenchReport::exports(&settings.exports)?)?;
    let baseline = match &settings.baseline {
        Some(path) => Some(read_baseline(path)?),
        None => None,
    };
    for dir in [&settings.profile, &settings.cache].into_iter().flatten() {
        crate::outputs::prepare_dir(dir, "--profile/--cache")?;
    }
    let targets = manifest::resolve(&settings.targets)?;
    let (targets, shard) = batch::shard(targets, run.shard.as_ref(), |t| t.name.as_str());
    // What would fail every model (DirectML missing, an adapter that does not exist) is said
    // once, before any model is read.
    if !settings.print_plan {
        engine::check_request(&runtime, &settings.request)?;
    }
    let compare = settings.reference.as_ref().map(|r| (&r.ep, r.optimization_level));
    engine::warn_if_compared_with_itself(&runtime, &settings.request, compare);
    let directml = engine::plans_directml(&runtime, &settings.request);
    let placement = crate::isolation::PlacementRequest { directml, ..run.placement }.resolve()?;
    let entries = preflight_models(&runtime, settings, targets, shard.as_ref())?;
    // One model at a time, each alone in its child: a timing measures one session.
    let options = batch::Options::new(placement, directml, (1, 1), crate::progress::Counting::Models, run.quiet);

    let mut report = BenchReport {
        schema: bench::BENCH_SCHEMA.to_string(),
        dmlrun_version: env!("CARGO_PKG_VERSION").to_string(),
        machine: crate::sysinfo::machine(),
        onnxruntime: runtime.library.clone(),
        requested: settings.request.describe_ep(),
        models: Vec::new(),
        failed: Vec::new(),
        baseline: None,
        interrupted: false,
        shard,
        isolation: placement,
    };
    let total = entries.len();
    batch::run(&models, entries, &options, &mut |_, outcome| {
        match outcome {
            BenchOutcome::Measured(m) => report.models.push(*m),
            BenchOutcome::Failed(f) => {
                // What fails every model (DirectML missing, an adapter that does not exist: with
                // --print-plan, said after the first plan) is the session's error: it stops the bench.
                engine::check_request(&runtime, &settings.request)?;
                report.failed.push(f);
            }
        }
        // The exports hold every model so far: a bench killed after model k keeps k results.
        report.interrupted = crate::interrupt::interrupted();
        settle_baseline(&mut report, baseline.as_ref(), settings);
        exports.rewrite(&report)
    })?;
    report.interrupted = crate::interrupt::interrupted();
    settle_baseline(&mut report, baseline.as_ref(), settings);
    publish(settings, &report, &mut exports, total)?;
    Ok(exit_status(&report))
}

/// The exports finished, the table (on stdout unless an export took it), the interruption said,
/// and the GitHub step summary.
fn publish(
    settings: &BenchSettings,
    report: &BenchReport,
    exports: &mut Exports<'_, BenchReport>,
    total: usize,
) -> Result<()> {
    let table_to_stdout = !exports.finish(report)?;
    let table = bench::human::render(report);
    if table_to_stdout {
        crate::out!("{table}");
    } else {
        crate::err!("{table}");
    }
    if report.interrupted {
        let done = report.models.len() + report.failed.len();
        crate::errln!("dmlrun: interrupted after {done} of {total} models; the report covers those");
    }
    if let Some(target) = &settings.batch.github {
        let outcome = crate::report::github::of_bench(report, target.workspace.as_deref());
        crate::report::github::publish(&outcome, target)?;
    }
    Ok(())
}

/// Failed where a model regressed against the baseline, differs from its reference or could not
/// be measured; interrupted where Ctrl-C stopped it.
fn exit_status(report: &BenchReport) -> ExitStatus {
    let regressed = report.baseline.as_ref().is_some_and(|b| b.regressions > 0);
    let differs = report.models.iter().any(|m| {
        m.comparison.as_ref().is_some_and(|c| !c.is_empty())
            || m.device_io.as_ref().is_some_and(|io| !io.outputs_match())
    });
    let failed = report.failed.iter().any(|f| f.status != ModelStatus::Interrupted);
    ExitStatus::of_checks(regressed || differs || failed, report.interrupted)
}

/// Each model read once and the flags resolved against it (each point of a sweep its own). A
/// `--dim` applies to the models that have that dimension; one that no model has is a typo, the
/// run's usage error. A model that cannot be read, or a flag that does not fit it, is that
/// model's failure, and the others are measured.
fn preflight_models(
    runtime: &Runtime,
    settings: &BenchSettings,
    targets: Vec<BenchTarget>,
    shard: Option<&ShardInfo>,
) -> Result<Vec<Entry<ModelPlan, BenchOutcome>>> {
    let pairs = pair_baseline_models(&targets, &settings.baseline_models)?;
    let read: Vec<Result<ModelRead>> = targets.iter().map(ModelRead::of).collect();
    let models: Vec<&ModelInfo> = read.iter().flatten().map(ModelRead::info).collect();
    if let Some(warning) = crate::runtime::plan::check_flags_fit_shard(&settings.request, &models, shard)? {
        crate::errln!("warning: {warning}");
    }
    if let Some(sweep) = &settings.sweep {
        check_sweep_fits_some(sweep, &models)?;
    }
    Ok(swept(targets, read, settings.sweep.as_ref())
        .into_iter()
        // --baseline-model and --sweep exclude each other: past the targets, a point has none.
        .zip(pairs.into_iter().chain(std::iter::repeat(None)))
        .map(|((target, read, note), pair)| {
            match read.and_then(|read| prepare(runtime, settings, &target, read, pair)) {
                Ok(mut plan) => {
                    plan.preflight.not_applied.extend(note);
                    Entry::Run(plan)
                }
                Err(e) => Entry::Decided(BenchOutcome::Failed(failed_model(&target, &e))),
            }
        })
        .collect())
}

/// A bench target's model as read once, before its flags are resolved.
enum ModelRead {
    Model(Box<ModelFile>),
    /// A generate entry: the decoder (and its genai_config.json) as generate reads it.
    Decoder(Box<crate::generate::DecoderModel>),
}

impl ModelRead {
    fn of(target: &BenchTarget) -> Result<ModelRead> {
        Ok(match target.generation {
            Some(_) => ModelRead::Decoder(Box::new(crate::generate::DecoderModel::read(&target.path, None, None)?)),
            None => ModelRead::Model(Box::new(ModelFile::read(&target.path)?)),
        })
    }

    fn info(&self) -> &crate::formats::model::ModelInfo {
        match self {
            ModelRead::Model(file) => &file.info,
            ModelRead::Decoder(decoder) => &decoder.file.info,
        }
    }
}

/// A bench target made ready to measure, decided once (by the parent, for an isolation
/// child): its preflight, and what the optimised-model cache does for it.
#[derive(serde::Serialize, serde::Deserialize)]
struct ModelPlan {
    target: BenchTarget,
    preflight: Preflight,
    cache: Option<CacheUse>,
    /// `--baseline-model`: the older model, read and resolved as it runs (no rewrite, no
    /// conversion), timed beside this one.
    baseline: Option<Preflight>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum CacheUse {
    /// The cached optimised model is the preflight's model.
    Hit,
    /// ONNX Runtime writes the optimised model as it creates the session; kept as `file`.
    Write { file: String },
}

/// Fits the run's flags to the model, adds the manifest entry's own shapes and dims (which must
/// fit it), the profile's prefix and the cache's choice, and resolves the plan.
fn prepare(
    runtime: &Runtime,
    settings: &BenchSettings,
    target: &BenchTarget,
    read: ModelRead,
    baseline_model: Option<PathBuf>,
) -> Result<ModelPlan> {
    let base = &settings.request;
    let mut file = match read {
        ModelRead::Decoder(decoder) => {
            let (mut request, not_applied) = base.fitted_to(&decoder.file.info);
            // Prefill and decode feed different lengths: the free dimensions stay free.
            request.auto_dims = false;
            let preflight = Preflight::resolve(runtime, &decoder.spec.model, decoder.file, request, not_applied)?;
            return Ok(ModelPlan { target: target.clone(), preflight, cache: None, baseline: None });
        }
        ModelRead::Model(file) => *file,
    };
    let (mut request, not_applied) = base.fitted_to(&file.info);
    for (name, shape) in &target.shapes {
        request.shapes.retain(|(n, _)| n != name);
        request.shapes.push((name.clone(), shape.clone()));
    }
    for (name, value) in &target.dims {
        request.dims.retain(|(n, _)| n != name);
        request.dims.push((name.clone(), *value));
    }
    if let Some(dir) = &settings.profile {
        request.profile_prefix = Some(OrtWritten::new(dir, &files::sanitize(&target.name)).partial_path());
    }
    // The optimised-model cache: load the cached file if there is one, else have ONNX Runtime write it.
    let mut model_path = target.path.clone();
    let mut cache = None;
    if let Some(dir) = &settings.cache {
        let name = format!(
            "{}-{}.onnx",
            files::sanitize(&target.name),
            files::cache_key(&file.sha256, &request, &runtime.library.version)
        );
        let cached = dir.join(&name);
        if cached.is_file() {
            file = ModelFile::read(&cached)?;
            model_path = cached;
            // Already optimised for this EP with these dims fixed in the graph: do not optimise
            // or override again (the dims no longer exist as free dimensions).
            request.optimization_level = OptimizationLevel::Disable;
            request.dims.clear();
            request.dim_denotations.clear();
            // A --precision fp16 entry's cached model is the float16 one already, rewritten too.
            request.precision = crate::runtime::plan::Precision::Fp32;
            request.keep_fp32.clear();
            request.rewrites.clear();
            cache = Some(CacheUse::Hit);
        } else {
            request.optimized_model_path = Some(OrtWritten::new(dir, &name).partial_path());
            cache = Some(CacheUse::Write { file: name });
        }
    }
    let baseline = match baseline_model {
        Some(path) => Some(baseline_preflight(runtime, &request, &path, &file.info)?),
        None => None,
    };
    let preflight = Preflight::resolve(runtime, &model_path, file, request, not_applied)?;
    Ok(ModelPlan { target: target.clone(), preflight, cache, baseline })
}

/// What the peak memory of the model about to be measured covers: a child process measures one
/// model; in-process, the peak starts again where the platform lets it.
fn peak_rss_scope(settings: &BenchSettings) -> PeakScope {
    if crate::sysinfo::reset_peak_rss() || settings.batch.child.is_some() {
        PeakScope::Model
    } else {
        PeakScope::Process
    }
}

/// What measuring one model came to: its figures (a run Ctrl-C stopped during the timed runs
/// has figures too, marked `interrupted`), or nothing timed before Ctrl-C.
enum Measured {
    Done(Box<ModelBench>),
    InterruptedBeforeTiming,
}

fn bench_model(
    runtime: &Runtime,
    plan: &ModelPlan,
    settings: &BenchSettings,
    bars: &MultiProgress,
) -> Result<Measured> {
    let target = &plan.target;
    // Declared before the session, so they are dropped after it (see OrtWritten); the plan
    // already names the paths ONNX Runtime writes.
    let profile_file = settings.profile.as_deref().map(|dir| OrtWritten::new(dir, &files::sanitize(&target.name)));
    let cache_write = match (&plan.cache, &settings.cache) {
        (Some(CacheUse::Write { file }), Some(dir)) => Some(OrtWritten::new(dir, file)),
        _ => None,
    };
    let load = settings.load_for(target);
    let bar = bars.add(crate::progress::iterations(settings.budget.max, &target.name, settings.batch.quiet));
    let measured = engine::measure(runtime, &measure_request(plan, settings, &load), &bar);
    bars.remove(&bar);
    let mut measured = measured?;
    let sessions = match settings.sessions {
        Some(n) if !crate::interrupt::interrupted() => {
            let runs = (settings.warmup, settings.budget);
            Some(engine::measure_sessions(runtime, &measured.model, &measured.bound, n, runs)?)
        }
        _ => None,
    };
    let mut cache = (plan.cache == Some(CacheUse::Hit)).then(|| "hit".to_string());
    if let Some(pending) = &cache_write {
        // ONNX Runtime wrote the optimised model while creating the session.
        pending.keep(&pending.partial_path()).context("--cache")?;
        cache = Some("written".to_string());
    }
    if measured.samples.is_empty() && crate::interrupt::interrupted() {
        return Ok(Measured::InterruptedBeforeTiming);
    }
    let profile = match &profile_file {
        Some(pending) => Some(files::finish_profile(&mut measured.model, pending)?),
        None => None,
    };
    let bench = model_bench(runtime, plan, settings, measured, (sessions, cache, profile), bars)?;
    Ok(Measured::Done(Box::new(bench)))
}

/// A measured model as bench reports it: its figures, what was saved and its warnings (the
/// engine's, then bench's own: a noisy model's, a model --save-models could not write).
fn model_bench(
    runtime: &Runtime,
    plan: &ModelPlan,
    settings: &BenchSettings,
    measured: engine::Measurement,
    (sessions, cache, profile): (Option<engine::ConcurrentSessions>, Option<String>, Option<ProfileSummary>),
    bars: &MultiProgress,
) -> Result<ModelBench> {
    let engine::Measurement {
        model,
        bound,
        first_run,
        samples,
        rounds,
        paired,
        comparison,
        device_io,
        mut warnings,
        precision,
        rewrite,
        made_model,
        ..
    } = measured;
    let target = &plan.target;
    let latency = crate::stats::summarize(&samples).context("no timed runs")?;
    let made = (made_model.as_deref(), rewrite.as_ref(), precision.as_ref());
    // The engine said its own warnings as they arose; these are bench's.
    for w in high_variation(&latency, &model).into_iter().chain(save_model(settings, plan, made)) {
        bars.suspend(|| crate::errln!("warning: {}: {w}", target.name));
        warnings.push(w);
    }
    let batch_size = engine::batch_size(&model, &bound);
    let gpu_memory = model.memory.as_ref().map(|m| m.memory.clone());
    Ok(ModelBench {
        name: target.name.clone(),
        path: target.path.clone(),
        // Stopped during its timed runs: its figures cover the runs made, and say so.
        status: if crate::interrupt::interrupted() { ModelStatus::Interrupted } else { ModelStatus::Ok },
        sweep: target.sweep.clone(),
        fingerprint: fingerprint(runtime, plan, &model.device, &model.plan, settings),
        rounds,
        baseline_model: paired,
        device: model.device.clone(),
        plan: model.plan.clone(),
        inputs: bound.sources,
        model_load_ms: ms(model.load_time),
        session_create_ms: ms(model.session_time),
        cache,
        first_run_ms: ms(first_run),
        warmup: settings.warmup,
        // Items per second whenever the batch is known, batch 1 included: a sweep's N=1 point is
        // a point of the same curve in every export.
        items_per_s: batch_size.map(|b| latency.throughput_per_s * b as f64),
        latency_ms: latency,
        samples_ms: samples,
        batch_size,
        peak_rss_bytes: crate::sysinfo::peak_rss_bytes(),
        peak_rss_scope: peak_rss_scope(settings),
        gpu_memory_bytes: gpu_memory_bytes(gpu_memory.as_ref()),
        gpu_memory,
        profile,
        device_io,
        sessions,
        precision,
        rewrite,
        reference: comparison.as_ref().map(reference_bench),
        comparison: comparison.map(|c| c.mismatches),
        generation: None,
        warnings,
    })
}

/// What bench asks of the engine for one model: its timed runs (in rounds, alternating with the
/// baseline model's under --baseline-model), the reference's and float32's timed beside them.
fn measure_request<'a>(
    plan: &'a ModelPlan,
    settings: &'a BenchSettings,
    load: &'a crate::inputs::LoadOptions,
) -> engine::MeasureRequest<'a> {
    let target = &plan.target;
    let reference = settings.reference.as_ref().map(|reference| {
        let tolerance = settings.tolerances.for_output("", target.atol, target.rtol);
        (reference.for_request(&plan.preflight.request), tolerance)
    });
    engine::MeasureRequest {
        preflight: &plan.preflight,
        label: Some(&target.name),
        print_plan: settings.print_plan,
        inputs: &target.inputs,
        load,
        warmup: settings.warmup,
        budget: settings.budget,
        reference,
        time_reference: true,
        // A --baseline-model is the original timed beside this one in alternating rounds and
        // judged by the paired test: timing the original a second time, alone, would give the
        // same pair a second, untested verdict.
        time_float32: plan.baseline.is_none(),
        rounds: settings.rounds,
        keep_made_model: settings.batch.saved.is_some(),
        paired: plan.baseline.as_ref().map(|baseline| engine::Pairing {
            baseline,
            inputs: &target.inputs,
            load,
            warmup: settings.warmup,
            budget: settings.budget,
            rounds: settings.rounds,
        }),
    }
}

/// The adapter's peak over the timed runs. A reading DXGI gives but that does not count
/// DirectML's allocations (Wine) is no figure.
fn gpu_memory_bytes(memory: Option<&crate::runtime::engine::GpuMemory>) -> Option<u64> {
    memory.filter(|m| m.note.is_none()).and_then(|m| m.peak_timed_runs).map(|p| p.local_bytes)
}

/// The warning a noisy model's figures carry.
fn high_variation(latency: &crate::stats::LatencyStats, model: &engine::LoadedModel) -> Option<String> {
    if latency.cov <= HIGH_COV {
        return None;
    }
    // On a shared machine ONNX Runtime's pool of one thread per core waits on the busy ones
    // (scripts/regression_gate.py, one core busy: one session's median 0.27 to 2.9 times
    // another's with that pool, 0.80 to 1.38 with one thread).
    let threads = match model.plan.intra_op_threads {
        None => ", or fewer ONNX Runtime threads than idle cores (--intra-threads 1)",
        Some(_) => "",
    };
    Some(format!(
        "high variation (CoV {:.1}%): the machine is noisy or throttling; use more --iterations or a longer --duration{threads}",
        latency.cov * 100.0
    ))
}

/// --save-models: the model as the session ran it. One that cannot be written is a warning, not
/// a failure of the model's figures.
fn save_model(
    settings: &BenchSettings,
    plan: &ModelPlan,
    (made, rewrite, precision): (Option<&[u8]>, Option<&engine::RewriteReport>, Option<&engine::PrecisionReport>),
) -> Option<String> {
    let to = settings.batch.saved.as_ref()?;
    let target = &plan.target;
    let saved = to.save(&target.name, &target.path, &plan.preflight, made, (rewrite, precision));
    saved.err().map(|e| format!("--save-models: {}", crate::exit::one_line(&e)))
}

/// The reference EP's side of a comparison, as bench reports it.
fn reference_bench(c: &engine::Comparison) -> ReferenceBench {
    ReferenceBench {
        device: c.reference.clone(),
        latency_ms: crate::stats::summarize(&c.reference_samples),
        samples_ms: c.reference_samples.clone(),
        tolerance: c.tolerance,
        outputs_compared: c.outputs_compared,
        differences: c.differences.clone(),
    }
}
