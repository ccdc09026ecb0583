//! torchvision's centre crop: where the window starts (Python's rounding) and what lies outside
//! a picture smaller than the window (the pad value).

/// torchvision's centre-crop offset: where a `dst`-long crop starts in a `src`-long side.
///
/// A crop inside the picture starts at `int(round((src - dst) / 2.0))`, and Python rounds half
/// to even (a 341-wide resize cropped to 224 starts at 58, not 59). A crop larger than the
/// picture pads it first, `(dst - src) // 2` before: a negative offset of that many.
pub(super) fn crop_offset(src: usize, dst: usize) -> isize {
    if dst <= src {
        ((src - dst) as f64 / 2.0).round_ties_even() as isize
    } else {
        -(((dst - src) / 2) as isize)
    }
}

pub(super) fn center_crop(
    pixels: &[u8],
    w: usize,
    h: usize,
    channels: usize,
    tw: usize,
    th: usize,
    pad: u8,
) -> Vec<u8> {
    center_crop_at(pixels, (w, h), channels, (tw, th), (crop_offset(w, tw), crop_offset(h, th)), pad)
}

/// The `tw` x `th` window starting at (`ox`, `oy`) of a `w` x `h` picture; outside it, `pad`.
pub(super) fn center_crop_at(
    pixels: &[u8],
    (w, h): (usize, usize),
    channels: usize,
    (tw, th): (usize, usize),
    (ox, oy): (isize, isize),
    pad: u8,
) -> Vec<u8> {
    let mut out = vec![pad; tw * th * channels];
    for y in 0..th {
        let sy = y as isize + oy;
        if sy < 0 || sy >= h as isize {
            continue;
        }
        for x in 0..tw {
            let sx = x as isize + ox;
            if sx < 0 || sx >= w as isize {
                continue;
            }
            let src = (sy as usize * w + sx as usize) * channels;
            let dst = (y * tw + x) * channels;
            out[dst..dst + channels].copy_from_slice(&pixels[src..src + channels]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn center_crop_uses_torchvision_rounding() {
        // 4 wide -> 1 wide: offset round(1.5) = 2.
        let pixels = [10u8, 20, 30, 40];
        assert_eq!(center_crop(&pixels, 4, 1, 1, 1, 1, 0), vec![30]);
        // Python rounds half to even: round(58.5) = 58, round(0.5) = 0, round(2.5) = 2.
        assert_eq!(crop_offset(341, 224), 58);
        assert_eq!(crop_offset(342, 224), 59);
        assert_eq!(crop_offset(3, 2), 0);
        assert_eq!(crop_offset(7, 2), 2);
        // Larger crops pad (dst - src) // 2 before: 1 of 3 to go from 1 to 4.
        assert_eq!(crop_offset(1, 4), -1);
        assert_eq!(crop_offset(2, 5), -1);
    }
}
