//! Ctrl-C: the first one asks the timing loops to stop after the current run (which is stopped if
//! it has not finished 2 s later), so the partial statistics are still reported (exit code 130);
//! a second one exits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static ON_INTERRUPT: OnceLock<Box<dyn Fn() + Send + Sync>> = OnceLock::new();

/// How long the run under way at the first Ctrl-C has to finish before it is stopped.
const RUN_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Installs the handler; call once at start-up.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(crate::exit::ExitStatus::Interrupted.code().into());
        }
        crate::errln!("\ndmlrun: interrupted; finishing the current run and reporting what was measured (Ctrl-C again to quit now)");
        // A run that does not finish soon (a model that loops) is stopped.
        std::thread::spawn(|| {
            std::thread::sleep(RUN_GRACE);
            if let Some(stop) = ON_INTERRUPT.get() {
                stop();
            }
        });
    });
}

/// What the first Ctrl-C also does, if the run under way has not finished 2 s later: the engine
/// stops the runs (ONNX Runtime's terminate flag), so a run that would never return does not
/// hold the report back. Set once.
pub fn on_interrupt(stop: impl Fn() + Send + Sync + 'static) {
    let _ = ON_INTERRUPT.set(Box::new(stop));
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
