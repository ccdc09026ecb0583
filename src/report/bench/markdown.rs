//! Markdown table export, for pull requests and READMEs.

use anyhow::Result;

use super::{BenchReport, Exporter};

pub struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn render(&self, report: &BenchReport) -> Result<String> {
        let mut out = String::from(
            "| model | status | EP | p50 ms | mean ms | p90 ms | p99 ms | stddev ms | CoV | inferences/s | session ms | first run ms |\n",
        );
        out.push_str("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for m in &report.models {
            let s = &m.latency_ms;
            out.push_str(&format!(
                "| {} | ok | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1}% | {:.1} | {:.1} | {:.3} |\n",
                m.name.replace('|', "\\|"),
                m.device.execution_provider,
                s.p50,
                s.mean,
                s.p90,
                s.p99,
                s.stddev,
                s.cov * 100.0,
                s.throughput_per_s,
                m.session_create_ms,
                m.first_run_ms
            ));
        }
        for f in &report.failed {
            out.push_str(&format!(
                "| {} | {}: {} | | | | | | | | | | |\n",
                f.name.replace('|', "\\|"),
                f.status.word(),
                f.error.replace('|', "\\|")
            ));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample_report;
    use super::*;

    #[test]
    fn markdown_table_has_a_row_per_model() {
        let text = MarkdownExporter.render(&sample_report()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(
            lines[2].starts_with("| squeeze, \"net\" | ok | CPUExecutionProvider | 2.500 | 2.500 |"),
            "{}",
            lines[2]
        );
        assert_eq!(lines[3], "| broken | failed: model broken.onnx: not a valid ONNX model | | | | | | | | | | |");
    }
}
