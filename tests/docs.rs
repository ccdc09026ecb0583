//! The help, man page and completions are generated from the CLI definitions; these tests keep
//! the committed copies in sync and every flag documented.

mod common;

use clap::{CommandFactory, Parser};
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

/// Every command's help lists its flags under the same headings, in the same order, as a
/// person looks for them; `-h` is one screen, `--help` complete.
#[test]
fn every_commands_help_groups_its_flags_alike_and_its_short_help_is_one_screen() {
    let root = dmlrun::cli::with_help_layout(Cli::command());
    let order: &[&str] = dmlrun::cli::HEADINGS;
    // Where a flag's heading depends on the command: generate's --top-k and --seed are sampling's,
    // reduce's --timeout a candidate's.
    let by_command = [("generate", "top-k"), ("generate", "seed"), ("reduce", "timeout")];
    let mut heading_of: std::collections::BTreeMap<String, (String, String)> = Default::default();
    let mut checked = 0;
    for sub in root.get_subcommands() {
        let name = sub.get_name();
        let mut built = sub.clone();
        built.build();
        for arg in built.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if arg.is_hide_set() || long == "help" || long == "version" {
                continue;
            }
            let heading = arg.get_help_heading();
            assert!(
                heading.is_some_and(|h| order.contains(&h)),
                "{name}: --{long} has no heading of cli::HEADINGS (help_heading beside the flag): {heading:?}"
            );
            if !by_command.contains(&(name, long)) {
                let (first, seen_in) =
                    heading_of.entry(long.to_string()).or_insert((heading.unwrap().to_string(), name.to_string()));
                assert_eq!(heading.unwrap(), first, "--{long}: under another heading in {name} than in {seen_in}");
            }
            checked += 1;
        }
        let long_help = built.render_long_help().to_string();
        let headings: Vec<&str> = long_help
            .lines()
            .filter(|l| l.ends_with(':') && !l.starts_with(' '))
            .map(|l| l.trim_end_matches(':'))
            .collect();
        let places: Vec<usize> = headings.iter().filter_map(|h| order.iter().position(|o| o == h)).collect();
        assert!(places.windows(2).all(|w| w[0] < w[1]), "{name}: headings out of order: {headings:?}");
        assert!(
            headings.iter().all(|h| ["Arguments", "Options"].contains(h) || order.contains(h)),
            "{name}: {headings:?}"
        );
        let short = built.render_help().to_string();
        assert!(short.lines().count() <= 60, "{name} -h is {} lines", short.lines().count());
    }
    assert!(checked > 200, "only {checked} flags checked");
    let run = String::from_utf8(dmlrun().args(["run", "--help"]).output().unwrap().stdout).unwrap();
    // Each flag under its heading: the last heading line above the flag's own line.
    let under = |flag: &str| {
        let mut heading = "";
        for line in run.lines() {
            if line.ends_with(':') && !line.starts_with(' ') {
                heading = line;
            } else if line.trim_start().starts_with(flag) {
                return heading.to_string();
            }
        }
        panic!("{flag} is not in dmlrun run --help");
    };
    assert_eq!(under("--ort-lib"), "Runtime library:", "--ort-lib is no longer filed under image preprocessing");
    assert_eq!(under("--ep-library"), "Runtime library:");
    assert_eq!(under("--ort-log-level"), "Logging and colour:");
    assert_eq!(under("--color"), "Logging and colour:");
    assert_eq!(under("--dim <"), "Shapes and dimensions:");
}

#[test]
fn top_level_help_matches_the_snapshot() {
    let out = dmlrun().arg("--help").env("COLUMNS", "100").output().unwrap();
    let expected = String::from_utf8(committed("tests/snapshots/help.txt")).unwrap();
    let actual = String::from_utf8(out.stdout).unwrap();
    assert_eq!(actual, expected, "dmlrun --help changed; if deliberate: dmlrun --help > tests/snapshots/help.txt");
}

