//! The HTML page: the figures and, per prompt, the decode latency at each position.

use std::fmt::Write;

use super::table::{row, LABELS};
use super::GenerateReport;

/// The HTML page: the figures and, per prompt, the decode latency at each position.
pub fn html(report: &GenerateReport) -> String {
    use crate::report::html::{esc, Page};
    let mut page = Page::new();
    page.heading(1, &format!("dmlrun generate: {}", report.model.display()));
    page.push(&format!(
        "<p>{} &middot; ONNX Runtime {} &middot; KV cache {} ({:.1} MiB{}){} &middot; session created in {:.1} ms</p>",
        esc(&report.device.describe()),
        esc(&report.onnxruntime.version),
        report.kv_cache.layout,
        report.kv_cache.bytes as f64 / (1024.0 * 1024.0),
        if report.kv_cache.on_device { ", on the device" } else { "" },
        if report.decode_step_captured { " &middot; decode step graph-captured" } else { "" },
        report.session_create_ms
    ));
    if let Some(off) = report.device.off_directml_line() {
        page.push(&format!("<p>off DirectML: {}</p>", esc(&off)));
    }
    let rows: Vec<(String, Vec<String>)> =
        report.prompts.iter().map(|p| (String::new(), row(report, p).iter().map(|c| esc(c)).collect())).collect();
    page.table("figures", LABELS, &(1..LABELS.len()).collect::<Vec<_>>(), &rows);
    if let Some(p) = &report.perplexity {
        page.heading(2, "Perplexity");
        page.push(&format!("<pre>{}</pre>", esc(&p.describe())));
    }
    if let Some(c) = &report.comparison {
        page.heading(2, &format!("Against {} (--compare-ep): logits at every step", c.reference_ep));
        for p in &c.prompts {
            let tokens = match p.first_difference {
                None => format!("the same {} tokens", p.matching),
                Some(at) => format!("tokens part at {at} ({} equal before it)", p.matching),
            };
            page.push(&format!(
                "<p class=\"verdict {}\"><b>{}</b>: {}; {}: {}</p>",
                if p.logits.verdict.failed() {
                    "bad"
                } else if p.logits.verdict.warns() {
                    "warn"
                } else {
                    "good"
                },
                esc(&p.source),
                esc(&tokens),
                esc(p.logits.verdict_word()),
                esc(&p.logits.summary())
            ));
        }
    }
    for p in &report.prompts {
        page.heading(2, &format!("{}: decode latency per token", p.source));
        page.push(&position_plot(&p.figures.per_position_ms));
        if let Some(text) = &p.generated_text {
            page.push(&format!("<pre class=\"generated\">{}</pre>", esc(text)));
        }
    }
    page.finish(&format!("dmlrun generate {}", report.model.display()))
}

/// A line of the mean decode latency at each position (inline SVG).
fn position_plot(per_position_ms: &[f64]) -> String {
    if per_position_ms.is_empty() {
        return "<p>One new token: no decode steps to plot.</p>".to_string();
    }
    let (w, h, left, bottom) = (720.0, 240.0, 56.0, 28.0);
    let max = per_position_ms.iter().copied().fold(0.0f64, f64::max).max(1e-9) * 1.1;
    let n = per_position_ms.len().max(2) - 1;
    let x = |i: usize| left + (w - left - 8.0) * i as f64 / n as f64;
    let y = |v: f64| 8.0 + (h - bottom - 8.0) * (1.0 - v / max);
    let points: Vec<String> =
        per_position_ms.iter().enumerate().map(|(i, &v)| format!("{:.1},{:.1}", x(i), y(v))).collect();
    let mut svg = format!(
        "<svg class=\"chart\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"decode latency per token position\"><title>decode latency (ms) at each token after the first</title><text x=\"4\" y=\"12\" font-size=\"11\" fill=\"var(--muted)\">ms per token</text>"
    );
    for frac in [0.0, 0.5, 1.0] {
        let v = max / 1.1 * frac;
        let (line_y, label_y) = (y(v), y(v) + 4.0);
        let _ = write!(
            svg,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{line_y:.1}\" y2=\"{line_y:.1}\" stroke=\"var(--grid)\"/><text x=\"{}\" y=\"{label_y:.1}\" text-anchor=\"end\" font-size=\"11\" fill=\"var(--muted)\">{}</text>",
            w - 8.0,
            left - 4.0,
            crate::report::html::svg::ms(v)
        );
    }
    let _ = write!(
        svg,
        "<polyline fill=\"none\" stroke=\"var(--s1)\" stroke-width=\"1.5\" points=\"{}\"/><text x=\"{left}\" y=\"{}\" font-size=\"11\" fill=\"var(--muted)\">token 2</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"11\" fill=\"var(--muted)\">token {}</text></svg>",
        points.join(" "),
        h - 8.0,
        w - 8.0,
        h - 8.0,
        per_position_ms.len() + 1
    );
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_position_plot_has_one_point_per_decode_step() {
        let svg = position_plot(&[1.0, 2.0, 1.5]);
        let points = svg.split("points=\"").nth(1).unwrap().split('"').next().unwrap();
        assert_eq!(points.split(' ').count(), 3);
        assert!(svg.contains("token 4"));
    }
}
