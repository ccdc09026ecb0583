//! Markdown table export, for pull requests and READMEs.

use anyhow::Result;

use super::cells::Cells;
use super::BenchReport;
use crate::report::export::Exporter;

pub struct MarkdownExporter;

impl Exporter<BenchReport> for MarkdownExporter {
    fn render(&self, report: &BenchReport) -> Result<String> {
        let header = [
            "model",
            "status",
            "EP",
            "p50 ms",
            "mean ms",
            "p90 ms",
            "p99 ms",
            "stddev ms",
            "CoV",
            "inferences/s",
            "session ms",
            "first run ms",
        ];
        let mut rows: Vec<Vec<String>> = report
            .models
            .iter()
            .map(|m| {
                let c = Cells::of(m);
                vec![
                    m.name.clone(),
                    m.status.word().to_string(),
                    m.device.execution_provider.clone(),
                    c.p50,
                    c.mean,
                    c.p90,
                    c.p99,
                    c.stddev,
                    c.cov,
                    c.per_s,
                    c.session,
                    c.first_run,
                ]
            })
            .collect();
        for f in &report.failed {
            let mut row = vec![f.name.clone(), format!("{}: {}", f.status.word(), f.error)];
            row.resize(header.len(), String::new());
            rows.push(row);
        }
        let mut text = crate::report::markdown_table(&header, &(3..header.len()).collect::<Vec<_>>(), &rows);
        let off: Vec<String> = report
            .models
            .iter()
            .filter_map(|m| Some(format!("- **{}**: {}\n", m.name, m.device.off_directml_line()?)))
            .collect();
        if !off.is_empty() {
            text.push_str(&format!("\nNodes off DirectML:\n\n{}", off.concat()));
        }
        for table in super::sweep_tables(report) {
            text.push_str(&sweep(&table));
        }
        if let Some(b) = &report.baseline {
            text.push_str(&baseline(b));
        }
        Ok(text)
    }
}

/// A sweep as its own table under the models': one row per value, the best throughput in bold.
fn sweep(table: &super::SweepTable) -> String {
    let over = table.over.to_string();
    let header = [over.as_str(), "status", "session ms", "first run ms", "p50 ms", "p99 ms", "items/s"];
    let rows: Vec<Vec<String>> = table
        .points
        .iter()
        .enumerate()
        .map(|(i, row)| match row.measured {
            Ok(m) => {
                let items = format!("{:.1}", m.items_per_s());
                let best = if table.best == Some(i) { format!("**{items}** (best)") } else { items };
                let [session, first_run, p50, p99] = Cells::sweep(m);
                vec![row.value.to_string(), m.status.word().to_string(), session, first_run, p50, p99, best]
            }
            Err(f) => {
                let mut cells = vec![row.value.to_string(), format!("{}: {}", f.status.word(), f.error)];
                cells.resize(header.len(), String::new());
                cells
            }
        })
        .collect();
    format!(
        "\n{} swept over {}:\n\n{}",
        crate::report::markdown_text(table.of),
        crate::report::markdown_text(table.over),
        crate::report::markdown_table(&header, &[2, 3, 4, 5, 6], &rows)
    )
}

/// The verdicts against the baseline, as a table under the models'.
fn baseline(b: &super::BaselineComparison) -> String {
    let header = ["model", "baseline p50 ms", "p50 ms", "ratio", "95% CI", "p", "verdict"];
    let rows: Vec<Vec<String>> = b
        .models
        .iter()
        .map(|r| {
            let verdict = if r.regression { format!("**{}**", r.verdict_word()) } else { r.verdict_word() };
            let [old, new, ratio, ci, p] = super::cells::against_baseline(r);
            vec![r.name.clone(), old, new, ratio, ci, p, verdict]
        })
        .collect();
    format!(
        "\nAgainst {} (max regression {:.1}%; {}):\n\n{}",
        b.against,
        b.max_regression * 100.0,
        b.test,
        crate::report::markdown_table(&header, &[1, 2, 3, 5], &rows)
    )
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
        let empty = "  |".repeat(10);
        assert_eq!(lines[3], format!("| broken | failed: model broken.onnx: not a valid ONNX model |{empty}"));
    }
}

#[cfg(test)]
mod off_directml_tests {
    use super::super::tests::sample_report;
    use super::*;
    use crate::runtime::placement::OffNode;

    /// A model whose MatMulNBits ran on the CPU: bench's text, Markdown, HTML and the CI summary
    /// name it with its reason.
    #[test]
    fn every_bench_format_names_a_node_off_directml_with_its_reason() {
        let mut report = sample_report();
        report.models[0].device.off_directml = vec![OffNode {
            node: "proj".into(),
            op_type: "MatMulNBits".into(),
            execution_provider: "CPUExecutionProvider".into(),
            reason: Some("its K, 48, is not a whole number of 32-blocks".into()),
            harmless: false,
        }];
        let named = "MatMulNBits 'proj' (its K, 48, is not a whole number of 32-blocks)";
        assert!(super::super::human::render(&report).contains(&format!("off DirectML: {named}")));
        assert!(MarkdownExporter.render(&report).unwrap().contains(&format!("- **squeeze, \"net\"**: {named}")));
        let page = super::super::html::render(&report);
        assert!(page.contains("off DirectML: MatMulNBits &#39;proj&#39; (its K, 48,"), "{page}");
        let junit = super::super::junit::render(&report).unwrap();
        assert!(
            junit.contains("off DirectML: MatMulNBits &apos;proj&apos;")
                || junit.contains("off DirectML: MatMulNBits 'proj'"),
            "{junit}"
        );
        let outcome = crate::report::github::of_bench(&report, None);
        assert!(outcome.items.iter().any(|i| i.detail.contains(&format!("off DirectML: {named}"))), "{outcome:?}");
    }
}
