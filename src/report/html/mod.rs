//! What every report's HTML page is made of (each report's own page is its `html.rs`:
//! `bench/html.rs`, `validation/html.rs`, `generate/html.rs`): one self-contained file with its
//! style, its charts (inline SVG) and a few lines of script, nothing fetched, readable offline
//! and attachable to a CI run.
//!
//! Charts are hand-written SVG (`svg.rs`): a histogram and grouped bars are a couple of hundred
//! lines, where a plotting crate would bring its own fonts and layout for the same two shapes.

pub mod svg;

use std::fmt::Write;

/// Escapes text for HTML element content and attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Light and dark palettes (the reader's `prefers-color-scheme`); every colour also has a text
/// label or a pattern beside it, so the page reads in grey too.
pub(crate) const STYLE: &str = r#"
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #ffffff; --muted: #5f6368; --grid: #d0d4da;
  --panel: #f5f6f8; --s1: #2f6fb3; --s2: #c2571a; --s3: #6b8e23; --s4: #8e44ad; --bad: #b3261e;
  --bad-bg: #fde7e6; --ok: #1e7b34; --warn: #8a5a00; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaed; --bg: #17181a; --muted: #a6abb3;
  --grid: #3a3d42; --panel: #222428; --s1: #6aa7e8; --s2: #f0a060; --s3: #a3c764; --s4: #c490e0;
  --bad: #ff8a80; --bad-bg: #3a1c1b; --ok: #7fd491; --warn: #f2c14e; } }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
  background: var(--bg); margin: 0 auto; padding: 20px 28px 48px; max-width: 1100px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px;
  border-bottom: 1px solid var(--grid); padding-bottom: 4px; } h3 { font-size: 15px; margin: 18px 0 6px; }
.sub { color: var(--muted); margin: 0 0 12px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--grid); vertical-align: top; }
th { font-weight: 600; background: var(--panel); } td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
dl.env { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0;
  background: var(--panel); padding: 10px 14px; border-radius: 6px; }
dl.env dt { color: var(--muted); } dl.env dd { margin: 0; overflow-wrap: anywhere; }
pre.plan { background: var(--panel); padding: 8px 12px; border-radius: 6px; overflow-x: auto; font-size: 12px; }
.status { font-weight: 700; letter-spacing: .02em; }
.status.ok, .status.pass { color: var(--ok); }
.status.failed, .status.fail, .status.error, .status.crash, .status.timeout, .status.ep-rejected { color: var(--bad); }
.status.interrupted { color: var(--warn); }
tr.regression td, tr.bad td { background: var(--bad-bg); }
.badge { display: inline-block; border: 1px solid currentColor; border-radius: 4px; padding: 0 5px;
  font-size: 12px; font-weight: 700; }
