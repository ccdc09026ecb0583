//! The run path end to end: the real binary, a real ONNX Runtime, real models.

mod common;

use common::*;
use dmlrun::tensor::{DType, HostTensor};

#[test]
fn classifies_the_cat_photo_as_a_cat() {
    let model = sample("squeezenet1.1.onnx");
    let cat = sample("cat.png");
    let labels = sample("imagenet_classes.txt");
    let report = run_json(&[
        model.to_str().unwrap(),
        "--input",
        cat.to_str().unwrap(),
        "--top-k",
        "3",
        "--labels",
        labels.to_str().unwrap(),
        "--iterations",
        "2",
    ]);
    let mut top = top_indices(&report, 0);
    top.sort();
    assert_eq!(top, vec![281, 282, 285], "tabby, tiger cat, Egyptian cat");
    let labels: Vec<&str> =
        report["top_k"][0]["items"][0].as_array().unwrap().iter().map(|c| c["label"].as_str().unwrap()).collect();
    assert!(labels.contains(&"tabby") && labels.contains(&"Egyptian cat"), "{labels:?}");
    assert_eq!(report["schema"], "dmlrun.run/1");
    assert_eq!(report["device"]["execution_provider"], "CPUExecutionProvider");
    assert_eq!(report["onnxruntime"]["version"], "1.31.1");
}

#[test]
fn classifies_coffee_as_espresso() {
    let report = run_json(&[
        sample("squeezenet1.1.onnx").to_str().unwrap(),
        "-i",
        sample("coffee.png").to_str().unwrap(),
        "--top-k",
        "1",
        "--iterations",
        "1",
    ]);
    assert_eq!(top_indices(&report, 0), vec![967]);
    assert!(report["top_k"][0]["items"][0][0]["score"].as_f64().unwrap() > 0.9);
}

#[test]
fn two_images_fill_the_batch() {
    let report = run_json(&[
        sample("squeezenet1.1.onnx").to_str().unwrap(),
        "-i",
        sample("cat.png").to_str().unwrap(),
        "-i",
        sample("coffee.png").to_str().unwrap(),
        "--dim",
        "N=2",
        "--top-k",
        "1",
        "--iterations",
        "1",
    ]);
    assert_eq!(report["inputs"][0]["shape"], serde_json::json!([2, 3, 224, 224]));
    assert!([281, 282, 285].contains(&top_indices(&report, 0)[0]));
    assert_eq!(top_indices(&report, 1), vec![967]);
    assert_eq!(report["iterations"]["batch_size"], 2);
}

#[test]
fn cat_preprocessing_matches_the_golden_input_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    dmlrun()
        .arg(sample("squeezenet1.1.onnx"))
        .arg("--input")
        .arg(sample("cat.png"))
        .args(["--iterations", "1", "--save-format", "pb", "--save-inputs"])
        .arg(dir.path())
        .assert()
        .success();
    let ours = read_pb(&dir.path().join("input_0.pb"));
    let golden = read_pb(&data("golden/test_data_set_0/input_0.pb"));
    assert_eq!(ours.shape, golden.shape);
    assert_eq!(ours.bytes(), golden.bytes(), "torchvision preprocessing must be reproduced exactly");
}

#[test]
fn golden_input_gives_golden_output_within_tolerance() {
    let dir = tempfile::tempdir().unwrap();
    dmlrun()
        .arg(sample("squeezenet1.1.onnx"))
        .arg("--input")
        .arg(data("golden/test_data_set_0/input_0.pb"))
        .args(["--iterations", "1", "--save-format", "pb", "--save-outputs"])
        .arg(dir.path())
        .assert()
        .success();
    let got = read_pb(&dir.path().join("output_0.pb")).to_f64().unwrap();
    let want = read_pb(&data("golden/test_data_set_0/output_0.pb")).to_f64().unwrap();
    // Tolerances from golden/data.json.
    let (atol, rtol) = (1e-4, 1e-3);
    assert_eq!(got.len(), 1000);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() <= atol + rtol * w.abs(), "element {i}: got {g}, want {w}");
    }
}

