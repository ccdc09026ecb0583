//! `--inline-if`: an `If` whose condition the run's inputs decide, written as the branch they
//! take: its nodes in the `If`'s place, its initializers as its graph's, its outputs copied to the
//! `If`'s by `Identity`. Silero VAD's model is one `If` on the sample rate (16 kHz and 8 kHz
//! each a branch with an LSTM); ONNX Runtime's inference of the untaken branch fails when the
//! input is sized, and what dmlrun reads off a model (the shapes `--binary-as-reduce` needs) with
//! it. The condition is read from a run of the original on the reference EP with the run's inputs
//! (`engine::rewrite`), so the model written holds for inputs that take the same branch: a model
//! `fix -o` or `--save-model` writes with it is for those (said in the guide).

use anyhow::{bail, Context, Result};
use prost::Message;

use super::rule::{Rule, Scope};
use super::Built;
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::header::TensorHeader;
use crate::formats::onnx_proto::lossless::{EditNode, RawGraph};
use crate::formats::onnx_proto::ValueInfoProto;

pub struct IfInlined;

impl Rule for IfInlined {
    fn flag(&self) -> &'static str {
        "inline-if"
    }

    fn help(&self) -> &'static str {
        "Write every If of the main graph whose condition the run's inputs decide as the branch \
         they take, before the session.\n\n\
         The condition is read from a run of the original on the reference EP (the CPU, or \
         --compare-ep) with the same inputs, so the model holds for inputs that take the same \
         branch. For an execution provider or an inference that fails on the branch not taken: \
         Silero VAD's model is one If on the sample rate, whose 8 kHz branch ONNX Runtime cannot \
         infer when the input is sized. Checked against the original as --decompose is.\n\n\
         Example: dmlrun silero_vad.onnx --device 0 --inline-if --binary-as-reduce"
    }

    fn op_type(&self) -> &'static str {
        "If"
    }

    fn what_it_fits(&self) -> &'static str {
        "If"
    }

    fn reads_conditions(&self) -> bool {
        true
    }

    fn fits(&self, node: &NodeOutline, _graph: &[NodeOutline]) -> bool {
        node.op_type == "If" && matches!(node.domain.as_str(), "" | "ai.onnx")
    }

    /// Where the run decided its condition, and the branch holds no tensor in an external file.
    fn rewrites_in(&self, node: &EditNode, graph: &Scope<'_>) -> bool {
        let Some(taken) = node.input.first().and_then(|c| graph.decided.get(c)) else { return false };
        branch(node, *taken).is_ok_and(|b| b.initializer.iter().all(|raw| inline(raw)))
    }

    fn nothing_rewritten(&self, ops: &std::collections::HashSet<String>) -> String {
        match ops.contains("If") {
            true => "no If of the main graph has a condition a run of its inputs decides".into(),
            false => "the model has no If".into(),
        }
    }

    /// The branch taken, its initializers as constants, its outputs as the `If`'s.
    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, graph: &Scope<'_>) -> Result<()> {
        let condition = node.input.first().context("an If with no condition")?;
        let taken = *graph.decided.get(condition).context("its condition was not decided")?;
        let branch = branch(node, taken)?;
        // Initializers of the graph, not Constant nodes: ONNX Runtime 1.24 (Windows) keeps a large
        // Constant in memory as "external data" and then cannot save the model it optimised,
        // which the shapes' session asks it to (SaveInitializedTensors, HasExternalDataInMemory).
        for raw in &branch.initializer {
            built.initializer(raw.clone());
        }
        for raw in &branch.node {
            built.node(EditNode::decode(raw.as_slice()).context("a node of its branch")?);
        }
        let outputs: Vec<String> = (branch.output.iter())
            .map(|raw| Ok(ValueInfoProto::decode(raw.as_slice())?.name.unwrap_or_default()))
            .collect::<Result<_>>()?;
        if outputs.len() != node.output.len() {
            bail!("its branch has {} outputs and the If {}", outputs.len(), node.output.len());
        }
        for (from, to) in outputs.iter().zip(&node.output).filter(|(_, to)| !to.is_empty()) {
            built.op("Identity", &[from], Some(to), vec![]);
        }
        Ok(())
    }
}

/// The `then_branch` (condition true) or `else_branch` of an `If`.
fn branch(node: &EditNode, taken: bool) -> Result<RawGraph> {
    let name = if taken { "then_branch" } else { "else_branch" };
    let attribute = node.attribute.iter().find(|a| a.name.as_deref() == Some(name));
    let bytes = attribute.and_then(|a| a.g.as_ref()).with_context(|| format!("an If with no {name}"))?;
    RawGraph::decode(bytes.as_slice()).with_context(|| format!("its {name}"))
}

/// Whether a tensor holds its data itself (a `Constant` written from one in an external file would
/// point at a file beside the original, not beside the model written).
fn inline(raw: &[u8]) -> bool {
    TensorHeader::decode(raw).is_ok_and(|t| t.data_location != Some(1))
}
