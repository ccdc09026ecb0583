//! Ctrl-C: the first one asks the timing loops to stop after the current run, so the partial
//! statistics are still reported (exit code 130); a second one exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Installs the handler; call once at start-up.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(crate::exit::ExitStatus::Interrupted.code().into());
        }
        crate::errln!("\ndmlrun: interrupted; finishing the current run and reporting what was measured (Ctrl-C again to quit now)");
    });
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
