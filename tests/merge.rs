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
    // One run is nothing to compare ("across 1 runs" was printed).
    let out = dmlrun().args(["merge", "--compare"]).arg(&strict).output().unwrap();
    assert_one_line_error(&out, "--compare puts two runs or more side by side");
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

/// The variables of every CI system `--shard auto` reads, cleared: a test sets the ones it means.
const CI_VARIABLES: &[&str] = &[
    "DMLRUN_SHARD",
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
    "BUILDKITE_PARALLEL_JOB",
    "BUILDKITE_PARALLEL_JOB_COUNT",
    "CIRCLE_NODE_INDEX",
    "CIRCLE_NODE_TOTAL",
    "SYSTEM_JOBPOSITIONINPHASE",
    "SYSTEM_TOTALJOBSINPHASE",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_STEP",
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_WORKSPACE",
];

fn in_ci(vars: &[(&str, String)]) -> assert_cmd::Command {
    let mut command = dmlrun();
    for name in CI_VARIABLES {
        command.env_remove(name);
    }
    command.envs(vars.iter().map(|(k, v)| (k, v)));
    command
}

/// The variables a CI system gives its job K.
type JobVariables = dyn Fn(usize) -> Vec<(&'static str, String)>;

#[test]
fn shard_auto_takes_each_ci_jobs_part_as_shard_k_of_n_would() {
    let dir = tempfile::tempdir().unwrap();
    let zoo = zoo(dir.path());
    let whole = test_json(&zoo, &[], &dir.path().join("whole.json"));
    // GitLab counts its jobs from 1, CircleCI from 0; SLURM's array 4-8:2 is three tasks.
    let systems: Vec<(&str, Box<JobVariables>)> = vec![
        ("GitLab", Box::new(|k| vec![("CI_NODE_INDEX", k.to_string()), ("CI_NODE_TOTAL", "3".into())])),
        ("CircleCI", Box::new(|k| vec![("CIRCLE_NODE_INDEX", (k - 1).to_string()), ("CIRCLE_NODE_TOTAL", "3".into())])),
        (
            "SLURM",
            Box::new(|k| {
                vec![
                    ("SLURM_ARRAY_TASK_ID", (4 + 2 * (k - 1)).to_string()),
                    ("SLURM_ARRAY_TASK_MIN", "4".into()),
                    ("SLURM_ARRAY_TASK_MAX", "8".into()),
                    ("SLURM_ARRAY_TASK_COUNT", "3".into()),
                ]
            }),
        ),
    ];
    for (system, job) in &systems {
        let mut names = Vec::new();
        for k in 1..=3 {
            let auto = dir.path().join(format!("{system}-{k}.json"));
            let out =
                in_ci(&job(k)).arg("test").arg(&zoo).args(["--shard", "auto", "--json"]).arg(&auto).output().unwrap();
            assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(stdout.contains(&format!("(shard {k}/3 of 7 cases, from ")), "{system}: {stdout}");
            let part: serde_json::Value = serde_json::from_slice(&std::fs::read(&auto).unwrap()).unwrap();
            assert!(part["shard"]["from"].as_str().unwrap().contains(job(k)[0].0), "{}", part["shard"]);
            let given = test_json(&zoo, &["--shard", &format!("{k}/3")], &dir.path().join("given.json"));
            assert_eq!(verdicts(&part), verdicts(&given), "{system} job {k} is --shard {k}/3");
            names.extend(verdicts(&part));
        }
        names.sort();
        assert_eq!(names, verdicts(&whole), "{system}: every case exactly once");
    }
    // No variable: an error naming what it looked for, never a run of everything.
    for kind in [&["test"][..], &["bench", "--iterations", "1"][..]] {
        let out = in_ci(&[]).args(kind).arg(&zoo).args(["--shard", "auto"]).output().unwrap();
        let line = assert_one_line_error(&out, "--shard auto: no variable says which part this job is");
        assert!(line.contains("DMLRUN_SHARD") && line.contains("CI_NODE_INDEX"), "{line}");
    }
}

#[test]
fn on_github_actions_a_summary_and_annotations_and_stdout_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let zoo = zoo(dir.path());
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let github = [("GITHUB_ACTIONS", "true".to_string()), ("GITHUB_STEP_SUMMARY", summary.display().to_string())];
    let out = in_ci(&github).arg("test").arg(&zoo).args(["--json", "-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    // stdout is the JSON report alone; the workflow commands are on stderr.
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["summary"]["failed"], 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].starts_with("::error file="), "{}", errors[0]);
    assert!(errors[0].contains("case3%2Fmodel.onnx") || errors[0].contains("case3/model.onnx"), "{}", errors[0]);
    assert!(errors[0].contains(",title=case3%3A fail::"), "{}", errors[0]);
    assert!(
        stderr.lines().any(|l| l == "::notice title=dmlrun test::6 of 7 cases passed, 1 failed, 0 errors"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(text.starts_with("earlier step\n### dmlrun test: FAILED\n"), "appended: {text}");
    // Where it ran, not only what was asked ("Ran on ep auto" said nothing).
    assert!(text.contains("Ran on CPUExecutionProvider (asked: "), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("| case")).collect();
    assert_eq!(rows.len(), 7, "{text}");
    assert!(rows[0].starts_with("| case3 | fail | output"), "the failed first: {text}");
    // --ci none, or no GitHub variables: nothing of it.
    for (vars, extra) in [(&github[..], &["--ci", "none"][..]), (&[][..], &[][..])] {
        let out = in_ci(vars).arg("test").arg(&zoo).args(extra).output().unwrap();
        assert!(!String::from_utf8_lossy(&out.stderr).contains("::"), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), text, "nothing more appended");
    // generate: a row per prompt.
    let generated = dir.path().join("generated.md");
    let vars = [("GITHUB_ACTIONS", "true".to_string()), ("GITHUB_STEP_SUMMARY", generated.display().to_string())];
    let out = in_ci(&vars)
        .arg("generate")
        .arg(test_model("tiny_decoder"))
        .args(["--prompt-ids", "5,17,33", "-n", "4", "-q"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l == "::notice title=dmlrun generate::1 prompts, 0 with tokens that differ from the reference"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&generated).unwrap();
    assert!(text.starts_with("### dmlrun generate: passed\n") && text.contains("| prompt 1 ("), "{text}");
    // bench: its own notice.
    let out =
        in_ci(&github).arg("bench").arg(test_model("add_mul.onnx")).args(["--iterations", "2", "-q"]).output().unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("::notice title=dmlrun bench::1 models: 1 measured, 0 failed")
    );
}

#[test]
fn junit_says_where_and_how_the_cases_ran() {
    let dir = tempfile::tempdir().unwrap();
    let zoo = zoo(dir.path());
    let junit = dir.path().join("j.xml");
    let job = [("CI_NODE_INDEX", "2".to_string()), ("CI_NODE_TOTAL", "2".to_string())];
    let out = in_ci(&job)
        .arg("test")
        .arg(&zoo)
        .args(["--shard", "auto", "--rtol", "0.01", "--junit"])
        .arg(&junit)
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1));
    let xml = std::fs::read_to_string(&junit).unwrap();
    for property in [
        r#"<property name="dmlrun" value="0.1.0"/>"#,
        r#"<property name="onnxruntime" value="1.31.1"/>"#,
        r#"<property name="run on" value="ep auto, opt-level all"/>"#,
        r#"<property name="execution providers" value="CPUExecutionProvider"/>"#,
        r#"<property name="rtol" value="0.01"/>"#,
        r#"<property name="shard" value="2/2 of 7 cases"/>"#,
        r#"<property name="shard from" value="CI_NODE_INDEX=2, CI_NODE_TOTAL=2 (GitLab)"/>"#,
    ] {
        assert!(xml.contains(property), "{property} in {xml}");
    }
}

