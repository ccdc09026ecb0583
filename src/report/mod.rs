//! Run reports: one value computed by the commands, rendered by one module per format.

pub mod bench;
pub mod describe;
pub mod export;
pub mod fix;
pub mod generate;
pub mod github;
pub mod html;
pub mod merge;
pub mod reduce;
pub mod run;
pub mod tune;
pub mod validation;

use serde::Serialize;

/// A count and its noun, singular for one: "1 case", "2 cases".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

pub fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A Markdown table: the header, the alignment row (the columns in `right` right-aligned) and
/// the rows, every cell escaped so that it stays one cell: a `|` in a reason (`max |diff|`), a
/// model's name or a path would otherwise split it, and a line break end the row.
pub fn markdown_table(header: &[&str], right: &[usize], rows: &[Vec<String>]) -> String {
    let cell = |text: &str| text.replace('\\', "\\\\").replace('|', "\\|").replace(['\n', '\r'], " ");
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut out = line(header.iter().map(|h| cell(h)).collect());
    out += &line((0..header.len()).map(|i| if right.contains(&i) { "---:" } else { "---" }.to_string()).collect());
    for row in rows {
        out += &line(row.iter().map(|c| cell(c)).collect());
    }
    out
}

/// One CSV record (RFC 4180) and its line end: a field holding a comma, a quote or a line break
/// is quoted, its quotes doubled.
pub fn csv_record<S: AsRef<str>>(fields: &[S]) -> String {
    let field = |text: &str| match text.contains([',', '"', '\n', '\r']) {
        true => format!("\"{}\"", text.replace('"', "\"\"")),
        false => text.to_string(),
    };
    let mut line = fields.iter().map(|f| field(f.as_ref())).collect::<Vec<_>>().join(",");
    line.push('\n');
    line
}

/// `text` as Markdown prose shows it: every character Markdown could read as markup escaped.
pub fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '(' | ')' | '<' | '>' | '#' | '+' | '-' | '!' | '|' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// Refuses two exports to stdout (`--json - --csv -`): one after the other, neither would parse.
/// `exports` are the flags and the paths they were given.
pub fn check_one_on_stdout(exports: &[(&str, Option<&std::path::Path>)]) -> anyhow::Result<()> {
    let on_stdout: Vec<String> = exports
        .iter()
        .filter(|(_, path)| *path == Some(std::path::Path::new("-")))
        .map(|(flag, _)| format!("{flag} -"))
        .collect();
    if on_stdout.len() > 1 {
        anyhow::bail!(
            "{}: only one export can go to stdout (the rest would not parse after it); write the others to files",
            on_stdout.join(" and ")
        );
    }
    Ok(())
}

/// The exports of a test report the flags ask for (`test` and `merge`), and test's expectations
/// file (`--write-expect`).
pub fn test_exports<'a>(
    to: &export::ReportFiles,
    write_expect: Option<&std::path::Path>,
) -> anyhow::Result<Vec<Option<export::Export<'a, validation::TestReport>>>> {
    use export::Formats;
    let mut exports = validation::TestReport::exports(to)?;
    exports.push(export::Export::of("--write-expect", write_expect, |r: &validation::TestReport| {
        Ok(validation::expectations::render(r))
    }));
    Ok(exports)
}

/// `value` as the JSON reports are written: pretty, with a final newline.
pub fn json_text(value: &impl Serialize) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(value)? + "\n")
}

/// Writes `value` as pretty JSON to `path`, or to stdout when `path` is `-`. Returns whether it
/// went to stdout (then the caller prints nothing else there).
pub fn write_json(path: &std::path::Path, value: &impl Serialize, flag: &str) -> anyhow::Result<bool> {
    write_text(path, &(serde_json::to_string_pretty(value)? + "\n"), flag)
}

/// Writes `text` to `path` atomically, or to stdout when `path` is `-`; an error names `flag`
/// and the file. Returns whether it went to stdout.
pub fn write_text(path: &std::path::Path, text: &str, flag: &str) -> anyhow::Result<bool> {
    use anyhow::Context;
    if path == std::path::Path::new("-") {
        crate::out!("{text}");
        return Ok(true);
    }
    crate::fsutil::write_atomic(path, text.as_bytes()).with_context(|| format!("{flag} {}", path.display()))?;
    Ok(false)
}

/// ` (shard 2/4 of 1914 cases)`; with `--shard auto`, `... cases, from CI_NODE_INDEX=2, ...)`.
pub fn shard_said(info: &crate::suites::shard::ShardInfo, items: &str) -> String {
    match &info.from {
        Some(from) => format!(" (shard {} of {} {items}, from {from})", info.shard, info.of_items),
        None => format!(" (shard {} of {} {items})", info.shard, info.of_items),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn markdown_cells_stay_one_cell_whatever_they_hold() {
        let table = super::markdown_table(&["a", "b"], &[1], &[vec!["max |diff| 1e-3".into(), "C:\\x\ny".into()]]);
        assert_eq!(table, "| a | b |\n| --- | ---: |\n| max \\|diff\\| 1e-3 | C:\\\\x y |\n");
        for line in table.lines() {
            assert_eq!(line.replace("\\|", "").matches('|').count(), 3, "{line}");
        }
    }

    #[test]
    fn two_exports_to_stdout_are_refused_one_is_not() {
        use std::path::Path;
        let dash = Some(Path::new("-"));
        assert!(super::check_one_on_stdout(&[("--json", dash), ("--csv", Some(Path::new("b.csv")))]).is_ok());
        let err = super::check_one_on_stdout(&[("--json", dash), ("--csv", dash), ("--html", None)]).unwrap_err();
        assert!(err.to_string().starts_with("--json - and --csv -: only one export can go to stdout"), "{err}");
    }
}
