//! Command-line definitions and help text (clap derive). No behaviour lives here.
//!
//! One file per command (`run.rs`, `test.rs`, `bench.rs`, `inspect.rs` for the commands that
//! only look), the argument groups several commands share in `shared.rs` (a batch's in
//! `batch.rs`), the value parsers in `parse.rs`, the help's headings (each flag names its own
//! beside it) and what `-h` shows in `help.rs`, and the command line read as `main` reads it in `line.rs`; everything is
//! re-exported here, so `cli::RunArgs` is the one name.

mod batch;
mod bench;
mod fix;
mod generate;
mod help;
mod inspect;
mod line;
mod merge;
mod parse;
mod reduce;
mod rules;
mod run;
mod shared;
mod test;
mod tune;
mod values;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use batch::{ChildArgs, CiArgs, CiSystem, ExportArgs, IsolationArgs, SaveModelsArgs};
pub use bench::BenchArgs;
pub use fix::FixArgs;
pub use generate::GenerateArgs;
pub use help::{with_help_layout, HEADINGS};
pub use inspect::{CompletionsArgs, DevicesArgs, DoctorArgs, InfoArgs};
pub use line::{parse, usage_error_line};
pub use merge::MergeArgs;
pub use parse::*;
pub use reduce::ReduceArgs;
pub use rules::RuleFlags;
pub use run::RunArgs;
pub use shared::{
    BatchInputArgs, CompareArgs, DeviceIoArgs, GeneratedInputArgs, InputArgs, PreprocessArgs, ReferenceArgs,
    SessionArgs, SubjectArgs,
};
pub use test::TestArgs;
pub use tune::TuneArgs;

use crate::runtime::ep_devices::EpLibraryRequest;
use crate::runtime::plan::OrtLogLevel;
use help::{LOGGING, RUNTIME_LIBRARY};

const EXAMPLES: &str = "\
Typical uses:
  Run a photo through a model on DirectML adapter 1, with the 5 best classes:
    dmlrun model.onnx --device 1 --input cat.png --top-k 5 --labels labels.txt

  Validate model folders (ONNX test-data layout) in CI, failing only on a change:
    dmlrun test models/ --expect known-failures.txt --junit results.xml

  Benchmark a folder of models and gate on a 5% median-latency regression:
    dmlrun bench models/ --duration 10s --json bench.json --baseline last-bench.json

  Time to first token and tokens/s of an onnxruntime-genai model on DirectML:
    dmlrun generate phi3-dml/ --device 0 --prompt-tokens 128 -n 128

  Find the node DirectML rejects, as a minimal model for a bug report:
    dmlrun reduce det.onnx --device 0 --shape x=1,3,736,736

`dmlrun MODEL` takes every flag of `dmlrun run`: dmlrun run --help lists them.
More: dmlrun info MODEL, dmlrun devices, dmlrun doctor, dmlrun <command> --help.
Exit codes: 0 success, 1 a check failed (test, --compare-ep, --baseline) or a model of a bench
failed, 2 an error stopped the command.";

/// Run, inspect and time ONNX models on ONNX Runtime, with DirectML as the first-class backend.
#[derive(Debug, Parser)]
#[command(
    name = "dmlrun",
    version,
    about,
    after_help = EXAMPLES,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// `dmlrun MODEL …` is `dmlrun run MODEL …`.
    #[command(flatten)]
    pub run: RunArgs,

    /// When to use colour in help and diagnostics: auto (only on a terminal, and not when
    /// NO_COLOR is set), always, never.
    ///
    /// Example: --color never
    #[arg(long, value_name = "WHEN", default_value = "auto", global = true, help_heading = LOGGING)]
    pub color: ColorWhen,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a model once (plus timed iterations) and report outputs and timings (the default).
    Run(Box<RunArgs>),
    /// Validate models against ONNX test-data folders (model.onnx + test_data_set_N/*.pb).
    ///
    /// Exit code 0 when every case passes (or fails only as --expect says), 1 when a case fails or
    /// is an error (a model that does not load, a folder without model.onnx), 2 when the tests
    /// could not run at all (bad input, nothing to test).
    Test(Box<TestArgs>),
    /// Benchmark models: given directly, found in folders, or listed in a TOML/JSON manifest.
    ///
    /// Exit code 1 when a model fails or --baseline finds a regression beyond --max-regression;
    /// 2 when the bench could not run.
    Bench(Box<BenchArgs>),
    /// When an execution provider rejects a model (or its outputs differ): bisect to the
    /// smallest run of nodes that still fails, written as an ONNX test case.
    ///
    /// Each candidate runs in a child process; its boundary tensors are fed with the values the
    /// reference EP (--compare-ep, the CPU by default) gave them. Exit code 0 when a minimal
    /// model was written, 1 when the time limit stopped the search first, 2 on error.
    Reduce(Box<ReduceArgs>),
    /// Get a model through an execution provider that rejects it or gets it wrong: the remedies
    /// that fit it tried, each a whole run against the reference, and the model that passes written.
    ///
    /// The remedies are the verified rewrites, then float16, in a fixed order; the record of
    /// every attempt is printed (and written with --json).
    ///
    /// Exit code 0 when it passes as it is or was fixed (the model written either way), 1 when no
    /// remedy made it pass, 2 on error (the reference cannot run it either, say).
    Fix(Box<FixArgs>),
    /// Find the fastest verified form of a model on the device at hand: each candidate form
    /// (a speed rewrite, float16, a session option) checked against the original on the
    /// reference EP and timed beside it in alternating rounds, kept only where the paired test
    /// says faster, the kept ones combined.
    ///
    /// Exit code 0 when a faster form was found (written with -o) or none was (the original is
    /// the fastest), 2 on error.
    Tune(Box<TuneArgs>),
    /// Generate text with a decoder LLM (an onnxruntime-genai model folder or a decoder .onnx)
    /// and measure it as LLM benchmarks do: time to first token, tokens per second, per-token
    /// latency.
    ///
    /// The text goes to stdout as it is produced, the figures to stderr. Exit code 1 when
    /// --compare-ep generates different tokens.
    Generate(Box<GenerateArgs>),
    /// Put reports back together: the JSON reports of a run's --shard K/N parts into the report
    /// of the whole run (JSON, JUnit, HTML, ...), or with --compare whole runs of the same work
    /// on different machines or devices side by side.
    ///
    /// Nothing is written when the reports do not fit together (a shard missing or given twice,
    /// different dmlrun versions, a report cut short). Exit code 1 when --compare finds runs
    /// whose verdicts disagree.
    Merge(MergeArgs),
    /// Show a model's inputs, outputs, symbolic dimensions, opsets and metadata.
    Info(InfoArgs),
    /// List the DirectML (DXGI) adapters; the index is the --device value.
    Devices(DevicesArgs),
    /// Show which ONNX Runtime dmlrun loads, from where, and its execution providers.
    Doctor(DoctorArgs),
    /// Print a shell completion script: dmlrun completions bash > /etc/bash_completion.d/dmlrun
    Completions(CompletionsArgs),
    /// Print the man page (roff): dmlrun man > dmlrun.1
    Man,
}

