//! Images to tensors: decode, resize, crop, normalise, lay out as the model wants.
//!
//! The default (`imagenet` preset) is torchvision's classification transform, reproduced
//! exactly: RGB, resize the shorter side to 256/224 of the crop (bilinear, as Pillow), centre
//! crop, scale to [0, 1], subtract the mean and divide by the standard deviation in float32.

mod crop;
mod pillow;
mod request;

use std::borrow::Cow;
use std::path::Path;

use anyhow::{bail, Context, Result};
use half::f16;
use serde::Serialize;

use super::jpeg;
use super::resample::{self, Filter};
use crate::tensor::{DType, HostTensor};

use crop::{center_crop, center_crop_at, crop_offset};

/// A decoded picture: interleaved 8-bit RGB, its width and height, and for a 16-bit grey one the
/// share of its pixels clipped to white ([`to_rgb8_as_pillow`]).
type Decoded = (Vec<u8>, usize, usize, Option<f64>);
pub use pillow::{is_image_path, looks_like_image, to_rgb8_as_pillow};
pub use request::{ChannelOrder, Layout, PreprocessRequest, Preset, ResizeMode};

/// The fully resolved preprocessing for one model input; printed in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Preprocess {
    pub preset: Option<Preset>,
    pub resize: ResizeMode,
    pub resize_to: Option<usize>,
    pub filter: Filter,
    pub scale: Scale,
    pub mean: Vec<f32>,
    pub std: Vec<f32>,
    pub channel_order: ChannelOrder,
    pub layout: Layout,
    pub channels: usize,
    /// Target height and width; `None` keeps the image's own size (dynamic spatial dims).
    pub height: Option<usize>,
    pub width: Option<usize>,
    pub dtype: DType,
    pub pad_value: u8,
    /// Whether the model input has a batch axis (rank 4) or not (rank 3).
    pub batched: bool,
    #[serde(skip)]
    pub max_pixels: u64,
}

/// How 0..255 pixel values are scaled before mean/std.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// `pixel / d` in float32: torchvision's `ToTensor` divides by 255, and multiplying by
    /// 1/255 instead rounds differently in the last bit.
    Divide(f32),
    /// `pixel * m` (`--scale m`).
    Multiply(f32),
}

impl Scale {
    fn apply(self, pixel: f32) -> f32 {
        match self {
            Scale::Divide(d) => pixel / d,
            Scale::Multiply(m) => pixel * m,
        }
    }

    fn is_identity(self) -> bool {
        matches!(self, Scale::Divide(1.0) | Scale::Multiply(1.0))
    }
}

/// A dimension of the model input after overrides: known size or free.
pub type ResolvedDim = Option<usize>;

