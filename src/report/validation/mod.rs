//! The report of `dmlrun test`: its values (one result per case, the summary), rendered for
//! people (`human`), as JSON (schema [`TEST_SCHEMA`]), as JUnit XML (`junit`), as a CSV or
//! Markdown table (`table`), and as an expectations file (`expectations`).

pub mod csv;
pub mod expectations;
pub mod html;
pub mod human;
pub mod junit;
pub mod markdown;
mod table;

use crate::report::export::{Exporter, Format, Formats};

/// test's report is written in every format.
impl Formats for TestReport {
    const WHAT: &'static str = "a test report";

    fn exporter(format: Format) -> Option<Box<dyn Exporter<Self>>> {
        Some(match format {
            Format::Json => Box::new(|r: &TestReport| crate::report::json_text(r)),
            Format::Csv => Box::new(|r: &TestReport| Ok(csv::csv(r))),
            Format::Markdown => Box::new(|r: &TestReport| Ok(markdown::markdown(r))),
            Format::Html => Box::new(|r: &TestReport| Ok(html::render(r))),
            Format::Junit => Box::new(junit::render),
        })
    }
}

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::compare::Mismatch;
use crate::runtime::placement::EpNodes;
use crate::runtime::LibraryInfo;

/// Schema identifier of the test report: fields are only added within a version.
/// Version 2 added the `crash` and `timeout` statuses and their summary counts (`crashed`,
/// `timed_out`), and `interrupted`.
pub const TEST_SCHEMA: &str = "dmlrun.test/2";

pub use crate::suites::Status;

/// The outcome of one case.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub max_abs_diff: Option<f64>,
    /// Where ONNX Runtime placed the model's nodes (with DirectML: how many DirectML took).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub placement: Vec<EpNodes>,
    /// Where DirectML was asked for: the nodes that ran elsewhere, by name, with why.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub off_directml: Vec<crate::runtime::placement::OffNode>,
    /// The status --expect predicted, when it was not `pass`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub expected_status: Option<Status>,
    /// For an `error` on an EP other than the CPU: whose fault the reference run says it is
    /// (`ep`: the reference runs it with the same inputs; `inputs`; `model`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub blame: Option<crate::runtime::engine::diagnose::Blame>,
    /// The node ONNX Runtime named in the failure, where it named one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub node: Option<String>,
    /// What the reader must know of this case's run: flags of the run that this case has no use
    /// for and were left out for it.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub warnings: Vec<String>,
    /// With --decompose or --gemm-zero-bias: what was rewritten, and how far the rewritten
    /// model's outputs are from the original's on the reference EP (the first data set).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rewrite: Option<crate::runtime::engine::RewriteReport>,
    /// With --precision fp16: what was converted, and the first data set's outputs against the
    /// float32 model's.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub precision: Option<crate::runtime::engine::PrecisionReport>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    pub crashed: usize,
    pub timed_out: usize,
    /// The case (or cases, with --jobs) under way when Ctrl-C stopped the run.
    #[serde(default)]
    pub interrupted: usize,
    /// Cases whose status differs from --expect for the worse (these fail the run).
    pub unexpected: Vec<String>,
    /// Cases --expect lists as failing that now pass.
    pub now_passing: Vec<String>,
    pub duration_ms: f64,
}

