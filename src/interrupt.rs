//! Ctrl-C: the first one asks the timing loops to stop after the current run, so the partial
//! statistics are still reported (exit code 130); a second one exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Exit code after an interrupt (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: i32 = 130;

/// Installs the handler; call once at start-up.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(EXIT_INTERRUPTED);
        }
        eprintln!("\ndmlrun: interrupted; finishing the current run and reporting what was measured (Ctrl-C again to quit now)");
    });
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