#[test]
fn top_level_help_is_one_screen_and_run_help_is_complete() {
    let top = String::from_utf8(dmlrun().arg("--help").output().unwrap().stdout).unwrap();
    assert!(top.lines().count() < 80, "dmlrun --help is {} lines", top.lines().count());
    assert!(top.contains("dmlrun run --help lists them") && top.contains("reduce") && top.contains("merge"));
    assert!(!top.contains("--io-on-device"), "run's flags are left to dmlrun run --help");
    let run = String::from_utf8(dmlrun().args(["run", "--help"]).output().unwrap().stdout).unwrap();
    for flag in ["--device", "--input", "--compare-ep", "--io-on-device", "--preset", "--ort-lib"] {
        assert!(run.contains(flag), "dmlrun run --help lacks {flag}");
    }
    // The hidden flags still parse at the top level: `dmlrun MODEL --device 1` is the seed.
    assert!(Cli::try_parse_from(["dmlrun", "m.onnx", "--device", "1", "--input", "cat.png"]).is_ok());
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

/// Every flag a user can type is in the guide, the manual the README points to.
#[test]
fn every_flag_is_documented_in_the_guide() {
    let guide = String::from_utf8(committed("docs/guide.md")).unwrap();
    let mut root = Cli::command();
    root.build();
    let mut missing = Vec::new();
    for cmd in std::iter::once(&root).chain(root.get_subcommands()) {
        for arg in cmd.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if arg.is_hide_set() || long == "help" {
                continue;
            }
            if !guide.contains(&format!("--{long}")) {
                missing.push(format!("{} --{long}", cmd.get_name()));
            }
        }
    }
    missing.dedup();
    assert!(missing.is_empty(), "flags missing from docs/guide.md: {missing:?}");
}

/// The command lines the README and the guide show parse as dmlrun parses them: a renamed or
/// removed flag fails here, not in a reader's terminal.
#[test]
fn the_command_lines_in_the_docs_parse() {
    let mut checked = 0;
    for doc in ["README.md", "docs/guide.md"] {
        let text = String::from_utf8(committed(doc)).unwrap();
        let mut in_code = false;
        let mut candidates: Vec<String> = Vec::new();
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            } else if in_code {
                candidates.push(line.trim().trim_start_matches("$ ").to_string());
            } else {
                // Inline code spans (the odd pieces between backticks), but a command's bare name
                // (`dmlrun test`), which names it rather than runs it.
                let spans = line.split('`').skip(1).step_by(2);
                candidates.extend(spans.filter(|s| s.split_whitespace().count() > 2).map(str::to_string));
            }
        }
        for line in &candidates {
            let line = line.as_str();
            // Synopses (`dmlrun MODEL [--input [NAME=]FILE]...`, a command and its gloss in
            // columns, `dmlrun <command> --help`) are not command lines.
            let synopsis = line.contains("...") || line.contains('[') || line.contains("   ") || line.contains('<');
            if !line.starts_with("dmlrun ") || synopsis {
                continue;
            }
            // What follows a pipe or a redirection is the shell's.
            let command = line.split(['|', '>']).next().unwrap_or(line);
            let words = shell_words(command);
            match Cli::try_parse_from(&words) {
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
                    ) => {}
                Err(e) => panic!("{doc}: `{line}` does not parse: {e}"),
            }
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} command lines found in the docs");
}

