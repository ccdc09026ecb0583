//! Flags resolved once into the values the engine and the batch runner take, as ripgrep's
//! `HiArgs`: clap's structs end here. This file holds what several commands resolve alike (the
//! session plan request, the image preprocessing request, tolerances, load options, the runtime
//! and the reference); each command's settings are in a file of their own, as its flags are in
//! `cli/`.

mod bench;
mod fix;
mod generate;
mod inspect;
mod merge;
mod reduce;
mod run;
mod test;
mod tune;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;

use crate::cases::CaseCheck;
use crate::cli::{
    BatchInputArgs, BenchArgs, ChildArgs, DeviceIoArgs, ExportArgs, FixArgs, GenerateArgs, GeneratedInputArgs,
    InfoArgs, InputArgs, IsolationArgs, MergeArgs, OrtArgs, PreprocessArgs, ReduceArgs, RunArgs, SaveModelsArgs,
    SessionArgs, TestArgs, TuneArgs,
};
use crate::compare::{Tolerance, Tolerances};
use crate::formats::image::PreprocessRequest;
use crate::graph::Rewrite;
use crate::inputs::synthetic::Fill;
use crate::inputs::LoadOptions;
use crate::isolation::PlacementRequest;
use crate::report::export::ReportFiles;
use crate::report::github;
use crate::runtime::engine::{RunBudget, SavedModels};
use crate::runtime::plan::PlanRequest;
use crate::runtime::plan::{EpRequest, OptimizationLevel, ReferenceRequest, DML_DISABLE_FUSION};
use crate::runtime::OrtLogLevel;
use crate::suites::manifest::{BenchTarget, Sweep};
use crate::suites::shard::{Shard, ShardRequest};

pub use bench::BenchSettings;
pub use fix::FixSettings;
pub use generate::{GenerateSettings, PromptSource, Task};
pub use inspect::{InfoSettings, LookSettings};
pub use merge::MergeSettings;
pub use reduce::ReduceSettings;
pub use run::RunSettings;
pub use test::TestSettings;
pub use tune::TuneSettings;

/// Turns the session flags into a plan request; a `--device` given by name or LUID is looked up
/// among the DXGI adapters here, once.
pub fn plan_request(args: &SessionArgs, log_level: OrtLogLevel) -> Result<PlanRequest> {
    let device = args.device.as_ref().map(|d| d.resolve()).transpose()?;
    Ok(PlanRequest {
        ep: args.ep.clone(),
        device,
        performance_preference: args.dml_performance_preference,
        device_filter: args.dml_device_filter,
        execution_mode: args.execution_mode,
        memory_pattern: args.memory_pattern,
        optimization_level: args.opt_level,
        intra_op_threads: args.intra_threads.filter(|n| *n > 0),
        inter_op_threads: args.inter_threads.filter(|n| *n > 0),
        dims: args.dims.clone(),
        dim_denotations: args.dim_denotations.clone(),
        shapes: args.shapes.clone(),
        log_level,
        profile_prefix: None,
        optimized_model_path: None,
        auto_dims: !args.no_auto_dims,
        dml_disable_metacommands: args.dml_disable_metacommands,
        dml_graph_capture: false,
        ep_options: args.ep_options.clone(),
        session_config: args.session_config.clone(),
        io_on_device: false,
        precision: args.precision,
        keep_fp32: args.keep_fp32.clone(),
        quantization: crate::runtime::plan::WeightQuantization {
            block_size: args.block_size,
            asymmetric: args.asymmetric,
            accuracy_level: args.accuracy_level,
        },
        rewrites: args.decompose.iter().map(|op| Rewrite::Decompose(*op)).chain(args.rules.rewrites()).collect(),
        decode_rewrites: Vec::new(),
    })
}

/// The plan request of `run` and `bench`, whose timed runs may keep their inputs and outputs on
/// the device.
pub fn run_plan_request(args: &SessionArgs, device_io: &DeviceIoArgs, log_level: OrtLogLevel) -> Result<PlanRequest> {
    Ok(PlanRequest {
        io_on_device: device_io.io_on_device || device_io.dml_graph_capture,
        dml_graph_capture: device_io.dml_graph_capture,
        ..plan_request(args, log_level)?
    })
}

