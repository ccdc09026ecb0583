//! A test report as a table, a row per case in the report's order: the columns and the cells
//! CSV (`csv.rs`) and Markdown (`markdown.rs`) both show, as bench writes its models.

use super::CaseResult;

/// The columns; `expected` is empty without `--expect`, `max_abs_diff` where no float output
/// was compared.
pub(super) const HEADER: [&str; 7] =
    ["case", "status", "expected", "data_sets", "duration_ms", "max_abs_diff", "reason"];

pub(super) fn rows(cases: &[CaseResult]) -> Vec<Vec<String>> {
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::report::validation::Status;

    pub fn cases() -> Vec<CaseResult> {
        let reason = "output 'y': 2 of 8 differ, max |diff| 0.5, \"y\"";
        let mut failed = CaseResult::ended("nested/mul", Status::Fail, reason.into(), 1);
        failed.max_abs_diff = Some(0.5);
        failed.duration_ms = 12.25;
        let passed = CaseResult::ended("add", Status::Pass, String::new(), 2);
        vec![passed, failed]
    }
}
