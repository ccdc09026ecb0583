//! `--binary-as-reduce`: a float32 `Add`, `Sub`, `Mul`, `Max` or `Min` of two tensors of one
//! declared shape written as the two stacked on a new first axis (`Unsqueeze`, `Concat`) and
//! reduced over it (`ReduceSum`; `ReduceProd` for `Mul`, `ReduceMax`, `ReduceMin`; `Sub` as the
//! sum with the second negated). The same numbers: one addition, product or comparison of the
//! two, as before (`a - b` is `a + (-b)` in IEEE arithmetic). On this project's stack (Wine 8,
//! vkd3d 1.6; lavapipe and the H200 alike) DirectML rejects a float32 element-wise op over two
//! tensors of one shape (`DmlGraphFusionHelper.cpp(588)` at session creation,
//! `MLOperatorAuthorImpl.cpp(2508)` inside a subgraph), while a broadcast one, float16, and this
//! form run, the last bit for bit. `Div` has no reduction and its product by the reciprocal
//! would not be the same numbers: its numerator is stacked twice, so that the division is a
//! broadcast one, which runs, and the first of the two quotients is taken (`Gather`): twice the
//! divisions, the same numbers. (`Pow` of one shape runs here as it is.) `HardSwish` is rejected
//! here the same way (it is `x` times `HardSigmoid(x)`, two tensors of one shape, as ONNX
//! defines it): it is written as that `HardSigmoid` and the two stacked and multiplied, and a
//! float32 `HardSigmoid` runs. Operands of two ranks whose broadcast stretches no dimension (a
//! `[1, 1, 512]` times a `[512]`: a LayerNorm's scale after a global pool) are of one shape as
//! this stack sees them, and rejected likewise: the lower is given the leading ones first.

use anyhow::Result;
use prost::Message;

use super::rule::{Rule, Scope};
use super::{float_attribute, int_attribute, Built, Dim, FLOAT, INT64};
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::lossless::EditNode;
use crate::formats::onnx_proto::InitializerName;

pub struct BinaryAsReduce;

const OPS: [&str; 6] = ["Add", "Sub", "Mul", "Max", "Min", "Div"];
/// `x * HardSigmoid(x)` with these, as ONNX's definition of HardSwish writes it.
const HARD_SWISH: &str = "HardSwish";
const HARD_SWISH_ALPHA: f32 = 1.0 / 6.0;
const HARD_SWISH_BETA: f32 = 0.5;

