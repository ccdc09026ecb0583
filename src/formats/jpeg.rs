//! JPEG decoded the way Pillow decodes it, so that images match the Python pipelines dmlrun is
//! compared against bit for bit.
//!
//! Pillow decodes with libjpeg-turbo at its defaults (accurate integer IDCT, fancy upsampling);
//! the `image` crate's pure-Rust decoder rounds differently (up to 4 levels in about a tenth of
//! a photo's values). MozJPEG's decoder is libjpeg-turbo's, built from source with its SIMD
//! code, so it needs no system library on Linux or in the Windows cross-build.

use std::panic::{catch_unwind, AssertUnwindSafe};

use anyhow::{anyhow, bail, Result};
use mozjpeg::decompress::DecompressBuilder;
use mozjpeg::ColorSpace;
use mozjpeg_sys as ffi;
use mozjpeg_sys::jpeg_error_mgr as ErrorMgr;

/// Interleaved 8-bit RGB pixels.
#[derive(Debug)]
pub struct RgbImage {
    pub pixels: Vec<u8>,
    pub width: usize,
    pub height: usize,
}

/// Whether `bytes` start with a JPEG's start-of-image marker.
pub fn is_jpeg(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0xFF, 0xD8, 0xFF])
}

/// Decodes a JPEG to RGB as `PIL.Image.open(path).convert("RGB")` does: greyscale is repeated
/// into three channels, CMYK (and YCCK) is read with Adobe's inverted polarity and converted
/// with Pillow's formula. Refuses pictures over `max_pixels` before decoding them.
pub fn decode_rgb(bytes: &[u8], max_pixels: u64) -> Result<RgbImage> {
    // libjpeg reports fatal errors by unwinding out of the C code (the crate's error manager
    // resumes an unwind without running the panic hook); it is caught here and becomes an error.
    match catch_unwind(AssertUnwindSafe(|| decode_unguarded(bytes, max_pixels))) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("libjpeg failed");
            bail!("cannot decode: {message}")
        }
    }
}

fn decode_unguarded(bytes: &[u8], max_pixels: u64) -> Result<RgbImage> {
    let decoder = DecompressBuilder::new()
        .with_err(pillow_error_manager())
        .from_mem(bytes)
        .map_err(|e| anyhow!("cannot decode: {e}"))?;
    let (width, height) = decoder.size();
    if width as u64 * height as u64 > max_pixels {
        bail!("{width}x{height} pixels exceeds the limit of {max_pixels} pixels (--max-image-pixels)");
    }
    let components = decoder.components().len();
    let read = |e: std::io::Error| anyhow!("cannot decode: {e}");
    let pixels = match components {
        1 => {
            let mut started = decoder.grayscale().map_err(read)?;
            let grey: Vec<u8> = started.read_scanlines().map_err(read)?;
            started.finish().map_err(read)?;
            grey.iter().flat_map(|&g| [g, g, g]).collect()
        }
        3 => {
            let mut started = decoder.rgb().map_err(read)?;
            let rgb: Vec<u8> = started.read_scanlines().map_err(read)?;
            started.finish().map_err(read)?;
            rgb
        }
        4 => {
            let mut started = decoder.to_colorspace(ColorSpace::JCS_CMYK).map_err(read)?;
            let cmyk: Vec<u8> = started.read_scanlines().map_err(read)?;
            started.finish().map_err(read)?;
            cmyk.chunks_exact(4).flat_map(inverted_cmyk_to_rgb).collect()
        }
        n => bail!("cannot decode: a JPEG with {n} colour components"),
    };
    if pixels.len() != width * height * 3 {
        bail!("cannot decode: the JPEG ended early");
    }
    Ok(RgbImage { pixels, width, height })
}

/// libjpeg's error manager made strict where Pillow is: fatal errors unwind (caught in
/// [`decode_rgb`]), and so does running out of data, which Pillow refuses ("image file is
/// truncated") where libjpeg would warn and fill the rest with grey. Other warnings (corrupt
/// data libjpeg recovers from) are passed over, as Pillow does.
fn pillow_error_manager() -> ErrorMgr {
    // SAFETY: a zeroed jpeg_error_mgr is what jpeg_std_error expects to fill in.
    let mut manager: ErrorMgr = unsafe { std::mem::zeroed() };
    unsafe { ffi::jpeg_std_error(&mut manager) };
    manager.error_exit = Some(unwind_on_error);
    manager.emit_message = Some(unwind_on_truncation);
    manager
}

extern "C-unwind" fn unwind_on_error(cinfo: &mut ffi::jpeg_common_struct) {
    std::panic::resume_unwind(Box::new(libjpeg_message(cinfo)));
}

extern "C-unwind" fn unwind_on_truncation(cinfo: &mut ffi::jpeg_common_struct, level: std::os::raw::c_int) {
    // SAFETY: libjpeg calls this with the struct whose error manager it is.
    let code = unsafe { (*cinfo.err).msg_code };
    if level < 0 && code == ffi::JWRN_JPEG_EOF as std::os::raw::c_int {
        std::panic::resume_unwind(Box::new("the file is truncated (its image data ends early)".to_string()));
    }
}

fn libjpeg_message(cinfo: &mut ffi::jpeg_common_struct) -> String {
    let mut buffer = [0u8; 80];
    // SAFETY: format_message writes a NUL-terminated message of at most 80 bytes into the
    // buffer; the binding declares the buffer `&[u8; 80]` though libjpeg writes to it.
    unsafe {
        if let Some(format) = (*cinfo.err).format_message {
            format(cinfo, &*(&mut buffer as *mut [u8; 80]));
        }
    }
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

/// One CMYK pixel as stored in a JPEG (Adobe's inverted polarity, which Pillow assumes for
/// every CMYK JPEG) to RGB with Pillow's `cmyk2rgb`.
fn inverted_cmyk_to_rgb(stored: &[u8]) -> [u8; 3] {
    let [c, m, y, k] = [0, 1, 2, 3].map(|i| 255 - i32::from(stored[i]));
    let not_k = 255 - k;
    let channel = |v: i32| {
        // Pillow's MULDIV255: (v * not_k) / 255, rounded with its shifts.
        let t = v * not_k + 128;
        (not_k - (((t >> 8) + t) >> 8)).clamp(0, 255) as u8
    };
    [channel(c), channel(m), channel(y)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_an_error_not_an_unwind() {
        let err = decode_rgb(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J'], 1 << 20).unwrap_err().to_string();
        assert!(err.starts_with("cannot decode"), "{err}");
        let err = decode_rgb(b"not a jpeg at all", 1 << 20).unwrap_err().to_string();
        assert!(err.starts_with("cannot decode"), "{err}");
    }

    #[test]
    fn cmyk_follows_pillow() {
        // Stored inverted: 255 means no ink. No ink is white, full black is black.
        assert_eq!(inverted_cmyk_to_rgb(&[255, 255, 255, 255]), [255, 255, 255]);
        assert_eq!(inverted_cmyk_to_rgb(&[255, 255, 255, 0]), [0, 0, 0]);
        // Full cyan, no black: no red.
        assert_eq!(inverted_cmyk_to_rgb(&[0, 255, 255, 255]), [0, 255, 255]);
    }
}
