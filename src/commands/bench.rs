//! `dmlrun bench`: many models, trustworthy statistics, exports, a regression gate.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::exit::ExitStatus;
use indicatif::MultiProgress;
use sha2::{Digest, Sha256};

use crate::cli::BenchArgs;
use crate::compare::Tolerance;
use crate::formats::model::ModelFile;
use crate::fsutil::OrtWritten;
use crate::inputs::LoadOptions;
use crate::isolation::{self, ChildOutcome};
use crate::report::bench::{
    self, csv::CsvExporter, json::JsonExporter, markdown::MarkdownExporter, BenchReport, Exporter, FailedModel,
    ModelBench, ModelStatus, PeakScope, ProfileSummary, ReferenceBench, StoredReport,
};
use crate::report::html::bench::HtmlExporter;
use crate::report::ms;
use crate::runtime::engine::diagnose::{Blame, EpFailure};
use crate::runtime::engine::{self, Preflight};
use crate::runtime::plan::{OptimizationLevel, PlanRequest};
use crate::runtime::Runtime;
use crate::settings;
use crate::suites::manifest::{self, BenchTarget, GenerationTarget, Sweep};
use crate::suites::shard::ShardInfo;

/// How long one model may take when --timeout does not say: ten times what the slowest real
/// model here takes with the default 100 runs on a 2-core machine, short enough that a model
/// that never returns costs minutes, not the session.
const DEFAULT_MODEL_LIMIT: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// Default timed runs per model when neither --iterations nor --duration is given.
const DEFAULT_ITERATIONS: u64 = 100;
/// Above this coefficient of variation the numbers are too noisy to compare.
const HIGH_COV: f64 = 0.10;

