//! Running part of a batch in a child dmlrun, so that what kills a process (an abort inside
//! ONNX Runtime or DirectML, a segfault, a lost device, a hang) costs one item, not the batch.
//!
//! The child is this same executable with the user's arguments, minus the parent's own outputs,
//! plus `--isolation none` and the files of [`ChildFiles`]: it reads the items its parent
//! resolved (it resolves nothing itself) and appends each item's result to its results file as
//! one JSON line the moment the item finishes. The parent reads the lines as they come, so a
//! child that dies, hangs or is interrupted loses nothing it finished, and the item it was on is
//! the one its progress file names.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::stage::Stage;

/// How often the parent reads a child's progress file.
const PROGRESS_READ_EVERY: Duration = Duration::from_millis(50);

/// How long a child asked to stop by Ctrl-C has to write its report before it is killed.
const INTERRUPT_GRACE: Duration = Duration::from_secs(5);

/// Passes Ctrl-C on to a child that may not have had it (one started by a signal to this
/// process alone); from a terminal it had it already, and a second one does no harm there.
fn ask_to_stop(child: &std::process::Child) {
    #[cfg(unix)]
    // SAFETY: kill takes a process id and a signal number, no pointers; the child is ours and
    // not yet waited for, so its id names it.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    #[cfg(not(unix))]
    let _ = child; // A console's Ctrl-C reaches every process attached to it.
}

/// Where the items of a batch run (`--isolation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// In child processes when DirectML is in the plan or a time limit holds (by default one
    /// does), in this process otherwise.
    Auto,
    /// Always in child processes.
    Process,
    /// In this process.
    None,
}

flag_values!(Isolation { Auto => "auto", Process => "process", None => "none" });

/// Where a batch's items run and the time each may take, decided once from `--isolation`,
/// `--timeout` and the command's default limit; the reports carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Placement {
    pub in_children: bool,
    /// Per item; `None` for no limit.
    #[serde(rename = "time_limit_s", with = "seconds")]
    pub limit: Option<Duration>,
    /// The limit is the command's default, not a --timeout given: an item that runs long is
    /// said to, so that minutes of waiting are never silent.
    #[serde(skip)]
    pub default_limit: bool,
}

/// A time limit in the reports: seconds, or null for none.
mod seconds {
    use std::time::Duration;

    pub fn serialize<S: serde::Serializer>(limit: &Option<Duration>, to: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&limit.map(|d| d.as_secs_f64()), to)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(from: D) -> Result<Option<Duration>, D::Error> {
        let seconds: Option<f64> = serde::Deserialize::deserialize(from)?;
        // A report is input: a limit no Duration holds (negative, NaN, beyond u64 seconds) is none.
        Ok(seconds.and_then(|s| Duration::try_from_secs_f64(s).ok()))
    }
}

/// What a batch command asks of its placement.
#[derive(Debug, Clone, Copy)]
pub struct PlacementRequest {
    pub isolation: Isolation,
    /// `--timeout`: `Some(0)` for no limit, `None` for the command's default.
    pub timeout: Option<Duration>,
    pub default_limit: Duration,
    /// DirectML runs the items: `auto` puts them in children, since DirectML and its drivers
    /// end the process on some graphs (an abort, a removed device) where the CPU EP returns an
    /// error.
    pub directml: bool,
    /// `--print-plan`: the plan is printed by this process, so `auto` keeps the items here.
    pub print_plan: bool,
}

impl PlacementRequest {
    /// A time limit needs the items in child processes: a run that never returns (a model that
    /// loops, a GPU that hangs, a session that never finishes compiling) can only be stopped by
    /// ending the process it is in. So a limit puts them there under `auto`; an explicit
    /// `--timeout` where they stay in this process is refused rather than ignored; the default
    /// limit gives way to an explicit `--isolation none` (or `--print-plan`).
    pub fn resolve(&self) -> Result<Placement> {
        let explicit = self.timeout.filter(|t| !t.is_zero());
        let limit = match self.timeout {
            Some(t) if t.is_zero() => None,
            Some(t) => Some(t),
            None => Some(self.default_limit),
        };
        let stays_here = self.isolation == Isolation::None || (self.isolation == Isolation::Auto && self.print_plan);
        if let (Some(t), true) = (explicit, stays_here) {
            let why = if self.isolation == Isolation::None { "--isolation none" } else { "--print-plan" };
            anyhow::bail!(
                "--timeout {}: {why} keeps the items in this process, where one that never returns cannot be stopped; drop {why}, or give --timeout 0 for no limit",
                humantime::format_duration(t)
            );
        }
        let default_limit = self.timeout.is_none();
        Ok(match self.isolation {
            _ if stays_here => Placement { in_children: false, limit: None, default_limit: false },
            Isolation::Process => Placement { in_children: true, limit, default_limit },
            _ => Placement { in_children: self.directml || limit.is_some(), limit, default_limit },
        })
    }
}

