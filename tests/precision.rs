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
fn bench_with_a_baseline_model_gives_the_float32_pair_one_verdict() {
    let model = sample("squeezenet1.1.onnx");
    let out = dmlrun()
        .arg("bench")
        .arg(&model)
        .arg("--baseline-model")
        .arg(&model)
        .args(["--iterations", "5", "--precision", "fp16", "-q"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(!table.contains("takes") && !table.contains("float32 p50"), "float32 timed once, in rounds: {table}");
    assert!(table.contains("float32 timed as the --baseline-model, in rounds with it"), "{table}");
}

/// tests/models/NAME.onnx's outputs on random inputs (its free dimension `dim`), frozen as a
/// test case in `dir`.
fn frozen_case(name: &str, dim: &str, dir: &std::path::Path) -> std::path::PathBuf {
    let case = dir.join(name);
    dmlrun()
        .arg(test_model(&format!("{name}.onnx")))
        .args(["--generate", "random", "--dim", dim, "-q", "--as-test-data", "--save-outputs"])
        .arg(&case)
        .assert()
        .success();
    case
}

#[test]
fn test_and_reduce_run_the_float16_model() {
    let dir = tempfile::tempdir().unwrap();
    let case = frozen_case("add_mul", "batch=2", dir.path());
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
    assert_one_line_error(&out, "--keep-fp32 names what --precision fp16 (or int4, int8) leaves as written");
    let out = dmlrun().arg("generate").arg(test_model("tiny_decoder")).args(["--precision", "fp16"]).output().unwrap();
    assert_one_line_error(&out, "--precision fp16 converts a model for run, test, bench and reduce");
}

/// One run of `model` on random inputs (N=2), with `extra` flags; the report.
fn run_on(model: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let args = [model.to_str().unwrap(), "--generate", "random", "--dim", "N=2", "--iterations", "1"];
    run_json(&[&args[..], extra].concat())
}

/// `tests/models/matmul_weights.onnx`'s five MatMuls, quantized with `extra` flags; the report.
fn quantized(precision: &str, extra: &[&str]) -> serde_json::Value {
    run_on(&test_model("matmul_weights.onnx"), &[&["--precision", precision][..], extra].concat())
}

#[test]
fn int4_converts_each_matmul_with_a_constant_2d_weight_and_says_why_it_left_the_others() {
    let report = quantized("int4", &[]);
    let q = &report["precision"]["quantization"];
    assert_eq!(
        (q["bits"].as_u64(), q["block_size"].as_u64(), q["symmetric"].as_bool()),
        (Some(4), Some(32), Some(true))
    );
    assert_eq!((q["matmuls"].as_u64(), q["converted"].as_u64()), (Some(5), Some(3)), "{q}");
    let left: Vec<(String, String)> = q["left"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["node"].as_str().unwrap().to_string(), l["why"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(
        left,
        [
            ("computed".to_string(), "its weight is computed, not an initializer".to_string()),
            ("batched".to_string(), "its weight has 3 dimensions, not 2".to_string()),
        ]
    );
    assert_eq!(q["padded"], serde_json::json!(["partial"]), "K 48 is 1.5 blocks of 32: padded as ONNX Runtime pads it");
    // [64,48] + [48,32] + [32,10] float32 weights; 4 bits a value, a float32 scale a 32-block.
    assert_eq!(q["bytes_before"], (64 * 48 + 48 * 32 + 32 * 10) * 4);
    assert_eq!(q["bytes_after"], 48 * 2 * 16 + 48 * 2 * 4 + 32 * 2 * 16 + 32 * 2 * 4 + 10 * 16 + 10 * 4);
    let y = &report["precision"]["outputs"][0];
    let max_abs = y["max_abs"].as_f64().unwrap();
    assert!(max_abs > 0.0 && max_abs < 1.0, "int4 moves the outputs, a little: {max_abs}");
    assert_eq!(report["plan"]["precision"], "int4");
    // int8: the same MatMuls, a quarter of the error or less.
    let int8 = quantized("int8", &[]);
    assert_eq!(int8["precision"]["quantization"]["converted"], 3);
    assert!(int8["precision"]["outputs"][0]["max_abs"].as_f64().unwrap() < max_abs / 4.0);
}

#[test]
fn keep_fp32_leaves_a_matmul_named_by_a_pattern_and_asymmetric_adds_zero_points() {
    let report = quantized("int4", &["--keep-fp32", "he*d", "--asymmetric", "--block-size", "16"]);
    let q = &report["precision"]["quantization"];
    assert_eq!(
        (q["converted"].as_u64(), q["symmetric"].as_bool(), q["block_size"].as_u64()),
        (Some(2), Some(false), Some(16))
    );
    assert!(
        q["left"].as_array().unwrap().iter().any(|l| l["node"] == "head" && l["why"] == "kept by --keep-fp32"),
        "{q}"
    );
    // 16-blocks: [64,48] has 4 a column, [48,32] 3 (zero points two a byte: 2 and 2 bytes a column).
    let scales = 48 * 4 * 4 + 32 * 3 * 4;
    let zero_points = 48 * 2 + 32 * 2;
    assert_eq!(q["bytes_after"], 48 * 4 * 8 + 32 * 3 * 8 + scales + zero_points);
}

#[test]
fn the_saved_int4_model_alone_gives_the_runs_outputs_and_says_what_was_done() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("int4.onnx");
    let report = quantized("int4", &["--seed", "7", "--save-model", saved.to_str().unwrap()]);
    let alone = run_on(&saved, &["--seed", "7"]);
    assert_eq!(alone["outputs"], report["outputs"]);
    let info = dmlrun::formats::model::ModelInfo::from_bytes(&std::fs::read(&saved).unwrap()).unwrap();
    assert_eq!(info.op_types.get("MatMulNBits"), Some(&3));
    let record: std::collections::HashMap<_, _> = info.metadata.iter().cloned().collect();
    assert_eq!(record.get("dmlrun.precision").map(String::as_str), Some("int4"));
    let what = record.get("dmlrun.quantization").unwrap();
    assert!(
        what.starts_with(
            "int4, block 32, symmetric, accuracy level 4 (int8 activations): 3 of 5 MatMuls now MatMulNBits"
        ),
        "{what}"
    );
}

#[test]
fn test_and_bench_run_the_quantized_model_beside_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let case = frozen_case("matmul_weights", "N=2", dir.path());
    let out =
        dmlrun().arg("test").arg(&case).args(["--precision", "int8", "--atol", "0.1", "--json", "-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["cases"][0]["precision"]["quantization"]["converted"], 3, "{report}");
    let bench = dmlrun()
        .arg("bench")
        .arg(test_model("matmul_weights.onnx"))
        .args(["--dim", "N=2", "--iterations", "5", "--precision", "int4", "-q"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&bench.stdout);
    assert!(bench.status.success(), "{}", String::from_utf8_lossy(&bench.stderr));
    assert!(
        table.contains("int4: int4, block 32, symmetric, accuracy level 4 (int8 activations): 3 of 5 MatMuls")
            && table.contains("the original p50 "),
        "{table}"
    );
}

#[test]
fn what_int4_does_not_take_is_refused_in_one_line() {
    let model = test_model("matmul_weights.onnx");
    let out = dmlrun()
        .arg(&model)
        .args(["--generate", "ones", "--dim", "N=1", "--precision", "int4", "--block-size", "48"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "'48' is not a block size ONNX Runtime's quantizer takes: 16, 32, 64, 128 or 256");
    let out = dmlrun().arg(&model).args(["--generate", "ones", "--dim", "N=1", "--block-size", "64"]).output().unwrap();
    assert_one_line_error(
        &out,
        "--block-size, --asymmetric and --accuracy-level say how --precision int4 or int8 quantizes the weights",
    );
    let decoder = test_model("tiny_decoder");
    let out =
        dmlrun().arg("generate").arg(&decoder).args(["--prompt-tokens", "4", "--save-model", "x"]).output().unwrap();
    assert_one_line_error(
        &out,
        "--save-model x: generate writes a decoder it quantized; give --precision int4 or int8",
    );
}

#[test]
fn generate_quantizes_a_decoder_and_saves_it_as_a_folder_that_gives_the_same_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("tiny-int4");
    let decoder = test_model("tiny_decoder");
    let args = ["--prompt-tokens", "6", "-n", "6", "--json", "-", "-q"];
    let quantize_and_save = || {
        let int4 = ["--precision", "int4", "--save-model"];
        dmlrun().arg("generate").arg(&decoder).args(args).args(int4).arg(&saved).output().unwrap()
    };
    let out = quantize_and_save();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let on_the_fly: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(on_the_fly["quantization"]["converted"], 15, "{}", on_the_fly["quantization"]);
    let mut files: Vec<String> =
        std::fs::read_dir(&saved).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "genai_config.json",
            "genai_expected.json",
            "model.onnx",
            "model.onnx.data",
            "tokenizer.json",
            "tokenizer_config.json"
        ]
    );
    let out = dmlrun().arg("generate").arg(&saved).args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let from_saved: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(from_saved["prompts"][0]["token_ids"], on_the_fly["prompts"][0]["token_ids"]);
    assert!(from_saved.get("quantization").is_none(), "the saved folder runs as it is");
    // A folder that is not empty is refused before anything runs.
    let out = quantize_and_save();
    assert_one_line_error(&out, "exists and is not an empty folder (name a new one)");
}

#[test]
fn fix_writes_the_quantized_model_when_it_passes_at_the_tolerance_given() {
    let dir = tempfile::tempdir().unwrap();
    let fixed = dir.path().join("fixed.onnx");
    let out = dmlrun()
        .arg("fix")
        .arg(test_model("matmul_weights.onnx"))
        .args(["--precision", "int4", "--dim", "N=2", "--generate", "random", "--atol", "0.5", "-q", "-o"])
        .arg(&fixed)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let info = dmlrun::formats::model::ModelInfo::from_bytes(&std::fs::read(&fixed).unwrap()).unwrap();
    assert_eq!(info.op_types.get("MatMulNBits"), Some(&3));
    assert!(info.metadata.iter().any(|(k, v)| k == "dmlrun.precision" && v == "int4"), "{:?}", info.metadata);
}

/// The accuracy level of every MatMulNBits in a saved model (none where the attribute is left out).
fn accuracy_levels(saved: &std::path::Path) -> Vec<Option<i64>> {
    let info = dmlrun::formats::model::ModelInfo::from_bytes(&std::fs::read(saved).unwrap()).unwrap();
    info.nodes.iter().filter(|n| n.op_type == "MatMulNBits").map(|n| n.ints.get("accuracy_level").copied()).collect()
}

#[test]
fn the_cpu_ep_gets_accuracy_level_4_by_default_and_the_flag_overrides_it() {
    let dir = tempfile::tempdir().unwrap();
    let default = dir.path().join("default.onnx");
    let report = quantized("int8", &["--save-model", default.to_str().unwrap()]);
    assert_eq!(report["precision"]["quantization"]["accuracy_level"], 4, "{report}");
    assert_eq!(report["plan"]["quantization"]["accuracy_level"], 4);
    assert_eq!(accuracy_levels(&default), [Some(4); 3]);
    // The int8 kernels move the outputs by the activations' quantization too, a little.
    let max_abs = report["precision"]["outputs"][0]["max_abs"].as_f64().unwrap();
    assert!(max_abs > 0.0 && max_abs < 0.5, "{max_abs}");

    let unset = dir.path().join("unset.onnx");
    let report = quantized("int8", &["--accuracy-level", "0", "--save-model", unset.to_str().unwrap()]);
    assert!(report["precision"]["quantization"].get("accuracy_level").is_none(), "{report}");
    assert_eq!(accuracy_levels(&unset), [None; 3], "0 leaves the attribute out, as ONNX Runtime's quantizer does");
    let out = dmlrun()
        .arg(test_model("matmul_weights.onnx"))
        .args(["--generate", "ones", "--dim", "N=1", "--precision", "int4", "--accuracy-level", "5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--accuracy-level"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn int4_with_nothing_to_quantize_or_a_keep_that_matches_nothing_is_refused_naming_what_there_is() {
    let out = dmlrun()
        .arg(test_model("add_mul.onnx"))
        .args(["--generate", "ones", "--dim", "batch=1", "--precision", "int4"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "--precision int4: the model has no MatMul to quantize");
    let out = dmlrun()
        .arg(test_model("matmul_weights.onnx"))
        .args(["--generate", "ones", "--dim", "N=1", "--precision", "int8", "--keep-fp32", "nomatch*"])
        .output()
        .unwrap();
    assert_one_line_error(
        &out,
        "--keep-fp32 nomatch*: no MatMul of the model is named so or matches it (its MatMuls: ",
    );
    // A model quantized already is said to be.
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("int4.onnx");
    quantized("int4", &["--save-model", saved.to_str().unwrap()]);
    let out =
        dmlrun().arg(&saved).args(["--generate", "ones", "--dim", "N=1", "--precision", "int4"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Two MatMuls were left as written (computed and batched weights): nothing of them quantizes.
    assert!(
        stderr.contains("--precision int4: nothing to quantize in ") && stderr.contains("0 of 2 MatMuls"),
        "{stderr}"
    );
    // In a bench of several models, the one without a MatMul runs as written, and that is said.
    let bench = dmlrun()
        .arg("bench")
        .arg(test_model("add_mul.onnx"))
        .arg(test_model("matmul_weights.onnx"))
        .args(["--dim", "N=1", "--dim", "batch=1", "--iterations", "2", "--precision", "int4", "--json", "-", "-q"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&bench.stdout).unwrap();
    let text = report.to_string();
    assert!(text.contains("--precision int4 not applied: this model has no MatMul to quantize"), "{text}");
}

#[test]
fn float16_of_a_model_with_external_data_reads_its_tensors_where_they_are_and_leaves_nothing_beside_it() {
    // The float32 run that finds the float tensors exposes them in a copy of the model written
    // beside the original (its external data read from its own file: a model past protobuf's
    // 2 GiB, ViT-H/14 or Stable Diffusion's UNet, converts so), removed after the run.
    let dir = tempfile::tempdir().unwrap();
    for f in ["external_weights.onnx", "external_weights.bin"] {
        std::fs::copy(test_model(f), dir.path().join(f)).unwrap();
    }
    let model = dir.path().join("external_weights.onnx");
    let out = dmlrun()
        .arg(&model)
        .args(["--ep", "cpu", "--precision", "fp16", "--generate", "ones", "--iterations", "1", "--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["precision"]["conversion"]["tensors_converted"], 1, "{report}");
    let mut left: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, ["external_weights.bin", "external_weights.onnx"], "nothing left beside the model");
}