pub fn execute(args: &BenchArgs) -> Result<ExitStatus> {
    if let Some(progress) = &args.isolation.progress {
        crate::stage::report_to(progress);
    }
    crate::report::check_one_on_stdout(&[
        ("--json", args.json.as_deref()),
        ("--csv", args.csv.as_deref()),
        ("--markdown", args.markdown.as_deref()),
        ("--html", args.html.as_deref()),
    ])?;
    // An isolation child measures the targets its parent hands it, resolved: it resolves nothing.
    let handed: Option<Vec<ModelPlan>> =
        args.isolation.preflight.as_deref().map(isolation::read_from_parent).transpose()?;
    let mut targets = match &handed {
        Some(plans) => plans.iter().map(|p| p.target.clone()).collect(),
        None => manifest::resolve(&args.targets)?,
    };
    let shard = args.shard.map(|shard| ShardInfo { shard, of_items: targets.len() });
    if let (Some(shard), None) = (args.shard, &handed) {
        targets = shard.select(targets, |t| t.name.as_str());
    }
    let child = args.isolation.child_report.as_deref();
    let baseline = match &args.baseline {
        Some(path) => Some(read_baseline(path)?),
        None => None,
    };
    for dir in [&args.profile, &args.cache].into_iter().flatten() {
        crate::outputs::prepare_dir(dir, "--profile/--cache")?;
    }
    let runtime = Runtime::load(args.ort.ort_lib.as_deref(), args.ort.ort_log_level, &args.ort.ep_libraries)?;
    let mut base_request = settings::run_plan_request(&args.session, &args.device_io, args.ort.ort_log_level)?;
    if args.profile_unfused {
        if base_request.ep == crate::runtime::plan::EpRequest::Cpu {
            bail!("--profile-unfused turns DirectML's graph fusion off and cannot be combined with --ep cpu, which has none");
        }
        base_request.session_config.push((crate::runtime::plan::DML_DISABLE_FUSION.to_string(), "1".to_string()));
    }

    let placement = match child {
        Some(_) => isolation::Placement { in_children: false, limit: None },
        None => isolation::PlacementRequest {
            isolation: args.isolation.isolation,
            timeout: args.isolation.timeout,
            default_limit: DEFAULT_MODEL_LIMIT,
            directml: engine::plans_directml(&runtime, &base_request),
            // --print-plan prints from this process: under `auto` it keeps the models here.
            print_plan: args.session.print_plan,
        }
        .resolve()?,
    };
    // Each model read once and the flags resolved against it, here or (for an isolation child)
    // by the parent, which hands the child its model's plan. A --dim applies to the models that
    // have that dimension; one that no model has is a typo. A model that cannot be read, or a
    // flag that does not fit it, is that model's failure, not the session's.
    let sweep = args.sweep.as_ref().or(args.sweep_shape.as_ref());
    let plans: Vec<Result<ModelPlan>> = match handed {
        Some(plans) => plans.into_iter().map(Ok).collect(),
        None => {
            let read: Vec<Result<ModelRead>> = targets.iter().map(ModelRead::of).collect();
            let models: Vec<_> = read.iter().flatten().map(ModelRead::info).collect();
            crate::runtime::plan::check_flags_fit_some(&base_request, &models)?;
            if let Some(sweep) = sweep {
                check_sweep_fits_some(sweep, &models)?;
            }
            let points = swept(std::mem::take(&mut targets), read, sweep);
            targets = points.iter().map(|(t, _, _)| t.clone()).collect();
            points
                .into_iter()
                .map(|(target, read, note)| {
                    let mut plan = read.and_then(|read| prepare(&runtime, &base_request, &target, read, args))?;
                    plan.preflight.not_applied.extend(note);
                    Ok(plan)
                })
                .collect()
        }
    };

    let mut report = BenchReport {
        schema: bench::BENCH_SCHEMA.to_string(),
        dmlrun_version: env!("CARGO_PKG_VERSION").to_string(),
        machine: crate::sysinfo::machine(),
        onnxruntime: runtime.library.clone(),
        models: Vec::new(),
        failed: Vec::new(),
        baseline: None,
        interrupted: false,
        shard,
        isolation: placement,
    };
    let in_children = placement.in_children;
    if in_children {
        // What would fail every child is said once, here, as the session's error.
        engine::check_request(&runtime, &base_request)?;
    }
    let children =
        in_children.then(tempfile::tempdir).transpose().context("a temporary folder for the children's reports")?;
    let bars = MultiProgress::new();
    let model_bar = bars.add(crate::progress::counter(targets.len() as u64, "models", args.quiet || child.is_some()));
    for (target, plan) in targets.iter().zip(plans) {
        if crate::interrupt::interrupted() {
            break;
        }
        model_bar.set_message(target.name.clone());
        crate::stage::item(&target.name);
        // None: a child measured it and its report is in already.
        let measured = match (plan, &children) {
            (Ok(plan), Some(children)) => {
                if !bench_in_child(target, &plan, children.path(), placement.limit, &mut report)? {
                    break;
                }
                None
            }
            (Ok(plan), None) => Some(match &target.generation {
                Some(wanted) => bench_generation(&runtime, &plan, target, wanted, args),
                None => bench_model(&runtime, &plan, target, args, &bars),
            }),
            (Err(e), _) => Some(Err(e)),
        };
        match measured {
            None => {}
            Some(Ok(Some(result))) => report.models.push(result),
            // Interrupted before its first timed run: nothing to report for it.
            Some(Ok(None)) => break,
            // A run Ctrl-C stopped: nobody's failure, and no blame to look for.
            Some(Err(_)) if crate::interrupt::interrupted() => {
                report.failed.push(FailedModel {
                    name: target.name.clone(),
                    path: target.path.clone(),
                    status: ModelStatus::Interrupted,
                    error: "interrupted (Ctrl-C) while it was measured".to_string(),
                    node: None,
                    sweep: target.sweep.clone(),
                });
            }
            Some(Err(e)) => {
                // What fails every model (DirectML missing, an adapter that does not exist)
                // is the session's error, not this model's: it stops the bench (exit 2).
                engine::check_request(&runtime, &base_request)?;
                let error = crate::exit::one_line(&e);
                // suspend, not println: a hidden bar (stderr not a terminal) drops println.
                bars.suspend(|| crate::errln!("dmlrun: model {} failed: {error}", target.name));
                // An EP that rejects what the reference runs is the EP's failure, not the
                // model's: its own status, and the node where one is known.
                let rejected = e.downcast_ref::<EpFailure>().filter(|f| f.blame == Blame::Ep);
                report.failed.push(FailedModel {
                    name: target.name.clone(),
                    path: target.path.clone(),
                    status: if rejected.is_some() { ModelStatus::EpRejected } else { ModelStatus::Failed },
                    error,
                    node: rejected.and_then(|f| f.node.as_ref()).map(|n| n.name.clone()),
                    sweep: target.sweep.clone(),
                });
            }
        }
        model_bar.inc(1);
        // The exports hold every model so far: a bench killed after model k keeps k results.
        report.interrupted = crate::interrupt::interrupted();
        if child.is_none() {
            settle_baseline(&mut report, baseline.as_ref(), args);
            write_exports(&report, args, false)?;
        }
    }
    model_bar.finish_and_clear();
    report.interrupted = crate::interrupt::interrupted();
    if let Some(path) = child {
        // An isolation child: its report is its only output.
        crate::report::write_json(path, &report, "--child-report")?;
        return Ok(ExitStatus::Success);
    }
    settle_baseline(&mut report, baseline.as_ref(), args);

    let table_to_stdout = !write_exports(&report, args, true)?;
    let table = bench::human::render(&report);
    if table_to_stdout {
        crate::out!("{table}");
    } else {
        crate::err!("{table}");
    }
    let regressed = report.baseline.as_ref().is_some_and(|b| b.regressions > 0);
    let differs = report.models.iter().any(|m| {
        m.comparison.as_ref().is_some_and(|c| !c.is_empty())
            || m.device_io.as_ref().is_some_and(|io| !io.outputs_match())
    });
    Ok(ExitStatus::of_checks(regressed || differs || !report.failed.is_empty(), report.interrupted))
}

