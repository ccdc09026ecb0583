//! `dmlrun tune`'s report: every candidate form tried, how it was checked and timed, what was
//! kept and what was written (`human.rs`: the text; JSON: this value serialised).

pub mod human;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::stats::change::Change;

pub const TUNE_SCHEMA: &str = "dmlrun.tune/1";

/// How one candidate came out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", content = "why", rename_all = "snake_case")]
pub enum Outcome {
    /// Within the tolerance of the original on the reference EP, and faster by the paired test.
    Faster,
    /// Within the tolerance, and not faster (slower, no change, or inconclusive: `change` says).
    NotFaster,
    /// An output outside the tolerance (the first difference).
    Differs(String),
    /// It did not open or run here (the error, one line).
    Fails(String),
    /// The budget was spent before it.
    NotTried,
}

impl Outcome {
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::Faster => "faster",
            Outcome::NotFaster => "not faster",
            Outcome::Differs(_) => "differs",
            Outcome::Fails(_) => "fails",
            Outcome::NotTried => "not tried",
        }
    }
}

/// One candidate form: the flags that make it, and what its check and its timing said.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Candidate {
    /// The flags that ask for it, as `run` takes them (`--matmul-as-mul-reducesum`).
    pub flags: Vec<String>,
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Its time against the original's, rounds interleaved: ratio of medians, its 95% bootstrap
    /// interval, the Mann-Whitney U test's p-value and the verdict.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub change: Option<Change>,
    /// p50 of its timed runs and of the original's beside it (ms).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub p50_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub original_p50_ms: Option<f64>,
    /// The largest output difference from the original on the reference EP.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub max_abs_diff: Option<f64>,
    /// A decoder's time to first token against the original's (`change` is then its decode
    /// step's): a candidate whose prefill is slower is not kept for a faster decode.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ttft: Option<Change>,
    /// What the check rests on where it is not plain (a decoder's tokens parting at a near-tie).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub note: Option<String>,
    pub seconds: f64,
}

impl Candidate {
    /// A candidate with nothing measured yet.
    pub fn of(flags: Vec<String>, outcome: Outcome, seconds: f64) -> Candidate {
        Candidate {
            flags,
            outcome,
            change: None,
            p50_ms: None,
            original_p50_ms: None,
            max_abs_diff: None,
            ttft: None,
            note: None,
            seconds,
        }
    }

    pub fn label(&self) -> String {
        self.flags.join(" ")
    }
}

/// What `dmlrun tune` found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TuneReport {
    pub schema: &'static str,
    pub dmlrun_version: &'static str,
    pub model: PathBuf,
    /// Where it was timed: the EP and adapter, as the original's session ran.
    pub device: String,
    /// Where each candidate was checked against the original.
    pub reference: String,
    /// What was timed: a model's runs, or a decoder's steps and time to first token at a prompt.
    pub timed: String,
    /// The speed rules that have nothing to rewrite in this model, each with why.
    pub not_fitting: Vec<String>,
    pub candidates: Vec<Candidate>,
    /// The kept candidates together, checked and timed again (where two or more were kept).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub combined: Option<Candidate>,
    /// The fastest verified form's flags (empty: the original is the fastest measured).
    pub chosen: Vec<String>,
    /// Where that form was written (none where nothing was faster, or no -o).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub written: Option<PathBuf>,
    /// What the written file cannot hold: session options to give the session that runs it.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub run_with: Vec<String>,
    pub budget_s: f64,
    pub seconds: f64,
}