/// How `run` and `reduce` load, preprocess and generate a model's inputs.
pub fn load_options(input: &InputArgs, preprocess: &PreprocessArgs) -> LoadOptions {
    let generated = &input.generated;
    LoadOptions {
        preprocess: preprocess_request(preprocess, generated.max_image_pixels),
        // A range asks for random data.
        generate: input.generate.or((!generated.generate_ranges.is_empty()).then_some(Fill::Random)),
        ..generated_load_options(generated)
    }
}

/// How `fix` and `reduce` load a model's inputs: as `run` does, but an input no --input gives is
/// generated (random, from --seed) rather than refused, since the search needs inputs and a
/// missing one is no failure of the model's. The flag says whether that default was taken, for
/// the command to say so.
pub fn search_load_options(input: &InputArgs, preprocess: &PreprocessArgs) -> (LoadOptions, bool) {
    let mut load = load_options(input, preprocess);
    let by_default = load.generate.is_none();
    load.generate = load.generate.or(Some(Fill::Random));
    (load, by_default)
}

/// What the generated-input flags say alike for a model's inputs and a batch's.
fn generated_load_options(args: &GeneratedInputArgs) -> LoadOptions {
    LoadOptions {
        preprocess: PreprocessRequest { max_pixels: args.max_image_pixels, ..Default::default() },
        generate: None,
        seed: args.seed,
        max_tensor_bytes: args.max_tensor_bytes,
        free_dim_size: usize::try_from(args.free_dim_size).unwrap_or(usize::MAX),
        ranges: args.generate_ranges.clone(),
    }
}

pub fn preprocess_request(args: &PreprocessArgs, max_pixels: u64) -> PreprocessRequest {
    PreprocessRequest {
        preset: args.preset,
        resize: args.resize,
        resize_to: args.resize_to,
        filter: args.filter,
        scale: args.scale,
        mean: args.mean.clone(),
        std: args.std.clone(),
        channel_order: args.channel_order,
        layout: args.layout,
        pad_value: args.pad_value,
        size: args.image_size,
        max_pixels,
    }
}

/// A model file or an onnxruntime-genai folder, as `fix` and `tune` take one: whether it is a
/// folder (a decoder), checked; a decoder's request may not ask for float16.
pub fn model_or_decoder_folder(model: &Path, command: &str, request: &PlanRequest) -> Result<bool> {
    use anyhow::bail;
    let decoder = model.is_dir();
    if decoder && !model.join("genai_config.json").is_file() {
        bail!(
            "model {}: is a folder without genai_config.json; dmlrun {command} takes a model file or an onnxruntime-genai folder",
            model.display()
        );
    }
    if !decoder && !model.is_file() {
        bail!("model {}: no such file", model.display());
    }
    if decoder && request.precision == crate::runtime::plan::Precision::Fp16 {
        bail!("--precision fp16: a decoder comes in float16 from its builder (onnxruntime-genai's -p fp16); dmlrun generate does not convert one (it takes int4 and int8)");
    }
    Ok(decoder)
}

/// An isolation child's part, from its hidden flags.
pub fn child_handoff(args: &ChildArgs) -> Option<crate::batch::Handoff> {
    match (&args.preflight, &args.child_report) {
        (Some(items), Some(results)) => Some(crate::batch::Handoff {
            items: items.clone(),
            results: results.clone(),
            progress: args.progress.clone(),
        }),
        _ => None,
    }
}

/// `--ci`, against this process's environment.
pub fn github_target(args: &crate::cli::CiArgs) -> Option<github::Target> {
    github::target(args.ci.forced(), |name| std::env::var(name).ok())
}

/// `--json FILE` of a command that writes one report, checked writable before any work (`-` is
/// stdout).
fn check_json(json: Option<&Path>) -> Result<()> {
    use anyhow::Context;
    if let Some(path) = json.filter(|p| *p != Path::new("-")) {
        crate::report::export::check_writable(path).with_context(|| format!("--json {}", path.display()))?;
    }
    Ok(())
}

/// The report files the export flags name.
pub fn report_files(args: &ExportArgs) -> ReportFiles {
    args.files.clone()
}