.warn { color: var(--warn); }
.legend { display: flex; flex-wrap: wrap; gap: 14px; margin: 4px 0 6px; color: var(--muted); }
.legend span { display: inline-flex; align-items: center; gap: 5px; }
svg.chart { width: 100%; height: auto; display: block; margin: 4px 0 10px; }
svg text { fill: var(--fg); font: 11px system-ui, sans-serif; }
svg .tick { fill: var(--muted); } svg .axis { stroke: var(--muted); }
svg .mark { stroke: var(--fg); stroke-width: 1.5; } svg .mark-label { font-weight: 600; }
svg .series-line { stroke: var(--s1); stroke-width: 2; }
svg .bar-label.flagged { fill: var(--bad); font-weight: 700; }
.s1 { fill: var(--s1); } .s2 { fill: var(--s2); } .s3 { fill: var(--s3); } .s4 { fill: var(--s4); }
.outline { stroke: var(--fg); stroke-width: .4; } .hatch-line { stroke: var(--bg); stroke-width: 2; }
.dot { fill: var(--bg); }
.swatch { vertical-align: middle; }
.model { border: 1px solid var(--grid); border-radius: 8px; padding: 4px 16px 8px; margin: 14px 0; }
.filters { margin: 8px 0; display: flex; gap: 14px; flex-wrap: wrap; }
.filters label { cursor: pointer; }
body:has(#only-failing:checked) tr.case.pass, body:has(#only-failing:checked) tr.detail.pass { display: none; }
body:has(#only-passing:checked) tr.case:not(.pass), body:has(#only-passing:checked) tr.detail:not(.pass) { display: none; }
td.reason { overflow-wrap: anywhere; max-width: 520px; }
table.figures td:first-child { overflow-wrap: anywhere; max-width: 22em; }
span.reason { overflow-wrap: anywhere; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
"#;

/// An HTML page being written: its head, its body, and the checks a browser runs on load.
pub struct Page {
    body: String,
}

impl Page {
    pub fn new() -> Page {
        Page { body: String::new() }
    }

    /// Appends raw HTML (callers escape what they take from reports).
    pub fn push(&mut self, html: &str) {
        self.body.push_str(html);
    }

    pub fn heading(&mut self, level: u8, text: &str) {
        let _ = write!(self.body, "<h{level}>{}</h{level}>", esc(text));
    }

    /// A table from a header row and rows of cells already escaped; `numeric` marks the columns
    /// aligned right.
    pub fn table(&mut self, class: &str, header: &[&str], numeric: &[usize], rows: &[(String, Vec<String>)]) {
        let _ = write!(self.body, r#"<table class="{class}"><thead><tr>"#);
        for (i, h) in header.iter().enumerate() {
            let n = if numeric.contains(&i) { r#" class="n""# } else { "" };
            let _ = write!(self.body, "<th{n}>{}</th>", esc(h));
        }
        self.body.push_str("</tr></thead><tbody>");
        for (row_class, cells) in rows {
            let _ = write!(self.body, r#"<tr class="{row_class}">"#);
            for (i, cell) in cells.iter().enumerate() {
                let n = if numeric.contains(&i) { r#" class="n""# } else { "" };
                let _ = write!(self.body, "<td{n}>{cell}</td>");
            }
            self.body.push_str("</tr>");
        }
        self.body.push_str("</tbody></table>");
    }

    /// The whole document. The inline script marks the page rendered, and records any script
    /// error, so a headless browser can tell a page that loaded cleanly from one that did not.
    pub fn finish(self, title: &str) -> String {
        format!(
            r#"<!DOCTYPE html>
<html lang="en" data-rendered="no">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="dmlrun {version}">
<title>{title}</title>
<script>window.addEventListener("error", function (e) {{ var d = document.documentElement.dataset; d.errors = (d.errors || "") + e.message + ";"; }});</script>
<style>{STYLE}</style>
</head>
<body>
{defs}
{body}
<footer>Written by dmlrun {version}. This page is self-contained: no network, no external scripts or fonts.</footer>
<script>var root = document.documentElement; root.dataset.rendered = "yes"; root.dataset.overflows = root.scrollWidth > root.clientWidth ? "yes" : "no";</script>
</body>
</html>
"#,
            version = env!("CARGO_PKG_VERSION"),
            title = esc(title),
            defs = svg::PATTERN_DEFS,
            body = self.body,
        )
    }
}

impl Default for Page {
    fn default() -> Self {
        Page::new()
    }
}

/// `2026-11-23 16:40:12 UTC`, when the page was written.
pub fn now() -> String {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    stamp.replace('T', " ").replace('Z', " UTC")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(esc(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    }

    #[test]
    fn a_page_is_self_contained() {
        let mut page = Page::new();
        page.heading(1, "a <b>");
        let html = page.finish("t");
        assert!(html.contains("<h1>a &lt;b&gt;</h1>"));
        for external in ["http://", "https://", "src=", "@import", "url(http"] {
            assert!(!html.contains(external), "{external}");
        }
        assert!(html.contains("prefers-color-scheme: dark"));
    }
}
