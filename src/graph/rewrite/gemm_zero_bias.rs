//! `--gemm-zero-bias`: a `Gemm` without its optional bias gets an explicit zero one of its
//! output's width and its weight's type. ONNX Runtime's DirectML fuses `Gemm` with a following
//! activation into a `DmlFusedGemm` that demands three inputs, and rejects its own fusion when the
//! bias is absent (what torch's exporter writes for a pooler).

use anyhow::{bail, Context, Result};
use prost::Message;

use super::{int_of, Built, FLOAT};
use crate::formats::onnx_proto::lossless::{EditNode, EditTensor, RawGraph};

impl Built<'_, '_> {
    /// `Gemm(A, B)` as `Gemm(A, B, zeros(N))`, N being B's output width, the zeros B's type.
    pub(super) fn gemm_zero_bias(&mut self, node: &EditNode, graph: &RawGraph) -> Result<()> {
        let b = node.input.get(1).context("a Gemm with no B")?;
        let weight = graph
            .initializer
            .iter()
            .filter_map(|raw| EditTensor::decode(raw.as_slice()).ok())
            .find(|t| t.name.as_deref() == Some(b.as_str()))
            .with_context(|| {
                format!("its weight '{b}' is not an initializer of its graph, so the bias's width is not known")
            })?;
        let trans_b = int_of(node, "transB").unwrap_or(0) != 0;
        let [rows, cols] = weight.dims[..] else {
            bail!("its weight '{b}' has {} dimensions, not 2", weight.dims.len());
        };
        let width = if trans_b { rows } else { cols };
        let data_type = weight.data_type.unwrap_or(FLOAT);
        let bytes = element_bytes(data_type).with_context(|| format!("its weight's type ({data_type})"))?;
        let zeros = self.constant(data_type, &[width], vec![0; bytes * width.max(0) as usize]);
        let mut gemm = node.clone();
        gemm.input.truncate(2);
        gemm.input.push(zeros);
        self.nodes.push(gemm);
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
