//! `dmlrun bench`'s settings: what every model's measurement reads.

use super::*;

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
    pub batch: BatchRun,
    /// The models, folders and manifests to bench, as given.
    pub targets: Vec<PathBuf>,
    pub exports: ReportFiles,
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
            (Some(n), _) => RunBudget::runs(n),
            (None, Some(d)) => RunBudget {
                max: args.max_iterations.max(args.min_iterations),
                time_box: Some(d),
                min: args.min_iterations,
            },
            (None, None) => RunBudget::runs(DEFAULT_BENCH_ITERATIONS),
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
            tolerances: Tolerances::given(Tolerance { atol: args.compare.atol, rtol: args.compare.rtol }, []),
            sessions: args.sessions.map(|n| n as usize),
            profile: args.profile.clone(),
            cache: args.cache.clone(),
            sweep: args.sweep.clone().or_else(|| args.sweep_shape.clone()),
            baseline: args.baseline.clone(),
            baseline_models: args.baseline_model.clone(),
            max_regression: args.max_regression,
            rounds: args.rounds.min(usize::try_from(budget.max).unwrap_or(usize::MAX)).max(1),
            seed: args.inputs.generated.seed,
            print_plan: args.session.print_plan,
            batch: BatchRun::resolve(BatchRunArgs {
                ort: &args.ort,
                isolation: &args.isolation,
                default_limit: DEFAULT_MODEL_LIMIT,
                print_plan: args.session.print_plan,
                shard: args.shard,
                ci: &args.ci,
                save: &args.save,
                quiet: args.quiet,
            })?,
            targets: args.targets.clone(),
            exports: report_files(&args.exports),
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
