//! The session a command runs, opened as `run`, `bench`, `test` and `reduce` open it: the model
//! made for it (`made_for_session`), the session on the plan, and a failure of either the
//! session or a run explained by a reference run (`diagnose`) and said as the user's model's.

use anyhow::Result;

use super::diagnose::{self, Stage};
use super::made::{made_for_session, made_label, Check, MadeModel};
use super::open::{open, LoadedModel};
use super::preflight::Preflight;
use super::runs::{run_to_host_values, PreparedInputs};
use crate::inputs::BoundInputs;
use crate::runtime::plan::{PlanRequest, SessionPlan};
use crate::runtime::Runtime;
use crate::tensor::HostValue;

/// What a failure is explained with.
#[derive(Clone, Copy)]
pub struct Explaining<'a> {
    pub runtime: &'a Runtime,
    pub preflight: &'a Preflight,
    /// `--compare-ep`'s reference, where one was asked; the CPU EP's otherwise.
    pub reference: Option<&'a PlanRequest>,
    /// The inputs as bound: generated ones say how to make others.
    pub bound: Option<&'a BoundInputs>,
    /// Off where the failure is said as it is (reduce's candidates, whose reference values are
    /// known already).
    pub blame: bool,
}

/// The model made for a session and the session open on it.
pub struct Opened<'a> {
    pub made: MadeModel,
    pub model: LoadedModel,
    explaining: Explaining<'a>,
}

/// Makes the session's model (checked on `check` where it can be) and opens it on `plan`; a
/// session that cannot be made is explained with `prepared`, the inputs it was to run.
pub fn open_made<'a>(
    explaining: Explaining<'a>,
    plan: &SessionPlan,
    check: Check,
    prepared: &PreparedInputs,
    warn: &mut dyn FnMut(String),
) -> Result<Opened<'a>> {
    let Explaining { runtime, preflight, .. } = explaining;
    let made = made_for_session(runtime, preflight, plan, check, warn)?;
    crate::stage::step("session creation");
    let info = preflight.info().clone();
    match open(runtime, made.path(), info, preflight.model.read_time, plan.clone()) {
        Ok(model) => Ok(Opened { made, model, explaining }),
        Err(e) => Err(explain(&explaining, &made, plan, Stage::SessionCreation, prepared, e)),
    }
}

impl Opened<'_> {
    /// One run of `prepared`, its outputs copied to host memory; a failure explained.
    pub fn run(&mut self, prepared: &PreparedInputs) -> Result<Vec<(String, HostValue)>> {
        run_to_host_values(&mut self.model.session, prepared).map_err(|e| self.explain(Stage::Run, prepared, e))
    }

    /// A failure at `stage` with `prepared`, explained as the session's.
    pub fn explain(&self, stage: Stage, prepared: &PreparedInputs, error: anyhow::Error) -> anyhow::Error {
        explain(&self.explaining, &self.made, &self.model.plan, stage, prepared, error)
    }
}

fn explain(
    explaining: &Explaining,
    made: &MadeModel,
    plan: &SessionPlan,
    stage: Stage,
    prepared: &PreparedInputs,
    error: anyhow::Error,
) -> anyhow::Error {
    let Explaining { runtime, preflight, reference, bound, blame } = *explaining;
    if !blame {
        return error;
    }
    let model_path = made.path();
    let failed = diagnose::Failed { model_path, info: preflight.info(), plan, stage };
    let error = diagnose::explain(runtime, &failed, reference, &preflight.request, prepared, bound, error);
    // An error about the model dmlrun made names the user's model, and what was done to it.
    match model_path == preflight.model_path {
        true => error,
        false => diagnose::say_made_as(error, model_path, &preflight.model_path, &made_label(plan)),
    }
}
