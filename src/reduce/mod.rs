//! `dmlrun reduce`: from a model that fails on one execution provider (A) and runs on another
//! (B, the reference), the smallest run of nodes that still fails, written as an ONNX test case
//! that `dmlrun test` reproduces and a bug report can carry as it is.
//!
//! B runs the whole model once with every intermediate tensor exposed, so each candidate's
//! boundary tensors become graph inputs fed with the values B gave them, and its outputs are
//! checked against B's. Each candidate is written as an ONNX test case ([`candidate`]) and
//! checked by the command's [`CheckCandidate`], as an item of the batch runner: in a child
//! process, so that an abort inside the EP costs the candidate, not the reduction.
//! Two modes, chosen by what A does with the whole model:
//! - rejection: A errors or crashes; [`bisect::shrink`] finds the shortest failing prefix, then
//!   its shortest failing suffix;
//! - accuracy: A runs but its outputs differ beyond tolerance; A runs the model with every
//!   tensor exposed, the first node (in topological order) whose output differs is the first
//!   divergence, and the search shrinks the run of nodes ending there that still differs.

pub mod bisect;
pub mod candidate;

use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::graph::{Graph, Rewrite, TensorType};
use crate::runtime::engine::diagnose::{fused_nodes, value_text, NodeDetail};
use crate::runtime::plan::PlanRequest;
use crate::tensor::{HostTensor, HostValue};
use bisect::{Found, Verdict};
use candidate::Outcome;

/// Which failure the reduction keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// A rejects the model (an error or a crash).
    Rejection,
    /// A runs it, with outputs that differ from B's.
    Accuracy,
    /// A does not finish it within `--candidate-timeout`, while B runs it: a candidate that
    /// times out on A reproduces the hang.
    Hang,
}

impl Mode {
    /// Whether B's outcome on a candidate leaves it a reproducer: in rejection mode B must run it
    /// (its values may move by a rounding: fusions differ between a candidate and the model with
    /// every tensor exposed), in accuracy mode B's values must match.
    fn reference_accepts(self, reference: &Outcome) -> bool {
        match self {
            Mode::Rejection | Mode::Hang => matches!(reference, Outcome::Pass | Outcome::Differs { .. }),
            Mode::Accuracy => *reference == Outcome::Pass,
        }
    }

    /// Whether A's outcome on a candidate is the failure this mode keeps.
    fn keeps(self, outcome: &Outcome) -> bool {
        match self {
            Mode::Rejection => outcome.rejected(),
            Mode::Accuracy => matches!(outcome, Outcome::Differs { .. }),
            Mode::Hang => *outcome == Outcome::Timeout,
        }
    }
}

/// Checks the test case in a folder on the EP a request names: what A (or B) did with it, and
/// where it ran, the largest difference of its float outputs from B's values.
pub type CheckCandidate<'a> = dyn Fn(&Path, &PlanRequest) -> Result<(Outcome, Option<f64>)> + 'a;

/// What the reduction needs besides the graph: B's values of every tensor, how to check a
/// candidate on A, and its limits.
pub struct Reducer<'a> {
    pub graph: &'a Graph,
    /// The model's inputs as bound, and B's value of every tensor the graph computes.
    pub values: HashMap<String, HostValue>,
    /// A: the EP under test, its adapter and options.
    pub under_test: PlanRequest,
    /// B: a candidate reproduces only when B runs it too (an extraction can make a model no EP
    /// runs, such as a subgraph whose branch shapes no longer infer).
    pub reference: PlanRequest,
    /// Options tried on the minimal model when the search is done (fusion off, ...): a label
    /// and A's request with the option.
    pub remedies: Vec<(String, PlanRequest)>,
    /// The whole reduction stops after this long, keeping the smallest failing model so far.
    pub time_limit: Option<Duration>,
    /// Where candidates are written (a temporary folder).
    pub work: &'a Path,
    pub check: &'a CheckCandidate<'a>,
    /// Told of each candidate as it is checked.
    pub on_checked: &'a dyn Fn(&Tried),
}

/// One candidate checked.
#[derive(Debug, Clone, Serialize)]
pub struct Tried {
    /// First and last node, in topological order.
    pub first: usize,
    pub last: usize,
    pub nodes: usize,
    /// B's outcome, checked when A's reproduced the failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<Outcome>,
    /// The whole model with every intermediate tensor an output (the accuracy mode's search for
    /// the first divergence), not a run of nodes.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub every_tensor: bool,
    pub outcome: Outcome,
    pub seconds: f64,
}

