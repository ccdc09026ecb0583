//! The `test --html` page: totals, every case with its status (filterable without script), and
//! for each mismatch where the outputs part: the first differing index, both values, the
//! largest difference and the smallest tolerance that would pass. A zoo of many families (cases
//! in folders `FAMILY/NAME`) gets a table of families, the worst first, and its cases grouped by
//! family, the cases that do not pass first in each, so a page of 100+ models reads from what
//! needs doing.

use std::collections::BTreeMap;

use crate::report::html::{esc, svg, Page};
use crate::report::validation::{CaseResult, Status, TestReport};

/// A case's family: the first folder of its name (`torchvision/resnet50` is `torchvision`).
fn family(name: &str) -> &str {
    name.split(['/', '\\']).next().filter(|_| name.contains(['/', '\\'])).unwrap_or("")
}

/// A family of cases as the page lists it: its name as shown, its cases (those that do not pass
/// first) and how many pass.
struct Family<'a> {
    name: &'a str,
    cases: Vec<&'a CaseResult>,
    passed: usize,
}

impl Family<'_> {
    fn share(&self) -> f64 {
        self.passed as f64 / self.cases.len() as f64
    }
}

/// The cases by family, the families with the lowest share passing first, the cases that do not
/// pass first within each; `None` where there are fewer than two families (the list as it ran).
fn by_family(cases: &[CaseResult]) -> Option<Vec<Family<'_>>> {
    let mut families: BTreeMap<&str, Vec<&CaseResult>> = BTreeMap::new();
    for c in cases {
        families.entry(family(&c.name)).or_default().push(c);
    }
    if families.len() < 2 {
        return None;
    }
    let mut grouped: Vec<Family<'_>> = families
        .into_iter()
        .map(|(name, mut cases)| {
            cases.sort_by_key(|c| (c.status == Status::Pass, c.name.clone()));
            let passed = cases.iter().filter(|c| c.status == Status::Pass).count();
            Family { name: if name.is_empty() { "(top level)" } else { name }, cases, passed }
        })
        .collect();
    grouped.sort_by(|a, b| a.share().total_cmp(&b.share()).then(a.name.cmp(b.name)));
    Some(grouped)
}

