//! An ONNX test case run and checked against its expected outputs (or the reference EP's): the
//! item of `dmlrun test`'s batch, and how `dmlrun reduce` checks each candidate, in the one
//! batch runner's children with its time limit and Ctrl-C.

use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::batch::{Batch, Ended, Entry};
use crate::compare::{self, Mismatch, Tolerances};
use crate::formats::model::{ModelFile, ModelInfo, ValueKind};
use crate::inputs::LoadOptions;
use crate::report::validation::{CaseResult, Status};
use crate::runtime::engine::diagnose::EpFailure;
use crate::runtime::engine::{self, Preflight, PreparedInputs, SavedModels, Scope};
use crate::runtime::plan::{self, EpRequest, PlanRequest, ReferenceRequest};
use crate::runtime::Runtime;
use crate::suites::shard::ShardInfo;
use crate::suites::testdata::{self, Case};
use crate::tensor::HostValue;

/// How a case is checked: what it is compared with and how closely, how inputs no file gives
/// are made, and what a failure is followed by.
#[derive(Debug, Clone)]
pub struct CaseCheck {
    /// `--compare-ep`: the reference EP's outputs instead of the expected ones.
    pub reference: Option<ReferenceRequest>,
    pub tolerances: Tolerances,
    pub check_finite: bool,
    /// How a model without test data gets its inputs, and the size limits of every case's.
    pub load: LoadOptions,
    /// Run a case that fails on an EP other than the CPU on the reference EP, to say whose
    /// failure it is (off for `dmlrun reduce`'s candidates, whose reference values it has).
    pub blame: bool,
}

impl CaseCheck {
    /// The reference run's request for a case whose own request is `request`, with --compare-ep.
    pub fn reference_request(&self, request: &PlanRequest) -> Option<PlanRequest> {
        self.reference.as_ref().map(|r| r.for_request(request))
    }
}

/// A case with its preflight: what a child is handed.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct CaseItem {
    pub case: Case,
    pub preflight: Preflight,
}

/// Cases as a batch: how one runs and how its result reads.
pub struct Cases<'a> {
    pub runtime: &'a Runtime,
    pub check: &'a CaseCheck,
    /// `--save-models`: where each case's model is written as its session ran it.
    pub saved: Option<&'a SavedModels>,
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
        run_case(self, &item.case, &item.preflight)
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

