//! The report of `dmlrun test`: its values (one result per case, the summary), rendered for
//! people (`human`), as JSON (schema `dmlrun.test/1`), as JUnit XML (`junit`), and as an
//! expectations file (`expectations`).

pub mod expectations;
pub mod human;
pub mod junit;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::compare::Mismatch;
use crate::runtime::placement::EpNodes;
use crate::runtime::LibraryInfo;

/// Schema identifier of the test report: fields are only added within a version.
pub const TEST_SCHEMA: &str = "dmlrun.test/1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Error,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
        }
    }
}

/// The outcome of one case.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub name: String,
    pub status: Status,
    /// One line: why it failed or could not run.
    pub reason: Option<String>,
    pub mismatches: Vec<Mismatch>,
    pub data_sets: usize,
    pub duration_ms: f64,
    /// Largest |expected - actual| over the float tensor outputs that could be compared
    /// element by element (with --compare-ep: how far the two execution providers are apart).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_abs_diff: Option<f64>,
    /// Where ONNX Runtime placed the model's nodes (with DirectML: how many DirectML took).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placement: Vec<EpNodes>,
    /// The status --expect predicted, when it was not `pass`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_status: Option<Status>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    /// Cases whose status differs from --expect for the worse (these fail the run).
    pub unexpected: Vec<String>,
    /// Cases --expect lists as failing that now pass.
    pub now_passing: Vec<String>,
    pub duration_ms: f64,
}

/// The JSON report of `dmlrun test` (schema `dmlrun.test/1`).
#[derive(Debug, Clone, Serialize)]
pub struct TestReport {
    pub schema: &'static str,
    pub dmlrun_version: &'static str,
    pub onnxruntime: LibraryInfo,
    pub plan_request: String,
    pub reference: Option<String>,
    pub summary: Summary,
    pub cases: Vec<CaseResult>,
    /// Ctrl-C stopped the run: `cases` holds the cases that ran, the others are not in it.
    pub interrupted: bool,
}

impl Summary {
    /// Counts the results and compares them with the expected statuses (`--expect`): a case
    /// not listed is expected to pass. Marks each result with the status expected of it.
    pub fn of(results: &mut [CaseResult], expectations: &BTreeMap<String, Status>, duration_ms: f64) -> Summary {
        let mut summary = Summary { total: results.len(), duration_ms, ..Summary::default() };
        for r in results {
            match r.status {
                Status::Pass => summary.passed += 1,
                Status::Fail => summary.failed += 1,
                Status::Error => summary.errors += 1,
            }
            let expected = expectations.get(&r.name).copied().unwrap_or(Status::Pass);
            if expected != Status::Pass {
                r.expected_status = Some(expected);
            }
            if r.status == Status::Pass && expected != Status::Pass {
                summary.now_passing.push(r.name.clone());
            } else if r.status != expected {
                summary.unexpected.push(r.name.clone());
            }
        }
        summary
    }
}
