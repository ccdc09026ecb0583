//! `--gemm-zero-bias`: a `Gemm` without its optional bias gets an explicit zero one of its
//! output's width and its weight's type. ONNX Runtime's DirectML fuses `Gemm` with a following
//! activation into a `DmlFusedGemm` that demands three inputs, and rejects its own fusion when the
//! bias is absent (what torch's exporter writes for a pooler).

use anyhow::{bail, Context, Result};

use super::rule::{Rule, Scope};
use super::{Built, FLOAT};
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::lossless::EditNode;

pub struct GemmZeroBias;

impl Rule for GemmZeroBias {
    fn flag(&self) -> &'static str {
        "gemm-zero-bias"
    }

    fn help(&self) -> &'static str {
        "Give every Gemm without its optional bias an explicit zero bias, of its output's width \
         and its weight's type, before the session.\n\n\
         ONNX Runtime's DirectML fuses a Gemm with the activation after it and then rejects its \
         own fused node when the bias is absent (\"DmlFusedGemm ... has input size 2 not in range \
         [min=3, max=3]\"), which torch's exporter writes for a BERT pooler. Checked against the \
         original as --decompose is.\n\n\
         Example: dmlrun bert.onnx --device 0 --gemm-zero-bias"
    }

    fn op_type(&self) -> &'static str {
        "Gemm"
    }

    fn what_it_fits(&self) -> &'static str {
        "Gemm without a bias"
    }

    fn fits(&self, node: &NodeOutline, _graph: &[NodeOutline]) -> bool {
        node.op_type == "Gemm" && node.inputs.get(2).is_none_or(|c| c.is_empty())
    }

    fn nothing_rewritten(&self, ops: &std::collections::HashSet<String>) -> String {
        match ops.contains("Gemm") {
            true => "every Gemm of the model has its bias already".into(),
            false => "the model has no Gemm node".into(),
        }
    }

    /// `Gemm(A, B)` as `Gemm(A, B, zeros(N))`, N being B's output width, the zeros B's type.
    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, graph: &Scope<'_>) -> Result<()> {
        let b = node.input.get(1).context("a Gemm with no B")?;
        let weight = super::initializer(graph, b).map_err(|_| {
            anyhow::anyhow!("its weight '{b}' is not an initializer of its graph, so the bias's width is not known")
        })?;
        let trans_b = super::int_of(node, "transB").unwrap_or(0) != 0;
        let [rows, cols] = weight.dims[..] else {
            bail!("its weight '{b}' has {} dimensions, not 2", weight.dims.len());
        };
        let width = if trans_b { rows } else { cols };
        let data_type = weight.data_type.unwrap_or(FLOAT);
        let bytes = element_bytes(data_type).with_context(|| format!("its weight's type ({data_type})"))?;
        let zeros = built.constant(data_type, &[width], vec![0; bytes * width.max(0) as usize]);
        let mut gemm = node.clone();
        gemm.input.truncate(2);
        gemm.input.push(zeros);
        built.nodes.push(gemm);
        Ok(())
    }
}

fn element_bytes(data_type: i32) -> Option<usize> {
    match data_type {
        1 | 6 | 12 => Some(4),      // float, int32, uint32
        10 | 16 | 5 | 4 => Some(2), // float16, bfloat16, int16, uint16
        11 | 7 | 13 => Some(8),     // double, int64, uint64
        2 | 3 => Some(1),           // uint8, int8
        _ => None,
    }
}
