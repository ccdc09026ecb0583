//! One candidate of a reduction: a run of nodes written as an ONNX test case (`model.onnx` and
//! `test_data_set_0/` with the reference's values for its inputs and outputs), checked on the
//! execution provider under test by a child `dmlrun test`, so that an abort inside the EP costs
//! the candidate, not the reduction.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::formats::tensor_proto;
use crate::isolation::{run_child, ChildEnd, ChildFiles};
use crate::tensor::HostTensor;

/// What the EP under test did with a candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Ran, and every output matched the reference within tolerance.
    Pass,
    /// Ran, and these outputs differ from the reference beyond tolerance.
    Differs { outputs: Vec<String>, reason: String },
    /// Could not run: session creation or the run failed.
    Error { reason: String },
    /// Killed the process running it.
    Crash { reason: String },
    /// Ran past the per-candidate time limit.
    Timeout,
    /// Ctrl-C stopped its check.
    Interrupted,
}

impl Outcome {
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Differs { .. } => "differs",
            Outcome::Error { .. } => "error",
            Outcome::Crash { .. } => "crash",
            Outcome::Timeout => "timeout",
            Outcome::Interrupted => "interrupted",
        }
    }

    /// `passes`, `differs`, `fails`, `crashes`, `times out`: what the model does.
    pub fn verb(&self) -> &'static str {
        match self {
            Outcome::Pass => "passes",
            Outcome::Differs { .. } => "differs",
            Outcome::Error { .. } => "fails",
            Outcome::Crash { .. } => "crashes",
            Outcome::Timeout => "times out",
            Outcome::Interrupted => "was interrupted",
        }
    }

    /// The EP rejects it: an error or a crash.
    pub fn rejected(&self) -> bool {
        matches!(self, Outcome::Error { .. } | Outcome::Crash { .. })
    }

    pub fn reason(&self) -> Option<&str> {
        match self {
            Outcome::Differs { reason, .. } | Outcome::Error { reason } | Outcome::Crash { reason } => Some(reason),
            Outcome::Pass | Outcome::Timeout | Outcome::Interrupted => None,
        }
    }
}

/// Writes `dir` as an ONNX test case: the model, then its inputs and the reference outputs.
pub fn write_case(
    dir: &Path,
    model: &[u8],
    inputs: &[(String, &HostTensor)],
    outputs: &[(String, &HostTensor)],
) -> Result<()> {
    let set = dir.join("test_data_set_0");
    std::fs::create_dir_all(&set).with_context(|| format!("creating {}", set.display()))?;
    std::fs::write(dir.join("model.onnx"), model)
        .with_context(|| format!("writing {}", dir.join("model.onnx").display()))?;
    for (role, tensors) in [("input", inputs), ("output", outputs)] {
        for (i, (name, tensor)) in tensors.iter().enumerate() {
            let path = set.join(format!("{role}_{i}.pb"));
            std::fs::write(&path, tensor_proto::write(name, tensor))
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}

/// Checks the case in `dir` with a child `dmlrun test` given `ep_args` (the EP under test, its
/// device and options, the tolerance).
pub fn check(dir: &Path, ep_args: &[OsString], timeout: Option<Duration>) -> Result<Outcome> {
    Ok(check_measured(dir, ep_args, timeout)?.0)
}

/// As [`check`], with the largest difference of the case's float outputs from the reference
/// values where it ran (how close a remedy brings the EP under test).
pub fn check_measured(dir: &Path, ep_args: &[OsString], timeout: Option<Duration>) -> Result<(Outcome, Option<f64>)> {
    let files = ChildFiles {
        handoff: dir.with_extension("items.json"),
        results: dir.with_extension("report.json"),
        progress: dir.with_extension("progress"),
    };
    let mut args: Vec<OsString> = vec!["test".into(), dir.into()];
    args.extend(ep_args.iter().cloned());
    args.extend(["--isolation".into(), "none".into(), "--no-blame".into(), "--quiet".into()]);
    // A candidate is reduce's business: never a summary or an annotation on the CI job.
    args.extend(["--ci".into(), "none".into()]);
    args.extend(["--json".into(), files.results.clone().into_os_string()]);
    args.extend(["--progress".into(), files.progress.clone().into_os_string()]);
    // The child's JSON report is read whole once it has ended.
    let end = run_child(&args, &files, timeout, &mut |_| {})?;
    let _ = std::fs::remove_file(&files.progress);
    let text = std::fs::read_to_string(&files.results);
    let _ = std::fs::remove_file(&files.results);
    Ok(match (end, text) {
        (ChildEnd::Exited { .. }, Ok(text)) => {
            // The parts of the child's report (dmlrun.test/2) a candidate's outcome needs; its case
            // status is test's own type.
            use crate::suites::Status;
            #[derive(Deserialize)]
            struct Report {
                cases: Vec<Case>,
            }
            #[derive(Deserialize)]
            struct Case {
                status: Status,
                reason: Option<String>,
                #[serde(default)]
                max_abs_diff: Option<f64>,
                #[serde(default)]
                mismatches: Vec<Mismatch>,
            }
            #[derive(Deserialize)]
            struct Mismatch {
                output: String,
            }
            let report: Report = serde_json::from_str(&text).context("reading a candidate's test report")?;
            let case = report.cases.into_iter().next().context("a candidate's test report holds no case")?;
            let reason = without_staging_path(&case.reason.unwrap_or_default());
            let outcome = match case.status {
                Status::Pass => Outcome::Pass,
                Status::Fail => {
                    Outcome::Differs { outputs: case.mismatches.into_iter().map(|m| m.output).collect(), reason }
                }
                Status::Error => Outcome::Error { reason },
                Status::Crash => Outcome::Crash { reason },
                Status::Timeout => Outcome::Timeout,
                Status::Interrupted => Outcome::Interrupted,
            };
            (outcome, case.max_abs_diff)
        }
        (ChildEnd::Exited { how, .. }, Err(_)) => (Outcome::Crash { reason: how }, None),
        (ChildEnd::TimedOut(..), _) => (Outcome::Timeout, None),
        (ChildEnd::Interrupted(_), _) => (Outcome::Interrupted, None),
    })
}

/// A candidate's reason without the `model .../nodes-0-671/model.onnx: ` its error starts with:
/// the staging path says nothing the report does not.
fn without_staging_path(reason: &str) -> String {
    match reason.strip_prefix("model ").and_then(|r| r.split_once("model.onnx: ")) {
        Some((_, rest)) => rest.to_string(),
        None => reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_loses_the_staging_path_and_keeps_the_rest() {
        let reason = r"model Z:\work\.dmlrun-reduce-VT\nodes-0-671\model.onnx: DirectML started on adapter 0 but could not compile this model";
        assert_eq!(without_staging_path(reason), "DirectML started on adapter 0 but could not compile this model");
        assert_eq!(without_staging_path("output 'y': 2 of 8 differ"), "output 'y': 2 of 8 differ");
    }
}
