//! `dmlrun reduce`.

use std::path::PathBuf;

use clap::Args;

use super::help::{OUTPUTS, REDUCTION};
use super::parse::*;
use super::{ChildArgs, OrtArgs, SubjectArgs};

/// `dmlrun reduce`.
#[derive(Debug, Clone, Args)]
pub struct ReduceArgs {
    /// The ONNX model that fails on the execution provider --ep names (auto by default: DirectML where the loaded ONNX Runtime has it) and
    /// runs on the reference (--compare-ep, the CPU by default).
    ///
    /// Example: dmlrun reduce det.onnx --device 0 --shape x=1,3,736,736
    #[arg(value_name = "MODEL")]
    pub model: PathBuf,

    #[command(flatten)]
    pub subject: SubjectArgs,

    /// Stop bisecting after this long and write the smallest failing model found so far
    /// (exit 1: it may not be the smallest); 0 for no limit. `--time-limit` is the same flag.
    ///
    /// Example: --timeout 10m
    #[arg(long = "timeout", alias = "time-limit", value_name = "TIME", value_parser = parse_limit, help_heading = REDUCTION)]
    pub time_limit: Option<std::time::Duration>,

    /// Kill a candidate's child process after this long. Where the whole model runs past it on
    /// the EP under test and the reference runs it, the reduction keeps the nodes that hang (a
    /// candidate that times out reproduces); otherwise a timeout counts as not reproducing.
    ///
    /// Example: --candidate-timeout 2m
    #[arg(long, value_name = "TIME", value_parser = parse_duration, default_value = "5m", help_heading = REDUCTION)]
    pub candidate_timeout: std::time::Duration,

    /// Instead of bisecting: check each operator type of the model alone (its first node as a
    /// one-node model, fed with the reference's values) on the EP under test, and list which
    /// it runs and which it rejects. Exit 1 when one fails. Nothing is written but --json.
    ///
    /// Example: dmlrun reduce decoder.onnx --each-op --device 0
    #[arg(long, help_heading = REDUCTION)]
    pub each_op: bool,

    /// The folder to write the minimal model into, as an ONNX test case: model.onnx,
    /// test_data_set_0/ (the reference's inputs and outputs) and reduce.json (what was tried).
    /// It must not exist or be empty. Default: MODEL's name with `-reduced`, in the current folder.
    ///
    /// Example: -o mul-bug/
    #[arg(short, long, value_name = "DIR", help_heading = OUTPUTS)]
    pub output: Option<PathBuf>,

    /// Also write the summary as JSON (to stdout with `-`, or to FILE).
    ///
    /// Example: --json reduce.json
    #[arg(long, value_name = "FILE", help_heading = OUTPUTS)]
    pub json: Option<PathBuf>,

    /// No progress bar or per-candidate lines on stderr.
    ///
    /// Example: -q
    #[arg(short, long, help_heading = OUTPUTS)]
    pub quiet: bool,

    #[command(flatten)]
    pub ort: OrtArgs,

    /// A candidate's check runs in a child `dmlrun reduce` with these.
    #[command(flatten)]
    pub child: ChildArgs,
}
