//! Pillow's resampling (`Image.resize` with BILINEAR or BICUBIC), reproduced bit for bit.
//!
//! torchvision's `Resize` on a PIL image calls Pillow, and a classifier's reference numbers
//! depend on its exact rounding: a convolution whose support grows with the downscale factor
//! (so it antialiases), fixed-point coefficients with 22 fractional bits, and a horizontal pass
//! rounded to 8 bits before the vertical pass. The `image` crate's filters differ in those details,
//! enough to move a close top-1. Follows Pillow's `libImaging/Resample.c`.

flag_values!(Filter { Bilinear => "bilinear", Bicubic => "bicubic" });
display_as_flag_value!(Filter);

/// Resampling filters, as Pillow defines them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Filter {
    Bilinear,
    Bicubic,
}

impl Filter {
    fn support(self) -> f64 {
        match self {
            Filter::Bilinear => 1.0,
            Filter::Bicubic => 2.0,
        }
    }

    fn weight(self, x: f64) -> f64 {
        let x = x.abs();
        match self {
            Filter::Bilinear => {
                if x < 1.0 {
                    1.0 - x
                } else {
                    0.0
                }
            }
            Filter::Bicubic => {
                // Pillow uses a = -0.5.
                const A: f64 = -0.5;
                if x < 1.0 {
                    ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0
                } else if x < 2.0 {
                    (((x - 5.0) * x + 8.0) * x - 4.0) * A
                } else {
                    0.0
                }
            }
        }
    }
}

const PRECISION_BITS: u32 = 32 - 8 - 2;

/// Per output pixel: first input index, number of taps, and fixed-point weights.
struct Coefficients {
    ksize: usize,
    bounds: Vec<(usize, usize)>,
    weights: Vec<i32>,
}

/// Coefficients for the output pixels `range` of a resize from `in_size` to `out_size`; each
/// output pixel's weights depend only on its own index, so a window is exactly the same as the
/// corresponding part of the whole.
fn precompute(in_size: usize, out_size: usize, range: std::ops::Range<usize>, filter: Filter) -> Coefficients {
    let scale = in_size as f64 / out_size as f64;
    let filterscale = scale.max(1.0);
    let support = filter.support() * filterscale;
    let ksize = support.ceil() as usize * 2 + 1;
    let mut bounds = Vec::with_capacity(range.len());
    let mut weights = vec![0i32; range.len() * ksize];
    let mut k = vec![0f64; ksize];
    for (slot_index, xx) in range.enumerate() {
        let center = (xx as f64 + 0.5) * scale;
        let ss = 1.0 / filterscale;
        // Pillow truncates toward zero after adding 0.5 (C's `(int)` cast).
        let xmin = ((center - support + 0.5) as i64).max(0) as usize;
        let xmax = ((center + support + 0.5) as i64).min(in_size as i64) as usize;
        let taps = xmax.saturating_sub(xmin).min(ksize);
        let mut total = 0.0;
        for (x, slot) in k.iter_mut().enumerate().take(taps) {
            let w = filter.weight((x as f64 + xmin as f64 - center + 0.5) * ss);
            *slot = w;
            total += w;
        }
        for (x, &w) in k.iter().enumerate().take(taps) {
            let w = if total != 0.0 { w / total } else { w };
            let fixed = w * (1i64 << PRECISION_BITS) as f64;
            weights[slot_index * ksize + x] = if w < 0.0 { (fixed - 0.5) as i32 } else { (fixed + 0.5) as i32 };
        }
        bounds.push((xmin, taps));
    }
    Coefficients { ksize, bounds, weights }
}

fn clip8(value: i32) -> u8 {
    // Pillow accumulates in 32-bit integers; the weights of one output pixel sum to 2^22, so a
    // sum of 8-bit values cannot overflow.
    if value >= (1i32 << PRECISION_BITS << 8) {
        255
    } else if value <= 0 {
        0
    } else {
        (value >> PRECISION_BITS) as u8
    }
}

