//! One weight quantized block-wise for `MatMulNBits`, as ONNX Runtime's own quantizer writes it
//! (`quantize_matmul_4bits` / `quantize_matmul_8bits` in its Python package, MLAS's
//! `BlockwiseQuantizer<T, block, bits, columnwise>::quantizeAndTranspose`), byte for byte:
//!
//! - a block is `block_size` consecutive rows (K) of one column (N) of the `[K, N]` weight;
//! - symmetric: the block's value of largest magnitude, sign kept, maps to the end of the range
//!   (`scale = -max / 8` for 4 bits, `/ 128` for 8), the zero point the middle (8, 128);
//! - asymmetric: the range `[min(min, 0), max(max, 0)]` spread over 0..15 (0..255), the zero point
//!   `round(-min / scale)` clamped to it;
//! - the scale is rounded to the weight's type (float16 for a float16 weight) before it is used:
//!   `q = clamp(round(v * (1 / scale) + zero_point), 0, 15)`, rounding half away from zero, a zero
//!   scale giving `q = zero_point`;
//! - the quantized values column by column (`[N, blocks, block_size * bits / 8]`), two 4-bit
//!   values a byte, the earlier row in the low nibble; the rows past K of the last block zero;
//! - zero points (asymmetric only) `[N, ceil(blocks * bits / 8)]`, two a byte for 4 bits, a
//!   column's odd last block paired with the middle value (8).
//!
//! One quirk is kept, as byte-exactness asks: where K is odd, MLAS packs the last row's value
//! with the value its loop last computed in that 2-block stretch of the column (row K-2's), not
//! with zero; with no earlier row in the stretch, zero.

use half::f16;

/// How a weight is quantized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blockwise {
    /// 4 or 8.
    pub bits: u8,
    /// Rows of one column quantized together: 16, 32, 64, 128 or 256, as MLAS takes.
    pub block_size: usize,
    /// Zero points at the middle of the range, not stored.
    pub symmetric: bool,
}

/// The block sizes MLAS's quantizer takes (any other leaves its output untouched).
pub const BLOCK_SIZES: &[usize] = &[16, 32, 64, 128, 256];

/// A weight's element type, as it is read (little-endian bytes) and as its scales are stored.
pub trait Element: Copy + Send + Sync {
    const SIZE: usize;
    fn read(bytes: &[u8]) -> f32;
    /// The scale as the weight's type stores it (appended to `out`), and its value as used.
    fn store_scale(scale: f32, out: &mut Vec<u8>) -> f32;
}

impl Element for f32 {
    const SIZE: usize = 4;
    fn read(bytes: &[u8]) -> f32 {
        f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
    }
    fn store_scale(scale: f32, out: &mut Vec<u8>) -> f32 {
        out.extend_from_slice(&scale.to_le_bytes());
        scale
    }
}

impl Element for f16 {
    const SIZE: usize = 2;
    fn read(bytes: &[u8]) -> f32 {
        f16::from_le_bytes([bytes[0], bytes[1]]).to_f32()
    }
    fn store_scale(scale: f32, out: &mut Vec<u8>) -> f32 {
        let stored = f16::from_f32(scale);
        out.extend_from_slice(&stored.to_le_bytes());
        stored.to_f32()
    }
}

/// A quantized weight: `MatMulNBits`'s inputs B, scales and (asymmetric) zero points, as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quantized {
    /// `[N, blocks, blob]` uint8.
    pub packed: Vec<u8>,
    /// `[N, blocks]` in the weight's type, little-endian.
    pub scales: Vec<u8>,
    /// `[N, zero_point_bytes]` uint8; `None` when symmetric.
    pub zero_points: Option<Vec<u8>>,
    pub blocks: usize,
    /// Bytes of one block's values.
    pub blob: usize,
    /// Bytes of one column's zero points.
    pub zero_point_bytes: usize,
}

/// The sizes of one weight's quantized form.
#[derive(Clone, Copy)]
struct Layout {
    k: usize,
    n: usize,
    blocks: usize,
    per_byte: usize,
    column_bytes: usize,
    zero_point_bytes: usize,
}

impl Blockwise {
    fn max_q(self) -> f32 {
        ((1u32 << self.bits) - 1) as f32
    }

    fn mid(self) -> u8 {
        (1u32 << (self.bits - 1)) as u8
    }

