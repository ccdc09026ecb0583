//! `--dequantize-gather`: a `GatherBlockQuantized` (`com.microsoft`) whose table is a constant
//! becomes a plain `Gather` over that table dequantized, in its scales' type. The model builder
//! quantizes a decoder's embedding this way (`-p int4`), and ONNX Runtime's DirectML has no
//! kernel for it: the node runs on the CPU, which refuses the decode graph capture and makes every
//! token 30-40 times slower on DirectML. The table is computed as ONNX Runtime's CPU kernel
//! computes each row it gathers, `(q - zero_point) * scale` in float32 then rounded to the scales'
//! type, so the Gather gives the same values bit for bit; it costs the table's size in the scales'
//! type (four times the int4 table's for float16).

use anyhow::{bail, Context, Result};
use half::f16;
use prost::Message;

use super::rule::{Rule, Scope};
use super::{initializer, int_attribute, int_of, Built};
use crate::formats::model::NodeOutline;
use crate::formats::onnx_proto::lossless::{EditNode, EditTensor};

/// TensorProto.DataType values it reads.
const UINT8: i32 = 2;
const FLOAT: i32 = 1;
const FLOAT16: i32 = 10;
const UINT4: i32 = 21;
const INT4: i32 = 22;

pub struct GatherDequantized;

impl Rule for GatherDequantized {
    fn flag(&self) -> &'static str {
        "dequantize-gather"
    }

    fn help(&self) -> &'static str {
        "Write every GatherBlockQuantized whose table is a constant as a Gather over the table \
         dequantized (to its scales' type), before the session.\n\n\
         The model builder's int4 decoders (-p int4) quantize the embedding into \
         GatherBlockQuantized, which DirectML has no kernel for: ONNX Runtime runs it on the CPU, \
         the decode graph capture is refused, and each token takes 30-40 times as long. The \
         dequantized table gives the same values bit for bit (computed as the CPU kernel computes \
         them) and costs its size in float16 (four times the int4 table's). Checked against the \
         original as --decompose is.\n\n\
         Example: dmlrun generate qwen-int4-dml/ --device 0 --dequantize-gather"
    }

    fn op_type(&self) -> &'static str {
        "GatherBlockQuantized"
    }

    fn what_it_fits(&self) -> &'static str {
        "GatherBlockQuantized node"
    }

    fn fits(&self, node: &NodeOutline, _graph: &[NodeOutline]) -> bool {
        node.op_type == "GatherBlockQuantized"
    }

    /// The table, its scales and zero points must be constants of the node's graph (the table may
    /// be a constant reshaped, as the builder's tied embedding reads the lm_head's weight).
    fn rewrites_in(&self, node: &EditNode, graph: &Scope<'_>) -> bool {
        let constant = |i: usize| node.input.get(i).is_some_and(|name| super::is_initializer(graph, name));
        let zero_points = node.input.get(3).is_none_or(|name| name.is_empty()) || constant(3);
        let table = constant(0) || node.input.first().is_some_and(|name| reshaped_constant(graph, name).is_some());
        table && constant(2) && zero_points
    }

    fn nothing_rewritten(&self, ops: &std::collections::HashSet<String>) -> String {
        match ops.contains("GatherBlockQuantized") {
            true => "no GatherBlockQuantized of the model has a constant table, scales and zero points".into(),
            false => "the model has no GatherBlockQuantized node".into(),
        }
    }

    fn apply(&self, built: &mut Built<'_, '_>, node: &EditNode, graph: &Scope<'_>) -> Result<()> {
        let tensor = |i: usize| -> Result<Option<EditTensor>> {
            match node.input.get(i).filter(|n| !n.is_empty()) {
                None => Ok(None),
                Some(name) => initializer(graph, name).map(Some).with_context(|| format!("its input '{name}'")),
            }
        };
        let table = node.input.first().context("no table")?;
        let data = match super::is_initializer(graph, table) {
            true => initializer(graph, table)?,
            false => reshaped_constant(graph, table).with_context(|| format!("its table '{table}'"))??,
        };
        let scales = tensor(2)?.context("no scales")?;
        let zero_points = tensor(3)?;
        let quantized = Quantized {
            gather_axis: int_of(node, "gather_axis").unwrap_or(0),
            quantize_axis: int_of(node, "quantize_axis").unwrap_or(1),
            block_size: int_of(node, "block_size").unwrap_or(128),
            bits: int_of(node, "bits").unwrap_or(4),
        };
        let (data_type, dims, raw) = quantized.dequantize(&data, &scales, zero_points.as_ref())?;
        let table = built.constant(data_type, &dims, raw);
        let indices = node.input.get(1).context("no indices")?;
        let output = node.output.first().context("no output")?;
        let axis = quantized.gather_axis;
        built.op("Gather", &[&table, indices], Some(output), vec![int_attribute("axis", axis)]);
        Ok(())
    }
}

