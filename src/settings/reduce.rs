//! `dmlrun reduce`'s settings.

use super::*;

/// `dmlrun reduce`'s flags, resolved once: the model, checked to be a file; the folder the
/// minimal model goes to; the EP under test and the reference, checked to be two.
#[derive(Debug, Clone)]
pub struct ReduceSettings {
    pub model: PathBuf,
    /// `--output`, or `MODEL-reduced/` in the working folder.
    pub output: PathBuf,
    /// `--each-op`: every operator type alone, no reduction.
    pub each_op: bool,
    pub ort: OrtSettings,
    /// The EP under test's request.
    pub request: PlanRequest,
    /// `--compare-ep`: the EP the candidates are checked against.
    pub compare_ep: EpRequest,
    pub tolerance: Tolerance,
    /// `--session-config` or `--ep-option` given: the EP under test differs from the reference by
    /// them even where the two are one EP.
    pub own_options: bool,
    pub inputs: Vec<crate::inputs::InputSpec>,
    pub load: LoadOptions,
    /// No --generate was given: inputs no --input gives are generated (random, from --seed).
    pub generated_by_default: bool,
    pub time_limit: Option<Duration>,
    pub candidate_timeout: Duration,
    pub json: Option<PathBuf>,
    pub quiet: bool,
    /// A child of the reduction: the candidate its parent resolved, and where its outcome goes.
    pub child: Option<crate::batch::Handoff>,
}

impl ReduceSettings {
    pub fn resolve(args: &ReduceArgs) -> Result<ReduceSettings> {
        use anyhow::bail;
        let model = args.model.clone();
        if model.is_dir() {
            bail!(
                "model {}: is a folder; dmlrun reduce takes one model file (dmlrun test {0} checks the cases in a folder)",
                model.display()
            );
        }
        if !model.is_file() {
            bail!("model {}: no such file", model.display());
        }
        let output = args.output.clone().unwrap_or_else(|| {
            let stem = model.file_stem().map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
            // In the working folder, as a compiler's output: never into the model's own folder (a
            // source tree, a read-only model zoo).
            PathBuf::from(format!("{stem}-reduced"))
        });
        check_json(args.json.as_deref())?;
        let (load, generated_by_default) = search_load_options(&args.subject.input, &args.subject.preprocess);
        Ok(ReduceSettings {
            output,
            each_op: args.each_op,
            ort: OrtSettings::of(&args.ort),
            request: plan_request(&args.subject.session, args.ort.ort_log_level)?,
            compare_ep: args.subject.reference.compare_ep.clone(),
            tolerance: args.subject.reference.tolerance(),
            own_options: !args.subject.session.session_config.is_empty() || !args.subject.session.ep_options.is_empty(),
            inputs: args.subject.input.inputs.clone(),
            load,
            generated_by_default,
            time_limit: args.time_limit.filter(|limit| !limit.is_zero()),
            candidate_timeout: args.candidate_timeout,
            json: args.json.clone(),
            quiet: args.quiet,
            child: child_handoff(&args.child),
            model,
        })
    }
}
