//! `dmlrun test PATH…`: run ONNX test-data folders and compare outputs, for CI.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::exit::ExitStatus;

use crate::cli::TestArgs;
use crate::compare::{self, Mismatch, Tolerance};
use crate::formats::model::ValueKind;
use crate::isolation::{self, ChildOutcome};
use crate::report::test::{expectations, human, junit, CaseResult, Status, Summary, TestReport, TEST_SCHEMA};
use crate::runtime::engine::diagnose::{self, EpFailure, Stage};
use crate::runtime::engine::{self, Preflight, PreparedInputs, Scope};
use crate::runtime::placement::EpNodes;
use crate::runtime::plan::{self, EpRequest, OptimizationLevel, PlanRequest, Precision, SessionPlan};
use crate::runtime::Runtime;
use crate::settings;
use crate::suites::shard::ShardInfo;
use crate::suites::testdata::{self, Case};
use crate::tensor::HostValue;

/// Everything a case run needs besides the case and its preflight.
struct Settings<'a> {
    runtime: &'a Runtime,
    /// `--compare-ep`: the reference EP, its optimisation level and its threads, applied to
    /// each case's own request.
    reference: Option<(EpRequest, Option<OptimizationLevel>, Option<usize>)>,
    default_tol: Tolerance,
    per_output: BTreeMap<String, Tolerance>,
    check_finite: bool,
    max_tensor_bytes: u64,
    /// Run a case that fails on an EP other than the CPU on the reference EP, to say whose
    /// failure it is (off for dmlrun reduce's candidates).
    blame: bool,
}

/// Cases per child process under isolation: few enough that a child's death re-runs little,
/// many enough that process starts (seconds each under Wine) stay a small share.
const CASES_PER_CHILD: usize = 100;

/// How long one case may run when --timeout does not say: far beyond any conformance case or
/// real model here (the slowest takes seconds), short enough that a hang costs minutes.
const DEFAULT_CASE_LIMIT: Duration = Duration::from_secs(5 * 60);