#[test]
fn two_inputs_two_outputs_from_npy_files() {
    let dir = tempfile::tempdir().unwrap();
    let x = HostTensor::from_f32(vec![2, 4], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]).unwrap();
    let y = HostTensor::from_f32(vec![2, 4], &[0.5; 8]).unwrap();
    write_npy(&dir.path().join("x.npy"), &x);
    write_npy(&dir.path().join("y.npy"), &y);
    let out = dir.path().join("out");
    dmlrun()
        .arg(test_model("add_mul.onnx"))
        .arg("--input")
        .arg(format!("x={}", dir.path().join("x.npy").display()))
        .arg("--input")
        .arg(format!("y={}", dir.path().join("y.npy").display()))
        .args(["--dim", "batch=2", "--iterations", "1", "--save-outputs"])
        .arg(&out)
        .assert()
        .success();
    let sum = read_npy(&out.join("sum.npy")).to_f64().unwrap();
    let product = read_npy(&out.join("product.npy")).to_f64().unwrap();
    assert_eq!(sum, vec![1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5]);
    assert_eq!(product, vec![0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]);
}

#[test]
fn npz_inputs_bind_by_array_name() {
    let dir = tempfile::tempdir().unwrap();
    let x = HostTensor::from_f32(vec![1, 4], &[1.0, 2.0, 3.0, 4.0]).unwrap();
    let y = HostTensor::from_f32(vec![1, 4], &[2.0; 4]).unwrap();
    let npz = dmlrun::formats::npy::write_npz(&[("x".into(), x), ("y".into(), y)]).unwrap();
    std::fs::write(dir.path().join("in.npz"), npz).unwrap();
    let report = run_json(&[
        test_model("add_mul.onnx").to_str().unwrap(),
        "-i",
        dir.path().join("in.npz").to_str().unwrap(),
        "--iterations",
        "1",
    ]);
    assert_eq!(report["outputs"][1]["name"], "product");
    assert_eq!(report["outputs"][1]["first_values"], serde_json::json!([2.0, 4.0, 6.0, 8.0]));
}

#[test]
fn dim_denotation_fixes_the_batch() {
    let report = run_json(&[
        test_model("add_mul.onnx").to_str().unwrap(),
        "--generate",
        "ones",
        "--dim-denotation",
        "DATA_BATCH=3",
        "--iterations",
        "1",
    ]);
    assert_eq!(report["inputs"][0]["shape"], serde_json::json!([3, 4]));
    assert_eq!(report["outputs"][0]["shape"], serde_json::json!([3, 4]));
    assert_eq!(report["plan"]["dimension_overrides"][0]["by"], "denotation");
    assert!(report["plan"]["unfixed_dims"].as_array().unwrap().is_empty());
}

#[test]
fn int64_inputs_are_generated_and_computed_exactly() {
    let dir = tempfile::tempdir().unwrap();
    dmlrun()
        .arg(test_model("int64_ids.onnx"))
        .args(["--generate", "random", "--seed", "42", "--dim", "batch=2", "--dim", "sequence=5", "--iterations", "1"])
        .arg("--save-inputs")
        .arg(dir.path())
        .arg("--save-outputs")
        .arg(dir.path())
        .assert()
        .success();
    let ids = read_npy(&dir.path().join("input_ids.npy"));
    assert_eq!((ids.dtype, ids.shape.clone()), (DType::Int64, vec![2, 5]));
    let ids = ids.to_i128().unwrap();
    let doubled = read_npy(&dir.path().join("doubled.npy")).to_i128().unwrap();
    assert_eq!(doubled, ids.iter().map(|v| v * 2).collect::<Vec<_>>());
    let row_sum = read_npy(&dir.path().join("row_sum.npy")).to_f64().unwrap();
    assert_eq!(row_sum[0], ids[..5].iter().sum::<i128>() as f64);
    assert!(ids.iter().any(|v| *v != ids[0]), "random ids are not constant");
}

