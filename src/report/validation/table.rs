//! A test report as a table, a row per case in the report's order: CSV (`--csv`) and Markdown
//! (`--markdown`), as bench writes its models, for a spreadsheet or a pull request.

use super::{CaseResult, TestReport};

/// The columns; `expected` is empty without `--expect`, `max_abs_diff` where no float output
/// was compared.
const HEADER: [&str; 7] = ["case", "status", "expected", "data_sets", "duration_ms", "max_abs_diff", "reason"];

fn rows(cases: &[CaseResult]) -> Vec<Vec<String>> {
    cases
        .iter()
        .map(|c| {
            vec![
                c.name.clone(),
                c.status.word().to_string(),
                c.expected_status.map(|s| s.word().to_string()).unwrap_or_default(),
                c.data_sets.to_string(),
                format!("{:.3}", c.duration_ms),
                c.max_abs_diff.map(|d| format!("{d:e}")).unwrap_or_default(),
                c.reason.clone().unwrap_or_default(),
            ]
        })
        .collect()
}

pub fn csv(report: &TestReport) -> String {
    csv_of(&report.cases)
}

pub fn markdown(report: &TestReport) -> String {
    markdown_of(&report.cases)
}

fn csv_of(cases: &[CaseResult]) -> String {
    let mut out = crate::report::csv_record(&HEADER);
    for row in rows(cases) {
        out += &crate::report::csv_record(&row);
    }
    out
}

fn markdown_of(cases: &[CaseResult]) -> String {
    crate::report::markdown_table(&HEADER, &[3, 4, 5], &rows(cases))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::validation::Status;

    fn cases() -> Vec<CaseResult> {
        let reason = "output 'y': 2 of 8 differ, max |diff| 0.5, \"y\"";
        let mut failed = CaseResult::ended("nested/mul", Status::Fail, reason.into(), 1);
        failed.max_abs_diff = Some(0.5);
        failed.duration_ms = 12.25;
        let passed = CaseResult::ended("add", Status::Pass, String::new(), 2);
        vec![passed, failed]
    }

    #[test]
    fn a_row_per_case_with_the_reason_quoted_where_it_must_be() {
        let text = csv_of(&cases());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "case,status,expected,data_sets,duration_ms,max_abs_diff,reason");
        assert!(lines[1].starts_with("add,pass,,2,"), "{text}");
        assert_eq!(lines[2], "nested/mul,fail,,1,12.250,5e-1,\"output 'y': 2 of 8 differ, max |diff| 0.5, \"\"y\"\"\"",);
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn the_markdown_table_keeps_a_pipe_in_a_reason_inside_its_cell() {
        let text = markdown_of(&cases());
        assert!(text.starts_with("| case | status | expected | data_sets | duration_ms | max_abs_diff | reason |\n"));
        assert!(
            text.contains(
                "| nested/mul | fail |  | 1 | 12.250 | 5e-1 | output 'y': 2 of 8 differ, max \\|diff\\| 0.5, \"y\" |"
            ),
            "{text}"
        );
    }
}