/// Words as a shell splits them: on whitespace, with "double-quoted" text one word.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut started) = (false, false);
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// Links between the docs lead somewhere: every relative link names a file that exists, and
/// every `#anchor` into the guide names one of its headings.
#[test]
fn relative_links_in_the_docs_resolve() {
    let guide = String::from_utf8(committed("docs/guide.md")).unwrap();
    let anchors: Vec<String> = guide
        .lines()
        .filter_map(|l| l.strip_prefix("## ").or_else(|| l.strip_prefix("### ")))
        .map(|h| {
            h.to_lowercase()
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
                .collect::<String>()
                .replace(' ', "-")
        })
        .collect();
    let mut checked = 0;
    for doc in ["README.md", "docs/guide.md", "docs/architecture.md", "docs/gpu.md", "docs/wine.md"] {
        let text = String::from_utf8(committed(doc)).unwrap();
        let dir = std::path::Path::new(doc).parent().unwrap();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.starts_with("http") || target.contains(' ') {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() { std::path::PathBuf::from(doc) } else { dir.join(file) };
            assert!(root().join(&path).exists(), "{doc}: link to {target}: no such file");
            if !anchor.is_empty() && path.ends_with("guide.md") {
                assert!(anchors.iter().any(|a| a == anchor), "{doc}: link to {target}: no such heading in the guide");
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} links checked");
}

/// Every bench manifest the README and the guide show runs as written, from a folder where its
/// relative paths lead to the repository's models: every model measured, none failed.
#[cfg(unix)]
#[test]
fn the_manifests_in_the_docs_run_as_written() {
    let mut checked = 0;
    for doc in ["README.md", "docs/guide.md"] {
        let text = String::from_utf8(committed(doc)).unwrap();
        let blocks = text.split("```toml").skip(1).filter_map(|rest| rest.split("```").next());
        for manifest in blocks.filter(|b| b.contains("[[model]]")) {
            let dir = tempfile::tempdir().unwrap();
            for folder in ["models", "tests"] {
                std::os::unix::fs::symlink(root().join(folder), dir.path().join(folder)).unwrap();
            }
            let path = dir.path().join("bench.toml");
            std::fs::write(&path, manifest).unwrap();
            let out = dmlrun()
                .arg("bench")
                .arg(&path)
                .args(["--iterations", "2", "--warmup", "0", "--json", "-"])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{doc}: the manifest\n{manifest}\nfails: {stderr}");
            let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(report["failed"], serde_json::json!([]), "{doc}: {manifest}");
            let entries = manifest.matches("[[model]]").count();
            assert_eq!(report["models"].as_array().unwrap().len(), entries, "{doc}: {manifest}");
            checked += 1;
        }
    }
    assert!(checked >= 1, "no manifest found in the docs");
}

/// docs/ci.md's jobs: each YAML block parses, and every dmlrun command in a step (GitHub's
/// `run`, GitLab's `script`) parses as dmlrun parses it, `--shard auto` among them.
#[test]
fn the_ci_pages_jobs_parse_and_so_do_their_dmlrun_commands() {
    let text = String::from_utf8(committed("docs/ci.md")).unwrap();
    let blocks: Vec<&str> = text.split("```yaml\n").skip(1).map(|b| b.split("```").next().unwrap()).collect();
    assert_eq!(blocks.len(), 2, "a GitHub Actions job and a GitLab one");
    let mut commands = Vec::new();
    for block in &blocks {
        let docs = yaml_rust2::YamlLoader::load_from_str(block).unwrap_or_else(|e| panic!("{e}:\n{block}"));
        let mut scripts = Vec::new();
        collect_scripts(&docs[0], &mut scripts);
        assert!(!scripts.is_empty(), "no run or script in:\n{block}");
        for line in scripts.iter().flat_map(|s| s.lines()) {
            let line = line.trim();
            if line.starts_with("dmlrun ") {
                commands.push(line.to_string());
            }
        }
    }
    for line in &commands {
        if let Err(e) = Cli::try_parse_from(shell_words(line)) {
            panic!("docs/ci.md: `{line}` does not parse: {e}");
        }
    }
    let sharded = commands.iter().filter(|c| c.contains("--shard auto")).count();
    let merged = commands.iter().filter(|c| c.starts_with("dmlrun merge ")).count();
    assert_eq!((sharded, merged), (2, 2), "{commands:#?}");
}

/// Every `run:` (GitHub) and `script:` (GitLab) string under `yaml`.
fn collect_scripts(yaml: &yaml_rust2::Yaml, into: &mut Vec<String>) {
    use yaml_rust2::Yaml;
    match yaml {
        Yaml::Hash(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    (Some("run"), Yaml::String(s)) => into.push(s.clone()),
                    (Some("script"), Yaml::Array(lines)) => {
                        into.extend(lines.iter().filter_map(|l| l.as_str().map(str::to_string)))
                    }
                    _ => collect_scripts(value, into),
                }
            }
        }
        Yaml::Array(items) => items.iter().for_each(|i| collect_scripts(i, into)),
        _ => {}
    }
}
