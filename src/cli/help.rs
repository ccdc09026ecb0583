//! The headings of every command's help (each flag names its own, beside its definition), the
//! flags `-h` shows, and the layout applied to clap's command.

/// The groups of every command's help, in the order they are listed: each flag names its group
/// beside its definition (`help_heading = INPUTS`), and the commands' fields are declared in this
/// order too, since clap lists a heading where its first flag comes.
pub const HEADINGS: &[&str] = &[
    INPUTS,
    PREPROCESSING,
    SHAPES,
    EXECUTION_PROVIDER,
    SESSION,
    GENERATION,
    TIMING,
    CHECKING,
    REDUCTION,
    BATCHES,
    OUTPUTS,
    RUNTIME_LIBRARY,
    LOGGING,
];

pub const INPUTS: &str = "Inputs";
pub const PREPROCESSING: &str = "Image preprocessing";
pub const SHAPES: &str = "Shapes and dimensions";
pub const EXECUTION_PROVIDER: &str = "Execution provider and device";
pub const SESSION: &str = "Session options";
pub const GENERATION: &str = "Generation";
pub const TIMING: &str = "Timing";
pub const CHECKING: &str = "Checking outputs";
pub const REDUCTION: &str = "Reduction";
pub const BATCHES: &str = "Batches, isolation and time limits";
pub const OUTPUTS: &str = "Outputs and reports";
pub const RUNTIME_LIBRARY: &str = "Runtime library";
pub const LOGGING: &str = "Logging and colour";

/// The flags `-h` shows (`--help` shows every one): what most runs of a command use.
const SHORT_HELP: &[&str] = &[
    "input",
    "generate",
    "dim",
    "shape",
    "ep",
    "device",
    "warmup",
    "iterations",
    "duration",
    "compare-ep",
    "expect",
    "baseline",
    "jobs",
    "timeout",
    "prompt",
    "prompt-tokens",
    "max-new-tokens",
    "top-k",
    "labels",
    "output",
    "json",
    "junit",
    "compare",
    "quiet",
];

/// The command as `main` parses with it. `dmlrun --help` lists the commands, the examples and
/// the global flags, and leaves the flags of `dmlrun MODEL` to `dmlrun run --help` (they are
/// parsed all the same; the man page and completions are made from the full definition). Each
/// command's help lists its flags under their headings ([`HEADINGS`]); its `-h` only those of [`SHORT_HELP`]
/// (all of them, for a command with few).
pub fn with_help_layout(command: clap::Command) -> clap::Command {
    let command = command.mut_args(|arg| {
        let global = matches!(arg.get_id().as_str(), "color" | "help" | "version");
        if arg.get_long().is_some() && !global {
            arg.hide(true)
        } else {
            arg
        }
    });
    let names: Vec<String> = command.get_subcommands().map(|c| c.get_name().to_string()).collect();
    names.iter().fold(command, |command, name| {
        command.mut_subcommand(name, |sub| {
            let many = sub.get_arguments().filter(|a| a.get_long().is_some()).count() > 12;
            sub.mut_args(|arg| {
                let Some(long) = arg.get_long().map(str::to_string) else { return arg };
                if long == "help" || long == "version" {
                    return arg;
                }
                if many && !SHORT_HELP.contains(&long.as_str()) {
                    arg.hide_short_help(true)
                } else {
                    arg
                }
            })
        })
    })
}
