//! `dmlrun fix`'s record: each attempt, what it changed, how it ended, and what was written;
//! `human.rs` its text, the JSON the record serialized.

mod human;

pub use human::human;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub const FIX_SCHEMA: &str = "dmlrun.fix/1";

/// How one attempt ended, the whole model run on the EP under test against the reference.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "outcome", content = "detail", rename_all = "snake_case")]
pub enum AttemptOutcome {
    /// It opened, ran and agreed with the reference within the tolerance.
    Passes,
    /// It opened and ran, and an output differs (the first difference).
    Differs(String),
    /// It did not open or did not run (the error, one line), crashed, or ran past the time limit.
    Fails(String),
}

/// One whole run of the model with a set of remedies.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Attempt {
    /// The remedies applied, as the flags that ask for them (empty: the model as it is).
    pub remedies: Vec<String>,
    #[serde(flatten)]
    pub outcome: AttemptOutcome,
    /// The largest difference from the reference's outputs on the original, where it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_abs_diff: Option<f64>,
    pub seconds: f64,
    /// What the outcome rests on, where a pass is not plain (a decoder whose tokens part from the
    /// reference's only at a near-tie).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Attempt {
    /// `--decompose Gelu: passes`, `as it is: differs: output 'y': ...`.
    pub fn describe(&self) -> String {
        let what = if self.remedies.is_empty() { "as it is".to_string() } else { self.remedies.join(" ") };
        let how = match &self.outcome {
            AttemptOutcome::Passes => "passes".to_string(),
            AttemptOutcome::Differs(d) => format!("differs: {d}"),
            AttemptOutcome::Fails(e) => format!("fails: {e}"),
        };
        match &self.note {
            Some(note) => format!("{what}: {how} ({note})"),
            None => format!("{what}: {how}"),
        }
    }
}

/// Everything `dmlrun fix` did.
#[derive(Debug, Clone, Serialize)]
pub struct FixReport {
    pub schema: &'static str,
    pub dmlrun_version: &'static str,
    pub model: PathBuf,
    /// The execution provider under test, and the reference, as the sessions reported them.
    pub execution_provider: String,
    pub reference: String,
    pub tolerance: crate::compare::Tolerance,
    /// Every remedy that fits the model, in the order they were tried.
    pub remedies_that_fit: Vec<String>,
    pub attempts: Vec<Attempt>,
    /// Each attempt's limit, where one held (the attempts then ran in child processes).
    pub time_limit_s: Option<f64>,
    /// `passes` (as it was), `fixed` or `not_fixed`.
    pub verdict: &'static str,
    /// The remedies of the model that passed (the fewest of those tried that still pass).
    pub remedies: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<PathBuf>,
    /// Where the model as given failed: what reduce found of that failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub located: Option<Located>,
}

/// What `dmlrun reduce` found of the model's failure as given.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Located {
    /// The node the failure is pinned on, and its operator type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op_type: Option<String>,
    /// `rejection`, `accuracy` or `hang`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The smallest failing model, as reduce writes it (model.onnx, test_data_set_0/, reduce.json):
    /// beside the output where nothing fixed the model, else not kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimal: Option<PathBuf>,
    pub nodes_before: usize,
    pub nodes_after: usize,
    /// False where reduce's time limit stopped it: the model kept fails but may not be the smallest.
    pub complete: bool,
    /// What got the smallest model through (the rewrites that fit its nodes, session options):
    /// those fix knows are tried first.
    pub passing_on_minimal: Vec<String>,
    /// Session options with which the whole model passed: not a change a model file can carry,
    /// so said rather than written.
    pub options_that_pass: Vec<String>,
    /// Why no reduction was made, where none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Located {
    /// From reduce's JSON report (schema dmlrun.reduce/1), its case written to `folder`.
    pub fn from_reduce(reduced: &serde_json::Value, folder: &std::path::Path, ended_cleanly: bool) -> Located {
        let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
        let count = |k: &str| reduced[k].as_u64().unwrap_or(0) as usize;
        let remedies = || reduced["remedies"].as_array().into_iter().flatten();
        let options_that_pass = remedies()
            .filter(|r| r["whole"]["outcome"] == "pass")
            .filter_map(|r| text(&r["option"]))
            .filter(|o| o.starts_with("--session-config") || o.starts_with("--dml-") || o.starts_with("--opt-level"))
            .collect();
        let passing_on_minimal =
            remedies().filter(|r| r["minimal"]["outcome"] == "pass").filter_map(|r| text(&r["option"])).collect();
        Located {
            node: text(&reduced["node"]["name"]),
            op_type: text(&reduced["node"]["op_type"]),
            mode: text(&reduced["mode"]),
            minimal: folder.is_dir().then(|| folder.to_path_buf()),
            nodes_before: count("nodes_before"),
            nodes_after: count("nodes_after"),
            complete: reduced["complete"].as_bool().unwrap_or(false) && ended_cleanly,
            passing_on_minimal,
            options_that_pass,
            error: None,
        }
    }
}
