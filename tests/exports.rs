//! Every export of every command parses as what it says it is: JSON with serde, CSV with a CSV
//! reader (every row as wide as the header), Markdown tables column-counted (a `|` in a cell
//! must not split it), JUnit against its schema (tests/data/junit.xsd, with Python's
//! xmlschema). The runs are made to hold what breaks naive writers: a model named `a|b, "c"`,
//! a prompt with a comma, a quote and a pipe, failing and erroring cases. The HTML pages are
//! rendered in headless Chromium by scripts/html-check.

mod common;

use std::path::{Path, PathBuf};

use common::{dmlrun, python_with, root, sample, test_model};

/// Runs dmlrun with `args` in `dir`; returns nothing, but fails on a panic or an exit outside `ok`.
fn run(dir: &Path, args: &[&str], ok: &[i32]) {
    let out = dmlrun().current_dir(dir).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    let code = out.status.code().unwrap_or(-1);
    assert!(ok.contains(&code), "{args:?} exited {code}: {stderr}");
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// Every record as wide as the header, the header's names unique; returns the records.
fn csv_records(path: &Path) -> Vec<csv::StringRecord> {
    let mut reader = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header = reader.headers().unwrap().clone();
    let mut names: Vec<&str> = header.iter().collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), header.len(), "{}: a column name twice", path.display());
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    for (i, r) in records.iter().enumerate() {
        assert_eq!(
            r.len(),
            header.len(),
            "{} row {}: {} fields, header {}",
            path.display(),
            i + 1,
            r.len(),
            header.len()
        );
    }
    records
}

/// Every table's rows have its header's number of cells (escaped pipes are not separators);
/// returns the number of rows checked.
fn markdown_rows(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let cells = |line: &str| line.replace("\\|", "").matches('|').count();
    let (mut width, mut rows) = (None, 0);
    for line in text.lines() {
        if !line.starts_with('|') {
            width = None;
            continue;
        }
        match width {
            None => width = Some(cells(line)),
            Some(w) => {
                assert_eq!(cells(line), w, "{}: a row with other cells than its header: {line}", path.display());
                // The alignment row (| --- | ---: |) is no row of data.
                rows += usize::from(!line.chars().all(|c| "|-: ".contains(c)));
            }
        }
    }
    rows
}

fn junit_valid(reports: &[PathBuf]) {
    let python = python_with("xmlschema", &["xmlschema"]);
    let out = std::process::Command::new(python)
        .arg(root().join("scripts/validate_junit.py"))
        .arg(root().join("tests/data/junit.xsd"))
        .args(reports)
        .output()
        .unwrap();
    assert!(out.status.success(), "JUnit reports that do not validate:\n{}", String::from_utf8_lossy(&out.stdout));
}

/// A suite with a passing, a failing and an erroring case.
fn suite(dir: &Path) -> PathBuf {
    let suite = dir.join("suite");
    let good = suite.join("add_mul");
    run(
        dir,
        &["run", test_model("add_mul.onnx").to_str().unwrap(), "--generate", "random", "--dim", "batch=2", "-q"]
            .iter()
            .copied()
            .chain(["--as-test-data", "--save-outputs", good.to_str().unwrap()])
            .collect::<Vec<_>>(),
        &[0],
    );
    // The same inputs with the outputs of other inputs (seed 1): it fails.
    let other = dir.join("seed1");
    run(
        dir,
        &["run", test_model("add_mul.onnx").to_str().unwrap(), "--generate", "random", "--seed", "1"]
            .iter()
            .copied()
            .chain(["--dim", "batch=2", "-q", "--as-test-data", "--save-outputs", other.to_str().unwrap()])
            .collect::<Vec<_>>(),
        &[0],
    );
    let off = suite.join("add_mul_off");
    std::fs::create_dir_all(off.join("test_data_set_0")).unwrap();
    std::fs::copy(test_model("add_mul.onnx"), off.join("model.onnx")).unwrap();
    for (from, file) in [(&good, "input_0.pb"), (&good, "input_1.pb"), (&other, "output_0.pb"), (&other, "output_1.pb")]
    {
        std::fs::copy(from.join("test_data_set_0").join(file), off.join("test_data_set_0").join(file)).unwrap();
    }
    let broken = suite.join("unknown|op, \"x\"");
    std::fs::create_dir_all(broken.join("test_data_set_0")).unwrap();
    std::fs::copy(test_model("unknown_op.onnx"), broken.join("model.onnx")).unwrap();
    suite
}

