//! `dmlrun bench` on small models with few iterations: statistics, exports, the baseline gate,
//! manifests, the time box, the optimised-model cache and the profile.

mod common;

use common::*;

fn bench_json(args: &[&str]) -> (serde_json::Value, String) {
    let out = dmlrun().arg("bench").args(args).args(["--json", "-", "--quiet"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "bench {args:?}: {stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

#[test]
fn benchmarks_several_models_with_generated_inputs() {
    let squeeze = sample("squeezenet1.1.onnx");
    let add = test_model("add_mul.onnx");
    let (report, table) = bench_json(&[
        squeeze.to_str().unwrap(),
        add.to_str().unwrap(),
        "--iterations",
        "7",
        "--warmup",
        "1",
        "--dim",
        "N=2",
    ]);
    assert_eq!(report["schema"], "dmlrun.bench/1");
    let models = report["models"].as_array().unwrap();
    assert_eq!(models.len(), 2);
    assert_eq!(models[0]["name"], "squeezenet1.1");
    assert_eq!(models[0]["latency_ms"]["count"], 7);
    // --dim N=2 applied to squeezenet only (add_mul has no N): a batch of 2 gives items/s.
    assert_eq!(models[0]["batch_size"], 2);
    let items = models[0]["items_per_s"].as_f64().unwrap();
    let runs = models[0]["latency_ms"]["throughput_per_s"].as_f64().unwrap();
    assert!((items - 2.0 * runs).abs() < 1e-6 * items);
    assert_eq!(models[1]["inputs"][0]["kind"], "generated");
    assert!(models[1]["inputs"][0]["detail"].as_str().unwrap().starts_with("random"));
    assert!(models[0]["peak_rss_bytes"].as_u64().unwrap() > 1 << 20);
    assert!(report["machine"]["logical_cores"].as_u64().unwrap() >= 1);
    assert!(table.contains("squeezenet1.1") && table.contains("p50 ms"), "{table}");
}

#[test]
fn csv_and_markdown_exports_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let md = dir.path().join("r.md");
    dmlrun()
        .arg("bench")
        .arg(test_model("add_mul.onnx"))
        .args(["--iterations", "3", "--quiet", "--csv"])
        .arg(&csv)
        .arg("--markdown")
        .arg(&md)
        .assert()
        .success();
    let csv = std::fs::read_to_string(csv).unwrap();
    assert!(csv.starts_with("model,status,error,execution_provider,device_id,iterations,"));
    assert!(csv.lines().nth(1).unwrap().starts_with("add_mul,ok,,CPUExecutionProvider,,3,"));
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.lines().nth(2).unwrap().starts_with("| add_mul | ok | CPUExecutionProvider |"));
}

#[test]
fn baseline_gate_fails_on_a_synthetic_regression_and_passes_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let model = sample("squeezenet1.1.onnx");
    let (report, _) = bench_json(&[model.to_str().unwrap(), "--iterations", "5"]);
    // A baseline ten times faster than reality: today's run is a regression.
    let scaled = |report: &serde_json::Value, by: f64| {
        let mut scaled = report.clone();
        let p50 = scaled["models"][0]["latency_ms"]["p50"].as_f64().unwrap();
        scaled["models"][0]["latency_ms"]["p50"] = serde_json::json!(p50 * by);
        let runs: Vec<f64> =
            scaled["models"][0]["samples_ms"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() * by).collect();
        scaled["models"][0]["samples_ms"] = serde_json::json!(runs);
        scaled
    };
    let fast = scaled(&report, 0.1);
    let fast_path = dir.path().join("fast.json");
    std::fs::write(&fast_path, serde_json::to_string(&fast).unwrap()).unwrap();
    let out =
        dmlrun().arg("bench").arg(&model).args(["--iterations", "5", "--baseline"]).arg(&fast_path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("REGRESSION"));
    // A baseline ten times slower: no regression.
    let slow = scaled(&report, 10.0);
    let slow_path = dir.path().join("slow.json");
    std::fs::write(&slow_path, serde_json::to_string(&slow).unwrap()).unwrap();
    let out =
        dmlrun().arg("bench").arg(&model).args(["--iterations", "5", "--baseline"]).arg(&slow_path).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("  improvement"), "{}", String::from_utf8_lossy(&out.stdout));
    // Not a bench report at all.
    let out = dmlrun().arg("bench").arg(&model).arg("--baseline").arg(sample("imagenet_classes.txt")).output().unwrap();
    assert_one_line_error(&out, "--baseline");
}

