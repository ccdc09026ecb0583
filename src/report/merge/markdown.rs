//! `merge --compare --markdown`: the runs, then a row a case or model with each run's result.

use std::fmt::Write as _;

use super::{cell_text, Comparison};

impl Comparison {
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# dmlrun {} across {} runs\n", self.kind, self.runs.len());
        for r in &self.runs {
            let _ = writeln!(s, "- **{}** ({}): {}", r.label, r.file.display(), r.ran_on);
        }
        let _ = writeln!(s, "\n{} of {} disagree; they come first.\n", self.disagreements, self.rows.len());
        let mut header = vec![if self.kind == "test" { "case" } else { "model" }];
        header.extend(self.runs.iter().map(|r| r.label.as_str()));
        header.push("agree");
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|row| {
                let mut cells = vec![row.name.clone()];
                cells.extend((0..row.results.len()).map(|run| cell_text(row, run)));
                cells.push(if row.agree { "yes" } else { "no" }.to_string());
                cells
            })
            .collect();
        s + &crate::report::markdown_table(&header, &[], &rows)
    }
}