#[test]
fn compare_tells_apart_runs_that_differ_only_in_their_session_options() {
    let dir = tempfile::tempdir().unwrap();
    let config = ["--session-config", "session.intra_op.allow_spinning=0"];
    let mut files = Vec::new();
    for (name, extra) in [("plain", &[][..]), ("configured", &config[..])] {
        let json = dir.path().join(format!("{name}.json"));
        let out = dmlrun()
            .arg("bench")
            .arg(test_model("add_mul.onnx"))
            .args(["--dim", "batch=2", "--iterations", "5", "-q", "--json"])
            .arg(&json)
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        files.push(json);
    }
    let out = dmlrun().arg("merge").arg("--compare").args(&files).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let runs: Vec<&str> = text.lines().filter(|l| l.starts_with("- **")).collect();
    assert_eq!(runs.len(), 2, "{text}");
    assert!(!runs[0].contains("session-config"), "{}", runs[0]);
    assert!(runs[1].contains("session-config session.intra_op.allow_spinning=0"), "{}", runs[1]);
    // test's runs too.
    let zoo = zoo(dir.path());
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    test_json(&zoo, &[], &a);
    test_json(&zoo, &config, &b);
    let out = dmlrun().arg("merge").arg("--compare").args([&a, &b]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("opt-level all, session-config session.intra_op.allow_spinning=0 (onnxruntime"), "{text}");
}

#[test]
fn a_rewrite_that_fits_none_of_one_shards_cases_is_a_warning_there_and_the_unsharded_runs_error() {
    let dir = tempfile::tempdir().unwrap();
    let zoo = zoo(dir.path());
    // The one case with a Gemm without a bias: --gemm-zero-bias fits it and no other.
    let out = dmlrun()
        .arg(test_model("gemm_tanh_no_bias.onnx"))
        .args(["--generate", "random", "--iterations", "1", "-q", "--as-test-data", "--save-outputs"])
        .arg(zoo.join("gemm"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let out = dmlrun().arg("test").arg(zoo.join("case0")).arg("--gemm-zero-bias").output().unwrap();
    assert_one_line_error(&out, "--gemm-zero-bias: the model has no Gemm without a bias");

    let mut warned = Vec::new();
    for k in 1..=2 {
        let json = dir.path().join(format!("shard{k}.json"));
        let out = dmlrun()
            .arg("test")
            .arg(&zoo)
            .args(["--gemm-zero-bias", "--shard", &format!("{k}/2"), "-q", "--json"])
            .arg(&json)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // 0 or 1 (case3 fails where it runs), never the usage error's 2.
        assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
        let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let names: Vec<String> = verdicts(&report).into_iter().map(|(n, _)| n).collect();
        if names.iter().any(|n| n == "gemm") {
            assert!(!stderr.contains("another shard"), "{stderr}");
        } else {
            assert!(
                stderr.contains(&format!(
                    "warning: shard {k}/2: --gemm-zero-bias: none of the {} models has a Gemm without a bias (another shard's models may have it)",
                    names.len()
                )),
                "{stderr}"
            );
            warned.push(k);
        }
    }
    assert_eq!(warned.len(), 1, "one shard holds the Gemm case, the other was warned");
}