/// One row of the horizontal pass, with the channel count known at compile time.
fn horizontal_row<const C: usize>(src_row: &[u8], dst_row: &mut [u8], horiz: &Coefficients) {
    let half = 1i32 << (PRECISION_BITS - 1);
    for (xx, dst) in dst_row.chunks_exact_mut(C).enumerate() {
        let (xmin, taps) = horiz.bounds[xx];
        let k = &horiz.weights[xx * horiz.ksize..][..taps];
        let src = &src_row[xmin * C..][..taps * C];
        let mut acc = [half; C];
        for (pixel, &w) in src.chunks_exact(C).zip(k) {
            for c in 0..C {
                acc[c] += pixel[c] as i32 * w;
            }
        }
        for c in 0..C {
            dst[c] = clip8(acc[c]);
        }
    }
}

/// Resizes an interleaved 8-bit image (`channels` per pixel, row-major) as Pillow does.
pub fn resize(
    pixels: &[u8],
    width: usize,
    height: usize,
    channels: usize,
    out_width: usize,
    out_height: usize,
    filter: Filter,
) -> Vec<u8> {
    resize_region(pixels, (width, height), channels, (out_width, out_height), 0..out_width, 0..out_height, filter)
}

/// The window `xs` x `ys` of the image [`resize`] would produce at `out` size, computed without
/// the rest of it: a centre crop of an extreme aspect ratio (16 x 64791 resized so its short side
/// is 256) costs the crop, not the 265 million pixels around it.
pub fn resize_region(
    pixels: &[u8],
    (width, height): (usize, usize),
    channels: usize,
    (out_width, out_height): (usize, usize),
    xs: std::ops::Range<usize>,
    ys: std::ops::Range<usize>,
    filter: Filter,
) -> Vec<u8> {
    debug_assert_eq!(pixels.len(), width * height * channels);
    debug_assert!(xs.end <= out_width && ys.end <= out_height);
    let (region_width, region_height) = (xs.len(), ys.len());
    if region_width == 0 || region_height == 0 {
        return Vec::new();
    }
    let need_horizontal = out_width != width;
    let need_vertical = out_height != height;
    let vert = precompute(height, out_height, ys.clone(), filter);

    // The horizontal pass only needs the rows the vertical pass will read.
    let (first_row, last_row) = if need_vertical {
        let (first, _) = vert.bounds[0];
        let (last_min, last_taps) = vert.bounds[region_height - 1];
        (first, last_min + last_taps)
    } else {
        (ys.start, ys.end)
    };

    let half = 1i32 << (PRECISION_BITS - 1);
    let rows = last_row - first_row;
    let mut temp = vec![0u8; region_width * rows * channels];
    if need_horizontal {
        let horiz = precompute(width, out_width, xs.clone(), filter);
        for y in 0..rows {
            let src_row = &pixels[(y + first_row) * width * channels..][..width * channels];
            let dst_row = &mut temp[y * region_width * channels..][..region_width * channels];
            match channels {
                1 => horizontal_row::<1>(src_row, dst_row, &horiz),
                3 => horizontal_row::<3>(src_row, dst_row, &horiz),
                4 => horizontal_row::<4>(src_row, dst_row, &horiz),
                _ => unreachable!("images are resized with 1, 3 or 4 channels"),
            }
        }
    } else {
        for y in 0..rows {
            let src = &pixels[((y + first_row) * width + xs.start) * channels..][..region_width * channels];
            temp[y * region_width * channels..][..region_width * channels].copy_from_slice(src);
        }
    }

    if !need_vertical {
        return temp;
    }
    let row_len = region_width * channels;
    let mut out = vec![0u8; row_len * region_height];
    let mut acc = vec![0i32; row_len];
    for (yy, dst_row) in out.chunks_exact_mut(row_len).enumerate() {
        let (ymin, taps) = vert.bounds[yy];
        let k = &vert.weights[yy * vert.ksize..][..taps];
        acc.fill(half);
        // Whole rows at a time: a loop the compiler vectorises.
        for (y, &w) in k.iter().enumerate() {
            let src_row = &temp[(y + ymin - first_row) * row_len..][..row_len];
            for (a, &p) in acc.iter_mut().zip(src_row) {
                *a += p as i32 * w;
            }
        }
        for (d, &a) in dst_row.iter_mut().zip(&acc) {
            *d = clip8(a);
        }
    }
    out
}