/// Where ONNX Runtime comes from and how it logs.
#[derive(Debug, Clone, Args)]
pub struct OrtArgs {
    /// ONNX Runtime library to load (libonnxruntime.so / onnxruntime.dll).
    ///
    /// Search order without it: the ORT_DYLIB_PATH environment variable, next to the dmlrun
    /// executable, then the copy the build fetched.
    ///
    /// Example: --ort-lib C:\onnxruntime\onnxruntime.dll
    #[arg(long, value_name = "PATH", help_heading = RUNTIME_LIBRARY)]
    pub ort_lib: Option<PathBuf>,

    /// Register a plugin execution provider library (ONNX Runtime's
    /// RegisterExecutionProviderLibrary) under NAME, by default the file's name. Repeatable.
    ///
    /// Its EP devices then show in `dmlrun devices`, and --ep takes its EP name or NAME. The
    /// onnxruntime-ep-* Python packages carry such libraries (their get_library_path() names
    /// it).
    ///
    /// Example: --ep-library webgpu=./libonnxruntime_providers_webgpu.so --ep webgpu
    #[arg(long = "ep-library", value_name = "[NAME=]PATH", value_parser = parse_ep_library, help_heading = RUNTIME_LIBRARY)]
    pub ep_libraries: Vec<EpLibraryRequest>,

    /// Lowest severity of ONNX Runtime's own log lines shown on stderr.
    ///
    /// `verbose` prints, among much else, the session options ONNX Runtime received.
    ///
    /// Example: --ort-log-level verbose
    #[arg(long, value_name = "LEVEL", default_value = "warning", help_heading = LOGGING)]
    pub ort_log_level: OrtLogLevel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    /// Finds `--color WHEN` / `--color=WHEN` before parsing, because clap renders help (and
    /// usage errors) while it parses, and needs to know by then.
    pub fn from_args(args: &[std::ffi::OsString]) -> ColorWhen {
        let mut when = None;
        let mut iter = args.iter().filter_map(|a| a.to_str());
        while let Some(arg) = iter.next() {
            let value = match arg.strip_prefix("--color") {
                Some("") => iter.next(),
                Some(rest) => rest.strip_prefix('='),
                None => None,
            };
            when = match value {
                Some("always") => Some(ColorWhen::Always),
                Some("never") => Some(ColorWhen::Never),
                Some("auto") => Some(ColorWhen::Auto),
                _ => when,
            };
        }
        match when {
            Some(w) => w,
            // https://no-color.org: a set, non-empty NO_COLOR turns colour off by default.
            None if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) => ColorWhen::Never,
            None => ColorWhen::Auto,
        }
    }

    /// Whether stderr gets colour: `always`, or `auto` on a terminal without NO_COLOR.
    pub fn on_stderr(self) -> bool {
        match self {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                std::io::IsTerminal::is_terminal(&std::io::stderr()) && std::env::var_os("NO_COLOR").is_none()
            }
        }
    }

    pub fn to_clap(self) -> clap::ColorChoice {
        match self {
            ColorWhen::Auto => clap::ColorChoice::Auto,
            ColorWhen::Always => clap::ColorChoice::Always,
            ColorWhen::Never => clap::ColorChoice::Never,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::adapters::DeviceSelector;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn color_choice_is_found_before_parsing() {
        let args = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(ColorWhen::from_args(&args(&["dmlrun", "--color", "never", "m.onnx"])), ColorWhen::Never);
        assert_eq!(ColorWhen::from_args(&args(&["dmlrun", "--color=always"])), ColorWhen::Always);
    }

    #[test]
    fn model_without_subcommand_parses_as_run() {
        let cli = Cli::try_parse_from(["dmlrun", "m.onnx", "--device", "1", "--input", "cat.png"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.run.model, Some(PathBuf::from("m.onnx")));
        assert_eq!(cli.run.session.device, Some(DeviceSelector::Index(1)));
        let cli = Cli::try_parse_from(["dmlrun", "info", "m.onnx"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Info(_))));
    }
}
