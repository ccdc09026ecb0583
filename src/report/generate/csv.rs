//! `generate --csv`: a row a prompt, the column names programs read.

use super::table::{row, COLUMNS};
use super::GenerateReport;

pub fn csv(report: &GenerateReport) -> String {
    let mut out = crate::report::csv_record(COLUMNS);
    for p in &report.prompts {
        out += &crate::report::csv_record(&row(report, p));
    }
    out
}
