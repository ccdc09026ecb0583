//! One model's preflight: the model file read once and the flags resolved against what it
//! declares, into one value every command takes and isolation children receive serialised,
//! so that nothing downstream resolves a flag again. Also what a whole run is checked for
//! before any model is read, and the plan's completion from the inputs about to be bound.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::formats::model::{ModelFile, ModelInfo, ValueKind};
use crate::inputs::{BoundInputs, DimSpec, InputKind, InputSignature, InputSpec, LoadOptions};
use crate::runtime::plan::{self, DimKey, PlanRequest, SessionPlan};
use crate::runtime::values::PreparedInputs;
use crate::runtime::Runtime;

/// How a flag that names what a model lacks (`--dim batch=8` on a model without `batch`) is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The run's only model: the flag is the run's error.
    Alone,
    /// One model of several (a bench folder, a test suite): the flag is left out for this model
    /// and said in its report; one that fits none of them is the run's error
    /// ([`plan::check_flags_fit_shard`]).
    OneOfMany,
}

/// A model's preflight: the file as dmlrun read it, the request as it applies to this model,
/// and the session plan resolved from it. DirectML's automatic dimension overrides are added
/// by [`finish_plan`] once the inputs are bound.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Preflight {
    #[serde(with = "crate::fsutil::any_path")]
    pub model_path: PathBuf,
    pub model: ModelFile,
    /// The request this model's plan was resolved from; the reference run and the diagnosis
    /// take theirs from it.
    pub request: PlanRequest,
    pub plan: SessionPlan,
    /// The flags of a run over several models that this model has no use for, left out for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_applied: Vec<String>,
}

impl Preflight {
    /// Reads the model at `model_path` and resolves `request` against it.
    pub fn read(runtime: &Runtime, model_path: &Path, request: &PlanRequest, scope: Scope) -> Result<Preflight> {
        let model = ModelFile::read(model_path)?;
        Preflight::of(runtime, model_path, model, request, scope)
    }

    /// Resolves `request` against a model already read.
    pub fn of(
        runtime: &Runtime,
        model_path: &Path,
        model: ModelFile,
        request: &PlanRequest,
        scope: Scope,
    ) -> Result<Preflight> {
        let (request, not_applied) = match scope {
            Scope::Alone => (request.clone(), Vec::new()),
            Scope::OneOfMany => request.fitted_to(&model.info),
        };
        Preflight::resolve(runtime, model_path, model, request, not_applied)
    }

    /// Resolves a request already fitted to the model (what [`PlanRequest::fitted_to`] left
    /// out of it is `not_applied`), for a command that adds flags of its own for this model
    /// after fitting the run's (a bench manifest's dims, which must fit).
    pub fn resolve(
        runtime: &Runtime,
        model_path: &Path,
        model: ModelFile,
        request: PlanRequest,
        not_applied: Vec<String>,
    ) -> Result<Preflight> {
        // Here, not in plan::resolve: the request's shared part, resolved against no model, keeps
        // its precision.
        if request.precision.weight_bits().is_some() && !plan::quantizable(&model.info) {
            anyhow::bail!("--precision {}: {}", request.precision, plan::nothing_to_quantize(&model.info, "the model"));
        }
        let plan = plan::resolve(&request, &runtime.offered(), &model.info)?;
        Ok(Preflight { model_path: model_path.to_path_buf(), model, request, plan, not_applied })
    }

    /// The same model under another request (a reference EP's), without reading it again.
    pub fn with_request(&self, runtime: &Runtime, request: &PlanRequest) -> Result<Preflight> {
        Preflight::resolve(runtime, &self.model_path, self.model.clone(), request.clone(), Vec::new())
    }

    pub fn info(&self) -> &ModelInfo {
        &self.model.info
    }

    /// The model's inputs with the plan's dimension overrides applied: what inputs bind to.
    pub fn input_signatures(&self) -> Vec<InputSignature> {
        input_signatures(&self.model.info, &self.plan)
    }
}

/// Says once, on stderr, where `--compare-ep` names the EP under test itself with the same options
/// (`PlanRequest::compared_with_itself`): run, test, bench and generate call it before any work.
pub fn warn_if_compared_with_itself(
    runtime: &Runtime,
    request: &PlanRequest,
    compare: Option<(&crate::runtime::plan::EpRequest, Option<crate::runtime::plan::OptimizationLevel>)>,
) {
    let Some((ep, level)) = compare else { return };
    let dml = runtime.has_provider(crate::runtime::plan::DML_PROVIDER);
    if let Some(why) = request.compared_with_itself(&request.reference(ep.clone(), level), dml) {
        crate::errln!("dmlrun: warning: {why}");
    }
}

/// Checks what `request` asks of every model: that the loaded ONNX Runtime has its execution
/// providers and that its adapter exists. Fails with the error every model would fail with.
pub fn check_request(runtime: &Runtime, request: &PlanRequest) -> Result<()> {
    let shared = request.shared_part();
    let plan = plan::resolve(&shared, &runtime.offered(), &ModelInfo::default())?;
    plan::check_available(&plan, &shared, &runtime.offered())?;
    if let Some(id) = plan.device_id() {
        super::super::adapters::check_device_index(id)?;
    }
    Ok(())
}

/// Checks the flags of `request` that every model shares against each other before any model
/// is read: what every model would fail with is said once.
pub fn check_flags(runtime: &Runtime, request: &PlanRequest) -> Result<()> {
    plan::resolve(&request.shared_part(), &runtime.offered(), &ModelInfo::default()).map(drop)
}

