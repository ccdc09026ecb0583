//! `dmlrun reduce`'s report as a person reads it, and `--each-op`'s survey.

use std::fmt::Write as _;

use super::{OpSurvey, ReduceReport};
use crate::graph::Graph;
use crate::reduce::candidate::Outcome;
use crate::reduce::{Mode, Tried};

/// `nodes 0..=335 (336 of 672): error (2.1 s): DmlGraphFusionHelper.cpp(588) ...`: one candidate.
pub fn tried_line(t: &Tried, graph: &Graph) -> String {
    let reason = t
        .outcome
        .reason()
        .map(|r| format!(": {}", crate::runtime::engine::diagnose::shorten_source_paths(r)))
        .unwrap_or_default();
    let what = if t.every_tensor {
        format!("the whole model with every tensor an output ({} nodes)", t.nodes)
    } else {
        let last = &graph.nodes()[t.last];
        format!("nodes {}..={} ({} of {}, ending at {})", t.first, t.last, t.nodes, graph.nodes().len(), last.label())
    };
    let mut line = format!("reduce: {what}: {} ({:.1} s){reason}", t.outcome.word(), t.seconds);
    if line.len() > 240 {
        let cut = (0..=237).rev().find(|&i| line.is_char_boundary(i)).unwrap_or(0);
        line.truncate(cut);
        line.push_str("...");
    }
    line
}

/// "rewritten by ..., " before the count of what was searched, where the search ran on a model
/// made from the user's.
fn made_as(made: &Option<String>) -> String {
    made.as_ref().map_or_else(String::new, |how| format!("{how}, "))
}

/// The text report.
pub fn human(r: &ReduceReport) -> String {
    let mut s = String::new();
    let mode = match r.reduction.mode {
        Mode::Rejection => "the EP rejects the model",
        Mode::Accuracy => "the EP runs the model, with outputs that differ beyond tolerance",
        Mode::Hang => "the EP does not finish the model within --candidate-timeout, and the reference runs it",
    };
    let _ = writeln!(s, "model       : {} ({}{} nodes)", r.model.display(), made_as(&r.made), r.reduction.nodes_before);
    let _ = writeln!(s, "under test  : --ep {}: {} on the whole model ({mode})", r.ep, r.reduction.original.word());
    if let Some(reason) = r.reduction.original.reason() {
        let _ = writeln!(s, "              {}", crate::runtime::engine::diagnose::shorten_source_paths(reason));
    }
    let _ = writeln!(s, "reference   : {} runs it; its values feed every candidate", r.reference.describe());
    if let Some(t) = &r.reduction.first_divergent {
        let _ = writeln!(s, "first differs: tensor '{t}'");
    }
    let fails = r.reduction.tried.iter().filter(|t| !matches!(t.outcome, Outcome::Pass)).count();
    let _ = writeln!(
        s,
        "tried       : {} candidates in {:.1} s ({} reproduced, {} did not){}",
        r.reduction.tried.len(),
        r.seconds,
        fails,
        r.reduction.tried.len() - fails,
        if r.reduction.complete { "" } else { "; stopped by --timeout" }
    );
    let _ = writeln!(
        s,
        "minimal     : {} of {} nodes (nodes {}..={} in topological order), {} on the EP under test",
        r.reduction.nodes_after,
        r.reduction.nodes_before,
        r.reduction.first_node,
        r.reduction.last_node,
        r.reduction.outcome.word()
    );
    let fused = match r.reduction.fused_with.is_empty() {
        true => String::new(),
        false => format!(" fused with '{}'", r.reduction.fused_with.join("', '")),
    };
    let _ = writeln!(s, "node        : {}{fused}", r.reduction.node.describe());
    // Only what was tried and seen: each option on the minimal model, and where it made that
    // pass, on the whole model.
    for (i, m) in r.reduction.remedies.iter().enumerate() {
        let label = if i == 0 { "options     :" } else { "             " };
        let whole = m.whole.as_ref().map(|w| format!(", the whole model {}", w.verb())).unwrap_or_default();
        let close = m.max_abs_diff.map(|d| format!(" (max |diff| {d:.2e} from the reference)")).unwrap_or_default();
        let _ = writeln!(s, "{label} with {}: the minimal model {}{close}{whole}", m.option, m.minimal.verb());
    }
    let _ = writeln!(s, "written     : {} (model.onnx, test_data_set_0/, reduce.json)", r.written.display());
    let _ = writeln!(s, "reproduce   : {}", r.reproduce[0]);
    let verdict = match &r.reduction.reference_outcome {
        Some(Outcome::Differs { .. }) => {
            "runs it; its outputs differ from the whole model's run by more than the tolerance"
        }
        _ => "passes",
    };
    // A line like every other: without its newline the shell's prompt follows it on the line.
    let _ = writeln!(s, "              {}  ({verdict})", r.reproduce[1]);
    s
}

/// The survey as a table: each operator, how many nodes have it, what the EP under test did.
pub fn each_op_human(survey: &OpSurvey) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "model       : {} ({}{} operator types)",
        survey.model.display(),
        made_as(&survey.made),
        survey.ops.len()
    );
    let _ = writeln!(s, "under test  : {}", survey.ep_args.join(" "));
    let _ = writeln!(s, "reference   : {} (its values feed each node)", survey.reference);
    let width = survey.ops.iter().map(|c| c.op_type.len() + c.domain.len() + 1).max().unwrap_or(8).max(8);
    for c in &survey.ops {
        let op = if c.domain.is_empty() || c.domain == "ai.onnx" {
            c.op_type.clone()
        } else {
            format!("{}:{}", c.domain, c.op_type)
        };
        let verdict = match (&c.outcome, &c.reference) {
            (Outcome::Pass, _) => "runs".to_string(),
            (o, Some(r)) if !r.rejected() => format!(
                "{} (the reference runs it): {}",
                o.word(),
                o.reason().map(crate::runtime::engine::diagnose::shorten_source_paths).unwrap_or_default()
            ),
            (Outcome::Timeout, _) => "timeout (ran past --candidate-timeout)".to_string(),
            (o, _) => format!("{} (the reference fails it too)", o.word()),
        };
        let _ = writeln!(s, "  {op:<width$} x{:<4} {verdict}", c.count);
    }
    let failed = survey.ops.iter().filter(|c| c.outcome != Outcome::Pass).count();
    let _ = writeln!(
        s,
        "{} of {} operator types run alone on the EP under test ({failed} do not), in {:.1} s",
        survey.ops.len() - failed,
        survey.ops.len(),
        survey.seconds
    );
    s
}
