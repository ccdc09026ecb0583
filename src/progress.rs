//! Progress bars, created in one place: on stderr, and hidden when stderr is not a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Iterations shorter than this many do not get a bar: it would only flicker.
const MIN_ITERATIONS_FOR_BAR: u64 = 20;

/// A bar counting `total` runs, or a hidden one when it would not help.
pub fn iterations(total: u64, label: &str, quiet: bool) -> ProgressBar {
    if quiet || total < MIN_ITERATIONS_FOR_BAR || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{prefix} {bar:40} {pos}/{len} [{elapsed_precise} < {eta}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_prefix(label.to_string());
    bar
}

/// What a counting bar counts: its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counting {
    Cases,
    Models,
    Candidates,
    Attempts,
}

impl Counting {
    fn label(self) -> &'static str {
        match self {
            Counting::Cases => "cases",
            Counting::Models => "models",
            Counting::Candidates => "candidates",
            Counting::Attempts => "attempts",
        }
    }
}

/// A bar counting models, cases or candidates, shown whenever stderr is a terminal.
pub fn counter(total: u64, counting: Counting, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{prefix} {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_prefix(counting.label());
    bar
}
