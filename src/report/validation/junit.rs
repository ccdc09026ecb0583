//! JUnit XML for `dmlrun test`, which CI systems render as a test list (via quick-junit).

use std::time::Duration;

use anyhow::Result;
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

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
    // What a reader of the test list needs to trust it: which dmlrun and ONNX Runtime, on what
    // EP and device, against what, with what tolerance, and which part of the cases.
    suite.add_property(Property::new("dmlrun", report.dmlrun_version.as_str()));
    suite.add_property(Property::new("onnxruntime", report.onnxruntime.version.as_str()));
    suite.add_property(Property::new("run on", report.plan_request.as_str()));
    let devices: std::collections::BTreeSet<&str> =
        report.cases.iter().flat_map(|c| c.placement.iter().map(|p| p.execution_provider.as_str())).collect();
    if !devices.is_empty() {
        suite.add_property(Property::new("execution providers", devices.into_iter().collect::<Vec<_>>().join(", ")));
    }
    if let Some(reference) = &report.reference {
        suite.add_property(Property::new("reference", reference.as_str()));
    }
    if let Some(t) = &report.tolerance {
        suite.add_property(Property::new("rtol", t.rtol.to_string()));
        suite.add_property(Property::new("atol", t.atol.to_string()));
    }
    if let Some(shard) = &report.shard {
        suite.add_property(Property::new("shard", format!("{} of {} cases", shard.shard, shard.of_items)));
        if let Some(from) = &shard.from {
            suite.add_property(Property::new("shard from", from.as_str()));
        }
    }
    for case in &report.cases {
        let status = match case.status {
            Status::Pass => TestCaseStatus::success(),
            // Ctrl-C is no verdict on the case: JUnit's "skipped", with where it was stopped.
            Status::Interrupted => {
                let mut status = TestCaseStatus::skipped();
                if let Some(reason) = &case.reason {
                    status.set_message(reason.as_str());
                }
                status
            }
            Status::Fail | Status::Error | Status::Crash | Status::Timeout => {
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
        if let Some(off) = case.off_directml_line() {
            test_case.add_property(Property::new("off DirectML", off));
        }
        test_case.set_time(seconds(case.duration_ms));
        suite.add_test_case(test_case);
    }
    let mut junit = Report::new("dmlrun test");
    junit.add_test_suite(suite);
    Ok(junit.to_string()?)
}
