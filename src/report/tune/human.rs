//! `dmlrun tune`'s record as text.

use std::fmt::Write;

use super::{Candidate, Outcome, TuneReport};

pub fn render(report: &TuneReport) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "model       : {}", report.model.display());
    let _ = writeln!(w, "device      : {}", report.device);
    let _ = writeln!(w, "checked on  : {} (each candidate's outputs against the original's)", report.reference);
    let _ = writeln!(w, "timed       : {}", report.timed);
    for line in &report.not_fitting {
        let _ = writeln!(w, "not a candidate: {line}");
    }
    for candidate in report.candidates.iter().chain(&report.combined) {
        let _ = writeln!(w, "{}", describe(candidate));
    }
    let chosen = match report.chosen.is_empty() {
        true => "the original: no candidate was measured faster here (the paired test, alpha 0.05)".to_string(),
        false => report.chosen.join(" "),
    };
    let _ = writeln!(w, "fastest     : {chosen}");
    if let Some(path) = &report.written {
        let _ = writeln!(w, "written     : {}", path.display());
    }
    if !report.run_with.is_empty() {
        let _ = writeln!(
            w,
            "run it with : {} (session options, which a model file does not hold)",
            report.run_with.join(" ")
        );
    }
    let _ = writeln!(
        w,
        "searched    : {} candidates in {:.1} s (budget {:.0} s)",
        report.candidates.len(),
        report.seconds,
        report.budget_s
    );
    out
}

/// `--matmul-as-mul-reducesum: faster, 0.68x [0.65, 0.71] (p 0.000; p50 20.6 against 30.4 ms), max |diff| 4.2e-7`.
fn describe(c: &Candidate) -> String {
    let mut line = format!("{:<12}: {}", if c.flags.len() > 1 { "combined" } else { "candidate" }, c.label());
    let _ = write!(line, ": {}", c.outcome.word());
    match &c.outcome {
        Outcome::Differs(why) | Outcome::Fails(why) => {
            let _ = write!(line, " ({why})");
        }
        _ => {}
    }
    if let Some(change) = &c.change {
        let _ = write!(
            line,
            ", {:.2}x [{:.2}, {:.2}] ({}, p {:.3}",
            change.ratio,
            change.ci_low,
            change.ci_high,
            change.verdict.word(),
            change.p_value
        );
        if let (Some(p50), Some(original)) = (c.p50_ms, c.original_p50_ms) {
            let _ = write!(line, "; p50 {p50:.3} against {original:.3} ms");
        }
        line.push(')');
    }
    if let Some(ttft) = &c.ttft {
        let _ = write!(
            line,
            ", time to first token {:.2}x [{:.2}, {:.2}] ({})",
            ttft.ratio,
            ttft.ci_low,
            ttft.ci_high,
            ttft.verdict.word()
        );
    }
    if let Some(note) = &c.note {
        let _ = write!(line, " ({note})");
    }
    if let Some(diff) = c.max_abs_diff {
        let _ = write!(line, ", max |diff| {diff:.2e}");
    }
    line
}