/// How a child ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChildEnd {
    /// It ended by itself: whether cleanly, and how (`exit 0`, `signal 11 (SIGSEGV)`, with its
    /// last error line).
    Exited { clean: bool, how: String },
    /// An item ran past the time limit and the child was killed: which item and step it was in,
    /// as far as the child had said.
    TimedOut(Duration, Stage),
    /// Ctrl-C: the child did not stop by itself within the grace period and was killed where it was.
    Interrupted(Stage),
}

/// The files a parent and its child share: what the parent hands over (the items, resolved),
/// the child's results (one JSON line per finished item, appended as each finishes, so nothing
/// finished is lost whatever ends the child), and the item and step under way.
pub struct ChildFiles {
    pub handoff: PathBuf,
    pub results: PathBuf,
    pub progress: PathBuf,
}

impl ChildFiles {
    /// Worker `worker`'s files in `dir`.
    pub fn in_folder(dir: &Path, worker: usize) -> ChildFiles {
        ChildFiles {
            handoff: dir.join(format!("child-{worker}-items.json")),
            results: dir.join(format!("child-{worker}-results.jsonl")),
            progress: dir.join(format!("child-{worker}-progress")),
        }
    }

    /// The flags that make a child read its items from, and write its results to, these files:
    /// a command handed them runs those items in its own process, and nothing else.
    pub fn child_flags(&self) -> Vec<OsString> {
        let mut flags: Vec<OsString> = Vec::new();
        for (flag, path) in
            [("--child-report", &self.results), ("--preflight", &self.handoff), ("--progress", &self.progress)]
        {
            flags.extend([OsString::from(flag), path.clone().into_os_string()]);
        }
        flags
    }
}

/// `ran past --timeout 5m in decode step 3: killed`: how a timed-out item is reported.
pub fn timed_out_reason(limit: Duration, stage: &Stage) -> String {
    let step = if stage.step.is_empty() { String::new() } else { format!(" in {}", stage.step) };
    format!("ran past --timeout {}{step}: killed", humantime::format_duration(limit))
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

/// The flags of the parent that a child must not act on (each takes one value), beside its report
/// files (the caller's `report_flags`): its isolation settings, test's expectations file, and its
/// jobs (a child runs its cases one at a time; the parent runs children side by side).
const PARENT_ONLY: &[&str] = &["--isolation", "--timeout", "--write-expect", "--jobs", "-j"];

/// The child's arguments: this process's arguments without the parent-only flags and the report
/// files' (`report_flags`: `--json`, `--csv`, ... as the list of formats names them), then
/// `extra`.
pub fn child_args(report_flags: &[&str], extra: &[OsString]) -> Vec<OsString> {
    let parent_only: Vec<&str> = PARENT_ONLY.iter().chain(report_flags).copied().collect();
    let mut args: Vec<OsString> = Vec::new();
    let mut skip_value = false;
    for arg in std::env::args_os().skip(1) {
        if skip_value {
            skip_value = false;
            continue;
        }
        let text = arg.to_string_lossy();
        if parent_only.contains(&text.as_ref()) {
            skip_value = true;
            continue;
        }
        if parent_only.iter().any(|flag| text.starts_with(&format!("{flag}="))) {
            continue;
        }
        // `-j4`: the short flag with its value attached.
        if text.len() > 2 && text.starts_with("-j") && text[2..].bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        args.push(arg);
    }
    args.extend(extra.iter().cloned());
    args
}

/// How long an item runs under a default time limit before it is said to.
const LONG_RUN_NOTICE: Duration = Duration::from_secs(60);

/// What to say of an item that has run `elapsed` under `limit`: something once it has run
/// [`LONG_RUN_NOTICE`] under the command's default limit (a --timeout given is the user's own
/// choice, said in the report).
fn long_run_note(item: &str, elapsed: Duration, limit: Option<Duration>, default_limit: bool) -> Option<String> {
    let limit = limit.filter(|l| default_limit && *l > LONG_RUN_NOTICE && elapsed >= LONG_RUN_NOTICE)?;
    let item = if item.is_empty() { "an item" } else { item };
    Some(format!(
        "dmlrun: note: {item} has run {} s; it is stopped at {} (the default --timeout; --timeout sets another, 0 none)",
        LONG_RUN_NOTICE.as_secs(),
        humantime::format_duration(limit)
    ))
}

/// Runs this executable with `args` (which must make it use `files`), handing each whole line
/// it adds to its results file to `on_line` as it comes; kills it when an item runs past
/// `limit` (from the start of each item its progress file names), or when it has not stopped
/// 5 s after Ctrl-C.
pub fn run_child(
    args: &[OsString],
    files: &ChildFiles,
    (limit, default_limit): (Option<Duration>, bool),
    on_line: &mut dyn FnMut(&str),
) -> Result<ChildEnd> {
    let exe = std::env::current_exe().context("finding dmlrun's own executable for --isolation")?;
    let _ = std::fs::remove_file(&files.results);
    let _ = std::fs::remove_file(&files.progress);
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
    let mut results = ResultLines::default();
    // The item under way and since when: the deadline is per item.
    let mut stage = Stage::default();
    let mut item_started = Instant::now();
    let mut last_read = Instant::now();
    let mut interrupted_at = None;
    let mut noted = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Ok(status);
        }
        if last_read.elapsed() >= PROGRESS_READ_EVERY {
            last_read = Instant::now();
            results.read_new(&files.results, on_line);
            if let Some(now) = crate::stage::read(&files.progress) {
                if now.item != stage.item {
                    item_started = Instant::now();
                    noted = false;
                }
                stage = now;
            }
        }
        let over_time = limit.is_some_and(|l| item_started.elapsed() >= l);
        if let (Some(note), false) = (long_run_note(&stage.item, item_started.elapsed(), limit, default_limit), noted) {
            noted = true;
            crate::errln!("{note}");
        }
        // Ctrl-C: the child is asked to stop as this process was (it reports the item it was on,
        // as an item in this process would); one that has not ended after a grace period is
        // stopped where it is.
        if crate::interrupt::interrupted() && interrupted_at.is_none() {
            interrupted_at = Some(Instant::now());
            ask_to_stop(&child);
        }
        let given_up = interrupted_at.is_some_and(|at| at.elapsed() >= INTERRUPT_GRACE);
        if over_time || given_up {
            let _ = child.kill();
            let _ = child.wait();
            if let Some(now) = crate::stage::read(&files.progress) {
                stage = now;
            }
            break Err(match over_time {
                true => ChildEnd::TimedOut(limit.unwrap_or_default(), stage),
                false => ChildEnd::Interrupted(stage),
            });
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // What it wrote before it ended, to the last whole line.
    results.read_new(&files.results, on_line);
    let stderr = reader.join().unwrap_or_default();
    let status = match status {
        Ok(status) => status,
        Err(stopped) => return Ok(stopped),
    };
    // Its own error line, or else the last thing it said (clap's usage errors, a runtime's abort).
    let last_error = stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("dmlrun: error:"))
        .or_else(|| stderr.lines().rev().find(|l| !l.trim().is_empty()))
        .map(|l| l.trim().to_string());
    let how = match last_error {
        Some(line) if !status.success() => format!("{}: {line}", describe_exit(&status)),
        _ => describe_exit(&status),
    };
    Ok(ChildEnd::Exited { clean: status.success(), how })
}

