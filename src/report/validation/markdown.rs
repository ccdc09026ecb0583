//! `test --markdown`: a row per case, for a pull request.

use super::table::{rows, HEADER};
use super::{CaseResult, TestReport};

pub fn markdown(report: &TestReport) -> String {
    markdown_of(&report.cases)
}

fn markdown_of(cases: &[CaseResult]) -> String {
    let mut text = crate::report::markdown_table(&HEADER, &[3, 4, 5], &rows(cases));
    let off: Vec<String> =
        cases.iter().filter_map(|c| Some(format!("- **{}**: {}\n", c.name, c.off_directml_line()?))).collect();
    if !off.is_empty() {
        text.push_str(&format!("\nNodes off DirectML:\n\n{}", off.concat()));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::validation::table::tests::cases;

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
