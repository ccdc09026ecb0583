//! One candidate of a reduction: a run of nodes written as an ONNX test case (`model.onnx` and
//! `test_data_set_0/` with the reference's values for its inputs and outputs), and what the
//! execution provider that checked it did with it.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::formats::tensor_proto;
use crate::suites::Status;
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
    /// A candidate's outcome from its case's status as `dmlrun test` would report it: the reason,
    /// and where it differs, the outputs that do.
    pub fn of_case(status: Status, reason: Option<&str>, differing: Vec<String>) -> Outcome {
        let reason = without_staging_path(reason.unwrap_or_default());
        match status {
            Status::Pass => Outcome::Pass,
            Status::Fail => Outcome::Differs { outputs: differing, reason },
            Status::Error => Outcome::Error { reason },
            Status::Crash => Outcome::Crash { reason },
            Status::Timeout => Outcome::Timeout,
            Status::Interrupted => Outcome::Interrupted,
        }
    }

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
