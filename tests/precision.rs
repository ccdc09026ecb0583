//! `--precision fp16`: the model converted to float16 before its session, its inputs and outputs
//! float32, and the report of what changed: on the CPU EP here (DirectML's float16 on the GPU is
//! in docs/gpu.md).

mod common;

use common::{assert_one_line_error, dmlrun, run_json, sample, test_model};

#[test]
fn the_sample_classified_in_float16_keeps_its_class_and_says_how_far_it_moved() {
    let model = sample("squeezenet1.1.onnx");
    let cat = sample("cat.png");
    let args = [model.to_str().unwrap(), "--input", cat.to_str().unwrap(), "--top-k", "3", "--iterations", "1"];
    let float32 = run_json(&args);
    let float16 = run_json(&[&args[..], &["--precision", "fp16"]].concat());
    let classes = |r: &serde_json::Value| common::top_indices(r, 0);
    assert_eq!(classes(&float16), classes(&float32), "the same three classes, in the same order");
    let precision = &float16["precision"];
    assert_eq!(precision["conversion"]["nodes_converted"], 69);
    assert_eq!(precision["conversion"]["tensors_converted"], 54);
    assert_eq!(precision["conversion"]["casts_inserted"], 2, "the input in, the output out");
    let prob = &precision["outputs"][0];
    assert_eq!(prob["output"], "prob");
    assert_eq!(prob["agreement"], serde_json::json!({"rows": 1, "top1": 1, "top5": 1}));
    let max_abs = prob["max_abs"].as_f64().unwrap();
    assert!(max_abs > 0.0 && max_abs < 1e-2, "float16 weights move the probabilities a little: {max_abs}");
    assert_eq!(float16["plan"]["precision"], "fp16");
    assert!(float32.get("precision").is_none());
}

#[test]
fn bench_times_the_float32_model_beside_the_float16_one() {
    let out = dmlrun()
        .arg("bench")
        .arg(sample("squeezenet1.1.onnx"))
        .args(["--iterations", "5", "--precision", "fp16", "--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let precision = &report["models"][0]["precision"];
    assert_eq!(precision["float32_latency_ms"]["count"], 5, "{precision}");
    assert!(precision["outputs"][0]["max_abs"].as_f64().is_some());
    let human = dmlrun()
        .arg("bench")
        .arg(sample("squeezenet1.1.onnx"))
        .args(["--iterations", "5", "--precision", "fp16", "-q"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&human.stdout);
    assert!(table.contains("float16: 69 of 69 nodes in float16") && table.contains("float32 p50 "), "{table}");
}

#[test]
fn test_and_reduce_run_the_float16_model() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("add_mul");
    dmlrun()
        .arg(test_model("add_mul.onnx"))
        .args(["--generate", "random", "--dim", "batch=2", "-q", "--as-test-data", "--save-outputs"])
        .arg(&case)
        .assert()
        .success();
    for isolation in ["none", "process"] {
        let out = dmlrun()
            .arg("test")
            .arg(&case)
            .args(["--precision", "fp16", "--rtol", "1e-2", "--atol", "1e-3", "--isolation", isolation])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "--isolation {isolation}: {}", String::from_utf8_lossy(&out.stdout));
    }
    // reduce converts once and reduces the float16 model: under the Gelu approximation the two
    // EPs agree in float16 within the tolerance, and the error names the model it converted.
    let out = dmlrun()
        .arg("reduce")
        .arg(test_model("gelu_chain.onnx"))
        .args(["--generate", "ones", "--dim", "N=2", "--ep", "cpu"])
        .args(["--session-config", "optimization.enable_gelu_approximation=1", "--precision", "fp16", "-q"])
        .arg("-o")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("reduce: --precision fp16: 6 of 6 nodes in float16"), "{stderr}");
    let named =
        format!("model {} (converted to float16 by --precision fp16): ", test_model("gelu_chain.onnx").display());
    assert!(stderr.contains(&named) && !stderr.contains(".fp16.onnx"), "{stderr}");
}

#[test]
fn what_float16_does_not_apply_to_is_refused_in_one_line() {
    let model = test_model("add_mul.onnx");
    let out = dmlrun().arg(&model).args(["--generate", "ones", "--keep-fp32", "Add"]).output().unwrap();
    assert_one_line_error(&out, "--keep-fp32 names what --precision fp16 leaves in float32");
    let out = dmlrun().arg("generate").arg(test_model("tiny_decoder")).args(["--precision", "fp16"]).output().unwrap();
    assert_one_line_error(&out, "--precision fp16 converts a model for run, test, bench and reduce");
}
