//! `dmlrun fix`'s settings.

use super::*;

/// `dmlrun fix`'s flags, resolved once: the model (a file, or an onnxruntime-genai folder),
/// checked; where the fixed model goes, checked before any work (not in an attempt's child).
#[derive(Debug, Clone)]
pub struct FixSettings {
    pub model: PathBuf,
    /// The model is an onnxruntime-genai folder: attempts generate, not run.
    pub decoder: bool,
    pub output: PathBuf,
    pub save_fixed_dims: bool,
    pub json: Option<PathBuf>,
    pub quiet: bool,
    pub ort: OrtSettings,
    /// The EP under test's request, before any remedy.
    pub request: PlanRequest,
    /// `--compare-ep` and the tolerance every attempt is held to.
    pub compare_ep: EpRequest,
    pub tolerance: Tolerance,
    pub inputs: Vec<crate::inputs::InputSpec>,
    pub load: LoadOptions,
    /// No --generate was given: inputs no --input gives are generated (random, from --seed).
    pub generated_by_default: bool,
    /// `--isolation` and `--timeout`, an attempt's limit.
    pub isolation: crate::isolation::Isolation,
    pub timeout: Option<Duration>,
    /// An attempt's child: the attempt its parent handed it, and where its record goes.
    pub child: Option<crate::batch::Handoff>,
}

impl FixSettings {
    pub fn resolve(args: &FixArgs) -> Result<FixSettings> {
        use anyhow::Context;
        let model = args.model.clone();
        let request = plan_request(&args.subject.session, args.ort.ort_log_level)?;
        let decoder = model_or_decoder_folder(&model, "fix", &request)?;
        let child = child_handoff(&args.isolation.child);
        if child.is_none() {
            if !decoder {
                crate::report::export::check_writable(&args.output)
                    .with_context(|| format!("--output {}", args.output.display()))?;
            }
            check_json(args.json.as_deref())?;
        }
        let (load, generated_by_default) = search_load_options(&args.subject.input, &args.subject.preprocess);
        Ok(FixSettings {
            model,
            decoder,
            output: args.output.clone(),
            save_fixed_dims: args.save_fixed_dims,
            json: args.json.clone(),
            quiet: args.quiet,
            ort: OrtSettings::of(&args.ort),
            request,
            compare_ep: args.subject.reference.compare_ep.clone(),
            tolerance: args.subject.reference.tolerance(),
            inputs: args.subject.input.inputs.clone(),
            load,
            generated_by_default,
            isolation: args.isolation.isolation,
            timeout: args.isolation.timeout,
            child,
        })
    }
}
