//! Image preprocessing equals torchvision's, bit for bit: dmlrun's prepared tensors
//! (`--save-inputs`) against scripts/torchvision_reference.py, which computes Resize(256),
//! CenterCrop(224), ToTensor and Normalize from torchvision's source arithmetic with Pillow and
//! numpy, on 4:3, 3:4, 2:3, square, exact and one-pixel-wide pictures, PNG and JPEG, and on
//! pictures in the modes Pillow's `convert('RGB')` takes: 16-bit grey, RGB and grey with alpha,
//! 1-bit, and a palette with a transparent entry.

mod common;

use common::{dmlrun, python_with, read_npy, root, sample};

/// Writes the pictures and the reference tensors into `work`; returns the pictures in order.
fn reference(work: &std::path::Path) -> Vec<String> {
    let python = python_with("numpy, PIL", &["numpy", "pillow"]);
    let status = std::process::Command::new(python)
        .arg(root().join("scripts/torchvision_reference.py"))
        .arg(work)
        .status()
        .expect("python3 runs");
    assert!(status.success(), "scripts/torchvision_reference.py failed");
    serde_json::from_slice(&std::fs::read(work.join("cases.json")).unwrap()).unwrap()
}

/// dmlrun's prepared batch of `pictures` for the sample model with `--channel-order order`.
fn prepared(work: &std::path::Path, pictures: &[String], order: &str) -> dmlrun::tensor::HostTensor {
    let saved = work.join(format!("prepared-{order}"));
    let mut cmd = dmlrun();
    cmd.arg(sample("squeezenet1.1.onnx")).args(["--ep", "cpu", "--iterations", "1", "-q"]);
    for picture in pictures {
        cmd.args(["--input", picture]);
    }
    cmd.args(["--channel-order", order, "--save-inputs"]).arg(&saved).assert().success();
    read_npy(&saved.join("input.npy"))
}

#[test]
fn imagenet_preprocessing_equals_torchvision_bit_for_bit() {
    let work = tempfile::tempdir().unwrap();
    let pictures = reference(work.path());
    assert_eq!(pictures.len(), 22, "8 sizes, PNG and JPEG; 6 pictures in other modes");
    for order in ["rgb", "bgr"] {
        let want = read_npy(&work.path().join(format!("reference-{order}.npy")));
        let got = prepared(work.path(), &pictures, order);
        assert_eq!(got.shape, want.shape);
        let (got, want) = (got.to_f64().unwrap(), want.to_f64().unwrap());
        let per_picture = got.len() / pictures.len();
        let differing: Vec<String> = pictures
            .iter()
            .enumerate()
            .filter_map(|(i, picture)| {
                let range = i * per_picture..(i + 1) * per_picture;
                let (g, w) = (&got[range.clone()], &want[range]);
                let count = g.iter().zip(w).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
                let max = g.iter().zip(w).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
                (count > 0).then(|| format!("{picture} ({order}): {count} values differ, max {max}"))
            })
            .collect();
        assert!(differing.is_empty(), "differs from torchvision's arithmetic: {differing:#?}");
    }
}
