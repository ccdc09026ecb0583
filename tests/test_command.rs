//! `dmlrun test`: test-data folders, exit codes, reports, expectations, cross-EP comparison,
//! and the TensorProto reader against files written by Python's `onnx`.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use dmlrun::tensor::{DType, HostTensor};

#[test]
fn tensor_proto_reader_matches_onnx_for_every_dtype() {
    let dir = data("tensors");
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tensors.json")).unwrap()).unwrap();
    let mut checked = 0;
    for (name, want) in expected.as_object().unwrap() {
        let dims: Vec<usize> = want["dims"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
        for variant in ["typed", "raw"] {
            let path = dir.join(format!("{name}_{variant}.pb"));
            if !path.exists() {
                continue;
            }
            let tensor = read_pb(&path);
            assert_eq!(tensor.shape, dims, "{name} {variant}");
            if name == "string" {
                let strings: Vec<&str> =
                    want["values"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
                assert_eq!(tensor.strings().unwrap(), strings.as_slice());
            } else {
                let values: Vec<f64> = want["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
                assert_eq!(tensor.to_f64().unwrap(), values, "{name} {variant}");
                let want_dtype = match name.as_str() {
                    "scalar" => DType::Float32,
                    "empty" => DType::Int64,
                    other => DType::parse(other).expect("fixture names are dtype names"),
                };
                assert_eq!(tensor.dtype, want_dtype, "{name} {variant}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 45, "only {checked} fixture files were checked");
}

/// Freezes add_mul's behaviour on two inputs into a test-data folder with `--as-test-data`.
fn frozen_case(dir: &Path) -> PathBuf {
    let x = HostTensor::from_f32(vec![1, 4], &[1.0, 2.0, 3.0, 4.0]).unwrap();
    let y = HostTensor::from_f32(vec![1, 4], &[0.5, 0.25, -1.0, 2.0]).unwrap();
    write_npy(&dir.join("x.npy"), &x);
    write_npy(&dir.join("y.npy"), &y);
    let case = dir.join("add_mul");
    dmlrun()
        .arg(test_model("add_mul.onnx"))
        .arg("-i")
        .arg(format!("x={}", dir.join("x.npy").display()))
        .arg("-i")
        .arg(format!("y={}", dir.join("y.npy").display()))
        .args(["--iterations", "1", "--as-test-data", "--save-outputs"])
        .arg(&case)
        .assert()
        .success();
    case
}

#[test]
fn a_dim_the_data_contradicts_is_named_as_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let case = frozen_case(dir.path());
    let out = dmlrun().arg("test").arg(&case).args(["--dim", "batch=3", "--json", "-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reason = report["cases"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("test_data_set_0 inputs") && reason.contains("(fixed by --dim batch=3)"), "{reason}");
    assert_eq!(report["cases"][0]["status"], "error");
}

#[test]
fn golden_round_trip_passes_and_a_changed_output_fails() {
    let dir = tempfile::tempdir().unwrap();
    let case = frozen_case(dir.path());
    assert!(case.join("model.onnx").is_file() && case.join("test_data_set_0/output_1.pb").is_file());
    let out = dmlrun().arg("test").arg(&case).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 case: 1 passed, 0 failed, 0 errors"));

    // Change one expected value beyond the tolerance.
    let product = case.join("test_data_set_0/output_1.pb");
    let mut t = read_pb(&product);
    if let dmlrun::tensor::TensorData::Bytes(b) = &mut t.data {
        b[4..8].copy_from_slice(&0.6f32.to_le_bytes());
    }
    std::fs::write(&product, dmlrun::formats::tensor_proto::write("product", &t)).unwrap();
    let out = dmlrun().arg("test").arg(&case).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("FAIL  add_mul: output 'product': 1 of 4 elements differ; first at index 1: expected 0.6"),
        "{stdout}"
    );
    assert!(stdout.contains("would pass with atol >="), "{stdout}");
    // A generous per-output tolerance makes it pass again.
    let out = dmlrun().arg("test").arg(&case).args(["--tol", "product=0.2,0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn json_and_junit_reports_describe_each_case() {
    let dir = tempfile::tempdir().unwrap();
    let case = frozen_case(dir.path());
    let broken = dir.path().join("broken");
    std::fs::create_dir_all(broken.join("test_data_set_0")).unwrap();
    std::fs::write(broken.join("model.onnx"), b"not a model").unwrap();
    let json = dir.path().join("report.json");
    let junit = dir.path().join("report.xml");
    let out = dmlrun()
        .arg("test")
        .arg(&case)
        .arg(&broken)
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["schema"], "dmlrun.test/2");
    assert_eq!(report["summary"]["passed"], 1);
    assert_eq!(report["summary"]["errors"], 1);
    let statuses: Vec<&str> =
        report["cases"].as_array().unwrap().iter().map(|c| c["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, vec!["pass", "error"]);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<testsuite name=\"dmlrun\" tests=\"2\""), "{xml}");
    assert!(xml.contains("<error") && xml.contains("not an ONNX model"), "{xml}");
}

#[test]
fn expectations_turn_known_failures_into_a_pass_and_report_fixed_ones() {
    let dir = tempfile::tempdir().unwrap();
    let case = frozen_case(dir.path());
    let broken = dir.path().join("broken");
    std::fs::create_dir_all(broken.join("test_data_set_0")).unwrap();
    std::fs::write(broken.join("model.onnx"), b"").unwrap();
    let expect = dir.path().join("expect.txt");
    std::fs::write(&expect, "error broken  # not a model\nfail add_mul  # pretend it was broken\n").unwrap();
    let out = dmlrun().arg("test").arg(&case).arg(&broken).arg("--expect").arg(&expect).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("now passes") && stdout.contains("add_mul"), "{stdout}");
    // Without the expectation the broken case fails the run.
    std::fs::write(&expect, "# nothing known\n").unwrap();
    let out = dmlrun().arg("test").arg(&case).arg(&broken).arg("--expect").arg(&expect).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 unexpected"));
}

#[test]
fn write_expect_records_this_runs_failures() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("suite/broken");
    std::fs::create_dir_all(broken.join("test_data_set_0")).unwrap();
    std::fs::write(broken.join("model.onnx"), b"x").unwrap();
    let expect = dir.path().join("expect.txt");
    dmlrun().arg("test").arg(dir.path().join("suite")).arg("--write-expect").arg(&expect).assert().code(1);
    let text = std::fs::read_to_string(&expect).unwrap();
    assert!(text.lines().any(|l| l.starts_with("error broken")), "{text}");
}

#[test]
fn cross_ep_comparison_runs_both_and_compares() {
    // On Linux, CPU against CPU at another optimisation level and thread count.
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("squeezenet");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::copy(sample("squeezenet1.1.onnx"), case.join("model.onnx")).unwrap();
    let set = case.join("test_data_set_0");
    std::fs::create_dir_all(&set).unwrap();
    std::fs::copy(data("golden/test_data_set_0/input_0.pb"), set.join("input_0.pb")).unwrap();
    let json = dir.path().join("r.json");
    let out = dmlrun()
        .arg("test")
        .arg(&case)
        .args(["--ep", "cpu", "--compare-ep", "cpu", "--compare-opt-level", "disable", "--compare-intra-threads", "1"])
        .args(["--atol", "1e-5", "--rtol", "1e-4", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["reference"], "ep cpu, opt-level disable, intra-threads 1");
    assert_eq!(report["summary"]["passed"], 1);
}

#[test]
fn golden_case_passes_with_its_data_json_tolerances() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("golden");
    std::fs::create_dir_all(case.join("test_data_set_0")).unwrap();
    std::fs::copy(sample("squeezenet1.1.onnx"), case.join("model.onnx")).unwrap();
    std::fs::copy(data("golden/data.json"), case.join("data.json")).unwrap();
    for f in ["input_0.pb", "output_0.pb"] {
        std::fs::copy(data("golden/test_data_set_0").join(f), case.join("test_data_set_0").join(f)).unwrap();
    }
    let out = dmlrun().arg("test").arg(&case).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn check_finite_fails_outputs_with_nan() {
    let dir = tempfile::tempdir().unwrap();
    let x = HostTensor::from_f32(vec![1, 4], &[f32::NAN, 1.0, 2.0, 3.0]).unwrap();
    write_npy(&dir.path().join("x.npy"), &x);
    let case = dir.path().join("nan");
    dmlrun()
        .arg(test_model("add_mul.onnx"))
        .arg("-i")
        .arg(format!("x={}", dir.path().join("x.npy").display()))
        .args(["--generate", "ones", "--iterations", "1", "--as-test-data", "--save-outputs"])
        .arg(&case)
        .assert()
        .success();
    // NaN equals NaN, so the plain comparison passes...
    dmlrun().arg("test").arg(&case).assert().code(0);
    // ...and --check-finite catches it.
    let out = dmlrun().arg("test").arg(&case).arg("--check-finite").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("NaN or Inf"));
}

#[test]
fn missing_path_is_an_error_exit_2() {
    let out = dmlrun().args(["test", "/nonexistent/suite"]).output().unwrap();
    assert_one_line_error(&out, "/nonexistent/suite: no such file or folder");
    let dir = tempfile::tempdir().unwrap();
    let out = dmlrun().arg("test").arg(dir.path()).output().unwrap();
    assert_one_line_error(&out, "no model.onnx, test_data_set_* folder or .onnx file found");
}

#[test]
fn jobs_run_cases_in_parallel_with_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a", "b", "c"] {
        let sub = dir.path().join(name);
        std::fs::create_dir_all(&sub).unwrap();
        frozen_case(&sub);
    }
    let out = dmlrun().arg("test").arg(dir.path()).args(["--jobs", "2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 cases: 3 passed"));
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_test_run_after_the_current_case_with_the_partial_report_and_exit_130() {
    // One real case (written by dmlrun itself), copied 3000 times: a run far longer than a second.
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    dmlrun()
        .arg(test_model("add_mul.onnx"))
        .args([
            "--generate",
            "random",
            "--dim",
            "batch=1",
            "--iterations",
            "1",
            "--quiet",
            "--as-test-data",
            "--save-outputs",
        ])
        .arg(&one)
        .assert()
        .success();
    let suite = dir.path().join("suite");
    for i in 0..3000 {
        let case = suite.join(format!("case_{i:04}"));
        std::fs::create_dir_all(case.join("test_data_set_0")).unwrap();
        for entry in std::fs::read_dir(&one).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::hard_link(&path, case.join(path.file_name().unwrap())).unwrap();
            }
        }
        for entry in std::fs::read_dir(one.join("test_data_set_0")).unwrap() {
            let path = entry.unwrap().path();
            std::fs::hard_link(&path, case.join("test_data_set_0").join(path.file_name().unwrap())).unwrap();
        }
    }
    let args = ["test", suite.to_str().unwrap(), "--jobs", "1", "--json", "-", "--quiet"];
    let out = interrupted_after_a_while(&args.map(std::ffi::OsStr::new));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the partial report is complete JSON");
    assert_eq!(report["interrupted"], true);
    let ran = report["cases"].as_array().unwrap().len();
    assert!(ran > 0 && ran < 3000, "{ran} cases in the report");
    assert_eq!(report["summary"]["total"].as_u64(), Some(ran as u64));
    assert_eq!(report["summary"]["passed"].as_u64(), Some(ran as u64), "{stderr}");
    assert!(stderr.contains(&format!("interrupted after {ran} of 3000 cases")), "{stderr}");
}

#[test]
fn a_folder_with_test_data_but_no_model_is_reported_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let orphan = dir.path().join("suite").join("orphan");
    std::fs::create_dir_all(orphan.join("test_data_set_0")).unwrap();
    let out = dmlrun().arg("test").arg(dir.path().join("suite")).args(["--json", "-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["cases"][0]["name"], "orphan");
    assert_eq!(report["cases"][0]["status"], "error");
    assert_eq!(report["cases"][0]["reason"], "has test_data_set_* folders but no model.onnx");
}

/// A suite of two cases: `good` (add_mul, frozen by dmlrun) and `hangs` (a Loop of 2^63-1
/// iterations, which runs for days).
fn suite_with_a_hanging_case(dir: &Path) -> PathBuf {
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    let good = frozen_case(dir);
    std::fs::rename(&good, suite.join("good")).unwrap();
    let hangs = suite.join("hangs");
    std::fs::create_dir_all(hangs.join("test_data_set_0")).unwrap();
    std::fs::copy(test_model("endless_loop.onnx"), hangs.join("model.onnx")).unwrap();
    let x = HostTensor::from_f32(vec![1], &[0.0]).unwrap();
    let proto = dmlrun::formats::tensor_proto::write("x", &x);
    std::fs::write(hangs.join("test_data_set_0").join("input_0.pb"), &proto).unwrap();
    std::fs::write(hangs.join("test_data_set_0").join("output_0.pb"), dmlrun::formats::tensor_proto::write("y", &x))
        .unwrap();
    suite
}

fn case_status<'a>(report: &'a serde_json::Value, name: &str) -> (&'a str, &'a str) {
    let case = report["cases"].as_array().unwrap().iter().find(|c| c["name"] == name).expect(name);
    (case["status"].as_str().unwrap(), case["reason"].as_str().unwrap_or(""))
}

#[test]
fn isolation_records_a_hanging_case_as_a_timeout_and_runs_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_with_a_hanging_case(dir.path());
    let out = dmlrun()
        .arg("test")
        .arg(&suite)
        .args(["--isolation", "process", "--timeout", "2s", "--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["schema"], "dmlrun.test/2");
    assert_eq!(case_status(&report, "good"), ("pass", ""));
    assert_eq!(
        case_status(&report, "hangs"),
        ("timeout", "ran past --timeout 2s in the run on test_data_set_0: killed")
    );
    assert_eq!(report["summary"]["timed_out"], 1);
    assert!(stderr.contains("1 timed out"), "{stderr}");
}

#[test]
fn a_time_limit_holds_without_isolation_flags_and_the_default_one_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_with_a_hanging_case(dir.path());
    let out =
        dmlrun().arg("test").arg(&suite).args(["--timeout", "2s", "--jobs", "2", "--json", "-"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(case_status(&report, "good"), ("pass", ""));
    assert_eq!(
        case_status(&report, "hangs"),
        ("timeout", "ran past --timeout 2s in the run on test_data_set_0: killed")
    );
    assert_eq!(report["isolation"], serde_json::json!({"in_children": true, "time_limit_s": 2.0}));

    // The default limit, and no limit where the cases stay in this process.
    let good = suite.join("good");
    let isolation = |extra: &[&str]| {
        let report = run_json(&[&["test", good.to_str().unwrap()], extra].concat());
        report["isolation"].clone()
    };
    assert_eq!(isolation(&[]), serde_json::json!({"in_children": true, "time_limit_s": 300.0}));
    assert_eq!(isolation(&["--timeout", "0"]), serde_json::json!({"in_children": false, "time_limit_s": null}));
    assert_eq!(isolation(&["--isolation", "none"]), serde_json::json!({"in_children": false, "time_limit_s": null}));
    let out = dmlrun().arg("test").arg(&good).args(["--isolation", "none", "--timeout", "5s"]).output().unwrap();
    assert_one_line_error(&out, "--timeout 5s: --isolation none keeps the items in this process");
}

#[cfg(unix)]
#[test]
fn ctrl_c_on_a_case_that_never_returns_marks_it_interrupted_in_process_and_in_a_child() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_with_a_hanging_case(dir.path());
    let junit = dir.path().join("junit.xml");
    for isolation in ["none", "process"] {
        let args = [
            "test",
            suite.to_str().unwrap(),
            "--isolation",
            isolation,
            "--json",
            "-",
            "--junit",
            junit.to_str().unwrap(),
        ];
        let out = interrupted_after_a_while(&args.map(std::ffi::OsStr::new));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "--isolation {isolation}: {stderr}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the partial report is JSON");
        assert_eq!(report["interrupted"], true);
        assert_eq!(case_status(&report, "good"), ("pass", ""), "--isolation {isolation}");
        assert_eq!(case_status(&report, "hangs").0, "interrupted", "--isolation {isolation}");
        assert_eq!(report["summary"]["interrupted"], 1);
        // Ctrl-C is no verdict on the case: not unexpected, and JUnit's "skipped", not an error.
        assert_eq!(report["summary"]["unexpected"], serde_json::json!([]), "--isolation {isolation}");
        let xml = std::fs::read_to_string(&junit).unwrap();
        assert!(xml.contains("errors=\"0\"") && xml.contains("skipped=\"1\"") && xml.contains("<skipped"), "{xml}");
        assert!(!stderr.contains("do not fit"), "--isolation {isolation}: {stderr}");
    }
}

#[cfg(unix)]
#[test]
fn isolation_records_a_child_killed_mid_run_as_a_crash_with_its_signal() {
    // The child is sent SIGSEGV once its progress file says it is on the hanging case, as a
    // crash inside ONNX Runtime or a driver would: the case it had finished is kept (it was
    // streamed to the parent as it finished), and only the case under way is lost.
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_with_a_hanging_case(dir.path());
    let mut parent = std::process::Command::new(assert_cmd::cargo::cargo_bin("dmlrun"))
        .arg("test")
        .arg(&suite)
        .args(["--isolation", "process", "--json", "-"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let marker = suite.to_str().unwrap().to_string();
    let mut killed = 0;
    let mut signalled = Vec::new();
    let status = loop {
        if let Some(status) = parent.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
        // The children are the processes whose command line names the suite and --child-report.
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if !cmdline.contains(&marker) || !cmdline.contains("--child-report") {
                continue;
            }
            let progress = cmdline.split(" --progress ").nth(1).and_then(|rest| rest.split(' ').next()).unwrap();
            let on_hangs = std::fs::read_to_string(progress).is_ok_and(|p| p.lines().next() == Some("hangs"));
            let pid = entry.file_name().to_string_lossy().into_owned();
            // Rust's own SIGSEGV handler (stack overflow detection) lets the first one sent by
            // kill pass and restores the default: it may take two to end the same child.
            if on_hangs && std::process::Command::new("kill").args(["-SEGV", &pid]).status().unwrap().success() {
                killed += 1;
                if !signalled.contains(&pid) {
                    signalled.push(pid);
                }
            }
        }
        assert!(killed < 20, "the parent keeps starting children");
    };
    let out = parent.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(signalled.len(), 1, "one child ran both cases and was killed on the second ({killed} signals)");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(case_status(&report, "good"), ("pass", ""));
    assert_eq!(case_status(&report, "hangs"), ("crash", "the process running it died: signal 11 (SIGSEGV)"));
    assert_eq!(report["summary"]["crashed"], 1);
}

#[test]
fn the_html_page_lists_cases_by_status_with_where_outputs_part() {
    let dir = tempfile::tempdir().unwrap();
    let case = frozen_case(dir.path());
    let product = case.join("test_data_set_0/output_1.pb");
    let mut t = read_pb(&product);
    if let dmlrun::tensor::TensorData::Bytes(b) = &mut t.data {
        b[4..8].copy_from_slice(&0.6f32.to_le_bytes());
    }
    std::fs::write(&product, dmlrun::formats::tensor_proto::write("product", &t)).unwrap();
    let broken = dir.path().join("broken");
    std::fs::create_dir_all(broken.join("test_data_set_0")).unwrap();
    std::fs::write(broken.join("model.onnx"), b"not a model").unwrap();
    let html = dir.path().join("report.html");
    let out = dmlrun().arg("test").arg(&case).arg(&broken).arg("--html").arg(&html).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains(r#"<tr class="case fail"><td>add_mul</td>"#), "{page}");
    assert!(page.contains(r#"<tr class="case error"><td>broken</td>"#), "{page}");
    // The mismatch: output, first index, both values, and the tolerance that would pass.
    let detail = page.split(r#"<table class="mismatches">"#).nth(1).unwrap();
    assert!(detail.contains(r#"<td>product</td><td class="n">1</td><td class="n">0.600000"#), "{detail}");
    assert!(detail.contains("1 of 4") && detail.contains("passes with") && detail.contains("atol "), "{detail}");
    assert!(page.contains(r#"id="only-failing""#), "filter by status");
}

#[test]
fn a_hang_on_generated_inputs_is_named_as_the_run_not_the_inputs() {
    let out = dmlrun()
        .arg("test")
        .arg(test_model("endless_loop.onnx"))
        .args(["--compare-ep", "cpu", "--timeout", "2s", "--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let case = &report["cases"][0];
    assert_eq!(case["status"], "timeout", "{case}");
    assert_eq!(case["reason"], "ran past --timeout 2s in the run on generated inputs: killed", "{case}");
}

#[test]
fn test_and_bench_warn_once_where_compare_ep_names_the_ep_under_test_itself() {
    let model = test_model("add_mul.onnx");
    for (command, extra) in [("test", &[][..]), ("bench", &["--iterations", "2", "-q"][..])] {
        let out = dmlrun()
            .arg(command)
            .arg(&model)
            .args(["--ep", "cpu", "--compare-ep", "cpu", "--dim", "batch=1"])
            .args(extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.matches("are the same execution provider here (cpu)").count(), 1, "{command}: {stderr}");
    }
}

#[test]
fn a_zoo_of_families_reads_worst_family_first_and_failures_first_in_each() {
    // Two families: `vision` all passing (two copies of one case), `speech` with one case that
    // passes and one that cannot load. The page opens with the families, the worst first, and
    // lists the cases grouped by family, the failing case before the passing one.
    let dir = tempfile::tempdir().unwrap();
    let zoo = dir.path().join("zoo");
    let case = frozen_case(dir.path());
    for (family, name) in [("vision", "a_passes"), ("vision", "b_passes"), ("speech", "a_passes")] {
        let to = zoo.join(family).join(name);
        std::fs::create_dir_all(to.join("test_data_set_0")).unwrap();
        std::fs::copy(case.join("model.onnx"), to.join("model.onnx")).unwrap();
        for f in ["input_0.pb", "input_1.pb", "output_0.pb", "output_1.pb"] {
            std::fs::copy(case.join("test_data_set_0").join(f), to.join("test_data_set_0").join(f)).unwrap();
        }
    }
    let broken = zoo.join("speech/z_broken");
    std::fs::create_dir_all(broken.join("test_data_set_0")).unwrap();
    std::fs::write(broken.join("model.onnx"), b"not a model").unwrap();
    let html = dir.path().join("zoo.html");
    let out = dmlrun().arg("test").arg(&zoo).arg("--html").arg(&html).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    let families = page
        .split(r#"<table class="families">"#)
        .nth(1)
        .expect("a table of families")
        .split("</table>")
        .next()
        .unwrap();
    let speech = families.find("speech").unwrap();
    assert!(speech < families.find("vision").unwrap(), "the worst family first: {families}");
    assert!(
        families.contains(
            "<td>speech</td><td class=\"n\">2</td><td class=\"n\">1</td><td class=\"n\">1</td><td class=\"n\">50%</td>"
        ),
        "{families}"
    );
    let cases = page.split(r#"<table class="cases">"#).nth(1).unwrap();
    let order: Vec<usize> = ["speech <span", "speech/z_broken", "speech/a_passes", "vision <span", "vision/a_passes"]
        .iter()
        .map(|needle| cases.find(needle).unwrap_or_else(|| panic!("{needle} missing: {cases}")))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "grouped, failures first: {order:?}");
    // A report of one family is the list as it ran, with no table of families.
    let out = dmlrun().arg("test").arg(zoo.join("vision")).arg("--html").arg(&html).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!std::fs::read_to_string(&html).unwrap().contains("By family"));
}
