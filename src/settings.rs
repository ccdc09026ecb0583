//! Flags resolved once into the values the engine and the batch runner take, as ripgrep's
//! `HiArgs`: clap's structs end here. The session plan request, the image preprocessing
//! request, tolerances, run budgets and load options, and each batch command's settings.

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

/// `dmlrun test`'s flags, resolved once: what every case's run reads.
#[derive(Debug, Clone)]
pub struct TestSettings {
    pub request: PlanRequest,
    pub reference: Option<ReferenceRequest>,
    pub tolerances: Tolerances,
    pub check_finite: bool,
    /// How a model without test data gets its inputs, and the size limits of every case's.
    pub load: LoadOptions,
    /// Run a case that fails on an EP other than the CPU on the reference EP, to say whose
    /// failure it is (off for dmlrun reduce's candidates).
    pub blame: bool,
    pub jobs: usize,
    /// Where the cases run; the DirectML part is filled in once the runtime is loaded.
    pub placement: PlacementRequest,
    /// `--shard`: the part of the cases this run takes, and with `auto` the variables that said so.
    pub shard: Option<(Shard, Option<String>)>,
    /// `--ci`: GitHub's summary and annotations, when they are wanted.
    pub github: Option<github::Target>,
    /// `--save-models`: where each case's model is written as its session ran it.
    pub save_models: Option<PathBuf>,
    /// `--save-fixed-dims`: those models with their free dimensions as the session fixed them.
    pub save_fixed_dims: bool,
    pub ort: OrtSettings,
    /// The folders and models to find cases in.
    pub paths: Vec<PathBuf>,
    /// `--expect FILE`: the expected outcome of each case.
    pub expect: Option<PathBuf>,
    pub exports: TestExports,
    /// An isolation child's part: the cases its parent resolved, and where their results go.
    pub child: Option<crate::batch::Handoff>,
    pub verbose: bool,
    pub quiet: bool,
}

/// Where `test` writes its reports.
#[derive(Debug, Clone)]
pub struct TestExports {
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub write_expect: Option<PathBuf>,
}

/// Where `bench` writes its reports.
#[derive(Debug, Clone)]
pub struct BenchExports {
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub junit: Option<PathBuf>,
}

/// An isolation child's part, from its hidden flags.
fn child_handoff(args: &IsolationArgs) -> Option<crate::batch::Handoff> {
    match (&args.preflight, &args.child_report) {
        (Some(items), Some(results)) => Some(crate::batch::Handoff { items: items.clone(), results: results.clone() }),
        _ => None,
    }
}

/// How long one test case may run when --timeout does not say: far beyond any conformance case
/// or real model here (the slowest takes seconds), short enough that a hang costs minutes.
pub const DEFAULT_CASE_LIMIT: Duration = Duration::from_secs(5 * 60);

impl TestSettings {
    pub fn resolve(args: &TestArgs) -> Result<TestSettings> {
        let mut request = plan_request(&args.session, args.ort.ort_log_level)?;
        let jobs = args.jobs as usize;
        if jobs > 1 && request.intra_op_threads.is_none() {
            // Several sessions at once: one thread each, not one pool per core per session.
            request.intra_op_threads = Some(1);
        }
        Ok(TestSettings {
            request,
            reference: args.compare_ep.clone().map(|ep| ReferenceRequest {
                ep,
                optimization_level: args.compare_opt_level,
                intra_op_threads: args.compare_intra_threads,
            }),
            tolerances: Tolerances {
                default: Tolerance { atol: args.atol, rtol: args.rtol },
                per_output: args.tols.iter().map(|(n, a, r)| (n.clone(), Tolerance { atol: *a, rtol: *r })).collect(),
            },
            check_finite: args.check_finite,
            load: batch_load_options(&args.inputs),
            blame: !args.no_blame,
            jobs,
            placement: placement_request(&args.isolation, DEFAULT_CASE_LIMIT, false),
            shard: resolve_shard(args.shard)?,
            github: github_target(&args.ci),
            save_models: save_models_folder(&args.save_models)?,
            save_fixed_dims: args.save_fixed_dims,
            ort: OrtSettings::of(&args.ort),
            paths: args.paths.clone(),
            expect: args.expect.clone(),
            exports: TestExports {
                json: args.json.clone(),
                junit: args.junit.clone(),
                html: args.html.clone(),
                write_expect: args.write_expect.clone(),
            },
            child: child_handoff(&args.isolation),
            verbose: args.verbose,
            quiet: args.quiet,
        })
    }

