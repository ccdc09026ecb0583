//! What a rewrite rule is. Each rule is one file of this folder: a unit struct that says its flag,
//! its help, where it fits and what it writes instead, registered by one line in `RULES` (the
//! folder's `mod.rs`). The command line builds its flags from the list (`cli::rules`), `reduce`
//! offers those that fit a minimal model, `fix` tries those that fit the model, and the plan
//! refuses a flag that fits nothing: all through [`Rule::fits`].

use std::cell::RefCell;

use anyhow::Result;

use super::Built;
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::external::ExternalReader;
use crate::formats::onnx_proto::lossless::{EditNode, RawGraph};

/// The graph a rule reads (its nodes and initializers, as [`RawGraph`]), with the model's
/// external data files, from which `initializer` reads the one tensor a rule asks for.
pub struct Scope<'g> {
    pub(super) graph: &'g RawGraph,
    pub(super) external: &'g RefCell<ExternalReader>,
    /// What the model declares of its tensors (element types and shapes).
    pub(super) declared: &'g std::collections::HashMap<String, super::Declared>,
    /// Each `If` condition a run of the model's inputs decided (`Graph::with_decided`).
    pub(super) decided: &'g std::collections::HashMap<String, bool>,
}

impl std::ops::Deref for Scope<'_> {
    type Target = RawGraph;

    fn deref(&self) -> &RawGraph {
        self.graph
    }
}

/// What a rule is for: a remedy makes a model run or agree where it did not (`fix` tries them,
/// `reduce` offers them); a speed rule writes the same computation in a form that may be faster on
/// some device (`tune` measures them there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Remedy,
    Speed,
}

/// One rewrite dmlrun knows, switched on by a flag of its own.
pub trait Rule: Sync {
    /// The flag's long name (`gemm-zero-bias` for `--gemm-zero-bias`); with `_` for `-`, its name
    /// in JSON.
    fn flag(&self) -> &'static str;

    /// The flag's help: a first paragraph (what `-h` shows), then what `--help` adds, ending with
    /// an `Example:` line.
    fn help(&self) -> &'static str;

    /// The operator type it rewrites.
    fn op_type(&self) -> &'static str;

    /// What it rewrites, as `the model has no ...` ends: `Gemm without a bias`.
    fn what_it_fits(&self) -> &'static str;

    /// What it is for (a remedy, unless it says otherwise).
    fn purpose(&self) -> Purpose {
        Purpose::Remedy
    }

    /// Whether `tune` tries it: every speed rule, and a remedy whose form is faster on some
    /// device than what it replaces.
    fn tried_by_tune(&self) -> bool {
        self.purpose() == Purpose::Speed
    }

    /// Whether its form is for one row (a decoder's one-token step): `tune` then also tries it in
    /// a decoder's decode step alone (`generate --decode-rewrite`), where a prompt of many rows
    /// keeps the model as written.
    fn for_one_row(&self) -> bool {
        false
    }

    /// Whether it fits this node of `graph` (every node of the node's graph, for a rule that
    /// reads the node's neighbours): the one predicate behind `reduce`'s offers, `fix`'s
    /// remedies, the plan's refusal and the rewrite itself.
    fn fits(&self, node: &NodeOutline, graph: &[NodeOutline]) -> bool;

    /// Whether it reads the shapes of the tensors it rewrites: where the model declares fewer,
    /// the engine has ONNX Runtime infer them first.
    fn reads_shapes(&self) -> bool {
        false
    }

    /// Whether it reads the values the run's inputs give an `If`'s condition: the engine runs the
    /// original on the reference EP for them first, and these rules before every other.
    fn reads_conditions(&self) -> bool {
        false
    }

    /// Whether a node it fits is rewritten in `graph`: false where what the rewrite needs of the
    /// graph (a constant) is not there.
    fn rewrites_in(&self, _node: &EditNode, _graph: &Scope<'_>) -> bool {
        true
    }

    /// Why a model the flag was given for had nothing it rewrote (`ops`: every operator type of
    /// the model).
    fn nothing_rewritten(&self, _ops: &std::collections::HashSet<String>) -> String {
        format!("the model has no {}", self.what_it_fits())
    }

    /// Writes the nodes that replace `node` (one of `graph`'s) into `built`.
    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, graph: &Scope<'_>) -> Result<()>;
}
