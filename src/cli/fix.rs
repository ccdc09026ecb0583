//! `dmlrun fix`.

use std::path::PathBuf;

use clap::Args;

use super::help::OUTPUTS;
use super::{IsolationArgs, OrtArgs, SubjectArgs};

/// `dmlrun fix`.
#[derive(Debug, Clone, Args)]
pub struct FixArgs {
    /// The ONNX model to get through the execution provider --ep names (auto by default: DirectML where the loaded ONNX Runtime has it),
    /// checked against the reference (--compare-ep, the CPU by default) on the original model.
    ///
    /// Example: dmlrun fix bert.onnx --device 0 -o bert-dml.onnx
    #[arg(value_name = "MODEL")]
    pub model: PathBuf,

    #[command(flatten)]
    pub subject: SubjectArgs,

    // Each attempt (and the reference's run) in a child process, so that one that hangs or kills
    // its process costs that attempt, not the fix: a child an attempt where DirectML is in the
    // plan or a time limit holds, 10 minutes an attempt by default.
    #[command(flatten)]
    pub isolation: IsolationArgs,

    /// Where the model that passes goes: a FILE for a model, a folder (new or empty) for an
    /// onnxruntime-genai folder. Written whenever fix exits 0, as `run --save-model` writes it:
    /// every remedy applied (none where it passed as it is), dmlrun.* metadata_props saying which,
    /// and external data copied into `FILE.data` beside it. Where nothing made it pass, nothing is
    /// written there, and the smallest model that still fails goes beside it, as `dmlrun reduce`
    /// writes one (`bert-dml-reduced/` for `-o bert-dml.onnx`).
    ///
    /// Example: -o bert-dml.onnx
    #[arg(short, long, value_name = "FILE|DIR", help_heading = OUTPUTS)]
    pub output: PathBuf,

    // Accepted as before and ignored: a model that passes as it is is always written now.
    #[arg(long, hide = true, help_heading = OUTPUTS)]
    pub write_unchanged: bool,

    /// With --output: write the free dimensions as this run fixed them (--dim, --shape, or the sizes
    /// dmlrun gave them for DirectML from the inputs), for an application that sets no
    /// free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay
    /// symbolic, as in the source.
    ///
    /// Example: dmlrun fix det.onnx --device 0 --dim N=1 -o det-dml.onnx --save-fixed-dims
    #[arg(long, help_heading = OUTPUTS)]
    pub save_fixed_dims: bool,

    /// Write the record of the attempts as JSON to FILE ("-" for stdout instead of the text).
    ///
    /// Example: --json fix.json
    #[arg(long, value_name = "FILE", help_heading = OUTPUTS)]
    pub json: Option<PathBuf>,

    /// No progress lines, only the record.
    ///
    /// Example: -q
    #[arg(short, long, help_heading = OUTPUTS)]
    pub quiet: bool,

    #[command(flatten)]
    pub ort: OrtArgs,
}
