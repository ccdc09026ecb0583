//! `--dequantize-matmulnbits`: a `com.microsoft` `MatMulNBits` whose weight, scales and zero points
//! are constants becomes a plain `MatMul` over the weight dequantized to its scales' type (float16
//! for the builder's DirectML models), with an `Add` of its bias where it has one. The remedy for
//! a MatMulNBits DirectML cannot take (its K not a whole number of blocks: the DirectML kernel
//! claims whole blocks only, and the node runs on the CPU) or computes wrong: DirectML's own
//! float16 GEMM instead. Each weight is dequantized as ONNX Runtime's CPU kernel dequantizes it,
//! `(q - zero_point) * scale` in float32, then rounded to the scales' type; it costs four times
//! the int4 weight's memory in float16, which the rewrite's summary says.

use anyhow::{bail, Context, Result};
use half::f16;

use super::gather_dequantized::stored_bytes;
use super::rule::{Rule, Scope};
use super::{initializer, int_of, Built};
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::lossless::{EditNode, EditTensor};

/// TensorProto.DataType values it reads.
const FLOAT: i32 = 1;
const UINT8: i32 = 2;
const FLOAT16: i32 = 10;

pub struct MatMulNBitsDequantized;

impl Rule for MatMulNBitsDequantized {
    fn flag(&self) -> &'static str {
        "dequantize-matmulnbits"
    }

    fn help(&self) -> &'static str {
        "Write every MatMulNBits whose weight, scales and zero points are constants as a MatMul \
         over the weight dequantized (to its scales' type, float16 for the builder's DirectML \
         models), before the session.\n\n\
         DirectML's MatMulNBits takes whole blocks only: one whose K is not a multiple of its \
         block size runs on the CPU. And a MatMulNBits DirectML computes wrong is computed by its \
         float16 GEMM instead. The weight is dequantized as ONNX Runtime's CPU kernel dequantizes \
         it and costs four times the int4 weight's memory in float16 (the rewrite's summary says \
         how much). A node with a g_idx is left alone. Checked against the original as \
         --decompose is.\n\n\
         Example: dmlrun decoder.onnx --device 0 --dequantize-matmulnbits"
    }

    fn op_type(&self) -> &'static str {
        "MatMulNBits"
    }

    fn what_it_fits(&self) -> &'static str {
        "MatMulNBits without a g_idx"
    }

    /// DirectML lowers a MatMulNBits to a dequantize and its GEMM: on the H200 under Wine a
    /// [1,896]x[896,896] int4 product took 38 us against float16's 30.6, so the dequantized form
    /// may be the faster one where memory allows.
    fn tried_by_tune(&self) -> bool {
        true
    }

    fn fits(&self, node: &NodeOutline, _graph: &[NodeOutline]) -> bool {
        node.op_type == "MatMulNBits" && node.inputs.get(4).is_none_or(|g_idx| g_idx.is_empty())
    }

    /// The weight, its scales and its zero points (where given) must be constants of its graph.
    fn rewrites_in(&self, node: &EditNode, graph: &Scope<'_>) -> bool {
        let constant = |i: usize| node.input.get(i).is_some_and(|name| super::is_initializer(graph, name));
        let zero_points = node.input.get(3).is_none_or(|name| name.is_empty()) || constant(3);
        constant(1) && constant(2) && zero_points
    }

    fn nothing_rewritten(&self, ops: &std::collections::HashSet<String>) -> String {
        match ops.contains("MatMulNBits") {
            true => "no MatMulNBits of the model has a constant weight, scales and zero points and no g_idx".into(),
            false => "the model has no MatMulNBits without a g_idx".into(),
        }
    }

    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, graph: &Scope<'_>) -> Result<()> {
        let tensor = |i: usize| -> Result<Option<EditTensor>> {
            match node.input.get(i).filter(|n| !n.is_empty()) {
                None => Ok(None),
                Some(name) => initializer(graph, name).map(Some).with_context(|| format!("its input '{name}'")),
            }
        };
        let blocked = Blocked {
            k: int_of(node, "K").context("no K")?,
            n: int_of(node, "N").context("no N")?,
            bits: int_of(node, "bits").unwrap_or(4),
            block_size: int_of(node, "block_size").context("no block_size")?,
        };
        let weight = tensor(1)?.context("no weight")?;
        let scales = tensor(2)?.context("no scales")?;
        let (data_type, raw) = blocked.dequantize(&weight, &scales, tensor(3)?.as_ref())?;
        let dequantized = built.constant(data_type, &[blocked.k, blocked.n], raw);
        let a = node.input.first().context("no input A")?;
        let output = node.output.first().context("no output")?;
        match node.input.get(5).filter(|b| !b.is_empty()) {
            None => _ = built.op("MatMul", &[a, &dequantized], Some(output), vec![]),
            Some(bias) => {
                let product = built.op("MatMul", &[a, &dequantized], None, vec![]);
                built.op("Add", &[&product, bias], Some(output), vec![]);
            }
        }
        Ok(())
    }
}

