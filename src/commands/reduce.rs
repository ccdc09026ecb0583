//! `dmlrun reduce MODEL`: the smallest run of nodes that still fails on the EP under test,
//! written as an ONNX test case.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::batch;
use crate::cases::{self, CaseCheck, Cases};
use crate::cli::ReduceArgs;
use crate::compare::Tolerances;
use crate::exit::ExitStatus;
use crate::graph::Graph;
use crate::isolation::{Isolation, PlacementRequest};
use crate::progress::Counting;
use crate::reduce::candidate::Outcome;
use crate::reduce::{Reducer, Tried};
use crate::report::reduce::{self as report, ReduceReport};
use crate::runtime::engine::{self, diagnose, Preflight, Scope};
use crate::runtime::plan::{PlanRequest, Precision};
use crate::settings::ReduceSettings;
use crate::suites::testdata;

pub fn execute(args: &ReduceArgs) -> Result<ExitStatus> {
    reduce(&ReduceSettings::resolve(args)?)
}

fn reduce(settings: &ReduceSettings) -> Result<ExitStatus> {
    let runtime = settings.ort.load()?;
    let check = candidate_check(settings);
    let cases = Cases { runtime: &runtime, check: &check, saved: None };
    if let Some(child) = &settings.child {
        // A child of this reduction checks the candidate its parent handed it, and nothing else.
        batch::serve_parent(&cases, child)?;
        return Ok(ExitStatus::Success);
    }
    // --each-op writes no model: its candidates go to a temporary folder.
    let staging = match settings.each_op {
        true => tempfile::tempdir().context("a temporary folder for the candidates")?,
        false => staging_folder(&settings.output)?,
    };
    let started = Instant::now();
    let subject = Subject::open(&runtime, settings)?;
    let bar = crate::progress::counter(
        2 * (subject.graph.nodes().len().max(2) as f64).log2().ceil() as u64 + 2,
        Counting::Candidates,
        settings.quiet,
    );
    bar.set_message(format!("reference run on {}", settings.compare_ep));
    let reference_run = subject.run_reference(&runtime, settings)?;
    let mut values: HashMap<_, _> = reference_run.values.into_iter().collect();
    for (name, tensor) in &reference_run.bound.tensors {
        values.insert(name.clone(), crate::tensor::HostValue::Tensor(tensor.clone()));
    }
    let on_checked = |t: &Tried| {
        bar.inc(1);
        if !settings.quiet {
            bar.suspend(|| crate::errln!("{}", report::tried_line(t, &subject.graph)));
        }
    };
    let options = candidate_options(settings, &subject)?;
    let check_candidate = |dir: &Path, request: &PlanRequest| check_candidate(&cases, &options, dir, request);
    let (under_test, on_reference) = candidate_requests(&settings.request, &settings.compare_ep);
    let args = (test_flags(&under_test, settings), test_flags(&on_reference, settings));
    let reducer = Reducer {
        graph: &subject.graph,
        values,
        remedies: remedies(&under_test, subject.preflight.plan.uses_directml()),
        under_test,
        reference: on_reference,
        time_limit: settings.time_limit,
        work: staging.path(),
        check: &check_candidate,
        on_checked: &on_checked,
    };
    if settings.each_op {
        let checks = reducer.each_op().with_context(|| format!("model {}", subject.named))?;
        bar.finish_and_clear();
        let survey = report::OpSurvey {
            schema: report::EACH_OP_SCHEMA,
            model: settings.model.clone(),
            made: subject.made_as.clone(),
            ep_args: args.0.iter().map(|a| a.to_string_lossy().into_owned()).collect(),
            reference: reference_run.device.describe(),
            ops: checks,
            seconds: started.elapsed().as_secs_f64(),
        };
        return print_survey(settings, &survey);
    }
    let reduction = reducer.reduce();
    bar.finish_and_clear();
    let reduction = match reduction {
        Ok(reduction) => reduction,
        // Ctrl-C before there was a failing model to keep: nothing is written.
        Err(e) if crate::interrupt::interrupted() => {
            crate::errln!("dmlrun: model {}: {}", subject.named, crate::exit::one_line(&e));
            return Ok(ExitStatus::Interrupted);
        }
        Err(e) => return Err(e.context(format!("model {}", subject.named))),
    };
    let report = reduce_report(settings, subject.made_as, args, reduction, reference_run.device, started);
    let case = report.reduction.case.clone();
    crate::report::write_json(&case.join("reduce.json"), &report, "reduce.json")?;
    install(&case, &settings.output)?;
    print_reduction(settings, &report)
}

