//! The table people read in a terminal.

use std::fmt::Write;

use super::{BenchReport, ModelBench, PeakScope};

pub fn render(report: &BenchReport) -> String {
    let mut out = String::new();
    let w = &mut out;
    // Where the models ran; where none got as far as a session, what was asked for.
    let device = match report.models.first() {
        Some(m) => m.device.describe(),
        None if report.requested.is_empty() => "no model ran".to_string(),
        None => format!("no model ran ({})", report.requested),
    };
    // As wide as the longest name (a sweep's `resnet50 input=1x3x224x224`), so columns line up.
    let width = report.models.iter().map(|m| m.name.chars().count()).chain([24]).max().unwrap_or(24);
    let indent = width + 2;
    let _ = writeln!(w, "device: {device}   onnxruntime {}", report.onnxruntime.version);
    let _ = writeln!(
        w,
        "{:<width$} {:>9} {:>9} {:>9} {:>9} {:>7} {:>10} {:>10} {:>10} {:>10}",
        "model", "p50 ms", "mean ms", "p99 ms", "stddev", "CoV", "infer/s", "session ms", "first ms", "peak RSS"
    );
    for m in &report.models {
        model_row(w, m, width);
        model_details(w, m, width, indent);
    }
    for f in &report.failed {
        let tag = match f.status {
            super::ModelStatus::Crash => "CRASHED",
            super::ModelStatus::Timeout => "TIMED OUT",
            super::ModelStatus::Interrupted => "INTERRUPTED",
            super::ModelStatus::EpRejected => "EP REJECTED",
            _ => "FAILED",
        };
        let _ = writeln!(w, "{:<width$} {tag}: {}", f.name, f.error);
    }
    for table in super::sweep_tables(report) {
        sweep(w, &table);
    }
    if let Some(b) = &report.baseline {
        baseline(w, b, width);
    }
    if report.models.iter().any(|m| m.peak_rss_scope == PeakScope::Process) {
        let _ = writeln!(
            w,
            "* peak RSS of the whole process so far, not of that model alone (--isolation process measures each model alone)"
        );
    }
    summary(w, report);
    out
}

/// The model's line of the table.
fn model_row(w: &mut String, m: &ModelBench, width: usize) {
    let s = &m.latency_ms;
    let scope = if m.peak_rss_scope == PeakScope::Process { "*" } else { "" };
    let rss = m.peak_rss_bytes.map(|b| format!("{} MiB{scope}", b >> 20)).unwrap_or_else(|| "-".into());
    let _ = writeln!(
        w,
        "{:<width$} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>6.1}% {:>10.1} {:>10.1} {:>10.3} {:>10}",
        m.name,
        s.p50,
        s.mean,
        s.p99,
        s.stddev,
        s.cov * 100.0,
        s.throughput_per_s,
        m.session_create_ms,
        m.first_run_ms,
        rss
    );
}

/// The lines under a model's row: where it ran off DirectML, what was done to it, and what else
/// was measured.
fn model_details(w: &mut String, m: &ModelBench, width: usize, indent: usize) {
    let s = &m.latency_ms;
    if let Some(off) = m.device.off_directml_line() {
        let _ = writeln!(w, "{:<width$} off DirectML: {off}", "");
    }
    if m.status == super::ModelStatus::Interrupted {
        let _ = writeln!(
            w,
            "{:<width$} INTERRUPTED: Ctrl-C stopped it after {} timed runs; the figures are over those",
            "", s.count
        );
    }
    if let Some(g) = &m.generation {
        let _ = writeln!(
            w,
            "{:<width$} generate: {}-token prompt, {} new tokens: time to first token {} ms, {:.1} tokens/s (prompt {:.1} tokens/s); the latencies above are per decoded token",
            "",
            g.prompt_tokens,
            g.new_tokens,
            g.ttft_ms.as_ref().map_or("-".into(), |t| format!("{:.3}", t.p50)),
            g.generation_tokens_per_s,
            g.prompt_tokens_per_s
        );
    }
    if let (Some(items), Some(batch @ 2..)) = (m.items_per_s, m.batch_size) {
        let _ = writeln!(w, "{:<width$} batch {batch}: {items:.1} items/s", "",);
    }
    if let Some(r) = &m.rewrite {
        let _ = writeln!(w, "{:<width$} rewritten: {}", "", r.describe());
    }
    precision(w, m, width);
    if let Some(cache) = &m.cache {
        let _ = writeln!(w, "{:<width$} optimised-model cache: {cache}", "");
    }
    if let Some(memory) = &m.gpu_memory {
        let _ = writeln!(w, "{:<width$} gpu memory: {}", "", crate::report::describe::describe_gpu_memory(memory));
    }
    if let Some(c) = &m.comparison {
        let _ = writeln!(
            w,
            "{:<width$} --compare-ep: {}",
            "",
            if c.is_empty() { "outputs match".to_string() } else { format!("{} output(s) differ", c.len()) }
        );
        for mismatch in c {
            let _ = writeln!(w, "{:<indent$} {mismatch}", "");
        }
    }
    reference(w, m, width);
    if let Some(io) = &m.device_io {
        let _ = writeln!(w, "{:<width$} {}", "", crate::report::describe::describe_device_io(io));
    }
    sessions(w, m, width);
    profile(w, m, width, indent);
}

