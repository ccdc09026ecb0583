//! `dmlrun run`'s settings.

use super::*;

/// `dmlrun run`'s flags, resolved once: the model, checked to be a file; every file and folder
/// it will write, checked writable before any work; the labels, read.
#[derive(Debug, Clone)]
pub struct RunSettings {
    pub model: PathBuf,
    pub ort: OrtSettings,
    pub request: PlanRequest,
    pub print_plan: bool,
    pub inputs: Vec<crate::inputs::InputSpec>,
    pub load: LoadOptions,
    pub reference: Option<ReferenceSettings>,
    pub warmup: u64,
    pub iterations: u64,
    /// `--timeout`; zero for none.
    pub timeout: Duration,
    pub top_k: Option<usize>,
    /// `--labels`: the file and its labels.
    pub labels: Option<(PathBuf, Vec<String>)>,
    pub save_outputs: Option<PathBuf>,
    pub save_inputs: Option<PathBuf>,
    pub save_format: crate::outputs::SaveFormat,
    pub as_test_data: bool,
    pub save_model: Option<PathBuf>,
    pub save_fixed_dims: bool,
    /// `--json`: a file, or `-` for standard output.
    pub json: Option<PathBuf>,
    pub quiet: bool,
}

impl RunSettings {
    pub fn resolve(args: &RunArgs) -> Result<RunSettings> {
        use anyhow::{bail, Context};
        let Some(model) = args.model.clone() else {
            bail!("no model given: dmlrun MODEL [--input FILE]... (see dmlrun --help)");
        };
        if model.is_dir() {
            bail!(
                "{}: is a folder; dmlrun MODEL runs one model file (dmlrun bench {0} times every model in it, dmlrun test {0} checks its test-data folders)",
                model.display()
            );
        }
        if !model.is_file() {
            bail!("model {}: no such file", model.display());
        }
        // Every destination checked before any work, so a typo costs nothing.
        check_json(args.json.as_deref())?;
        for (flag, dir) in [("--save-outputs", &args.save_outputs), ("--save-inputs", &args.save_inputs)] {
            if let Some(dir) = dir {
                crate::report::export::check_writable_folder(dir)
                    .with_context(|| format!("{flag} {}", dir.display()))?;
            }
        }
        if let Some(path) = &args.save_model {
            crate::report::export::check_writable(path).with_context(|| format!("--save-model {}", path.display()))?;
        }
        let labels = match &args.labels {
            Some(path) => Some((path.clone(), crate::outputs::read_labels(path)?)),
            None => None,
        };
        Ok(RunSettings {
            model,
            ort: OrtSettings::of(&args.ort),
            request: run_plan_request(&args.session, &args.device_io, args.ort.ort_log_level)?,
            print_plan: args.session.print_plan || args.verbose,
            inputs: args.input.inputs.clone(),
            load: load_options(&args.input, &args.preprocess),
            reference: args.compare.compare_ep.clone().map(|ep| ReferenceSettings {
                ep,
                optimization_level: args.compare.compare_opt_level,
                tolerance: Tolerance { atol: args.compare.atol, rtol: args.compare.rtol },
            }),
            warmup: args.warmup,
            iterations: args.iterations,
            timeout: args.timeout,
            top_k: args.top_k,
            labels,
            save_outputs: args.save_outputs.clone(),
            save_inputs: args.save_inputs.clone(),
            save_format: args.save_format,
            as_test_data: args.as_test_data,
            save_model: args.save_model.clone(),
            save_fixed_dims: args.save_fixed_dims,
            json: args.json.clone(),
            quiet: args.quiet,
        })
    }
}