#[test]
fn baseline_model_times_old_and_new_in_one_session_and_judges_them() {
    // Two versions of "the same model" (the same input) with very different work: a convolution
    // and an identity over one image.
    let heavy = test_model("conv_free_hw.onnx");
    let light = test_model("identity_image.onnx");
    let judged = |model: &std::path::Path, baseline: &std::path::Path| {
        let out = dmlrun()
            .arg("bench")
            .arg(model)
            .arg("--baseline-model")
            .arg(baseline)
            .args([
                "--iterations",
                "20",
                "--warmup",
                "1",
                "--json",
                "-",
                "-q",
                "--dim",
                "height=224",
                "--dim",
                "width=224",
            ])
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        (out.status.code(), report)
    };
    // The convolution judged against the identity: many times slower, a regression.
    let (code, report) = judged(&heavy, &light);
    assert_eq!(code, Some(1), "{report}");
    let m = &report["models"][0];
    assert_eq!(m["rounds"], serde_json::json!(vec![2; 10]), "20 runs in 10 rounds");
    let old = &m["baseline_model"];
    assert!(old["model"].as_str().unwrap().ends_with("identity_image.onnx"), "{old}");
    assert_eq!((old["samples_ms"].as_array().unwrap().len(), &old["rounds"]), (20, &serde_json::json!(vec![2; 10])));
    let b = &report["baseline"];
    assert_eq!((&b["source"], b["regressions"].as_u64()), (&serde_json::json!("same session"), Some(1)));
    let row = &b["models"][0];
    assert_eq!(row["verdict"], "regression");
    // The ratio of medians is many times; its interval's low end only past 1 (a loaded machine's
    // slow rounds of the identity widen it: a CI run saw 1.42 under a ratio of 11).
    assert!(row["ratio"].as_f64().unwrap() > 2.0, "{row}");
    assert!(row["change"]["ci_low"].as_f64().unwrap() > 1.0, "{row}");
    assert!(row["change"]["p_value"].as_f64().unwrap() < 0.05, "{row}");
    assert!(row["change"]["test"].as_str().unwrap().starts_with("Mann-Whitney U"), "{row}");
    // The other way round: an improvement, and no failure.
    let (code, report) = judged(&light, &heavy);
    assert_eq!((code, &report["baseline"]["models"][0]["verdict"]), (Some(0), &serde_json::json!("improvement")));
    // Two models and one baseline model named after neither: which one lacks its baseline.
    let out =
        dmlrun().arg("bench").arg(&heavy).arg(&light).arg("--baseline-model").arg(sample("cat.png")).output().unwrap();
    assert_one_line_error(&out, "--baseline-model: none for");
    // Paired by file name: only the model of the same name.
    let out = dmlrun().arg("bench").arg(&heavy).arg(&light).arg("--baseline-model").arg(&light).output().unwrap();
    assert_one_line_error(&out, "conv_free_hw.onnx");
    // Another model altogether (other inputs) is no baseline: the model fails saying so, and no
    // verdict is given ("improvement, faster by -98.5%" was).
    let out = dmlrun()
        .arg("bench")
        .arg(sample("squeezenet1.1.onnx"))
        .arg("--baseline-model")
        .arg(test_model("add_mul.onnx"))
        .args(["--iterations", "2", "--json", "-", "-q"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = report["failed"][0]["error"].as_str().unwrap();
    assert!(error.contains("are not the measured model's") && error.contains("x [batch, 4]"), "{error}");
    assert_eq!(report["baseline"]["regressions"], 0);
    assert_eq!(report["baseline"]["improvements"], 0);
}

#[test]
fn a_baseline_report_says_how_it_differs_and_that_it_was_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let model = test_model("add_mul.onnx");
    let (mut report, _) = bench_json(&[model.to_str().unwrap(), "--iterations", "30"]);
    assert_eq!(report["models"][0]["fingerprint"]["onnxruntime"], "1.31.1");
    report["models"][0]["fingerprint"]["model sha256"] = serde_json::json!("0000000000000000");
    report["interrupted"] = serde_json::json!(true);
    let base = dir.path().join("base.json");
    std::fs::write(&base, serde_json::to_string(&report).unwrap()).unwrap();
    let (csv, junit) = (dir.path().join("b.csv"), dir.path().join("b.xml"));
    let out = dmlrun()
        .arg("bench")
        .arg(&model)
        .args(["--iterations", "30", "-q", "--baseline"])
        .arg(&base)
        .arg("--csv")
        .arg(&csv)
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("note: the baseline report was interrupted"), "{stdout}");
    assert!(stdout.contains("differs: model file 0000000000000000 -> "), "{stdout}");
    assert!(stdout.contains("Mann-Whitney U"), "{stdout}");
    // Whatever this busy machine makes of add_mul against itself, every export says the same verdict.
    let verdict = ["regression", "improvement", "no change", "inconclusive"]
        .into_iter()
        .find(|v| stdout.contains(&format!("  {v}")) || stdout.contains(&format!("  {}", v.to_uppercase())))
        .unwrap_or_else(|| panic!("no verdict: {stdout}"));
    assert_eq!(out.status.code(), Some(if verdict == "regression" { 1 } else { 0 }), "{stdout}");
    let csv = std::fs::read_to_string(csv).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "baseline_verdict").unwrap();
    assert_eq!(row[column], verdict, "{csv}");
    let junit = std::fs::read_to_string(junit).unwrap();
    assert!(junit.contains(&format!("verdict: {verdict}")), "{junit}");
}

