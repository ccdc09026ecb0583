use std::process::ExitCode;

use dmlrun::cli::Command;
use dmlrun::commands;
use dmlrun::exit::ExitStatus;

fn main() -> ExitCode {
    dmlrun::interrupt::install();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match dmlrun::cli::parse(&args) {
        Ok(cli) => cli,
        Err(status) => return ExitCode::from(status.code()),
    };
    let result = match &cli.command {
        Some(Command::Run(args)) => commands::run::execute(args),
        Some(Command::Test(args)) => commands::test::execute(args),
        Some(Command::Bench(args)) => commands::bench::execute(args),
        Some(Command::Reduce(args)) => commands::reduce::execute(args),
        Some(Command::Fix(args)) => commands::fix::execute(args),
        Some(Command::Tune(args)) => commands::tune::execute(args),
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
