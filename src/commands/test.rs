//! `dmlrun test PATH…`: run ONNX test-data folders and compare outputs, for CI.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::batch::{self, Batch, Ended, Entry};
use crate::cli::TestArgs;
use crate::compare::{self, Mismatch};
use crate::exit::ExitStatus;
use crate::formats::model::{ModelFile, ModelInfo, ValueKind};
use crate::isolation::PlacementRequest;
use crate::report::export::Exports;
use crate::report::github;
use crate::report::validation::{expectations, human, CaseResult, Status, Summary, TestReport, TEST_SCHEMA};
use crate::runtime::engine::diagnose::{self, EpFailure, Stage};
use crate::runtime::engine::{self, Preflight, PreparedInputs, Scope};
use crate::runtime::plan::{self, EpRequest, PlanRequest, Precision, SessionPlan};
use crate::runtime::Runtime;
use crate::settings::TestSettings;
use crate::suites::testdata::{self, Case};
use crate::tensor::HostValue;

/// Cases per child process under isolation: few enough that a child's death re-runs little,
/// many enough that process starts (seconds each under Wine) stay a small share.
const CASES_PER_CHILD: usize = 100;

/// A case with its preflight: what a child is handed.
#[derive(serde::Serialize, serde::Deserialize)]
struct CaseItem {
    case: Case,
    preflight: Preflight,
}

/// `test`'s part of the batch: how one case runs and how its result reads.
struct Cases<'a> {
    runtime: &'a Runtime,
    settings: &'a TestSettings,
}

impl Batch for Cases<'_> {
    type Item = CaseItem;
    type Outcome = CaseResult;

    fn name<'a>(&self, item: &'a CaseItem) -> &'a str {
        &item.case.name
    }

    fn run(&self, item: &CaseItem, _bars: &indicatif::MultiProgress) -> CaseResult {
        for note in &item.preflight.not_applied {
            crate::errln!("warning: {}: {note}", item.case.name);
        }
        run_case(self.runtime, self.settings, &item.case, &item.preflight)
    }

    fn ended(&self, item: &CaseItem, end: Ended) -> CaseResult {
        let (status, reason) = match end {
            Ended::Crash(how) => (Status::Crash, how),
            Ended::Timeout(how) => (Status::Timeout, how),
            Ended::Interrupted(how) => (Status::Interrupted, how),
        };
        let mut result = CaseResult::ended(&item.case.name, status, reason, item.case.data_sets.len());
        result.warnings.clone_from(&item.preflight.not_applied);
        result
    }

    fn said(&self, result: &CaseResult, ran_here: bool) -> Vec<String> {
        if ran_here {
            return Vec::new();
        }
        result.warnings.iter().map(|w| format!("warning: {}: {w}", result.name)).collect()
    }
}

pub fn execute(args: &TestArgs) -> Result<ExitStatus> {
    if let Some(progress) = &args.isolation.progress {
        crate::stage::report_to(progress);
    }
    test(&TestSettings::resolve(args)?)
}