pub fn execute(args: &TestArgs) -> Result<ExitStatus> {
    if let Some(progress) = &args.isolation.progress {
        crate::stage::report_to(progress);
    }
    crate::report::check_one_on_stdout(&[
        ("--json", args.json.as_deref()),
        ("--junit", args.junit.as_deref()),
        ("--html", args.html.as_deref()),
        ("--write-expect", args.write_expect.as_deref()),
    ])?;
    let testdata::Discovery { mut cases, skipped } = testdata::discover(&args.paths)?;
    // The shard first, on the whole sorted list, so an isolation child (which discovers again)
    // picks the same cases before its --only.
    let shard = args.shard.map(|shard| ShardInfo { shard, of_items: cases.len() });
    if let Some(shard) = args.shard {
        cases = shard.select(cases, |c| c.name.as_str());
    }
    if !args.isolation.only.is_empty() {
        cases.retain(|c| args.isolation.only.contains(&c.name));
    }
    let expectations = match &args.expect {
        Some(path) => expectations::read(path)?,
        None => BTreeMap::new(),
    };
    let runtime = Runtime::load(args.ort.ort_lib.as_deref(), args.ort.ort_log_level, &args.ort.ep_libraries)?;
    let mut request = settings::plan_request(&args.session, args.ort.ort_log_level)?;
    let jobs = args.jobs as usize;
    if jobs > 1 && request.intra_op_threads.is_none() {
        // Several sessions at once: one thread each, not one pool per core per session.
        request.intra_op_threads = Some(1);
    }
    engine::check_flags(&runtime, &request)?;
    let reference = args.compare_ep.clone().map(|ep| PlanRequest {
        intra_op_threads: args.compare_intra_threads.or(request.intra_op_threads),
        ..request.reference(ep, args.compare_opt_level)
    });
    // DirectML sessions share one device queue: never run them concurrently.
    let directml = engine::plans_directml(&runtime, &request)
        || reference.as_ref().is_some_and(|r| engine::plans_directml(&runtime, r));
    let jobs = if directml { 1 } else { jobs };

    let placement = match args.isolation.child_report {
        Some(_) => isolation::Placement { in_children: false, limit: None },
        None => isolation::PlacementRequest {
            isolation: args.isolation.isolation,
            timeout: args.isolation.timeout,
            default_limit: DEFAULT_CASE_LIMIT,
            directml,
            print_plan: false,
        }
        .resolve()?,
    };
    // Each case's model read once and the flags resolved against it, here or (for an isolation
    // child) by the parent: a flag that fits no case is the run's usage error, one that fits
    // only some cases applies to those.
    let preflights = match &args.isolation.preflight {
        Some(path) => {
            let mut resolved: BTreeMap<String, Preflight> = isolation::read_from_parent(path)?;
            cases
                .iter()
                .map(|c| {
                    resolved
                        .remove(&c.name)
                        .with_context(|| format!("case {}: not among the parent's preflights", c.name))
                })
                .collect()
        }
        None => {
            let preflights: Vec<Result<Preflight>> =
                cases.iter().map(|c| preflight_case(&runtime, &request, c)).collect();
            let models: Vec<_> = preflights.iter().flatten().map(Preflight::info).collect();
            plan::check_flags_fit_some(&request, &models)?;
            preflights
        }
    };
    let settings = Settings {
        runtime: &runtime,
        reference: args.compare_ep.clone().map(|ep| (ep, args.compare_opt_level, args.compare_intra_threads)),
        default_tol: Tolerance { atol: args.atol, rtol: args.rtol },
        per_output: args.tols.iter().map(|(n, a, r)| (n.clone(), Tolerance { atol: *a, rtol: *r })).collect(),
        check_finite: args.check_finite,
        max_tensor_bytes: args.max_tensor_bytes,
        blame: !args.no_blame,
    };
    let started = Instant::now();
    let bar =
        crate::progress::iterations(cases.len() as u64, "cases", args.quiet || args.isolation.child_report.is_some());
    let mut results = if placement.in_children {
        run_in_children(&cases, preflights, placement.limit, jobs, &bar)?
    } else {
        run_here(&settings, &cases, &preflights, jobs, &bar)
    };
    bar.finish_and_clear();
    let interrupted = crate::interrupt::interrupted();

    let summary = Summary::of(&mut results, &expectations, started.elapsed().as_secs_f64() * 1000.0);
    let report = TestReport {
        schema: TEST_SCHEMA.to_string(),
        dmlrun_version: env!("CARGO_PKG_VERSION").to_string(),
        onnxruntime: runtime.library.clone(),
        plan_request: describe_request(&request),
        reference: reference.as_ref().map(describe_request),
        summary,
        cases: results,
        skipped,
        interrupted,
        shard,
        isolation: placement,
    };
    if let Some(path) = &args.isolation.child_report {
        // An isolation child: its report is its only output.
        crate::report::write_json(path, &report, "--child-report")?;
        return Ok(ExitStatus::Success);
    }
    if let Some(path) = &args.write_expect {
        crate::fsutil::write_atomic(path, expectations::render(&report).as_bytes())
            .with_context(|| format!("--write-expect {}", path.display()))?;
    }
    if let Some(path) = &args.html {
        crate::fsutil::write_atomic(path, crate::report::html::test::render(&report).as_bytes())
            .with_context(|| format!("--html {}", path.display()))?;
    }
    if let Some(path) = &args.junit {
        crate::fsutil::write_atomic(path, junit::render(&report)?.as_bytes())
            .with_context(|| format!("--junit {}", path.display()))?;
    }
    let human = human::render(&report, args.verbose, args.quiet, args.expect.as_deref());
    let json_on_stdout = match args.json.as_deref() {
        Some(path) => crate::report::write_json(path, &report, "--json")?,
        None => false,
    };
    // With JSON on stdout, the human summary moves to stderr.
    if json_on_stdout {
        crate::err!("{human}");
    } else {
        crate::out!("{human}");
    }
    if interrupted {
        crate::errln!(
            "dmlrun: interrupted after {} of {} cases; the report covers those",
            report.cases.len(),
            cases.len()
        );
    }
    let failed =
        if args.expect.is_some() { !report.summary.unexpected.is_empty() } else { report.summary.not_passed() > 0 };
    Ok(ExitStatus::of_checks(failed, interrupted))
}

