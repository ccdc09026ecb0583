//! The JSON run report's schema identifier. The schema is versioned: fields are only added
//! within a version; a rename or removal bumps it. The README documents every field. The report
//! is written by `report::write_json`.

/// Schema identifier written into every `run` report.
pub const RUN_SCHEMA: &str = "dmlrun.run/1";
