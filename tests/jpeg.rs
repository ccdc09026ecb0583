//! JPEG decoding equals Pillow's, pixel for pixel, on every kind of JPEG in tests/data/jpeg
//! (written by `scripts/jpeg_vs_pillow.py --write`, which stored the SHA-256 of Pillow's RGB
//! pixels for each). `scripts/jpeg-vs-pillow` runs the same comparison live against the
//! installed Pillow and counts differing pixels.

mod common;

use common::data;
use sha2::{Digest, Sha256};

#[test]
fn every_jpeg_decodes_to_pillows_pixels() {
    let folder = data("jpeg");
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("pillow.json")).unwrap()).unwrap();
    let cases = expected["cases"].as_object().unwrap();
    assert!(cases.len() >= 20, "the case set is complete: {}", cases.len());
    let mut differing = Vec::new();
    let mut pixels = 0;
    for (name, want) in cases {
        let bytes = std::fs::read(folder.join(name)).unwrap();
        let picture = dmlrun::formats::jpeg::decode_rgb(&bytes, u64::MAX).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            (picture.width as u64, picture.height as u64),
            (want["width"].as_u64().unwrap(), want["height"].as_u64().unwrap()),
            "{name}: size"
        );
        pixels += picture.width * picture.height;
        let digest = format!("{:x}", Sha256::digest(&picture.pixels));
        if digest != want["sha256"].as_str().unwrap() {
            differing.push(name.clone());
        }
    }
    assert!(
        differing.is_empty(),
        "decoded differently from Pillow (scripts/jpeg-vs-pillow counts the pixels): {differing:?}"
    );
    assert!(pixels > 600_000, "{pixels} pixels compared");
}

#[test]
fn the_pixel_limit_is_checked_before_decoding() {
    let bytes = std::fs::read(data("jpeg").join("coffee-420-q90.jpg")).unwrap();
    let err = dmlrun::formats::jpeg::decode_rgb(&bytes, 1000).unwrap_err().to_string();
    assert_eq!(err, "600x400 pixels exceeds the limit of 1000 pixels (--max-image-pixels)");
}

#[test]
fn a_truncated_jpeg_is_refused_as_pillow_refuses_it() {
    let bytes = std::fs::read(data("jpeg").join("odd-420-q85.jpg")).unwrap();
    // Pillow refuses every one of these, the last missing only its end-of-image marker.
    for cut in [2, 20, 200, bytes.len() / 2, bytes.len() - 2] {
        let err = dmlrun::formats::jpeg::decode_rgb(&bytes[..cut], u64::MAX).unwrap_err().to_string();
        assert!(err.starts_with("cannot decode"), "{cut}: {err}");
    }
    let err = dmlrun::formats::jpeg::decode_rgb(&bytes[..bytes.len() / 2], u64::MAX).unwrap_err().to_string();
    assert_eq!(err, "cannot decode: the file is truncated (its image data ends early)");
}