/// The JSON report of `dmlrun test` (schema [`TEST_SCHEMA`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TestReport {
    pub schema: String,
    pub dmlrun_version: String,
    pub onnxruntime: LibraryInfo,
    pub plan_request: String,
    pub reference: Option<String>,
    /// `--rtol`/`--atol`: the tolerance a case gets where its data.json does not give one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tolerance: Option<crate::compare::Tolerance>,
    pub summary: Summary,
    pub cases: Vec<CaseResult>,
    /// Folders that looked like cases but could not be (a data.json and no model), with why.
    pub skipped: Vec<crate::suites::testdata::Skipped>,
    /// Ctrl-C stopped the run: `cases` holds the cases that ran, the others are not in it.
    pub interrupted: bool,
    /// `--shard K/N`: the part of the cases this run ran.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub shard: Option<crate::suites::shard::ShardInfo>,
    /// Whether the cases ran in child processes and the time each could take.
    #[serde(default)]
    pub isolation: crate::isolation::Placement,
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
                Status::Crash => summary.crashed += 1,
                Status::Timeout => summary.timed_out += 1,
                Status::Interrupted => summary.interrupted += 1,
            }
            let expected = expectations.get(&r.name).copied().unwrap_or(Status::Pass);
            if expected != Status::Pass {
                r.expected_status = Some(expected);
            }
            // Ctrl-C is no verdict on the case: never unexpected, never now passing.
            if r.status == Status::Interrupted {
                continue;
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

impl CaseResult {
    /// What every format says of the nodes DirectML did not get, where any do the model's work
    /// (`runtime::placement::describe_off_directml`); shape computations alone say nothing.
    pub fn off_directml_line(&self) -> Option<String> {
        self.off_directml
            .iter()
            .any(|n| n.works())
            .then(|| crate::runtime::placement::describe_off_directml(&self.off_directml))
            .flatten()
    }

    /// The result of a case that ended without a verdict of its own (a crash, a timeout).
    pub fn ended(name: &str, status: Status, reason: String, data_sets: usize) -> CaseResult {
        CaseResult { status, reason: Some(reason), ..CaseResult::passing(name, data_sets) }
    }

    /// A case that passes, with nothing said of it yet: where a check starts from.
    pub fn passing(name: &str, data_sets: usize) -> CaseResult {
        CaseResult {
            name: name.to_string(),
            status: Status::Pass,
            reason: None,
            mismatches: Vec::new(),
            data_sets,
            duration_ms: 0.0,
            max_abs_diff: None,
            placement: Vec::new(),
            off_directml: Vec::new(),
            expected_status: None,
            blame: None,
            node: None,
            warnings: Vec::new(),
            rewrite: None,
            precision: None,
        }
    }
}

impl TestReport {
    /// The report of the results so far (in the order the cases were found) against `--expect`.
    pub fn settle(
        &mut self,
        results: &[Option<CaseResult>],
        expectations: &BTreeMap<String, Status>,
        elapsed: std::time::Duration,
    ) {
        self.cases = results.iter().flatten().cloned().collect();
        self.summary = Summary::of(&mut self.cases, expectations, elapsed.as_secs_f64() * 1000.0);
    }
}

impl Summary {
    /// Cases that did not pass, whatever the reason.
    pub fn not_passed(&self) -> usize {
        self.failed + self.errors + self.crashed + self.timed_out + self.interrupted
    }
}

#[cfg(test)]
mod off_directml_tests {
    use super::*;
    use crate::runtime::placement::OffNode;

    fn off(node: &str, op: &str, reason: Option<&str>, harmless: bool) -> OffNode {
        OffNode {
            node: node.into(),
            op_type: op.into(),
            execution_provider: "CPUExecutionProvider".into(),
            reason: reason.map(str::to_string),
            harmless,
        }
    }

    /// A passing case whose MatMulNBits ran on the CPU: every format of test's report names it
    /// with its reason; a case with only shape computations off DirectML says nothing.
    #[test]
    fn every_test_format_names_a_node_off_directml_with_its_reason() {
        let why = "its K, 48, is not a whole number of 32-blocks";
        let mut partial = CaseResult::passing("k48", 1);
        partial.off_directml = vec![off("proj", "MatMulNBits", Some(why), false), off("s", "Shape", None, true)];
        let mut shapes = CaseResult::passing("shapes", 1);
        shapes.off_directml = vec![off("s", "Shape", None, true)];
        let mut report = TestReport {
            schema: TEST_SCHEMA.into(),
            dmlrun_version: "0".into(),
            onnxruntime: crate::runtime::LibraryInfo {
                path: "onnxruntime.dll".into(),
                source: crate::runtime::LibrarySource::Flag,
                version: "1.24.4".into(),
                providers: vec![],
            },
            plan_request: "--ep dml --device 0".into(),
            reference: None,
            tolerance: None,
            summary: Summary::default(),
            cases: Vec::new(),
            skipped: Vec::new(),
            interrupted: false,
            shard: None,
            isolation: Default::default(),
        };
        report.settle(&[Some(partial), Some(shapes)], &BTreeMap::new(), std::time::Duration::ZERO);
        let named = format!("MatMulNBits 'proj' ({why})");
        let human = human::render(&report, false, false, None);
        assert!(human.contains(&format!("PASS  k48\n      off DirectML: {named}")), "{human}");
        assert!(!human.contains("shapes"), "a case with only shape computations off DirectML is a plain pass: {human}");
        assert!(markdown::markdown(&report).contains(&format!("- **k48**: {named}")));
        let junit = junit::render(&report).unwrap();
        assert!(
            junit.contains("name=\"off DirectML\"") && junit.contains("not a whole number of 32-blocks"),
            "{junit}"
        );
        let page = html::render(&report);
        assert!(page.contains("off DirectML: MatMulNBits &#39;proj&#39; (its K, 48,"), "{page}");
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["cases"][0]["off_directml"][0]["reason"], why);
    }
}