/// What `test` and `bench` resolve alike for their batch: the runtime, where the items run,
/// which part of them this run takes, the CI job it reports to, where the models it ran are
/// saved, and an isolation child's part.
#[derive(Debug, Clone)]
pub struct BatchRun {
    pub ort: OrtSettings,
    /// Where the items run; the DirectML part is filled in once the runtime is loaded.
    pub placement: PlacementRequest,
    /// `--shard`: the part of the items this run takes, and with `auto` the variables that said so.
    pub shard: Option<(Shard, Option<String>)>,
    /// `--ci`: GitHub's summary and annotations, when they are wanted.
    pub github: Option<github::Target>,
    /// `--save-models`, `--save-fixed-dims`.
    pub saved: Option<SavedModels>,
    /// An isolation child's part: the items its parent resolved, and where their outcomes go.
    pub child: Option<crate::batch::Handoff>,
    pub quiet: bool,
}

/// The flags behind [`BatchRun`], as `test` and `bench` each declare them.
pub struct BatchRunArgs<'a> {
    pub ort: &'a OrtArgs,
    pub isolation: &'a IsolationArgs,
    /// The item's time limit where --timeout does not say.
    pub default_limit: Duration,
    pub print_plan: bool,
    pub shard: Option<ShardRequest>,
    pub ci: &'a crate::cli::CiArgs,
    pub save: &'a SaveModelsArgs,
    pub quiet: bool,
}

impl BatchRun {
    /// Resolves the flags; `--save-models DIR` is checked writable before any item runs, as the
    /// exports are.
    pub fn resolve(args: BatchRunArgs) -> Result<BatchRun> {
        use anyhow::Context;
        if let Some(dir) = &args.save.save_models {
            crate::report::export::check_writable_folder(dir)
                .with_context(|| format!("--save-models {}", dir.display()))?;
        }
        let isolation = args.isolation;
        Ok(BatchRun {
            ort: OrtSettings::of(args.ort),
            placement: PlacementRequest {
                isolation: isolation.isolation,
                timeout: isolation.timeout,
                default_limit: args.default_limit,
                directml: false,
                print_plan: args.print_plan,
            },
            shard: resolve_shard(args.shard)?,
            github: github_target(args.ci),
            saved: args
                .save
                .save_models
                .clone()
                .map(|folder| SavedModels { folder, fixed_dims: args.save.save_fixed_dims }),
            child: child_handoff(&isolation.child),
            quiet: args.quiet,
        })
    }
}

/// `--shard K/N` as given, or `--shard auto` read from this CI job's variables.
pub fn resolve_shard(request: Option<ShardRequest>) -> Result<Option<(Shard, Option<String>)>> {
    Ok(match request {
        None => None,
        Some(ShardRequest::Given(shard)) => Some((shard, None)),
        Some(ShardRequest::Auto) => {
            let (shard, from) =
                crate::suites::shard::from_ci(|name| std::env::var(name).ok()).map_err(anyhow::Error::msg)?;
            Some((shard, Some(from)))
        }
    })
}

/// How the items of a batch get the inputs no file gives them.
pub fn batch_load_options(args: &BatchInputArgs) -> LoadOptions {
    LoadOptions { generate: Some(args.generate), ..generated_load_options(&args.generated) }
}

/// Which ONNX Runtime a command loads, its logging, and the plugin EP libraries it registers.
#[derive(Debug, Clone)]
pub struct OrtSettings {
    pub library: Option<PathBuf>,
    pub log_level: OrtLogLevel,
    pub ep_libraries: Vec<crate::runtime::ep_devices::EpLibraryRequest>,
}

impl OrtSettings {
    pub fn of(args: &OrtArgs) -> OrtSettings {
        OrtSettings {
            library: args.ort_lib.clone(),
            log_level: args.ort_log_level,
            ep_libraries: args.ep_libraries.clone(),
        }
    }

    pub fn load(&self) -> Result<crate::runtime::Runtime> {
        crate::runtime::Runtime::load(self.library.as_deref(), self.log_level, &self.ep_libraries)
    }
}

/// `--compare-ep` for one model: the reference's EP, its optimisation level, the tolerance.
#[derive(Debug, Clone)]
pub struct ReferenceSettings {
    pub ep: EpRequest,
    pub optimization_level: Option<OptimizationLevel>,
    pub tolerance: Tolerance,
}
