//! The `bench --html` page: the environment, every model's status, p50/p99 across models, each
//! model's latency distribution (and its `--compare-ep` reference's), the baseline verdicts,
//! the top operators of a profile, and memory.

use std::fmt::Write;

use anyhow::Result;

use crate::report::bench::cells::Cells;
use crate::report::bench::{BenchReport, ModelBench, ModelStatus, PeakScope, ProfileSummary, ReferenceBench};
use crate::report::export::Exporter;
use crate::report::html::svg::{self, BarGroup, Mark};
use crate::report::html::{esc, Page};
use crate::runtime::engine::diagnose::shorten_source_paths;

/// Writes the page; registered beside the JSON, CSV and Markdown exporters, so it is rewritten
/// after every model like them.
pub struct HtmlExporter;

impl Exporter<BenchReport> for HtmlExporter {
    fn render(&self, report: &BenchReport) -> Result<String> {
        Ok(render(report))
    }
}

pub fn render(report: &BenchReport) -> String {
    let mut page = Page::new();
    let measured = report.models.len();
    let failed = report.failed.len();
    page.heading(1, "dmlrun bench");
    page.push(&format!(
        r#"<p class="sub">{} model(s): {measured} measured, {failed} failed{}{} · {}</p>"#,
        measured + failed,
        if report.interrupted {
            " · interrupted (Ctrl-C): the last model's figures cover the runs made until then"
        } else {
            ""
        },
        report
            .baseline
            .as_ref()
            .map(|b| format!(" · {} regression(s) beyond {:.1}%", b.regressions, b.max_regression * 100.0))
            .unwrap_or_default(),
        crate::report::html::now()
    ));
    environment(&mut page, report);
    status_table(&mut page, report);
    if !report.models.is_empty() {
        across_models(&mut page, report);
    }
    for table in crate::report::bench::sweep_tables(report) {
        sweep_section(&mut page, &table);
    }
    if let Some(baseline) = &report.baseline {
        baseline_section(&mut page, baseline);
    }
    for m in &report.models {
        model_section(&mut page, m);
    }
    page.finish("dmlrun bench")
}