    /// The reference run's request for a case whose own request is `request`, with --compare-ep.
    pub fn reference_request(&self, request: &PlanRequest) -> Option<PlanRequest> {
        self.reference.as_ref().map(|r| r.for_request(request))
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

/// Default timed runs per bench model when neither --iterations nor --duration is given.
pub const DEFAULT_BENCH_ITERATIONS: u64 = 100;

/// How long one bench model may take when --timeout does not say: ten times what the slowest
/// real model here takes with the default 100 runs on a 2-core machine, short enough that a
/// model that never returns costs minutes, not the session.
pub const DEFAULT_MODEL_LIMIT: Duration = Duration::from_secs(10 * 60);

/// `dmlrun bench`'s flags, resolved once: what every model's measurement reads.
#[derive(Debug, Clone)]
pub struct BenchSettings {
    pub request: PlanRequest,
    /// How inputs are made for every model; a manifest entry adds its own fill and ranges.
    pub load: LoadOptions,
    pub budget: RunBudget,
    pub warmup: u64,
    pub reference: Option<ReferenceRequest>,
    /// `--compare-ep`'s tolerance; a manifest entry's own wins.
    pub tolerances: Tolerances,
    pub sessions: Option<usize>,
    pub profile: Option<PathBuf>,
    pub cache: Option<PathBuf>,
    pub sweep: Option<Sweep>,
    pub baseline: Option<PathBuf>,
    /// `--baseline-model`: older versions timed beside the models, in alternating rounds.
    pub baseline_models: Vec<PathBuf>,
    pub max_regression: f64,
    /// Rounds the timed runs come in (never more than the runs).
    pub rounds: usize,
    pub seed: u64,
    pub print_plan: bool,
    pub quiet: bool,
    /// This process is an isolation child (it measures one model: its peak memory is that model's).
    pub in_child: bool,
    pub placement: PlacementRequest,
    /// `--shard`, as for test.
    pub shard: Option<(Shard, Option<String>)>,
    pub github: Option<github::Target>,
    /// `--save-models`: where each model is written as its session ran it.
    pub save_models: Option<PathBuf>,
    /// `--save-fixed-dims`: those models with their free dimensions as the session fixed them.
    pub save_fixed_dims: bool,
    pub ort: OrtSettings,
    /// The models, folders and manifests to bench, as given.
    pub targets: Vec<PathBuf>,
    pub exports: BenchExports,
    /// An isolation child's part, as for test.
    pub child: Option<crate::batch::Handoff>,
}

impl BenchSettings {
    pub fn resolve(args: &BenchArgs) -> Result<BenchSettings> {
        let mut request = run_plan_request(&args.session, &args.device_io, args.ort.ort_log_level)?;
        if args.profile_unfused {
            if request.ep == EpRequest::Cpu {
                anyhow::bail!(
                    "--profile-unfused turns DirectML's graph fusion off and cannot be combined with --ep cpu, which has none"
                );
            }
            request.session_config.push((DML_DISABLE_FUSION.to_string(), "1".to_string()));
        }
        if !args.baseline_model.is_empty() && request.io_on_device {
            anyhow::bail!(
                "--baseline-model times both models with their inputs in host memory; --io-on-device and --dml-graph-capture cannot be combined with it"
            );
        }
        let budget = match (args.iterations, args.duration) {
            (Some(n), _) => RunBudget { max: n, time_box: None, min: 0 },
            (None, Some(d)) => RunBudget {
                max: args.max_iterations.max(args.min_iterations),
                time_box: Some(d),
                min: args.min_iterations,
            },
            (None, None) => RunBudget { max: DEFAULT_BENCH_ITERATIONS, time_box: None, min: 0 },
        };
        Ok(BenchSettings {
            request,
            load: batch_load_options(&args.inputs),
            budget,
            warmup: args.warmup,
            reference: args.compare.compare_ep.clone().map(|ep| ReferenceRequest {
                ep,
                optimization_level: args.compare.compare_opt_level,
                intra_op_threads: None,
            }),
            tolerances: Tolerances {
                default: Tolerance { atol: args.compare.atol, rtol: args.compare.rtol },
                per_output: BTreeMap::new(),
            },
            sessions: args.sessions.map(|n| n as usize),
            profile: args.profile.clone(),
            cache: args.cache.clone(),
            sweep: args.sweep.clone().or_else(|| args.sweep_shape.clone()),
            baseline: args.baseline.clone(),
            baseline_models: args.baseline_model.clone(),
            max_regression: args.max_regression,
            rounds: args.rounds.min(usize::try_from(budget.max).unwrap_or(usize::MAX)).max(1),
            seed: args.inputs.seed,
            print_plan: args.session.print_plan,
            quiet: args.quiet,
            in_child: args.isolation.child_report.is_some(),
            placement: placement_request(&args.isolation, DEFAULT_MODEL_LIMIT, args.session.print_plan),
            shard: resolve_shard(args.shard)?,
            github: github_target(&args.ci),
            save_models: save_models_folder(&args.save_models)?,
            save_fixed_dims: args.save_fixed_dims,
            ort: OrtSettings::of(&args.ort),
            targets: args.targets.clone(),
            exports: BenchExports {
                json: args.json.clone(),
                csv: args.csv.clone(),
                markdown: args.markdown.clone(),
                html: args.html.clone(),
                junit: args.junit.clone(),
            },
            child: child_handoff(&args.isolation),
        })
    }

    /// How `target`'s inputs are made: the run's options with the manifest entry's fill and
    /// value ranges.
    pub fn load_for(&self, target: &BenchTarget) -> LoadOptions {
        LoadOptions {
            generate: target.generate.or(self.load.generate),
            ranges: self.load.ranges.iter().chain(&target.generate_ranges).cloned().collect(),
            ..self.load.clone()
        }
    }
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
        if let Some(path) = args.json.as_deref().filter(|p| *p != Path::new("-")) {
            crate::report::export::check_writable(path).with_context(|| format!("--json {}", path.display()))?;
        }
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
            print_plan: args.session.print_plan,
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

/// Where `generate`'s prompts come from.
#[derive(Debug, Clone)]
pub enum PromptSource {
    /// `--prompt-tokens N`: a synthetic prompt of N ids.
    Synthetic(usize),
    /// `--prompt-ids`.
    Ids(Vec<i64>),
    /// `--prompt TEXT`.
    Text(String),
    /// `--prompt-file FILE`: one prompt a non-empty line.
    File(PathBuf),
}

/// `dmlrun generate`'s flags, resolved once: what the loop, the session and the report read.
#[derive(Debug, Clone)]
pub struct GenerateSettings {
    pub model: PathBuf,
    pub tokenizer: Option<PathBuf>,
    pub context_length: Option<usize>,
    /// `--kv-layout`, where given (else the model's genai_config.json says).
    pub kv_layout: Option<crate::generate::KvLayout>,
    pub prompt: PromptSource,
    pub seed: u64,
    pub max_new_tokens: usize,
    pub max_length: Option<usize>,
    pub ignore_eos: bool,
    pub sampling: crate::generate::Sampling,
    pub choice: crate::generate::Choice,
    pub capture: crate::generate::CaptureAsk,
    pub warmup: u64,
    pub iterations: u64,
    /// `--compare-ep` and its optimisation level.
    pub compare: Option<(EpRequest, Option<OptimizationLevel>)>,
    pub blame: bool,
    /// `--timeout`; zero for none.
    pub timeout: Duration,
    pub ort: OrtSettings,
    pub request: PlanRequest,
    pub print_plan: bool,
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub verbose: bool,
    pub quiet: bool,
    pub github: Option<github::Target>,
}

impl GenerateSettings {
    pub fn resolve(args: &GenerateArgs) -> Result<GenerateSettings> {
        use crate::generate::{CaptureAsk, Choice, Sampling};
        use anyhow::bail;
        if args.session.precision != crate::runtime::plan::Precision::Fp32 {
            bail!("--precision fp16 converts a model for run, test, bench and reduce; a decoder comes in float16 from its builder (onnxruntime-genai's -p fp16)");
        }
        for flag in [&args.json, &args.csv, &args.markdown, &args.html].into_iter().flatten() {
            if flag.is_dir() {
                bail!("{}: is a directory, not a report file", flag.display());
            }
        }
        let prompt = match (&args.prompt_tokens, &args.prompt_ids, &args.prompt, &args.prompt_file) {
            (Some(n), ..) => PromptSource::Synthetic(*n as usize),
            (None, Some(ids), ..) => PromptSource::Ids(ids.clone()),
            (None, None, Some(text), _) => PromptSource::Text(text.clone()),
            (None, None, None, Some(file)) => PromptSource::File(file.clone()),
            (None, None, None, None) => {
                bail!("no prompt: give --prompt TEXT, --prompt-file FILE, --prompt-tokens N or --prompt-ids IDS")
            }
        };
        Ok(GenerateSettings {
            model: args.model.clone(),
            tokenizer: args.tokenizer.clone(),
            context_length: args.context_length,
            kv_layout: args.kv_layout,
            prompt,
            seed: args.seed,
            max_new_tokens: args.max_new_tokens as usize,
            max_length: args.max_length,
            ignore_eos: args.ignore_eos,
            sampling: match args.sample {
                true => Sampling::Sample {
                    temperature: args.temperature,
                    top_k: args.top_k,
                    top_p: args.top_p,
                    seed: args.seed,
                },
                false => Sampling::Greedy,
            },
            choice: match (args.sample, args.choose_on_host) {
                (true, _) => Choice::Sampled,
                (false, true) => Choice::GreedyOnHost,
                (false, false) => Choice::Greedy,
            },
            capture: match (args.device_io.dml_graph_capture, args.no_dml_graph_capture) {
                (true, _) => CaptureAsk::DmlGraphCapture,
                (false, true) => CaptureAsk::NoDmlGraphCapture,
                (false, false) => CaptureAsk::Default,
            },
            warmup: args.warmup,
            iterations: args.iterations,
            compare: args.compare_ep.clone().map(|ep| (ep, args.compare_opt_level)),
            blame: !args.no_blame,
            timeout: args.timeout,
            ort: OrtSettings::of(&args.ort),
            request: run_plan_request(&args.session, &args.device_io, args.ort.ort_log_level)?,
            print_plan: args.session.print_plan,
            json: args.json.clone(),
            csv: args.csv.clone(),
            markdown: args.markdown.clone(),
            html: args.html.clone(),
            verbose: args.verbose,
            quiet: args.quiet,
            github: github_target(&args.ci),
        })
    }
}

/// `dmlrun reduce`'s flags, resolved once: the model, checked to be a file; the folder the
/// minimal model goes to; the EP under test and the reference, checked to be two.
#[derive(Debug, Clone)]
pub struct ReduceSettings {
    pub model: PathBuf,
    /// `--output`, or `MODEL-reduced/` beside the model.
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
    pub time_limit: Option<Duration>,
    pub candidate_timeout: Duration,
    pub json: Option<PathBuf>,
    pub quiet: bool,
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
            model.with_file_name(format!("{stem}-reduced"))
        });
        Ok(ReduceSettings {
            output,
            each_op: args.each_op,
            ort: OrtSettings::of(&args.ort),
            request: plan_request(&args.session, args.ort.ort_log_level)?,
            compare_ep: args.reference.compare_ep.clone(),
            tolerance: args.reference.tolerance(),
            own_options: !args.session.session_config.is_empty() || !args.session.ep_options.is_empty(),
            inputs: args.input.inputs.clone(),
            load: load_options(&args.input, &args.preprocess),
            time_limit: args.time_limit,
            candidate_timeout: args.candidate_timeout,
            json: args.json.clone(),
            quiet: args.quiet,
            model,
        })
    }
}