#[test]
fn nhwc_image_input_is_laid_out_channels_last() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("solid.png");
    image::RgbImage::from_pixel(16, 16, image::Rgb([255, 0, 128])).save(&png).unwrap();
    let report = run_json(&[
        test_model("nhwc_channel_mean.onnx").to_str().unwrap(),
        "-i",
        png.to_str().unwrap(),
        "--preset",
        "unit",
        "--iterations",
        "1",
    ]);
    let means: Vec<f64> =
        report["outputs"][0]["first_values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(means.len(), 3);
    assert!(
        (means[0] - 1.0).abs() < 1e-6 && means[1].abs() < 1e-6 && (means[2] - 128.0 / 255.0).abs() < 1e-6,
        "{means:?}"
    );
    assert!(report["inputs"][0]["detail"].as_str().unwrap().contains("NHWC"));
}

#[test]
fn timings_and_statistics_are_reported() {
    let report = run_json(&[
        sample("squeezenet1.1.onnx").to_str().unwrap(),
        "--generate",
        "random",
        "--dim",
        "N=1",
        "--warmup",
        "1",
        "--iterations",
        "5",
    ]);
    let t = &report["timings_ms"];
    for key in ["runtime_load", "model_load", "session_create", "input_prepare", "first_run"] {
        assert!(t[key].as_f64().unwrap() > 0.0, "{key}");
    }
    let s = &report["iterations"]["latency_ms"];
    assert_eq!(s["count"], 5);
    let get = |k: &str| s[k].as_f64().unwrap();
    assert!(
        get("min") <= get("p50") && get("p50") <= get("p90") && get("p90") <= get("p99") && get("p99") <= get("max")
    );
    assert!((get("throughput_per_s") - 1000.0 / get("mean")).abs() < 1e-6 * get("throughput_per_s"));
}

#[test]
fn human_report_starts_with_the_device_that_ran() {
    let out =
        dmlrun().arg(sample("squeezenet1.1.onnx")).args(["--generate", "zeros", "--iterations", "1"]).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("device      : CPUExecutionProvider"), "{stdout}");
    assert!(stdout.contains("iterations after 0 warm-up"), "{stdout}");
}