/// Benchmarks one model in a child dmlrun and adds what it reports (or how it ended) to
/// `report`. Returns false when the child was interrupted, so the session stops.
fn bench_in_child(
    target: &BenchTarget,
    plan: &ModelPlan,
    dir: &Path,
    limit: Option<std::time::Duration>,
    report: &mut BenchReport,
) -> Result<bool> {
    #[derive(serde::Deserialize)]
    struct ChildReport {
        models: Vec<ModelBench>,
        failed: Vec<FailedModel>,
        interrupted: bool,
    }
    let path = dir.join("child-report.json");
    let preflight = dir.join("preflight.json");
    isolation::write_for_child(&preflight, &[plan])?;
    let mut extra: Vec<OsString> = ["--isolation", "none"].into_iter().map(OsString::from).collect();
    extra.push(OsString::from("--child-report"));
    extra.push(path.clone().into_os_string());
    extra.push(OsString::from("--preflight"));
    extra.push(preflight.into_os_string());
    let progress = dir.join("progress");
    extra.push(OsString::from("--progress"));
    extra.push(progress.clone().into_os_string());
    let limit = limit.map(|per_item| isolation::TimeLimit { per_item, progress: Some(&progress) });
    let (status, error) = match isolation::run_child(&isolation::child_args(&extra), &path, limit)? {
        ChildOutcome::Report(text) => {
            let child: ChildReport = serde_json::from_str(&text).context("reading an isolation child's report")?;
            // The child's stderr is not shown: what it said is in its report.
            for m in &child.models {
                for w in &m.warnings {
                    crate::errln!("warning: {}: {w}", m.name);
                }
            }
            for f in &child.failed {
                crate::errln!("dmlrun: model {} failed: {}", f.name, f.error);
            }
            report.models.extend(child.models);
            report.failed.extend(child.failed);
            return Ok(!child.interrupted);
        }
        ChildOutcome::Died(how) => (ModelStatus::Crash, format!("the process benchmarking it died: {how}")),
        ChildOutcome::TimedOut(after, stage) => (ModelStatus::Timeout, isolation::timed_out_reason(after, &stage)),
        ChildOutcome::Interrupted(stage) => {
            let step = if stage.step.is_empty() { String::new() } else { format!(" in {}", stage.step) };
            (ModelStatus::Interrupted, format!("interrupted (Ctrl-C){step}"))
        }
    };
    crate::errln!("dmlrun: model {} failed: {error}", target.name);
    report.failed.push(FailedModel {
        name: target.name.clone(),
        path: target.path.clone(),
        status,
        error,
        node: None,
        sweep: target.sweep.clone(),
    });
    Ok(!crate::interrupt::interrupted())
}

fn settle_baseline(report: &mut BenchReport, baseline: Option<&StoredReport>, args: &BenchArgs) {
    if let (Some(stored), Some(path)) = (baseline, &args.baseline) {
        report.baseline = Some(bench::compare_with_baseline(report, stored, path.clone(), args.max_regression));
    }
}