/// Reads a case's model and resolves the flags against it, as one of the run's models.
fn preflight_case(runtime: &Runtime, request: &PlanRequest, case: &Case) -> Result<Preflight> {
    if case.data_sets.is_empty() {
        bail!("no test_data_set_* folder");
    }
    if !case.model.is_file() {
        bail!("has test_data_set_* folders but no model.onnx");
    }
    Preflight::read(runtime, &case.model, request, Scope::OneOfMany)
}

/// Runs the cases in this process, `jobs` at a time.
fn run_here(
    settings: &Settings,
    cases: &[Case],
    preflights: &[Result<Preflight>],
    jobs: usize,
    bar: &indicatif::ProgressBar,
) -> Vec<CaseResult> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<CaseResult>>> = Mutex::new(vec![None; cases.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(cases.len()).max(1) {
            scope.spawn(|| loop {
                // Ctrl-C: finish the cases under way, start no more; the report covers those run.
                if crate::interrupt::interrupted() {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                crate::stage::item(&case.name);
                let result = run_case(settings, case, &preflights[i]);
                bar.inc(1);
                results.lock().expect("no panics while holding the lock")[i] = Some(result);
            });
        }
    });
    results.into_inner().expect("threads finished").into_iter().flatten().collect()
}

/// Runs the cases in child dmlrun processes, up to `CASES_PER_CHILD` to a child and `jobs`
/// children side by side, each handed its cases' preflights and held to `limit` per case. A
/// case whose preflight failed is reported here, without a child.
fn run_in_children(
    cases: &[Case],
    preflights: Vec<Result<Preflight>>,
    limit: Option<Duration>,
    jobs: usize,
    bar: &indicatif::ProgressBar,
) -> Result<Vec<CaseResult>> {
    let dir = tempfile::tempdir().context("a temporary folder for the children's reports")?;
    let mut results = Vec::new();
    let mut runnable = Vec::new();
    for (case, preflight) in cases.iter().zip(preflights) {
        match preflight {
            Ok(preflight) => runnable.push((case, preflight)),
            Err(e) => {
                bar.inc(1);
                results.push(CaseResult::ended(
                    &case.name,
                    Status::Error,
                    crate::exit::one_line(&e),
                    case.data_sets.len(),
                ));
            }
        }
    }
    // Every worker gets chunks to run, so --jobs children run side by side; under Wine a child
    // opens no more DirectML sessions than a process there can.
    let mut per_child = CASES_PER_CHILD.min(runnable.len().div_ceil(jobs.max(1)).max(1));
    if runnable.iter().any(|(_, preflight)| preflight.plan.uses_directml()) {
        if let Some(cap) = crate::runtime::wine::directml_sessions_per_process() {
            per_child = per_child.min(cap);
        }
    }
    let chunks: Vec<&[(&Case, Preflight)]> = runnable.chunks(per_child).collect();
    let next = AtomicUsize::new(0);
    let collected = Mutex::new(results);
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for worker in 0..jobs.max(1).min(chunks.len()) {
            let (next, chunks, collected, failure, dir) = (&next, &chunks, &collected, &failure, dir.path());
            scope.spawn(move || loop {
                if crate::interrupt::interrupted() || failure.lock().is_ok_and(|f| f.is_some()) {
                    break;
                }
                let Some(chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                let files = ChildFiles::in_folder(dir, worker);
                let mut mine = Vec::new();
                let ran = run_chunk(chunk, &files, limit, &mut mine);
                bar.inc(chunk.len() as u64);
                collected.lock().expect("no panics while holding the lock").extend(mine);
                if let Err(e) = ran {
                    *failure.lock().expect("no panics while holding the lock") = Some(e);
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().expect("threads finished") {
        return Err(e);
    }
    let mut results = collected.into_inner().expect("threads finished");
    // The report lists the cases in the order they were found.
    let order = |name: &str| cases.iter().position(|c| c.name == name).unwrap_or(usize::MAX);
    results.sort_by_key(|r| order(&r.name));
    Ok(results)
}

/// One worker's files for its children: the report, the preflights handed over, the progress.
struct ChildFiles {
    report: PathBuf,
    preflights: PathBuf,
    progress: PathBuf,
}

impl ChildFiles {
    fn in_folder(dir: &Path, worker: usize) -> ChildFiles {
        ChildFiles {
            report: dir.join(format!("child-{worker}-report.json")),
            preflights: dir.join(format!("child-{worker}-preflights.json")),
            progress: dir.join(format!("child-{worker}-progress")),
        }
    }
}

/// Runs `chunk` in one child. A case that runs past the limit is recorded as `timeout` with
/// the step it was in and the rest run again without it; at Ctrl-C the case under way is
/// recorded as `interrupted`; a child that dies otherwise is split in halves until the case
/// that kills it runs alone.
fn run_chunk(
    chunk: &[(&Case, Preflight)],
    files: &ChildFiles,
    limit: Option<Duration>,
    results: &mut Vec<CaseResult>,
) -> Result<()> {
    #[derive(serde::Deserialize)]
    struct ChildReport {
        cases: Vec<CaseResult>,
    }
    if chunk.is_empty() {
        return Ok(());
    }
    let handed: BTreeMap<&str, &Preflight> = chunk.iter().map(|(c, p)| (c.name.as_str(), p)).collect();
    isolation::write_for_child(&files.preflights, &handed)?;
    let mut extra: Vec<OsString> = ["--isolation", "none", "--child-report"].into_iter().map(OsString::from).collect();
    extra.push(files.report.clone().into_os_string());
    extra.extend([OsString::from("--preflight"), files.preflights.clone().into_os_string()]);
    extra.extend([OsString::from("--progress"), files.progress.clone().into_os_string()]);
    for (case, _) in chunk {
        extra.extend([OsString::from("--only"), OsString::from(&case.name)]);
    }
    let limit = limit.map(|per_item| isolation::TimeLimit { per_item, progress: Some(&files.progress) });
    let ended = match isolation::run_child(&isolation::child_args(&extra), &files.report, limit)? {
        ChildOutcome::Report(text) => {
            let child: ChildReport = serde_json::from_str(&text).context("reading an isolation child's report")?;
            results.extend(child.cases);
            return Ok(());
        }
        ended => ended,
    };
    let named = |stage: &crate::stage::Stage| chunk.iter().position(|(c, _)| c.name == stage.item);
    match ended {
        ChildOutcome::Interrupted(stage) => {
            if let Some(i) = named(&stage) {
                let case = chunk[i].0;
                let reason = "interrupted (Ctrl-C) while it ran".to_string();
                results.push(CaseResult::ended(&case.name, Status::Interrupted, reason, case.data_sets.len()));
            }
            Ok(())
        }
        ChildOutcome::TimedOut(after, stage) if named(&stage).is_some() || chunk.len() == 1 => {
            let i = named(&stage).unwrap_or(0);
            let case = chunk[i].0;
            let reason = isolation::timed_out_reason(after, &stage);
            results.push(CaseResult::ended(&case.name, Status::Timeout, reason, case.data_sets.len()));
            // The others ran in the same child, whose report is lost with it: again, without it.
            let rest: Vec<(&Case, Preflight)> =
                chunk.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, (c, p))| (*c, p.clone())).collect();
            run_chunk(&rest, files, limit.map(|l| l.per_item), results)
        }
        ended => {
            if let [(case, _)] = chunk {
                let (status, reason) = match ended {
                    ChildOutcome::Died(how) => (Status::Crash, format!("the process running it died: {how}")),
                    ChildOutcome::TimedOut(after, stage) => {
                        (Status::Timeout, isolation::timed_out_reason(after, &stage))
                    }
                    ChildOutcome::Report(_) | ChildOutcome::Interrupted(_) => unreachable!("handled above"),
                };
                results.push(CaseResult::ended(&case.name, status, reason, case.data_sets.len()));
                return Ok(());
            }
            if crate::interrupt::interrupted() {
                return Ok(());
            }
            let (first, second) = chunk.split_at(chunk.len() / 2);
            run_chunk(first, files, limit.map(|l| l.per_item), results)?;
            run_chunk(second, files, limit.map(|l| l.per_item), results)
        }
    }
}

fn describe_request(r: &PlanRequest) -> String {
    let mut parts = vec![format!("ep {}", r.ep)];
    if let Some(d) = r.device {
        parts.push(format!("device {d}"));
    }
    parts.push(format!("opt-level {:?}", r.optimization_level).to_lowercase());
    if let Some(n) = r.intra_op_threads {
        parts.push(format!("intra-threads {n}"));
    }
    parts.join(", ")
}

fn run_case(settings: &Settings, case: &Case, preflight: &Result<Preflight>) -> CaseResult {
    let started = Instant::now();
    let mut result = CaseResult {
        name: case.name.clone(),
        status: Status::Pass,
        reason: None,
        mismatches: Vec::new(),
        data_sets: case.data_sets.len(),
        duration_ms: 0.0,
        max_abs_diff: None,
        placement: Vec::new(),
        expected_status: None,
        blame: None,
        node: None,
    };
    let checked = match preflight {
        Ok(preflight) => check_case(settings, case, preflight, &mut result.placement),
        Err(e) => Err(anyhow::anyhow!("{}", crate::exit::one_line(e))),
    };
    match checked {
        Ok((mismatches, max_abs_diff)) => {
            result.max_abs_diff = max_abs_diff;
            if let Some(first) = mismatches.first() {
                result.status = Status::Fail;
                result.reason = Some(first.to_string());
                result.mismatches = mismatches;
            }
        }
        // A run Ctrl-C stopped: nobody's failure.
        Err(_) if crate::interrupt::interrupted() => {
            result.status = Status::Interrupted;
            result.reason = Some("interrupted (Ctrl-C) while it ran".to_string());
        }
        Err(e) => {
            result.status = Status::Error;
            if let Some(failure) = e.downcast_ref::<EpFailure>() {
                result.blame = Some(failure.blame);
                result.node = failure.node.as_ref().map(|n| n.name.clone());
            }
            // Paths stay whole: a missing external data file must be named as ONNX Runtime
            // looked for it.
            result.reason = Some(crate::exit::one_line(&e));
        }
    }
    result.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    result
}

/// Runs every data set of a case; `Ok` with the mismatches (empty = pass) and the largest
/// float difference, `Err` when it could not run. `placement` gets the session's node placement
/// as soon as there is a session, so a case that fails later still reports it.
fn check_case(
    settings: &Settings,
    case: &Case,
    preflight: &Preflight,
    placement: &mut Vec<EpNodes>,
) -> Result<(Vec<Mismatch>, Option<f64>)> {
    // Every data set is read before the session exists: with DirectML, the shapes they agree on
    // fix the model's free dimensions.
    let info = preflight.info();
    let mut plan = preflight.plan.clone();
    let input_names: Vec<String> = info.inputs.iter().map(|i| i.name.clone()).collect();
    // File K of a data set has the type of the model's K-th input (or output) as the model file declares it.
    let input_kinds: Vec<ValueKind> = info.inputs.iter().map(|i| i.kind).collect();
    let mut sets = Vec::new();
    for set in &case.data_sets {
        let set_name = set.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let inputs = testdata::read_values(set, "input", &input_kinds, settings.max_tensor_bytes)?;
        let inputs =
            testdata::bind_by_name_or_position(inputs, &input_names).with_context(|| format!("{set_name} inputs"))?;
        sets.push((set, set_name, inputs));
    }
    let shapes = agreed_shapes(sets.iter().map(|(_, name, inputs)| (name.as_str(), inputs.as_slice())));
    engine::finish_plan(settings.runtime, &mut plan, info, &preflight.request, &shapes, false)?;
    let reference_request = settings.reference.as_ref().map(|(ep, opt_level, threads)| PlanRequest {
        intra_op_threads: threads.or(preflight.request.intra_op_threads),
        ..preflight.request.reference(ep.clone(), *opt_level)
    });
    // --precision fp16: the case's model converted, typed by a float32 run of its first data set.
    let float16 = match (plan.precision, sets.first()) {
        (Precision::Fp16, Some((_, _, inputs))) => {
            crate::stage::step("the float16 conversion");
            let prepared = PreparedInputs::from_values(settings.runtime, inputs, info)?;
            let reference = preflight.request.reference(EpRequest::Cpu, None);
            Some(engine::to_float16(settings.runtime, preflight, &reference, &prepared)?)
        }
        _ => None,
    };
    let model_path = float16.as_ref().map_or(case.model.as_path(), |f| f.path.as_path());
    // A failure on DirectML (or any EP but the CPU) is checked on the reference EP with the same
    // inputs, to say whose it is.
    let explain = |plan: &SessionPlan, stage: Stage, prepared: &PreparedInputs, e: anyhow::Error| {
        if !settings.blame {
            return e;
        }
        let failed = diagnose::Failed { model_path, info, plan, stage };
        diagnose::explain(settings.runtime, &failed, reference_request.as_ref(), &preflight.request, prepared, None, e)
    };
    crate::stage::step("session creation");
    let mut model =
        match engine::open(settings.runtime, model_path, info.clone(), preflight.model.read_time, plan.clone()) {
            Ok(model) => model,
            Err(e) => {
                let Some((_, _, inputs)) = sets.first() else { return Err(e) };
                let prepared = PreparedInputs::from_values(settings.runtime, inputs, info)?;
                return Err(explain(&plan, Stage::SessionCreation, &prepared, e));
            }
        };
    placement.clone_from(&model.device.placement);
    let mut reference = match &reference_request {
        Some(r) => Some(engine::load(settings.runtime, &case.model, &model.info, r).context("reference session")?),
        None => None,
    };
    let tol_for = |output: &str| -> Tolerance {
        settings.per_output.get(output).copied().unwrap_or(Tolerance {
            atol: case.atol.unwrap_or(settings.default_tol.atol),
            rtol: case.rtol.unwrap_or(settings.default_tol.rtol),
        })
    };
    let output_kinds: Vec<ValueKind> = model
        .output_names
        .iter()
        .map(|n| model.info.outputs.iter().find(|o| &o.name == n).map(|o| o.kind).unwrap_or_default())
        .collect();
    let mut mismatches = Vec::new();
    let mut max_abs_diff: Option<f64> = None;
    for (set, set_name, inputs) in &sets {
        crate::stage::step(set_name.clone());
        let prepared = PreparedInputs::from_values(settings.runtime, inputs, &model.info)?;
        let actual = engine::run_to_host_values(&mut model.session, &prepared)
            .map_err(|e| explain(&model.plan, Stage::Run, &prepared, e))?;
        let expected = match &mut reference {
            Some(r) => engine::run_to_host_values(&mut r.session, &prepared).context("reference run")?,
            None => {
                let files = testdata::read_values(set, "output", &output_kinds, settings.max_tensor_bytes)?;
                testdata::bind_by_name_or_position(files, &model.output_names)
                    .with_context(|| format!("{set_name} outputs"))?
            }
        };
        for (name, want) in &expected {
            let Some((_, got)) = actual.iter().find(|(n, _)| n == name) else {
                bail!("{set_name}: the model produced no output '{name}'");
            };
            if let (HostValue::Tensor(want), HostValue::Tensor(got)) = (want, got) {
                if let Some(d) = compare::difference(name, want, got) {
                    max_abs_diff = Some(max_abs_diff.map_or(d.max_abs, |m| m.max(d.max_abs)));
                }
            }
            for mut m in compare::compare_values(name, want, got, tol_for(name)) {
                if case.data_sets.len() > 1 {
                    m.reason = format!("{set_name}: {}", m.reason);
                }
                mismatches.push(m);
            }
        }
        if settings.check_finite {
            for (name, value) in &actual {
                let HostValue::Tensor(got) = value else { continue };
                let bad = compare::non_finite(got);
                if bad > 0 {
                    mismatches.push(Mismatch {
                        output: name.clone(),
                        reason: format!("{bad} of {} elements are NaN or Inf (--check-finite)", got.len()),
                        values: None,
                    });
                }
            }
        }
    }
    Ok((mismatches, max_abs_diff))
}

/// The shape of each tensor input that is the same in every data set (an input whose sets
/// differ is left out, so its free dimensions stay free), named after the first set.
fn agreed_shapes<'a>(
    mut sets: impl Iterator<Item = (&'a str, &'a [(String, HostValue)])>,
) -> Vec<crate::runtime::plan::BoundShape> {
    let Some((first_name, first)) = sets.next() else { return Vec::new() };
    let mut shapes: Vec<crate::runtime::plan::BoundShape> = first
        .iter()
        .filter_map(|(name, value)| match value {
            HostValue::Tensor(t) => Some(crate::runtime::plan::BoundShape {
                input: name.clone(),
                shape: t.shape.clone(),
                from: first_name.to_string(),
            }),
            _ => None,
        })
        .collect();
    let mut count = 1;
    for (_, inputs) in sets {
        count += 1;
        shapes.retain(|s| {
            inputs.iter().any(|(n, v)| n == &s.input && matches!(v, HostValue::Tensor(t) if t.shape == s.shape))
        });
    }
    if count > 1 {
        for s in &mut shapes {
            s.from = format!("all {count} data sets");
        }
    }
    shapes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_shapes_every_data_set_agrees_on_fix_dimensions() {
        let tensor = |shape: &[usize]| {
            HostValue::Tensor(
                crate::tensor::HostTensor::from_f32(shape.to_vec(), &vec![0.0; shape.iter().product()]).unwrap(),
            )
        };
        let set0 = vec![("x".to_string(), tensor(&[1, 4])), ("y".to_string(), tensor(&[2]))];
        let set1 = vec![("x".to_string(), tensor(&[1, 4])), ("y".to_string(), tensor(&[3]))];
        let shapes =
            agreed_shapes([("test_data_set_0", set0.as_slice()), ("test_data_set_1", set1.as_slice())].into_iter());
        assert_eq!(shapes.len(), 1, "{shapes:?}");
        assert_eq!((shapes[0].input.as_str(), shapes[0].shape.as_slice()), ("x", [1, 4].as_slice()));
        assert_eq!(shapes[0].from, "all 2 data sets");
        let one = agreed_shapes([("test_data_set_0", set0.as_slice())].into_iter());
        assert_eq!(one.len(), 2);
        assert_eq!(one[1].from, "test_data_set_0");
    }
}
