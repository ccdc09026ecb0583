//! `dmlrun fix`'s record: each attempt, what it changed, how it ended, and what was written.

use std::fmt::Write;
use std::path::PathBuf;

use serde::Serialize;

pub const FIX_SCHEMA: &str = "dmlrun.fix/1";

/// How one attempt ended, the whole model run on the EP under test against the reference.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "outcome", content = "detail", rename_all = "snake_case")]
pub enum AttemptOutcome {
    /// It opened, ran and agreed with the reference within the tolerance.
    Passes,
    /// It opened and ran, and an output differs (the first difference).
    Differs(String),
    /// It did not open or did not run (the error, one line).
    Fails(String),
}

/// One whole run of the model with a set of remedies.
#[derive(Debug, Clone, Serialize)]
pub struct Attempt {
    /// The remedies applied, as the flags that ask for them (empty: the model as it is).
    pub remedies: Vec<String>,
    #[serde(flatten)]
    pub outcome: AttemptOutcome,
    /// The largest difference from the reference's outputs on the original, where it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_abs_diff: Option<f64>,
    pub seconds: f64,
}

impl Attempt {
    /// `--decompose Gelu: passes`, `as it is: differs: output 'y': ...`.
    pub fn describe(&self) -> String {
        let what = if self.remedies.is_empty() { "as it is".to_string() } else { self.remedies.join(" ") };
        let how = match &self.outcome {
            AttemptOutcome::Passes => "passes".to_string(),
            AttemptOutcome::Differs(d) => format!("differs: {d}"),
            AttemptOutcome::Fails(e) => format!("fails: {e}"),
        };
        format!("{what}: {how}")
    }
}

/// Everything `dmlrun fix` did.
#[derive(Debug, Clone, Serialize)]
pub struct FixReport {
    pub schema: &'static str,
    pub dmlrun_version: &'static str,
    pub model: PathBuf,
    /// The execution provider under test, and the reference, as the sessions reported them.
    pub execution_provider: String,
    pub reference: String,
    pub tolerance: crate::compare::Tolerance,
    /// Every remedy that fits the model, in the order they were tried.
    pub remedies_that_fit: Vec<String>,
    pub attempts: Vec<Attempt>,
    /// `passes` (as it was), `fixed` or `not_fixed`.
    pub verdict: &'static str,
    /// The remedies of the model that passed (the fewest of those tried that still pass).
    pub remedies: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<PathBuf>,
}

/// The record for a person.
pub fn human(report: &FixReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "model:     {} on {} against {} (atol {}, rtol {})",
        report.model.display(),
        report.execution_provider,
        report.reference,
        report.tolerance.atol,
        report.tolerance.rtol
    );
    let fit =
        if report.remedies_that_fit.is_empty() { "none".to_string() } else { report.remedies_that_fit.join(", ") };
    let _ = writeln!(out, "remedies that fit: {fit}");
    for (i, attempt) in report.attempts.iter().enumerate() {
        let diff = attempt.max_abs_diff.map(|d| format!(" (max |diff| {d:.3e})")).unwrap_or_default();
        let _ = writeln!(out, "  {}. {}{diff}", i + 1, attempt.describe());
    }
    let _ = match report.verdict {
        "passes" => writeln!(out, "verdict:   it passes as it is; nothing to fix"),
        "fixed" => writeln!(out, "verdict:   fixed with {}", report.remedies.join(" ")),
        _ => writeln!(out, "verdict:   not fixed: no remedy dmlrun knows made it pass"),
    };
    if let Some(written) = &report.written {
        let _ = writeln!(out, "written:   {}", written.display());
    }
    out
}
