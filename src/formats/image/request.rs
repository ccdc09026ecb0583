//! What the preprocessing flags ask: the resize mode, channel order, layout and preset, and the
//! request they make, before a model's input says what it takes.

use super::*;

/// How the picture is fitted to the model's height and width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResizeMode {
    /// Resize the shorter side (to `--resize-to`, default crop/0.875), then centre-crop.
    Crop,
    /// Resize to exactly the model's size, ignoring the aspect ratio.
    Stretch,
    /// Fit inside the model's size keeping the aspect ratio, pad the rest with `--pad-value`.
    Letterbox,
    /// No resizing: centre-crop to the model's size, padding with zeros where the picture is
    /// smaller (torchvision's `CenterCrop` alone).
    CenterCrop,
    /// No resizing: the image must already have the model's size.
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChannelOrder {
    Rgb,
    Bgr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    Nchw,
    Nhwc,
}

/// Named sets of preprocessing settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// torchvision ImageNet: crop mode, [0,1] then mean [0.485,0.456,0.406] / std [0.229,0.224,0.225], RGB.
    Imagenet,
    /// Stretch to size, scale to [0,1], no mean/std, RGB.
    Unit,
    /// Stretch to size, pixel values 0..255 unchanged, RGB.
    Raw,
}

/// User overrides on top of a preset; `None` keeps the preset's value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreprocessRequest {
    pub preset: Option<Preset>,
    pub resize: Option<ResizeMode>,
    pub resize_to: Option<usize>,
    pub filter: Option<Filter>,
    pub scale: Option<f32>,
    pub mean: Option<Vec<f32>>,
    pub std: Option<Vec<f32>>,
    pub channel_order: Option<ChannelOrder>,
    pub layout: Option<Layout>,
    pub pad_value: Option<u8>,
    /// `HEIGHTxWIDTH` used when the model's spatial dimensions are symbolic and not fixed by `--dim`.
    pub size: Option<(usize, usize)>,
    /// Pixel limit against decompression bombs.
    pub max_pixels: u64,
}

flag_values!(ResizeMode {
    Crop => "crop",
    Stretch => "stretch",
    Letterbox => "letterbox",
    CenterCrop => "center-crop",
    None => "none",
});
flag_values!(ChannelOrder { Rgb => "rgb", Bgr => "bgr" });
flag_values!(Layout { Nchw => "nchw", Nhwc => "nhwc" });
flag_values!(Preset { Imagenet => "imagenet", Unit => "unit", Raw => "raw" });
display_as_flag_value!(ResizeMode, ChannelOrder, Preset);

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Layout::Nchw => "NCHW",
            Layout::Nhwc => "NHWC",
        })
    }
}
