//! `dmlrun info`, `devices`, `doctor` and `completions`: the commands that look, not run.

use std::path::PathBuf;

use clap::Args;

use super::help::OUTPUTS;
use super::OrtArgs;

#[derive(Debug, Clone, Args)]
pub struct InfoArgs {
    /// The ONNX model file.
    ///
    /// Example: dmlrun info model.onnx
    #[arg(value_name = "MODEL")]
    pub model: PathBuf,

    /// Print the information as JSON (to stdout, or to FILE).
    /// With FILE the JSON goes there and the usual text to stdout.
    ///
    /// Example: dmlrun info model.onnx --json | jq .
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-", help_heading = OUTPUTS)]
    pub json: Option<PathBuf>,

    /// Print metadata values whole; by default a value longer than a few lines (an OCR model's
    /// character list, say) is cut to its first lines with a count of the rest.
    ///
    /// Example: dmlrun info model.onnx --full-metadata
    #[arg(long, help_heading = OUTPUTS)]
    pub full_metadata: bool,
}

#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    ///
    /// Example: dmlrun completions zsh > ~/.zfunc/_dmlrun
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Clone, Args)]
pub struct DevicesArgs {
    /// Print the adapters and EP devices as JSON (to stdout, or to FILE).
    /// With FILE the JSON goes there and the usual text to stdout.
    ///
    /// Example: dmlrun devices --json | jq .
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-", help_heading = OUTPUTS)]
    pub json: Option<PathBuf>,

    #[command(flatten)]
    pub ort: OrtArgs,
}

#[derive(Debug, Clone, Args)]
pub struct DoctorArgs {
    /// Print the findings as JSON (to stdout, or to FILE).
    /// With FILE the JSON goes there and the usual text to stdout.
    ///
    /// Example: dmlrun doctor --json | jq .
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-", help_heading = OUTPUTS)]
    pub json: Option<PathBuf>,

    #[command(flatten)]
    pub ort: OrtArgs,
}