/// A MatMulNBits's attributes.
struct Blocked {
    k: i64,
    n: i64,
    bits: i64,
    block_size: i64,
}

impl Blocked {
    /// The weight as [K, N] in the scales' type: its element type and bytes.
    fn dequantize(
        &self,
        weight: &EditTensor,
        scales: &EditTensor,
        zero_points: Option<&EditTensor>,
    ) -> Result<(i32, Vec<u8>)> {
        if !matches!(self.bits, 2 | 4 | 8) || self.block_size < 16 || self.k <= 0 || self.n <= 0 {
            bail!(
                "bits {}, block_size {}, K {}, N {} (2, 4 or 8 bits, blocks of 16 or more)",
                self.bits,
                self.block_size,
                self.k,
                self.n
            );
        }
        let scale_type = scales.data_type.unwrap_or(0);
        if !matches!(scale_type, FLOAT | FLOAT16) {
            bail!("its scales' element type {scale_type} (float or float16 are read)");
        }
        if weight.data_type != Some(UINT8) {
            bail!("its weight's element type {:?} (uint8 is read)", weight.data_type);
        }
        let (k, n, bits) = (self.k as usize, self.n as usize, self.bits as usize);
        let blocks = k.div_ceil(self.block_size as usize);
        let blob = self.block_size as usize * bits / 8;
        let weight_raw = stored_bytes(weight).context("its weight's data")?;
        let scales_raw = stored_bytes(scales).context("its scales' data")?;
        let width = if scale_type == FLOAT { 4 } else { 2 };
        if weight_raw.len() < n * blocks * blob || scales_raw.len() < n * blocks * width {
            bail!("its weight or scales hold fewer bytes than K {k}, N {n} and block_size {} need", self.block_size);
        }
        let scale = |i: usize| -> f32 {
            match scale_type {
                FLOAT => f32::from_le_bytes(scales_raw[4 * i..4 * i + 4].try_into().unwrap_or_default()),
                _ => f16::from_le_bytes([scales_raw[2 * i], scales_raw[2 * i + 1]]).to_f32(),
            }
        };
        let zero = ZeroPoints::of(zero_points, bits, n, blocks)?;
        let mut values = vec![0f32; k * n];
        for column in 0..n {
            for row in 0..k {
                let (block, within) = (row / self.block_size as usize, row % self.block_size as usize);
                let at = (column * blocks + block) * blob * 8 + within * bits;
                let q = (weight_raw[at / 8] >> (at % 8)) & ((1u16 << bits) - 1) as u8;
                let index = column * blocks + block;
                values[row * n + column] = (q as f32 - zero.at(index)) * scale(index);
            }
        }
        let raw = match scale_type {
            FLOAT => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
            _ => values.iter().flat_map(|v| f16::from_f32(*v).to_le_bytes()).collect(),
        };
        Ok((scale_type, raw))
    }
}

/// A MatMulNBits's zero points: packed uint8 (`bits` each, every row of blocks rounded up to
/// whole bytes), or none (the middle of the range, `2^(bits-1)`).
enum ZeroPoints {
    Packed { raw: Vec<u8>, bits: usize, row_bytes: usize, blocks: usize },
    Middle(f32),
}

impl ZeroPoints {
    fn of(tensor: Option<&EditTensor>, bits: usize, n: usize, blocks: usize) -> Result<ZeroPoints> {
        let Some(tensor) = tensor else { return Ok(ZeroPoints::Middle((1u32 << (bits - 1)) as f32)) };
        let raw = stored_bytes(tensor).context("its zero points' data")?;
        match tensor.data_type.unwrap_or(0) {
            UINT8 => {
                let row_bytes = (blocks * bits).div_ceil(8);
                if raw.len() < n * row_bytes {
                    bail!("its zero points hold {} bytes, not {}", raw.len(), n * row_bytes);
                }
                Ok(ZeroPoints::Packed { raw, bits, row_bytes, blocks })
            }
            // Zero points of the scales' type (HQQ's) are not read: no model here to check them on.
            other => bail!("its zero points' element type {other} (uint8 is read)"),
        }
    }

    /// The zero point of block `index` (`column * blocks + block`).
    fn at(&self, index: usize) -> f32 {
        match self {
            ZeroPoints::Middle(value) => *value,
            ZeroPoints::Packed { raw, bits, row_bytes, blocks } => {
                let (row, block) = (index / blocks, index % blocks);
                let at = row * row_bytes * 8 + block * bits;
                ((raw[at / 8] >> (at % 8)) & ((1u16 << bits) - 1) as u8) as f32
            }
        }
    }
}
