use std::process::ExitCode;

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
    let matches = dmlrun::cli::with_help_layout(Cli::command()).color(color.to_clap()).get_matches_from(&args);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
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