/// `float16: ...; float32 p50 ... ms; float16 takes 1.04x as long`, and the accuracy line.
fn precision(w: &mut String, m: &ModelBench, width: usize) {
    let s = &m.latency_ms;
    if let Some(p) = &m.precision {
        let float32 = match (&p.float32_latency_ms, &p.float32_error) {
            (Some(f), _) => {
                format!("{} p50 {:.3} ms; {} takes {:.2}x as long", p.original_label(), f.p50, p.label(), s.p50 / f.p50)
            }
            (None, Some(e)) => format!("{} could not run here: {e}", p.original_label()),
            (None, None) if m.baseline_model.is_some() => {
                format!("{} timed as the --baseline-model, in rounds with it (its verdict below)", p.original_label())
            }
            (None, None) => format!("{} not timed", p.original_label()),
        };
        let float32 = if p.converted_anything() { format!("; {float32}") } else { String::new() };
        let _ = writeln!(w, "{:<width$} {}: {}{float32}", "", p.label(), p.describe_conversion());
        if p.converted_anything() {
            let _ = writeln!(w, "{:<width$} {}", "", p.describe_accuracy());
        }
    }
}

/// The reference EP's timing beside this run's, with the largest difference.
fn reference(w: &mut String, m: &ModelBench, width: usize) {
    let s = &m.latency_ms;
    if let Some(r) = &m.reference {
        if let Some(l) = &r.latency_ms {
            let largest = r.differences.iter().map(|d| d.max_abs).fold(0.0, f64::max);
            let not_finite = crate::compare::not_finite_note(r.differences.iter().map(|d| d.not_finite).sum());
            let _ = writeln!(
                w,
                "{:<width$} {}: p50 {:.3} ms, p99 {:.3} ms ({:.2}x this run's p50); max |diff| {largest:.3e}{not_finite}",
                "",
                r.device.execution_provider,
                l.p50,
                l.p99,
                l.p50 / s.p50
            );
        }
    }
}

/// `--sessions N`: the sessions' throughput together and each one's p50.
fn sessions(w: &mut String, m: &ModelBench, width: usize) {
    if let Some(c) = &m.sessions {
        let p50s: Vec<String> = c.per_session.iter().map(|s| format!("{:.3}", s.p50)).collect();
        let _ = writeln!(
            w,
            "{:<width$} {} sessions at once: {:.2} inferences/s together ({} runs in {:.2} s); p50 per session {} ms",
            "",
            c.sessions,
            c.throughput_per_s,
            c.runs,
            c.wall_s,
            p50s.join(" / ")
        );
    }
}

/// `--profile`: the ten operators that took longest.
fn profile(w: &mut String, m: &ModelBench, width: usize, indent: usize) {
    if let Some(p) = &m.profile {
        let fusion = if p.graph_fusion == crate::report::bench::GraphFusion::Off {
            ", DirectML graph fusion OFF: these are the unfused graph's times"
        } else {
            ""
        };
        let _ = writeln!(w, "{:<width$} top operators ({}{fusion}):", "", p.file.display());
        for op in p.top_ops.iter().take(10) {
            let _ = writeln!(
                w,
                "{:<indent$} {:<22} {:>6} calls {:>10.3} ms {:>5.1}%",
                "", op.op_type, op.calls, op.total_ms, op.percent
            );
        }
    }
}