fn test(settings: &TestSettings) -> Result<ExitStatus> {
    let runtime = settings.ort.load()?;
    let cases = Cases { runtime: &runtime, settings };
    if let Some(child) = &settings.child {
        // An isolation child runs the cases its parent resolved, and nothing else.
        batch::serve_parent(&cases, child)?;
        return Ok(ExitStatus::Success);
    }
    // Every export checked before any case runs: a typo in a folder costs nothing.
    let to = &settings.exports;
    let mut exports = Exports::checked(crate::report::test_exports(
        to.json.as_deref(),
        to.junit.as_deref(),
        to.html.as_deref(),
        to.write_expect.as_deref(),
    ))?;
    let testdata::Discovery { cases: found, skipped } = testdata::discover(&settings.paths)?;
    // The shard first, on the whole sorted list, so every shard of every machine agrees.
    let (found, shard) = batch::shard(found, settings.shard.as_ref(), |c| c.name.as_str());
    let files: BTreeMap<String, std::path::PathBuf> = found.iter().map(|c| (c.name.clone(), c.model.clone())).collect();
    let expectations = match &settings.expect {
        Some(path) => expectations::read(path)?,
        None => BTreeMap::new(),
    };
    engine::check_flags(&runtime, &settings.request)?;
    // What would fail every case (DirectML missing, an adapter that does not exist) is said once.
    engine::check_request(&runtime, &settings.request)?;
    // DirectML sessions share one device queue: never run them concurrently.
    let directml = engine::plans_directml(&runtime, &settings.request)
        || settings.reference_request(&settings.request).is_some_and(|r| engine::plans_directml(&runtime, &r));
    let placement = PlacementRequest { directml, print_plan: false, ..settings.placement }.resolve()?;
    let entries = preflight_cases(&runtime, &settings.request, found)?;
    let options = batch::Options::new(placement, directml, (settings.jobs, CASES_PER_CHILD), "cases", settings.quiet);
    let mut report = TestReport {
        schema: TEST_SCHEMA.to_string(),
        dmlrun_version: env!("CARGO_PKG_VERSION").to_string(),
        onnxruntime: runtime.library.clone(),
        plan_request: describe_request(&settings.request),
        reference: settings.reference_request(&settings.request).as_ref().map(describe_request),
        tolerance: Some(settings.tolerances.default),
        summary: Summary::default(),
        cases: Vec::new(),
        skipped,
        interrupted: false,
        shard,
        isolation: placement,
    };
    let total = entries.len();
    let started = Instant::now();
    let mut results: Vec<Option<CaseResult>> = (0..total).map(|_| None).collect();
    batch::run(&cases, entries, &options, &mut |index, result| {
        results[index] = Some(result);
        if exports.due() {
            report.settle(&results, &expectations, started.elapsed());
            exports.rewrite(&report)?;
        }
        Ok(())
    })?;
    report.interrupted = crate::interrupt::interrupted();
    report.settle(&results, &expectations, started.elapsed());
    let json_on_stdout = exports.finish(&report)?;
    let human = human::render(&report, settings.verbose, settings.quiet, settings.expect.as_deref());
    // With JSON on stdout, the human summary moves to stderr.
    if json_on_stdout {
        crate::err!("{human}");
    } else {
        crate::out!("{human}");
    }
    if report.interrupted {
        crate::errln!("dmlrun: interrupted after {} of {total} cases; the report covers those", report.cases.len());
    }
    if let Some(target) = &settings.github {
        let outcome = github::of_test(&report, &files, settings.expect.is_some(), target.workspace.as_deref());
        github::publish(&outcome, target)?;
    }
    let failed =
        if settings.expect.is_some() { !report.summary.unexpected.is_empty() } else { report.summary.not_passed() > 0 };
    Ok(ExitStatus::of_checks(failed, report.interrupted))
}

/// Each case's model read once and the flags resolved against it. A flag that fits none of the
/// models read is the run's usage error; one that does not fit a case (or a case that cannot be
/// read) is that case's error, and the others run.
fn preflight_cases(
    runtime: &Runtime,
    request: &PlanRequest,
    cases: Vec<Case>,
) -> Result<Vec<Entry<CaseItem, CaseResult>>> {
    let read: Vec<Result<ModelFile>> = cases.iter().map(read_case_model).collect();
    let models: Vec<&ModelInfo> = read.iter().flatten().map(|m| &m.info).collect();
    plan::check_flags_fit_some(request, &models)?;
    Ok(cases
        .into_iter()
        .zip(read)
        .map(|(case, model)| {
            match model.and_then(|model| Preflight::of(runtime, &case.model, model, request, Scope::OneOfMany)) {
                Ok(preflight) => Entry::Run(CaseItem { case, preflight }),
                Err(e) => Entry::Decided(CaseResult::ended(
                    &case.name,
                    Status::Error,
                    crate::exit::one_line(&e),
                    case.data_sets.len(),
                )),
            }
        })
        .collect())
}

