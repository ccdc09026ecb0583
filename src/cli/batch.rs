//! The argument groups of the commands that run a batch of items: where the items run and the
//! hidden flags of the runner's children, the report files, the models saved, the CI system.

use std::path::PathBuf;

use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};

use super::help::{BATCHES, OUTPUTS};
use super::parse::*;
use crate::isolation::Isolation;
use crate::report::export::{Format, ReportFiles, FORMATS};

/// Running the items of a batch in child processes (`test`, `bench`, `fix`'s attempts).
#[derive(Debug, Clone, Args)]
pub struct IsolationArgs {
    /// Run the items in child dmlrun processes, so one that kills its process (an abort in
    /// DirectML, a segfault, a lost device) is recorded as `crash`, one that runs past --timeout
    /// as `timeout`, and the others still run.
    ///
    /// auto (the default) does when DirectML is in the plan or a time limit holds, which by
    /// default one does; none keeps them in this process, with no time limit (a model that never
    /// returns then holds the run until Ctrl-C). test: up to 100 cases to a child, --jobs
    /// children side by side; a child that dies is split in halves until the case that kills it
    /// runs alone. bench: one model to a child; fix and tune: one attempt or candidate. Costs a
    /// process start (and ONNX Runtime's load) per child.
    ///
    /// Example: --isolation process
    #[arg(long, value_name = "WHERE", default_value = "auto", help_heading = BATCHES)]
    pub isolation: Isolation,

    /// Kill a case or model that runs longer than this, from its start, and record it as
    /// `timeout` with the step it was in (default: 10m a bench model, 5m a test case, for fix and
    /// tune scaled from the model's own time, 30s to 10m; 0 for no limit).
    ///
    /// The limit holds by running the items in child processes (see --isolation): a run that
    /// never returns can only be stopped with its process. With --isolation none (or bench's
    /// --print-plan) a --timeout is refused rather than ignored.
    ///
    /// Example: --timeout 60s
    #[arg(long, value_name = "TIME", value_parser = parse_limit, help_heading = BATCHES)]
    pub timeout: Option<std::time::Duration>,

    #[command(flatten)]
    pub child: ChildArgs,
}

/// The hidden flags an isolation child of the batch runner is started with (`test`, `bench`,
/// `fix`, and `reduce`, whose candidates are checked in children).
#[derive(Debug, Clone, Args)]
pub struct ChildArgs {
    /// Internal: run as an isolation child, appending each item's result to FILE as one JSON
    /// line as it finishes, and nothing else.
    ///
    /// Example: --child-report /tmp/dmlrun-child.jsonl
    #[arg(long, value_name = "FILE", hide = true)]
    pub child_report: Option<PathBuf>,

    /// Internal: write the item (and step) under way to FILE, for the parent's time limit.
    ///
    /// Example: --progress /tmp/dmlrun-progress
    #[arg(long, value_name = "FILE", hide = true)]
    pub progress: Option<PathBuf>,

    /// Internal: the items as the parent resolved them (JSON: each with its preflight), so that
    /// the child runs exactly those and resolves no flag again.
    ///
    /// Example: --preflight /tmp/dmlrun-preflight.json
    #[arg(long, value_name = "FILE", hide = true)]
    pub preflight: Option<PathBuf>,
}

/// The report files, one flag a format (`test`, `bench`, `generate`, and `merge` of test's and
/// bench's reports): each checked before the first item runs, rewritten as items finish, and at
/// most one of them on stdout (`-`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportArgs {
    /// A file a format, as [`FORMATS`] lists the formats and their flags.
    pub files: ReportFiles,
}

impl FromArgMatches for ExportArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let given = |f: &Format| matches.try_get_one::<PathBuf>(f.long()).ok().flatten().map(|p| (*f, p.clone()));
        Ok(ExportArgs { files: ReportFiles(FORMATS.iter().filter_map(given).collect()) })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = ExportArgs::from_arg_matches(matches)?;
        Ok(())
    }
}

/// The flags made from the list of formats: one `--FORMAT FILE` each, its help the list's.
impl clap::Args for ExportArgs {
    fn augment_args(command: Command) -> Command {
        FORMATS.iter().fold(command, |command, f| {
            let first = f.help().split("\n\n").next().unwrap_or(f.help());
            command.arg(
                Arg::new(f.long())
                    .long(f.long())
                    .value_name("FILE")
                    .value_parser(clap::value_parser!(PathBuf))
                    .help_heading(OUTPUTS)
                    .help(first.strip_suffix('.').unwrap_or(first).to_string())
                    .long_help(f.help()),
            )
        })
    }

    fn augment_args_for_update(command: Command) -> Command {
        ExportArgs::augment_args(command)
    }
}

/// Each item's model written as its session ran it (`test`, `bench`).
#[derive(Debug, Clone, Args)]
pub struct SaveModelsArgs {
    /// Write each item's model (a test case's, a bench model's) as its session ran it into DIR,
    /// as run's --save-model writes one (every rewrite and the float16 conversion, dmlrun.*
    /// metadata_props saying what was done): DIR/NAME.onnx, NAME the item's name as the report
    /// gives it. A model dmlrun did not change is written too (its own bytes, the record added),
    /// unless its weights are in external data files: then it gets a warning and no file.
    ///
    /// Example: dmlrun bench models/ --device 0 --precision fp16 --save-models fp16/
    #[arg(long, value_name = "DIR", help_heading = OUTPUTS)]
    pub save_models: Option<PathBuf>,

    /// With --save-models: write the free dimensions as this run fixed them (--dim, --shape, or the sizes
    /// dmlrun gave them for DirectML from the inputs), for an application that sets no
    /// free-dimension overrides of its own; dmlrun.fixed_dims says which. Without it they stay
    /// symbolic, as in the source.
    ///
    /// Example: --save-models fixed/ --save-fixed-dims
    #[arg(long, requires = "save_models", help_heading = OUTPUTS)]
    pub save_fixed_dims: bool,
}

/// Where a CI system shows the outcome (`test`, `bench`, `generate`).
#[derive(Debug, Clone, Args)]
pub struct CiArgs {
    /// Report to the CI system's own pages: with github, a Markdown summary appended to
    /// $GITHUB_STEP_SUMMARY (the failed items first, at most 1 MiB) and an annotation on the run
    /// per failed item (at most 10, then a count), printed on stderr, where the runner reads
    /// them too; stdout is unchanged. auto: github where GITHUB_ACTIONS=true; none: never.
    ///
    /// Example: --ci none
    #[arg(long, value_name = "WHERE", value_enum, default_value = "auto", help_heading = OUTPUTS)]
    pub ci: CiSystem,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CiSystem {
    Auto,
    Github,
    None,
}

impl CiSystem {
    /// Forced on (github), off (none), or left to the environment (auto).
    pub fn forced(self) -> Option<bool> {
        match self {
            CiSystem::Auto => None,
            CiSystem::Github => Some(true),
            CiSystem::None => Some(false),
        }
    }
}
