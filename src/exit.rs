//! The exit status contract, in one place: 0 success, 1 a check failed (a test case that fails
//! or errors, a bench model that fails, a comparison, a regression gate), 2 an error stopped the
//! command (bad input, usage, ONNX Runtime, nothing to test), 130 interrupted by Ctrl-C (128 +
//! SIGINT, as shells report it).

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
    /// The command ran, and something it checks did not pass.
    Failed,
    /// The command could not do its work (clap uses 2 for usage errors too).
    Error,
    /// Ctrl-C stopped it; what was measured was reported.
    Interrupted,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failed => 1,
            ExitStatus::Error => 2,
            ExitStatus::Interrupted => 130,
        }
    }

    /// Interrupted wins over failed, which wins over success.
    pub fn of_checks(failed: bool, interrupted: bool) -> ExitStatus {
        if interrupted {
            ExitStatus::Interrupted
        } else if failed {
            ExitStatus::Failed
        } else {
            ExitStatus::Success
        }
    }
}

/// Runs `f`, turning a panic inside it (a library's, on input it did not expect) into `None`
/// without printing it: the caller says what failed in its own one line. The panic hook is set
/// aside meanwhile, for the whole process.
pub fn unless_it_panics<T>(f: impl FnOnce() -> T) -> Option<T> {
    use std::panic::{catch_unwind, set_hook, take_hook, AssertUnwindSafe};
    let hook = take_hook();
    set_hook(Box::new(|_| {}));
    let result = catch_unwind(AssertUnwindSafe(f));
    set_hook(hook);
    result.ok()
}

/// An error as the one line dmlrun prints: the outermost context first, then its causes, with
/// the line breaks some libraries put in their messages (parser diagnostics) folded.
pub fn one_line(error: &anyhow::Error) -> String {
    let chain: Vec<String> = error.chain().map(|e| e.to_string()).collect();
    chain.join(": ").split_whitespace().collect::<Vec<_>>().join(" ")
}