/// Pillow's RGB to L conversion (ITU-R 601-2 luma in 16-bit fixed point).
pub fn rgb_to_luma(rgb: &[u8]) -> Vec<u8> {
    rgb.chunks_exact(3)
        .map(|p| ((p[0] as u32 * 19595 + p[1] as u32 * 38470 + p[2] as u32 * 7471 + 0x8000) >> 16) as u8)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_is_exactly_that_part_of_the_whole_resize() {
        let (w, h, c) = (23, 17, 3);
        let pixels: Vec<u8> = (0..w * h * c).map(|i| ((i * 37) % 251) as u8).collect();
        for filter in [Filter::Bilinear, Filter::Bicubic] {
            for (ow, oh) in [(9, 31), (40, 6), (23, 11), (12, 17)] {
                let whole = resize(&pixels, w, h, c, ow, oh, filter);
                for (xs, ys) in [(2..7, 3..5), (0..ow, 1..oh), (ow - 1..ow, 0..1)] {
                    let region = resize_region(&pixels, (w, h), c, (ow, oh), xs.clone(), ys.clone(), filter);
                    let expected: Vec<u8> = ys
                        .clone()
                        .flat_map(|y| whole[(y * ow + xs.start) * c..(y * ow + xs.end) * c].to_vec())
                        .collect();
                    assert_eq!(region, expected, "{filter:?} {ow}x{oh} window {xs:?} x {ys:?}");
                }
            }
        }
    }

    /// A 7x5 RGB test image whose flat byte i is (7*i) mod 256; expected values below were
    /// produced by Pillow 12 (`Image.fromarray(a).resize(size, filter)`).
    fn pattern() -> Vec<u8> {
        (0..5 * 7 * 3).map(|i| ((i * 7) % 256) as u8).collect()
    }

    #[test]
    fn bilinear_downscale_matches_pillow() {
        let out = resize(&pattern(), 7, 5, 3, 3, 2, Filter::Bilinear);
        assert_eq!(out, vec![95, 102, 109, 137, 138, 140, 136, 98, 105, 133, 140, 147, 147, 154, 117, 114, 116, 123]);
    }

    #[test]
    fn bilinear_upscale_matches_pillow() {
        let out = resize(&pattern(), 7, 5, 3, 10, 9, Filter::Bilinear);
        assert_eq!(
            &out[..30],
            &[
                0, 7, 14, 12, 19, 26, 26, 33, 40, 41, 48, 55, 56, 63, 70, 70, 77, 84, 85, 92, 99, 100, 107, 114, 114,
                121, 128, 126, 133, 140
            ]
        );
    }

    #[test]
    fn bicubic_downscale_matches_pillow() {
        let out = resize(&pattern(), 7, 5, 3, 3, 2, Filter::Bicubic);
        assert_eq!(out, vec![88, 96, 103, 137, 139, 143, 136, 96, 103, 135, 142, 149, 149, 156, 118, 115, 118, 125]);
    }

    #[test]
    fn luma_matches_pillow() {
        assert_eq!(&rgb_to_luma(&pattern())[..12], &[6, 27, 48, 69, 90, 111, 132, 153, 174, 195, 216, 237]);
    }

    #[test]
    fn same_size_is_identity() {
        let p = pattern();
        assert_eq!(resize(&p, 7, 5, 3, 7, 5, Filter::Bilinear), p);
    }
}