/// Writes every export file the flags ask for, each atomically; with `to_stdout`, also the one
/// asked for as `-`. Returns whether one went to stdout.
fn write_exports(report: &BenchReport, args: &BenchArgs, to_stdout: bool) -> Result<bool> {
    let exports: [(&Option<PathBuf>, &dyn Exporter, &str); 4] = [
        (&args.json, &JsonExporter, "--json"),
        (&args.csv, &CsvExporter, "--csv"),
        (&args.markdown, &MarkdownExporter, "--markdown"),
        (&args.html, &HtmlExporter, "--html"),
    ];
    let mut on_stdout = false;
    for (path, exporter, flag) in exports {
        let Some(path) = path else { continue };
        if path == Path::new("-") {
            if to_stdout {
                crate::out!("{}", exporter.render(report)?);
            }
            on_stdout = true;
        } else {
            let text = exporter.render(report)?;
            crate::fsutil::write_atomic(path, text.as_bytes()).with_context(|| format!("{flag} {}", path.display()))?;
        }
    }
    Ok(on_stdout)
}

fn read_baseline(path: &Path) -> Result<StoredReport> {
    let text = std::fs::read_to_string(path).with_context(|| format!("--baseline {}", path.display()))?;
    let stored: StoredReport = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("--baseline {}: not a dmlrun bench JSON report ({e})", path.display()))?;
    if stored.schema != bench::BENCH_SCHEMA {
        bail!("--baseline {}: schema '{}' is not {}", path.display(), stored.schema, bench::BENCH_SCHEMA);
    }
    Ok(stored)
}

/// Each target once per point of `sweep` where its model has what is swept (a generate entry,
/// or a model without it, once, with a note saying so), each with its model as read.
fn swept(
    targets: Vec<BenchTarget>,
    read: Vec<Result<ModelRead>>,
    sweep: Option<&Sweep>,
) -> Vec<(BenchTarget, Result<ModelRead>, Option<String>)> {
    let Some(sweep) = sweep else { return targets.into_iter().zip(read).map(|(t, r)| (t, r, None)).collect() };
    let mut points = Vec::new();
    for (target, read) in targets.into_iter().zip(read) {
        match read {
            Ok(ModelRead::Model(file)) if sweep_applies(sweep, &file.info) => {
                for point in target.swept(sweep) {
                    points.push((point, Ok(ModelRead::Model(file.clone())), None));
                }
            }
            Ok(read) => {
                let note = format!(
                    "{} {}: this model has no such free dimension or input; measured once",
                    sweep.flag(),
                    sweep.over()
                );
                points.push((target, Ok(read), Some(note)));
            }
            Err(e) => points.push((target, Err(e), None)),
        }
    }
    points
}

fn sweep_applies(sweep: &Sweep, info: &crate::formats::model::ModelInfo) -> bool {
    match sweep {
        Sweep::Dim { name, .. } => info.symbolic_dims().contains(name),
        Sweep::Shape { input, .. } => info.input(input).is_some(),
    }
}