impl Preprocess {
    /// Resolves the preprocessing for an input of `dtype` and `dims` (after `--dim` overrides).
    pub fn resolve(request: &PreprocessRequest, input: &str, dtype: DType, dims: &[ResolvedDim]) -> Result<Preprocess> {
        if !matches!(dtype, DType::Float32 | DType::Float16 | DType::Float64 | DType::Uint8) {
            bail!("input '{input}' takes {dtype}, and an image can only become float32, float16, float64 or uint8; give a tensor file (.npy, .pb) instead");
        }
        let batched = match dims.len() {
            4 => true,
            3 => false,
            rank => {
                bail!("input '{input}' has rank {rank}; an image needs a rank-3 (CHW/HWC) or rank-4 (NCHW/NHWC) input")
            }
        };
        let spatial = if batched { &dims[1..] } else { dims };
        // Three channels is the stronger hint; one channel (greyscale) the weaker.
        let layout = match (request.layout, spatial[0], spatial[2]) {
            (Some(layout), _, _) => layout,
            (None, Some(3), _) => Layout::Nchw,
            (None, _, Some(3)) => Layout::Nhwc,
            (None, Some(1), _) => Layout::Nchw,
            (None, _, Some(1)) => Layout::Nhwc,
            (None, _, _) => Layout::Nchw,
        };
        let (c, h, w) = match layout {
            Layout::Nchw => (spatial[0], spatial[1], spatial[2]),
            Layout::Nhwc => (spatial[2], spatial[0], spatial[1]),
        };
        let channels = match c {
            Some(c @ (1 | 3)) => c,
            None => 3,
            Some(other) => {
                bail!("input '{input}' has {other} channels in {layout} layout; images give 1 or 3 (try --layout)")
            }
        };
        let (height, width) = match (h, w, request.size) {
            (Some(h), Some(w), _) => (Some(h), Some(w)),
            (h, w, Some((sh, sw))) => (Some(h.unwrap_or(sh)), Some(w.unwrap_or(sw))),
            (h, w, None) => (h, w),
        };

        // uint8 models take pixels as they are, unless the user asks for something else.
        let default_preset = if dtype == DType::Uint8 { Preset::Raw } else { Preset::Imagenet };
        let preset = request.preset.unwrap_or(default_preset);
        let (resize, scale, mean, std) = match preset {
            Preset::Imagenet => {
                (ResizeMode::Crop, Scale::Divide(255.0), vec![0.485, 0.456, 0.406], vec![0.229, 0.224, 0.225])
            }
            Preset::Unit => (ResizeMode::Stretch, Scale::Divide(255.0), vec![0.0; 3], vec![1.0; 3]),
            Preset::Raw => (ResizeMode::Stretch, Scale::Multiply(1.0), vec![0.0; 3], vec![1.0; 3]),
        };
        let mut resize = request.resize.unwrap_or(resize);
        if height.is_none() || width.is_none() {
            // Free spatial dimensions: the picture keeps its own size.
            resize = ResizeMode::None;
        }
        let mean = per_channel(request.mean.clone().unwrap_or(mean), channels, "--mean")?;
        let std = per_channel(request.std.clone().unwrap_or(std), channels, "--std")?;
        if std.contains(&0.0) {
            bail!("--std must not contain 0");
        }
        let scale = request.scale.map_or(scale, Scale::Multiply);
        if dtype == DType::Uint8
            && (!scale.is_identity() || mean.iter().any(|m| *m != 0.0) || std.iter().any(|s| *s != 1.0))
        {
            bail!("input '{input}' takes uint8 pixels; --scale, --mean and --std (or the {preset} preset) do not apply (use --preset raw)");
        }
        Ok(Preprocess {
            preset: request.preset.or(Some(preset)),
            resize,
            resize_to: request.resize_to,
            filter: request.filter.unwrap_or(Filter::Bilinear),
            scale,
            mean,
            std,
            channel_order: request.channel_order.unwrap_or(ChannelOrder::Rgb),
            layout,
            channels,
            height,
            width,
            dtype,
            pad_value: request.pad_value.unwrap_or(114),
            batched,
            max_pixels: request.max_pixels,
        })
    }

    /// One line for the report, e.g. `crop 256 -> 224x224 bilinear, RGB, /255, mean [..] std [..], NCHW float32`.
    pub fn describe(&self) -> String {
        let size = match (self.height, self.width) {
            (Some(h), Some(w)) => format!("{h}x{w}"),
            _ => "image size".to_string(),
        };
        let resize = match self.resize {
            ResizeMode::Crop => {
                format!("resize shorter side to {} + centre crop {size}", self.crop_resize_target().unwrap_or(0))
            }
            ResizeMode::Stretch => format!("stretch to {size}"),
            ResizeMode::Letterbox => format!("letterbox to {size} (pad {})", self.pad_value),
            ResizeMode::CenterCrop => format!("centre crop {size} (no resize)"),
            ResizeMode::None => format!("no resize ({size})"),
        };
        format!(
            "{resize}, {} filter, {}{}, {}, mean {:?}, std {:?}, {} {}{}",
            self.filter,
            match self.channel_order {
                ChannelOrder::Rgb => "RGB",
                ChannelOrder::Bgr => "BGR",
            },
            if self.channels == 1 { " (grey)" } else { "" },
            match self.scale {
                Scale::Divide(d) => format!("/{d}"),
                Scale::Multiply(m) => format!("x{m}"),
            },
            self.mean,
            self.std,
            self.layout,
            self.dtype,
            self.preset.map(|p| format!(", {p} preset")).unwrap_or_default(),
        )
    }

    fn crop_resize_target(&self) -> Option<usize> {
        let crop = self.height?.min(self.width?);
        Some(self.resize_to.unwrap_or_else(|| (crop as f64 / 0.875).round() as usize))
    }

