//! JUnit XML for `dmlrun bench`, which CI systems render as a test list: one case per model,
//! failed where the model failed or regressed against the baseline; the baseline and the test in
//! the suite's properties, each case's verdict with its ratio and interval in its output, so an
//! improvement or an inconclusive verdict shows beside a pass.

use std::time::Duration;

use anyhow::Result;
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::{BenchReport, ModelStatus};

fn seconds(ms: f64) -> Duration {
    Duration::try_from_secs_f64(ms / 1000.0).unwrap_or_default()
}

pub fn render(report: &BenchReport) -> Result<String> {
    let mut suite = TestSuite::new("dmlrun bench");
    let row = |name: &str| report.baseline.as_ref().and_then(|b| b.models.iter().find(|r| r.name == name));
    if let Some(b) = &report.baseline {
        suite.add_property(Property::new("baseline", b.against.as_str()));
        suite.add_property(Property::new("max_regression", format!("{}", b.max_regression)));
        suite.add_property(Property::new("test", b.test.as_str()));
    }
    for m in &report.models {
        let verdict = row(&m.name);
        let status = match verdict.and_then(|r| r.change.as_ref()).filter(|_| verdict.is_some_and(|r| r.regression)) {
            Some(change) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_message(format!("regression: {}", change.reason));
                status.set_type("regression");
                status
            }
            None => TestCaseStatus::success(),
        };
        let mut case = TestCase::new(m.name.as_str(), status);
        case.set_classname("bench");
        case.set_time(seconds(m.latency_ms.mean * m.latency_ms.count as f64));
        // The JUnit schema gives a case no properties: its figures and verdict are its output.
        let mut said = format!("p50 {:.3} ms on {}", m.latency_ms.p50, m.device.execution_provider);
        if let Some(r) = verdict {
            said.push_str(&format!("\nverdict: {}", r.verdict_word()));
            if let Some(c) = &r.change {
                said.push_str(&format!(
                    "\nratio {:.4} (95% CI {:.4} to {:.4}), p={:e}: {}",
                    c.ratio, c.ci_low, c.ci_high, c.p_value, c.reason
                ));
            }
        }
        if let Some(off) = m.device.off_directml_line() {
            said.push_str(&format!("\noff DirectML: {off}"));
        }
        case.set_system_out(said);
        suite.add_test_case(case);
    }
    for f in &report.failed {
        // Ctrl-C before any timed run is no verdict on the model: JUnit's "skipped".
        let mut status = match f.status {
            ModelStatus::Interrupted => TestCaseStatus::skipped(),
            _ => TestCaseStatus::non_success(NonSuccessKind::Failure),
        };
        status.set_message(f.error.as_str());
        status.set_type(f.status.word());
        let mut case = TestCase::new(f.name.as_str(), status);
        case.set_classname("bench");
        suite.add_test_case(case);
    }
    let mut junit = Report::new("dmlrun bench");
    junit.add_test_suite(suite);
    Ok(junit.to_string()?)
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample_report;
    use super::*;

    #[test]
    fn a_regression_is_a_failed_case_with_its_verdict() {
        let mut report = sample_report();
        let runs = |c: f64| (0..60).map(|i| c + 0.01 * (i % 7) as f64).collect::<Vec<f64>>();
        report.models[0].samples_ms = runs(3.0);
        report.models[0].rounds = vec![6; 10];
        report.models[0].baseline_model = Some(crate::runtime::engine::PairedRuns {
            model: "old.onnx".into(),
            device: report.models[0].device.clone(),
            first_run_ms: 1.0,
            samples_ms: runs(2.0),
            rounds: vec![6; 10],
        });
        report.baseline = Some(super::super::compare_with_paired(&report, 0.05));
        let xml = render(&report).unwrap();
        assert!(xml.contains(r#"<failure message="regression: slower by +"#), "{xml}");
        assert!(xml.contains(r#"threshold" type="regression"/>"#), "{xml}");
        assert!(xml.contains("verdict: regression"), "{xml}");
        assert!(
            xml.contains(r#"<failure message="model broken.onnx: not a valid ONNX model" type="failed"/>"#),
            "{xml}"
        );
    }
}