#[test]
fn every_export_of_every_command_parses() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let out = |name: &str| dir.join(name);
    let path = |name: &str| out(name).display().to_string();

    // test: JSON, JUnit, CSV, Markdown, the expectations file; two shards for merge.
    let suite = suite(dir).display().to_string();
    run(
        dir,
        &[
            "test",
            &suite,
            "--json",
            &path("test.json"),
            "--junit",
            &path("test.xml"),
            "--csv",
            &path("test.csv"),
            "--markdown",
            &path("test.md"),
            "--write-expect",
            &path("expect.txt"),
        ],
        &[1],
    );
    for shard in ["1/2", "2/2"] {
        let name = format!("test-{}", &shard[..1]);
        run(dir, &["test", &suite, "--shard", shard, "--json", &path(&format!("{name}.json"))], &[0, 1]);
    }
    // bench: a manifest naming a model `a|b, "c"`, a model that fails, --compare-ep.
    let manifest = out("bench.json");
    std::fs::write(
        &manifest,
        serde_json::json!({"models": [
            {"path": sample("squeezenet1.1.onnx"), "name": "a|b, \"c\"", "dims": {"N": 1}},
            {"path": test_model("add_mul.onnx"), "dims": {"batch": 2}},
            {"path": test_model("unknown_op.onnx")},
        ]})
        .to_string(),
    )
    .unwrap();
    let manifest = manifest.display().to_string();
    let bench = ["bench", &manifest, "--iterations", "3", "--warmup", "0", "--compare-ep", "cpu", "-q"];
    for (i, name) in ["bench-1", "bench-2"].iter().enumerate() {
        let mut args: Vec<String> = bench.iter().map(|s| s.to_string()).collect();
        for ext in ["json", "csv", "md", "html", "xml"] {
            let flag = match ext {
                "md" => "--markdown".to_string(),
                "xml" => "--junit".to_string(),
                _ => format!("--{ext}"),
            };
            args.extend([flag, path(&format!("{name}.{ext}"))]);
        }
        if i == 1 {
            args.extend(["--baseline".into(), path("bench-1.json")]);
        }
        run(dir, &args.iter().map(String::as_str).collect::<Vec<_>>(), &[1]);
    }
    // A sweep of that model: its own Markdown table, three more CSV columns.
    let (sweep_json, sweep_csv, sweep_md) = (path("sweep.json"), path("sweep.csv"), path("sweep.md"));
    let sweep: Vec<&str> = bench
        .iter()
        .copied()
        .chain(["--sweep", "N=1,2", "--json", &sweep_json, "--csv", &sweep_csv, "--markdown", &sweep_md])
        .collect();
    run(dir, &sweep, &[1]);
    // generate: a prompt file whose prompts hold a comma, a quote and a pipe.
    std::fs::write(out("prompts.txt"), "Hello, \"world\" | once\nA second one\n").unwrap();
    let tiny = test_model("tiny_decoder").display().to_string();
    run(
        dir,
        &[
            "generate",
            &tiny,
            "--prompt-file",
            &path("prompts.txt"),
            "-n",
            "4",
            "-q",
            "--json",
            &path("generate.json"),
            "--csv",
            &path("generate.csv"),
            "--markdown",
            &path("generate.md"),
            "--html",
            &path("generate.html"),
            "--junit",
            &path("generate.xml"),
            "--compare-ep",
            "cpu",
        ],
        &[0],
    );
    // merge: the shards, and the two bench runs side by side.
    run(
        dir,
        &[
            "merge",
            &path("test-1.json"),
            &path("test-2.json"),
            "--json",
            &path("merged.json"),
            "--junit",
            &path("merged.xml"),
            "--html",
            &path("merged.html"),
            "--csv",
            &path("merged-test.csv"),
            "--markdown",
            &path("merged-test.md"),
        ],
        &[0, 1],
    );
    run(
        dir,
        &[
            "merge",
            "--compare",
            &path("bench-1.json"),
            &path("bench-2.json"),
            "--json",
            &path("compare.json"),
            "--markdown",
            &path("compare.md"),
            "--html",
            &path("compare.html"),
        ],
        &[0, 1],
    );
    for shard in ["1/2", "2/2"] {
        let name = path(&format!("bench-shard-{}.json", &shard[..1]));
        let args: Vec<&str> = bench.iter().copied().chain(["--shard", shard, "--json", &name]).collect();
        run(dir, &args, &[0, 1]);
    }
    run(
        dir,
        &[
            "merge",
            &path("bench-shard-1.json"),
            &path("bench-shard-2.json"),
            "--csv",
            &path("merged.csv"),
            "--markdown",
            &path("merged.md"),
        ],
        &[0, 1],
    );
    // run, reduce and the commands that only look.
    let model = sample("squeezenet1.1.onnx").display().to_string();
    run(
        dir,
        &["run", &model, "--input", root().join("models/cat.png").to_str().unwrap(), "--json", &path("run.json")],
        &[0],
    );
    let gelu = test_model("gelu_chain.onnx").display().to_string();
    run(
        dir,
        &[
            "reduce",
            &gelu,
            "--generate",
            "ones",
            "--dim",
            "N=2",
            "--ep",
            "cpu",
            "--session-config",
            "optimization.enable_gelu_approximation=1",
            "-q",
            "-o",
            &path("gelu"),
            "--json",
            &path("reduce.json"),
        ],
        &[0],
    );
    run(dir, &["info", &model, "--json", &path("info.json")], &[0]);
    run(dir, &["devices", "--json", &path("devices.json")], &[0]);
    run(dir, &["doctor", "--json", &path("doctor.json")], &[0]);

    for name in [
        "test.json",
        "test-1.json",
        "merged.json",
        "bench-1.json",
        "bench-2.json",
        "sweep.json",
        "generate.json",
        "compare.json",
        "run.json",
        "reduce.json",
        "info.json",
        "devices.json",
        "doctor.json",
    ] {
        let value = json(&out(name));
        assert!(value.is_object(), "{name}");
    }
    assert_eq!(json(&out("bench-2.json"))["models"][0]["name"], "a|b, \"c\"");
    assert_eq!(json(&out("generate.json"))["prompts"][0]["figures"]["new_tokens"], 4, "a count is an integer");
    let bench_rows = csv_records(&out("bench-1.csv"));
    assert_eq!(bench_rows.len(), 3, "two measured, one failed");
    assert_eq!(&bench_rows[0][0], "a|b, \"c\"", "a name with a comma and quotes is one field");
    let sweep_rows = csv_records(&out("sweep.csv"));
    assert_eq!(sweep_rows.len(), 4, "two points, the model without N, the failure");
    assert_eq!(&sweep_rows[1][0], "a|b, \"c\" N=2");
    // The sweep's three columns, then the six of the baseline's verdict (empty: no baseline).
    assert_eq!(sweep_rows[1].iter().rev().skip(6).take(3).collect::<Vec<_>>(), ["2", "N", "a|b, \"c\""]);
    // bench-2 ran against bench-1: each measured model has a verdict and its test.
    let judged = csv_records(&out("bench-2.csv"));
    let verdicts: Vec<&str> = judged.iter().filter(|r| &r[1] == "ok").map(|r| &r[r.len() - 6]).collect();
    assert!(
        !verdicts.is_empty()
            && verdicts.iter().all(|v| ["regression", "improvement", "no change", "inconclusive"].contains(v)),
        "{verdicts:?}"
    );
    assert_eq!(markdown_rows(&out("sweep.md")), 4 + 2, "the models' table and the sweep's");
    // test: a row per case; the case named with a pipe, a comma and quotes is one field and one cell.
    let cases = csv_records(&out("test.csv"));
    assert_eq!(cases.len(), 3, "a passing, a failing and an erroring case");
    let status_of = |name: &str| cases.iter().find(|r| &r[0] == name).map(|r| r[1].to_string());
    assert_eq!(status_of("unknown|op, \"x\"").as_deref(), Some("error"));
    assert_eq!(status_of("add_mul_off").as_deref(), Some("fail"));
    assert_eq!(status_of("add_mul").as_deref(), Some("pass"));
    assert_eq!(markdown_rows(&out("test.md")), 3);
    // The shards merged: every case once.
    assert_eq!(csv_records(&out("merged-test.csv")).len(), 3);
    assert_eq!(markdown_rows(&out("merged-test.md")), 3);
    assert_eq!(csv_records(&out("generate.csv")).len(), 2);
    assert_eq!(csv_records(&out("merged.csv")).len(), 3);
    let md = std::fs::read_to_string(out("bench-1.md")).unwrap();
    assert_eq!(markdown_rows(&out("bench-1.md")), 3, "{md}");
    assert_eq!(markdown_rows(&out("merged.md")), 3);
    assert_eq!(markdown_rows(&out("generate.md")), 2);
    assert_eq!(markdown_rows(&out("compare.md")), 3);
    // bench-2's JUnit holds each model's verdict against bench-1 in its output.
    junit_valid(&[out("test.xml"), out("merged.xml"), out("bench-1.xml"), out("bench-2.xml"), out("generate.xml")]);
    // generate: a case per prompt, named by where it came from, its figures in its output.
    let generated = std::fs::read_to_string(out("generate.xml")).unwrap();
    assert_eq!(generated.matches("<testcase ").count(), 2, "{generated}");
    assert!(generated.contains("prompt 2 (") && generated.contains("tokens/s"), "{generated}");
    assert!(std::fs::read_to_string(out("bench-2.xml")).unwrap().contains("verdict: "));
    for page in ["bench-1.html", "bench-2.html", "generate.html", "merged.html", "compare.html"] {
        let html = std::fs::read_to_string(out(page)).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"), "{page}");
        assert!(!html.contains("a|b, \"c\"") || page.starts_with("generate"), "{page}: a name unescaped in HTML");
    }
    let expect = std::fs::read_to_string(out("expect.txt")).unwrap();
    assert!(expect.lines().any(|l| l.starts_with("fail add_mul_off")), "{expect}");
}

/// The list of formats (`report::export::FORMATS`) makes the flags: each format is a flag of
/// every command with report files, and a format a report is not written in is refused by name.
#[test]
fn every_format_of_the_list_is_a_flag_of_every_command_with_report_files() {
    for command in ["test", "bench", "generate", "merge"] {
        let help = String::from_utf8(common::dmlrun().args([command, "--help"]).output().unwrap().stdout).unwrap();
        for long in ["json", "csv", "markdown", "html", "junit"] {
            assert!(help.contains(&format!("--{long} <FILE>")), "{command} --help lacks --{long}");
        }
    }
    let work = tempfile::tempdir().unwrap();
    let json = work.path().join("a.json");
    let suite = suite(work.path());
    common::dmlrun().arg("test").arg(&suite).arg("--json").arg(&json).output().unwrap();
    let out = common::dmlrun()
        .args(["merge", "--compare"])
        .args([&json, &json])
        .arg("--csv")
        .arg(work.path().join("c.csv"))
        .output()
        .unwrap();
    common::assert_one_line_error(&out, "--csv: there is no such file for a comparison");
}