#[test]
fn manifest_sets_names_dims_and_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("bench.toml");
    std::fs::write(
        &manifest,
        format!(
            "[[model]]\npath = \"{}\"\nname = \"cat-batch\"\ndims = {{ N = 1 }}\ninputs = {{ input = \"{}\" }}\n\n[[model]]\npath = \"{}\"\ngenerate = \"ones\"\ndims = {{ batch = 3 }}\n",
            sample("squeezenet1.1.onnx").display(),
            sample("cat.png").display(),
            test_model("add_mul.onnx").display()
        ),
    )
    .unwrap();
    let (report, _) = bench_json(&[manifest.to_str().unwrap(), "--iterations", "2"]);
    assert_eq!(report["models"][0]["name"], "cat-batch");
    assert_eq!(report["models"][0]["inputs"][0]["kind"], "image");
    assert_eq!(report["models"][1]["inputs"][0]["shape"], serde_json::json!([3, 4]));
    assert!(report["models"][1]["inputs"][0]["detail"].as_str().unwrap().starts_with("ones"));
}

#[test]
fn duration_time_box_respects_the_bounds() {
    let (report, _) = bench_json(&[
        test_model("add_mul.onnx").to_str().unwrap(),
        "--duration",
        "200ms",
        "--min-iterations",
        "5",
        "--max-iterations",
        "40",
    ]);
    let count = report["models"][0]["latency_ms"]["count"].as_u64().unwrap();
    assert!((5..=40).contains(&count), "{count}");
}

#[test]
fn cache_is_written_then_hit() {
    let dir = tempfile::tempdir().unwrap();
    let model = sample("squeezenet1.1.onnx");
    let args = [model.to_str().unwrap(), "--iterations", "2", "--dim", "N=1", "--cache", dir.path().to_str().unwrap()];
    let (first, _) = bench_json(&args);
    assert_eq!(first["models"][0]["cache"], "written");
    let cached: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
    let (second, _) = bench_json(&args);
    assert_eq!(second["models"][0]["cache"], "hit");
    // Same model, another batch: another cache entry.
    let args2 = [model.to_str().unwrap(), "--iterations", "2", "--dim", "N=2", "--cache", dir.path().to_str().unwrap()];
    let (third, _) = bench_json(&args2);
    assert_eq!(third["models"][0]["cache"], "written");
}

#[test]
fn profile_lists_the_top_operators() {
    let dir = tempfile::tempdir().unwrap();
    let (report, _) = bench_json(&[
        sample("squeezenet1.1.onnx").to_str().unwrap(),
        "--iterations",
        "3",
        "--profile",
        dir.path().to_str().unwrap(),
    ]);
    let top = report["models"][0]["profile"]["top_ops"].as_array().unwrap();
    assert_eq!(top[0]["op_type"], "Conv", "convolutions dominate SqueezeNet");
    assert!(top.len() <= 10 && top.len() >= 3);
    let file = report["models"][0]["profile"]["file"].as_str().unwrap();
    assert!(std::path::Path::new(file).is_file());
}

#[test]
fn unknown_dim_for_every_model_is_an_error() {
    let out = dmlrun().arg("bench").arg(test_model("add_mul.onnx")).args(["--dim", "seq=4"]).output().unwrap();
    assert_one_line_error(
        &out,
        "--dim seq=4: the model has no free dimension named 'seq' (its symbolic dimensions: batch)",
    );
}

