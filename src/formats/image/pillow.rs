//! Pictures decoded the way Pillow decodes them, which torchvision's loader calls: which files
//! are pictures, and 16-bit pictures made 8-bit RGB as `convert('RGB')` makes them.

use std::path::Path;

/// Whether `path`'s extension says it is an image dmlrun decodes.
pub fn is_image_path(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase());
    matches!(ext.as_deref(), Some("png" | "jpg" | "jpeg" | "bmp" | "webp" | "tif" | "tiff"))
}

/// Whether the bytes start like an image format dmlrun decodes.
pub fn looks_like_image(bytes: &[u8]) -> bool {
    image::guess_format(bytes).is_ok()
}

/// A decoded picture as 8-bit RGB the way Pillow's `convert('RGB')` makes it, which
/// torchvision's loader calls: 16-bit grey (Pillow's mode I;16) clipped at 255, not scaled;
/// 16-bit RGB, RGBA and grey with alpha (Pillow reads their high bytes) as their high bytes;
/// alpha dropped, never composited; 8-bit pictures as they are.
///
/// With it, for a 16-bit grey picture, the share of its pixels above 255 that were clipped to
/// white: a picture that is mostly clipped is almost certainly not what its owner meant to feed,
/// though it is what torchvision would feed.
pub fn to_rgb8_as_pillow(decoded: image::DynamicImage) -> (image::RgbImage, Option<f64>) {
    use image::DynamicImage;
    let rgb = match decoded {
        DynamicImage::ImageLuma16(grey) => {
            let (w, h) = grey.dimensions();
            let raw = grey.into_raw();
            let above = raw.iter().filter(|&&v| v > 255).count();
            let share = above as f64 / raw.len().max(1) as f64;
            let clipped: Vec<u8> = raw.into_iter().map(|v| v.min(255) as u8).collect();
            let grey8 = image::GrayImage::from_raw(w, h, clipped).expect("as many pixels as the picture has");
            return (DynamicImage::ImageLuma8(grey8).into_rgb8(), Some(share));
        }
        DynamicImage::ImageLumaA16(_) | DynamicImage::ImageRgb16(_) | DynamicImage::ImageRgba16(_) => {
            let rgb16 = decoded.into_rgb16();
            let (w, h) = rgb16.dimensions();
            let high: Vec<u8> = rgb16.into_raw().into_iter().map(|v| (v >> 8) as u8).collect();
            image::RgbImage::from_raw(w, h, high).expect("as many pixels as the picture has")
        }
        other => other.into_rgb8(),
    };
    (rgb, None)
}