#[test]
fn session_options_reach_onnx_runtime() {
    // ONNX Runtime's own log of the options it received proves the plan is applied, not just printed.
    let run = |extra: &[&str]| -> String {
        let out = dmlrun()
            .arg(test_model("add_mul.onnx"))
            .args(["--generate", "zeros", "--ep", "cpu", "--ort-log-level", "info", "--iterations", "1"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let defaults = run(&[]);
    assert!(defaults.contains("execution_mode:0") && defaults.contains("enable_mem_pattern:1"), "{defaults}");
    let dml_rules = run(&["--execution-mode", "sequential", "--memory-pattern", "off", "--dim", "batch=1"]);
    assert!(dml_rules.contains("execution_mode:0") && dml_rules.contains("enable_mem_pattern:0"), "{dml_rules}");
    assert!(dml_rules.contains("FreeDimensionOverrideTransformer modified: 1"), "{dml_rules}");
    let parallel = run(&["--execution-mode", "parallel", "--intra-threads", "2", "--opt-level", "basic"]);
    assert!(parallel.contains("execution_mode:1"), "{parallel}");
    assert!(parallel.contains("thread_pool_size: 2"), "{parallel}");
    assert!(parallel.contains("graph_optimization_level:1"), "{parallel}");
}

#[test]
fn print_plan_shows_the_directml_rules_even_where_directml_is_missing() {
    let out = dmlrun()
        .arg(sample("squeezenet1.1.onnx"))
        .args(["--ep", "dml", "--device", "1", "--print-plan", "--generate", "zeros"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("DmlExecutionProvider (device_id 1) -> CPUExecutionProvider"), "{stderr}");
    assert!(stderr.contains("execution mode      : sequential"), "{stderr}");
    assert!(stderr.contains("memory pattern      : disabled"), "{stderr}");
    // The generated input's batch of 1 fixes N, as it would on Windows.
    assert!(
        stderr.contains("dimension overrides : N=1 (automatic, from input 'input' axis 0 (generated))"),
        "{stderr}"
    );
    assert!(stderr.contains("unfixed dimensions  : none"), "{stderr}");
    // And then, on Linux, the honest refusal.
    if !cfg!(windows) {
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr.contains("DirectML exists only on Windows"), "{stderr}");
    }
}

fn plan_for(args: &[&str]) -> String {
    let out =
        dmlrun().arg(sample("squeezenet1.1.onnx")).args(["--ep", "dml", "--print-plan"]).args(args).output().unwrap();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn directml_fixes_the_batch_from_the_images_given() {
    // The seed command: `dmlrun squeezenet1.1.onnx --device 0 --input cat.png` gets N=1 by itself.
    let cat = sample("cat.png");
    let cat = cat.to_str().unwrap();
    let one = plan_for(&["--device", "0", "--input", cat]);
    assert!(one.contains("dimension overrides : N=1 (automatic, from input 'input' axis 0 (1 image))"), "{one}");
    let two = plan_for(&["--input", cat, "--input", cat]);
    assert!(two.contains("dimension overrides : N=2 (automatic, from input 'input' axis 0 (2 images))"), "{two}");
    // An explicit --dim wins: the batch is checked against it, not overridden.
    let explicit = plan_for(&["--dim", "N=1", "--input", cat]);
    assert!(explicit.contains("dimension overrides : N=1\n"), "{explicit}");
    let wrong = plan_for(&["--dim", "N=2", "--input", cat]);
    assert!(wrong.contains("has a batch of 2 but 1 image(s) were given"), "{wrong}");
    // --no-auto-dims leaves N free, and the warning says why.
    let off = plan_for(&["--no-auto-dims", "--input", cat]);
    assert!(off.contains("dimension overrides : none") && off.contains("unfixed dimensions  : N"), "{off}");
    assert!(off.contains("automatic dims      : off (--no-auto-dims)"), "{off}");
}

#[test]
fn the_cpu_keeps_free_dimensions_free() {
    let out = dmlrun()
        .arg(sample("squeezenet1.1.onnx"))
        .args(["--ep", "cpu", "--iterations", "1", "--json", "-"])
        .arg("--input")
        .arg(sample("cat.png"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["plan"]["dimension_overrides"], serde_json::json!([]));
    assert_eq!(report["plan"]["auto_dims"], false);
    assert_eq!(report["plan"]["unfixed_dims"], serde_json::json!(["N"]));
}

#[test]
fn a_device_name_needs_dxgi() {
    if cfg!(windows) {
        return;
    }
    let out =
        dmlrun().arg(sample("squeezenet1.1.onnx")).args(["--device", "H100", "--generate", "zeros"]).output().unwrap();
    let err = assert_one_line_error(&out, "--device 'H100'");
    assert!(err.contains("DirectML adapters exist only on Windows"), "{err}");
    let out = dmlrun().arg(sample("squeezenet1.1.onnx")).args(["--device", "luid:1-zz"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a 32-bit hex number"));
}

#[test]
fn doctor_reports_the_runtime() {
    let out = dmlrun().arg("doctor").output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("onnxruntime   1.31.1"), "{stdout}");
    assert!(stdout.contains("CPUExecutionProvider"), "{stdout}");
    assert!(stdout.contains("library"), "{stdout}");
}

#[test]
fn info_lists_symbolic_dims_and_denotations() {
    let out = dmlrun().arg("info").arg(test_model("add_mul.onnx")).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("x                    float32 [batch (DATA_BATCH), 4]"), "{stdout}");
    assert!(stdout.contains("--dim batch=<size>"), "{stdout}");
    assert!(stdout.contains("ai.onnx 17"), "{stdout}");
}

#[test]
fn info_keeps_its_columns_in_line_with_long_names() {
    // The test decoder's names run to 23 characters ("past_key_values.0.value"): the type column
    // starts at one place for every input and output.
    let out = dmlrun().arg("info").arg(test_model("tiny_decoder").join("model.onnx")).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let starts: Vec<usize> = stdout
        .lines()
        .filter(|l| l.starts_with("  ") && (l.contains(" int64 [") || l.contains(" float32 [")))
        .map(|l| l.find(" int64 [").or_else(|| l.find(" float32 [")).unwrap())
        .collect();
    assert!(starts.len() >= 10, "{stdout}");
    assert!(starts.iter().all(|&s| s == starts[0]), "columns out of line: {starts:?}\n{stdout}");
}

#[test]
fn ort_library_can_be_given_explicitly_and_a_wrong_one_is_reported() {
    let out = dmlrun().arg("doctor").arg("--ort-lib").arg("/nonexistent/libonnxruntime.so").output().unwrap();
    assert_one_line_error(&out, "--ort-lib /nonexistent/libonnxruntime.so: no such file");
    let out = dmlrun().arg("doctor").env("ORT_DYLIB_PATH", sample("cat.png")).output().unwrap();
    assert_one_line_error(&out, "cat.png");
}

#[test]
fn compare_ep_checks_the_run_against_a_reference_run() {
    let model = sample("squeezenet1.1.onnx");
    let cat = sample("cat.png");
    let base = [model.to_str().unwrap(), "-i", cat.to_str().unwrap(), "--iterations", "1", "--compare-ep", "cpu"];
    let report = run_json(&[&base[..], &["--compare-opt-level", "disable"]].concat());
    assert_eq!(report["comparison"]["outputs_compared"], 1);
    assert!(report["comparison"]["mismatches"].as_array().unwrap().is_empty());
    // Zero tolerance: optimised and unoptimised graphs differ in the last bits, and the exit code says so.
    let out =
        dmlrun().args(base).args(["--compare-opt-level", "disable", "--atol", "0", "--rtol", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("1 of 1 outputs differ") && stdout.contains("would pass with atol >="), "{stdout}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("the same execution provider"));
}

#[test]
fn compare_ep_naming_the_ep_under_test_itself_is_warned_of_once() {
    let model = test_model("add_mul.onnx");
    let out = dmlrun()
        .arg(&model)
        .args(["--ep", "cpu", "--compare-ep", "cpu", "--generate", "ones", "--dim", "batch=1", "--iterations", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warned = "dmlrun: warning: --ep cpu and --compare-ep cpu are the same execution provider here (cpu), with the same options: the comparison checks it against itself and cannot fail";
    assert_eq!(stderr.matches(warned).count(), 1, "{stderr}");
}

#[test]
fn info_json_describes_dims_and_denotations() {
    let out = dmlrun().arg("info").arg(test_model("add_mul.onnx")).arg("--json").output().unwrap();
    assert!(out.status.success());
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(info["inputs"][0]["dims"][0]["param"], "batch");
    assert_eq!(info["inputs"][0]["dims"][0]["denotation"], "DATA_BATCH");
    assert_eq!(info["opsets"][0]["version"], 17);
}

#[test]
fn reports_where_onnx_runtime_placed_the_nodes() {
    use prost::Message;
    let model = sample("squeezenet1.1.onnx");
    let bytes = std::fs::read(&model).unwrap();
    let graph_nodes =
        dmlrun::formats::onnx_proto::ModelProto::decode(bytes.as_slice()).unwrap().graph.unwrap().node.len();
    // Without graph optimisation ONNX Runtime places exactly the file's nodes.
    let report = run_json(&[model.to_str().unwrap(), "--generate", "zeros", "--opt-level", "disable"]);
    let placement = &report["device"]["placement"];
    assert_eq!(placement, &serde_json::json!([{"execution_provider": "CPUExecutionProvider", "nodes": graph_nodes}]));
    // With it, fusion leaves fewer nodes, and the human report says so on its own line.
    let out = dmlrun().arg(&model).args(["--generate", "zeros"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().find(|l| l.starts_with("placement   : ")).expect("a placement line");
    let fused: usize = line["placement   : ".len()..].split(' ').next().unwrap().parse().unwrap();
    assert!(fused > 0 && fused < graph_nodes, "{line} ({graph_nodes} nodes in the file)");
    assert!(line.ends_with(" nodes on CPUExecutionProvider"), "{line}");
}

#[test]
fn a_sequence_output_is_reported_compared_and_saved_item_by_item() {
    // run, test and bench share one value pipeline: a sequence output (SplitToSequence) is
    // summarised, compared with --compare-ep and saved as its items, `rows_seq[i]`.
    let dir = tempfile::tempdir().unwrap();
    let model = test_model("split_rows.onnx");
    let out = dir.path().join("out");
    let report = run_json(&[
        model.to_str().unwrap(),
        "--generate",
        "random",
        "--dim",
        "rows=3",
        "--iterations",
        "1",
        "--compare-ep",
        "cpu",
        "--save-outputs",
        out.to_str().unwrap(),
    ]);
    let names: Vec<&str> = report["outputs"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["rows_seq[0]", "rows_seq[1]", "rows_seq[2]", "total"]);
    assert_eq!(report["outputs"][1]["shape"], serde_json::json!([1, 2]));
    // The rows add up to the total the model computes.
    let row = |i: usize| read_npy(&out.join(format!("rows_seq_{i}_.npy"))).to_f64().unwrap();
    let total = read_npy(&out.join("total.npy")).to_f64().unwrap();
    for (col, want) in total.iter().enumerate() {
        let sum: f64 = (0..3).map(|i| row(i)[col]).sum();
        assert!((sum - want).abs() < 1e-5, "column {col}: rows sum to {sum}, total {want}");
    }
    let comparison = &report["comparison"];
    assert_eq!(comparison["mismatches"], serde_json::json!([]));
    assert_eq!(comparison["differences"].as_array().unwrap().len(), 4);
}

#[test]
fn directml_only_flags_are_refused_on_the_cpu_and_where_directml_is_missing() {
    let model = sample("squeezenet1.1.onnx");
    for flags in [
        vec!["--io-on-device"],
        vec!["--dml-graph-capture"],
        vec!["--dml-disable-metacommands"],
        vec!["--ep-option", "disable_metacommands=true"],
        vec!["--session-config", "ep.dml.disable_graph_fusion=1"],
    ] {
        let named = if flags.len() == 1 { flags[0].to_string() } else { flags.join(" ") };
        let out = dmlrun().arg(&model).args(["--ep", "cpu"]).args(&flags).output().unwrap();
        assert_one_line_error(&out, &format!("{named} applies to DirectML and cannot be combined with --ep cpu"));
        // Without --ep they ask for DirectML, which this ONNX Runtime lacks: an error naming the flag.
        let out = dmlrun().arg(&model).args(&flags).output().unwrap();
        assert_one_line_error(&out, &format!("{named} asks for DirectML, but the loaded ONNX Runtime offers only"));
    }
}

#[test]
fn session_config_entries_reach_onnx_runtime_and_its_refusals_name_them() {
    let model = sample("squeezenet1.1.onnx");
    let report = run_json(&[
        model.to_str().unwrap(),
        "--ep",
        "cpu",
        "--iterations",
        "1",
        "--generate",
        "random",
        "--session-config",
        "session.disable_prepacking=1",
    ]);
    assert_eq!(report["plan"]["session_config"]["session.disable_prepacking"], "1");
    assert_eq!(report["plan"]["io_on_device"], false);
    // ONNX Runtime refuses config values of thousands of characters; the error quotes the start.
    let long = format!("session.x={}", "v".repeat(10_000));
    let out = dmlrun()
        .arg(&model)
        .args(["--ep", "cpu", "--iterations", "1", "--generate", "random", "--session-config", &long])
        .output()
        .unwrap();
    let err = assert_one_line_error(&out, "--session-config session.x=vvvv");
    assert!(err.contains("…: ONNX Runtime rejected it") && err.len() < 400, "{err}");
    // A value ONNX Runtime reads only when it builds the session names the entries in play.
    let out = dmlrun()
        .arg(&model)
        .args(["--ep", "cpu", "--generate", "random", "--session-config", "session.graph_optimizations_loop_level=x"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("with session config session.graph_optimizations_loop_level=x"), "{err}");
    // A key given twice with two values is a contradiction, said before any session.
    let out = dmlrun()
        .arg(&model)
        .args(["--ep", "cpu", "--session-config", "a.b=1", "--session-config", "a.b=2"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "--session-config: 'a.b' is given twice, as '1' and as '2'");
}

#[test]
fn graph_capture_cannot_be_asked_for_through_the_test_command_nor_the_adapter_through_ep_option() {
    let model = sample("squeezenet1.1.onnx");
    let out = dmlrun()
        .arg("test")
        .arg(root().join("tests/data/golden"))
        .args(["--session-config", "ep.dml.enable_graph_capture=1"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "every run must be bound on the device: use --dml-graph-capture (run and bench)");
    let out = dmlrun().arg(&model).args(["--ep-option", "device_id=1"]).output().unwrap();
    assert_one_line_error(&out, "--ep-option device_id=1: the adapter is chosen with --device");
}

#[test]
fn a_save_folder_that_cannot_be_made_fails_before_the_first_run() {
    // A folder under a file cannot be made: said before any run, naming the flag, so a long
    // timed run never ends by losing its report.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    for flag in ["--save-outputs", "--save-inputs"] {
        let out = dmlrun()
            .arg(sample("squeezenet1.1.onnx"))
            .args(["--generate", "random", "--iterations", "300", flag])
            .arg(file.join("out"))
            .output()
            .unwrap();
        let line = assert_one_line_error(&out, flag);
        assert!(line.contains("is not a folder"), "{line}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("p50"), "it ran before saying so");
    }
}

#[test]
fn a_16_bit_grey_png_mostly_clipped_to_white_runs_with_a_warning() {
    // Pillow's convert('RGB') clips I;16 at 255, as torchvision's loader and dmlrun do: fed as it
    // is, such a picture is nearly all white, and the run says so.
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("depth.png");
    let picture =
        image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::from_fn(64, 64, |x, _| image::Luma([1000 + x as u16]));
    picture.save(&png).unwrap();
    let out = dmlrun()
        .arg(sample("squeezenet1.1.onnx"))
        .arg("--input")
        .arg(&png)
        .args(["--iterations", "1", "--json", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is 16-bit grey: 100.0% of its pixels are above 255"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["warnings"].to_string().contains("16-bit grey"), "{}", report["warnings"]);
}

#[test]
fn info_says_size_weights_and_op_types_and_folds_a_decoders_cache_names() {
    let out = dmlrun().arg("info").arg(test_model("tiny_decoder")).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("size       ") && text.contains("external data"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("weights    ") && l.contains("parameters; float32")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("nodes      ") && l.contains("MatMul")), "{text}");
    assert!(text.contains("a decoder: dmlrun generate"), "{text}");
    // Given the folder, info reads the decoder genai_config.json names.
    assert!(text.contains("tiny_decoder/model.onnx"), "{text}");
}
