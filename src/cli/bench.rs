//! `dmlrun bench`.

use std::path::PathBuf;

use clap::Args;

use super::help::{BATCHES, CHECKING, OUTPUTS, TIMING};
use super::parse::*;
use super::{
    BatchInputArgs, CompareArgs, DeviceIoArgs, ExportArgs, IsolationArgs, OrtArgs, SaveModelsArgs, SessionArgs,
};
use crate::suites::manifest::Sweep;

/// `dmlrun bench`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// .onnx files, folders (searched recursively), or manifests (.toml/.json: per model path,
    /// name, dims, inputs, generate).
    ///
    /// Example: dmlrun bench models/ bench.toml extra.onnx
    #[arg(value_name = "MODEL|DIR|MANIFEST", required = true)]
    pub targets: Vec<PathBuf>,

    #[command(flatten)]
    pub inputs: BatchInputArgs,

    #[command(flatten)]
    pub session: SessionArgs,

    #[command(flatten)]
    pub device_io: DeviceIoArgs,

    /// Timed runs per model (default 100, unless --duration is given).
    ///
    /// Example: --iterations 500
    #[arg(long, value_name = "N", value_parser = parse_iterations, conflicts_with = "duration", help_heading = TIMING)]
    pub iterations: Option<u64>,

    /// Time box per model instead of a count, e.g. 10s or 500ms (bounded by --min/--max-iterations).
    ///
    /// Example: --duration 10s
    #[arg(long, value_name = "TIME", value_parser = parse_duration, help_heading = TIMING)]
    pub duration: Option<std::time::Duration>,

    /// With --duration: at least this many timed runs.
    ///
    /// Example: --duration 5s --min-iterations 50
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = parse_iterations, help_heading = TIMING)]
    pub min_iterations: u64,

    /// With --duration: at most this many timed runs.
    ///
    /// Example: --duration 30s --max-iterations 10000
    #[arg(long, value_name = "N", default_value_t = 1_000_000, value_parser = parse_iterations, help_heading = TIMING)]
    pub max_iterations: u64,

    /// Untimed runs after the first run.
    ///
    /// Example: --warmup 20
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = parse_warmup, help_heading = TIMING)]
    pub warmup: u64,

    /// Also run N sessions of each model at once, each by its own thread, and report their
    /// aggregate throughput and each one's latency percentiles.
    ///
    /// The N sessions are opened fresh beside the one measured alone (whose figures stay in the
    /// report for comparison) and released together after their warm-up; each runs the same
    /// --iterations or --duration. DirectML's rule of one Run at a time holds per session.
    ///
    /// Example: dmlrun bench resnet50.onnx --device 0 --sessions 4
    #[arg(long, value_name = "N", value_parser = parse_sessions, help_heading = TIMING)]
    pub sessions: Option<u32>,

    /// Measure each model once per size of a free dimension, each size in a session of its own:
    /// session creation and the first run (where DirectML compiles for the shape) beside the
    /// steady p50/p99 and items per second, the best throughput marked.
    ///
    /// The models without that dimension are measured once, and say so. The table, JSON, CSV,
    /// Markdown and the HTML page (items/s and p50 plotted against the size) show the sweep.
    ///
    /// Example: dmlrun bench resnet50.onnx --device 0 --sweep N=1,2,4,8,16,32,64
    #[arg(long, value_name = "DIM=N,N,...", value_parser = parse_sweep, conflicts_with = "sweep_shape", help_heading = TIMING)]
    pub sweep: Option<Sweep>,

    /// As --sweep, over one input's whole shapes (which also fix its named free dimensions),
    /// separated by ':'.
    ///
    /// Example: --sweep-shape x=1,3,224,224:1,3,320,320:1,3,640,640
    #[arg(long, value_name = "NAME=SHAPE:SHAPE...", value_parser = parse_sweep_shape, help_heading = TIMING)]
    pub sweep_shape: Option<Sweep>,

    /// Save ONNX Runtime's per-operator profile of each model into DIR and print the top 10 operators.
    ///
    /// Under DirectML with graph fusion (the default) the profile shows one DmlFusedNode: add
    /// --profile-unfused to see the operators.
    ///
    /// Example: --profile profiles/
    #[arg(long, value_name = "DIR", help_heading = TIMING)]
    pub profile: Option<PathBuf>,

    /// With --profile on DirectML: turn DirectML's graph fusion off (ep.dml.disable_graph_fusion=1)
    /// so the profile lists each operator with its time and share.
    ///
    /// This changes what is measured: every latency of the run is the unfused graph's, and the
    /// report labels it so. Implies DirectML.
    ///
    /// Example: dmlrun bench resnet50.onnx --device 0 --profile prof/ --profile-unfused
    #[arg(long, requires = "profile", help_heading = TIMING)]
    pub profile_unfused: bool,

    /// Keep the optimised model ONNX Runtime produces in DIR (keyed by model hash, EP, device,
    /// dims, optimisation level and ONNX Runtime version) and load it next time.
    ///
    /// Example: --cache ~/.cache/dmlrun
    #[arg(long, value_name = "DIR", help_heading = TIMING)]
    pub cache: Option<PathBuf>,

    #[command(flatten)]
    pub compare: CompareArgs,

    /// Judge each model's runs against an earlier --json report's: regression, improvement, no
    /// change or inconclusive; exit 1 on a regression.
    ///
    /// A regression is a slowdown that the Mann-Whitney U test finds significant (p < 0.05), whose
    /// 95% bootstrap interval of the ratio of medians (rounds resampled) lies above 1, and whose
    /// ratio is beyond --max-regression. Where the noise is wider than the threshold the verdict
    /// is inconclusive, with its width. Differences between the two runs' devices, ONNX Runtime,
    /// dmlrun, model file or timing flags are said beside each verdict. A report recorded at
    /// another time on a shared machine carries that time's load: --baseline-model times old
    /// and new together instead.
    ///
    /// Example: --baseline main-bench.json --max-regression 5%
    #[arg(long, value_name = "OLD.json", help_heading = CHECKING)]
    pub baseline: Option<PathBuf>,

    /// Time an older version of the model in the same session, in alternating rounds (A B B A
    /// ...) on the same device with the same session options, and judge the new one against it
    /// as --baseline does: a slow spell of the machine then falls on both.
    ///
    /// One per model, paired by order (as many as the models) or by file name; the rewrites and
    /// --precision apply to MODEL only, so `bench m.onnx --precision fp16 --baseline-model m.onnx`
    /// judges float16 against float32.
    ///
    /// Example: dmlrun bench new.onnx --baseline-model old.onnx --max-regression 5%
    #[arg(long, value_name = "OLD.onnx", conflicts_with_all = ["baseline", "sweep", "sweep_shape", "sessions"], help_heading = CHECKING)]
    pub baseline_model: Vec<PathBuf>,

    /// Largest slowdown taken as none against --baseline or --baseline-model, e.g. 5% or 0.05:
    /// a significant change within it both ways is 'no change'. A bare number of 1 or more (5)
    /// is refused as ambiguous: write 5%.
    ///
    /// Example: --max-regression 10%
    #[arg(long, value_name = "PERCENT", default_value = "5%", value_parser = parse_fraction, help_heading = CHECKING)]
    pub max_regression: f64,

    /// Time each model's runs in N rounds: consecutive blocks (alternating with the baseline
    /// model's under --baseline-model), kept in the JSON report, so a slow spell shows as a
    /// slow round and the verdict weighs the spread between rounds.
    ///
    /// Example: --iterations 200 --rounds 20
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = parse_rounds, help_heading = TIMING)]
    pub rounds: usize,

    /// Benchmark only shard K of N of the models: count mode (K/N) deals them round-robin in
    /// the order given, hash mode (hash:K/N) by a hash of each model's name. `dmlrun merge`
    /// puts the N JSON reports back together.
    ///
    /// `auto` reads which part this CI job is from its variables, as `dmlrun test --shard auto`.
    ///
    /// Example: --shard 1/2 --json bench-1.json
    #[arg(long, value_name = "K/N|auto", value_parser = parse_shard, help_heading = BATCHES)]
    pub shard: Option<crate::suites::shard::ShardRequest>,

    #[command(flatten)]
    pub isolation: IsolationArgs,

    #[command(flatten)]
    pub exports: ExportArgs,

    #[command(flatten)]
    pub save: SaveModelsArgs,

    /// No progress bars.
    ///
    /// Example: -q
    #[arg(short, long, help_heading = OUTPUTS)]
    pub quiet: bool,

    #[command(flatten)]
    pub ci: super::CiArgs,

    #[command(flatten)]
    pub ort: OrtArgs,
}