/// Whether `request` puts DirectML in the plan (for any model) on the loaded ONNX Runtime.
pub fn plans_directml(runtime: &Runtime, request: &PlanRequest) -> bool {
    plan::resolve(&request.shared_part(), &runtime.offered(), &ModelInfo::default()).is_ok_and(|p| p.uses_directml())
}

/// Completes the plan from the inputs about to be bound (DirectML's automatic dimension
/// overrides), prints it with `print_plan`, and checks that the loaded ONNX Runtime can apply it.
/// What the finished plan must say before its (possibly long) session creation: free dimensions
/// left free, options that do nothing here.
pub fn finish_plan(
    runtime: &Runtime,
    plan: &mut SessionPlan,
    info: &ModelInfo,
    request: &PlanRequest,
    bound: &[plan::BoundShape],
    print_plan: bool,
) -> Result<Vec<String>> {
    plan::fix_dims_from_inputs(plan, info, bound)?;
    plan.check_graph_capture()?;
    let mut warnings: Vec<String> = plan.dynamic_shape_warning().into_iter().collect();
    if print_plan {
        crate::errln!("session plan:\n{plan}");
    }
    plan::check_available(plan, request, &runtime.offered())?;
    warnings.extend(plan.option_warnings());
    Ok(warnings)
}

/// The inputs bound for a session of this preflight's model: decoded, preprocessed or generated
/// (`inputs::bind`), the plan finished with their shapes, and copied into ONNX Runtime values.
pub struct BoundForSession {
    pub bound: BoundInputs,
    pub prepared: PreparedInputs,
    pub plan: SessionPlan,
    /// What a reader must be told before the session: flags not applied, the inputs' and the
    /// plan's notes, an empty input, free dimensions, options that do nothing here.
    pub warnings: Vec<String>,
    /// The time the inputs took (bound and copied).
    pub took: Duration,
}

impl Preflight {
    /// Binds `inputs` for a session of this model (see [`BoundForSession`]).
    pub fn bind(
        &self,
        runtime: &Runtime,
        inputs: &[InputSpec],
        load: &LoadOptions,
        print_plan: bool,
    ) -> Result<BoundForSession> {
        let started = Instant::now();
        let bound = crate::inputs::bind(inputs, &self.input_signatures(), load)?;
        let mut took = started.elapsed();
        let mut plan = self.plan.clone();
        let plan_warnings =
            finish_plan(runtime, &mut plan, self.info(), &self.request, &bound_shapes(&bound), print_plan)?;
        let mut warnings: Vec<String> =
            self.not_applied.iter().chain(&bound.warnings).chain(&plan.notes).cloned().collect();
        // ONNX allows empty dimensions, and a model may take them; the figures then measure a run
        // that has nothing to compute, which a reader of any report must be told.
        for (name, tensor) in bound.tensors.iter().filter(|(_, t)| t.is_empty()) {
            warnings.push(format!(
                "input '{name}' is empty ({}): the runs compute nothing on it, so the timings measure little more than the call",
                crate::tensor::format_shape(&tensor.shape)
            ));
        }
        warnings.extend(plan_warnings);
        let started = Instant::now();
        let prepared = PreparedInputs::new(&bound.tensors)?;
        took += started.elapsed();
        Ok(BoundForSession { bound, prepared, plan, warnings, took })
    }
}

/// Each bound input's shape and what it came from, for the plan's automatic dimension overrides.
pub fn bound_shapes(bound: &BoundInputs) -> Vec<plan::BoundShape> {
    bound
        .sources
        .iter()
        .map(|s| {
            let from = match (s.kind, s.files.as_slice()) {
                (InputKind::Image, [_]) => "1 image".to_string(),
                (InputKind::Image, files) => format!("{} images", files.len()),
                (_, [file, ..]) => {
                    file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned())
                }
                (kind, []) => kind.to_string(),
            };
            plan::BoundShape { input: s.name.clone(), shape: s.shape.clone(), from }
        })
        .collect()
}

/// The model's inputs as the model file declares them, with the plan's dimension overrides
/// applied to their free dimensions: what inputs are bound against, before any session exists.
pub fn input_signatures(info: &ModelInfo, plan: &SessionPlan) -> Vec<InputSignature> {
    info.inputs
        .iter()
        .map(|input| {
            let shape = plan.input_shapes.get(&input.name);
            let dims = input
                .dims
                .iter()
                .enumerate()
                .map(|(axis, d)| {
                    let given = shape.and_then(|s| s.get(axis).copied());
                    let fixed = d.value.filter(|v| *v >= 0).map(|v| v as usize).or(given).or_else(|| {
                        plan.dimension_overrides.iter().find_map(|o| {
                            let matches = match o.by {
                                DimKey::Name => d.param.as_deref() == Some(o.key.as_str()),
                                DimKey::Denotation => d.denotation.as_deref() == Some(o.key.as_str()),
                            };
                            matches.then_some(o.value as usize)
                        })
                    });
                    DimSpec { size: fixed, symbol: d.param.clone() }
                })
                .collect();
            let dtype = match input.kind {
                ValueKind::Tensor => input.element_type(),
                _ => None,
            };
            let element = input.dtype.as_deref().unwrap_or("unknown");
            let type_name = match input.kind {
                ValueKind::Tensor => element.to_string(),
                ValueKind::Sequence => format!("sequence of {element} tensors"),
                ValueKind::Optional => format!("optional {element} value"),
                ValueKind::Other => "map or other non-tensor value".to_string(),
            };
            InputSignature { name: input.name.clone(), dtype, type_name, dims }
        })
        .collect()
}
