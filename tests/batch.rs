//! The one batch runner under `test` and `bench`: every promise it makes is checked in both
//! commands, on the same folders, so a promise kept in one cannot be broken in the other.

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// `test` checks a model without test data against --compare-ep on generated inputs, as bench
/// measures it: the same folder serves both commands.
const TEST: &[&str] = &["test", "--compare-ep", "cpu"];
const BENCH: &[&str] = &["bench", "--iterations", "3", "--warmup", "0"];

fn command(kind: &[&str], paths: &[&Path], extra: &[&str]) -> assert_cmd::Command {
    let mut cmd = dmlrun();
    cmd.arg(kind[0]).args(paths).args(&kind[1..]).args(extra);
    cmd
}

/// The items of a report, each as (name, status), whichever command wrote it.
fn items(report: &serde_json::Value) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = ["cases", "models", "failed"]
        .iter()
        .filter_map(|key| report[key].as_array())
        .flatten()
        .map(|item| (item["name"].as_str().unwrap().to_string(), item["status"].as_str().unwrap().to_string()))
        .collect();
    found.sort();
    found
}

fn status_of(report: &serde_json::Value, name: &str) -> String {
    items(report).into_iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no {name} in {report}")).1
}

/// What a passing item is called in each report.
fn ok(kind: &[&str]) -> &'static str {
    if kind[0] == "test" {
        "pass"
    } else {
        "ok"
    }
}

/// `a_add_mul.onnx` (input x rank 2, dim batch), `b_squeezenet.onnx` (no x, no batch).
fn two_models(dir: &Path) -> PathBuf {
    let folder = dir.join("models");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(test_model("add_mul.onnx"), folder.join("a_add_mul.onnx")).unwrap();
    std::fs::copy(sample("squeezenet1.1.onnx"), folder.join("b_squeezenet.onnx")).unwrap();
    folder
}

