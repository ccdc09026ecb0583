//! `generate --markdown`: a row a prompt, then the perplexity and each prompt's verdict against
//! `--compare-ep`.

use std::fmt::Write;

use super::table::{row, LABELS};
use super::GenerateReport;

pub fn markdown(report: &GenerateReport) -> String {
    let rows: Vec<Vec<String>> = report.prompts.iter().map(|p| row(report, p)).collect();
    let mut out = crate::report::markdown_table(LABELS, &(1..LABELS.len()).collect::<Vec<_>>(), &rows);
    if let Some(off) = report.device.off_directml_line() {
        let _ = write!(out, "\noff DirectML: {off}\n");
    }
    if let Some(p) = &report.perplexity {
        let _ = write!(out, "\n{}\n", p.describe().replace('\n', "\n\n"));
    }
    if let Some(c) = &report.comparison {
        for p in &c.prompts {
            let _ = write!(
                out,
                "\n{}: against {}: {}: {}\n",
                p.source,
                c.reference_ep,
                p.logits.verdict_word(),
                p.logits.summary()
            );
        }
    }
    out
}