fn environment(page: &mut Page, report: &BenchReport) {
    page.heading(2, "Environment");
    let machine = &report.machine;
    let first = report.models.first();
    let mut rows: Vec<(&str, String)> = vec![
        (
            "machine",
            format!(
                "{} {} · {} · {} logical cores{}",
                machine.os,
                machine.arch,
                machine.cpu.as_deref().unwrap_or("CPU model unknown"),
                machine.logical_cores,
                machine.wine.as_ref().map(|w| format!(" · under Wine {w}")).unwrap_or_default()
            ),
        ),
        ("ONNX Runtime", format!("{} ({})", report.onnxruntime.version, report.onnxruntime.path.display())),
        ("dmlrun", report.dmlrun_version.to_string()),
    ];
    if let Some(m) = first {
        rows.push(("execution provider", m.device.describe()));
        if let Some(off) = m.device.off_directml_line() {
            rows.push(("off DirectML", off));
        }
        if let Some(r) = &m.reference {
            rows.push(("--compare-ep", r.device.describe()));
        }
    }
    page.push(r#"<dl class="env">"#);
    for (k, v) in rows {
        page.push(&format!("<dt>{}</dt><dd>{}</dd>", esc(k), esc(&v)));
    }
    page.push("</dl>");
    if let Some(m) = first {
        page.push(&format!(
            r#"<details><summary>Session plan ({})</summary><pre class="plan">{}</pre></details>"#,
            esc(&m.name),
            esc(&m.plan.to_string())
        ));
    }
}

fn status_table(page: &mut Page, report: &BenchReport) {
    page.heading(2, "Models");
    let header = [
        "model",
        "status",
        "p50 ms",
        "mean ms",
        "p99 ms",
        "stddev",
        "CoV",
        "infer/s",
        "session ms",
        "first ms",
        "peak RSS",
        "gpu memory",
    ];
    let rows: Vec<(String, Vec<String>)> = report.models.iter().map(model_row).collect();
    page.table("models", &header, &[2, 3, 4, 5, 6, 7, 8, 9], &rows);
    if !report.failed.is_empty() {
        failed_table(page, report);
    }
    if report.models.iter().any(|m| m.peak_rss_scope == PeakScope::Process) {
        page.push(
            r#"<p class="sub">peak RSS marked (process): the whole process's peak so far, not that model's alone.</p>"#,
        );
    }
}

/// A measured model's row: its figures, status and warnings.
fn model_row(m: &ModelBench) -> (String, Vec<String>) {
    let c = Cells::of(m);
    let rss = m
        .peak_rss_bytes
        .map(|b| format!("{} MiB{}", b >> 20, if m.peak_rss_scope == PeakScope::Process { " (process)" } else { "" }))
        .unwrap_or_else(|| "-".into());
    let gpu = match (&m.gpu_memory, m.gpu_memory_bytes) {
        (Some(g), _) if g.note.is_some() => {
            format!(r#"<span title="{}">not readable</span>"#, esc(g.note.as_deref().unwrap_or_default()))
        }
        (_, Some(b)) => format!("{} MiB", b >> 20),
        _ => "-".into(),
    };
    let warned = if m.warnings.is_empty() {
        String::new()
    } else {
        format!(
            r#" <span class="badge warn" title="{}">{} warning(s)</span>"#,
            esc(&m.warnings.join("\n")),
            m.warnings.len()
        )
    };
    (
        m.status.word().to_string(),
        vec![
            format!("{}{warned}", esc(&m.name)),
            format!(r#"<span class="status {0}">{0}</span>"#, m.status.word()),
            c.p50,
            c.mean,
            c.p99,
            c.stddev,
            c.cov,
            c.per_s,
            c.session,
            c.first_run,
            esc(&rss),
            gpu,
        ],
    )
}

/// The models not measured, and why.
fn failed_table(page: &mut Page, report: &BenchReport) {
    page.heading(3, "Not measured");
    let rows: Vec<(String, Vec<String>)> = report
        .failed
        .iter()
        .map(|f| {
            let word = f.status.word();
            (
                "bad".to_string(),
                vec![
                    esc(&f.name),
                    format!(r#"<span class="status {word}">{}</span>"#, word.to_uppercase()),
                    format!(r#"<span class="reason">{}</span>"#, esc(&shorten_source_paths(&f.error))),
                ],
            )
        })
        .collect();
    page.table("failed", &["model", "status", "why"], &[], &rows);
}

/// p50 and p99 of every model (and of its reference execution provider) as grouped bars.
fn across_models(page: &mut Page, report: &BenchReport) {
    page.heading(2, "p50 and p99 latency across models");
    let main_ep = report.models.first().map(|m| m.device.execution_provider.clone()).unwrap_or_default();
    let reference_ep =
        report.models.iter().find_map(|m| m.reference.as_ref()).map(|r| r.device.execution_provider.clone());
    let mut series = vec![format!("p50 {main_ep}"), format!("p99 {main_ep}")];
    if let Some(r) = &reference_ep {
        series.push(format!("p50 {r} (--compare-ep)"));
        series.push(format!("p99 {r} (--compare-ep)"));
    }
    legend(page, &series);
    let groups: Vec<BarGroup> = report
        .models
        .iter()
        .map(|m| {
            let mut values = vec![Some(m.latency_ms.p50), Some(m.latency_ms.p99)];
            if reference_ep.is_some() {
                let l = m.reference.as_ref().and_then(|r| r.latency_ms.as_ref());
                values.push(l.map(|l| l.p50));
                values.push(l.map(|l| l.p99));
            }
            BarGroup { label: m.name.clone(), values, flag: None }
        })
        .collect();
    page.push(&svg::bars(&groups, &series, "ms", "p50 and p99 latency per model (ms)"));
}

/// A `--sweep`: its points' figures, the new size's cost (session, first run) beside the steady
/// ones, and items/s and p50 plotted against the swept value, the best throughput ringed.
fn sweep_section(page: &mut Page, table: &crate::report::bench::SweepTable) {
    page.heading(2, &format!("{} swept over {}", table.of, table.over));
    let rows: Vec<(String, Vec<String>)> = table
        .points
        .iter()
        .enumerate()
        .map(|(i, row)| match row.measured {
            Ok(m) => {
                let best = if table.best == Some(i) { r#" <span class="badge">best</span>"# } else { "" };
                let [session, first_run, p50, p99] = Cells::sweep(m);
                (
                    String::new(),
                    vec![
                        esc(row.value),
                        format!(r#"<span class="status {0}">{0}</span>"#, m.status.word()),
                        session,
                        first_run,
                        p50,
                        p99,
                        format!("{:.1}{best}", m.items_per_s()),
                    ],
                )
            }
            Err(f) => {
                let word = f.status.word();
                let mut cells = vec![
                    esc(row.value),
                    format!(r#"<span class="status {word}">{}</span>"#, word.to_uppercase()),
                    format!(r#"<span class="reason">{}</span>"#, esc(&shorten_source_paths(&f.error))),
                ];
                cells.resize(7, String::new());
                ("bad".to_string(), cells)
            }
        })
        .collect();
    page.table(
        "sweep",
        &[table.over, "status", "session ms", "first run ms", "p50 ms", "p99 ms", "items/s"],
        &[2, 3, 4, 5, 6],
        &rows,
    );
    let figure = |f: fn(&ModelBench) -> f64| -> Vec<(String, Option<f64>)> {
        table.points.iter().map(|row| (row.value.to_string(), row.bench().map(f))).collect()
    };
    let over = table.over;
    page.push(&svg::line(
        &figure(ModelBench::items_per_s),
        "items/s",
        table.best,
        &format!("items per second against {over}"),
    ));
    page.push(&svg::line(
        &figure(|m| m.latency_ms.p50),
        "p50 ms",
        table.best,
        &format!("median latency (ms) against {over}"),
    ));
}

fn legend(page: &mut Page, series: &[String]) {
    let mut html = String::from(r#"<div class="legend">"#);
    for (i, s) in series.iter().enumerate() {
        let _ = write!(html, "<span>{} {}</span>", svg::swatch(i), esc(s));
    }
    html.push_str("</div>");
    page.push(&html);
}

fn baseline_section(page: &mut Page, b: &crate::report::bench::BaselineComparison) {
    page.heading(2, &format!("Against {} (gate: +{:.1}%)", b.against, b.max_regression * 100.0));
    page.push(&format!("<p>{}</p>", esc(&b.test)));
    for note in &b.notes {
        page.push(&format!("<p>{}</p>", esc(note)));
    }
    let series = vec!["baseline p50".to_string(), "this run p50".to_string()];
    legend(page, &series);
    let groups: Vec<BarGroup> = b
        .models
        .iter()
        .map(|r| BarGroup {
            label: r.name.clone(),
            values: vec![r.baseline_p50_ms, r.p50_ms],
            flag: r.regression.then(|| format!("REGRESSION +{:.1}%", (r.ratio.unwrap_or(1.0) - 1.0) * 100.0)),
        })
        .collect();
    page.push(&svg::bars(&groups, &series, "ms", "median latency, baseline against this run (ms)"));
    let rows: Vec<(String, Vec<String>)> = b
        .models
        .iter()
        .map(|r| {
            let word = esc(&r.verdict_word());
            let verdict = match (r.status, r.regression) {
                (status, _) if status != ModelStatus::Ok && status != ModelStatus::Interrupted => {
                    format!(r#"<span class="status {}">{word}</span>"#, status.word())
                }
                (_, true) => format!(r#"<span class="badge status fail">{}</span>"#, word.to_uppercase()),
                _ => word,
            };
            let why: Vec<String> = r
                .change
                .iter()
                .map(|c| c.reason.clone())
                .chain(r.note.clone().filter(|_| r.change.is_some()))
                .chain(r.differences.iter().map(|d| format!("differs: {d}")))
                .map(|line| esc(&line))
                .collect();
            let class = if r.regression || r.status != ModelStatus::Ok { "regression" } else { "" };
            let [old, new, ratio, ci, p] = crate::report::bench::cells::against_baseline(r);
            (class.to_string(), vec![esc(&r.name), old, new, ratio, ci, p, verdict, why.join("<br>")])
        })
        .collect();
    page.table(
        "baseline",
        &["model", "baseline p50 ms", "p50 ms", "ratio", "95% CI", "p", "verdict", "why"],
        &[1, 2, 3, 5],
        &rows,
    );
}

fn model_section(page: &mut Page, m: &ModelBench) {
    let s = &m.latency_ms;
    page.push(&format!(r#"<section class="model" id="model-{}">"#, esc(&m.name)));
    page.heading(3, &m.name);
    page.push(&format!(
        r#"<p class="sub">{} · {} timed runs after {} warm-up · {}{}</p>"#,
        esc(&m.device.describe()),
        s.count,
        m.warmup,
        esc(&m.path.display().to_string()),
        m.batch_size
            .filter(|b| *b > 1)
            .map(|b| format!(" · batch {b}: {:.1} items/s", m.items_per_s.unwrap_or(0.0)))
            .unwrap_or_default()
    ));
    if let Some(off) = m.device.off_directml_line() {
        page.push(&format!(r#"<p class="sub">off DirectML: {}</p>"#, esc(&off)));
    }
    let range = distributions(page, m);
    if let Some(r) = &m.reference {
        reference(page, m, r, range);
    }
    figures(page, m);
    if let Some(p) = &m.profile {
        profile(page, p);
    }
    for w in &m.warnings {
        page.push(&format!(r#"<p class="warn">warning: {}</p>"#, esc(w)));
    }
    page.push("</section>");
}

/// The latency distribution of the model's runs, and of its reference's on the same x range
/// (returned), so the two compare by eye.
fn distributions(page: &mut Page, m: &ModelBench) -> (f64, f64) {
    let s = &m.latency_ms;
    let reference = m.reference.as_ref().filter(|r| !r.samples_ms.is_empty());
    let all = m.samples_ms.iter().chain(reference.iter().flat_map(|r| r.samples_ms.iter()));
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    if m.samples_ms.is_empty() {
        page.push(r#"<p class="sub">No per-run latencies in this report.</p>"#);
    } else {
        let caption = format!("{}: latency of each timed run", esc(&m.device.execution_provider));
        let title = format!("{}: latency distribution on {}", m.name, m.device.execution_provider);
        distribution(page, &m.samples_ms, s, (lo, hi), 0, &title, &caption);
    }
    (lo, hi)
}

/// `--compare-ep`: the reference's distribution, and the outputs' differences from it.
fn reference(page: &mut Page, m: &ModelBench, r: &ReferenceBench, (lo, hi): (f64, f64)) {
    let s = &m.latency_ms;
    if let (Some(l), false) = (&r.latency_ms, r.samples_ms.is_empty()) {
        let caption = format!(
            "{} (--compare-ep): p50 {} ms, {:.2}x this run's",
            esc(&r.device.execution_provider),
            svg::ms(l.p50),
            l.p50 / s.p50
        );
        let title = format!("{}: latency distribution on {}", m.name, r.device.execution_provider);
        distribution(page, &r.samples_ms, l, (lo, hi), 1, &title, &caption);
    }
    let mismatched = m.comparison.as_ref().map_or(0, Vec::len);
    page.push(&format!(
        "<p><strong>Outputs against {}</strong>: {} of {} compared {} (atol {:e}, rtol {:e})</p>",
        esc(&r.device.execution_provider),
        mismatched,
        r.outputs_compared,
        if mismatched == 0 {
            r#"differ: <span class="status ok">all match</span>"#
        } else {
            r#"<span class="status fail">DIFFER</span>"#
        },
        r.tolerance.atol,
        r.tolerance.rtol
    ));
    let rows: Vec<(String, Vec<String>)> = r
        .differences
        .iter()
        .map(|d| {
            (
                String::new(),
                vec![
                    esc(&d.output),
                    format!("{:.3e}", d.max_abs),
                    format!("{:.3e}", d.max_rel),
                    if d.identical { "yes".into() } else { "no".into() },
                ],
            )
        })
        .collect();
    if !rows.is_empty() {
        page.table("differences", &["output", "max |diff|", "max relative diff", "bit-identical"], &[1, 2], &rows);
    }
    for mismatch in m.comparison.iter().flatten() {
        page.push(&format!(r#"<p class="reason status fail">{}</p>"#, esc(&mismatch.to_string())));
    }
}

/// The stages' times and the figures beside the distribution.
fn figures(page: &mut Page, m: &ModelBench) {
    let s = &m.latency_ms;
    let rows: Vec<(String, Vec<String>)> = [
        ("model load", format!("{:.3} ms", m.model_load_ms)),
        ("session create", format!("{:.3} ms", m.session_create_ms)),
        ("first run", format!("{:.3} ms", m.first_run_ms)),
        ("min / max", format!("{:.3} / {:.3} ms", s.min, s.max)),
        ("p90 / p95", format!("{:.3} / {:.3} ms", s.p90, s.p95)),
        ("throughput", format!("{:.2} inferences/s", s.throughput_per_s)),
    ]
    .into_iter()
    .chain(m.gpu_memory.as_ref().map(|g| ("gpu memory", crate::report::describe::describe_gpu_memory(g))))
    .chain(m.device_io.as_ref().map(|io| ("device IO", crate::report::describe::describe_device_io(io))))
    .chain(
        m.sessions
            .as_ref()
            .map(|c| ("sessions", format!("{} at once: {:.2} inferences/s together", c.sessions, c.throughput_per_s))),
    )
    .map(|(k, v)| (String::new(), vec![esc(k), esc(&v)]))
    .collect();
    page.table("figures", &["", "value"], &[], &rows);
}

/// `--profile`: the operators that took the largest share of kernel time.
fn profile(page: &mut Page, p: &ProfileSummary) {
    let fusion = if p.graph_fusion == crate::report::bench::GraphFusion::Off {
        " (DirectML graph fusion OFF: the unfused graph's times)"
    } else {
        ""
    };
    page.push(&format!(
        "<p><strong>Top operators</strong>{fusion}, share of kernel time ({})</p>",
        esc(&p.file.display().to_string())
    ));
    let groups: Vec<BarGroup> = p
        .top_ops
        .iter()
        .map(|op| BarGroup {
            label: format!("{} ({} calls)", op.op_type, op.calls),
            values: vec![Some(op.percent)],
            flag: None,
        })
        .collect();
    page.push(&svg::bars(&groups, &["share of kernel time".to_string()], "%", "top operators by kernel time"));
}

/// One execution provider's histogram of a model's runs over the shared range, its p50, p90
/// and p99 marked, under a caption (HTML) with the series' swatch; `title` names the chart.
fn distribution(
    page: &mut Page,
    samples: &[f64],
    stats: &crate::stats::LatencyStats,
    (lo, hi): (f64, f64),
    series: usize,
    title: &str,
    caption: &str,
) {
    page.push(&format!("<p>{} {caption}</p>", svg::swatch(series)));
    let marks = [
        Mark { label: "p50", value: stats.p50 },
        Mark { label: "p90", value: stats.p90 },
        Mark { label: "p99", value: stats.p99 },
    ];
    page.push(&svg::histogram(samples, lo, hi, &marks, series, title));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_holds_every_model_its_status_and_the_percentile_marks() {
        let mut report = crate::report::bench::tests::sample_report();
        report.failed.push(crate::report::bench::FailedModel {
            name: "broken".into(),
            path: "b.onnx".into(),
            status: ModelStatus::Crash,
            error: "the process benchmarking it died: signal 11 (SIGSEGV)".into(),
            node: None,
            sweep: None,
        });
        let html = render(&report);
        assert!(html.contains("squeeze, &quot;net&quot;"), "names are escaped");
        assert!(html.contains(r#"<span class="status crash">CRASH</span>"#));
        assert!(html.contains("signal 11 (SIGSEGV)"));
        assert!(html.contains("p50 2.500 ms") && html.contains("p99 "), "marks on the histogram");
        assert!(html.contains("3 model(s): 1 measured, 2 failed"));
        assert!(html.contains(r#"<span class="status failed">FAILED</span>"#));
    }

    #[test]
    fn an_ep_rejection_wraps_with_build_paths_cut_and_unread_gpu_memory_is_said_so() {
        let mut report = crate::report::bench::tests::sample_report();
        report.failed.push(crate::report::bench::FailedModel {
            name: "ppocr_det".into(),
            path: "det.onnx".into(),
            status: ModelStatus::EpRejected,
            error: r"model det.onnx: DirectML rejects this model (the CPU EP runs it with the same inputs): session creation fails, naming no node: E:\_work\1\s\onnxruntime\core\providers\dml\DmlExecutionProvider\src\DmlGraphFusionHelper.cpp(588)\onnxruntime.dll!00000001800F7C07: 80070057".into(),
            node: None,
            sweep: None,
        });
        let zero = crate::runtime::adapters::VideoMemory { local_bytes: 0, non_local_bytes: 0 };
        report.models[0].gpu_memory = Some(crate::runtime::engine::GpuMemory {
            adapter: 0,
            before_session: zero,
            after_session: Some(zero),
            peak_timed_runs: Some(zero),
            note: Some(
                "under Wine 8.0, DXGI's QueryVideoMemoryInfo does not count Direct3D 12 (vkd3d) allocations".into(),
            ),
        });
        report.models[0].gpu_memory_bytes = None;
        let html = render(&report);
        assert!(html.contains(r#"<span class="status ep-rejected">EP-REJECTED</span>"#));
        assert!(html.contains("naming no node: DmlGraphFusionHelper.cpp(588) 80070057"), "build path cut");
        assert!(html.contains(">not readable</span>") && !html.contains(">0 MiB<"), "no 0 MiB under Wine");
        assert!(crate::report::html::STYLE.contains("span.reason { overflow-wrap: anywhere; }"), "long reasons wrap");
    }
}
