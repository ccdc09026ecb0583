//! `dmlrun fix`'s record as a person reads it.

use std::fmt::Write;

use super::FixReport;

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
    if let Some(located) = &report.located {
        match (&located.error, &located.node) {
            (Some(why), _) => {
                let _ = writeln!(out, "reduced:   not reduced: {why}");
            }
            (None, Some(node)) => {
                let op = located.op_type.as_deref().unwrap_or("?");
                let mode = located.mode.as_deref().unwrap_or("failure");
                let partial = if located.complete { "" } else { " (time limit hit: not necessarily the smallest)" };
                let _ = writeln!(
                    out,
                    "reduced:   as given, the {mode} is pinned on node '{node}' ({op}): {} of {} nodes{partial}",
                    located.nodes_after, located.nodes_before
                );
                if !located.passing_on_minimal.is_empty() {
                    let _ = writeln!(
                        out,
                        "           its smallest model passes with {}",
                        located.passing_on_minimal.join("; ")
                    );
                }
                if let Some(minimal) = &located.minimal {
                    let _ = writeln!(out, "           the smallest model that shows it: {}", minimal.display());
                }
                for option in &located.options_that_pass {
                    let _ = writeln!(
                        out,
                        "           the whole model passes with {option}: a session option, not a change a model file carries"
                    );
                }
            }
            (None, None) => {
                let _ = writeln!(out, "reduced:   reduce named no node");
            }
        }
    }
    out
}