/// `dmlrun merge`'s flags, resolved once: the reports, and where the merged one goes (at most one
/// of them on standard output).
#[derive(Debug, Clone)]
pub struct MergeSettings {
    pub reports: Vec<PathBuf>,
    /// `--compare`: runs side by side, not shards of one run.
    pub compare: bool,
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub csv: Option<PathBuf>,
}

impl MergeSettings {
    pub fn resolve(args: &MergeArgs) -> Result<MergeSettings> {
        crate::report::check_one_on_stdout(&[
            ("--json", args.json.as_deref()),
            ("--junit", args.junit.as_deref()),
            ("--html", args.html.as_deref()),
            ("--markdown", args.markdown.as_deref()),
            ("--csv", args.csv.as_deref()),
        ])?;
        Ok(MergeSettings {
            reports: args.reports.clone(),
            compare: args.compare,
            json: args.json.clone(),
            junit: args.junit.clone(),
            html: args.html.clone(),
            markdown: args.markdown.clone(),
            csv: args.csv.clone(),
        })
    }
}

/// `dmlrun fix`'s flags, resolved once: the model (a file, or an onnxruntime-genai folder),
/// checked; where the fixed model goes, checked before any work (not in an attempt's child).
#[derive(Debug, Clone)]
pub struct FixSettings {
    pub model: PathBuf,
    /// The model is an onnxruntime-genai folder: attempts generate, not run.
    pub decoder: bool,
    /// An isolation child's attempt (hidden `--attempt JSON`).
    pub attempt: Option<String>,
    pub output: PathBuf,
    pub write_unchanged: bool,
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
    /// `--isolation` and `--timeout`, an attempt's limit.
    pub isolation: crate::isolation::Isolation,
    pub timeout: Option<Duration>,
    /// An attempt's child: its record's file, and its progress file.
    pub child_report: Option<PathBuf>,
    pub progress: Option<PathBuf>,
}

