//! Flags resolved once into the values the engine and the batch runner take, as ripgrep's
//! `HiArgs`: clap's structs end here. This file holds what several commands resolve alike (the
//! session plan request, the image preprocessing request, tolerances, load options, the runtime
//! and the reference); each command's settings are in a file of their own, as its flags are in
//! `cli/`.

mod bench;
mod fix;
mod generate;
mod merge;
mod reduce;
mod run;
mod test;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;

use crate::cli::{
    BatchInputArgs, BenchArgs, DeviceIoArgs, FixArgs, GenerateArgs, InputArgs, IsolationArgs, MergeArgs, OrtArgs,
    PreprocessArgs, ReduceArgs, RunArgs, SessionArgs, TestArgs,
};
use crate::compare::Tolerance;
use crate::formats::image::PreprocessRequest;
use crate::graph::Rewrite;
use crate::inputs::synthetic::Fill;
use crate::inputs::LoadOptions;
use crate::isolation::PlacementRequest;
use crate::report::github;
use crate::runtime::engine::RunBudget;
use crate::runtime::plan::PlanRequest;
use crate::runtime::plan::{EpRequest, OptimizationLevel, DML_DISABLE_FUSION};
use crate::runtime::OrtLogLevel;
use crate::suites::manifest::{BenchTarget, Sweep};
use crate::suites::shard::{Shard, ShardRequest};

pub use bench::BenchSettings;
pub use fix::FixSettings;
pub use generate::{GenerateSettings, PromptSource};
pub use merge::MergeSettings;
pub use reduce::ReduceSettings;
pub use run::RunSettings;
pub use test::TestSettings;

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
        rewrites: args
            .decompose
            .iter()
            .map(|op| Rewrite::Decompose(*op))
            .chain(args.gemm_zero_bias.then_some(Rewrite::GemmZeroBias))
            .chain(args.reshape_allowzero_off.then_some(Rewrite::ReshapeAllowzeroOff))
            .collect(),
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
    LoadOptions {
        preprocess: preprocess_request(preprocess, input.max_image_pixels),
        // A range asks for random data.
        generate: input.generate.or((!input.generate_ranges.is_empty()).then_some(Fill::Random)),
        seed: input.seed,
        max_tensor_bytes: input.max_tensor_bytes,
        free_dim_size: usize::try_from(input.free_dim_size).unwrap_or(usize::MAX),
        ranges: input.generate_ranges.clone(),
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

/// The tolerances a check holds outputs to: `--atol`/`--rtol`, a case's own (`data.json`, a
/// manifest entry's), and `--tol NAME=ATOL,RTOL` for one output, which wins over both.
#[derive(Debug, Clone, Default)]
pub struct Tolerances {
    pub default: Tolerance,
    pub per_output: BTreeMap<String, Tolerance>,
}

impl Tolerances {
    /// The tolerance of `output`, where the item (a case, a manifest entry) may say its own.
    pub fn for_output(&self, output: &str, item_atol: Option<f64>, item_rtol: Option<f64>) -> Tolerance {
        self.per_output.get(output).copied().unwrap_or(Tolerance {
            atol: item_atol.unwrap_or(self.default.atol),
            rtol: item_rtol.unwrap_or(self.default.rtol),
        })
    }
}

/// `--compare-ep` and what it says of the reference run: its EP, optimisation level, threads.
#[derive(Debug, Clone)]
pub struct ReferenceRequest {
    pub ep: EpRequest,
    pub optimization_level: Option<OptimizationLevel>,
    pub intra_op_threads: Option<usize>,
}

impl ReferenceRequest {
    /// The reference run's request for a model whose own request is `request`.
    pub fn for_request(&self, request: &PlanRequest) -> PlanRequest {
        PlanRequest {
            intra_op_threads: self.intra_op_threads.or(request.intra_op_threads),
            ..request.reference(self.ep.clone(), self.optimization_level)
        }
    }
}

/// An isolation child's part, from its hidden flags.
fn child_handoff(args: &IsolationArgs) -> Option<crate::batch::Handoff> {
    match (&args.preflight, &args.child_report) {
        (Some(items), Some(results)) => Some(crate::batch::Handoff { items: items.clone(), results: results.clone() }),
        _ => None,
    }
}

/// `--ci`, against this process's environment.
pub fn github_target(args: &crate::cli::CiArgs) -> Option<github::Target> {
    github::target(args.ci.forced(), |name| std::env::var(name).ok())
}

/// `--save-models DIR` (test's and bench's), checked writable before any item runs, as the
/// exports are.
fn save_models_folder(dir: &Option<PathBuf>) -> Result<Option<PathBuf>> {
    use anyhow::Context;
    if let Some(dir) = dir {
        crate::report::export::check_writable_folder(dir)
            .with_context(|| format!("--save-models {}", dir.display()))?;
    }
    Ok(dir.clone())
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
    LoadOptions {
        preprocess: PreprocessRequest { max_pixels: args.max_image_pixels, ..Default::default() },
        generate: Some(args.generate),
        seed: args.seed,
        max_tensor_bytes: args.max_tensor_bytes,
        free_dim_size: usize::try_from(args.free_dim_size).unwrap_or(usize::MAX),
        ranges: args.generate_ranges.clone(),
    }
}

/// `--isolation` and `--timeout` as the batch runner takes them; whether DirectML is in the plan
/// is known once the runtime is loaded.
pub fn placement_request(args: &IsolationArgs, default_limit: Duration, print_plan: bool) -> PlacementRequest {
    PlacementRequest { isolation: args.isolation, timeout: args.timeout, default_limit, directml: false, print_plan }
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
