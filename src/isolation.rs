//! Running part of a batch in a child dmlrun, so that what kills a process (an abort inside
//! ONNX Runtime or DirectML, a segfault, a lost device, a hang) costs one item, not the batch.
//!
//! The child is this same executable with the user's arguments, minus the parent's own outputs,
//! plus `--isolation none --child-report FILE` and an `--only NAME` per item. It writes its
//! report to FILE atomically at the end: a report that exists is a child that finished (even
//! if its process then died on the way out, as Wine 8's sometimes does), and no report is a
//! child that died.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// Where the items of a batch run (`--isolation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Isolation {
    /// In child processes when DirectML is in the plan, in this process otherwise.
    Auto,
    /// Always in child processes.
    Process,
    /// In this process.
    None,
}

impl Isolation {
    /// Whether to run in child processes: `auto` does when DirectML runs the items. DirectML
    /// and its drivers end the process on some graphs (an abort, a removed device) where the
    /// CPU execution provider returns an error; the CPU is spared the cost of the children.
    pub fn in_children(self, directml: bool) -> bool {
        match self {
            Isolation::Auto => directml,
            Isolation::Process => true,
            Isolation::None => false,
        }
    }
}

/// How the child ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChildOutcome {
    /// It wrote its report: the JSON text.
    Report(String),
    /// It ended without a report: how (`exit 3`, `signal 11 (SIGSEGV)`), and its last error line.
    Died(String),
    /// It ran past the time limit and was killed.
    TimedOut(Duration),
}

/// Writes what the parent resolved for a child's items (their preflights), for the child to
/// read with [`read_from_parent`] instead of resolving them again.
pub fn write_for_child<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    let text = serde_json::to_vec(value).context("serialising the items' preflights")?;
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Reads what [`write_for_child`] wrote (`--preflight FILE`).
pub fn read_from_parent<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read(path).with_context(|| format!("--preflight {}", path.display()))?;
    serde_json::from_slice(&text)
        .with_context(|| format!("--preflight {}: not the parent's preflights", path.display()))
}

/// The flags of the parent that a child must not act on (each takes one value): its report
/// files and its isolation settings.
const PARENT_ONLY: &[&str] =
    &["--isolation", "--timeout", "--json", "--junit", "--write-expect", "--csv", "--markdown", "--html"];

/// The child's arguments: this process's arguments without the parent-only flags, then
/// `extra`.
pub fn child_args(extra: &[OsString]) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    let mut skip_value = false;
    for arg in std::env::args_os().skip(1) {
        if skip_value {
            skip_value = false;
            continue;
        }
        let text = arg.to_string_lossy();
        if PARENT_ONLY.contains(&text.as_ref()) {
            skip_value = true;
            continue;
        }
        if PARENT_ONLY.iter().any(|flag| text.starts_with(&format!("{flag}="))) {
            continue;
        }
        args.push(arg);
    }
    args.extend(extra.iter().cloned());
    args
}

/// Runs this executable with `args`, which must make it write its report to `report`; kills it
/// after `timeout`.
pub fn run_child(args: &[OsString], report: &Path, timeout: Option<Duration>) -> Result<ChildOutcome> {
    let exe = std::env::current_exe().context("finding dmlrun's own executable for --isolation")?;
    let _ = std::fs::remove_file(report);
    let mut child = Command::new(&exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", exe.display()))?;
    // Drained on its own thread: a child that logs a lot must never block on a full pipe.
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if timeout.is_some_and(|t| started.elapsed() >= t) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stderr = reader.join().unwrap_or_default();
    let Some(status) = status else {
        return Ok(ChildOutcome::TimedOut(timeout.unwrap_or_default()));
    };
    if let Ok(text) = std::fs::read_to_string(report) {
        let _ = std::fs::remove_file(report);
        return Ok(ChildOutcome::Report(text));
    }
    // Its own error line, or else the last thing it said (clap's usage errors, a runtime's abort).
    let last_error = stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("dmlrun: error:"))
        .or_else(|| stderr.lines().rev().find(|l| !l.trim().is_empty()))
        .map(|l| l.trim().to_string());
    Ok(ChildOutcome::Died(match last_error {
        Some(line) => format!("{}: {line}", describe_exit(&status)),
        None => describe_exit(&status),
    }))
}

/// `exit 3`, `signal 11 (SIGSEGV)`, `exit 0xC0000005 (STATUS_ACCESS_VIOLATION)`.
pub fn describe_exit(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                6 => " (SIGABRT)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                4 => " (SIGILL)",
                7 => " (SIGBUS)",
                8 => " (SIGFPE)",
                _ => "",
            };
            return format!("signal {signal}{name}");
        }
    }
    match status.code() {
        Some(code) => describe_exit_code(code),
        None => "ended abnormally".to_string(),
    }
}

/// Names the Windows exit codes a crash leaves (NTSTATUS values, and 3 from `abort()`).
fn describe_exit_code(code: i32) -> String {
    let name = match code as u32 {
        3 => Some("abort()"),
        0xC0000005 => Some("STATUS_ACCESS_VIOLATION"),
        0xC0000409 => Some("STATUS_STACK_BUFFER_OVERRUN: a fail-fast abort"),
        0xC00000FD => Some("STATUS_STACK_OVERFLOW"),
        0xC000001D => Some("STATUS_ILLEGAL_INSTRUCTION"),
        0x887A0005 => Some("DXGI_ERROR_DEVICE_REMOVED"),
        _ => None,
    };
    match name {
        Some(name) if code < 0 => format!("exit {:#010X} ({name})", code as u32),
        Some(name) => format!("exit {code} ({name})"),
        None if code < 0 => format!("exit {:#010X}", code as u32),
        None => format!("exit {code}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_codes_are_named() {
        assert_eq!(describe_exit_code(3), "exit 3 (abort())");
        assert_eq!(describe_exit_code(0xC0000005u32 as i32), "exit 0xC0000005 (STATUS_ACCESS_VIOLATION)");
        assert_eq!(describe_exit_code(2), "exit 2");
    }
}
