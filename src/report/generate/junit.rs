//! JUnit XML, and the line a prompt's case and the GitHub summary say.

use std::fmt::Write;

use super::GenerateReport;

/// Prompt `index`'s line for CI: whether its tokens part from `--compare-ep`'s, and its figures
/// (with where they part). The GitHub summary and the JUnit case say the same.
pub fn prompt_outcome(report: &GenerateReport, index: usize) -> (bool, String) {
    let p = &report.prompts[index];
    let compared = report.comparison.as_ref().and_then(|c| c.prompts.get(index));
    let f = &p.figures;
    let mut detail = format!(
        "{} prompt tokens, {} new: TTFT {} ms, {:.1} tokens/s",
        f.prompt_tokens,
        f.new_tokens,
        f.ttft_ms.as_ref().map_or("-".into(), |t| format!("{:.1}", t.p50)),
        f.generation_tokens_per_s
    );
    let reference = report.comparison.as_ref().map_or("", |c| c.reference_ep.as_str());
    if let Some(c) = compared {
        if let Some(at) = c.first_difference {
            let _ = write!(detail, "; tokens part from {reference}'s at token {at} ({} matching)", c.matching);
        }
        let _ = write!(detail, "; logits against {reference}'s: {}: {}", c.logits.verdict_word(), c.logits.summary());
    }
    (compared.is_some_and(|c| c.logits.verdict.failed()), detail)
}

/// JUnit XML: a case per prompt, failed where its tokens part from `--compare-ep`'s, its figures
/// in its output.
pub fn junit(report: &GenerateReport) -> anyhow::Result<String> {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut suite = TestSuite::new("dmlrun generate");
    for (i, p) in report.prompts.iter().enumerate() {
        let (differs, detail) = prompt_outcome(report, i);
        let status = match differs {
            true => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_message(detail.as_str());
                status.set_type("differs");
                status
            }
            false => TestCaseStatus::success(),
        };
        let mut case = TestCase::new(format!("prompt {} ({})", i + 1, p.source), status);
        case.set_classname("generate");
        let off = report.device.off_directml_line().map(|off| format!("\noff DirectML: {off}")).unwrap_or_default();
        case.set_system_out(format!("{detail}{off}"));
        suite.add_test_case(case);
    }
    let mut junit = Report::new("dmlrun generate");
    junit.add_test_suite(suite);
    Ok(junit.to_string()?)
}