/// Each case's model read once and the flags resolved against it. A flag that fits none of the
/// models read is the run's usage error; one that does not fit a case (or a case that cannot be
/// read) is that case's error, and the others run.
pub fn preflight(
    runtime: &Runtime,
    request: &PlanRequest,
    cases: Vec<Case>,
    shard: Option<&ShardInfo>,
) -> Result<Vec<Entry<CaseItem, CaseResult>>> {
    let read: Vec<Result<ModelFile>> = cases.iter().map(read_case_model).collect();
    let models: Vec<&ModelInfo> = read.iter().flatten().map(|m| &m.info).collect();
    if let Some(warning) = plan::check_flags_fit_shard(request, &models, shard)? {
        crate::errln!("warning: {warning}");
    }
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

fn run_case(cases: &Cases, case: &Case, preflight: &Preflight) -> CaseResult {
    let started = Instant::now();
    let mut result =
        CaseResult { warnings: preflight.not_applied.clone(), ..CaseResult::passing(&case.name, case.data_sets.len()) };
    let checked = check_case(cases, case, preflight, &mut result);
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
    cases: &Cases,
    case: &Case,
    preflight: &Preflight,
    result: &mut CaseResult,
) -> Result<(Vec<Mismatch>, Option<f64>)> {
    let (runtime, check) = (cases.runtime, cases.check);
    // Every data set is read before the session exists: with DirectML, the shapes they agree on
    // fix the model's free dimensions.
    let info = preflight.info();
    let mut plan = preflight.plan.clone();
    let (sets, generated) = read_data_sets(cases, case, preflight, !plan.dimension_overrides.is_empty())?;
    let shapes = agreed_shapes(sets.iter().map(|(_, name, inputs)| (name.as_str(), inputs.as_slice())));
    engine::finish_plan(runtime, &mut plan, info, &preflight.request, &shapes, false)?;
    let reference_request = check.reference_request(&preflight.request);
    // The case's model made (--decompose, --gemm-zero-bias, --precision fp16, int4, int8), each
    // step checked on the CPU EP with its first data set, and the session opened on it.
    let Some((_, _, first)) = sets.first() else { bail!("no data set to run") };
    let first = PreparedInputs::from_values(runtime, first, info)?;
    let check_on = preflight.request.reference(EpRequest::Cpu, None);
    let explaining = engine::Explaining {
        runtime,
        preflight,
        reference: reference_request.as_ref(),
        bound: generated.as_ref(),
        blame: check.blame,
    };
    let check_made = engine::Check::On(&check_on, &first);
    let mut opened = engine::open_made(explaining, &plan, check_made, &first, &mut |w| result.warnings.push(w))?;
    result.rewrite = opened.made.rewrite();
    result.placement.clone_from(&opened.model.device.placement);
    result.off_directml.clone_from(&opened.model.device.off_directml);
    let mut reference = match &reference_request {
        Some(r) => Some(engine::load(runtime, &case.model, &opened.model.info, r).context("reference session")?),
        None => None,
    };
    let model = &opened.model;
    let output_names = model.output_names.clone();
    let output_kinds: Vec<ValueKind> = model
        .output_names
        .iter()
        .map(|n| model.info.outputs.iter().find(|o| &o.name == n).map(|o| o.kind).unwrap_or_default())
        .collect();
    let mut mismatches = Vec::new();
    let mut max_abs_diff: Option<f64> = None;
    for (set, set_name, inputs) in &sets {
        // The step a hang is named by: the run, on which inputs (not the inputs themselves).
        crate::stage::step(format!("the run on {set_name}"));
        let prepared = PreparedInputs::from_values(runtime, inputs, &opened.model.info)?;
        let actual = opened.run(&prepared)?;
        // --precision fp16: the first data set's outputs against the float32 model's, as run reports them.
        if result.precision.is_none() {
            result.precision = opened.made.precision_report(&actual);
        }
        let expected = match (&mut reference, set) {
            (Some(r), _) => {
                crate::stage::step(format!("the reference run on {set_name}"));
                engine::run_to_host_values(&mut r.session, &prepared).context("reference run")?
            }
            (None, None) => bail!("generated inputs need a reference run (--compare-ep)"),
            (None, Some(set)) => {
                let files = testdata::read_values(set, "output", &output_kinds, check.load.max_tensor_bytes)?;
                testdata::bind_by_name_or_position(files, &output_names)
                    .with_context(|| format!("{set_name} outputs"))?
            }
        };
        compare_set(cases, case, set_name, &expected, &actual, (&mut mismatches, &mut max_abs_diff))?;
    }
    if let Some(saved) = cases.saved {
        save_model(saved, case, preflight, &opened.made, result)?;
    }
    Ok((mismatches, max_abs_diff))
}

/// Every data set of a case read and bound to the model's inputs by name or position, or where
/// the case has none, inputs generated as bench makes them (with how they were made, for a
/// failure to say). A `--dim` the data contradicts is said as the flag's, not as ONNX Runtime's.
fn read_data_sets<'c>(
    cases: &Cases,
    case: &'c Case,
    preflight: &Preflight,
    dims_fixed: bool,
) -> Result<(Vec<DataSet<'c>>, Option<crate::inputs::BoundInputs>)> {
    let (check, info) = (cases.check, preflight.info());
    let input_names: Vec<String> = info.inputs.iter().map(|i| i.name.clone()).collect();
    // File K of a data set has the type of the model's K-th input (or output) as the model file declares it.
    let input_kinds: Vec<ValueKind> = info.inputs.iter().map(|i| i.kind).collect();
    let signatures = preflight.input_signatures();
    let mut sets = Vec::new();
    for set in &case.data_sets {
        let set_name = set.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let inputs = testdata::read_values(set, "input", &input_kinds, check.load.max_tensor_bytes)?;
        let inputs =
            testdata::bind_by_name_or_position(inputs, &input_names).with_context(|| format!("{set_name} inputs"))?;
        // A --dim the data contradicts is said as the flag's, not as ONNX Runtime's "Expected: 3".
        if dims_fixed {
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
        if check.reference.is_none() {
            bail!("no test_data_set_* folder, and no --compare-ep to check it against on generated inputs");
        }
        let bound = crate::inputs::bind(&[], &signatures, &check.load)?;
        let inputs = bound.tensors.iter().map(|(name, t)| (name.clone(), HostValue::Tensor(t.clone()))).collect();
        sets.push((None, "generated inputs".to_string(), inputs));
        // A failure on them says how they were made and how to make others, as bench's does.
        generated = Some(bound);
    }
    Ok((sets, generated))
}

/// A data set's folder (none for generated inputs), its name, and its inputs by name.
type DataSet<'c> = (Option<&'c std::path::PathBuf>, String, Vec<(String, HostValue)>);

/// One data set's outputs against what was expected of them: the mismatches at the case's
/// tolerance, the largest float difference, and with `--check-finite` the NaNs and Infs.
fn compare_set(
    cases: &Cases,
    case: &Case,
    set_name: &str,
    expected: &[(String, HostValue)],
    actual: &[(String, HostValue)],
    (mismatches, max_abs_diff): (&mut Vec<Mismatch>, &mut Option<f64>),
) -> Result<()> {
    let check = cases.check;
    let tol_for = |output: &str| check.tolerances.for_output(output, case.atol, case.rtol);
    for (name, want) in expected {
        let Some((_, got)) = actual.iter().find(|(n, _)| n == name) else {
            bail!("{set_name}: the model produced no output '{name}'");
        };
        if let (HostValue::Tensor(want), HostValue::Tensor(got)) = (want, got) {
            if let Some(d) = compare::difference(name, want, got) {
                *max_abs_diff = Some(max_abs_diff.map_or(d.max_abs, |m| m.max(d.max_abs)));
            }
        }
        for mut m in compare::compare_values(name, want, got, tol_for(name)) {
            if case.data_sets.len() > 1 {
                m.reason = format!("{set_name}: {}", m.reason);
            }
            mismatches.push(m);
        }
    }
    if check.check_finite {
        for (name, value) in actual {
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
    Ok(())
}

/// `--save-models`: the model as the session ran it, read while the rewritten or converted
/// file exists; one that cannot be written is a warning on the case, not its verdict.
fn save_model(
    saved: &SavedModels,
    case: &Case,
    preflight: &Preflight,
    made: &engine::MadeModel,
    result: &mut CaseResult,
) -> Result<()> {
    let made = made.bytes()?;
    let saved = saved.save(
        &case.name,
        &case.model,
        preflight,
        made.as_deref(),
        (result.rewrite.as_ref(), result.precision.as_ref()),
    );
    if let Err(e) = saved {
        result.warnings.push(format!("--save-models: {}", crate::exit::one_line(&e)));
    }
    Ok(())
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