/// A candidate is checked as `dmlrun test` checks a case: against the reference's values in its
/// test data, within the tolerance, and (those values being the reference's) with no second run
/// to blame.
fn candidate_check(settings: &ReduceSettings) -> CaseCheck {
    CaseCheck {
        reference: None,
        tolerances: Tolerances::given(settings.tolerance, []),
        check_finite: false,
        load: settings.load.clone(),
        blame: false,
    }
}

/// The model reduce works on: the user's, or the one dmlrun made of it (rewritten, converted to
/// float16), read and planned, with the name a person reads for it and the reference's request.
struct Subject {
    /// Held while reduce works: the made model's files.
    _made: Option<engine::MadeModel>,
    /// What was done to the user's model, where something was.
    made_as: Option<String>,
    /// The user's model and what was done to it, never the temporary file.
    named: String,
    preflight: Preflight,
    graph: Graph,
    reference: PlanRequest,
}

impl Subject {
    fn open(runtime: &crate::runtime::Runtime, settings: &ReduceSettings) -> Result<Subject> {
        let request = &settings.request;
        check_eps_differ(settings, runtime)?;
        // What the EP under test would refuse outright (no DirectML here, no such adapter) is
        // said before any work.
        engine::check_request(runtime, request)?;
        let preflight = Preflight::read(runtime, &settings.model, request, Scope::Alone)?;
        // The reference runs the model as ONNX Runtime does by default: the options under test
        // (--session-config, --ep-option) are the EP under test's alone.
        let reference = PlanRequest {
            session_config: Vec::new(),
            ep_options: Vec::new(),
            ..preflight.request.reference(settings.compare_ep.clone(), None)
        };
        let made = made_model(runtime, settings, &preflight, &reference)?;
        let made_as = made.as_ref().map(|_| engine::made_label(&preflight.plan));
        let named = match &made_as {
            Some(how) => format!("{} ({how})", settings.model.display()),
            None => settings.model.display().to_string(),
        };
        let preflight = match &made {
            Some(made) => {
                let as_made = PlanRequest {
                    precision: Precision::Fp32,
                    keep_fp32: Vec::new(),
                    quantization: Default::default(),
                    rewrites: Vec::new(),
                    ..request.clone()
                };
                Preflight::read(runtime, made.path(), &as_made, Scope::Alone)?
            }
            None => preflight,
        };
        let graph = Graph::read(&preflight.model_path)?;
        Ok(Subject { _made: made, made_as, named, preflight, graph, reference })
    }

    /// The reference EP's run of the inputs: the values every candidate is checked against.
    fn run_reference(
        &self,
        runtime: &crate::runtime::Runtime,
        settings: &ReduceSettings,
    ) -> Result<diagnose::ReferenceRun> {
        let compare_ep = &settings.compare_ep;
        let inputs = self.preflight.bind(runtime, &settings.inputs, &settings.load, false);
        let run = inputs
            .and_then(|inputs| diagnose::reference_run(runtime, &self.graph, &self.reference, inputs))
            .with_context(|| {
                format!(
                    "model {}: the reference EP (--compare-ep {compare_ep}) cannot run it with these inputs, so there is nothing to compare a candidate with",
                    self.named
                )
            })?;
        // Said once the inputs ran: a model that fails anyway fails in one line.
        if settings.generated_by_default && settings.inputs.is_empty() && !settings.quiet {
            crate::errln!("{}", crate::inputs::synthetic::generated_by_default("reduce"));
        }
        Ok(run)
    }
}