    /// Decodes and converts one image file; the tensor has a batch axis of 1 when the input is
    /// batched. With it, a 16-bit grey picture's share of pixels clipped to white.
    pub fn load(&self, path: &Path) -> Result<(HostTensor, Option<f64>)> {
        let (rgb, width, height, clipped) = self.decode_file(path)?;
        Ok((self.from_rgb(&rgb, width, height), clipped))
    }

    /// Reads and decodes one image file; errors name the file.
    fn decode_file(&self, path: &Path) -> Result<Decoded> {
        let bytes = std::fs::read(path).with_context(|| format!("reading image {}", path.display()))?;
        self.decode(&bytes).with_context(|| format!("image {}", path.display()))
    }

    pub fn from_encoded(&self, bytes: &[u8]) -> Result<HostTensor> {
        let (rgb, width, height, _) = self.decode(bytes)?;
        Ok(self.from_rgb(&rgb, width, height))
    }

    /// Decodes an image to interleaved RGB (JPEG as Pillow decodes it), refusing pictures over
    /// the pixel limit before decoding them.
    fn decode(&self, bytes: &[u8]) -> Result<Decoded> {
        if jpeg::is_jpeg(bytes) {
            let picture = jpeg::decode_rgb(bytes, self.max_pixels)?;
            return Ok((picture.pixels, picture.width, picture.height, None));
        }
        let reader = image::ImageReader::new(std::io::Cursor::new(bytes))
            .with_guessed_format()
            .context("reading image header")?;
        let (w, h) = reader.into_dimensions().map_err(|e| anyhow::anyhow!("not a readable image: {e}"))?;
        if w as u64 * h as u64 > self.max_pixels {
            bail!("{w}x{h} pixels exceeds the limit of {} pixels (--max-image-pixels)", self.max_pixels);
        }
        let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes)).with_guessed_format()?;
        let mut limits = image::Limits::default();
        limits.max_image_width = Some(w);
        limits.max_image_height = Some(h);
        reader.limits(limits);
        let decoded = reader.decode().map_err(|e| anyhow::anyhow!("cannot decode: {e}"))?;
        let (rgb, clipped) = to_rgb8_as_pillow(decoded);
        let (width, height) = (rgb.width() as usize, rgb.height() as usize);
        Ok((rgb.into_raw(), width, height, clipped))
    }

    /// The pixels the model's channels take: RGB as it is, or Pillow's luma for one channel.
    fn channel_pixels<'a>(&self, rgb: &'a [u8]) -> (Cow<'a, [u8]>, usize) {
        if self.channels == 1 {
            (Cow::Owned(resample::rgb_to_luma(rgb)), 1)
        } else {
            (Cow::Borrowed(rgb), 3)
        }
    }

    /// The tensor shape of `batch` images of `height` x `width` x `channels` in the model's
    /// layout (no batch axis for an input without one).
    fn tensor_shape(&self, height: usize, width: usize, channels: usize, batch: usize) -> Vec<usize> {
        let mut shape = match self.layout {
            Layout::Nchw => vec![channels, height, width],
            Layout::Nhwc => vec![height, width, channels],
        };
        if self.batched {
            shape.insert(0, batch);
        }
        shape
    }

    /// The bytes one image's tensor takes, when every image gives the same size (a fixed target
    /// size and a resize that reaches it): what a batch can be laid out for in advance.
    pub fn image_bytes(&self) -> Option<usize> {
        let (h, w) = (self.height?, self.width?);
        if self.resize == ResizeMode::None {
            return None;
        }
        h.checked_mul(w)?.checked_mul(self.channels)?.checked_mul(self.dtype.size()?)
    }

    /// The shape of a batch of `n` images (`n` is 1 for an input without a batch axis);
    /// `None` when [`Preprocess::image_bytes`] is.
    pub fn batch_shape(&self, n: usize) -> Option<Vec<usize>> {
        self.image_bytes()?;
        Some(self.tensor_shape(self.height?, self.width?, self.channels, n))
    }

    /// Decodes and converts one image file straight into `dst`, its place in a batch laid out
    /// with [`Preprocess::image_bytes`] (no per-image tensor, no copy into the batch); returns a
    /// 16-bit grey picture's share of pixels clipped to white.
    pub fn load_into(&self, path: &Path, dst: &mut [u8]) -> Result<Option<f64>> {
        let (rgb, width, height, clipped) = self.decode_file(path)?;
        let (pixels, channels) = self.channel_pixels(&rgb);
        let (pixels, out_w, out_h) = self.fit(&pixels, width, height, channels);
        let size = self.dtype.size().expect("image dtypes are numeric");
        if out_w * out_h * channels * size != dst.len() {
            bail!("image {}: gives {out_w}x{out_h} where the batch holds another size", path.display());
        }
        self.write_tensor(&pixels, channels, dst);
        Ok(clipped)
    }

    /// Converts interleaved RGB pixels to the model's tensor.
    pub fn from_rgb(&self, rgb: &[u8], width: usize, height: usize) -> HostTensor {
        let (pixels, channels) = self.channel_pixels(rgb);
        let (pixels, out_w, out_h) = self.fit(&pixels, width, height, channels);
        self.to_tensor(&pixels, out_w, out_h, channels)
    }

    /// Resizes/crops/pads interleaved pixels to the target size.
    fn fit(&self, pixels: &[u8], width: usize, height: usize, channels: usize) -> (Vec<u8>, usize, usize) {
        let (Some(th), Some(tw)) = (self.height, self.width) else {
            return (pixels.to_vec(), width, height);
        };
        match self.resize {
            ResizeMode::None => (pixels.to_vec(), width, height),
            ResizeMode::Stretch => (resample::resize(pixels, width, height, channels, tw, th, self.filter), tw, th),
            ResizeMode::Crop => {
                let target = self.crop_resize_target().unwrap_or(th.min(tw));
                // torchvision: the shorter side becomes `target`, the longer one int(target * long / short).
                let (rw, rh) = if width <= height {
                    (target, (target as f64 * height as f64 / width as f64) as usize)
                } else {
                    ((target as f64 * width as f64 / height as f64) as usize, target)
                };
                // Only the part of the resized picture the crop keeps is computed.
                let (ox, oy) = (crop_offset(rw, tw), crop_offset(rh, th));
                let window = |offset: isize, size: usize, target: usize| {
                    let start = offset.clamp(0, size as isize) as usize;
                    let end = (offset + target as isize).clamp(start as isize, size as isize) as usize;
                    start..end
                };
                let (xs, ys) = (window(ox, rw, tw), window(oy, rh, th));
                let region = resample::resize_region(
                    pixels,
                    (width, height),
                    channels,
                    (rw, rh),
                    xs.clone(),
                    ys.clone(),
                    self.filter,
                );
                let (region_ox, region_oy) = (ox - xs.start as isize, oy - ys.start as isize);
                let cropped = center_crop_at(
                    &region,
                    (xs.len(), ys.len()),
                    channels,
                    (tw, th),
                    (region_ox, region_oy),
                    self.pad_value,
                );
                (cropped, tw, th)
            }
            // torchvision pads a picture smaller than the crop with zeros, whatever --pad-value says.
            ResizeMode::CenterCrop => (center_crop(pixels, width, height, channels, tw, th, 0), tw, th),
            ResizeMode::Letterbox => {
                let ratio = (tw as f64 / width as f64).min(th as f64 / height as f64);
                let rw = ((width as f64 * ratio).round() as usize).clamp(1, tw);
                let rh = ((height as f64 * ratio).round() as usize).clamp(1, th);
                let resized = resample::resize(pixels, width, height, channels, rw, rh, self.filter);
                (center_crop(&resized, rw, rh, channels, tw, th, self.pad_value), tw, th)
            }
        }
    }

    fn to_tensor(&self, pixels: &[u8], width: usize, height: usize, channels: usize) -> HostTensor {
        let size = self.dtype.size().expect("image dtypes are numeric");
        let mut bytes = vec![0u8; width * height * channels * size];
        self.write_tensor(pixels, channels, &mut bytes);
        let shape = self.tensor_shape(height, width, channels, 1);
        HostTensor::from_bytes(self.dtype, shape, bytes).expect("image tensor size is consistent")
    }

    /// Normalises interleaved pixels into `dst`, laid out and encoded as the model takes them.
    fn write_tensor(&self, pixels: &[u8], channels: usize, dst: &mut [u8]) {
        let size = self.dtype.size().expect("image dtypes are numeric");
        let plane = pixels.len() / channels;
        // Pixels are bytes, so each channel's normalisation is a 256-entry table computed with
        // the same float32 operations as torchvision's ToTensor + Normalize, kept already
        // encoded as the model's dtype. The tables are the picture's channels (R, G, B), as
        // --mean and --std are: BGR reorders the normalised channels, as `x[:, ::-1]` after
        // torchvision's transform does.
        let tables: Vec<Vec<u8>> = (0..channels)
            .map(|c| {
                (0..256)
                    .flat_map(|p| {
                        let v = (self.scale.apply(p as f32) - self.mean[c]) / self.std[c];
                        match self.dtype {
                            DType::Float16 => f16::from_f32(v).to_le_bytes().to_vec(),
                            DType::Float64 => (v as f64).to_le_bytes().to_vec(),
                            DType::Uint8 => vec![v.round().clamp(0.0, 255.0) as u8],
                            _ => v.to_le_bytes().to_vec(),
                        }
                    })
                    .collect()
            })
            .collect();
        // With BGR the model's channel 0 is the picture's blue.
        let source_channel =
            |c: usize| if self.channel_order == ChannelOrder::Bgr && channels == 3 { 2 - c } else { c };
        let encoded = |c: usize, pixel: &[u8]| {
            let (src, p) = (source_channel(c), pixel[source_channel(c)] as usize);
            &tables[src][p * size..(p + 1) * size]
        };
        match self.layout {
            Layout::Nchw => {
                for (c, dst_plane) in dst.chunks_exact_mut(plane * size).enumerate() {
                    for (out, pixel) in dst_plane.chunks_exact_mut(size).zip(pixels.chunks_exact(channels)) {
                        out.copy_from_slice(encoded(c, pixel));
                    }
                }
            }
            Layout::Nhwc => {
                for (out, pixel) in dst.chunks_exact_mut(channels * size).zip(pixels.chunks_exact(channels)) {
                    for (c, v) in out.chunks_exact_mut(size).enumerate() {
                        v.copy_from_slice(encoded(c, pixel));
                    }
                }
            }
        }
    }
}