/// A child's results file read as it grows: only whole lines are handed on.
#[derive(Default)]
struct ResultLines {
    read: u64,
}

impl ResultLines {
    fn read_new(&mut self, path: &Path, on_line: &mut dyn FnMut(&str)) {
        use std::io::{Seek, SeekFrom};
        let Ok(mut file) = std::fs::File::open(path) else { return };
        if file.seek(SeekFrom::Start(self.read)).is_err() {
            return;
        }
        let mut bytes = Vec::new();
        if file.read_to_end(&mut bytes).is_err() {
            return;
        }
        let Some(last_newline) = bytes.iter().rposition(|b| *b == b'\n') else { return };
        self.read += last_newline as u64 + 1;
        for line in String::from_utf8_lossy(&bytes[..last_newline]).lines() {
            if !line.trim().is_empty() {
                on_line(line);
            }
        }
    }
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
    #[test]
    fn an_item_long_under_the_default_limit_is_said_to_and_one_under_a_given_limit_is_not() {
        use std::time::Duration;
        let (minute, ten) = (Duration::from_secs(60), Some(Duration::from_secs(600)));
        let note = super::long_run_note("zoo/resnet50", minute, ten, true).unwrap();
        assert_eq!(note, "dmlrun: note: zoo/resnet50 has run 60 s; it is stopped at 10m (the default --timeout; --timeout sets another, 0 none)");
        assert_eq!(super::long_run_note("m", Duration::from_secs(59), ten, true), None, "not yet");
        assert_eq!(super::long_run_note("m", minute, ten, false), None, "--timeout given");
        assert_eq!(super::long_run_note("m", minute, None, true), None, "no limit");
    }

    use super::*;

    #[test]
    fn crash_codes_are_named() {
        assert_eq!(describe_exit_code(3), "exit 3 (abort())");
        assert_eq!(describe_exit_code(0xC0000005u32 as i32), "exit 0xC0000005 (STATUS_ACCESS_VIOLATION)");
        assert_eq!(describe_exit_code(2), "exit 2");
    }
}
