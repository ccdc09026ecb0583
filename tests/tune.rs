//! `dmlrun tune` on Linux's CPU EP: it keeps a candidate only where the paired test says faster
//! and its outputs agree with the original's, and says so where nothing helps. DirectML's figures
//! come from the GPU machine (docs/gpu.md).

mod common;

use common::*;

fn tune(model: &std::path::Path, extra: &[&str]) -> (std::process::Output, serde_json::Value) {
    let out = dmlrun().arg("tune").arg(model).args(["--ep", "cpu", "--json", "-", "-q"]).args(extra).output().unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out, report)
}

/// ONNX Runtime's CPU kernel dequantizes a MatMulNBits without an accuracy level on every run:
/// tune finds `--matmulnbits-accuracy-level` faster (and the weights dequantized: the other
/// remedy for that kernel), checks it, and writes the model with the faster.
#[test]
fn tune_finds_the_int8_kernels_a_quantizer_left_unasked_and_writes_them() {
    let dir = tempfile::tempdir().unwrap();
    models_made_by("scripts/make_quantized_models.py", dir.path(), &[]);
    let output = dir.path().join("tuned.onnx");
    let model = dir.path().join("nbits_wide_8b.onnx");
    let (out, report) =
        // int8 activations move a 1024-long dot product's sum by up to about 1 in 10: the tolerance
        // the user accepts for that speed is theirs to give.
        tune(&model, &["--budget", "12s", "--generate", "random", "--rtol", "0.1", "--atol", "1.5", "-o", output.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let candidates = report["candidates"].as_array().unwrap();
    let level = candidates.iter().find(|c| c["flags"][0] == "--matmulnbits-accuracy-level").unwrap();
    assert_eq!(level["outcome"], "faster", "{report}");
    let change = &level["change"];
    assert!(change["ratio"].as_f64().unwrap() < 1.0 && change["p_value"].as_f64().unwrap() < 0.05, "{change}");
    // The written model alone is the chosen form: its node has the level, or (dequantized, the
    // other remedy tune tries for a MatMulNBits) is a MatMul; its record says what was measured.
    let info = dmlrun::formats::model::ModelInfo::from_bytes(&std::fs::read(&output).unwrap()).unwrap();
    match report["chosen"][0].as_str().unwrap() {
        "--matmulnbits-accuracy-level" => assert_eq!(info.nodes[0].int("accuracy_level"), Some(4)),
        "--dequantize-matmulnbits" => assert_eq!(info.nodes[0].op_type, "MatMul"),
        other => panic!("chose {other}: {report}"),
    }
    let tuned = info.metadata.iter().find(|(k, _)| k == "dmlrun.tuned").map(|(_, v)| v.clone()).unwrap();
    assert!(tuned.contains("x the original's p50") && tuned.contains("Mann-Whitney U"), "{tuned}");
    // The rule that does not fit is said, with why.
    let not_fitting = report["not_fitting"].to_string();
    assert!(not_fitting.contains("--matmul-as-mul-reducesum: the model has no MatMul"), "{not_fitting}");
}

/// Where nothing is faster (float16 on a CPU, an optimisation level that changes nothing), tune
/// says the original is the fastest and writes nothing.
#[test]
fn tune_says_so_where_nothing_is_faster_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("tuned.onnx");
    let model = test_model("add_mul.onnx");
    let (out, report) =
        tune(&model, &["--budget", "6s", "--generate", "random", "--dim", "batch=1", "-o", output.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let flags: Vec<String> =
        report["candidates"].as_array().unwrap().iter().map(|c| c["flags"][0].as_str().unwrap().to_string()).collect();
    assert_eq!(flags, ["--precision fp16", "--opt-level extended"], "{report}");
    for candidate in report["candidates"].as_array().unwrap() {
        assert_ne!(candidate["outcome"], "faster", "{candidate}");
    }
    assert_eq!(report["chosen"], serde_json::json!([]));
    assert!(!output.exists(), "nothing written where nothing was faster");
    let text = dmlrun()
        .arg("tune")
        .arg(&model)
        .args(["--ep", "cpu", "--budget", "4s", "--generate", "random", "--dim", "batch=1", "-q"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("fastest     : the original: no candidate was measured faster here"), "{text}");
}

#[test]
fn tune_refuses_what_it_cannot_tune_or_write_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let out = dmlrun().arg("tune").arg(dir.path()).output().unwrap();
    assert_one_line_error(&out, "is a folder without genai_config.json");
    let out =
        dmlrun().arg("tune").arg(test_model("add_mul.onnx")).args(["-o", "/nonexistent-dir/x.onnx"]).output().unwrap();
    assert_one_line_error(&out, "--output /nonexistent-dir/x.onnx");
    // A genai folder is written into a folder, never over one that holds something.
    let out = dmlrun().arg("tune").arg(test_model("tiny_decoder")).args(["-o", "tuned.onnx"]).output().unwrap();
    assert_one_line_error(&out, "a genai folder is written into a folder");
    let out = dmlrun().arg("tune").arg(test_model("tiny_decoder")).arg("-o").arg(test_model("")).output().unwrap();
    assert_one_line_error(&out, "--output");
}

/// A decoder (a genai folder) quantized to int8 with no accuracy level, as a quantizer leaves it:
/// tune checks `--matmulnbits-accuracy-level` by the tokens it generates against the CPU
/// reference's, times it as generate does (each in a child), finds it faster, and writes the
/// folder with it, which generates on its own.
#[test]
fn tune_of_a_genai_folder_times_decode_steps_and_writes_the_faster_folder() {
    let dir = tempfile::tempdir().unwrap();
    let int8 = dir.path().join("int8");
    let saved = dmlrun()
        .args([
            "generate",
            "--ep",
            "cpu",
            "--precision",
            "int8",
            "--accuracy-level",
            "0",
            "--prompt-tokens",
            "8",
            "-n",
            "2",
            "-q",
        ])
        .arg(test_model("tiny_decoder"))
        .arg("--save-model")
        .arg(&int8)
        .output()
        .unwrap();
    assert!(saved.status.success(), "{}", String::from_utf8_lossy(&saved.stderr));
    let tuned = dir.path().join("tuned");
    let (out, report) = tune(
        &int8,
        &[
            "--budget",
            "60s",
            "--prompt-tokens",
            "32",
            "-n",
            "32",
            "--isolation",
            "process",
            "-o",
            tuned.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        report["timed"].as_str().unwrap().contains("each decode step (ms) and the time to first token, a 32-token"),
        "{report}"
    );
    let candidates = report["candidates"].as_array().unwrap();
    let level = candidates.iter().find(|c| c["flags"][0] == "--matmulnbits-accuracy-level").unwrap();
    assert_eq!(level["outcome"], "faster", "{report}");
    assert!(level["change"]["ratio"].as_f64().unwrap() < 1.0 && level["ttft"]["verdict"] != "regression", "{level}");
    // A decoder is not converted to float16: no such candidate.
    assert!(candidates.iter().all(|c| c["flags"][0] != "--precision fp16"), "{report}");
    assert_eq!(report["written"].as_str().map(std::path::PathBuf::from), Some(tuned.clone()));
    // The folder: the config and tokenizer copied, the decoder with the level and its record.
    for file in ["genai_config.json", "tokenizer.json", "model.onnx"] {
        assert!(tuned.join(file).is_file(), "{file}");
    }
    let info =
        dmlrun::formats::model::ModelInfo::from_bytes(&std::fs::read(tuned.join("model.onnx")).unwrap()).unwrap();
    let nbits: Vec<_> = info.nodes.iter().filter(|n| n.op_type == "MatMulNBits").collect();
    // Both remedies for its kernel are faster; the faster of the two is written (the other has
    // nothing left to rewrite after it, so they are not combined).
    let dequantized = candidates.iter().find(|c| c["flags"][0] == "--dequantize-matmulnbits").unwrap();
    assert_eq!(dequantized["outcome"], "faster", "{report}");
    // Another candidate (an optimisation level) may be kept beside it on a busy machine; the two
    // forms of the one kernel never are.
    let chosen: Vec<&str> = report["chosen"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert!(
        !(chosen.contains(&"--matmulnbits-accuracy-level") && chosen.contains(&"--dequantize-matmulnbits")),
        "{report}"
    );
    match chosen.iter().find(|f| f.contains("matmulnbits")).copied().unwrap_or_default() {
        "--matmulnbits-accuracy-level" => {
            assert!(!nbits.is_empty() && nbits.iter().all(|n| n.int("accuracy_level") == Some(4)))
        }
        "--dequantize-matmulnbits" => assert!(nbits.is_empty()),
        other => panic!("chose {other}: {report}"),
    }
    let record = info.metadata.iter().find(|(k, _)| k == "dmlrun.tuned").map(|(_, v)| v.clone()).unwrap();
    assert!(record.contains("the decode step") && record.contains("at a 32-token prompt"), "{record}");
    let generated = dmlrun()
        .args(["generate", "--ep", "cpu", "--prompt-tokens", "8", "-n", "4", "-q"])
        .arg(&tuned)
        .output()
        .unwrap();
    assert!(generated.status.success(), "{}", String::from_utf8_lossy(&generated.stderr));
}

/// A candidate that runs past its limit is that candidate's failure, said with the step it was
/// in; the search goes on and writes nothing.
#[test]
fn a_decoder_candidate_past_its_limit_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let tuned = dir.path().join("tuned");
    let (out, report) = tune(
        &test_model("tiny_decoder"),
        &["--budget", "60s", "--prompt-tokens", "96", "-n", "32", "--timeout", "200ms", "-o", tuned.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    for candidate in report["candidates"].as_array().unwrap() {
        assert_eq!(candidate["outcome"], "fails", "{candidate}");
        assert!(candidate["why"].as_str().unwrap().contains("ran past --timeout 200ms in"), "{candidate}");
    }
    assert!(!tuned.exists());
    // The GEMV form is tried on the whole decoder, then in the decode step alone right after it.
    let flags: Vec<&str> =
        report["candidates"].as_array().unwrap().iter().map(|c| c["flags"][0].as_str().unwrap()).collect();
    let whole = flags.iter().position(|f| *f == "--matmul-as-mul-reducesum").unwrap();
    assert_eq!(flags.get(whole + 1), Some(&"--decode-rewrite matmul-as-mul-reducesum"), "{flags:?}");
}

/// A model file's candidate that runs past its limit (in a child, as every candidate) is that
/// candidate's failure; the original ran within it, and nothing is written.
#[test]
fn a_model_candidate_past_its_limit_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("tuned.onnx");
    let model = test_model("add_mul.onnx");
    let (out, report) = tune(
        &model,
        &[
            "--budget",
            "9s",
            "--generate",
            "random",
            "--dim",
            "batch=1",
            "--timeout",
            "700ms",
            "-o",
            output.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let candidates = report["candidates"].as_array().unwrap();
    assert!(!candidates.is_empty());
    for candidate in candidates {
        assert_eq!(candidate["outcome"], "fails", "{candidate}");
        assert!(candidate["why"].as_str().unwrap().contains("ran past --timeout 700ms in"), "{candidate}");
    }
    assert!(!output.exists());
}
