//! `dmlrun tune`'s settings.

use super::*;

/// `dmlrun tune`'s flags, resolved once: the model, checked; where the tuned model and the
/// record go, checked before any work.
#[derive(Debug, Clone)]
pub struct TuneSettings {
    pub model: PathBuf,
    /// The model is an onnxruntime-genai folder: candidates are checked by what they generate
    /// and timed as `generate` times them.
    pub decoder: bool,
    /// A decoder's timed generation: the synthetic prompt's tokens and the new tokens.
    pub prompt_tokens: usize,
    pub new_tokens: usize,
    /// `--isolation` and `--timeout`: where the candidates run, and their limit.
    pub isolation: crate::isolation::Isolation,
    pub timeout: Option<Duration>,
    /// A candidate's child: the trial its parent handed it, and where its record goes.
    pub child: Option<crate::batch::Handoff>,
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
        use anyhow::Context;
        let request = plan_request(&args.session, args.ort.ort_log_level)?;
        let decoder = model_or_decoder_folder(&args.model, "tune", &request)?;
        let child = child_handoff(&args.isolation.child);
        if child.is_none() {
            match (&args.output, decoder) {
                (Some(output), true) => crate::runtime::engine::check_output_folder(output)?,
                (Some(output), false) => crate::report::export::check_writable(output)
                    .with_context(|| format!("--output {}", output.display()))?,
                (None, _) => {}
            }
            check_json(args.json.as_deref())?;
        }
        let (load, _) = search_load_options(&args.input, &args.preprocess);
        Ok(TuneSettings {
            model: args.model.clone(),
            decoder,
            prompt_tokens: args.prompt_tokens as usize,
            new_tokens: args.max_new_tokens as usize,
            isolation: args.isolation.isolation,
            timeout: args.isolation.timeout,
            child,
            request,
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