/// A candidate's check is an item of the one batch runner, alone in a child process held to
/// --candidate-timeout, so an abort or a hang in the EP costs the candidate, not the reduction.
fn candidate_options(settings: &ReduceSettings, subject: &Subject) -> Result<batch::Options> {
    let placement = PlacementRequest {
        isolation: Isolation::Process,
        timeout: Some(settings.candidate_timeout),
        default_limit: settings.candidate_timeout,
        directml: false,
        print_plan: false,
    }
    .resolve()?;
    Ok(batch::Options::new(placement, subject.preflight.plan.uses_directml(), (1, 1), Counting::Candidates, true))
}

/// Checks the one test case in `dir` with `request`, in a child process.
fn check_candidate(
    cases: &Cases<'_>,
    options: &batch::Options,
    dir: &Path,
    request: &PlanRequest,
) -> Result<(Outcome, Option<f64>)> {
    let found = testdata::discover(&[dir.to_path_buf()])?.cases;
    anyhow::ensure!(found.len() == 1, "{}: a candidate is one test case, found {}", dir.display(), found.len());
    let entries = cases::preflight(cases.runtime, request, found, None)?;
    let mut checked = None;
    batch::run(cases, entries, options, &mut |_, result| {
        checked = Some(result);
        Ok(())
    })?;
    // None: Ctrl-C came before the check started.
    Ok(match checked {
        Some(result) => {
            let differing = result.mismatches.iter().map(|m| m.output.clone()).collect();
            (Outcome::of_case(result.status, result.reason.as_deref(), differing), result.max_abs_diff)
        }
        None => (Outcome::Interrupted, None),
    })
}

/// The report of a reduction: the `dmlrun test` flags that reproduce its checks (a hang's with
/// the limit it was found with).
fn reduce_report(
    settings: &ReduceSettings,
    made_as: Option<String>,
    (ep_args, reference_args): (Vec<OsString>, Vec<OsString>),
    reduction: crate::reduce::Reduction,
    reference: crate::runtime::engine::DeviceReport,
    started: Instant,
) -> ReduceReport {
    let mut under_test = ep_args;
    if reduction.mode == crate::reduce::Mode::Hang {
        under_test.push("--timeout".into());
        under_test.push(humantime::format_duration(settings.candidate_timeout).to_string().into());
    }
    ReduceReport::new(
        (&settings.model, made_as),
        &settings.output,
        settings.request.ep.to_string(),
        (&under_test, &reference_args),
        reduction,
        reference,
        started.elapsed(),
    )
}

/// reduce needs one EP that fails the model and one that runs it: the same EP with the same
/// options twice is refused before any work.
fn check_eps_differ(settings: &ReduceSettings, runtime: &crate::runtime::Runtime) -> Result<()> {
    let (request, compare_ep) = (&settings.request, &settings.compare_ep);
    let directml_offered = runtime.has_provider(crate::runtime::plan::DML_PROVIDER);
    if request.ep.lands_as(compare_ep, directml_offered) && !settings.own_options {
        bail!(
            "--ep {} and --compare-ep {compare_ep} are the same execution provider here, with the same options: reduce needs one that fails the model and one that runs it",
            request.ep,
        );
    }
    Ok(())
}