impl Rule for BinaryAsReduce {
    fn flag(&self) -> &'static str {
        "binary-as-reduce"
    }

    fn help(&self) -> &'static str {
        "Write every float32 Add, Sub, Mul, Max and Min of two tensors of one declared shape (the \
         lower rank read with the leading ones broadcasting gives it) as the two stacked on a new \
         axis (Unsqueeze, Concat) and reduced over it (ReduceSum; \
         ReduceProd, ReduceMax, ReduceMin; the second negated for Sub), every such Div with its \
         numerator stacked twice (a broadcast division) and the first quotient taken, and every \
         float32 HardSwish as x and HardSigmoid(x) stacked and multiplied, before the session.\n\n\
         Each op's numbers are the same, bit for bit. Under Wine's vkd3d (this project's CI and \
         GPU machines) DirectML rejects a float32 element-wise op over two tensors of one shape \
         (DmlGraphFusionHelper.cpp(588) E_INVALIDARG at session creation); a broadcast one, \
         float16 and this form run. Shapes come from the model's value infos and, where it \
         declares fewer, from ONNX Runtime's inference at the run's dimensions (a CPU session \
         opened first); an op whose operands' shapes neither gives is left as it is. It runs after \
         the other rewrites asked for, over what they wrote. Checked against the original as \
         --decompose is.\n\n\
         Example: dmlrun bert.onnx --device 0 --reshape-allowzero-off --binary-as-reduce"
    }

    fn op_type(&self) -> &'static str {
        "Add"
    }

    fn what_it_fits(&self) -> &'static str {
        "Add, Sub, Mul, Max, Min, Div or HardSwish"
    }

    fn fits(&self, node: &NodeOutline, _graph: &[NodeOutline]) -> bool {
        let operands = match node.op_type.as_str() {
            HARD_SWISH => 1,
            op if OPS.contains(&op) => 2,
            _ => return false,
        };
        matches!(node.domain.as_str(), "" | "ai.onnx") && node.inputs.len() == operands
    }

    fn reads_shapes(&self) -> bool {
        true
    }

    /// Only where both operands are float32 of one shape the model declares, every dimension
    /// a size or a name, the lower rank read with the leading ones broadcasting gives it (an op
    /// that stretches a dimension runs as it is).
    fn rewrites_in(&self, node: &EditNode, graph: &Scope<'_>) -> bool {
        if node.op_type.as_deref() == Some(HARD_SWISH) {
            // x and its HardSigmoid are of one shape whatever it is; float32 is what must be known.
            return node.input.first().is_some_and(|x| declared(graph, x).is_some());
        }
        let [a, b] = node.input.as_slice() else { return false };
        match (declared(graph, a), declared(graph, b)) {
            (Some(a), Some(b)) => {
                let rank = a.len().max(b.len());
                let a = with_leading_ones(a, rank);
                a == with_leading_ones(b, rank) && !a.contains(&Dim::Unknown)
            }
            _ => false,
        }
    }

    fn nothing_rewritten(&self, ops: &std::collections::HashSet<String>) -> String {
        match OPS.iter().chain([&HARD_SWISH]).any(|op| ops.contains(*op)) {
            true => "no Add, Sub, Mul, Max, Min or Div of the model is of two float32 tensors of one declared shape, and no HardSwish of a float32 one".into(),
            false => "the model has no Add, Sub, Mul, Max, Min, Div or HardSwish".into(),
        }
    }

    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, graph: &Scope<'_>) -> Result<()> {
        let op = node.op_type.as_deref().unwrap_or_default();
        let ranks: Vec<usize> = node.input.iter().map(|x| rank_of(graph, x)).collect();
        let rank = ranks.iter().copied().max().unwrap_or(0);
        let a = at_rank(built, &node.input[0], ranks[0], rank);
        let a = a.as_str();
        if op == "Div" {
            let once = built.unsqueeze(a, 0);
            let twice = built.op("Concat", &[&once, &once], None, vec![int_attribute("axis", 0)]);
            let quotients = built.op("Div", &[&twice, &node.input[1]], None, vec![]);
            let first = built.constant(INT64, &[], 0i64.to_le_bytes().to_vec());
            built.op("Gather", &[&quotients, &first], Some(&node.output[0]), vec![int_attribute("axis", 0)]);
            return Ok(());
        }
        let b = match op {
            HARD_SWISH => {
                let attributes =
                    vec![float_attribute("alpha", HARD_SWISH_ALPHA), float_attribute("beta", HARD_SWISH_BETA)];
                built.op("HardSigmoid", &[a], None, attributes)
            }
            "Sub" => {
                let b = at_rank(built, &node.input[1], ranks[1], rank);
                built.op("Neg", &[&b], None, vec![])
            }
            _ => at_rank(built, &node.input[1], ranks[1], rank),
        };
        let stacked = [built.unsqueeze(a, 0), built.unsqueeze(&b, 0)];
        let stacked: Vec<&str> = stacked.iter().map(String::as_str).collect();
        let both = built.op("Concat", &stacked, None, vec![int_attribute("axis", 0)]);
        let reduce = match op {
            "Mul" | HARD_SWISH => "ReduceProd",
            "Max" => "ReduceMax",
            "Min" => "ReduceMin",
            _ => "ReduceSum",
        };
        built.reduce(reduce, &both, &[0], false, Some(&node.output[0]));
        Ok(())
    }
}

fn with_leading_ones(mut dims: Vec<Dim>, rank: usize) -> Vec<Dim> {
    let missing = rank.saturating_sub(dims.len());
    dims.splice(0..0, std::iter::repeat_n(Dim::Size(1), missing));
    dims
}

fn rank_of(graph: &Scope<'_>, name: &str) -> usize {
    declared(graph, name).map_or(0, |dims| dims.len())
}

/// `name`, of `own` dimensions, as a tensor of `rank`: leading axes of one where it has fewer, so
/// that two operands of one shape stack on a new first axis.
fn at_rank(built: &mut Built<'_, '_>, name: &str, own: usize, rank: usize) -> String {
    match rank.saturating_sub(own) {
        0 => name.to_string(),
        missing => built.unsqueeze_axes(name, &(0..missing as i64).collect::<Vec<_>>()),
    }
}

/// The shape `name` is declared with where it is float32: a value info, a graph input or output,
/// or an initializer's dimensions.
fn declared(graph: &Scope<'_>, name: &str) -> Option<Vec<Dim>> {
    if let Some(d) = graph.declared.get(name) {
        return (d.elem_type == FLOAT).then(|| d.dims.clone());
    }
    let tensor = graph
        .initializer
        .iter()
        .filter_map(|raw| InitializerName::decode(raw.as_slice()).ok())
        .find(|t| t.name.as_deref() == Some(name))?;
    (tensor.data_type == Some(FLOAT)).then(|| tensor.dims.iter().map(|&d| Dim::Size(d)).collect())
}
