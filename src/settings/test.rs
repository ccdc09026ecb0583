//! `dmlrun test`'s settings: what every case's run reads.

use super::*;

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