fn families_table(page: &mut Page, grouped: &[Family<'_>]) {
    page.heading(2, "By family");
    let rows: Vec<(String, Vec<String>)> = grouped
        .iter()
        .map(|f| {
            let class = if f.passed < f.cases.len() { "bad" } else { "" };
            let cells = vec![
                esc(f.name),
                f.cases.len().to_string(),
                f.passed.to_string(),
                (f.cases.len() - f.passed).to_string(),
                format!("{:.0}%", 100.0 * f.share()),
            ];
            (class.to_string(), cells)
        })
        .collect();
    page.table("families", &["family", "cases", "passed", "not passing", "pass rate"], &[1, 2, 3, 4], &rows);
}

pub fn render(report: &TestReport) -> String {
    let mut page = Page::new();
    let s = &report.summary;
    page.heading(1, "dmlrun test");
    page.push(&format!(
        r#"<p class="sub">{} cases · {:.1} s{} · {}</p>"#,
        s.total,
        s.duration_ms / 1000.0,
        if report.interrupted { " · interrupted (Ctrl-C): only the cases that ran are listed" } else { "" },
        crate::report::html::now()
    ));
    totals(&mut page, report);
    let grouped = by_family(&report.cases);
    if let Some(grouped) = &grouped {
        families_table(&mut page, grouped);
    }
    cases_table(&mut page, report, grouped.as_deref());
    if !report.skipped.is_empty() {
        page.heading(2, "Skipped folders");
        let rows: Vec<(String, Vec<String>)> = report
            .skipped
            .iter()
            .map(|k| (String::new(), vec![esc(&k.dir.display().to_string()), esc(&k.reason)]))
            .collect();
        page.table("skipped", &["folder", "why"], &[], &rows);
    }
    page.finish("dmlrun test")
}

/// The counts by status, the cases that fail the run, and what ran them.
fn totals(page: &mut Page, report: &TestReport) {
    let s = &report.summary;
    page.heading(2, "Totals");
    let totals = [
        ("passed", s.passed, "pass"),
        ("failed", s.failed, "fail"),
        ("errors", s.errors, "error"),
        ("crashed", s.crashed, "crash"),
        ("timed out", s.timed_out, "timeout"),
        ("interrupted", s.interrupted, "interrupted"),
        ("folders skipped", report.skipped.len(), "skip"),
    ];
    let rows: Vec<(String, Vec<String>)> = totals
        .iter()
        .map(|(what, n, class)| {
            (String::new(), vec![format!(r#"<span class="status {class}">{what}</span>"#), n.to_string()])
        })
        .collect();
    page.table("totals", &["status", "cases"], &[1], &rows);
    if !s.unexpected.is_empty() {
        page.push(&format!(
            "<p><strong>{} case(s) fail the run</strong> (not passing, and not listed as known failures with --expect): {}</p>",
            s.unexpected.len(),
            esc(&s.unexpected.join(", "))
        ));
    }
    if !s.now_passing.is_empty() {
        page.push(&format!(
            "<p>{} known failure(s) now pass: {}</p>",
            s.now_passing.len(),
            esc(&s.now_passing.join(", "))
        ));
    }
    page.push(r#"<dl class="env">"#);
    page.push(&format!(
        "<dt>ONNX Runtime</dt><dd>{} ({})</dd><dt>plan</dt><dd>{}</dd>",
        esc(&report.onnxruntime.version),
        esc(&report.onnxruntime.path.display().to_string()),
        esc(&report.plan_request)
    ));
    if let Some(reference) = &report.reference {
        page.push(&format!("<dt>compared with</dt><dd>{}</dd>", esc(reference)));
    }
    page.push(&format!("<dt>dmlrun</dt><dd>{}</dd></dl>", esc(&report.dmlrun_version)));
}

/// Every case's rows, by family where the cases come in several, failures first.
fn cases_table(page: &mut Page, report: &TestReport, grouped: Option<&[Family]>) {
    page.heading(2, "Cases");
    page.push(
        r#"<div class="filters" role="radiogroup" aria-label="show"><label><input type="radio" name="show" id="show-all" checked> all</label><label><input type="radio" name="show" id="only-failing"> not passing</label><label><input type="radio" name="show" id="only-passing"> passing</label></div>"#,
    );
    let mut html = String::from(
        r#"<table class="cases"><thead><tr><th>case</th><th>status</th><th class="n">data sets</th><th class="n">ms</th><th class="n">max |diff|</th><th>reason</th></tr></thead><tbody>"#,
    );
    match grouped {
        Some(grouped) => {
            for f in grouped {
                html.push_str(&format!(
                    r#"<tr class="family"><th colspan="6">{} <span class="sub">{} of {} pass</span></th></tr>"#,
                    esc(f.name),
                    f.passed,
                    f.cases.len()
                ));
                f.cases.iter().for_each(|c| case_rows(&mut html, c));
            }
        }
        None => report.cases.iter().for_each(|c| case_rows(&mut html, c)),
    }
    html.push_str("</tbody></table>");
    page.push(&html);
}

/// A case's row, and its rows of detail: where it ran off DirectML, where its outputs part.
fn case_rows(html: &mut String, c: &CaseResult) {
    let word = c.status.word();
    let known = if c.expected_status == Some(c.status) { r#" <span class="badge">known</span>"# } else { "" };
    html.push_str(&format!(
        r#"<tr class="case {word}"><td>{}</td><td><span class="status {word}">{}</span>{known}</td><td class="n">{}</td><td class="n">{:.1}</td><td class="n">{}</td><td class="reason">{}</td></tr>"#,
        esc(&c.name),
        word.to_uppercase(),
        c.data_sets,
        c.duration_ms,
        c.max_abs_diff.map_or("-".into(), |d| format!("{d:.3e}")),
        esc(c.reason.as_deref().unwrap_or(""))
    ));
    if let Some(off) = c.off_directml_line() {
        html.push_str(&format!(
            r#"<tr class="detail {word}"><td></td><td colspan="5" class="reason">off DirectML: {}</td></tr>"#,
            esc(&off)
        ));
    }
    let detailed: Vec<_> = c.mismatches.iter().filter_map(|m| m.values.as_ref().map(|v| (m, v))).collect();
    if detailed.is_empty() {
        return;
    }
    html.push_str(&format!(
        r#"<tr class="detail {word}"><td></td><td colspan="5"><table class="mismatches"><thead><tr><th>output</th><th class="n">first index</th><th class="n">expected</th><th class="n">actual</th><th class="n">|diff|</th><th class="n">elements off</th><th>passes with</th></tr></thead><tbody>"#
    ));
    for (m, v) in detailed {
        let passes = match (v.min_atol, v.min_rtol) {
            (Some(a), Some(r)) => format!("atol {} (rtol 0) or rtol {} (atol 0)", svg::num(a), svg::num(r)),
            (Some(a), None) => format!("atol {} (rtol 0)", svg::num(a)),
            (None, Some(r)) => format!("rtol {} (atol 0)", svg::num(r)),
            (None, None) => "no tolerance (NaN or Inf differ)".to_string(),
        };
        html.push_str(&format!(
            r#"<tr><td>{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{} of {}</td><td>{} <span class="sub">(now atol {:e}, rtol {:e})</span></td></tr>"#,
            esc(&m.output),
            v.first_index,
            esc(&v.expected),
            esc(&v.actual),
            v.diff.map_or("-".into(), |d| format!("{d:.3e}")),
            v.mismatched,
            v.total,
            esc(&passes),
            v.tolerance.atol,
            v.tolerance.rtol
        ));
    }
    html.push_str("</tbody></table></td></tr>");
}
