use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches};

use dmlrun::cli::{Cli, ColorWhen, Command};
use dmlrun::commands;
use dmlrun::exit::ExitStatus;

fn main() -> ExitCode {
    dmlrun::interrupt::install();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(line) = dmlrun::cli::mistyped_command(&args) {
        dmlrun::errln!("dmlrun: error: {line}");
        return ExitCode::from(ExitStatus::Error.code());
    }
    let color = ColorWhen::from_args(&args);
    let mut command =
        dmlrun::cli::with_negative_values(dmlrun::cli::with_help_layout(Cli::command())).color(color.to_clap());
    // Bare `dmlrun`: the short help, as cargo and git print theirs, and the usage-error status.
    if args.len() <= 1 {
        dmlrun::err!("{}", command.render_help());
        return ExitCode::from(ExitStatus::Error.code());
    }
    let matches = match command.try_get_matches_from_mut(&args) {
        Ok(matches) => matches,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => e.exit(),
        Err(e) => return usage_error(&e, &args, color),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e, &args, color),
    };
    if color == ColorWhen::Never {
        // Progress bars and any other styled output follow the same choice.
        console::set_colors_enabled_stderr(false);
        console::set_colors_enabled(false);
    }
    let result = match &cli.command {
        Some(Command::Run(args)) => commands::run::execute(args),
        Some(Command::Test(args)) => commands::test::execute(args),
        Some(Command::Bench(args)) => commands::bench::execute(args),
        Some(Command::Reduce(args)) => commands::reduce::execute(args),
        Some(Command::Fix(args)) => commands::fix::execute(args),
        Some(Command::Generate(args)) => commands::generate::execute(args),
        Some(Command::Merge(args)) => commands::merge::execute(args),
        Some(Command::Info(args)) => commands::info::execute(args),
        Some(Command::Devices(args)) => commands::devices::execute(args),
        Some(Command::Doctor(args)) => commands::doctor::execute(args),
        Some(Command::Completions(args)) => commands::docs::completions(args.shell),
        Some(Command::Man) => commands::docs::man(),
        None => commands::run::execute(&cli.run),
    };
    match result {
        Ok(status) => ExitCode::from(status.code()),
        Err(error) => {
            dmlrun::errln!("dmlrun: error: {}", dmlrun::exit::one_line(&error));
            ExitCode::from(ExitStatus::Error.code())
        }
    }
}

/// A usage error in dmlrun's one line, `error:` in red where colour is on.
fn usage_error(error: &clap::Error, args: &[std::ffi::OsString], color: ColorWhen) -> ExitCode {
    let prefix = match color.on_stderr() {
        true => format!("dmlrun: {}", console::style("error:").red().bold().force_styling(true)),
        false => "dmlrun: error:".to_string(),
    };
    dmlrun::errln!("{prefix} {}", dmlrun::cli::usage_error_line(error, args));
    ExitCode::from(ExitStatus::Error.code())
}
