//! `--shard K/N` and `dmlrun merge`: shards of a test or bench run put back together into the
//! unsharded run's report, runs side by side, and every way the reports can fail to fit.

mod common;

use std::path::{Path, PathBuf};

use common::{assert_one_line_error, dmlrun, test_model};

/// Seven test cases (add_mul frozen on seven random inputs, one of them then edited to fail).
fn zoo(dir: &Path) -> PathBuf {
    let zoo = dir.join("zoo");
    for seed in 0..7 {
        let case = zoo.join(format!("case{seed}"));
        let out = dmlrun()
            .arg(test_model("add_mul.onnx"))
            .args(["--generate", "random", "--seed", &seed.to_string(), "--iterations", "1", "-q"])
            .args(["--as-test-data", "--save-outputs"])
            .arg(&case)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // A case whose expected output is wrong: one failure to carry through the merge.
    let input = zoo.join("case3/test_data_set_0/output_0.pb");
    std::fs::copy(zoo.join("case4/test_data_set_0/output_0.pb"), &input).unwrap();
    zoo
}

fn test_json(zoo: &Path, extra: &[&str], json: &Path) -> serde_json::Value {
    let out = dmlrun().arg("test").arg(zoo).args(extra).arg("--json").arg(json).output().unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap()
}

fn verdicts(report: &serde_json::Value) -> Vec<(String, String)> {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap().to_string(), c["status"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn test_shards_cover_every_case_once_and_merge_into_the_unsharded_report() {
    let dir = tempfile::tempdir().unwrap();
    let zoo = zoo(dir.path());
    let whole = test_json(&zoo, &[], &dir.path().join("whole.json"));
    for mode in ["", "hash:"] {
        let mut files = Vec::new();
        let mut names: Vec<(String, String)> = Vec::new();
        for k in 1..=3 {
            let path = dir.path().join(format!("shard{mode}{k}.json").replace(':', "-"));
            let part = test_json(&zoo, &["--shard", &format!("{mode}{k}/3")], &path);
            assert_eq!(part["shard"]["index"], k);
            assert_eq!(part["shard"]["total"], 3);
            assert_eq!(part["shard"]["of_items"], 7);
            names.extend(verdicts(&part));
            files.push(path);
        }
        names.sort();
        assert_eq!(names, verdicts(&whole), "{mode}: the shards ran every case exactly once");

        let merged = dir.path().join("merged.json");
        let junit = dir.path().join("merged.xml");
        let out =
            dmlrun().arg("merge").args(&files).arg("--json").arg(&merged).arg("--junit").arg(&junit).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "one case fails, as in the whole run");
        assert!(String::from_utf8_lossy(&out.stdout).contains("7 cases: 6 passed, 1 failed, 0 errors"));
        let merged: serde_json::Value = serde_json::from_slice(&std::fs::read(&merged).unwrap()).unwrap();
        assert_eq!(verdicts(&merged), verdicts(&whole));
        let counts = |r: &serde_json::Value| {
            let mut s = r["summary"].clone();
            s.as_object_mut().unwrap().remove("duration_ms");
            s
        };
        assert_eq!(counts(&merged), counts(&whole));
        assert!(merged.get("shard").is_none());
        assert!(std::fs::read_to_string(&junit).unwrap().contains(r#"tests="7""#));
    }
}

#[test]
fn reports_that_do_not_fit_together_are_one_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let zoo = zoo(dir.path());
    let shard = |k: usize| {
        let path = dir.path().join(format!("s{k}.json"));
        test_json(&zoo, &["--shard", &format!("{k}/3")], &path);
        path
    };
    let (s1, s2, s3) = (shard(1), shard(2), shard(3));
    let out = dir.path().join("out.json");
    let merge = |files: &[&Path]| dmlrun().arg("merge").args(files).arg("--json").arg(&out).output().unwrap();

    assert_one_line_error(&merge(&[&s1, &s3]), "shard(s) 2 of 3 missing");
    assert_one_line_error(&merge(&[&s1, &s2, &s2, &s3]), "are both shard 2/3: overlapping shards");

    let other_version = dir.path().join("s2-other.json");
    let text = std::fs::read_to_string(&s2)
        .unwrap()
        .replace(&format!("\"dmlrun_version\": \"{}\"", env!("CARGO_PKG_VERSION")), "\"dmlrun_version\": \"0.0.1\"");
    std::fs::write(&other_version, text).unwrap();
    assert_one_line_error(&merge(&[&s1, &other_version, &s3]), "written by dmlrun 0.0.1");

    let truncated = dir.path().join("s3-cut.json");
    let text = std::fs::read(&s3).unwrap();
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    assert_one_line_error(&merge(&[&s1, &s2, &truncated]), "s3-cut.json: not a whole JSON report");

    let whole = dir.path().join("whole.json");
    test_json(&zoo, &[], &whole);
    assert_one_line_error(&merge(&[&whole, &s1]), "whole.json: not a shard");
    assert!(!out.exists(), "nothing is written when the reports do not fit");
}

#[test]
fn compare_puts_runs_side_by_side_with_disagreements_first() {
    let dir = tempfile::tempdir().unwrap();
    let zoo = zoo(dir.path());
    let strict = dir.path().join("strict.json");
    let loose = dir.path().join("loose.json");
    test_json(&zoo, &[], &strict);
    // A tolerance wide enough to pass the edited case: the two runs disagree on it alone.
    test_json(&zoo, &["--atol", "100"], &loose);
    let md = dir.path().join("compare.md");
    let html = dir.path().join("compare.html");
    let out = dmlrun()
        .args(["merge", "--compare"])
        .args([&strict, &loose])
        .arg("--markdown")
        .arg(&md)
        .arg("--html")
        .arg(&html)
        .args(["--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "verdicts disagree");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["schema"], "dmlrun.compare/1");
    assert_eq!(json["disagreements"], 1);
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 7);
    assert_eq!(rows[0]["name"], "case3");
    assert_eq!(rows[0]["agree"], false);
    assert_eq!(rows[0]["results"][0]["status"], "fail");
    assert_eq!(rows[0]["results"][1]["status"], "pass");
    let runs: Vec<&str> = json["runs"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(runs, ["strict", "loose"]);
    assert!(std::fs::read_to_string(&md).unwrap().contains("| case3 | fail"));
    assert!(std::fs::read_to_string(&html).unwrap().contains("NO"));
    // Shards are merged first, then compared.
    let shard = dir.path().join("shard.json");
    test_json(&zoo, &["--shard", "1/2"], &shard);
    let out = dmlrun().args(["merge", "--compare"]).args([&strict, &shard]).output().unwrap();
    assert_one_line_error(&out, "merge the shards of each run first");
}

#[test]
fn bench_shards_merge_into_one_report_of_every_model() {
    let dir = tempfile::tempdir().unwrap();
    let models = [test_model("add_mul.onnx"), test_model("split_rows.onnx"), test_model("int64_ids.onnx")];
    let mut files = Vec::new();
    for k in 1..=2 {
        let path = dir.path().join(format!("b{k}.json"));
        let out = dmlrun()
            .arg("bench")
            .args(&models)
            .args([
                "--generate",
                "ones",
                "--iterations",
                "3",
                "--warmup",
                "0",
                "--ep",
                "cpu",
                "--shard",
                &format!("{k}/2"),
            ])
            .arg("--json")
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        files.push(path);
    }
    let md = dir.path().join("merged.md");
    let out = dmlrun().arg("merge").args(&files).args(["--json", "-"]).arg("--markdown").arg(&md).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let merged: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = merged["models"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add_mul", "int64_ids", "split_rows"]);
    assert!(std::fs::read_to_string(&md).unwrap().contains("split_rows"));
    // The merged bench as JUnit: a case per model.
    let xml = dir.path().join("x.xml");
    let out = dmlrun().arg("merge").args(&files).arg("--junit").arg(&xml).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let xml = std::fs::read_to_string(&xml).unwrap();
    assert_eq!(xml.matches("<testcase ").count(), 3, "{xml}");
    assert!(xml.contains(r#"name="split_rows""#), "{xml}");
}