/// An option tried on the minimal model once the search was done.
#[derive(Debug, Clone, Serialize)]
pub struct Remedy {
    pub option: String,
    /// What the EP under test did with the minimal model with the option.
    pub minimal: Outcome,
    /// Where it helps the minimal model: what the EP under test does with the whole model with
    /// the option.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub whole: Option<Outcome>,
    /// Where the minimal model then runs: its outputs' largest difference from the reference's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_abs_diff: Option<f64>,
}

/// The rewrites that fit `nodes` (`Graph::rewrites_fitting`): `--decompose` with each operator
/// that has a decomposition (one option, in the order the nodes have them), `--gemm-zero-bias`
/// for a Gemm without its bias, `--reshape-allowzero-off`. Tried on the minimal model, they say
/// whether the way round works, and the flag to use on the whole model.
fn rewrite_remedies(nodes: &[crate::graph::Node], under_test: &PlanRequest) -> Vec<(String, PlanRequest)> {
    let (mut decompose, others): (Vec<Rewrite>, Vec<Rewrite>) =
        Graph::rewrites_fitting(nodes).into_iter().partition(|r| matches!(r, Rewrite::Decompose(_)));
    decompose.sort_by_key(|r| nodes.iter().position(|n| n.op_type == r.op_type()));
    let decompose = (!decompose.is_empty()).then_some(decompose);
    decompose
        .into_iter()
        .chain(others.into_iter().map(|r| vec![r]))
        .map(|rewrites| {
            let label = Rewrite::flags(&rewrites);
            (label, PlanRequest { rewrites, ..under_test.clone() })
        })
        .collect()
}

/// ONNX Runtime's session option that turns its QDQ transformations off: Q/DQ pairs fused into
/// QLinear kernels the EP may have none of (DirectML and a Softmax or LeakyRelu between them,
/// onnxruntime #26882).
pub const DISABLE_QUANT_QDQ: &str = "session.disable_quant_qdq";

/// The session options that fit `nodes`: the QDQ fusion off where they hold a QuantizeLinear or
/// DequantizeLinear and the request under test does not set it already. A setting of the
/// application's session, which a model file cannot carry; tried on the minimal model.
fn quantized_remedies(nodes: &[crate::graph::Node], under_test: &PlanRequest) -> Vec<(String, PlanRequest)> {
    let qdq = nodes.iter().any(|n| matches!(n.op_type.as_str(), "QuantizeLinear" | "DequantizeLinear"));
    if !qdq || under_test.session_config.iter().any(|(k, _)| k == DISABLE_QUANT_QDQ) {
        return Vec::new();
    }
    let mut off = under_test.clone();
    off.session_config.push((DISABLE_QUANT_QDQ.to_string(), "1".to_string()));
    vec![(format!("--session-config {DISABLE_QUANT_QDQ}=1"), off)]
}

/// What the reduction found.
#[derive(Debug, Clone, Serialize)]
pub struct Reduction {
    pub mode: Mode,
    /// A's outcome on the whole model.
    pub original: Outcome,
    pub nodes_before: usize,
    /// The run of nodes kept (topological order), and its size.
    pub first_node: usize,
    pub last_node: usize,
    pub nodes_after: usize,
    /// False when the time limit stopped the search: the kept model fails but may not be the
    /// smallest.
    pub complete: bool,
    /// The node the failure is pinned on: the last of the kept run (the one whose arrival made
    /// the prefix fail, or the first whose output differs), or the first of a fusion A's error
    /// names.
    pub node: NodeDetail,
    /// Where A's error names a node it fused from several of the model's (DirectML's
    /// `DmlFusedGemm` of a Gemm and its activation): `node` is the first, these the others.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fused_with: Vec<String>,
    /// Accuracy mode: the first tensor (in topological order) whose value differs on A.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_divergent: Option<String>,
    /// A's outcome on the kept model.
    pub outcome: Outcome,
    /// B's outcome on it (`differs` by a rounding is possible in rejection mode).
    pub reference_outcome: Option<Outcome>,
    /// The options tried on the kept model, and what A did with each.
    pub remedies: Vec<Remedy>,
    pub tried: Vec<Tried>,
    #[serde(skip)]
    pub case: PathBuf,
}