/// A sweep over what no model has is a typo: the run's usage error.
fn check_sweep_fits_some(sweep: &Sweep, models: &[&crate::formats::model::ModelInfo]) -> Result<()> {
    if !models.is_empty() && !models.iter().any(|m| sweep_applies(sweep, m)) {
        let what = match sweep {
            Sweep::Dim { .. } => "a free dimension",
            Sweep::Shape { .. } => "an input",
        };
        bail!(
            "{} {}: none of the {} model(s) has {what} named '{}'",
            sweep.flag(),
            sweep.over(),
            models.len(),
            sweep.over()
        );
    }
    Ok(())
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
    base: &PlanRequest,
    target: &BenchTarget,
    read: ModelRead,
    args: &BenchArgs,
) -> Result<ModelPlan> {
    let mut file = match read {
        ModelRead::Decoder(decoder) => {
            let (mut request, not_applied) = base.fitted_to(&decoder.file.info);
            // Prefill and decode feed different lengths: the free dimensions stay free.
            request.auto_dims = false;
            let preflight = Preflight::resolve(runtime, &decoder.spec.model, decoder.file, request, not_applied)?;
            return Ok(ModelPlan { target: target.clone(), preflight, cache: None });
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
    if let Some(dir) = &args.profile {
        request.profile_prefix = Some(OrtWritten::new(dir, &sanitize(&target.name)).partial_path());
    }
    // The optimised-model cache: load the cached file if there is one, else have ONNX Runtime write it.
    let mut model_path = target.path.clone();
    let mut cache = None;
    if let Some(dir) = &args.cache {
        let name =
            format!("{}-{}.onnx", sanitize(&target.name), cache_key(&file.sha256, &request, &runtime.library.version));
        let cached = dir.join(&name);
        if cached.is_file() {
            file = ModelFile::read(&cached)?;
            model_path = cached;
            // Already optimised for this EP with these dims fixed in the graph: do not optimise
            // or override again (the dims no longer exist as free dimensions).
            request.optimization_level = OptimizationLevel::Disable;
            request.dims.clear();
            request.dim_denotations.clear();
            // A --precision fp16 entry's cached model is the float16 one already.
            request.precision = crate::runtime::plan::Precision::Fp32;
            request.keep_fp32.clear();
            cache = Some(CacheUse::Hit);
        } else {
            request.optimized_model_path = Some(OrtWritten::new(dir, &name).partial_path());
            cache = Some(CacheUse::Write { file: name });
        }
    }
    let preflight = Preflight::resolve(runtime, &model_path, file, request, not_applied)?;
    Ok(ModelPlan { target: target.clone(), preflight, cache })
}

fn bench_model(
    runtime: &Runtime,
    plan: &ModelPlan,
    target: &BenchTarget,
    args: &BenchArgs,
    bars: &MultiProgress,
) -> Result<Option<ModelBench>> {
    // A child process measures one model; in-process, the peak starts again where it can.
    let peak_rss_scope = if crate::sysinfo::reset_peak_rss() || args.isolation.child_report.is_some() {
        PeakScope::Model
    } else {
        PeakScope::Process
    };
    let preflight = &plan.preflight;
    // Declared before the session, so they are dropped after it (see OrtWritten); the plan
    // already names the paths ONNX Runtime writes.
    let profile_file = args.profile.as_deref().map(|dir| OrtWritten::new(dir, &sanitize(&target.name)));
    let cache_write = match (&plan.cache, &args.cache) {
        (Some(CacheUse::Write { file }), Some(dir)) => Some(OrtWritten::new(dir, file)),
        _ => None,
    };
    let mut cache = (plan.cache == Some(CacheUse::Hit)).then(|| "hit".to_string());

    let load = LoadOptions {
        preprocess: crate::formats::image::PreprocessRequest { max_pixels: 100_000_000, ..Default::default() },
        generate: Some(target.generate.unwrap_or(args.generate)),
        seed: args.seed,
        max_tensor_bytes: args.max_tensor_bytes,
        free_dim_size: usize::try_from(args.free_dim_size).unwrap_or(usize::MAX),
        ranges: args.generate_ranges.iter().chain(&target.generate_ranges).cloned().collect(),
    };
    let budget = match (args.iterations, args.duration) {
        (Some(n), _) => engine::RunBudget { max: n, time_box: None, min: 0 },
        (None, Some(d)) => engine::RunBudget {
            max: args.max_iterations.max(args.min_iterations),
            time_box: Some(d),
            min: args.min_iterations,
        },
        (None, None) => engine::RunBudget { max: DEFAULT_ITERATIONS, time_box: None, min: 0 },
    };
    let reference = args.compare.compare_ep.clone().map(|ep| {
        let tolerance = Tolerance {
            atol: target.atol.unwrap_or(args.compare.atol),
            rtol: target.rtol.unwrap_or(args.compare.rtol),
        };
        (preflight.request.reference(ep, args.compare.compare_opt_level), tolerance)
    });
    let measure = engine::MeasureRequest {
        preflight,
        label: Some(&target.name),
        print_plan: args.session.print_plan,
        inputs: &target.inputs,
        load: &load,
        warmup: args.warmup,
        budget,
        reference,
        time_reference: true,
        time_float32: true,
    };
    let bar = bars.add(crate::progress::iterations(budget.max, &target.name, args.quiet));
    let measured = engine::measure(runtime, &measure, &bar);
    bars.remove(&bar);
    let engine::Measurement {
        mut model,
        bound,
        first_run,
        samples,
        comparison,
        device_io,
        warnings: said,
        precision,
        ..
    } = measured?;
    let sessions = match args.sessions {
        Some(n) if !crate::interrupt::interrupted() => {
            Some(engine::measure_sessions(runtime, &model, &bound, n as usize, (args.warmup, budget))?)
        }
        _ => None,
    };
    if let Some(pending) = &cache_write {
        // ONNX Runtime wrote the optimised model while creating the session.
        pending.keep(&pending.partial_path()).context("--cache")?;
        cache = Some("written".to_string());
    }
    if samples.is_empty() && crate::interrupt::interrupted() {
        // Interrupted before the first timed run: nothing to report for this model.
        return Ok(None);
    }
    let latency = crate::stats::summarize(&samples).context("no timed runs")?;

    let mut warnings = said;
    if latency.cov > HIGH_COV {
        let w = format!(
            "high variation (CoV {:.1}%): the machine is noisy or throttling; use more --iterations or a longer --duration",
            latency.cov * 100.0
        );
        // The engine said its own warnings as they arose; this one is bench's.
        bars.suspend(|| crate::errln!("warning: {}: {w}", target.name));
        warnings.push(w);
    }
    let batch_size = engine::batch_size(&model, &bound);
    let items_per_s = batch_size.filter(|b| *b > 1).map(|b| latency.throughput_per_s * b as f64);
    let profile = match &profile_file {
        Some(pending) => Some(finish_profile(&mut model, pending)?),
        None => None,
    };
    let gpu_memory = model.memory.as_ref().map(|m| m.memory.clone());
    // A reading DXGI gives but that does not count DirectML's allocations (Wine) is no figure.
    let gpu_memory_bytes =
        gpu_memory.as_ref().filter(|m| m.note.is_none()).and_then(|m| m.peak_timed_runs).map(|p| p.local_bytes);
    let reference = comparison.as_ref().map(|c| ReferenceBench {
        device: c.reference.clone(),
        latency_ms: crate::stats::summarize(&c.reference_samples),
        samples_ms: c.reference_samples.clone(),
        tolerance: c.tolerance,
        outputs_compared: c.outputs_compared,
        differences: c.differences.clone(),
    });
    let comparison = comparison.map(|c| c.mismatches);
    Ok(Some(ModelBench {
        name: target.name.clone(),
        path: target.path.clone(),
        status: ModelStatus::Ok,
        sweep: target.sweep.clone(),
        device: model.device.clone(),
        plan: model.plan.clone(),
        inputs: bound.sources,
        model_load_ms: ms(model.load_time),
        session_create_ms: ms(model.session_time),
        cache,
        first_run_ms: ms(first_run),
        warmup: args.warmup,
        latency_ms: latency,
        samples_ms: samples,
        batch_size,
        items_per_s,
        peak_rss_bytes: crate::sysinfo::peak_rss_bytes(),
        peak_rss_scope,
        gpu_memory_bytes,
        gpu_memory,
        profile,
        device_io,
        sessions,
        precision,
        comparison,
        reference,
        generation: None,
        warnings,
    }))
}

/// A manifest's generate entry: a synthetic prompt, one warm-up generation, then the measured
/// repetitions, each making exactly `new_tokens` (EOS ignored, as LLM benchmarks do).
fn bench_generation(
    runtime: &Runtime,
    plan: &ModelPlan,
    target: &BenchTarget,
    wanted: &GenerationTarget,
    args: &BenchArgs,
) -> Result<Option<ModelBench>> {
    use crate::generate::{self, figures, DecoderModel, LoopSettings, Sampler, Sampling};
    let peak_rss_scope = if crate::sysinfo::reset_peak_rss() || args.isolation.child_report.is_some() {
        PeakScope::Model
    } else {
        PeakScope::Process
    };
    let DecoderModel { spec, tokenizer, vocab, .. } = DecoderModel::read(&target.path, None, None)?;
    let prompt_vocab = tokenizer.as_ref().map_or(vocab, |t| t.vocab_size().min(vocab));
    for note in &plan.preflight.not_applied {
        crate::errln!("warning: {}: {note}", target.name);
    }
    let (prompt_tokens, new_tokens, fitted) = wanted.fitted(spec.context_length)?;
    if let Some(note) = &fitted {
        crate::errln!("warning: {}: {note}", target.name);
    }
    let prompt = generate::synthetic_prompt(prompt_tokens, prompt_vocab, &spec.eos_token_ids, args.seed);
    let kv_length = generate::kv_length(prompt.len(), new_tokens, wanted.max_length, spec.context_length)?;
    let started = std::time::Instant::now();
    let options = engine::DecoderOptions {
        preflight: &plan.preflight,
        spec: &spec,
        print_plan: args.session.print_plan,
        kv_length,
    };
    crate::stage::step("session creation");
    let mut decoder = engine::DecoderSession::open(runtime, &options)?;
    let model_load_ms = ms(started.elapsed()) - ms(decoder.model.session_time);
    let settings = LoopSettings { max_new_tokens: new_tokens, eos_token_ids: &spec.eos_token_ids, ignore_eos: true };
    let mut runs = Vec::new();
    let mut first_ttft = None;
    for repetition in 0..=wanted.repetitions {
        if crate::interrupt::interrupted() {
            break;
        }
        let generation =
            generate::generate(&mut decoder, &prompt, &settings, &mut Sampler::new(Sampling::Greedy), &mut |_, _| {
                Ok(())
            })?;
        first_ttft.get_or_insert(generation.prefill.total_ms);
        if let Some(memory) = decoder.model.memory.as_mut() {
            memory.sample();
        }
        // The first is the warm-up; an interrupted one is not counted.
        if repetition > 0 && generation.stop != generate::Stop::Interrupted {
            runs.push(generation);
        }
    }
    if runs.is_empty() {
        return Ok(None);
    }
    let figures = figures::figures(&runs);
    let samples: Vec<f64> = runs.iter().flat_map(|g| g.decode.iter().map(|s| s.total_ms)).collect();
    let latency = crate::stats::summarize(&samples)
        .context("one new token makes no decode steps to time: give the entry new_tokens of 2 or more")?;
    let gpu_memory = decoder.model.memory.as_ref().map(|m| m.memory.clone());
    let gpu_memory_bytes =
        gpu_memory.as_ref().filter(|m| m.note.is_none()).and_then(|m| m.peak_timed_runs).map(|p| p.local_bytes);
    Ok(Some(ModelBench {
        name: target.name.clone(),
        path: target.path.clone(),
        status: ModelStatus::Ok,
        sweep: target.sweep.clone(),
        device: decoder.model.device.clone(),
        plan: decoder.model.plan.clone(),
        inputs: Vec::new(),
        model_load_ms,
        session_create_ms: ms(decoder.model.session_time),
        cache: None,
        first_run_ms: first_ttft.unwrap_or_default(),
        warmup: 1,
        latency_ms: latency,
        samples_ms: samples,
        batch_size: Some(1),
        items_per_s: None,
        peak_rss_bytes: crate::sysinfo::peak_rss_bytes(),
        peak_rss_scope,
        gpu_memory_bytes,
        gpu_memory,
        profile: None,
        device_io: None,
        sessions: None,
        precision: None,
        comparison: None,
        reference: None,
        generation: Some(figures),
        warnings: plan.preflight.not_applied.iter().cloned().chain(fitted).collect(),
    }))
}

fn finish_profile(model: &mut engine::LoadedModel, pending: &OrtWritten) -> Result<ProfileSummary> {
    let written = model.end_profiling()?;
    // ONNX Runtime names the file after the prefix plus a timestamp.
    let file = pending.keep(Path::new(&written)).context("--profile")?;
    let top_ops = crate::runtime::profile::read_op_times(&file)?.into_iter().take(10).collect();
    let graph_fusion = if model.plan.fusion_disabled() { "off" } else { "on" }.to_string();
    Ok(ProfileSummary { file, graph_fusion, top_ops })
}

/// The cache key: everything that changes the optimised model.
fn cache_key(model_sha256: &[u8; 32], request: &PlanRequest, ort_version: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(model_sha256);
    let mut dims = request.dims.clone();
    dims.sort();
    let mut denotations = request.dim_denotations.clone();
    denotations.sort();
    hasher.update(
        format!(
            "ep={:?};device={:?};pref={:?};filter={:?};dims={dims:?};den={denotations:?};opt={:?};ort={ort_version};config={:?};ep_options={:?};metacommands={};precision={:?};keep={:?}",
            request.ep,
            request.device,
            request.performance_preference,
            request.device_filter,
            request.optimization_level,
            request.session_config,
            request.ep_options,
            !request.dml_disable_metacommands,
            request.precision,
            request.keep_fp32
        )
        .as_bytes(),
    );
    let digest = hasher.finalize();
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

fn sanitize(name: &str) -> String {
    name.chars().map(|c| if c.is_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect()
}
