//! JUnit XML for `dmlrun test`, which CI systems render as a test list (via quick-junit).

use std::time::Duration;

use anyhow::Result;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{Status, TestReport};

/// A duration from a report's milliseconds; what no duration holds (a report edited or cut, read
/// by merge) is zero.
fn seconds(ms: f64) -> Duration {
    Duration::try_from_secs_f64(ms / 1000.0).unwrap_or_default()
}

/// One test suite named `dmlrun`; each case is a test case classed by its folder
/// (`node/test_abs` becomes class `node`, name `test_abs`).
pub fn render(report: &TestReport) -> Result<String> {
    let mut suite = TestSuite::new("dmlrun");
    suite.set_time(seconds(report.summary.duration_ms));
    for case in &report.cases {
        let status = match case.status {
            Status::Pass => TestCaseStatus::success(),
            Status::Fail | Status::Error | Status::Crash | Status::Timeout | Status::Interrupted => {
                let kind = if case.status == Status::Fail { NonSuccessKind::Failure } else { NonSuccessKind::Error };
                let mut status = TestCaseStatus::non_success(kind);
                if let Some(reason) = &case.reason {
                    status.set_message(reason.as_str());
                }
                let details: Vec<String> = case.mismatches.iter().map(|m| m.to_string()).collect();
                if !details.is_empty() {
                    status.set_description(details.join("\n"));
                }
                status
            }
        };
        let (class, name) = case.name.rsplit_once('/').unwrap_or(("dmlrun", case.name.as_str()));
        let mut test_case = TestCase::new(name, status);
        test_case.set_classname(class);
        test_case.set_time(seconds(case.duration_ms));
        suite.add_test_case(test_case);
    }
    let mut junit = Report::new("dmlrun test");
    junit.add_test_suite(suite);
    Ok(junit.to_string()?)
}