/// The tensor `name` where a `Reshape` of its graph makes it from an initializer and a constant
/// shape: the initializer with the shape's dimensions (a reshape moves no byte). `None` where
/// `name` is not made so.
fn reshaped_constant(graph: &Scope<'_>, name: &str) -> Option<Result<EditTensor>> {
    let reshape = graph
        .node
        .iter()
        .filter_map(|raw| EditNode::decode(raw.as_slice()).ok())
        .find(|n| n.op_type.as_deref() == Some("Reshape") && n.output.first().is_some_and(|o| o == name))?;
    let (source, shape) = (reshape.input.first()?, reshape.input.get(1)?);
    if !super::is_initializer(graph, source) {
        return None;
    }
    let shape = super::constant_ints(graph, shape)?;
    Some(initializer(graph, source).and_then(|mut tensor| {
        let count = tensor
            .dims
            .iter()
            .try_fold(1i64, |n, d| n.checked_mul(*d).filter(|_| *d >= 0))
            .context("the reshaped constant's dimensions")?;
        let mut dims: Vec<i64> = shape
            .iter()
            .enumerate()
            .map(|(i, d)| if *d == 0 { tensor.dims.get(i).copied().unwrap_or(0) } else { *d })
            .collect();
        if let Some(at) = dims.iter().position(|d| *d == -1) {
            let known = dims
                .iter()
                .filter(|d| **d != -1)
                .try_fold(1i64, |n, d| n.checked_mul(*d))
                .context("the Reshape's shape")?;
            dims[at] = if known == 0 { 0 } else { count / known };
        }
        if dims.iter().try_fold(1i64, |n, d| n.checked_mul(*d).filter(|_| *d >= 0)) != Some(count) {
            bail!("the Reshape to {shape:?} does not keep its {count} elements");
        }
        tensor.dims = dims;
        Ok(tensor)
    }))
}

/// A GatherBlockQuantized's attributes.
struct Quantized {
    gather_axis: i64,
    quantize_axis: i64,
    block_size: i64,
    bits: i64,
}

impl Quantized {
    /// The whole table dequantized: its element type (the scales'), its dimensions and its bytes.
    fn dequantize(
        &self,
        data: &EditTensor,
        scales: &EditTensor,
        zero_points: Option<&EditTensor>,
    ) -> Result<(i32, Vec<i64>, Vec<u8>)> {
        let rank = data.dims.len() as i64;
        let axis = |a: i64| if a < 0 { a + rank } else { a };
        let (gather_axis, quantize_axis) = (axis(self.gather_axis), axis(self.quantize_axis));
        let data_type = data.data_type.unwrap_or(0);
        let element = match data_type {
            UINT8 => {
                if !matches!(self.bits, 2 | 4 | 8) {
                    bail!("bits {} (uint8 data holds 2, 4 or 8)", self.bits);
                }
                if gather_axis != 0 || quantize_axis != rank - 1 {
                    bail!("uint8 data gathered on axis {gather_axis} and quantized on {quantize_axis} (ONNX Runtime takes 0 and the last)");
                }
                Element::Packed { bits: self.bits as u32 }
            }
            UINT4 => Element::Int4 { signed: false },
            INT4 => Element::Int4 { signed: true },
            other => bail!("its table's element type {other} (uint8, uint4 or int4 are read)"),
        };
        let scale_type = scales.data_type.unwrap_or(0);
        if !matches!(scale_type, FLOAT | FLOAT16) {
            bail!("its scales' element type {scale_type} (float or float16 are read)");
        }
        if !(0..rank).contains(&quantize_axis) || !(0..rank).contains(&gather_axis) || self.block_size <= 0 {
            bail!("its axes or block size are out of range");
        }
        let components = element.per_byte_of_uint8();
        let mut dims = data.dims.clone();
        let quantized_dim = &mut dims[quantize_axis as usize];
        *quantized_dim = quantized_dim.checked_mul(components as i64).context("the table's dimensions")?;
        let count: usize = dims
            .iter()
            .try_fold(1i64, |n, d| n.checked_mul(*d).filter(|_| *d >= 0))
            .and_then(|n| usize::try_from(n).ok())
            .context("the table's dimensions")?;
        let quantize_dim = dims[quantize_axis as usize];
        let quantize_n: i64 = dims[quantize_axis as usize + 1..].iter().product();
        let blocks = (quantize_dim + self.block_size - 1) / self.block_size;
        let scale_full_block = blocks * quantize_n;
        let data_raw = &stored_bytes(data).context("its table's data")?;
        let scales_raw = &stored_bytes(scales).context("its scales' data")?;
        let zero_raw = zero_points.map(|z| stored_bytes(z).context("its zero points' data")).transpose()?;
        let zero_raw = zero_raw.as_deref();
        let scale_count = scales_raw.len() / if scale_type == FLOAT { 4 } else { 2 };
        let scales_needed = (count as i64 / quantize_dim.max(1)) * blocks;
        if data_raw.len() * 8 < count * element.bits() as usize || (scale_count as i64) < scales_needed {
            bail!("its table or scales hold fewer bytes than their dimensions say");
        }
        let scale = |i: usize| -> f32 {
            match scale_type {
                FLOAT => f32::from_le_bytes(scales_raw[4 * i..4 * i + 4].try_into().unwrap_or_default()),
                _ => f16::from_le_bytes([scales_raw[2 * i], scales_raw[2 * i + 1]]).to_f32(),
            }
        };
        let quantize_full_block = quantize_dim * quantize_n;
        let mut out = Vec::with_capacity(count * if scale_type == FLOAT { 4 } else { 2 });
        for i in 0..count as i64 {
            let x = i / quantize_full_block;
            let y = i % quantize_full_block / quantize_n;
            let z = i % quantize_n;
            let scale_index = (x * scale_full_block + y / self.block_size * quantize_n + z) as usize;
            let q = element.read(data_raw, i as usize);
            let zero = element.zero_point(zero_raw, scale_index, scale_full_block as usize)?;
            let value = (q - zero) as f32 * scale(scale_index);
            match scale_type {
                FLOAT => out.extend_from_slice(&value.to_le_bytes()),
                _ => out.extend_from_slice(&f16::from_f32(value).to_le_bytes()),
            }
        }
        Ok((scale_type, dims, out))
    }
}

