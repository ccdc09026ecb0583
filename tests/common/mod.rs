//! Helpers shared by the integration tests: the real binary, the sample files, JSON reports.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn sample(name: &str) -> PathBuf {
    root().join("models").join(name)
}

pub fn test_model(name: &str) -> PathBuf {
    root().join("tests").join("models").join(name)
}

pub fn data(name: &str) -> PathBuf {
    root().join("tests").join("data").join(name)
}

/// The dmlrun binary, with a backtrace-enabled environment so a panic would be visible.
pub fn dmlrun() -> Command {
    let mut cmd = Command::cargo_bin("dmlrun").expect("binary builds");
    cmd.env("RUST_BACKTRACE", "1").env_remove("ORT_DYLIB_PATH").env("NO_COLOR", "1");
    cmd
}

/// Runs dmlrun with `args` plus `--json -` and returns the parsed report; panics with stderr on failure.
pub fn run_json(args: &[&str]) -> serde_json::Value {
    let output = dmlrun().args(args).args(["--json", "-"]).output().expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "dmlrun {args:?} failed: {stderr}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)))
}

/// Asserts that a failed run exited with code 2 and printed exactly one line naming `needle`,
/// and did not panic.
pub fn assert_one_line_error(output: &std::process::Output, needle: &str) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(2), "expected exit 2, stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "panicked: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one line, got: {stderr}");
    assert!(lines[0].contains(needle), "expected {needle:?} in: {stderr}");
    stderr
}

/// Reads a TensorProto file into a host tensor with the library's own reader.
pub fn read_pb(path: &Path) -> dmlrun::tensor::HostTensor {
    dmlrun::formats::tensor_proto::read(&std::fs::read(path).unwrap(), u64::MAX).unwrap().1
}

pub fn read_npy(path: &Path) -> dmlrun::tensor::HostTensor {
    dmlrun::formats::npy::read_npy(&std::fs::read(path).unwrap(), u64::MAX).unwrap()
}

pub fn write_npy(path: &Path, tensor: &dmlrun::tensor::HostTensor) {
    std::fs::write(path, dmlrun::formats::npy::write_npy(tensor).unwrap()).unwrap();
}

/// Class indices of the top-k list of output 0, batch item `item`.
pub fn top_indices(report: &serde_json::Value, item: usize) -> Vec<u64> {
    report["top_k"][0]["items"][item].as_array().unwrap().iter().map(|c| c["index"].as_u64().unwrap()).collect()
}

/// Runs dmlrun with `args`, presses Ctrl-C (SIGINT) after 1.5 s, and returns what it wrote.
#[cfg(unix)]
pub fn interrupted_after_a_while(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("dmlrun"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    child.wait_with_output().unwrap()
}

/// The Python that scripts run under, with `modules` importable: pip installs `packages` the
/// first time they are missing (a fresh machine has neither).
pub fn python_with(modules: &str, packages: &[&str]) -> String {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let importable = |python: &str| {
        std::process::Command::new(python)
            .args(["-c", &format!("import {modules}")])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !importable(&python) {
        let status = std::process::Command::new(&python)
            .args(["-m", "pip", "install", "--quiet"])
            .args(packages)
            .status()
            .expect("python3 runs");
        assert!(status.success(), "pip install {packages:?} failed");
        assert!(importable(&python), "{modules} still not importable after pip install");
    }
    python
}

/// Runs dmlrun with `args` in a process group of its own, as a shell runs a command, waits until
/// `ready` holds (or 20 s), then sends SIGINT `signals` times to the whole group, as a terminal's
/// Ctrl-C does (and `timeout -s INT`, which signals the process and then its group), and
/// returns what it wrote.
#[cfg(unix)]
pub fn interrupt_group(args: &[&std::ffi::OsStr], signals: usize, ready: impl Fn() -> bool) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("dmlrun"))
        .args(args)
        .process_group(0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !ready() && started.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let group = format!("-{}", child.id());
    for _ in 0..signals {
        let status = std::process::Command::new("kill").args(["-INT", "--", &group]).status().unwrap();
        assert!(status.success());
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The models a script of the project writes into `dir`, and the `cases.json` it lists them in.
pub fn models_made_by(script: &str, dir: &std::path::Path, args: &[&str]) -> Vec<serde_json::Value> {
    let python = python_with("onnx, numpy", &["onnx", "numpy"]);
    let status = std::process::Command::new(python)
        .arg(root().join(script))
        .arg(dir)
        .args(args)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{script}");
    let cases = std::fs::read_to_string(dir.join("cases.json")).unwrap();
    serde_json::from_str::<serde_json::Value>(&cases).unwrap().as_array().unwrap().clone()
}
