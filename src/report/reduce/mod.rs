//! The report of `dmlrun reduce`: what failed where, the minimal model written, the node it
//! pins the failure on, and every candidate tried. JSON (schema [`REDUCE_SCHEMA`], also written
//! as `reduce.json` into the case folder) and text (`human.rs`).

mod human;

pub use human::{each_op_human, human, tried_line};

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::reduce::Reduction;
use crate::runtime::engine::DeviceReport;

/// Schema identifier of the reduce report: fields are only added within a version.
pub const REDUCE_SCHEMA: &str = "dmlrun.reduce/1";

#[derive(Debug, Clone, Serialize)]
pub struct ReduceReport {
    pub schema: &'static str,
    pub dmlrun_version: &'static str,
    pub model: PathBuf,
    /// What was done to the model before the search (the rewrites, the float16 conversion), the
    /// model searched being the one made so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub made: Option<String>,
    /// The EP under test, as `--ep` named it, and the reference that ran the model.
    pub ep: String,
    pub reference: DeviceReport,
    /// What the search found: mode, the kept nodes, the node, outcomes, options, every candidate.
    #[serde(flatten)]
    pub reduction: Reduction,
    /// The folder holding model.onnx and test_data_set_0/.
    pub written: PathBuf,
    /// The commands that show it.
    pub reproduce: Vec<String>,
    pub seconds: f64,
}

impl ReduceReport {
    /// `checks`: the `dmlrun test` arguments that check the written case on the EP under test
    /// and on the reference, which the report gives as the commands that show it.
    /// `model`: the user's model, and what was done to it where the search ran on a made one.
    pub fn new(
        model: (&Path, Option<String>),
        output: &Path,
        ep: String,
        checks: (&[std::ffi::OsString], &[std::ffi::OsString]),
        reduction: Reduction,
        reference: DeviceReport,
        took: Duration,
    ) -> ReduceReport {
        let (under_test, on_reference) = checks;
        let (model, made) = model;
        ReduceReport {
            schema: REDUCE_SCHEMA,
            dmlrun_version: env!("CARGO_PKG_VERSION"),
            model: model.to_path_buf(),
            made,
            ep,
            reference,
            reduction,
            written: output.to_path_buf(),
            reproduce: vec![
                format!("dmlrun test {} {}", output.display(), shell_words(under_test)),
                format!("dmlrun test {} {}", output.display(), shell_words(on_reference)),
            ],
            seconds: took.as_secs_f64(),
        }
    }
}

/// Arguments as a shell would take them back: quoted where they hold anything but plain
/// characters.
fn shell_words(args: &[std::ffi::OsString]) -> String {
    args.iter()
        .map(|a| {
            let a = a.to_string_lossy();
            if a.chars().all(|c| c.is_ascii_alphanumeric() || "-_.=/:,+".contains(c)) {
                a.into_owned()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Schema identifier of `dmlrun reduce --each-op`'s report.
pub const EACH_OP_SCHEMA: &str = "dmlrun.each-op/1";

/// `dmlrun reduce --each-op`: each operator type of a model alone on the EP under test.
#[derive(Debug, Clone, Serialize)]
pub struct OpSurvey {
    pub schema: &'static str,
    pub model: PathBuf,
    /// As `ReduceReport::made`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub made: Option<String>,
    /// The `dmlrun test` arguments each one-node model was checked with.
    pub ep_args: Vec<String>,
    /// Where the reference ran the whole model, whose values feed each node.
    pub reference: String,
    pub ops: Vec<crate::reduce::OpCheck>,
    pub seconds: f64,
}