/// How the table's elements are stored.
#[derive(Clone, Copy)]
enum Element {
    /// uint8 bytes of `bits`-wide unsigned values, the lowest bits first.
    Packed { bits: u32 },
    /// ONNX's 4-bit types: two a byte, the low nibble first.
    Int4 { signed: bool },
}

impl Element {
    fn bits(self) -> u32 {
        match self {
            Element::Packed { bits } => bits,
            Element::Int4 { .. } => 4,
        }
    }

    /// How many values one uint8 of the table's shape holds (the shape counts bytes for uint8).
    fn per_byte_of_uint8(self) -> u32 {
        match self {
            Element::Packed { bits } => 8 / bits,
            Element::Int4 { .. } => 1,
        }
    }

    fn read(self, raw: &[u8], index: usize) -> i32 {
        match self {
            Element::Packed { bits: 8 } => raw[index] as i32,
            Element::Packed { bits } => {
                let per_byte = (8 / bits) as usize;
                let shift = (index % per_byte) as u32 * bits;
                ((raw[index / per_byte] >> shift) & ((1u8 << bits) - 1)) as i32
            }
            Element::Int4 { signed } => nibble(raw, index, signed),
        }
    }

    /// The zero point of the block at `scale_index`; without zero points, uint8 data's is the
    /// middle of its range and 4-bit types' is 0, as ONNX Runtime's kernel has them.
    fn zero_point(self, raw: Option<&[u8]>, scale_index: usize, per_row: usize) -> Result<i32> {
        let Some(raw) = raw else {
            return Ok(match self {
                Element::Packed { bits } => 1 << (bits - 1),
                Element::Int4 { .. } => 0,
            });
        };
        let value = match self {
            Element::Packed { bits: 8 } => raw.get(scale_index).map(|b| *b as i32),
            Element::Packed { bits } => {
                // Each row of zero points is packed on its own, rounded up to whole bytes.
                let per_byte = (8 / bits) as usize;
                let (row, within) = (scale_index / per_row, scale_index % per_row);
                let byte = row * per_row.div_ceil(per_byte) + within / per_byte;
                let shift = (within % per_byte) as u32 * bits;
                raw.get(byte).map(|b| ((b >> shift) & ((1u8 << bits) - 1)) as i32)
            }
            Element::Int4 { signed } => (scale_index / 2 < raw.len()).then(|| nibble(raw, scale_index, signed)),
        };
        value.context("its zero points hold fewer bytes than its scales need")
    }
}

/// A tensor's bytes as they lie in memory: its raw data, or its typed field (float_data for
/// float; int32_data a byte each for the 8- and 4-bit types, 16 bits each for float16).
pub(super) fn stored_bytes(tensor: &EditTensor) -> Result<Vec<u8>> {
    if let Some(raw) = &tensor.raw_data {
        return Ok(raw.clone());
    }
    match tensor.data_type.unwrap_or(0) {
        FLOAT => Ok(tensor.float_data.iter().flat_map(|v| v.to_le_bytes()).collect()),
        FLOAT16 => Ok(tensor.int32_data.iter().flat_map(|v| (*v as u16).to_le_bytes()).collect()),
        UINT8 | UINT4 | INT4 => Ok(tensor.int32_data.iter().map(|v| *v as u8).collect()),
        other => bail!("element type {other} stored outside raw_data"),
    }
}

fn nibble(raw: &[u8], index: usize, signed: bool) -> i32 {
    let byte = raw[index / 2];
    let value = if index % 2 == 1 { byte >> 4 } else { byte & 0x0F };
    match signed && value >= 8 {
        true => value as i32 - 16,
        false => value as i32,
    }
}
