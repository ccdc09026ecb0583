//! Real models as they come (issue 19): unnamed and repeated dimensions, whole input shapes,
//! generated values a model accepts, non-tensor outputs, and the reports around them.

mod common;

use common::*;
use dmlrun::tensor::{DType, HostTensor};

fn paddle_cls() -> String {
    test_model("real/ppocr_mobile_v2_cls.onnx").to_str().unwrap().to_string()
}

#[test]
fn paddles_question_marks_are_two_sizes_not_one_name() {
    // The orientation classifier's real input: [1, 3, 48, 192], where both '?' differ.
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.npy");
    write_npy(&x, &HostTensor::from_f32(vec![1, 3, 48, 192], &vec![0.5; 3 * 48 * 192]).unwrap());
    let report = run_json(&[&paddle_cls(), "-i", x.to_str().unwrap(), "--iterations", "1"]);
    assert_eq!(report["outputs"][0]["shape"], serde_json::json!([1, 2]));
    assert_eq!(report["warnings"], serde_json::json!([]));
    // An image at the size the model's pipeline uses.
    let cat = sample("cat.png");
    let report = run_json(&[&paddle_cls(), "-i", cat.to_str().unwrap(), "--image-size", "48x192", "--iterations", "1"]);
    assert_eq!(report["inputs"][0]["shape"], serde_json::json!([1, 3, 48, 192]));
    // `?` is no name --dim can reach; --shape reaches every axis.
    let output = dmlrun().args([&paddle_cls(), "--dim", "?=48", "--generate", "random"]).output().unwrap();
    assert_one_line_error(&output, "the model has no input dimension named '?'");
    let report = run_json(&[&paddle_cls(), "--shape", "x=2,3,48,192", "--generate", "random", "--iterations", "1"]);
    assert_eq!(report["inputs"][0]["shape"], serde_json::json!([2, 3, 48, 192]));
    assert_eq!(report["outputs"][0]["shape"], serde_json::json!([2, 2]));
    assert_eq!(report["plan"]["input_shapes"]["x"], serde_json::json!([2, 3, 48, 192]));
    assert_eq!(report["plan"]["unnamed_dims"][2], "input 'x' axis 3");
}

#[test]
fn info_shows_unnamed_dims_and_the_flag_that_sizes_them() {
    let out = dmlrun().args(["info", &paddle_cls()]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // The name column is as wide as the longest name (the output's, here).
    assert!(
        text.lines()
            .any(|l| l.starts_with("  x ") && l.trim_start_matches("  x").trim_start() == "float32 [?, 3, ?, ?]"),
        "{text}"
    );
    assert!(
        text.contains(
            "unnamed free dimensions (?): input 'x' axes 0, 2, 3 (size them with --shape x=<d0>,3,<d2>,<d3>)"
        ),
        "{text}"
    );
    assert!(!text.contains("symbolic dimensions"), "no named ones: {text}");
    // Empty names and -1 are unnamed too; each input says which axes.
    let out = dmlrun().args(["info"]).arg(test_model("unnamed_dims.onnx")).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("input 'frames' axes 0, 1 (size them with --shape frames=<d0>,<d1>)"), "{text}");
}

#[test]
fn shapes_size_unnamed_dims_of_generated_inputs() {
    let model = test_model("unnamed_dims.onnx");
    let dir = tempfile::tempdir().unwrap();
    dmlrun()
        .arg(&model)
        .args(["--shape", "audio=2,512", "--shape", "frames=[3, 7]", "--generate", "ones", "--iterations", "1"])
        .arg("--save-outputs")
        .arg(dir.path())
        .assert()
        .success();
    assert_eq!(read_npy(&dir.path().join("audio_sum.npy")).to_f64().unwrap(), vec![512.0, 512.0]);
    assert_eq!(read_npy(&dir.path().join("frames_sum.npy")).to_f64().unwrap(), vec![7.0; 3]);
    // A given input must have the shape --shape says.
    let x = dir.path().join("a.npy");
    write_npy(&x, &HostTensor::from_f32(vec![2, 4], &[1.0; 8]).unwrap());
    let output = dmlrun()
        .arg(&model)
        .arg("-i")
        .arg(format!("audio={}", x.display()))
        .args(["--shape", "audio=2,5", "--generate", "ones"])
        .output()
        .unwrap();
    assert_one_line_error(&output, "axis 1 must be 5");
}

#[test]
fn zero_sized_dims_are_accepted_as_onnx_runtime_accepts_them() {
    let report = run_json(&[
        test_model("add_mul.onnx").to_str().unwrap(),
        "--dim",
        "batch=0",
        "--generate",
        "zeros",
        "--iterations",
        "1",
    ]);
    assert_eq!(report["outputs"][0]["shape"], serde_json::json!([0, 4]));
}

