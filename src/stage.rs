//! What this process is working on now: the item (a bench model, a test case) and the step
//! within it (generate's prefill, decode step k). A parent that runs items in a child reads the
//! child's progress file to hold each item to its own time limit and to say where it stopped;
//! generate's own time limit reads it here, in memory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The item and the step within it; empty where nothing has been said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stage {
    pub item: String,
    pub step: String,
}

static NOW: Mutex<Stage> = Mutex::new(Stage { item: String::new(), step: String::new() });
static PROGRESS_FILE: OnceLock<PathBuf> = OnceLock::new();

/// Also writes every change to `path` (an isolation child's `--progress FILE`).
pub fn report_to(path: &Path) {
    let _ = PROGRESS_FILE.set(path.to_path_buf());
}

/// Starts an item: its step is cleared.
pub fn item(name: &str) {
    update(|stage| *stage = Stage { item: name.to_string(), step: String::new() });
}

/// Says which step of the current item is under way.
pub fn step(text: impl Into<String>) {
    let text = text.into();
    update(|stage| stage.step = text);
}

pub fn current() -> Stage {
    NOW.lock().map(|s| s.clone()).unwrap_or_default()
}

fn update(change: impl FnOnce(&mut Stage)) {
    let Ok(mut stage) = NOW.lock() else { return };
    change(&mut stage);
    if let Some(path) = PROGRESS_FILE.get() {
        // Written whole and renamed into place, so the parent never reads half a name.
        let partial = path.with_extension("partial");
        if std::fs::write(&partial, format!("{}\n{}", stage.item, stage.step)).is_ok() {
            let _ = std::fs::rename(&partial, path);
        }
    }
}

/// What a child's progress file says (None before it has said anything).
pub fn read(path: &Path) -> Option<Stage> {
    let text = std::fs::read_to_string(path).ok()?;
    let (item, step) = text.split_once('\n').unwrap_or((&text, ""));
    Some(Stage { item: item.to_string(), step: step.to_string() })
}

/// Holds this process to a time limit: past it, one line on stderr says what was under way
/// (the item and step, as [`current`] has them) and the process ends with exit status 2, since
/// a run that never returns (a GPU that hangs under DirectML) cannot be stopped any other way.
/// Dropped, it stands down.
pub struct Deadline {
    done: Arc<AtomicBool>,
}

impl Deadline {
    /// `what` begins the line: `model tiny/model.onnx`.
    pub fn start(limit: Duration, what: String) -> Deadline {
        let done = Arc::new(AtomicBool::new(false));
        let watching = Arc::clone(&done);
        let started = Instant::now();
        std::thread::spawn(move || {
            while !watching.load(Ordering::SeqCst) {
                if started.elapsed() >= limit {
                    let at = current().step;
                    let at = if at.is_empty() { String::new() } else { format!(" in {at}") };
                    crate::errln!(
                        "dmlrun: error: {what}: ran past --timeout {}{at}; stopped (--timeout 0 for no limit)",
                        humantime::format_duration(limit)
                    );
                    end_process_now(crate::exit::ExitStatus::Error.code().into());
                }
                std::thread::sleep(Duration::from_millis(20).min(limit));
            }
        });
        Deadline { done }
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

/// Ends the process at once: no destructors, no exit handlers, which would wait on the thread
/// stuck in ONNX Runtime (or in the driver) and hang the exit itself.
fn end_process_now(code: i32) -> ! {
    #[cfg(unix)]
    // SAFETY: _exit takes no pointers and does not return; skipping destructors is the point.
    unsafe {
        libc::_exit(code)
    }
    #[cfg(windows)]
    {
        use windows::Win32::System::Threading::{GetCurrentProcess, TerminateProcess};
        // SAFETY: the pseudo-handle of this process is always valid; the call ends the process.
        let _ = unsafe { TerminateProcess(GetCurrentProcess(), code as u32) };
        std::process::exit(code)
    }
    #[cfg(not(any(unix, windows)))]
    std::process::exit(code)
}
