//! The JSON report. Its schema is versioned: fields are only added within a version; a rename or
//! removal bumps it. The README documents every field.

use anyhow::Result;

use super::RunReport;

/// Schema identifier written into every `run` report.
pub const RUN_SCHEMA: &str = "dmlrun.run/1";

/// Renders the report as pretty-printed JSON with a trailing newline.
pub fn render(report: &RunReport) -> Result<String> {
    let mut text = serde_json::to_string_pretty(report)?;
    text.push('\n');
    Ok(text)
}
