//! CSV export: one row per model, latencies in milliseconds.

use anyhow::Result;

use super::BenchReport;
use crate::report::export::Exporter;

pub struct CsvExporter;

pub const HEADER: &str = "model,status,error,execution_provider,device_id,iterations,min_ms,mean_ms,p50_ms,p90_ms,p95_ms,p99_ms,max_ms,stddev_ms,cov,inferences_per_s,items_per_s,session_create_ms,first_run_ms,peak_rss_bytes,gpu_memory_bytes,upload_ms,download_ms,sessions,sessions_inferences_per_s,prompt_tokens,new_tokens,ttft_ms,generation_tokens_per_s,sweep_of,sweep_over,sweep_value,baseline_verdict,baseline_ratio,baseline_ci_low,baseline_ci_high,baseline_p_value,baseline_test";

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// A figure to at most 6 decimals (a nanosecond, in milliseconds), trailing zeros dropped: 0.030727,
/// never the float's 0.030726999999999997.
fn num(v: f64) -> String {
    let text = format!("{v:.6}");
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

fn opt_num(v: Option<f64>) -> String {
    v.map(num).unwrap_or_default()
}

impl Exporter<BenchReport> for CsvExporter {
    fn render(&self, report: &BenchReport) -> Result<String> {
        let mut out = String::from(HEADER);
        out.push('\n');
        for m in &report.models {
            let s = &m.latency_ms;
            let row = [
                m.name.to_string(),
                m.status.word().to_string(),
                String::new(),
                m.device.execution_provider.clone(),
                opt(m.device.device_id),
                s.count.to_string(),
                num(s.min),
                num(s.mean),
                num(s.p50),
                num(s.p90),
                num(s.p95),
                num(s.p99),
                num(s.max),
                num(s.stddev),
                num(s.cov),
                num(s.throughput_per_s),
                opt_num(m.items_per_s),
                num(m.session_create_ms),
                num(m.first_run_ms),
                opt(m.peak_rss_bytes),
                opt(m.gpu_memory_bytes),
                opt_num(m.device_io.as_ref().map(|io| io.upload_ms)),
                opt_num(m.device_io.as_ref().and_then(|io| io.download_ms)),
                opt(m.sessions.as_ref().map(|c| c.sessions)),
                opt_num(m.sessions.as_ref().map(|c| c.throughput_per_s)),
                opt(m.generation.as_ref().map(|g| g.prompt_tokens)),
                opt(m.generation.as_ref().map(|g| g.new_tokens)),
                opt_num(m.generation.as_ref().and_then(|g| g.ttft_ms.as_ref()).map(|t| t.p50)),
                opt_num(m.generation.as_ref().map(|g| g.generation_tokens_per_s)),
            ]
            .into_iter()
            .chain(sweep_fields(m.sweep.as_ref()))
            .chain(verdict_fields(report, &m.name))
            .collect::<Vec<_>>();
            out += &crate::report::csv_record(&row);
        }
        // A failed model has its name, status, error and sweep point; its figures are empty.
        let empty_figures = HEADER.split(',').count() - 12;
        for f in &report.failed {
            let row: Vec<String> = [f.name.to_string(), f.status.word().to_string(), f.error.to_string()]
                .into_iter()
                .chain(std::iter::repeat_n(String::new(), empty_figures))
                .chain(sweep_fields(f.sweep.as_ref()))
                .chain(verdict_fields(report, &f.name))
                .collect();
            out += &crate::report::csv_record(&row);
        }
        Ok(out)
    }
}

/// `sweep_of,sweep_over,sweep_value`: which model's sweep a row is a point of, empty outside one.
fn sweep_fields(point: Option<&crate::suites::manifest::SweepPoint>) -> [String; 3] {
    match point {
        Some(p) => [p.of.to_string(), p.over.to_string(), p.value.to_string()],
        None => Default::default(),
    }
}

/// `baseline_verdict,...`: the model's verdict against --baseline or --baseline-model, its ratio of
/// medians with the 95% interval, the p-value and the test; empty without a baseline.
fn verdict_fields(report: &BenchReport, name: &str) -> [String; 6] {
    let Some(row) = report.baseline.as_ref().and_then(|b| b.models.iter().find(|r| r.name == name)) else {
        return Default::default();
    };
    match &row.change {
        Some(c) => [
            c.verdict.word().to_string(),
            num(c.ratio),
            num(c.ci_low),
            num(c.ci_high),
            format!("{:e}", c.p_value),
            c.test.to_string(),
        ],
        None => {
            [row.verdict_word().to_string(), String::new(), String::new(), String::new(), String::new(), String::new()]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample_report;
    use super::*;

    #[test]
    fn figures_have_at_most_six_decimals() {
        assert_eq!(num(0.030726999999999997), "0.030727");
        assert_eq!(
            (num(4.5), num(12.0), num(0.0), num(-0.0000001)),
            ("4.5".into(), "12".into(), "0".into(), "0".into())
        );
    }

    #[test]
    fn csv_has_one_quoted_row_per_model() {
        let text = CsvExporter.render(&sample_report()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].split(',').count(), 38);
        assert!(
            lines[1].starts_with("\"squeeze, \"\"net\"\"\",ok,,CPUExecutionProvider,,4,1,2.5,2.5,"),
            "{}",
            lines[1]
        );
        // The failed model: name, status, error, and as many empty figures as the header has.
        assert_eq!(lines[2], format!("broken,failed,model broken.onnx: not a valid ONNX model{}", ",".repeat(35)));
        assert_eq!(lines[2].split(',').count(), 38);
    }
}
