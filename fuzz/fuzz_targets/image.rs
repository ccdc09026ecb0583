//! Encoded image bytes to an input tensor: decode (PNG, JPEG, BMP, WebP, TIFF), pixel limit,
//! resize/crop, normalise, lay out. Two preprocessings: a fixed 224x224 NCHW float32 ImageNet
//! crop, and free spatial dims (the picture keeps its size) as uint8 NHWC.
#![no_main]

use dmlrun::formats::image::{Preprocess, PreprocessRequest};
use dmlrun::tensor::DType;
use libfuzzer_sys::fuzz_target;

const MAX_PIXELS: u64 = 1 << 22;

fuzz_target!(|data: &[u8]| {
    let request = PreprocessRequest { max_pixels: MAX_PIXELS, ..Default::default() };
    let fixed = Preprocess::resolve(&request, "x", DType::Float32, &[Some(1), Some(3), Some(224), Some(224)])
        .expect("a 1x3x224x224 float input takes images");
    if let Ok(tensor) = fixed.from_encoded(data) {
        assert_eq!(tensor.shape, vec![1, 3, 224, 224]);
    }
    let free = Preprocess::resolve(&request, "x", DType::Uint8, &[Some(1), None, None, Some(3)])
        .expect("a uint8 NHWC input with free height and width takes images");
    if let Ok(tensor) = free.from_encoded(data) {
        assert_eq!(tensor.shape.len(), 4);
        assert!(tensor.shape[1] * tensor.shape[2] <= MAX_PIXELS as usize);
    }
});
