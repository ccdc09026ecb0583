//! `dmlrun completions SHELL` and `dmlrun man`: generated from the same clap definitions as
//! the parser, so they cannot drift from it (`doc/` holds committed copies that a test checks).

use anyhow::Result;

use crate::exit::ExitStatus;
use clap::CommandFactory;

use crate::cli::Cli;

/// The completion script for `shell`.
pub fn completion_script(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "dmlrun", &mut out);
    out
}

/// The man page, in roff.
pub fn man_page() -> Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    Ok(out)
}

pub fn completions(shell: clap_complete::Shell) -> Result<ExitStatus> {
    crate::out!("{}", String::from_utf8_lossy(&completion_script(shell)));
    Ok(ExitStatus::Success)
}

pub fn man() -> Result<ExitStatus> {
    crate::out!("{}", String::from_utf8_lossy(&man_page()?));
    Ok(ExitStatus::Success)
}
