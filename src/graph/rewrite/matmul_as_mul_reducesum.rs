//! `--matmul-as-mul-reducesum`: a `MatMul` whose weight is a constant of two dimensions written as
//! a `Mul` of its input (a column, `Unsqueeze` on the last axis) by the weight and a `ReduceSum`
//! over K. The same numbers in another order of summation; on DirectML (this project's H200
//! under Wine) a product at one row ran 1.48x faster so at 896x896 and 2.03x at 896 <-> 4864 than
//! DirectML's own GEMM, and on CPUs it is slower. A speed rule: `dmlrun tune` tries it and keeps
//! it only where it is measured faster on the device at hand; `fix` never offers it.

use anyhow::{Context, Result};

use super::rule::{Purpose, Rule, Scope};
use super::Built;
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::lossless::EditNode;

pub struct MatMulAsMulReduceSum;

impl Rule for MatMulAsMulReduceSum {
    fn flag(&self) -> &'static str {
        "matmul-as-mul-reducesum"
    }

    fn help(&self) -> &'static str {
        "Write every MatMul whose weight is a constant of two dimensions [K, N] as a Mul of its \
         input, a column on the last axis, by the weight and a ReduceSum over K, before the \
         session.\n\n\
         The same product summed in another order: a row at a time (a decoder's step, a \
         classifier's head) DirectML's GEMM is slower on some devices than this form, and on \
         others faster; it costs M x K x N of memory for M rows. dmlrun tune tries it and keeps \
         it only where it is measured faster. Checked against the original as --decompose is.\n\n\
         Example: dmlrun decoder.onnx --device 0 --matmul-as-mul-reducesum"
    }

    fn op_type(&self) -> &'static str {
        "MatMul"
    }

    fn what_it_fits(&self) -> &'static str {
        "MatMul"
    }

    fn purpose(&self) -> Purpose {
        Purpose::Speed
    }

    /// Measured faster at one row, and wrong at 16 rows in float16 on the H200 (docs/gpu.md).
    fn for_one_row(&self) -> bool {
        true
    }

    fn fits(&self, node: &NodeOutline, _graph: &[NodeOutline]) -> bool {
        node.op_type == "MatMul" && matches!(node.domain.as_str(), "" | "ai.onnx") && node.inputs.len() == 2
    }

    /// The weight must be a constant of two dimensions.
    fn rewrites_in(&self, node: &EditNode, graph: &Scope<'_>) -> bool {
        node.input.get(1).and_then(|w| super::initializer(graph, w).ok()).is_some_and(|w| w.dims.len() == 2)
    }

    fn nothing_rewritten(&self, ops: &std::collections::HashSet<String>) -> String {
        match ops.contains("MatMul") {
            true => "no MatMul of the model has a constant weight of two dimensions".into(),
            false => "the model has no MatMul".into(),
        }
    }

    /// `MatMul(A, W)` as `ReduceSum(Mul(Unsqueeze(A, -1), W), -2, keepdims 0)`: [..., M, K, 1]
    /// times [K, N] is [..., M, K, N], summed over K.
    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, _graph: &Scope<'_>) -> Result<()> {
        let a = node.input.first().context("a MatMul with no A")?.clone();
        let w = node.input.get(1).context("a MatMul with no B")?.clone();
        let output = node.output.first().context("a MatMul with no output")?.clone();
        let column = built.unsqueeze(&a, -1);
        let product = built.op("Mul", &[&column, &w], None, vec![]);
        built.reduce("ReduceSum", &product, &[-2], false, Some(&output));
        Ok(())
    }
}