fn per_channel(values: Vec<f32>, channels: usize, flag: &str) -> Result<Vec<f32>> {
    match values.len() {
        n if n == channels => Ok(values),
        1 => Ok(vec![values[0]; channels]),
        3 if channels == 1 => Ok(vec![values[0]]),
        n => bail!("{flag} has {n} values; the model input has {channels} channels"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> PreprocessRequest {
        PreprocessRequest { max_pixels: 1 << 26, ..PreprocessRequest::default() }
    }

    #[test]
    fn infers_nchw_and_nhwc_from_channel_dim() {
        let p = Preprocess::resolve(&request(), "x", DType::Float32, &[None, Some(3), Some(224), Some(224)]).unwrap();
        assert_eq!((p.layout, p.channels, p.height, p.width), (Layout::Nchw, 3, Some(224), Some(224)));
        let p = Preprocess::resolve(&request(), "x", DType::Float32, &[Some(1), Some(32), Some(48), Some(1)]).unwrap();
        assert_eq!((p.layout, p.channels, p.height, p.width), (Layout::Nhwc, 1, Some(32), Some(48)));
    }

    #[test]
    fn rejects_images_for_integer_inputs() {
        let err =
            Preprocess::resolve(&request(), "ids", DType::Int64, &[Some(1), Some(3), Some(2), Some(2)]).unwrap_err();
        assert!(err.to_string().contains("input 'ids' takes int64"), "{err}");
    }

    #[test]
    fn normalises_in_torchvision_order() {
        let p = Preprocess::resolve(&request(), "x", DType::Float32, &[Some(1), Some(3), Some(1), Some(1)]).unwrap();
        let t = p.from_rgb(&[255, 0, 128], 1, 1);
        let v = t.to_f64().unwrap();
        let expect = [(1.0f32 - 0.485) / 0.229, (0.0f32 - 0.456) / 0.224, (128.0f32 / 255.0 - 0.406) / 0.225];
        for (got, want) in v.iter().zip(expect) {
            assert_eq!(*got as f32, want);
        }
    }

    #[test]
    fn bgr_nhwc_puts_blue_first() {
        let req = PreprocessRequest { preset: Some(Preset::Raw), channel_order: Some(ChannelOrder::Bgr), ..request() };
        let p = Preprocess::resolve(&req, "x", DType::Float32, &[Some(1), Some(1), Some(2), Some(3)]).unwrap();
        assert_eq!(p.layout, Layout::Nhwc);
        let t = p.from_rgb(&[1, 2, 3, 4, 5, 6], 2, 1);
        assert_eq!(t.shape, vec![1, 1, 2, 3]);
        assert_eq!(t.to_f64().unwrap(), vec![3.0, 2.0, 1.0, 6.0, 5.0, 4.0]);
    }

    #[test]
    fn extreme_aspect_ratio_crops_without_resizing_the_whole_picture() {
        // Found by the image fuzz target: a 1.3 kB JPEG declaring 64791x16 pixels. Its short side
        // resized to 256 would be 1,036,656 pixels wide; only the 224x224 crop is computed.
        let p =
            Preprocess::resolve(&request(), "x", DType::Float32, &[Some(1), Some(3), Some(224), Some(224)]).unwrap();
        let (w, h) = (64791, 16);
        let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i % 256) as u8).collect();
        let t = p.from_rgb(&rgb, w, h);
        assert_eq!(t.shape, vec![1, 3, 224, 224]);
        // The same crop through the whole resize, on a picture small enough to resize whole.
        let (w, h) = (601, 16);
        let rgb: Vec<u8> = (0..w * h * 3).map(|i| ((i * 7) % 256) as u8).collect();
        let (rw, rh) = ((256.0 * w as f64 / h as f64) as usize, 256);
        let whole = resample::resize(&rgb, w, h, 3, rw, rh, Filter::Bilinear);
        let expected = center_crop(&whole, rw, rh, 3, 224, 224, 114);
        assert_eq!(p.fit(&rgb, w, h, 3), (expected, 224, 224));
    }

    #[test]
    fn mean_and_std_are_rgb_whatever_the_channel_order() {
        let bgr = PreprocessRequest {
            preset: Some(Preset::Unit),
            mean: Some(vec![0.1, 0.2, 0.3]),
            std: Some(vec![1.0, 2.0, 4.0]),
            channel_order: Some(ChannelOrder::Bgr),
            ..request()
        };
        let rgb = PreprocessRequest { channel_order: Some(ChannelOrder::Rgb), ..bgr.clone() };
        let dims = [Some(1), Some(3), Some(1), Some(1)];
        let pixel = [255u8, 0, 128];
        let of = |req: &PreprocessRequest| {
            Preprocess::resolve(req, "x", DType::Float32, &dims).unwrap().from_rgb(&pixel, 1, 1).to_f64().unwrap()
        };
        let (rgb, bgr) = (of(&rgb), of(&bgr));
        let red = (1.0f32 - 0.1) / 1.0;
        assert_eq!(rgb[0] as f32, red);
        assert_eq!(bgr, vec![rgb[2], rgb[1], rgb[0]], "BGR is the RGB tensor's channels reversed");
    }

    #[test]
    fn letterbox_pads_with_pad_value() {
        let req = PreprocessRequest {
            preset: Some(Preset::Raw),
            resize: Some(ResizeMode::Letterbox),
            pad_value: Some(7),
            ..request()
        };
        let p = Preprocess::resolve(&req, "x", DType::Float32, &[Some(1), Some(1), Some(4), Some(4)]).unwrap();
        let t = p.from_rgb(&[200; 4 * 2 * 3], 4, 2);
        let v = t.to_f64().unwrap();
        let grey = ((200u32 * 19595 + 200 * 38470 + 200 * 7471 + 0x8000) >> 16) as f64;
        assert_eq!(&v[..4], &[7.0; 4]);
        assert_eq!(&v[4..12], &[grey; 8]);
        assert_eq!(&v[12..], &[7.0; 4]);
    }

    #[test]
    fn dynamic_spatial_dims_keep_image_size() {
        let p = Preprocess::resolve(&request(), "x", DType::Float32, &[Some(1), Some(3), None, None]).unwrap();
        assert_eq!(p.resize, ResizeMode::None);
        let t = p.from_rgb(&[0; 5 * 3 * 3], 5, 3);
        assert_eq!(t.shape, vec![1, 3, 3, 5]);
    }
}