/// --decompose, --gemm-zero-bias, --precision fp16|int4|int8: the model reduced is the one the
/// engine makes for the session (checked by runs of the inputs on the reference EP), made here
/// once; both EPs then run that model. `None` where the model is reduced as it is.
fn made_model(
    runtime: &crate::runtime::Runtime,
    settings: &ReduceSettings,
    preflight: &Preflight,
    reference: &PlanRequest,
) -> Result<Option<engine::MadeModel>> {
    let plan = &preflight.plan;
    if plan.precision == Precision::Fp32 && plan.rewrites.is_empty() {
        return Ok(None);
    }
    // The inputs bound as run binds them (the preflight's signatures, the plan finished on them).
    let bound = preflight.bind(runtime, &settings.inputs, &settings.load, false)?;
    let check = engine::Check::On(reference, &bound.prepared);
    let made =
        engine::made_for_session(runtime, preflight, plan, check, &mut |w| crate::errln!("reduce: warning: {w}"))?;
    if let Some(rewritten) = made.rewrite() {
        crate::errln!("reduce: rewritten: {}", rewritten.describe());
    }
    if let Some(conversion) = made.describe_conversion() {
        crate::errln!("reduce: --precision {}: {conversion}", plan.precision);
    }
    Ok(made.is_made().then_some(made))
}

/// The candidates' requests: the EP under test with its adapter and options, and the reference
/// as `dmlrun test --ep` alone would run it.
fn candidate_requests(
    request: &PlanRequest,
    compare_ep: &crate::runtime::plan::EpRequest,
) -> (PlanRequest, PlanRequest) {
    let under_test = PlanRequest {
        ep: request.ep.clone(),
        device: request.device,
        performance_preference: request.performance_preference,
        device_filter: request.device_filter,
        optimization_level: request.optimization_level,
        dml_disable_metacommands: request.dml_disable_metacommands,
        ep_options: request.ep_options.clone(),
        session_config: request.session_config.clone(),
        log_level: request.log_level,
        ..PlanRequest::default()
    };
    let on_reference = PlanRequest { ep: compare_ep.clone(), log_level: request.log_level, ..PlanRequest::default() };
    (under_test, on_reference)
}

/// --each-op's survey, to --json and as text; exit 1 where an operator failed.
fn print_survey(settings: &ReduceSettings, survey: &report::OpSurvey) -> Result<ExitStatus> {
    let mut human = true;
    if let Some(path) = &settings.json {
        human = !crate::report::write_json(path, survey, "--json")?;
    }
    if human {
        crate::out!("{}", report::each_op_human(survey));
    }
    let any_failed = survey.ops.iter().any(|c| c.outcome != crate::reduce::candidate::Outcome::Pass);
    Ok(ExitStatus::of_checks(any_failed, crate::interrupt::interrupted()))
}

/// The reduction's report, to --json and as text, and where it stopped short of a minimal model
/// (Ctrl-C, --timeout), what the written model is.
fn print_reduction(settings: &ReduceSettings, report: &ReduceReport) -> Result<ExitStatus> {
    let mut human = true;
    if let Some(path) = &settings.json {
        human = !crate::report::write_json(path, report, "--json")?;
    }
    if human {
        crate::out!("{}", report::human(report));
    }
    let reduction = &report.reduction;
    if !reduction.complete {
        let interrupted = crate::interrupt::interrupted();
        let stopped = match interrupted {
            true => "interrupted".to_string(),
            false => {
                format!("--timeout {} hit", humantime::format_duration(settings.time_limit.unwrap_or_default()))
            }
        };
        crate::errln!(
            "dmlrun: {stopped} after {} candidates: {} holds the smallest failing model found so far ({} of {} nodes), not necessarily a minimal one",
            reduction.tried.len(),
            settings.output.display(),
            reduction.nodes_after,
            reduction.nodes_before
        );
        return Ok(ExitStatus::of_checks(true, interrupted));
    }
    Ok(ExitStatus::Success)
}

/// A temporary folder beside `output`, where candidates are written and the kept one is moved
/// into place from: checked first, so a folder that cannot be written costs no work, and
/// removed with everything in it if the reduction stops.
fn staging_folder(output: &Path) -> Result<tempfile::TempDir> {
    crate::fsutil::check_free_folder(output).with_context(|| format!("--output {}", output.display()))?;
    crate::fsutil::temp_dir_beside(output, ".dmlrun-reduce-").with_context(|| format!("--output {}", output.display()))
}