#[test]
fn compare_ep_uses_the_manifests_tolerances() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("bench.json");
    let write = |rtol: f64, atol: f64| {
        let m = serde_json::json!({"models": [{"path": sample("squeezenet1.1.onnx"), "dims": {"N": 1}, "rtol": rtol, "atol": atol}]});
        std::fs::write(&manifest, m.to_string()).unwrap();
    };
    let run = || {
        dmlrun()
            .arg("bench")
            .arg(&manifest)
            .args(["--iterations", "2", "--compare-ep", "cpu", "--compare-opt-level", "disable", "--json", "-", "-q"])
            .output()
            .unwrap()
    };
    // The reference is the CPU without graph optimisation: last-bit differences.
    write(0.0, 0.0);
    let out = run();
    assert_eq!(out.status.code(), Some(1), "zero tolerance must catch them");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["models"][0]["comparison"][0]["reason"].as_str().unwrap().contains("elements differ"));
    write(1e-3, 1e-5);
    let out = run();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["models"][0]["comparison"], serde_json::json!([]));
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_long_bench_with_partial_statistics_and_exit_130() {
    let model = test_model("add_mul.onnx");
    let dir = tempfile::tempdir().unwrap();
    let (csv, markdown) = (dir.path().join("b.csv"), dir.path().join("b.md"));
    let args = [
        "bench",
        model.to_str().unwrap(),
        "--iterations",
        "1000000000",
        "--json",
        "-",
        "--csv",
        csv.to_str().unwrap(),
        "--markdown",
        markdown.to_str().unwrap(),
    ];
    let out = interrupted_after_a_while(&args.map(std::ffi::OsStr::new));
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the partial report is complete JSON");
    assert_eq!(report["interrupted"], true);
    let count = report["models"][0]["latency_ms"]["count"].as_u64().unwrap();
    assert!(count > 0 && count < 1_000_000_000, "{count}");
    // One outcome, rendered alike by every exporter and the table: stopped partway, not "ok".
    assert_eq!(report["models"][0]["status"], "interrupted");
    let row = std::fs::read_to_string(&csv).unwrap().lines().nth(1).unwrap().to_string();
    assert!(row.starts_with("add_mul,interrupted,"), "{row}");
    assert!(std::fs::read_to_string(&markdown).unwrap().contains("| add_mul | interrupted |"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Ctrl-C stopped it after"), "{stderr}");
    assert!(stderr.contains("1 measured (1 stopped partway by Ctrl-C), 0 failed"), "{stderr}");
}

#[test]
fn a_bench_whose_input_fails_leaves_no_partial_files() {
    // ONNX Runtime writes the optimised model while creating the session and the profile when
    // the session is destroyed. Inputs are bound before the session exists (their shapes can fix
    // free dimensions), so an input that fails, a text file here, leaves neither behind.
    let dir = tempfile::tempdir().unwrap();
    let (cache, profile) = (dir.path().join("cache"), dir.path().join("profile"));
    let manifest = dir.path().join("bench.toml");
    std::fs::write(
        &manifest,
        format!(
            "[[model]]\npath = \"{}\"\ndims = {{ batch = 2 }}\ninputs = {{ x = \"{}\" }}\n",
            test_model("add_mul.onnx").display(),
            sample("imagenet_classes.txt").display()
        ),
    )
    .unwrap();
    let out = dmlrun()
        .arg("bench")
        .arg(&manifest)
        .args(["--iterations", "2", "--ort-log-level", "error", "--cache"])
        .arg(&cache)
        .arg("--profile")
        .arg(&profile)
        .output()
        .unwrap();
    // The model fails (exit 1, as a failed check), with one line naming the file, and is
    // recorded as failed rather than ending the bench.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("dmlrun: model add_mul failed: ") && stderr.contains("imagenet_classes.txt"), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 model(s): 0 measured, 1 failed"));
    let names = |folder: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(folder).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect()
    };
    assert_eq!(names(&profile), Vec::<String>::new(), "no profile from a failed run");
    assert_eq!(names(&cache), Vec::<String>::new(), "no cache entry from a failed run");
    // The same bench with a generated input writes the cache entry, and a second one hits it
    // and keeps its profile.
    let manifest_ok = dir.path().join("ok.toml");
    std::fs::write(
        &manifest_ok,
        format!("[[model]]\npath = \"{}\"\ndims = {{ batch = 2 }}\n", test_model("add_mul.onnx").display()),
    )
    .unwrap();
    let (report, _) =
        bench_json(&[manifest_ok.to_str().unwrap(), "--iterations", "2", "--cache", cache.to_str().unwrap()]);
    assert_eq!(report["models"][0]["cache"], "written");
    let cached = names(&cache);
    assert!(cached.len() == 1 && cached[0].starts_with("add_mul-") && cached[0].ends_with(".onnx"), "{cached:?}");
    let mut args = vec![manifest_ok.to_str().unwrap(), "--iterations", "2"];
    args.extend(["--cache", cache.to_str().unwrap(), "--profile", profile.to_str().unwrap()]);
    let (report, _) = bench_json(&args);
    assert_eq!(report["models"][0]["cache"], "hit");
    assert_eq!(names(&cache), cached);
    let profiled = names(&profile);
    assert!(
        profiled.len() == 1 && profiled[0].starts_with("add_mul_") && profiled[0].ends_with(".json"),
        "{profiled:?}"
    );
    let file = report["models"][0]["profile"]["file"].as_str().unwrap();
    assert_eq!(std::path::Path::new(file), profile.join(&profiled[0]));
}

#[test]
fn bench_fixes_free_dimensions_for_directml_per_model() {
    // On Linux DirectML is refused after the plan is printed: the plan shows what a DirectML
    // bench would apply, N=1 from the generated input.
    let out = dmlrun()
        .arg("bench")
        .arg(sample("squeezenet1.1.onnx"))
        .args(["--ep", "dml", "--print-plan", "--iterations", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("dimension overrides : N=1 (automatic, from input 'input' axis 0 (generated))"),
        "{stderr}"
    );
    if !cfg!(windows) {
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("DirectML exists only on Windows"), "{stderr}");
    }
}

#[test]
fn one_bad_model_is_recorded_and_the_others_are_measured() {
    // A folder as a new user has one: a model that runs, one that is not a model, one with an
    // operator ONNX Runtime does not know, and another that runs. Every one is reported.
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("models");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(test_model("add_mul.onnx"), folder.join("a_add_mul.onnx")).unwrap();
    std::fs::write(folder.join("b_not_a_model.onnx"), b"hello, I am text\n").unwrap();
    std::fs::copy(test_model("unknown_op.onnx"), folder.join("c_unknown_op.onnx")).unwrap();
    std::fs::copy(test_model("nhwc_channel_mean.onnx"), folder.join("d_channel_mean.onnx")).unwrap();
    let (json, csv) = (dir.path().join("r.json"), dir.path().join("r.csv"));
    let out = dmlrun()
        .arg("bench")
        .arg(&folder)
        .args(["--iterations", "2", "--ort-log-level", "fatal", "--json"])
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stdout.ends_with("4 model(s): 2 measured, 2 failed\n"), "{stdout}");
    assert!(
        stderr.contains("dmlrun: model b_not_a_model failed: model ") && stderr.contains("not an ONNX model"),
        "{stderr}"
    );
    assert!(stderr.contains("dmlrun: model c_unknown_op failed: "), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let names = |key: &str| -> Vec<String> {
        report[key].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(names("models"), ["a_add_mul", "d_channel_mean"]);
    assert_eq!(names("failed"), ["b_not_a_model", "c_unknown_op"]);
    assert!(report["models"].as_array().unwrap().iter().all(|m| m["status"] == "ok"));
    assert!(report["failed"].as_array().unwrap().iter().all(|m| m["status"] == "failed" && m["error"].is_string()));
    let csv = std::fs::read_to_string(&csv).unwrap();
    let statuses: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').nth(1).unwrap()).collect();
    assert_eq!(statuses, ["ok", "ok", "failed", "failed"]);
}

#[test]
fn directml_missing_stops_the_bench_as_an_error_not_a_model_failure() {
    if cfg!(windows) {
        return;
    }
    let out = dmlrun()
        .arg("bench")
        .arg(test_model("add_mul.onnx"))
        .args(["--ep", "dml", "--iterations", "1"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "DirectML exists only on Windows");
}

#[test]
fn isolated_bench_records_a_hanging_model_as_a_timeout_and_measures_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("models");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(test_model("add_mul.onnx"), folder.join("a_add_mul.onnx")).unwrap();
    std::fs::copy(test_model("endless_loop.onnx"), folder.join("b_endless_loop.onnx")).unwrap();
    std::fs::copy(test_model("nhwc_channel_mean.onnx"), folder.join("c_channel_mean.onnx")).unwrap();
    let csv = dir.path().join("r.csv");
    let out = dmlrun()
        .arg("bench")
        .arg(&folder)
        .args(["--iterations", "3", "--isolation", "process", "--timeout", "3s", "--quiet", "--json", "-", "--csv"])
        .arg(&csv)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let measured: Vec<&str> =
        report["models"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(measured, ["a_add_mul", "c_channel_mean"]);
    assert_eq!(report["models"][0]["latency_ms"]["count"], 3, "the child's statistics come through whole");
    let failed = &report["failed"][0];
    assert_eq!((failed["name"].as_str(), failed["status"].as_str()), (Some("b_endless_loop"), Some("timeout")));
    assert_eq!(failed["error"], "ran past --timeout 3s in the first run: killed");
    assert!(
        stderr.contains("dmlrun: model b_endless_loop failed: ran past --timeout 3s in the first run: killed"),
        "{stderr}"
    );
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(
        csv.lines().any(|l| l.starts_with("b_endless_loop,timeout,ran past --timeout 3s in the first run: killed,")),
        "{csv}"
    );
}

/// a_add_mul, b_endless_loop (never returns), c_channel_mean.
fn folder_with_a_model_that_never_returns(dir: &std::path::Path) -> std::path::PathBuf {
    let folder = dir.join("models");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(test_model("add_mul.onnx"), folder.join("a_add_mul.onnx")).unwrap();
    std::fs::copy(test_model("endless_loop.onnx"), folder.join("b_endless_loop.onnx")).unwrap();
    std::fs::copy(test_model("nhwc_channel_mean.onnx"), folder.join("c_channel_mean.onnx")).unwrap();
    folder
}

#[test]
fn a_time_limit_holds_without_isolation_flags_and_the_default_one_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let folder = folder_with_a_model_that_never_returns(dir.path());
    let out = dmlrun().arg("bench").arg(&folder).args(["--iterations", "3", "--timeout", "2s", "--json", "-"]).output();
    let out = out.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let measured: Vec<&str> =
        report["models"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(measured, ["a_add_mul", "c_channel_mean"]);
    assert_eq!(report["failed"][0]["status"], "timeout");
    assert_eq!(report["failed"][0]["error"], "ran past --timeout 2s in the first run: killed");
    assert_eq!(report["isolation"], serde_json::json!({"in_children": true, "time_limit_s": 2.0}));

    let model = test_model("add_mul.onnx");
    let isolation = |extra: &[&str]| {
        let report = run_json(&[&["bench", model.to_str().unwrap(), "--iterations", "2"], extra].concat());
        report["isolation"].clone()
    };
    assert_eq!(isolation(&[]), serde_json::json!({"in_children": true, "time_limit_s": 600.0}));
    assert_eq!(isolation(&["--timeout", "0"]), serde_json::json!({"in_children": false, "time_limit_s": null}));
    assert_eq!(isolation(&["--isolation", "none"]), serde_json::json!({"in_children": false, "time_limit_s": null}));
    for keeps_here in ["--isolation none", "--print-plan"] {
        let out =
            dmlrun().arg("bench").arg(&model).args(keeps_here.split(' ')).args(["--timeout", "5s"]).output().unwrap();
        assert_one_line_error(&out, &format!("--timeout 5s: {keeps_here} keeps the items in this process"));
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_on_a_model_that_never_returns_marks_it_interrupted_never_the_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let folder = folder_with_a_model_that_never_returns(dir.path());
    for isolation in ["none", "auto"] {
        let args = ["bench", folder.to_str().unwrap(), "--iterations", "3", "--isolation", isolation, "--json", "-"];
        let out = interrupted_after_a_while(&args.map(std::ffi::OsStr::new));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "--isolation {isolation}: {stderr}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the partial report is JSON");
        assert_eq!(report["interrupted"], true);
        assert_eq!(report["models"][0]["name"], "a_add_mul", "--isolation {isolation}");
        let failed = &report["failed"];
        assert_eq!(failed.as_array().unwrap().len(), 1, "--isolation {isolation}: {failed}");
        assert_eq!(
            (failed[0]["name"].as_str(), failed[0]["status"].as_str()),
            (Some("b_endless_loop"), Some("interrupted"))
        );
        assert!(!stderr.contains("--shape") && !stderr.contains("do not fit"), "--isolation {isolation}: {stderr}");
    }
}

#[test]
fn free_dim_size_sizes_a_folder_of_models_with_free_spatial_dims() {
    // At the default size 1 the 3x3 convolution cannot run; --free-dim-size 8 benchmarks it.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(test_model("conv_free_hw.onnx"), dir.path().join("conv.onnx")).unwrap();
    std::fs::copy(test_model("add_mul.onnx"), dir.path().join("add_mul.onnx")).unwrap();
    let run = |extra: &[&str]| {
        dmlrun()
            .arg("bench")
            .arg(dir.path())
            .args(["--iterations", "2", "--ort-log-level", "fatal", "--json", "-"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["failed"][0]["name"], "conv");
    assert!(report["failed"][0]["error"].as_str().unwrap().contains("--free-dim-size"));
    let out = run(&["--free-dim-size", "8"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let conv = report["models"].as_array().unwrap().iter().find(|m| m["name"] == "conv").unwrap();
    assert_eq!(conv["inputs"][0]["shape"], serde_json::json!([1, 3, 8, 8]));
}

#[cfg(unix)]
#[test]
fn a_bench_killed_after_its_first_model_leaves_exports_with_that_model() {
    // The second model runs for days; the exports written after the first one survive a
    // SIGKILL, complete and parseable.
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("models");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(test_model("add_mul.onnx"), folder.join("a_add_mul.onnx")).unwrap();
    std::fs::copy(test_model("endless_loop.onnx"), folder.join("b_endless_loop.onnx")).unwrap();
    let (json, csv) = (dir.path().join("r.json"), dir.path().join("r.csv"));
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("dmlrun"))
        .arg("bench")
        .arg(&folder)
        .args(["--iterations", "3", "--isolation", "none", "--quiet", "--json"])
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !json.exists() {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "no export after the first model");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let names: Vec<&str> = report["models"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a_add_mul"]);
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 2, "header and the first model");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn several_sessions_run_at_once_and_report_each_one() {
    let model = sample("squeezenet1.1.onnx");
    let (report, _) = bench_json(&[
        model.to_str().unwrap(),
        "--ep",
        "cpu",
        "--iterations",
        "6",
        "--warmup",
        "1",
        "--intra-threads",
        "1",
        "--sessions",
        "3",
    ]);
    let m = &report["models"][0];
    // The session measured alone keeps its figures beside the concurrent ones.
    assert_eq!(m["latency_ms"]["count"], 6);
    let c = &m["sessions"];
    assert_eq!(c["sessions"], 3);
    assert_eq!(c["runs"], 18, "each session makes the --iterations: {c}");
    let per = c["per_session"].as_array().unwrap();
    assert_eq!(per.len(), 3);
    assert!(per.iter().all(|s| s["count"] == 6 && s["p50"].as_f64().unwrap() > 0.0), "{c}");
    let wall = c["wall_s"].as_f64().unwrap();
    let throughput = c["throughput_per_s"].as_f64().unwrap();
    assert!(wall > 0.0 && (throughput - 18.0 / wall).abs() < 1e-6 * throughput, "{c}");
}

#[test]
fn the_unfused_profile_is_refused_on_the_cpu() {
    let model = sample("squeezenet1.1.onnx");
    let dir = tempfile::tempdir().unwrap();
    let out = dmlrun()
        .arg("bench")
        .arg(&model)
        .args(["--ep", "cpu", "--iterations", "1", "--profile"])
        .arg(dir.path())
        .arg("--profile-unfused")
        .output()
        .unwrap();
    assert_one_line_error(
        &out,
        "--profile-unfused turns DirectML's graph fusion off and cannot be combined with --ep cpu",
    );
    // --profile-unfused means nothing without --profile: a usage error.
    let out = dmlrun().arg("bench").arg(&model).args(["--ep", "cpu", "--profile-unfused"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--profile"));
}

#[test]
fn the_html_page_keeps_every_run_and_shows_both_providers_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("bench.html");
    let add = test_model("add_mul.onnx");
    let (report, table) = bench_json(&[
        add.to_str().unwrap(),
        "--iterations",
        "25",
        "--compare-ep",
        "cpu",
        "--html",
        html.to_str().unwrap(),
    ]);
    let model = &report["models"][0];
    // The raw per-run latencies the distributions are drawn from, for both providers.
    let samples = model["samples_ms"].as_array().unwrap();
    assert_eq!(samples.len(), 25);
    let reference = &model["reference"];
    assert_eq!(reference["device"]["execution_provider"], "CPUExecutionProvider");
    assert_eq!(reference["latency_ms"]["count"], 25, "the reference is timed with the same budget");
    assert_eq!(reference["samples_ms"].as_array().unwrap().len(), 25);
    assert_eq!(reference["differences"][0]["max_abs"], 0.0);
    assert!(table.contains("CPUExecutionProvider: p50 "), "{table}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"));
    let runs_drawn: usize =
        page.split("<title>").filter_map(|t| t.split(" runs in ").next()?.parse::<usize>().ok()).sum();
    assert_eq!(runs_drawn, 50, "every run of both providers is in a histogram bar");
    assert!(page.contains(r#"id="model-add_mul""#) && page.contains("p50 CPUExecutionProvider (--compare-ep)"));
    assert!(!page.contains("https://") && !page.contains(" src="), "self-contained");
}

#[test]
fn an_html_page_that_cannot_be_written_is_a_one_line_error_naming_it() {
    let out = dmlrun()
        .arg("bench")
        .arg(test_model("add_mul.onnx"))
        // One run: no variation warning can join the one error line.
        .args(["--iterations", "1", "--quiet", "--html", "/nonexistent-dir/b.html"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "--html /nonexistent-dir/b.html");
}

#[test]
fn a_sweep_measures_each_size_in_its_own_session_and_marks_the_best() {
    let squeeze = sample("squeezenet1.1.onnx");
    let add = test_model("add_mul.onnx");
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("sweep.csv");
    let markdown = dir.path().join("sweep.md");
    let out = dmlrun()
        .arg("bench")
        .args([squeeze.to_str().unwrap(), add.to_str().unwrap()])
        .args(["--sweep", "N=1,2", "--iterations", "3", "--warmup", "0", "--json", "-"])
        .args(["--csv", csv.to_str().unwrap(), "--markdown", markdown.to_str().unwrap()])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{table}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let models = report["models"].as_array().unwrap();
    let names: Vec<&str> = models.iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["squeezenet1.1 N=1", "squeezenet1.1 N=2", "add_mul"]);
    for (i, m) in models[..2].iter().enumerate() {
        assert_eq!(m["sweep"]["of"], "squeezenet1.1");
        assert_eq!(m["sweep"]["over"], "N");
        assert_eq!(m["sweep"]["index"], i);
        // Each size is its own session, with its own creation and first run.
        assert_eq!(m["batch_size"], i + 1);
        assert!(m["session_create_ms"].as_f64().unwrap() > 0.0 && m["first_run_ms"].as_f64().unwrap() > 0.0);
    }
    // The model without N is measured once, and says why.
    assert!(models[2].get("sweep").is_none());
    let warnings = models[2]["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w.as_str().unwrap().contains("--sweep N: this model has no such")), "{warnings:?}");

    // The best throughput is the point with the most items per second, in every export.
    let items = |m: &serde_json::Value| {
        m["items_per_s"].as_f64().unwrap_or(m["latency_ms"]["throughput_per_s"].as_f64().unwrap())
    };
    let best = if items(&models[0]) >= items(&models[1]) { "1" } else { "2" };
    let best_line = table.lines().find(|l| l.contains("<- best throughput")).unwrap_or_else(|| panic!("{table}"));
    assert!(best_line.trim_start().starts_with(best), "{table}");
    assert!(table.contains("squeezenet1.1 swept over N:"), "{table}");
    let md = std::fs::read_to_string(&markdown).unwrap();
    assert!(md.contains("squeezenet1.1 swept over N:"), "{md}");
    assert!(md.lines().any(|l| l.starts_with(&format!("| {best} | ok |")) && l.contains("(best)")), "{md}");
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(csv.lines().next().unwrap().ends_with(",sweep_of,sweep_over,sweep_value,baseline_verdict,baseline_ratio,baseline_ci_low,baseline_ci_high,baseline_p_value,baseline_test"));
    // Without a baseline the six verdict columns are empty.
    assert!(csv.lines().nth(2).unwrap().ends_with(",squeezenet1.1,N,2,,,,,,"), "{csv}");
    assert!(csv.lines().nth(3).unwrap().ends_with(&",".repeat(9)), "{csv}");
}

#[test]
fn a_shape_sweep_records_a_shape_that_does_not_fit_as_that_points_failure() {
    let squeeze = sample("squeezenet1.1.onnx");
    let out = dmlrun()
        .arg("bench")
        .arg(&squeeze)
        .args(["--sweep-shape", "input=1,3,224,224:1,3,64,64", "--iterations", "2", "--warmup", "0", "--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["models"][0]["name"], "squeezenet1.1 input=1x3x224x224");
    let failed = &report["failed"][0];
    assert_eq!((failed["sweep"]["value"].as_str(), failed["sweep"]["index"].as_u64()), (Some("1x3x64x64"), Some(1)));
    assert!(failed["error"].as_str().unwrap().contains("fixed to 224"), "{failed}");
    assert!(stderr.contains("1x3x64x64        FAILED: "), "{stderr}");
}

#[test]
fn a_sweep_over_what_no_model_has_is_a_usage_error() {
    let squeeze = sample("squeezenet1.1.onnx");
    for (flag, value, says) in [
        ("--sweep", "Q=1,2", "--sweep Q: none of the 1 model(s) has a free dimension named 'Q'"),
        ("--sweep-shape", "nope=1,2:2,2", "--sweep-shape nope: none of the 1 model(s) has an input named 'nope'"),
        ("--sweep", "N=1,0", "not a size of at least 1"),
    ] {
        let out = dmlrun().arg("bench").arg(&squeeze).args([flag, value]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
    }
}

#[cfg(unix)]
#[test]
fn file_names_that_are_not_utf8_are_told_apart_and_reported_as_strings() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    for name in [&b"\xff.onnx"[..], &b"\xfe.onnx"[..]] {
        std::fs::copy(test_model("add_mul.onnx"), dir.path().join(std::ffi::OsStr::from_bytes(name))).unwrap();
    }
    let (report, _) = bench_json(&[dir.path().to_str().unwrap(), "--iterations", "2"]);
    let mut names: Vec<&str> =
        report["models"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["\\xfe", "\\xff"]);
    for model in report["models"].as_array().unwrap() {
        let path = model["path"].as_str().expect("a path is a string");
        assert!(path.ends_with(".onnx") && path.contains("\\x"), "{path}");
    }
}