#[test]
fn a_flag_that_does_not_fit_one_model_fails_that_model_alone_in_test_and_bench() {
    let dir = tempfile::tempdir().unwrap();
    let folder = two_models(dir.path());
    for kind in [TEST, BENCH] {
        let out = command(kind, &[&folder], &["--shape", "x=2", "--json", "-"]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{kind:?}: {stderr}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let failed = if kind[0] == "test" { "error" } else { "failed" };
        assert_eq!(
            items(&report),
            [("a_add_mul".to_string(), failed.to_string()), ("b_squeezenet".to_string(), ok(kind).to_string())],
            "{kind:?}"
        );
        let row = report["cases"].as_array().or(report["failed"].as_array()).unwrap();
        let reason = row.iter().find(|r| r["name"] == "a_add_mul").unwrap();
        let reason = reason["reason"].as_str().or(reason["error"].as_str()).unwrap();
        assert!(reason.contains("--shape x=2: input 'x' has rank 2"), "{kind:?}: {reason}");
        assert!(
            stderr.contains("warning: b_squeezenet: --shape x=2 not applied: this model has no input 'x'"),
            "{kind:?}: {stderr}"
        );
    }
}

#[test]
fn a_flag_a_model_lacks_is_said_not_applied_and_recorded_in_test_and_bench() {
    let dir = tempfile::tempdir().unwrap();
    let folder = two_models(dir.path());
    for kind in [TEST, BENCH] {
        let out = command(kind, &[&folder], &["--dim", "batch=2", "--json", "-"]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{kind:?}: {stderr}");
        let note = "--dim batch=2 not applied: this model has no free dimension 'batch'";
        assert!(stderr.contains(&format!("warning: b_squeezenet: {note}")), "{kind:?}: {stderr}");
        assert!(!stderr.contains("a_add_mul: --dim"), "{kind:?}: {stderr}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let rows = report["cases"].as_array().or(report["models"].as_array()).unwrap();
        let squeezenet = rows.iter().find(|r| r["name"] == "b_squeezenet").unwrap();
        assert_eq!(squeezenet["warnings"][0], note, "{kind:?}");
    }
}

#[test]
fn free_dim_size_sizes_generated_inputs_in_test_and_bench_alike() {
    // At the default size 1 the 3x3 convolution cannot run; at 8 it can, in both commands.
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("conv.onnx");
    std::fs::copy(test_model("conv_free_hw.onnx"), &model).unwrap();
    for kind in [TEST, BENCH] {
        let out = command(kind, &[&model], &["--ort-log-level", "fatal"]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{kind:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("--free-dim-size"), "{kind:?}");
        let out = command(kind, &[&model], &["--free-dim-size", "8", "--json", "-"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{kind:?}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(status_of(&report, "conv"), ok(kind));
    }
}

#[test]
fn an_export_that_cannot_be_written_is_refused_before_the_first_model_runs() {
    let dir = tempfile::tempdir().unwrap();
    let folder = two_models(dir.path());
    let model = test_model("add_mul.onnx");
    for kind in [TEST, BENCH] {
        let out = command(kind, &[&folder, &model], &["--json", "/nonexistent/x.json"]).output().unwrap();
        let line = assert_one_line_error(&out, "--json /nonexistent/x.json: the folder /nonexistent does not exist");
        assert!(out.stdout.is_empty(), "{kind:?}: nothing ran, nothing printed: {line}");
    }
}

#[cfg(unix)]
#[test]
fn a_file_whose_name_is_not_utf8_is_an_item_like_any_other_in_a_child_and_here() {
    use std::os::unix::ffi::OsStringExt;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("models");
    std::fs::create_dir(&folder).unwrap();
    let odd = folder.join(std::ffi::OsString::from_vec(b"caf\xe9.onnx".to_vec()));
    std::fs::copy(test_model("add_mul.onnx"), &odd).unwrap();
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::copy(test_model("gelu_chain.onnx"), other.join("gelu.onnx")).unwrap();
    std::fs::copy(test_model("gelu_chain.bin"), other.join("gelu_chain.bin")).unwrap();
    for kind in [TEST, BENCH] {
        for isolation in ["process", "none"] {
            let out = command(kind, &[&folder, &other], &["--isolation", isolation, "--json", "-"]).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{kind:?} --isolation {isolation}: {stderr}");
            let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let names: Vec<String> = items(&report).into_iter().map(|(n, _)| n).collect();
            // Its byte that is not UTF-8 escaped, so that no other name prints alike.
            assert!(names.contains(&"caf\\xe9".to_string()), "{kind:?}: {names:?}");
            assert!(names.iter().any(|n| n.starts_with("gelu")), "{kind:?}: {names:?}");
        }
    }
}

#[test]
fn bench_names_a_test_case_folder_after_it_and_runs_a_genai_folder_as_generation() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("zoo");
    let case = folder.join("frozen_squeezenet");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::copy(sample("squeezenet1.1.onnx"), case.join("model.onnx")).unwrap();
    std::fs::create_dir(case.join("test_data_set_0")).unwrap();
    let decoder = folder.join("decoder");
    std::fs::create_dir(&decoder).unwrap();
    for entry in std::fs::read_dir(test_model("tiny_decoder")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), decoder.join(entry.file_name())).unwrap();
    }
    let out = command(BENCH, &[&folder], &["--json", "-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let models = report["models"].as_array().unwrap();
    let names: Vec<&str> = models.iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["decoder", "frozen_squeezenet"]);
    assert!(models[0]["generation"]["generation_tokens_per_s"].as_f64().unwrap() > 0.0);
    assert!(models[1]["generation"].is_null());
}

#[test]
fn a_bench_where_every_model_fails_says_what_device_it_asked_for() {
    let out = dmlrun().arg("bench").arg(test_model("unknown_op.onnx")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.starts_with("device: no model ran (--ep auto)   onnxruntime "), "{table}");
}

/// `a_add_mul.onnx`, then `b_endless_loop.onnx`, which never returns.
#[cfg(unix)]
fn a_model_then_one_that_never_returns(dir: &Path) -> PathBuf {
    let folder = dir.join("models");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(test_model("add_mul.onnx"), folder.join("a_add_mul.onnx")).unwrap();
    std::fs::copy(test_model("endless_loop.onnx"), folder.join("b_endless_loop.onnx")).unwrap();
    folder
}

#[cfg(unix)]
#[test]
fn ctrl_c_to_the_process_group_keeps_every_finished_item_in_every_export() {
    // One SIGINT (a terminal's Ctrl-C) or two (`timeout -s INT`, or Ctrl-C pressed twice) to
    // the whole group, parent and child alike, while the second model never returns: the first
    // is in every export, the second is `interrupted` (never `crash`, never `ok`), exit 130.
    let dir = tempfile::tempdir().unwrap();
    let folder = a_model_then_one_that_never_returns(dir.path());
    for kind in [TEST, BENCH] {
        for isolation in ["auto", "none"] {
            for signals in [1, 2] {
                let json = dir.path().join(format!("{}-{isolation}-{signals}.json", kind[0]));
                let html = json.with_extension("html");
                let mut args: Vec<&std::ffi::OsStr> = vec![kind[0].as_ref(), folder.as_os_str()];
                args.extend(kind[1..].iter().map(std::ffi::OsStr::new));
                args.extend(["--isolation", isolation, "--json"].map(std::ffi::OsStr::new));
                args.push(json.as_os_str());
                args.extend(["--html".as_ref(), html.as_os_str()]);
                // The exports are first written once the first model has finished.
                let out = interrupt_group(&args, signals, || {
                    json.exists() && {
                        std::thread::sleep(std::time::Duration::from_millis(500));
                        true
                    }
                });
                let what = format!("{kind:?} --isolation {isolation}, {signals} SIGINT");
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.code(), Some(130), "{what}: {stderr}");
                let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
                assert_eq!(report["interrupted"], true, "{what}");
                assert_eq!(
                    items(&report),
                    [
                        ("a_add_mul".to_string(), ok(kind).to_string()),
                        ("b_endless_loop".to_string(), "interrupted".to_string())
                    ],
                    "{what}: {stderr}"
                );
                let page = std::fs::read_to_string(&html).unwrap();
                assert!(page.contains("a_add_mul") && page.contains("b_endless_loop"), "{what}");
                assert!(stderr.contains("interrupted after 2 of 2"), "{what}: {stderr}");
                assert!(!stderr.contains("crash") && !stderr.contains("the process"), "{what}: {stderr}");
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_run_with_exit_130_and_run_holds_a_time_limit() {
    let model = test_model("endless_loop.onnx");
    let args = [model.as_os_str(), "--generate".as_ref(), "random".as_ref()];
    let started = std::time::Instant::now();
    let out = interrupt_group(&args, 1, || started.elapsed() > std::time::Duration::from_millis(1500));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("endless_loop.onnx: interrupted (Ctrl-C) in the first run; nothing was measured"),
        "{stderr}"
    );
    assert!(!stderr.contains("dmlrun: error"), "{stderr}");
    let out = dmlrun().arg(&model).args(["--generate", "random", "--timeout", "2s"]).output().unwrap();
    assert_one_line_error(&out, "endless_loop.onnx: ran past --timeout 2s in the first run; stopped");
    // A run that ends in time is not held to anything: the limit is the default 10m.
    let out = dmlrun().arg(test_model("add_mul.onnx")).args(["--generate", "random"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_the_timed_runs_of_run_reports_them_as_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    let model = test_model("add_mul.onnx");
    let args = [
        model.as_os_str(),
        "--generate".as_ref(),
        "random".as_ref(),
        "--iterations".as_ref(),
        "1000000000".as_ref(),
        "--json".as_ref(),
        json.as_os_str(),
    ];
    let started = std::time::Instant::now();
    let out = interrupt_group(&args, 2, || started.elapsed() > std::time::Duration::from_millis(1500));
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["interrupted"], true);
    let count = report["iterations"]["latency_ms"]["count"].as_u64().unwrap();
    assert!(count > 0 && count < 1_000_000_000, "{count}");
}