/// Reads a case's model, as one of the run's models.
fn read_case_model(case: &Case) -> Result<ModelFile> {
    if !case.model.is_file() {
        bail!("has test_data_set_* folders but no model.onnx");
    }
    ModelFile::read(&case.model)
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
    if r.precision == Precision::Fp16 {
        parts.push("precision fp16".to_string());
    }
    parts.join(", ")
}

fn run_case(runtime: &Runtime, settings: &TestSettings, case: &Case, preflight: &Preflight) -> CaseResult {
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
        warnings: preflight.not_applied.clone(),
        rewrite: None,
        precision: None,
    };
    let checked = check_case(runtime, settings, case, preflight, &mut result);
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
            result.reason = Some(crate::interrupt::interrupted_in(&crate::stage::current().step));
        }
        Err(e) => {
            result.status = Status::Error;
            if let Some(failure) = e.downcast_ref::<EpFailure>() {
                result.blame = Some(failure.blame);
                result.node = failure.node_names();
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
    runtime: &Runtime,
    settings: &TestSettings,
    case: &Case,
    preflight: &Preflight,
    result: &mut CaseResult,
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
        let inputs = testdata::read_values(set, "input", &input_kinds, settings.load.max_tensor_bytes)?;
        let inputs =
            testdata::bind_by_name_or_position(inputs, &input_names).with_context(|| format!("{set_name} inputs"))?;
        // A --dim the data contradicts is said as the flag's, not as ONNX Runtime's "Expected: 3".
        if !plan.dimension_overrides.is_empty() {
            let signatures = preflight.input_signatures();
            for (name, value) in &inputs {
                if let (HostValue::Tensor(tensor), Some(sig)) = (value, signatures.iter().find(|s| &s.name == name)) {
                    crate::inputs::check_tensor(sig, tensor, &[], &mut crate::inputs::Symbols::new())
                        .with_context(|| format!("{set_name} inputs"))?;
                }
            }
        }
        sets.push((Some(set), set_name, inputs));
    }
    let mut generated = None;
    if sets.is_empty() {
        // A model without test data is checked against the reference EP, on inputs made as
        // bench makes them (--generate, --seed, --free-dim-size, --generate-range).
        if settings.reference.is_none() {
            bail!("no test_data_set_* folder, and no --compare-ep to check it against on generated inputs");
        }
        let bound = crate::inputs::bind(&[], &preflight.input_signatures(), &settings.load)?;
        let inputs = bound.tensors.iter().map(|(name, t)| (name.clone(), HostValue::Tensor(t.clone()))).collect();
        sets.push((None, "generated inputs".to_string(), inputs));
        // A failure on them says how they were made and how to make others, as bench's does.
        generated = Some(bound);
    }
    let shapes = agreed_shapes(sets.iter().map(|(_, name, inputs)| (name.as_str(), inputs.as_slice())));
    engine::finish_plan(runtime, &mut plan, info, &preflight.request, &shapes, false)?;
    let reference_request = settings.reference_request(&preflight.request);
    // The case's model rewritten (--decompose, --gemm-zero-bias), then converted (--precision
    // fp16), each checked on the reference EP with its first data set.
    let first_inputs = match sets.first() {
        Some((_, _, inputs)) => Some(PreparedInputs::from_values(runtime, inputs, info)?),
        None => None,
    };
    let check_on = preflight.request.reference(EpRequest::Cpu, None);
    let rewritten = match plan.rewrites.is_empty() {
        true => None,
        false => {
            let check = first_inputs.as_ref().map(|p| (&check_on, p));
            Some(engine::rewrite(runtime, &case.model, info, &plan.rewrites, check)?)
        }
    };
    result.rewrite = rewritten.as_ref().map(|r| r.report.clone());
    let source_model = rewritten.as_ref().map_or(case.model.as_path(), |r| r.path.as_path());
    let float16 = match (plan.precision, &first_inputs) {
        (Precision::Fp16, Some(prepared)) => {
            crate::stage::step("the float16 conversion");
            Some(engine::to_float16(runtime, source_model, preflight, &check_on, prepared)?)
        }
        _ => None,
    };
    let model_path = float16.as_ref().map_or(source_model, |f| f.path.as_path());
    // A failure on DirectML (or any EP but the CPU) is checked on the reference EP with the same
    // inputs, to say whose it is.
    let explain = |plan: &SessionPlan, stage: Stage, prepared: &PreparedInputs, e: anyhow::Error| {
        if !settings.blame {
            return e;
        }
        let failed = diagnose::Failed { model_path, info, plan, stage };
        let bound = generated.as_ref();
        let e = diagnose::explain(runtime, &failed, reference_request.as_ref(), &preflight.request, prepared, bound, e);
        match model_path == case.model {
            true => e,
            false => diagnose::say_made_as(e, model_path, &case.model, &engine::made_label(plan)),
        }
    };
    crate::stage::step("session creation");
    let mut model = match engine::open(runtime, model_path, info.clone(), preflight.model.read_time, plan.clone()) {
        Ok(model) => model,
        Err(e) => {
            let Some((_, _, inputs)) = sets.first() else { return Err(e) };
            let prepared = PreparedInputs::from_values(runtime, inputs, info)?;
            return Err(explain(&plan, Stage::SessionCreation, &prepared, e));
        }
    };
    result.placement.clone_from(&model.device.placement);
    let mut reference = match &reference_request {
        Some(r) => Some(engine::load(runtime, &case.model, &model.info, r).context("reference session")?),
        None => None,
    };
    let tol_for = |output: &str| settings.tolerances.for_output(output, case.atol, case.rtol);
    let output_kinds: Vec<ValueKind> = model
        .output_names
        .iter()
        .map(|n| model.info.outputs.iter().find(|o| &o.name == n).map(|o| o.kind).unwrap_or_default())
        .collect();
    let mut mismatches = Vec::new();
    let mut max_abs_diff: Option<f64> = None;
    for (set, set_name, inputs) in &sets {
        crate::stage::step(set_name.clone());
        let prepared = PreparedInputs::from_values(runtime, inputs, &model.info)?;
        let actual = engine::run_to_host_values(&mut model.session, &prepared)
            .map_err(|e| explain(&model.plan, Stage::Run, &prepared, e))?;
        // --precision fp16: the first data set's outputs against the float32 model's, as run reports them.
        if let (Some(f), None) = (&float16, &result.precision) {
            result.precision = Some(f.report(&actual));
        }
        let expected = match (&mut reference, set) {
            (Some(r), _) => engine::run_to_host_values(&mut r.session, &prepared).context("reference run")?,
            (None, None) => bail!("generated inputs need a reference run (--compare-ep)"),
            (None, Some(set)) => {
                let files = testdata::read_values(set, "output", &output_kinds, settings.load.max_tensor_bytes)?;
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
    if let Some(dir) = &settings.save_models {
        // The model as the session ran it, read while the rewritten or converted file exists;
        // one that cannot be written is a warning on the case, not its verdict.
        let made = match model_path != case.model {
            true => Some(std::fs::read(model_path).with_context(|| format!("reading {}", model_path.display()))?),
            false => None,
        };
        let saved = engine::saved_model(
            &case.model,
            preflight,
            made.as_deref(),
            result.rewrite.as_ref(),
            result.precision.as_ref(),
            settings.save_fixed_dims,
        )
        .and_then(|bytes| engine::write_saved(dir, &case.name, &bytes));
        if let Err(e) = saved {
            result.warnings.push(format!("--save-models: {}", crate::exit::one_line(&e)));
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
