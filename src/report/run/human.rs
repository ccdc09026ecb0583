//! The report people read in a terminal.

use std::fmt::Write;

use super::RunReport;
use crate::report::describe::{describe_device_io, describe_gpu_memory};
use crate::tensor::format_shape;

/// Renders the whole report. The first lines always say where the model ran.
pub fn render(report: &RunReport, quiet: bool) -> String {
    let mut out = String::new();
    let w = &mut out;
    if !quiet {
        header(w, report);
        inputs(w, report);
    }
    outputs(w, report);
    top_k(w, report);
    comparison(w, report);
    what_was_done(w, report);
    if !quiet {
        timings(w, report);
    }
    out
}

/// Where it ran, with what, on which model, in which session.
fn header(w: &mut String, report: &RunReport) {
    let _ = writeln!(w, "device      : {}", report.device.describe());
    if !report.device.placement.is_empty() {
        let _ = writeln!(w, "placement   : {}", crate::runtime::placement::describe(&report.device.placement));
    }
    if let Some(off) = report.device.off_directml_line() {
        let _ = writeln!(w, "off DirectML: {off}");
    }
    if let Some(changed) = &report.device.direct3d12 {
        let _ = writeln!(w, "direct3d12  : {changed}");
    }
    let _ = writeln!(
        w,
        "onnxruntime : {} ({}, {})",
        report.onnxruntime.version,
        report.onnxruntime.path.display(),
        report.onnxruntime.source.describe()
    );
    let _ = writeln!(w, "model       : {} ({} bytes)", report.model.path.display(), report.model.size_bytes);
    let _ = writeln!(
        w,
        "session     : {} execution, memory pattern {}, graph optimisation: {}",
        report.plan.execution_mode,
        if report.plan.memory_pattern { "on" } else { "off" },
        report.plan.optimization_level
    );
    if !report.plan.dimension_overrides.is_empty() {
        let dims: Vec<String> = report
            .plan
            .dimension_overrides
            .iter()
            .map(|o| match &o.source {
                crate::runtime::plan::DimSource::Requested => format!("{}={}", o.key, o.value),
                automatic => format!("{}={} ({})", o.key, o.value, automatic.describe()),
            })
            .collect();
        let _ = writeln!(w, "dims        : {}", dims.join(", "));
    }
    if let Some(memory) = &report.gpu_memory {
        let _ = writeln!(w, "gpu memory  : {}", describe_gpu_memory(memory));
    }
}

/// Each input: its type and shape and where its values came from.
fn inputs(w: &mut String, report: &RunReport) {
    let _ = writeln!(w);
    let _ = writeln!(w, "inputs:");
    for input in &report.inputs {
        let files: Vec<String> = input.files.iter().map(|f| f.display().to_string()).collect();
        let from =
            if files.is_empty() { input.kind.to_string() } else { format!("{} {}", input.kind, files.join(", ")) };
        let _ = writeln!(w, "  {:<16} {} {}  <- {from}", input.name, input.dtype, format_shape(&input.shape));
        if let Some(detail) = &input.detail {
            let _ = writeln!(w, "  {:<16} {detail}", "");
        }
    }
    let _ = writeln!(w);
}

/// Each output: its type, shape, range and first values; map outputs as JSON, shortened.
fn outputs(w: &mut String, report: &RunReport) {
    let _ = writeln!(w, "outputs:");
    for o in &report.outputs {
        let range = match (o.min, o.max, o.mean) {
            (Some(min), Some(max), Some(mean)) => {
                format!("min {} max {} mean {}", num(min), num(max), num(mean))
            }
            _ => String::new(),
        };
        let special = if o.nan_count + o.inf_count > 0 {
            format!("  NaN {} Inf {}", o.nan_count, o.inf_count)
        } else {
            String::new()
        };
        let _ = writeln!(w, "  {:<16} {} {}  {range}{special}", o.name, o.dtype, format_shape(&o.shape));
        let first: Vec<String> = o.first_values.iter().map(|v| v.as_f64().map_or_else(|| v.to_string(), num)).collect();
        let _ = writeln!(
            w,
            "  {:<16} first values: [{}{}]",
            "",
            first.join(", "),
            if first.len() < element_total(&o.shape) { ", …" } else { "" }
        );
    }
    for m in &report.map_outputs {
        let count = m.value.as_array().map(|items| format!(" of {}", items.len())).unwrap_or_default();
        let _ = writeln!(w, "  {:<16} {}{count}", m.name, m.kind);
        let text = m.value.to_string();
        let shown: String = text.chars().take(MAP_PREVIEW_CHARS).collect();
        let more = if shown.len() < text.len() { " …" } else { "" };
        let _ = writeln!(w, "  {:<16} {shown}{more}", "");
    }
}

