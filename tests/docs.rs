//! The help, man page and completions are generated from the CLI definitions; these tests keep
//! the committed copies in sync and every flag documented.

mod common;

use clap::CommandFactory;
use common::*;
use dmlrun::cli::Cli;

fn committed(path: &str) -> Vec<u8> {
    std::fs::read(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn man_page_and_completions_are_in_sync_with_the_code() {
    let hint = "run scripts/gen-docs and commit doc/";
    assert!(committed("doc/dmlrun.1") == dmlrun::commands::docs::man_page().unwrap(), "doc/dmlrun.1 is stale: {hint}");
    for (shell, name) in [
        (clap_complete::Shell::Bash, "bash"),
        (clap_complete::Shell::Zsh, "zsh"),
        (clap_complete::Shell::Fish, "fish"),
        (clap_complete::Shell::PowerShell, "powershell"),
    ] {
        let path = format!("doc/completions/dmlrun.{name}");
        assert!(committed(&path) == dmlrun::commands::docs::completion_script(shell), "{path} is stale: {hint}");
    }
}

#[test]
fn every_flag_of_every_command_is_documented() {
    let mut root = Cli::command();
    root.build();
    let mut commands = vec![root.clone()];
    commands.extend(root.get_subcommands().cloned());
    let mut checked = 0;
    for mut cmd in commands {
        let help = cmd.render_long_help().to_string();
        for arg in cmd.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if arg.is_hide_set() || long == "help" || long == "version" {
                continue;
            }
            assert!(help.contains(&format!("--{long}")), "{}: --{long} is missing from --help", cmd.get_name());
            let about = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            assert!(!about.trim().is_empty(), "{}: --{long} has no help text", cmd.get_name());
            let long_help = arg.get_long_help().map(|h| h.to_string()).unwrap_or_default();
            assert!(long_help.contains("Example: "), "{}: --{long} has no example in its long help", cmd.get_name());
            checked += 1;
        }
    }
    assert!(checked > 80, "only {checked} flags checked");
    // Positional arguments teach too.
    for name in ["run", "test", "bench", "info", "completions"] {
        let cmd = root.find_subcommand(name).unwrap();
        for arg in cmd.get_positionals() {
            let long_help = arg.get_long_help().map(|h| h.to_string()).unwrap_or_default();
            assert!(long_help.contains("Example: "), "{name}: <{}> has no example", arg.get_id());
        }
    }
}

#[test]
fn top_level_help_matches_the_snapshot() {
    let out = dmlrun().arg("--help").env("COLUMNS", "100").output().unwrap();
    let expected = String::from_utf8(committed("tests/snapshots/help.txt")).unwrap();
    let actual = String::from_utf8(out.stdout).unwrap();
    assert_eq!(actual, expected, "dmlrun --help changed; if deliberate: dmlrun --help > tests/snapshots/help.txt");
}

#[test]
fn completions_subcommand_prints_a_script() {
    let out = dmlrun().args(["completions", "bash"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("complete -F _dmlrun"));
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let styled = |out: std::process::Output| String::from_utf8_lossy(&out.stderr).contains('\u{1b}');
    // Not a terminal: no colour by default.
    assert!(!styled(dmlrun().arg("--bogus").output().unwrap()));
    assert!(styled(dmlrun().args(["--bogus", "--color", "always"]).output().unwrap()));
    let mut never = dmlrun();
    never.args(["--bogus", "--color=never"]);
    assert!(!styled(never.output().unwrap()));
    // NO_COLOR wins over auto; an explicit --color always still wins over NO_COLOR.
    let mut env = dmlrun();
    env.env("NO_COLOR", "1").args(["--bogus"]);
    assert!(!styled(env.output().unwrap()));
    let mut forced = dmlrun();
    forced.env("NO_COLOR", "1").args(["--bogus", "--color", "always"]);
    assert!(styled(forced.output().unwrap()));
}

#[test]
fn json_goes_to_stdout_and_diagnostics_to_stderr() {
    let out = dmlrun()
        .arg(sample("squeezenet1.1.onnx"))
        .args(["--generate", "zeros", "--iterations", "1", "--ep", "dml", "--print-plan", "--json", "-"])
        .output()
        .unwrap();
    // On Linux this fails after printing the plan: all of it on stderr, nothing on stdout.
    if !cfg!(windows) {
        assert!(out.stdout.is_empty());
        assert!(String::from_utf8_lossy(&out.stderr).contains("session plan:"));
    }
    let out = dmlrun()
        .arg(sample("squeezenet1.1.onnx"))
        .args(["--generate", "zeros", "--iterations", "1", "--json", "-"])
        .output()
        .unwrap();
    serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("stdout is pure JSON");
}
