//! `dmlrun test`.

use std::path::PathBuf;

use clap::Args;

use super::help::{BATCHES, CHECKING, OUTPUTS};
use super::parse::*;
use super::{BatchInputArgs, ExportArgs, IsolationArgs, OrtArgs, SaveModelsArgs, SessionArgs};
use crate::runtime::plan::{EpRequest, OptimizationLevel};

/// `dmlrun test`.
#[derive(Debug, Clone, Args)]
pub struct TestArgs {
    /// Model folders in ONNX's test-data layout, or trees of them (searched recursively), and
    /// model files without test data (checked against --compare-ep on generated inputs).
    ///
    /// Example: dmlrun test onnx-conformance/node models/frozen
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub inputs: BatchInputArgs,

    #[command(flatten)]
    pub session: SessionArgs,

    /// Relative tolerance: a float passes when |expected - actual| <= atol + rtol * |expected|.
    /// A case's data.json overrides it.
    ///
    /// Example: --rtol 1e-2
    #[arg(long, value_name = "R", default_value_t = crate::compare::ONNX_TEST_DATA.rtol, help_heading = CHECKING)]
    pub rtol: f64,

    /// Absolute tolerance (see --rtol). A case's data.json overrides it. The default, 1e-7 with
    /// rtol 1e-3, is ONNX's own for its test data (its backend test runner's), so conformance
    /// results compare with ONNX Runtime's; run and bench compare two EPs at 1e-5.
    ///
    /// Example: --atol 1e-5
    #[arg(long, value_name = "A", default_value_t = crate::compare::ONNX_TEST_DATA.atol, help_heading = CHECKING)]
    pub atol: f64,

    /// Tolerance for one output, overriding everything else: --tol NAME=ATOL,RTOL. Repeatable.
    ///
    /// Example: --tol logits=1e-3,1e-2
    #[arg(long = "tol", value_name = "OUTPUT=ATOL,RTOL", value_parser = parse_tol, help_heading = CHECKING)]
    pub tols: Vec<(String, f64, f64)>,

    /// Fail a case whose outputs hold NaN or Inf.
    ///
    /// Example: --check-finite
    #[arg(long, help_heading = CHECKING)]
    pub check_finite: bool,

    /// Also run every case on this execution provider and compare the two runs with the same
    /// rules (instead of the expected outputs): the DirectML-vs-CPU check.
    ///
    /// Takes what --ep takes: dml, cpu, an EP name, policy:POLICY.
    ///
    /// Example: dmlrun test suite/ --ep dml --compare-ep cpu
    #[arg(long, value_name = "EP", value_parser = parse_ep, help_heading = CHECKING)]
    pub compare_ep: Option<EpRequest>,

    /// Optimisation level of the reference run of --compare-ep (default: as the main run).
    ///
    /// Example: --compare-ep cpu --compare-opt-level disable
    #[arg(long, value_name = "LEVEL", requires = "compare_ep", help_heading = CHECKING)]
    pub compare_opt_level: Option<OptimizationLevel>,

    /// Intra-op threads of the reference run of --compare-ep.
    ///
    /// Example: --compare-ep cpu --compare-intra-threads 1
    #[arg(long, value_name = "N", requires = "compare_ep", value_parser = parse_threads, help_heading = CHECKING)]
    pub compare_intra_threads: Option<usize>,

    /// Known failures: lines of `fail NAME` or `error NAME` (# comments). Those cases may fail
    /// without failing the run; any other change does, and a known failure that now passes is reported.
    ///
    /// Example: --expect tests/conformance/cpu-expected.txt
    #[arg(long, value_name = "FILE", help_heading = CHECKING)]
    pub expect: Option<PathBuf>,

    /// Write this run's failures and errors as an --expect file.
    ///
    /// Example: --write-expect known-failures.txt
    #[arg(long, value_name = "FILE", help_heading = CHECKING)]
    pub write_expect: Option<PathBuf>,

    /// Run only shard K of N of the cases: count mode (K/N) deals them round-robin in name
    /// order, hash mode (hash:K/N) by a hash of each case's name. The N shards together run
    /// every case once; `dmlrun merge` puts their JSON reports back together.
    ///
    /// `auto` reads which part this CI job is from DMLRUN_SHARD=K/N, GitLab's, Buildkite's,
    /// CircleCI's or Azure Pipelines' parallel jobs, or a SLURM array, and says which variables
    /// it read; with none set it is an error, never a run of everything.
    ///
    /// Example: --shard 2/4 --json shard-2.json
    #[arg(long, value_name = "K/N|auto", value_parser = parse_shard, help_heading = BATCHES)]
    pub shard: Option<crate::suites::shard::ShardRequest>,

    /// Run this many cases at once (CPU only; DirectML cases always run one at a time).
    /// With more than one, each session uses one intra-op thread unless --intra-threads says otherwise.
    ///
    /// Example: --jobs 2
    #[arg(short, long, value_name = "N", default_value_t = 1, value_parser = parse_jobs, help_heading = BATCHES)]
    pub jobs: u64,

    #[command(flatten)]
    pub isolation: IsolationArgs,

    #[command(flatten)]
    pub save: SaveModelsArgs,

    #[command(flatten)]
    pub exports: ExportArgs,

    /// List passing cases too.
    ///
    /// Example: -v
    #[arg(short, long, help_heading = OUTPUTS)]
    pub verbose: bool,

    /// Print only the summary line.
    ///
    /// Example: -q
    #[arg(short, long, help_heading = OUTPUTS)]
    pub quiet: bool,

    #[command(flatten)]
    pub ci: super::CiArgs,

    #[command(flatten)]
    pub ort: OrtArgs,
}
