//! `merge --compare --html`: the comparison as a page, the disagreeing rows marked.

use std::fmt::Write as _;

use super::{cell_text, Comparison};
use crate::report::html::{esc, Page};

impl Comparison {
    pub fn html(&self) -> String {
        let mut page = Page::new();
        page.heading(1, &format!("dmlrun {} across {} runs", self.kind, self.runs.len()));
        let mut env = String::from("<dl class=\"env\">");
        for r in &self.runs {
            let _ = write!(
                env,
                "<dt>{}</dt><dd>{} ({})</dd>",
                esc(&r.label),
                esc(&r.ran_on),
                esc(&r.file.display().to_string())
            );
        }
        env.push_str("</dl>");
        page.push(&env);
        page.push(&format!(
            "<p class=\"sub\">{} of {} disagree; they come first.</p>",
            self.disagreements,
            self.rows.len()
        ));
        let mut header = vec![if self.kind == "test" { "case" } else { "model" }];
        header.extend(self.runs.iter().map(|r| r.label.as_str()));
        header.push("agree");
        let rows: Vec<(String, Vec<String>)> = self
            .rows
            .iter()
            .map(|row| {
                let mut cells = vec![esc(&row.name)];
                cells.extend((0..row.results.len()).map(|run| esc(&cell_text(row, run))));
                cells.push(if row.agree {
                    r#"<span class="status ok">yes</span>"#.to_string()
                } else {
                    r#"<span class="status fail">NO</span>"#.to_string()
                });
                (if row.agree { String::new() } else { "bad".to_string() }, cells)
            })
            .collect();
        page.table("compare", &header, &[], &rows);
        page.finish(&format!("dmlrun {} comparison", self.kind))
    }
}