/// `3 model(s): 2 measured, 1 failed`, with Ctrl-C's stops counted apart.
fn summary(w: &mut String, report: &BenchReport) {
    // Ctrl-C is counted apart: it is no failure of a model.
    let stopped = |m: super::ModelStatus| m == super::ModelStatus::Interrupted;
    let measured_partway = report.models.iter().filter(|m| stopped(m.status)).count();
    let not_timed = report.failed.iter().filter(|f| stopped(f.status)).count();
    let _ = writeln!(
        w,
        "{} model(s){}: {} measured{}, {} failed{}{}",
        report.models.len() + report.failed.len(),
        report.shard.as_ref().map(|s| crate::report::shard_said(s, "models")).unwrap_or_default(),
        report.models.len(),
        if measured_partway > 0 { format!(" ({measured_partway} stopped partway by Ctrl-C)") } else { String::new() },
        report.failed.len() - not_timed,
        if not_timed > 0 { format!(", {not_timed} stopped by Ctrl-C before a timed run") } else { String::new() },
        if report.interrupted { " (interrupted)" } else { "" }
    );
}

/// A sweep's points side by side: what a new size costs (the session, the first run where
/// DirectML compiles for it) beside its steady figures, the best throughput marked.
fn sweep(w: &mut String, table: &super::SweepTable) {
    let _ = writeln!(w);
    let _ = writeln!(w, "{} swept over {}:", table.of, table.over);
    let _ = writeln!(
        w,
        "  {:<16} {:>10} {:>10} {:>9} {:>9} {:>10}",
        table.over, "session ms", "first ms", "p50 ms", "p99 ms", "items/s"
    );
    for (i, row) in table.points.iter().enumerate() {
        match row.measured {
            Ok(m) => {
                let _ = writeln!(
                    w,
                    "  {:<16} {:>10.1} {:>10.3} {:>9.3} {:>9.3} {:>10.1}{}",
                    row.value,
                    m.session_create_ms,
                    m.first_run_ms,
                    m.latency_ms.p50,
                    m.latency_ms.p99,
                    m.items_per_s(),
                    if table.best == Some(i) { "  <- best throughput" } else { "" }
                );
            }
            Err(f) => {
                let _ = writeln!(w, "  {:<16} {}: {}", row.value, f.status.word().to_uppercase(), f.error);
            }
        }
    }
}

/// Each model's verdict against the baseline: the medians, the ratio with its interval, the
/// verdict, why, and how this run differs from the baseline's.
fn baseline(w: &mut String, b: &super::BaselineComparison, width: usize) {
    let _ = writeln!(w);
    let _ = writeln!(w, "against {} (max regression {:.1}%; {}):", b.against, b.max_regression * 100.0, b.test);
    for note in &b.notes {
        let _ = writeln!(w, "  note: {note}");
    }
    for r in &b.models {
        let figures = match (r.tokens_per_s, r.p50_ms) {
            (Some(now), _) => {
                format!("{now:.1} vs {} tokens/s", r.baseline_tokens_per_s.map_or("-".into(), |v| format!("{v:.1}")))
            }
            (None, Some(now)) => {
                format!("p50 {now:.3} ms vs {}", r.baseline_p50_ms.map_or("-".into(), |v| format!("{v:.3} ms")))
            }
            (None, None) => String::new(),
        };
        let verdict = r.verdict_word();
        let shout = if r.regression { verdict.to_uppercase() } else { verdict };
        let _ = writeln!(w, "  {:<width$} {figures}  {shout}", r.name);
        if let Some(c) = &r.change {
            let _ = writeln!(w, "  {:<width$} {}", "", c.reason);
        }
        if r.change.is_some() {
            if let Some(note) = &r.note {
                let _ = writeln!(w, "  {:<width$} {note}", "");
            }
        }
        for difference in &r.differences {
            let _ = writeln!(w, "  {:<width$} differs: {difference}", "");
        }
    }
    let _ = writeln!(
        w,
        "  {} regression(s), {} improvement(s), {} inconclusive",
        b.regressions, b.improvements, b.inconclusive
    );
}
