//! Ctrl-C. The first asks the work to stop after the run under way (which is stopped if it has
//! not finished 2 s later), so what was measured is still reported and every requested export
//! written (exit code 130). The second stops the run under way at once, and the report is still
//! written. A third quits at once, except while a report is being written: it then waits for that
//! file to be whole.
//!
//! Two signals often come from one key press: a terminal signals the whole process group, and
//! `timeout -s INT` signals the process and then its group. So the second is never "quit now".
//! An isolation child never quits on a signal at all: its parent ends it if it must.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

static SIGNALS: AtomicUsize = AtomicUsize::new(0);
static CHILD: AtomicBool = AtomicBool::new(false);
static ON_INTERRUPT: OnceLock<Box<dyn Fn() + Send + Sync>> = OnceLock::new();
/// Held while a report is written: a Ctrl-C that quits waits for it.
static WRITING: Mutex<()> = Mutex::new(());

/// How long the run under way at the first Ctrl-C has to finish before it is stopped.
const RUN_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Installs the handler; call once at start-up.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        let count = SIGNALS.fetch_add(1, Ordering::SeqCst) + 1;
        let child = CHILD.load(Ordering::SeqCst);
        match count {
            1 => {
                if !child {
                    crate::errln!(
                        "\ndmlrun: interrupted; finishing the current run and reporting what was measured (Ctrl-C again to stop the run now)"
                    );
                }
                // A run that does not finish soon (a model that loops) is stopped.
                std::thread::spawn(|| {
                    std::thread::sleep(RUN_GRACE);
                    stop_runs();
                });
            }
            2 => {
                if !child {
                    crate::errln!(
                        "dmlrun: stopping the run under way; the report follows (Ctrl-C again to quit without it)"
                    );
                }
                stop_runs();
            }
            _ if child => stop_runs(),
            _ => {
                // A report being written is finished first: a file cut in half helps nobody.
                let _whole = WRITING.lock();
                std::process::exit(crate::exit::ExitStatus::Interrupted.code().into());
            }
        }
    });
}

fn stop_runs() {
    if let Some(stop) = ON_INTERRUPT.get() {
        stop();
    }
}

/// What Ctrl-C also does, 2 s after the first or at once at the second: the engine stops the
/// runs (ONNX Runtime's terminate flag), so a run that would never return does not hold the
/// report back. Set once.
pub fn on_interrupt(stop: impl Fn() + Send + Sync + 'static) {
    let _ = ON_INTERRUPT.set(Box::new(stop));
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    SIGNALS.load(Ordering::SeqCst) > 0
}

/// This process is an isolation child: Ctrl-C stops its work, never the process, so that the
/// item under way is said to have been interrupted and every finished one is already with the
/// parent; the parent ends the child if it does not stop.
pub fn as_child() {
    CHILD.store(true, Ordering::SeqCst);
}

/// Runs `write` (a report's file written) so that no Ctrl-C ends the process half-way through it.
pub fn whole<T>(write: impl FnOnce() -> T) -> T {
    let _held = WRITING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    write()
}

/// How an item Ctrl-C stopped is said: `interrupted (Ctrl-C) in session creation`, with the step
/// it was in where one is known.
pub fn interrupted_in(step: &str) -> String {
    if step.is_empty() {
        "interrupted (Ctrl-C) while it ran".to_string()
    } else {
        format!("interrupted (Ctrl-C) in {step}")
    }
}