/// `--top-k`: the best classes of each item.
fn top_k(w: &mut String, report: &RunReport) {
    if let Some(tops) = &report.top_k {
        for top in tops {
            for (item, classes) in top.items.iter().enumerate() {
                let _ = writeln!(w);
                let _ = writeln!(w, "top-{} of '{}' (item {item}):", classes.len(), top.output);
                for c in classes {
                    let label = c.label.as_deref().map(|l| format!("  {l}")).unwrap_or_default();
                    let _ = writeln!(w, "  {:>6}  {:.6}{label}", c.index, c.score);
                }
            }
        }
    }
}

/// `--compare-ep`: each output's difference from the reference EP's.
fn comparison(w: &mut String, report: &RunReport) {
    if let Some(c) = &report.comparison {
        let _ = writeln!(w);
        let _ = writeln!(
            w,
            "compared with {} (graph optimisation: {}): {} of {} outputs differ (atol {:e}, rtol {:e})",
            c.reference.describe(),
            c.reference_optimization_level,
            c.mismatches.len(),
            c.outputs_compared,
            c.tolerance.atol,
            c.tolerance.rtol
        );
        for d in &c.differences {
            let same = if d.identical { " (bit-identical)" } else { "" };
            let _ = writeln!(
                w,
                "  {:<16} max |diff| {:.3e}, max rel {:.3e}{}{}{same}",
                d.output,
                d.max_abs,
                d.max_rel,
                d.steps_note(),
                d.not_finite_note()
            );
        }
        for m in &c.mismatches {
            let _ = writeln!(w, "  {m}");
        }
    }
}

/// What was done beside the run: IO on the device, the rewrite, the precision, the files saved.
fn what_was_done(w: &mut String, report: &RunReport) {
    if let Some(io) = &report.device_io {
        let _ = writeln!(w);
        let _ = writeln!(w, "{}", describe_device_io(io));
    }
    if let Some(r) = &report.rewrite {
        let _ = writeln!(w);
        let _ = writeln!(w, "rewritten   : {}", r.describe());
    }
    if let Some(p) = &report.precision {
        let _ = writeln!(w);
        let _ = writeln!(w, "{:<12}: {}", p.label(), p.describe_conversion());
        if p.converted_anything() {
            let _ = writeln!(w, "              {}", p.describe_accuracy());
        }
    }
    if !report.saved_outputs.is_empty() {
        let _ = writeln!(w);
        for path in &report.saved_outputs {
            let _ = writeln!(w, "saved {}", path.display());
        }
    }
}

/// The stages' times and the timed iterations' statistics.
fn timings(w: &mut String, report: &RunReport) {
    let t = &report.timings_ms;
    let _ = writeln!(w);
    let _ = writeln!(w, "timings (ms):");
    let _ = writeln!(w, "  runtime load   {:>10.3}", t.runtime_load);
    let _ = writeln!(w, "  model load     {:>10.3}", t.model_load);
    let _ = writeln!(w, "  session create {:>10.3}", t.session_create);
    let _ = writeln!(w, "  input prepare  {:>10.3}", t.input_prepare);
    let _ = writeln!(w, "  first run      {:>10.3}", t.first_run);
    if let Some(s) = &report.iterations.latency_ms {
        let _ = writeln!(w);
        let stopped = if report.interrupted {
            format!(" (interrupted by Ctrl-C: {} of {} asked for)", s.count, report.iterations.timed)
        } else {
            String::new()
        };
        let _ = writeln!(w, "{} iterations after {} warm-up{stopped} (ms):", s.count, report.iterations.warmup);
        let _ = writeln!(
            w,
            "  min {:.3}  mean {:.3}  p50 {:.3}  p90 {:.3}  p95 {:.3}  p99 {:.3}  max {:.3}",
            s.min, s.mean, s.p50, s.p90, s.p95, s.p99, s.max
        );
        let items = report.iterations.items_per_s.map(|v| format!(", {v:.2} items/s")).unwrap_or_default();
        let _ = writeln!(
            w,
            "  stddev {:.3} (CoV {:.1}%)  throughput {:.2} inferences/s{items}",
            s.stddev,
            s.cov * 100.0,
            s.throughput_per_s
        );
    }
}

/// How much of a map output the table shows; the JSON report and saved files hold it whole.
const MAP_PREVIEW_CHARS: usize = 160;

fn element_total(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Short, exact-enough rendering of a value: integers without a fraction, others to 6 significant digits.
fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.6e}");
        let plain = format!("{v:.6}");
        if (1e-3..1e6).contains(&v.abs()) {
            plain
        } else {
            s
        }
    }
}