/// Moves the kept candidate to `output` (an empty folder there is replaced).
fn install(case: &Path, output: &Path) -> Result<()> {
    if output.is_dir() {
        std::fs::remove_dir(output).with_context(|| format!("--output {}", output.display()))?;
    }
    std::fs::rename(case, output)
        .with_context(|| format!("--output {}: moving the minimal model there", output.display()))
}

/// The `dmlrun test` arguments that reproduce a candidate's check with `request` (the EP under
/// test's or the reference's), for the report: its EP, adapter and options, the same ONNX Runtime,
/// plugin libraries and logging as this run, and the tolerance.
fn test_flags(request: &PlanRequest, settings: &ReduceSettings) -> Vec<OsString> {
    let r = request;
    let mut out: Vec<OsString> = vec!["--ep".into(), r.ep.to_string().into()];
    let mut flag = |name: &str, value: String| {
        out.push(name.into());
        out.push(value.into());
    };
    if let Some(d) = r.device {
        flag("--device", d.to_string());
    }
    if let Some(p) = r.performance_preference {
        flag("--dml-performance-preference", p.flag_name().to_string());
    }
    if let Some(f) = r.device_filter {
        flag("--dml-device-filter", f.flag_name().to_string());
    }
    for (k, v) in &r.ep_options {
        flag("--ep-option", format!("{k}={v}"));
    }
    for (k, v) in &r.session_config {
        flag("--session-config", format!("{k}={v}"));
    }
    if r.optimization_level != crate::runtime::plan::OptimizationLevel::All {
        flag("--opt-level", r.optimization_level.flag_name().to_string());
    }
    if r.dml_disable_metacommands {
        out.push("--dml-disable-metacommands".into());
    }
    let ort = &settings.ort;
    let mut flag = |name: &str, value: String| {
        out.push(name.into());
        out.push(value.into());
    };
    if let Some(lib) = &ort.library {
        flag("--ort-lib", lib.display().to_string());
    }
    for lib in &ort.ep_libraries {
        flag("--ep-library", format!("{}={}", lib.name, lib.path.display()));
    }
    if ort.log_level != crate::runtime::OrtLogLevel::Warning {
        flag("--ort-log-level", ort.log_level.flag_name().to_string());
    }
    flag("--rtol", settings.tolerance.rtol.to_string());
    flag("--atol", settings.tolerance.atol.to_string());
    out
}

/// The options tried on the minimal model once it is found, those the user has not set already:
/// DirectML's graph fusion and metacommands off, and ONNX Runtime's graph optimisations off.
/// Each is the flag as the report says it, and the request under test with it.
fn remedies(request: &PlanRequest, directml: bool) -> Vec<(String, PlanRequest)> {
    use crate::runtime::plan::{OptimizationLevel, DML_DISABLE_FUSION};
    let mut out = Vec::new();
    if directml {
        if !request.session_config.iter().any(|(k, _)| k == DML_DISABLE_FUSION) {
            let mut fusion_off = request.clone();
            fusion_off.session_config.push((DML_DISABLE_FUSION.to_string(), "1".to_string()));
            out.push((format!("--session-config {DML_DISABLE_FUSION}=1"), fusion_off));
        }
        if !request.dml_disable_metacommands {
            let metacommands_off = PlanRequest { dml_disable_metacommands: true, ..request.clone() };
            out.push(("--dml-disable-metacommands".to_string(), metacommands_off));
        }
    }
    if request.optimization_level == OptimizationLevel::All {
        let optimisations_off = PlanRequest { optimization_level: OptimizationLevel::Disable, ..request.clone() };
        out.push(("--opt-level disable".to_string(), optimisations_off));
    }
    out
}
