//! The quantized forms DirectML users deploy, made by the project's scripts
//! (scripts/make_quantized_models.py: GatherBlockQuantized from `onnx.helper`; the int8 convnets in
//! tests/models/quantized/ from ONNX Runtime's quantize_static; MatMulNBits from
//! `--precision int4`): what `info` says of each, and each through the commands on the CPU EP.

mod common;

use std::path::{Path, PathBuf};

use common::*;

fn quantized(name: &str) -> PathBuf {
    root().join("tests/models/quantized").join(name)
}

fn info_json(model: &Path) -> serde_json::Value {
    let out = dmlrun().arg("info").arg(model).args(["--json", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn info_line(model: &Path) -> String {
    let out = dmlrun().arg("info").arg(model).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines().find(|l| l.starts_with("quantized")).map(str::to_string).unwrap_or_default()
}

#[test]
fn info_says_which_quantized_form_a_model_holds() {
    // int8 from quantize_static: QDQ per channel and per tensor, and QOperator.
    let pc = info_json(&quantized("convnet_qdq_pc.onnx"));
    let weights = &pc["quantized"]["qdq_weights"];
    assert_eq!(weights["int8 per-channel"], 3, "{pc}");
    assert_eq!(pc["quantized"]["quantize_linear"], 7, "{pc}");
    assert!(info_line(&quantized("convnet_qdq_pc.onnx")).contains("QDQ: QuantizeLinear 7, DequantizeLinear 13"));
    let pt = info_json(&quantized("convnet_qdq_pt.onnx"));
    assert_eq!(pt["quantized"]["qdq_weights"]["int8 per-tensor"], 3, "{pt}");
    let qop = info_json(&quantized("convnet_qop.onnx"));
    assert_eq!(qop["quantized"]["qoperator"]["QLinearConv"], 2, "{qop}");
    let share =
        qop["quantized"]["quantized_bytes"].as_f64().unwrap() / qop["quantized"]["weight_bytes"].as_f64().unwrap();
    assert!(share > 0.8 && share < 1.0, "the convolutions' int8 weights are most of the bytes: {qop}");
    // The float32 source holds none.
    let float = info_json(&quantized("convnet_fp32.onnx"));
    assert!(float.get("quantized").is_none(), "{float}");
    assert_eq!(info_line(&quantized("convnet_fp32.onnx")), "");

    // MatMulNBits as --precision int4 writes it: one of its three has K=48, not whole 32-blocks.
    let dir = tempfile::tempdir().unwrap();
    let int4 = dir.path().join("int4.onnx");
    let out = dmlrun()
        .arg(test_model("matmul_weights.onnx"))
        .args(["--precision", "int4", "--generate", "random", "--iterations", "1", "-q", "--save-model"])
        .arg(&int4)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line = info_line(&int4);
    assert!(
        line.contains("MatMulNBits 3 (4 bits, block 32, symmetric; 1 with K not a whole number of blocks)"),
        "{line}"
    );
    let group = &info_json(&int4)["quantized"]["blockwise"][0];
    assert_eq!(
        (group["bits"].as_i64(), group["block_size"].as_i64(), group["partial_blocks"].as_i64()),
        (Some(4), Some(32), Some(1))
    );

    // GatherBlockQuantized, the builder's embedding form.
    let python = python_with("onnx, numpy", &["onnx", "numpy"]);
    let status = std::process::Command::new(python)
        .arg(root().join("scripts/make_quantized_models.py"))
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let line = info_line(&dir.path().join("gbq_uint8_4b_k64_float16.onnx"));
    assert!(line.starts_with("quantized  GatherBlockQuantized 1 (4 bits, block 32, symmetric)"), "{line}");
    let line = info_line(&dir.path().join("gbq_uint8_8b_k32_float16_zp.onnx"));
    assert!(line.contains("GatherBlockQuantized 1 (8 bits, block 16, zero points)"), "{line}");
}

/// Each int8 form runs as it comes on the CPU EP, its top class is its float32 source's and its
/// probabilities within a few of uint8's steps (1/255) of the source's, and bench times it
/// beside the source in one session.
#[test]
fn int8_models_run_and_bench_beside_their_float32_source() {
    let top = |model: &Path| {
        let out = dmlrun()
            .arg(model)
            .args(["--generate", "random", "--seed", "3", "--generate-range=0,1", "--iterations", "1", "--json", "-"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}: {}", model.display(), String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let values: Vec<f64> =
            report["outputs"][0]["first_values"].as_array().unwrap().iter().filter_map(|v| v.as_f64()).collect();
        (report["device"]["placement"].clone(), values)
    };
    let (_, float) = top(&quantized("convnet_fp32.onnx"));
    for name in ["convnet_qdq_pc.onnx", "convnet_qdq_pt.onnx", "convnet_qop.onnx"] {
        let (placement, values) = top(&quantized(name));
        assert_eq!(placement[0]["execution_provider"], "CPUExecutionProvider", "{name}");
        assert_eq!(values.len(), 8, "{name}");
        let argmax = |v: &[f64]| (0..v.len()).max_by(|a, b| v[*a].total_cmp(&v[*b])).unwrap();
        assert_eq!(argmax(&values), argmax(&float), "{name}: {values:?} against {float:?}");
        let worst = values.iter().zip(&float).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(worst < 4.0 / 255.0, "{name}: {worst} from the float32 source");
    }
    let out = dmlrun()
        .arg("bench")
        .arg(quantized("convnet_qdq_pc.onnx"))
        .arg("--baseline-model")
        .arg(quantized("convnet_fp32.onnx"))
        .args(["--iterations", "10", "--warmup", "1", "--json", "-", "-q"])
        .output()
        .unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let old = &report["models"][0]["baseline_model"];
    assert!(old["model"].as_str().unwrap().ends_with("convnet_fp32.onnx"), "{old}");
    assert_eq!(old["samples_ms"].as_array().unwrap().len(), 10, "{old}");
}

/// `--compare-ep` on an int8 model's output counts the difference in its quantization steps: the
/// scale of the DequantizeLinear that writes it (QDQ per channel: 1/255, QOperator: 1/256), said
/// in JSON and in words; a float32 output has none.
#[test]
fn compare_ep_counts_a_quantized_outputs_difference_in_its_steps() {
    let compared = |name: &str| {
        let run = |extra: &[&str]| {
            let out = dmlrun()
                .arg(quantized(name))
                .args(["--ep", "cpu", "--compare-ep", "cpu", "--generate", "random", "--iterations", "1", "-q"])
                .args(extra)
                .output()
                .unwrap();
            assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
            out.stdout
        };
        let report: serde_json::Value = serde_json::from_slice(&run(&["--json", "-"])).unwrap();
        (report["comparison"]["differences"][0].clone(), String::from_utf8_lossy(&run(&[])).into_owned())
    };
    for (name, step) in [("convnet_qdq_pc.onnx", 1.0 / 255.0), ("convnet_qop.onnx", 1.0 / 256.0)] {
        let (difference, text) = compared(name);
        let found = difference["quantization_step"].as_f64().unwrap_or_else(|| panic!("{name}: {difference}"));
        assert!((found - step).abs() < 1e-6, "{name}: {difference}");
        assert!(text.contains("0 quantization steps (of 3.9"), "{name}: {text}");
    }
    let (difference, text) = compared("convnet_fp32.onnx");
    assert!(difference.get("quantization_step").is_none(), "{difference}");
    assert!(!text.contains("quantization step"), "{text}");
}
