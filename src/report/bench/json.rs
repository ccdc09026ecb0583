//! JSON export (schema `dmlrun.bench/1`).

use anyhow::Result;

use super::BenchReport;
use crate::report::export::Exporter;

pub struct JsonExporter;

impl Exporter<BenchReport> for JsonExporter {
    fn render(&self, report: &BenchReport) -> Result<String> {
        Ok(serde_json::to_string_pretty(report)? + "\n")
    }
}

#[cfg(test)]
mod tests {
    use super::super::{tests::sample_report, StoredReport};
    use super::*;

    #[test]
    fn json_round_trips_into_a_baseline() {
        let report = sample_report();
        let text = JsonExporter.render(&report).unwrap();
        let stored: StoredReport = serde_json::from_str(&text).unwrap();
        assert_eq!(stored.schema, "dmlrun.bench/1");
        assert_eq!(stored.models[0].name, report.models[0].name);
        assert_eq!(stored.models[0].latency_ms.p50, 2.5);
    }
}
