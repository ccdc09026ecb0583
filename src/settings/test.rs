//! `dmlrun test`'s settings: what every case's run reads.

use super::*;

/// `dmlrun test`'s flags, resolved once: what every case's run reads.
#[derive(Debug, Clone)]
pub struct TestSettings {
    pub request: PlanRequest,
    /// How each case is checked.
    pub check: CaseCheck,
    pub jobs: usize,
    pub batch: BatchRun,
    /// The folders and models to find cases in.
    pub paths: Vec<PathBuf>,
    /// `--expect FILE`: the expected outcome of each case.
    pub expect: Option<PathBuf>,
    pub exports: ReportFiles,
    /// `--write-expect FILE`: the run's statuses as an expectations file.
    pub write_expect: Option<PathBuf>,
    pub verbose: bool,
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
            check: CaseCheck {
                reference: args.compare_ep.clone().map(|ep| ReferenceRequest {
                    ep,
                    optimization_level: args.compare_opt_level,
                    intra_op_threads: args.compare_intra_threads,
                }),
                tolerances: Tolerances::given(
                    Tolerance { atol: args.atol, rtol: args.rtol },
                    args.tols.iter().map(|(n, a, r)| (n.clone(), Tolerance { atol: *a, rtol: *r })),
                ),
                check_finite: args.check_finite,
                load: batch_load_options(&args.inputs),
                blame: true,
            },
            jobs,
            batch: BatchRun::resolve(BatchRunArgs {
                ort: &args.ort,
                isolation: &args.isolation,
                default_limit: DEFAULT_CASE_LIMIT,
                print_plan: false,
                shard: args.shard,
                ci: &args.ci,
                save: &args.save,
                quiet: args.quiet,
            })?,
            paths: args.paths.clone(),
            expect: args.expect.clone(),
            exports: report_files(&args.exports),
            write_expect: args.write_expect.clone(),
            verbose: args.verbose,
        })
    }
}
