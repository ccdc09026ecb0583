//! The test report people read: failing cases (all with `--verbose`) and the totals.

use std::path::Path;

use super::{Status, TestReport};

/// The report as text; `expect` is the `--expect` file, when one was given.
pub fn render(report: &TestReport, verbose: bool, quiet: bool, expect: Option<&Path>) -> String {
    let mut out = String::new();
    if !quiet {
        for c in &report.cases {
            let known = c.expected_status == Some(c.status);
            // A pass whose work partly ran on the CPU is no DirectML pass: shown with why.
            let off = c.off_directml_line();
            if c.status == Status::Pass && !verbose && off.is_none() {
                continue;
            }
            if known && !verbose {
                continue;
            }
            let tag = match c.status {
                Status::Pass => "PASS ",
                Status::Fail => "FAIL ",
                Status::Error => "ERROR",
                Status::Crash => "CRASH",
                Status::Timeout => "TIMEOUT",
                Status::Interrupted => "INTERRUPTED",
            };
            let note = if known { " (known)" } else { "" };
            out.push_str(&format!("{tag} {}{note}", c.name));
            if let Some(reason) = &c.reason {
                out.push_str(&format!(": {reason}"));
            }
            out.push('\n');
            if let Some(off) = &off {
                out.push_str(&format!("      off DirectML: {off}\n"));
            }
            // What run says of a rewrite or a float16 conversion, said of each case shown.
            if let Some(r) = &c.rewrite {
                out.push_str(&format!("      rewritten: {}\n", r.describe()));
            }
            if let Some(p) = &c.precision {
                out.push_str(&format!("      {}: {}\n", p.label(), p.describe_conversion()));
                if p.converted_anything() {
                    out.push_str(&format!("      {}\n", p.describe_accuracy()));
                }
            }
        }
    }
    for skipped in &report.skipped {
        out.push_str(&format!("SKIP  {}: {}\n", skipped.dir.display(), skipped.reason));
    }
    let s = &report.summary;
    if let Some(path) = expect {
        for name in &s.now_passing {
            out.push_str(&format!("now passes (listed in {}): {name}\n", path.display()));
        }
        out.push_str(&format!(
            "{} unexpected, {} known failures, {} now passing\n",
            s.unexpected.len(),
            s.not_passed() - s.unexpected.len().min(s.not_passed()),
            s.now_passing.len()
        ));
    }
    let died = if s.crashed + s.timed_out > 0 {
        format!(", {} crashed, {} timed out", s.crashed, s.timed_out)
    } else {
        String::new()
    };
    let died = if s.interrupted > 0 { format!("{died}, {} interrupted", s.interrupted) } else { died };
    let skipped =
        if report.skipped.is_empty() { String::new() } else { format!(", {} folders skipped", report.skipped.len()) };
    let shard = report.shard.as_ref().map(|s| crate::report::shard_said(s, "cases")).unwrap_or_default();
    out.push_str(&format!(
        "{}{shard}: {} passed, {} failed, {}{died}{skipped} ({:.1} s)\n",
        crate::report::count(s.total, "case", "cases"),
        s.passed,
        s.failed,
        crate::report::count(s.errors, "error", "errors"),
        s.duration_ms / 1000.0
    ));
    out
}