#[test]
fn a_name_two_inputs_size_differently_is_a_warning_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let ids = dir.path().join("ids.npy");
    let types = dir.path().join("types.npy");
    write_npy(
        &ids,
        &HostTensor::from_bytes(DType::Int64, vec![1, 5], [3i64; 5].iter().flat_map(|v| v.to_le_bytes()).collect())
            .unwrap(),
    );
    write_npy(&types, &HostTensor::from_bytes(DType::Int64, vec![1, 1], 1i64.to_le_bytes().to_vec()).unwrap());
    let output = dmlrun()
        .arg(test_model("token_types.onnx"))
        .arg("-i")
        .arg(format!("input_ids={}", ids.display()))
        .arg("-i")
        .arg(format!("token_type_ids={}", types.display()))
        .args(["--iterations", "1", "--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("warning: input 'token_type_ids' has sequence=1 on axis 1"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["outputs"][0]["shape"], serde_json::json!([1, 5, 4]));
    let warning = report["warnings"][0].as_str().unwrap();
    assert!(
        warning.ends_with(
            "but input 'input_ids' has sequence=5 on axis 1 (the model names both 'sequence'; ONNX Runtime accepts it)"
        ),
        "{warning}"
    );
}

#[test]
fn generated_integers_fit_indices_and_ranges_change_them() {
    // Token types 0 or 1 by default: the Gather into a 2-row table works.
    let dir = tempfile::tempdir().unwrap();
    dmlrun()
        .arg(test_model("token_types.onnx"))
        .args(["--generate", "random", "--shape", "input_ids=2,16", "--shape", "token_type_ids=2,16"])
        .args(["--generate-range", "input_ids=7,9", "--iterations", "1", "--save-inputs"])
        .arg(dir.path())
        .assert()
        .success();
    let types = read_npy(&dir.path().join("token_type_ids.npy")).to_i128().unwrap();
    assert!(types.iter().all(|v| (0..=1).contains(v)) && types.contains(&0) && types.contains(&1), "{types:?}");
    let ids = read_npy(&dir.path().join("input_ids.npy")).to_i128().unwrap();
    assert!(ids.iter().all(|v| (7..=9).contains(v)), "{ids:?}");
    // Values the model cannot take: the error names what dmlrun chose and the flags.
    let output = dmlrun()
        .arg(test_model("token_types.onnx"))
        .args(["--generate-range", "token_type_ids=0,5", "--dim", "sequence=16", "--dim", "batch=1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let last = stderr.lines().last().unwrap();
    assert!(last.contains("'token_type_ids' int64 [1, 16] (random in 0..=5 (seed 1))"), "{last}");
    assert!(last.contains("--generate-range NAME=LO,HI") && last.contains("--shape NAME=D0,D1,..."), "{last}");
}

#[test]
fn sequences_of_maps_are_printed_saved_and_compared() {
    let dir = tempfile::tempdir().unwrap();
    let model = test_model("zipmap_classifier.onnx");
    let report = run_json(&[
        model.to_str().unwrap(),
        "--shape",
        "features=3,3",
        "--generate",
        "random",
        "--compare-ep",
        "cpu",
        "--iterations",
        "1",
        "--save-outputs",
        dir.path().to_str().unwrap(),
    ]);
    let maps = report["map_outputs"].as_array().unwrap();
    assert_eq!(maps.len(), 2, "{report}");
    assert_eq!((maps[0]["name"].as_str(), maps[0]["kind"].as_str()), (Some("probabilities"), Some("sequence of maps")));
    let rows = maps[0]["value"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for row in rows {
        let p0 = row["0"].as_f64().unwrap();
        let p1 = row["1"].as_f64().unwrap();
        assert!((p0 + p1 - 1.0).abs() < 1e-6, "{row}");
    }
    assert_eq!(maps[1]["value"][0].as_object().unwrap().keys().collect::<Vec<_>>(), vec!["no", "yes"]);
    // The tensor output is summarised as before; the maps are not double-counted there.
    assert_eq!(report["outputs"].as_array().unwrap().len(), 1);
    // Compared key by key and value by value: four tensors per map row, two outputs.
    assert_eq!(report["comparison"]["mismatches"], serde_json::json!([]));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("probabilities.json")).unwrap()).unwrap();
    assert_eq!(&saved, &maps[0]["value"]);
    // The table shows them too.
    let out = dmlrun().arg(&model).args(["--shape", "features=1,3", "--generate", "zeros"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("probabilities    sequence of maps of 1"), "{text}");
    assert!(text.contains(r#"[{"0":0.5,"1":0.5}]"#), "{text}");
}

#[test]
fn long_metadata_is_cut_in_info_unless_asked_whole() {
    let model = test_model("identity_image.onnx");
    let text = String::from_utf8(dmlrun().arg("info").arg(&model).output().unwrap().stdout).unwrap();
    assert!(text.contains("... (3000 lines, 5999 characters in all; --full-metadata prints it whole)"), "{text}");
    assert!(text.lines().count() < 30, "{text}");
    let whole =
        String::from_utf8(dmlrun().arg("info").arg(&model).arg("--full-metadata").output().unwrap().stdout).unwrap();
    assert!(whole.lines().count() > 3000);
}

#[test]
fn external_data_counts_in_the_model_size_and_a_missing_file_is_named_right() {
    let model = test_model("external_weights.onnx");
    let report = run_json(&[model.to_str().unwrap(), "--generate", "ones", "--iterations", "1"]);
    let onnx = std::fs::metadata(&model).unwrap().len();
    assert_eq!(report["model"]["size_bytes"].as_u64().unwrap(), onnx + 16, "the 16-byte .bin counts");
    // A test case whose data file is missing: the reason names the file where it was looked for.
    let root = tempfile::tempdir().unwrap();
    let case = root.path().join("suite").join("case");
    std::fs::create_dir_all(case.join("test_data_set_0")).unwrap();
    std::fs::copy(&model, case.join("model.onnx")).unwrap();
    let out = dmlrun().arg("test").arg(root.path().join("suite")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let missing = case.join("external_weights.bin");
    assert!(text.contains(&format!("\"{}\"", missing.display())), "{text}");
}

#[test]
fn folders_that_only_name_a_model_are_reported_as_skipped() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("real").join("test_resnet50")).unwrap();
    std::fs::write(root.path().join("real/test_resnet50/data.json"), r#"{"model_name": "resnet50", "rtol": 0.001}"#)
        .unwrap();
    let case = root.path().join("simple").join("ok");
    std::fs::create_dir_all(case.join("test_data_set_0")).unwrap();
    std::fs::copy(test_model("add_mul.onnx"), case.join("model.onnx")).unwrap();
    let out = dmlrun().arg("test").arg(root.path()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "test_resnet50: no model.onnx or test data: its data.json only names model 'resnet50', kept elsewhere"
        ),
        "{text}"
    );
    assert!(text.contains("1 folders skipped"), "{text}");
    let out = dmlrun().arg("test").arg(root.path()).args(["--json", "-"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["skipped"].as_array().unwrap().len(), 1);
}

#[test]
fn test_checks_sequences_of_maps_against_expected_map_protos() {
    use dmlrun::formats::onnx_proto::{MapProto, SequenceProto, TensorProto};
    use prost::Message;

    let scalar = |v: f32| TensorProto { data_type: Some(1), float_data: vec![v], ..TensorProto::default() };
    let maps = |name: &str, keys: MapKeys, p0: f32| SequenceProto {
        name: Some(name.into()),
        elem_type: Some(4),
        map_values: (0..2)
            .map(|_| {
                let (key_type, keys, string_keys) = match &keys {
                    MapKeys::Ints => (7, vec![0, 1], vec![]),
                    MapKeys::Strings => (8, vec![], vec![b"no".to_vec(), b"yes".to_vec()]),
                };
                MapProto {
                    key_type: Some(key_type),
                    keys,
                    string_keys,
                    values: Some(SequenceProto {
                        elem_type: Some(1),
                        tensor_values: vec![scalar(p0), scalar(1.0 - p0)],
                        ..SequenceProto::default()
                    }),
                    ..MapProto::default()
                }
            })
            .collect(),
        ..SequenceProto::default()
    };
    let root = tempfile::tempdir().unwrap();
    for (case, p0) in [("right", 0.5f32), ("wrong", 0.6)] {
        let set = root.path().join(case).join("test_data_set_0");
        std::fs::create_dir_all(&set).unwrap();
        std::fs::copy(test_model("zipmap_classifier.onnx"), root.path().join(case).join("model.onnx")).unwrap();
        // Zero features: equal scores, probabilities 0.5 each, label 0 (ArgMax takes the first).
        let features =
            TensorProto { dims: vec![2, 3], data_type: Some(1), float_data: vec![0.0; 6], ..TensorProto::default() };
        std::fs::write(set.join("input_0.pb"), features.encode_to_vec()).unwrap();
        let label = TensorProto { dims: vec![2], data_type: Some(7), int64_data: vec![0, 0], ..TensorProto::default() };
        std::fs::write(set.join("output_0.pb"), label.encode_to_vec()).unwrap();
        std::fs::write(set.join("output_1.pb"), maps("probabilities", MapKeys::Ints, p0).encode_to_vec()).unwrap();
        std::fs::write(set.join("output_2.pb"), maps("named_probabilities", MapKeys::Strings, p0).encode_to_vec())
            .unwrap();
    }
    let out = dmlrun().arg("test").arg(root.path()).args(["--json", "-"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases = report["cases"].as_array().unwrap();
    assert_eq!((cases[0]["name"].as_str(), cases[0]["status"].as_str()), (Some("right"), Some("pass")), "{report}");
    assert_eq!((cases[1]["name"].as_str(), cases[1]["status"].as_str()), (Some("wrong"), Some("fail")), "{report}");
    let reason = cases[1]["reason"].as_str().unwrap();
    assert!(reason.contains("probabilities[0].values"), "{reason}");
}

enum MapKeys {
    Ints,
    Strings,
}