/// One operator type checked alone (`--each-op`): its first node, as a one-node model fed with
/// the reference's values.
#[derive(Debug, Clone, Serialize)]
pub struct OpCheck {
    pub op_type: String,
    pub domain: String,
    /// How many nodes of this type the model has.
    pub count: usize,
    /// The node checked: the first of its type in topological order.
    pub node: NodeDetail,
    /// What the EP under test did with it.
    pub outcome: Outcome,
    /// What the reference did with it, where the EP under test did not pass.
    pub reference: Option<Outcome>,
}

impl Reducer<'_> {
    /// Each operator type of the model, its first node alone, on the EP under test (and on the
    /// reference where that fails): which of a model's operators the EP takes, in one pass.
    pub fn each_op(&self) -> Result<Vec<OpCheck>> {
        let mut seen: Vec<OpCheck> = Vec::new();
        let mut tried = Vec::new();
        for node in self.graph.nodes() {
            if crate::interrupt::interrupted() {
                break;
            }
            if let Some(known) = seen.iter_mut().find(|c| c.op_type == node.op_type && c.domain == node.domain) {
                known.count += 1;
                continue;
            }
            let range = node.index..=node.index;
            let (outcome, case) = self.check(&range, &mut tried)?;
            let _ = std::fs::remove_dir_all(case);
            seen.push(OpCheck {
                op_type: node.op_type.clone(),
                domain: node.domain.clone(),
                count: 1,
                node: self.node_detail(node),
                outcome,
                reference: tried.last().and_then(|t: &Tried| t.reference.clone()),
            });
        }
        Ok(seen)
    }

    /// Reduces the model; `Err` when there is nothing to reduce (A runs it as B does) or it
    /// cannot be checked.
    pub fn reduce(&self) -> Result<Reduction> {
        let started = Instant::now();
        let n = self.graph.nodes().len();
        if n == 0 {
            bail!("the model has no nodes");
        }
        let mut tried = Vec::new();
        let whole = 0..=n - 1;
        let (original, whole_case) = self.check(&whole, &mut tried)?;
        if original == Outcome::Interrupted {
            bail!("interrupted while the whole model was checked on the EP under test: nothing reduced");
        }
        let mode = match &original {
            o if o.rejected() => Mode::Rejection,
            Outcome::Differs { .. } => Mode::Accuracy,
            Outcome::Timeout => Mode::Hang,
            _ => bail!(
                "the model runs on the EP under test with outputs within tolerance of the reference: nothing to reduce"
            ),
        };
        if let Some(Outcome::Timeout) = tried.last().and_then(|t| t.reference.as_ref()) {
            bail!(
                "the whole model ran past --candidate-timeout on the EP under test and on the reference too: nothing to bisect (raise --candidate-timeout; a model that never ends on any EP is not the EP's)"
            );
        }
        if let Some(reference) = tried.last().and_then(|t| t.reference.as_ref()).filter(|r| !mode.reference_accepts(r))
        {
            bail!(
                "the whole model, rewritten with its inputs' sizes fixed, does not run on the reference EP either ({}: {}), so no candidate can be checked",
                reference.word(),
                reference.reason().unwrap_or("")
            );
        }
        let whole_reference = tried.last().and_then(|t| t.reference.clone());
        let mut best = (whole.clone(), whole_case, original.clone(), whole_reference);
        let divergence = match mode {
            Mode::Accuracy => Some(self.first_divergence(&mut tried)?),
            Mode::Rejection | Mode::Hang => None,
        };
        let found = {
            let mut check = |range: &RangeInclusive<usize>| -> Result<Verdict> {
                if crate::interrupt::interrupted() || self.time_limit.is_some_and(|limit| started.elapsed() >= limit) {
                    return Ok(Verdict::Stop);
                }
                let (outcome, case) = self.check(range, &mut tried)?;
                let reference_passes =
                    tried.last().and_then(|t| t.reference.as_ref()).is_some_and(|r| mode.reference_accepts(r));
                if !mode.keeps(&outcome) || !reference_passes {
                    let _ = std::fs::remove_dir_all(&case);
                    return Ok(Verdict::Passes);
                }
                // The search only narrows: a failing candidate is smaller than the last one kept.
                let _ = std::fs::remove_dir_all(&best.1);
                let reference = tried.last().and_then(|t| t.reference.clone());
                best = (range.clone(), case, outcome, reference);
                Ok(Verdict::Fails)
            };
            match &divergence {
                None => bisect::shrink(n - 1, &mut check)?,
                Some((_, node)) => bisect::latest_start(*node, &mut check)?,
            }
        };
        let first_divergent = divergence.map(|(tensor, _)| tensor);
        let Found { complete, .. } = found;
        let (range, case, outcome, reference_outcome) = best;
        // The options, the rewrites that fit the minimal model's nodes (--decompose for an
        // operator that has a decomposition, --gemm-zero-bias for a Gemm without its bias), and
        // the QDQ fusion off where it holds Q/DQ nodes.
        let mut options = self.remedies.clone();
        options.extend(rewrite_remedies(&self.graph.nodes()[range.clone()], &self.under_test));
        options.extend(quantized_remedies(&self.graph.nodes()[range.clone()], &self.under_test));
        // Stopped by Ctrl-C, the smallest failing model so far is kept without more checks.
        let remedies = match crate::interrupt::interrupted() {
            true => Vec::new(),
            false => self.try_remedies(&case, n, &options)?,
        };
        // A failure ONNX Runtime pins on a node it fused is pinned on the first node of the
        // fusion that is the user's, with the others it was fused with.
        let kept = &self.graph.nodes()[range.clone()];
        let fused = match &outcome {
            Outcome::Error { reason } => fused_nodes(reason, &case.join("model.onnx")),
            _ => Vec::new(),
        };
        let (pinned, fused_with) = match fused.first().and_then(|first| kept.iter().find(|n| &n.name == first)) {
            Some(node) => (node, fused[1..].to_vec()),
            None => (&self.graph.nodes()[*range.end()], Vec::new()),
        };
        Ok(Reduction {
            mode,
            original,
            nodes_before: n,
            first_node: *range.start(),
            last_node: *range.end(),
            nodes_after: range.end() - range.start() + 1,
            complete,
            node: self.node_detail(pinned),
            fused_with,
            first_divergent,
            outcome,
            reference_outcome,
            remedies,
            tried,
            case,
        })
    }

    /// Each remedy on the minimal model in `case`; one that makes it pass, on the whole model too.
    fn try_remedies(&self, case: &Path, n: usize, options: &[(String, PlanRequest)]) -> Result<Vec<Remedy>> {
        let mut whole_case = None;
        let mut remedies = Vec::new();
        for (option, request) in options {
            let (minimal, max_abs_diff) = (self.check)(case, request)?;
            let whole = if minimal == Outcome::Pass {
                let dir = match &whole_case {
                    Some(dir) => dir,
                    None => whole_case.insert(self.write_candidate(&(0..=n - 1), "whole-model")?),
                };
                Some((self.check)(dir, request)?.0)
            } else {
                None
            };
            remedies.push(Remedy { option: option.clone(), minimal, whole, max_abs_diff });
        }
        if let Some(dir) = whole_case {
            let _ = std::fs::remove_dir_all(dir);
        }
        Ok(remedies)
    }

    /// Writes the candidate `range` and checks it on A.
    fn check(&self, range: &RangeInclusive<usize>, tried: &mut Vec<Tried>) -> Result<(Outcome, PathBuf)> {
        let started = Instant::now();
        let dir = self.write_candidate(range, &format!("nodes-{}-{}", range.start(), range.end()))?;
        let (outcome, _) = (self.check)(&dir, &self.under_test)?;
        // B decides whether what A did is A's: a hang too, since a model that loops for ever
        // times out on every EP.
        let reference = match outcome {
            Outcome::Pass => None,
            _ => Some((self.check)(&dir, &self.reference)?.0),
        };
        let entry = Tried {
            first: *range.start(),
            last: *range.end(),
            nodes: range.end() - range.start() + 1,
            reference,
            every_tensor: false,
            outcome: outcome.clone(),
            seconds: started.elapsed().as_secs_f64(),
        };
        (self.on_checked)(&entry);
        tried.push(entry);
        Ok((outcome, dir))
    }

    /// The nodes in `range` as a test case in the work folder, named `name`.
    fn write_candidate(&self, range: &RangeInclusive<usize>, name: &str) -> Result<PathBuf> {
        let dir = self.work.join(name);
        let inputs = self.graph.boundary_inputs(range);
        let outputs = self.graph.boundary_outputs(range);
        let mut types = HashMap::new();
        let tensor = |name: &String| -> Result<&HostTensor> {
            match self.values.get(name) {
                Some(HostValue::Tensor(t)) => Ok(t),
                Some(other) => {
                    bail!("'{name}' is a {} and only tensors can cross a candidate's boundary", other.kind())
                }
                None => bail!("the reference run gave no value for '{name}'"),
            }
        };
        let mut feed = Vec::new();
        for name in &inputs {
            let t = tensor(name)?;
            types.insert(name.clone(), TensorType { dtype: t.dtype, shape: t.shape.clone() });
            feed.push((name.clone(), t));
        }
        let expected = outputs.iter().map(|name| Ok((name.clone(), tensor(name)?))).collect::<Result<Vec<_>>>()?;
        let model = self.graph.extract(range, &types)?;
        candidate::write_case(&dir, &model, &feed, &expected)?;
        Ok(dir)
    }

    /// A's run of the whole model with every tensor exposed, against B's values: the first
    /// tensor that differs, and the node that writes it.
    fn first_divergence(&self, tried: &mut Vec<Tried>) -> Result<(String, usize)> {
        let every = self.graph.intermediate_tensors();
        let outcome = self.exposed_run(&every, tried)?;
        // ONNX Runtime 1.24's DirectML hands back an empty value for a tensor it computed on the
        // CPU as another node's constant input (a decoder's int32 total_sequence_length): the
        // activations, the floating-point tensors, are then exposed without the rest.
        let outcome = match outcome {
            Outcome::Error { reason } if reason.contains(crate::runtime::engine::EMPTY_OUTPUT) => {
                let floats: Vec<String> = every
                    .into_iter()
                    .filter(|name| matches!(self.values.get(name), Some(HostValue::Tensor(t)) if t.dtype.is_float()))
                    .collect();
                self.exposed_run(&floats, tried)?
            }
            outcome => outcome,
        };
        let Outcome::Differs { outputs: differing, .. } = outcome else {
            bail!(
                "with every intermediate tensor exposed the EP under test gives {} instead of differing outputs, so the first divergence cannot be located",
                outcome.word()
            );
        };
        self.graph
            .nodes()
            .iter()
            .find_map(|node| {
                let tensor = node.outputs.iter().find(|o| differing.contains(o))?;
                Some((tensor.clone(), node.index))
            })
            .context("no node writes the outputs that differ")
    }

    /// A's run of the whole model with `exposed` tensors as outputs too, checked against B's.
    fn exposed_run(&self, exposed: &[String], tried: &mut Vec<Tried>) -> Result<Outcome> {
        let started = Instant::now();
        let model = self.graph.with_outputs(exposed)?;
        let dir = self.work.join("every-tensor");
        let tensor = |name: &String| match self.values.get(name) {
            Some(HostValue::Tensor(t)) => Some((name.clone(), t)),
            _ => None,
        };
        let inputs: Vec<_> = self.graph.inputs().iter().filter_map(tensor).collect();
        let outputs: Vec<_> = self.graph.outputs().iter().chain(exposed).filter_map(tensor).collect();
        candidate::write_case(&dir, &model, &inputs, &outputs)?;
        let (outcome, _) = (self.check)(&dir, &self.under_test)?;
        let _ = std::fs::remove_dir_all(&dir);
        let n = self.graph.nodes().len();
        let entry = Tried {
            first: 0,
            last: n - 1,
            nodes: n,
            reference: None,
            every_tensor: true,
            outcome: outcome.clone(),
            seconds: started.elapsed().as_secs_f64(),
        };
        (self.on_checked)(&entry);
        tried.push(entry);
        Ok(outcome)
    }

    /// The node with its inputs' and outputs' types and shapes from B's values.
    fn node_detail(&self, node: &crate::graph::Node) -> NodeDetail {
        NodeDetail::of(self.graph, node, |name| match self.values.get(name) {
            Some(v) => value_text(v),
            None if self.graph.is_initializer(name) => "initializer".to_string(),
            None => "?".to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_qdq_fusion_off_is_offered_for_quantize_and_dequantize_nodes_alone() {
        let request = PlanRequest::default();
        let qdq = Graph::read(std::path::Path::new("tests/models/quantized/convnet_qdq_pc.onnx")).unwrap();
        let offered = quantized_remedies(qdq.nodes(), &request);
        assert_eq!(offered.len(), 1);
        assert_eq!(offered[0].0, "--session-config session.disable_quant_qdq=1");
        assert!(offered[0].1.session_config.contains(&(DISABLE_QUANT_QDQ.to_string(), "1".to_string())));
        // Not twice, and not for a float model.
        assert!(quantized_remedies(qdq.nodes(), &offered[0].1).is_empty());
        let float = Graph::read(std::path::Path::new("tests/models/quantized/convnet_fp32.onnx")).unwrap();
        assert!(quantized_remedies(float.nodes(), &request).is_empty());
    }
}