    /// Quantizes `weight`, a row-major `[k, n]` matrix of `T` as little-endian bytes. Columns are
    /// quantized apart, so they are shared out among the machine's cores.
    pub fn quantize<T: Element>(self, weight: &[u8], k: usize, n: usize) -> Quantized {
        assert_eq!(weight.len(), k * n * T::SIZE, "a [K, N] weight");
        assert!(matches!(self.bits, 4 | 8) && BLOCK_SIZES.contains(&self.block_size));
        let blocks = k.div_ceil(self.block_size);
        let per_byte = 8 / self.bits as usize;
        let layout = Layout {
            k,
            n,
            blocks,
            per_byte,
            column_bytes: blocks * (self.block_size / per_byte),
            zero_point_bytes: blocks.div_ceil(per_byte),
        };
        let mut packed = vec![0u8; n * layout.column_bytes];
        let mut zeros = vec![self.mid(); n * blocks];
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(n.max(1));
        let per_thread = n.div_ceil(threads.max(1)).max(1);
        let scales: Vec<Vec<u8>> = std::thread::scope(|scope| {
            let mut handles = Vec::new();
            let chunks = packed.chunks_mut(per_thread * layout.column_bytes).zip(zeros.chunks_mut(per_thread * blocks));
            for (index, (packed, zeros)) in chunks.enumerate() {
                let first = index * per_thread;
                handles.push(scope.spawn(move || self.columns::<T>(weight, layout, first, packed, zeros)));
            }
            handles.into_iter().map(|h| h.join().expect("a quantizing thread")).collect()
        });
        let zero_points = (!self.symmetric).then(|| self.pack_zero_points(&zeros, layout));
        Quantized {
            packed,
            scales: scales.concat(),
            zero_points,
            blocks,
            blob: self.block_size / per_byte,
            zero_point_bytes: layout.zero_point_bytes,
        }
    }

    /// Columns `first..` (as many as `packed` holds) quantized into `packed` and `zeros`;
    /// returns their scales, column by column.
    fn columns<T: Element>(
        self,
        weight: &[u8],
        layout: Layout,
        first: usize,
        packed: &mut [u8],
        zeros: &mut [u8],
    ) -> Vec<u8> {
        let Layout { k, n, blocks, per_byte, column_bytes, .. } = layout;
        let width = packed.len() / column_bytes;
        let mut scale_of = vec![Vec::with_capacity(blocks * T::SIZE); width];
        let (mut low, mut high) = (vec![0f32; width], vec![0f32; width]);
        let (mut reciprocal, mut zero) = (vec![0f32; width], vec![0f32; width]);
        let row = |i: usize| &weight[(i * n + first) * T::SIZE..(i * n + first + width) * T::SIZE];
        for block in 0..blocks {
            let rows = block * self.block_size..((block + 1) * self.block_size).min(k);
            low.fill(f32::MAX);
            high.fill(-f32::MAX);
            for i in rows.clone() {
                for (j, v) in row(i).chunks_exact(T::SIZE).enumerate() {
                    let v = T::read(v);
                    if v < low[j] {
                        low[j] = v;
                    }
                    if v > high[j] {
                        high[j] = v;
                    }
                }
            }
            for j in 0..width {
                let (scale, z) = self.scale_and_zero(low[j], high[j]);
                let scale = T::store_scale(scale, &mut scale_of[j]);
                if let Some(z) = z {
                    zeros[j * blocks + block] = z;
                }
                reciprocal[j] = if scale != 0.0 { 1.0 / scale } else { 0.0 };
                zero[j] = zeros[j * blocks + block] as f32;
            }
            for i in rows {
                for (j, v) in row(i).chunks_exact(T::SIZE).enumerate() {
                    let q = (T::read(v) * reciprocal[j] + zero[j]).round().clamp(0.0, self.max_q()) as u8;
                    let at = j * column_bytes + i / per_byte;
                    match self.bits {
                        8 => packed[at] = q,
                        _ => packed[at] |= q << (4 * (i % 2)),
                    }
                }
            }
        }
        if self.bits == 4 && k % 2 == 1 && (k - 1) % (2 * self.block_size) != 0 {
            // MLAS's leftover nibble (see the module's text): row K-2's value.
            for j in 0..width {
                let previous = packed[j * column_bytes + (k - 2) / 2] >> 4;
                packed[j * column_bytes + (k - 1) / 2] |= previous << 4;
            }
        }
        scale_of.concat()
    }

    /// Zero points column by column, two a byte for 4 bits (a column's odd last block paired
    /// with the middle value).
    fn pack_zero_points(self, zeros: &[u8], layout: Layout) -> Vec<u8> {
        let Layout { n, blocks, per_byte, zero_point_bytes, .. } = layout;
        let mut out = vec![0u8; n * zero_point_bytes];
        for j in 0..n {
            for block in 0..blocks {
                let at = j * zero_point_bytes + block / per_byte;
                match self.bits {
                    8 => out[at] = zeros[j * blocks + block],
                    _ => out[at] |= zeros[j * blocks + block] << (4 * (block % 2)),
                }
            }
            if self.bits == 4 && blocks % 2 == 1 {
                out[j * zero_point_bytes + blocks / 2] |= self.mid() << 4;
            }
        }
        out
    }

