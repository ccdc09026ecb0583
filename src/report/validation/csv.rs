//! `test --csv`: a row per case, for a spreadsheet.

use super::table::{rows, HEADER};
use super::{CaseResult, TestReport};

pub fn csv(report: &TestReport) -> String {
    csv_of(&report.cases)
}

fn csv_of(cases: &[CaseResult]) -> String {
    let mut out = crate::report::csv_record(&HEADER);
    for row in rows(cases) {
        out += &crate::report::csv_record(&row);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::validation::table::tests::cases;

    #[test]
    fn a_row_per_case_with_the_reason_quoted_where_it_must_be() {
        let text = csv_of(&cases());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "case,status,expected,data_sets,duration_ms,max_abs_diff,reason");
        assert!(lines[1].starts_with("add,pass,,2,"), "{text}");
        assert_eq!(lines[2], "nested/mul,fail,,1,12.250,5e-1,\"output 'y': 2 of 8 differ, max |diff| 0.5, \"\"y\"\"\"",);
        assert_eq!(lines.len(), 3);
    }
}
