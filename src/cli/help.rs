//! Where each flag is listed in every command's help: the groups, the flags `-h` shows, and the
//! layout applied to clap's command.

/// Where each flag is listed in every command's help, as a person looks for it: the groups in
/// the order they are listed, and the flags (by long name) of each. The commands' fields are
/// declared in this order too, since clap lists a heading where its first flag comes.
pub const HELP_GROUPS: &[(&str, &[&str])] = &[
    (
        "Inputs",
        &[
            "input",
            "generate",
            "seed",
            "free-dim-size",
            "generate-range",
            "max-tensor-bytes",
            "max-image-pixels",
            "prompt",
            "prompt-file",
            "prompt-tokens",
            "prompt-ids",
            "tokenizer",
            "chat",
            "system",
            "perplexity",
            "window",
            "stride",
        ],
    ),
    (
        "Image preprocessing",
        &[
            "preset",
            "resize",
            "resize-to",
            "filter",
            "scale",
            "mean",
            "std",
            "channel-order",
            "layout",
            "pad-value",
            "image-size",
        ],
    ),
    ("Shapes and dimensions", &["dim", "shape", "dim-denotation", "no-auto-dims"]),
    (
        "Execution provider and device",
        &[
            "ep",
            "device",
            "dml-performance-preference",
            "dml-device-filter",
            "dml-disable-metacommands",
            "ep-option",
            "io-on-device",
            "dml-graph-capture",
            "no-dml-graph-capture",
        ],
    ),
    (
        "Session options",
        &[
            "precision",
            "keep-fp32",
            "block-size",
            "asymmetric",
            "accuracy-level",
            "decompose",
            "opt-level",
            "intra-threads",
            "inter-threads",
            "execution-mode",
            "memory-pattern",
            "session-config",
            "print-plan",
        ],
    ),
    (
        "Generation",
        &[
            "max-new-tokens",
            "max-length",
            "context-length",
            "kv-layout",
            "ignore-eos",
            "choose-on-host",
            "sample",
            "temperature",
            "top-p",
            "repetition-penalty",
            "no-repeat-ngram",
        ],
    ),
    (
        "Timing",
        &[
            "budget",
            "warmup",
            "iterations",
            "duration",
            "min-iterations",
            "max-iterations",
            "rounds",
            "sessions",
            "sweep",
            "sweep-shape",
            "profile",
            "profile-unfused",
            "cache",
        ],
    ),
    (
        "Checking outputs",
        &[
            "compare-ep",
            "compare-opt-level",
            "compare-intra-threads",
            "rtol",
            "atol",
            "tol",
            "check-finite",
            "no-blame",
            "expect",
            "write-expect",
            "baseline",
            "baseline-model",
            "max-regression",
            "compare",
        ],
    ),
    ("Reduction", &["candidate-timeout", "each-op"]),
    ("Batches, isolation and time limits", &["shard", "jobs", "isolation", "timeout"]),
    (
        "Outputs and reports",
        &[
            "top-k",
            "labels",
            "save-outputs",
            "as-test-data",
            "save-model",
            "save-models",
            "save-fixed-dims",
            "write-unchanged",
            "save-inputs",
            "save-format",
            "output",
            "json",
            "csv",
            "markdown",
            "html",
            "junit",
            "ci",
            "full-metadata",
            "verbose",
            "quiet",
        ],
    ),
    ("Runtime library", &["ort-lib", "ep-library"]),
    ("Logging and colour", &["ort-log-level", "color"]),
];

/// Flags whose group depends on the command: generate's --top-k and --seed are sampling's.
const HELP_GROUP_OF_COMMAND: &[(&str, &str, &str)] =
    &[("generate", "top-k", "Generation"), ("generate", "seed", "Generation"), ("reduce", "timeout", "Reduction")];

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

/// The group a command's flag is listed under in its help.
pub fn help_group(command: &str, long: &str) -> Option<&'static str> {
    HELP_GROUP_OF_COMMAND
        .iter()
        .find(|(c, l, _)| *c == command && *l == long)
        .map(|(_, _, group)| *group)
        .or_else(|| HELP_GROUPS.iter().find(|(_, flags)| flags.contains(&long)).map(|(group, _)| *group))
        .or_else(|| super::rules::is_rule_flag(long).then_some(SESSION_OPTIONS))
}

/// The group the rewrite rules' flags are listed in, after `--decompose`.
const SESSION_OPTIONS: &str = "Session options";

/// The command as `main` parses with it. `dmlrun --help` lists the commands, the examples and
/// the global flags, and leaves the flags of `dmlrun MODEL` to `dmlrun run --help` (they are
/// parsed all the same; the man page and completions are made from the full definition). Each
/// command's help lists its flags in [`HELP_GROUPS`]; its `-h` only those of [`SHORT_HELP`]
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
    // A global flag is copied into the commands when they are built, heading and all.
    let command = command.mut_arg("color", |arg| arg.help_heading(help_group("", "color")));
    let names: Vec<String> = command.get_subcommands().map(|c| c.get_name().to_string()).collect();
    names.iter().fold(command, |command, name| {
        command.mut_subcommand(name, |sub| {
            let many = sub.get_arguments().filter(|a| a.get_long().is_some()).count() > 12;
            sub.mut_args(|arg| {
                let Some(long) = arg.get_long().map(str::to_string) else { return arg };
                if long == "help" || long == "version" {
                    return arg;
                }
                let arg = arg.help_heading(help_group(name, &long));
                if many && !SHORT_HELP.contains(&long.as_str()) {
                    arg.hide_short_help(true)
                } else {
                    arg
                }
            })
        })
    })
}