    /// A block's scale (before it is rounded to the weight's type) and, asymmetric, its zero
    /// point, from its smallest and largest values: MLAS's `range2scale` and `range2scalezp`.
    fn scale_and_zero(self, low: f32, high: f32) -> (f32, Option<u8>) {
        if self.symmetric {
            let largest = if high.abs() > low.abs() { high } else { low };
            return (-largest / self.mid() as f32, None);
        }
        let (low, high) = (low.min(0.0), high.max(0.0));
        let scale = (high - low) / self.max_q();
        let zero = if scale != 0.0 { 0.0 - low / scale } else { low };
        let zero = if zero < 0.0 {
            0
        } else if zero > self.max_q() {
            self.max_q() as u8
        } else {
            zero.round() as u8
        };
        (scale, Some(zero))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYMMETRIC_4: Blockwise = Blockwise { bits: 4, block_size: 16, symmetric: true };

    fn f32s(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn the_largest_magnitude_maps_to_the_end_of_the_range_and_back() {
        // One column, one block: 16 rows, the largest magnitude 2.0 (positive) maps to 0 (-8).
        let w: Vec<f32> = (0..16).map(|i| (i as f32 - 7.0) / 4.0).collect();
        let q = SYMMETRIC_4.quantize::<f32>(&f32s(&w), 16, 1);
        let scale = f32::from_le_bytes(q.scales[..4].try_into().unwrap());
        assert_eq!(scale, -0.25);
        let values: Vec<u8> = q.packed.iter().flat_map(|b| [b & 15, b >> 4]).collect();
        assert_eq!(values[15], 0, "2.0 / -0.25 + 8");
        for (v, q) in w.iter().zip(&values) {
            assert!((((*q as f32) - 8.0) * scale - v).abs() <= 0.125 + 1e-6, "{v} came back as {q}");
        }
        assert_eq!(q.zero_points, None);
    }

    #[test]
    fn an_all_zero_block_has_a_negative_zero_scale_and_the_middle_value() {
        let q = SYMMETRIC_4.quantize::<f32>(&f32s(&[0f32; 16]), 16, 1);
        assert_eq!(q.scales, (-0.0f32).to_le_bytes());
        assert!(q.packed.iter().all(|&b| b == 0x88));
        let asymmetric = Blockwise { symmetric: false, ..SYMMETRIC_4 }.quantize::<f32>(&f32s(&[0f32; 16]), 16, 1);
        assert_eq!(asymmetric.scales, 0f32.to_le_bytes());
        assert_eq!(asymmetric.zero_points, Some(vec![0x80]), "zero, and the odd block's pair the middle");
    }

    #[test]
    fn a_float16_weight_uses_its_scale_rounded_to_float16() {
        let w: Vec<f16> = (0..16).map(|i| f16::from_f32(0.1 * i as f32 - 0.7)).collect();
        let bytes: Vec<u8> = w.iter().flat_map(|v| v.to_le_bytes()).collect();
        let q = SYMMETRIC_4.quantize::<f16>(&bytes, 16, 1);
        assert_eq!(q.scales.len(), 2);
        let stored = f16::from_le_bytes([q.scales[0], q.scales[1]]).to_f32();
        // The largest magnitude is the last value, 0.8 as float16 holds it.
        assert_eq!(stored, f16::from_f32(-w[15].to_f32() / 8.0).to_f32());
    }

    #[test]
    fn a_partial_last_block_pads_with_zero_and_an_odd_k_keeps_mlas_leftover_nibble() {
        // K = 19 (one block of 16, one of 3), N = 2: the last value (row 18) shares its byte
        // with row 17's value, as MLAS packs it.
        let w: Vec<f32> = (0..38).map(|i| ((i * 7 % 11) as f32) - 5.0).collect();
        let q = SYMMETRIC_4.quantize::<f32>(&f32s(&w), 19, 2);
        assert_eq!((q.blocks, q.blob), (2, 8));
        let column0 = &q.packed[..16];
        assert_eq!(column0[9] >> 4, column0[8] >> 4, "row 18's byte carries row 17's value");
        assert!(column0[10..].iter().all(|&b| b == 0));
    }

    #[test]
    fn eight_bits_store_a_byte_a_value_and_a_zero_point_a_block() {
        let w: Vec<f32> = (0..32).map(|i| i as f32 / 31.0).collect();
        let q = Blockwise { bits: 8, block_size: 16, symmetric: false }.quantize::<f32>(&f32s(&w), 32, 1);
        assert_eq!((q.packed.len(), q.zero_point_bytes), (32, 2));
        assert_eq!(q.zero_points, Some(vec![0, 0]), "no negative value: the zero point is 0");
        assert_eq!(q.packed[15], 255);
    }
}