impl FixSettings {
    pub fn resolve(args: &FixArgs) -> Result<FixSettings> {
        use anyhow::{bail, Context};
        let model = args.model.clone();
        let decoder = model.is_dir();
        if decoder && !model.join("genai_config.json").is_file() {
            bail!(
                "model {}: is a folder without genai_config.json; dmlrun fix takes a model file or an onnxruntime-genai folder",
                model.display()
            );
        }
        if !decoder && !model.is_file() {
            bail!("model {}: no such file", model.display());
        }
        let request = plan_request(&args.session, args.ort.ort_log_level)?;
        if decoder && request.precision != crate::runtime::plan::Precision::Fp32 {
            bail!("--precision fp16: a decoder comes in float16 from its builder (onnxruntime-genai's -p fp16); dmlrun generate does not convert one");
        }
        if args.attempt.is_none() {
            if !decoder {
                crate::report::export::check_writable(&args.output)
                    .with_context(|| format!("--output {}", args.output.display()))?;
            }
            if let Some(path) = args.json.as_deref().filter(|p| *p != Path::new("-")) {
                crate::report::export::check_writable(path).with_context(|| format!("--json {}", path.display()))?;
            }
        }
        Ok(FixSettings {
            model,
            decoder,
            attempt: args.attempt.clone(),
            output: args.output.clone(),
            write_unchanged: args.write_unchanged,
            save_fixed_dims: args.save_fixed_dims,
            json: args.json.clone(),
            quiet: args.quiet,
            ort: OrtSettings::of(&args.ort),
            request,
            compare_ep: args.reference.compare_ep.clone(),
            tolerance: args.reference.tolerance(),
            inputs: args.input.inputs.clone(),
            load: load_options(&args.input, &args.preprocess),
            isolation: args.isolation.isolation,
            timeout: args.isolation.timeout,
            child_report: args.isolation.child_report.clone(),
            progress: args.isolation.progress.clone(),
        })
    }
}
