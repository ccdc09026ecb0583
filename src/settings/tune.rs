//! `dmlrun tune`'s settings.

use super::*;

/// `dmlrun tune`'s flags, resolved once: the model, checked; where the tuned model and the
/// record go, checked before any work.
#[derive(Debug, Clone)]
pub struct TuneSettings {
    pub model: PathBuf,
    /// The EP under test's request: the original form, which every candidate changes.
    pub request: PlanRequest,
    pub compare_ep: EpRequest,
    /// The tolerance a candidate in the model's own precision is held to; a float16 candidate is
    /// held to float16's unless --rtol or --atol were given looser.
    pub tolerance: Tolerance,
    pub inputs: Vec<crate::inputs::InputSpec>,
    pub load: LoadOptions,
    pub output: Option<PathBuf>,
    pub budget: std::time::Duration,
    pub json: Option<PathBuf>,
    pub quiet: bool,
    pub ort: OrtSettings,
}

impl TuneSettings {
    pub fn resolve(args: &TuneArgs) -> Result<TuneSettings> {
        use anyhow::{bail, Context};
        if args.model.is_dir() {
            bail!(
                "model {}: is a folder; dmlrun tune takes one model file (a genai folder's decoder is not tuned yet: time it with dmlrun generate)",
                args.model.display()
            );
        }
        if !args.model.is_file() {
            bail!("model {}: no such file", args.model.display());
        }
        if let Some(output) = &args.output {
            crate::report::export::check_writable(output).with_context(|| format!("--output {}", output.display()))?;
        }
        check_json(args.json.as_deref())?;
        let (load, _) = search_load_options(&args.input, &args.preprocess);
        Ok(TuneSettings {
            model: args.model.clone(),
            request: plan_request(&args.session, args.ort.ort_log_level)?,
            compare_ep: args.reference.compare_ep.clone(),
            tolerance: args.reference.tolerance(),
            inputs: args.input.inputs.clone(),
            load,
            output: args.output.clone(),
            budget: args.budget,
            json: args.json.clone(),
            quiet: args.quiet,
            ort: OrtSettings::of(&args.ort),
        })
    }
}
