//! How a test case ended: one type for `test`'s cases, the reports that hold them, and
//! `reduce`'s candidates (each checked as a test case).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    /// Ran, and an output did not match.
    Fail,
    /// Could not run: dmlrun or ONNX Runtime reported an error.
    Error,
    /// Killed the process running it (`--isolation process`: an abort, a segfault, a lost
    /// device); the reason says how it ended.
    Crash,
    /// Ran past `--timeout` and was killed (in a child process).
    Timeout,
    /// Under way when Ctrl-C stopped the run.
    Interrupted,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
            Status::Interrupted => "interrupted",
        }
    }

    /// The status a word in an expectations file names.
    pub fn from_word(word: &str) -> Option<Status> {
        [Status::Pass, Status::Fail, Status::Error, Status::Crash, Status::Timeout]
            .into_iter()
            .find(|s| s.word() == word)
    }
}
