//! One preflight per model: the flags that name a model's dimensions and inputs (`--dim`,
//! `--shape`, `--dim-denotation`) do in `test` and `bench`, in this process and in isolation
//! children, what they do in `run`; in a folder they apply to the models they fit, a model they
//! do not fit is that model's failed row, and one that fits no model is the run's usage error.

mod common;

use std::path::{Path, PathBuf};

use common::{assert_one_line_error, dmlrun, run_json, test_model};

/// The three ways of fixing add_mul's `batch` (DATA_BATCH) to 2.
const BATCH_FLAGS: [[&str; 2]; 3] = [["--dim", "batch=2"], ["--shape", "x=2,4"], ["--dim-denotation", "DATA_BATCH=2"]];

/// add_mul run on generated inputs of batch 2, frozen as a test-data folder.
fn batch_2_case(dir: &Path) -> PathBuf {
    let case = dir.join("add_mul_b2");
    dmlrun()
        .arg(test_model("add_mul.onnx"))
        .args([
            "--generate",
            "random",
            "--dim",
            "batch=2",
            "--iterations",
            "1",
            "-q",
            "--as-test-data",
            "--save-outputs",
        ])
        .arg(&case)
        .assert()
        .success();
    case
}

/// A folder with add_mul (batch, DATA_BATCH, inputs x and y), int64_ids (batch, no x) and
/// unread_output (static [2, 4], x and y).
fn folder(dir: &Path) -> PathBuf {
    let folder = dir.join("models");
    std::fs::create_dir(&folder).unwrap();
    for name in ["add_mul.onnx", "int64_ids.onnx", "unread_output.onnx"] {
        std::fs::copy(test_model(name), folder.join(name)).unwrap();
    }
    folder
}

fn overrides(plan: &serde_json::Value) -> Vec<(String, i64)> {
    plan["dimension_overrides"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["key"].as_str().unwrap().to_string(), o["value"].as_i64().unwrap()))
        .collect()
}

fn bench_json(target: &Path, extra: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let out = dmlrun()
        .arg("bench")
        .arg(target)
        .args(["--iterations", "2", "--warmup", "0", "--json", "-"])
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (out.status.code(), report, stderr)
}

fn measured<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("{name}: {report}"))
}

#[test]
fn run_and_bench_in_process_and_in_a_child_fix_the_same_dimensions() {
    for flags in BATCH_FLAGS {
        let model = test_model("add_mul.onnx");
        let run = run_json(&[model.to_str().unwrap(), "--iterations", "1", "--generate", "random", flags[0], flags[1]]);
        let want = overrides(&run["plan"]);
        assert!(want.len() == 1 && want[0].1 == 2, "{flags:?}: {want:?}");
        assert_eq!(run["inputs"][0]["shape"], serde_json::json!([2, 4]), "{flags:?}");
        for isolation in ["none", "process"] {
            let (code, report, stderr) = bench_json(&model, &[flags[0], flags[1], "--isolation", isolation]);
            assert_eq!(code, Some(0), "{flags:?} --isolation {isolation}: {stderr}");
            let add_mul = measured(&report, "add_mul");
            assert_eq!(overrides(&add_mul["plan"]), want, "{flags:?} --isolation {isolation}");
            assert_eq!(add_mul["inputs"][0]["shape"], serde_json::json!([2, 4]), "{flags:?} --isolation {isolation}");
        }
    }
}

#[test]
fn test_applies_the_flags_to_its_sessions_in_process_and_in_children() {
    let dir = tempfile::tempdir().unwrap();
    let case = batch_2_case(dir.path());
    for isolation in ["none", "process"] {
        for flags in BATCH_FLAGS {
            let out = dmlrun().arg("test").arg(&case).args(flags).args(["--isolation", isolation]).output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{flags:?} --isolation {isolation}: {stdout}");
        }
        // The flag reaches the session: batch fixed to 3 cannot take the case's batch of 2, and
        // the error says so as the flag's.
        let out = dmlrun()
            .arg("test")
            .arg(&case)
            .args(["--dim", "batch=3", "--isolation", isolation, "--json", "-"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "--isolation {isolation}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let case = &report["cases"][0];
        assert_eq!(case["status"], "error", "--isolation {isolation}: {case}");
        let reason = case["reason"].as_str().unwrap();
        assert!(reason.contains("axis 0 must be 3 (fixed by --dim batch=3)"), "--isolation {isolation}: {case}");
    }
}

#[test]
fn a_folder_flag_applies_to_the_models_it_fits_and_says_so_for_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let folder = folder(dir.path());
    for isolation in ["none", "process"] {
        let (code, report, stderr) = bench_json(&folder, &["--dim", "batch=2", "--isolation", isolation]);
        assert_eq!(code, Some(0), "--isolation {isolation}: {stderr}");
        assert_eq!(report["failed"], serde_json::json!([]), "--isolation {isolation}");
        for name in ["add_mul", "int64_ids"] {
            assert_eq!(overrides(&measured(&report, name)["plan"]), [("batch".to_string(), 2)], "{name} {isolation}");
        }
        let unread = measured(&report, "unread_output");
        assert!(overrides(&unread["plan"]).is_empty());
        let note = "--dim batch=2 not applied: this model has no free dimension 'batch'";
        assert!(unread["warnings"].as_array().unwrap().iter().any(|w| w == note), "{isolation}: {unread}");
        assert!(stderr.contains(&format!("warning: unread_output: {note}")), "{isolation}: {stderr}");
    }
}

#[test]
fn a_flag_that_does_not_fit_a_model_fails_that_model_alone_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let folder = folder(dir.path());
    for isolation in ["none", "process"] {
        // x has rank 2 in add_mul and unread_output; int64_ids has no x.
        let (code, report, stderr) = bench_json(&folder, &["--shape", "x=2", "--isolation", isolation]);
        assert_eq!(code, Some(1), "--isolation {isolation}: {stderr}");
        let measured: Vec<&str> =
            report["models"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
        assert_eq!(measured, ["int64_ids"], "--isolation {isolation}");
        let failed: Vec<(&str, &str)> = report["failed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["name"].as_str().unwrap(), f["error"].as_str().unwrap()))
            .collect();
        assert_eq!(
            failed,
            [
                ("add_mul", "--shape x=2: input 'x' has rank 2 ([batch, 4]), not 1"),
                ("unread_output", "--shape x=2: input 'x' has rank 2 ([2, 4]), not 1")
            ],
            "--isolation {isolation}"
        );
        assert!(stderr.contains("dmlrun: model add_mul failed: --shape x=2"), "{stderr}");
    }
}

#[test]
fn a_flag_that_fits_no_model_is_the_runs_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let folder = folder(dir.path());
    let case = batch_2_case(dir.path());
    for isolation in ["none", "process"] {
        let out = dmlrun().arg("bench").arg(&folder).args(["--dim", "sequence=3", "--isolation", isolation]).output();
        let out = out.unwrap();
        // int64_ids has `sequence`: it fits one model, so the bench runs.
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let out = dmlrun().arg("bench").arg(&folder).args(["--dim", "seq=3", "--isolation", isolation]).output();
        assert_one_line_error(&out.unwrap(), "--dim seq=3: none of the 3 models has a free dimension named 'seq'");
        let out = dmlrun().arg("test").arg(&case).args(["--shape", "z=1", "--isolation", isolation]).output();
        assert_one_line_error(&out.unwrap(), "--shape z=1: the model has no input 'z' (its inputs: x, y)");
    }
}
