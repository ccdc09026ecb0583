//! The command line as `main` reads it: a mistyped command, bare `dmlrun`, help and the
//! version, negative numbers as values, and a usage error in one line.

use std::ffi::OsString;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches};

use super::{with_help_layout, Cli, ColorWhen};
use crate::exit::ExitStatus;

/// The command line parsed, with colour set as `--color` and `NO_COLOR` say; or the status to
/// exit with where there is nothing to run: help or the version printed (0, as clap exits), a
/// usage error said in one line (2).
pub fn parse(args: &[OsString]) -> Result<Cli, ExitStatus> {
    if let Some(line) = mistyped_command(args) {
        crate::errln!("dmlrun: error: {line}");
        return Err(ExitStatus::Error);
    }
    let color = ColorWhen::from_args(args);
    let mut command = with_negative_values(with_help_layout(Cli::command())).color(color.to_clap());
    // Bare `dmlrun`: the short help, as cargo and git print theirs, and the usage-error status.
    if args.len() <= 1 {
        crate::err!("{}", command.render_help());
        return Err(ExitStatus::Error);
    }
    let matches = match command.try_get_matches_from_mut(args) {
        Ok(matches) => matches,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => e.exit(),
        Err(e) => return Err(usage_error(&e, args, color)),
    };
    let cli = Cli::from_arg_matches(&matches).map_err(|e| usage_error(&e, args, color))?;
    if color == ColorWhen::Never {
        // Progress bars and any other styled output follow the same choice.
        console::set_colors_enabled_stderr(false);
        console::set_colors_enabled(false);
    }
    Ok(cli)
}

/// A usage error in dmlrun's one line, `error:` in red where colour is on.
fn usage_error(error: &clap::Error, args: &[OsString], color: ColorWhen) -> ExitStatus {
    let prefix = match color.on_stderr() {
        true => format!("dmlrun: {}", console::style("error:").red().bold().force_styling(true)),
        false => "dmlrun: error:".to_string(),
    };
    crate::errln!("{prefix} {}", usage_error_line(error, args));
    ExitStatus::Error
}

/// `dmlrun bnech models/`: a first word that is neither a command nor a file, but close to a
/// command's name, is that command mistyped. (clap would take it for `dmlrun MODEL` and stumble
/// on the next word.) Returns the one line to say.
fn mistyped_command(args: &[std::ffi::OsString]) -> Option<String> {
    let word = args.get(1)?.to_str()?;
    if word.starts_with('-') || std::path::Path::new(word).exists() {
        return None;
    }
    let command = <Cli as clap::CommandFactory>::command();
    let names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
    if names.contains(&word) {
        return None;
    }
    let nearest = names
        .iter()
        .map(|name| (strsim::jaro_winkler(word, name), name))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    Some(format!(
        "'{word}' is not a command, and no file of that name exists: did you mean 'dmlrun {}'? (dmlrun --help lists the commands)",
        nearest.1
    ))
}

/// A usage error as dmlrun says every error: one line, `dmlrun: error: ...` (main adds the
/// prefix), with clap's suggestion of a similar flag or value where it has one, and without its
/// usage lines or the tip to pass a flag after `--`, which misleads (a value that looks like a
/// flag is refused because it is one). A value that is not UTF-8 is named with the flag it was
/// given to, which clap does not say.
pub fn usage_error_line(error: &clap::Error, args: &[std::ffi::OsString]) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if error.kind() == ErrorKind::InvalidUtf8 {
        let at = args.iter().position(|a| a.to_str().is_none());
        let flag = at.and_then(|i| i.checked_sub(1)).and_then(|i| args[i].to_str()).filter(|f| f.starts_with('-'));
        let value = at.map(|i| args[i].to_string_lossy().into_owned()).unwrap_or_default();
        return match flag {
            Some(flag) => format!("{flag} {value}: not valid UTF-8; this flag's value is read as text"),
            None => format!("{value}: not valid UTF-8; this argument is read as text"),
        };
    }
    // clap's message, whatever lines it spans (a missing required flag is named on the next
    // one), without its tips, usage lines and pointer to --help.
    let text = error.to_string();
    let first = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect::<Vec<_>>()
        .join(" ")
        .trim_start_matches("error: ")
        .to_string();
    let suggested = error.context().find_map(|(kind, value)| match (kind, value) {
        (
            ContextKind::SuggestedArg | ContextKind::SuggestedValue | ContextKind::SuggestedSubcommand,
            ContextValue::String(s),
        ) => Some(s.clone()),
        (ContextKind::SuggestedArg | ContextKind::SuggestedValue, ContextValue::Strings(s)) => s.first().cloned(),
        _ => None,
    });
    let help = match error.kind() {
        ErrorKind::UnknownArgument | ErrorKind::InvalidSubcommand => "; dmlrun COMMAND --help lists the flags",
        _ => "",
    };
    if error.kind() == ErrorKind::InvalidValue {
        return match equally_close(error) {
            Some(near) => format!("{first}: did you mean {near}?"),
            None => first,
        };
    }
    match suggested {
        Some(s) => format!("{first}: did you mean '{s}'?"),
        None => format!("{first}{help}"),
    }
}

/// The valid values nearest the value typed, every one tied for nearest (`int3`: 'int4' or
/// 'int8', not whichever clap lists last), or `None` where none is near.
fn equally_close(error: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    let typed: String = error.context().find_map(|(kind, value)| match (kind, value) {
        (ContextKind::InvalidValue, ContextValue::String(s)) => Some(s.to_string()),
        _ => None,
    })?;
    let valid: Vec<String> = error
        .context()
        .find_map(|(kind, value)| match (kind, value) {
            (ContextKind::ValidValue, ContextValue::Strings(s)) => Some(s.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let near = crate::suggest::closest(&typed, valid);
    (!near.is_empty()).then(|| near.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(" or "))
}

/// Every value-taking flag takes a negative number as its value (`--iterations -1` is then a
/// value its parser refuses with the range, not an unknown flag `-1`).
fn with_negative_values(command: clap::Command) -> clap::Command {
    let names: Vec<String> = command.get_subcommands().map(|c| c.get_name().to_string()).collect();
    let command = command.mut_args(negative_values);
    names.iter().fold(command, |command, name| command.mut_subcommand(name, |sub| sub.mut_args(negative_values)))
}

fn negative_values(arg: clap::Arg) -> clap::Arg {
    if arg.get_action().takes_values() && !arg.is_positional() {
        arg.allow_negative_numbers(true)
    } else {
        arg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mistyped_command_is_named_with_the_nearest_one() {
        let args = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        let said = mistyped_command(&args(&["dmlrun", "bnech", "x"])).unwrap();
        assert!(said.contains("did you mean 'dmlrun bench'"), "{said}");
        assert!(mistyped_command(&args(&["dmlrun", "tset"])).unwrap().contains("'dmlrun test'"));
        assert_eq!(mistyped_command(&args(&["dmlrun", "bench", "x"])), None);
        assert_eq!(mistyped_command(&args(&["dmlrun", "--device", "1"])), None);
        // A model that does not exist and looks like no command is left to run's own error.
        assert_eq!(mistyped_command(&args(&["dmlrun", "resnet50.onnx"])), None);
    }
}
