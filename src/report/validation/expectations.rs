//! Expectations files (`--expect`, `--write-expect`): the cases that do not pass, with their
//! status, so that CI fails only on a change.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};

use super::{Status, TestReport};

/// Reads an expectations file: `STATUS NAME  # comment` lines.
pub fn read(path: &Path) -> Result<BTreeMap<String, Status>> {
    let text = crate::fsutil::read_text(path).with_context(|| format!("reading --expect {}", path.display()))?;
    let mut map = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (status, name) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let Some(status) = Status::from_word(status) else {
            bail!(
                "--expect {} line {}: unknown status '{status}' (fail, error, crash, timeout or pass)",
                path.display(),
                n + 1
            );
        };
        let name = name.trim();
        if name.is_empty() {
            bail!("--expect {} line {}: no case name", path.display(), n + 1);
        }
        map.insert(name.to_string(), status);
    }
    Ok(map)
}

/// The expectations file that makes `report` the expected outcome.
pub fn render(report: &TestReport) -> String {
    let mut out = format!(
        "# dmlrun test expectations: cases that do not pass ({}; ONNX Runtime {}).\n# Every other case must pass. Format: STATUS NAME  # reason\n",
        report.plan_request, report.onnxruntime.version
    );
    for c in report.cases.iter().filter(|c| c.status != Status::Pass) {
        let reason: String = c.reason.as_deref().unwrap_or("").chars().take(160).collect();
        out.push_str(&format!("{} {}  # {}\n", c.status.word(), c.name, reason.replace('#', "")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectations_parse_with_comments() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("expect.txt");
        std::fs::write(&path, "# header\nfail node/test_a  # why\n\nerror node/test_b\n").unwrap();
        let map = read(&path).unwrap();
        assert_eq!(map.get("node/test_a"), Some(&Status::Fail));
        assert_eq!(map.get("node/test_b"), Some(&Status::Error));
        std::fs::write(&path, "broken node/x\n").unwrap();
        assert!(read(&path).unwrap_err().to_string().contains("line 1"));
    }
}
