//! `dmlrun reduce` on Linux, where the CPU EP is the only execution provider: the EP under test
//! is the CPU EP with `optimization.enable_gelu_approximation=1`, which replaces the exact Gelu
//! with its tanh approximation (a real numerical difference inside ONNX Runtime, at one node),
//! and the reference is the CPU EP as ONNX Runtime configures it by default. DirectML's
//! rejections of real models are reduced under Wine (scripts/wine-check).

mod common;

use common::{assert_one_line_error, dmlrun, test_model};

const APPROXIMATE: [&str; 4] = ["--ep", "cpu", "--session-config", "optimization.enable_gelu_approximation=1"];

fn gelu_chain() -> Vec<String> {
    let model = test_model("gelu_chain.onnx").display().to_string();
    [model.as_str(), "--generate", "ones", "--dim", "N=2"].iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_accuracy_mode_finds_the_first_divergent_node_of_an_external_data_model_and_writes_a_case_test_reproduces() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gelu-bug");
    // On a GitHub runner: reduce's candidates (each a `dmlrun test`) write no summary of their own.
    let summary = dir.path().join("summary.md");
    let output = dmlrun()
        .arg("reduce")
        .args(gelu_chain())
        .args(APPROXIMATE)
        .arg("-o")
        .arg(&out)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!summary.exists(), "a candidate wrote {}", std::fs::read_to_string(&summary).unwrap());
    assert!(stdout.contains("first differs: tensor 'g'"), "{stdout}");
    assert!(stdout.contains("minimal     : 1 of 6 nodes (nodes 3..=3"), "{stdout}");
    assert!(
        stdout.contains(
            "node        : 'gelu' (Gelu, com.microsoft opset 1; in: i float32 [2, 8]; out: g float32 [2, 8])"
        ),
        "{stdout}"
    );
    // Each candidate is said as it is checked: the whole model, every tensor exposed, then the node.
    assert_eq!(stderr.lines().filter(|l| l.starts_with("reduce: ")).count(), 3, "{stderr}");

    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("reduce.json")).unwrap()).unwrap();
    assert_eq!(report["schema"], "dmlrun.reduce/1");
    assert_eq!(report["mode"], "accuracy");
    assert_eq!((report["nodes_before"].as_u64(), report["nodes_after"].as_u64()), (Some(6), Some(1)));
    assert_eq!(report["original"]["outcome"], "differs");
    assert_eq!(report["outcome"]["outcome"], "differs");
    assert_eq!(report["complete"], true);
    assert_eq!(report["tried"].as_array().unwrap().len(), 3);
    // What helps is said only as tried and seen: the approximation is a graph optimisation, so
    // with optimisations off the minimal model, and the whole one, pass; and with the Gelu
    // written as primitives there is no Gelu left to approximate.
    let remedies = report["remedies"].as_array().unwrap();
    assert_eq!(remedies.len(), 2, "{remedies:?}");
    for (remedy, option) in remedies.iter().zip(["--opt-level disable", "--decompose Gelu"]) {
        assert_eq!(remedy["option"], option);
        assert_eq!(remedy["minimal"]["outcome"], "pass");
        assert_eq!(remedy["whole"]["outcome"], "pass");
    }
    assert!(
        stdout.contains("options     : with --opt-level disable: the minimal model passes (max |diff| 0.00e0 from the reference), the whole model passes"),
        "{stdout}"
    );

    // The case stands alone (the external data read in) and shows the difference: the EP under
    // test fails it, the reference passes it.
    assert!(out.join("model.onnx").is_file() && !out.join("gelu_chain.bin").exists());
    let under_test =
        dmlrun().arg("test").arg(&out).args(APPROXIMATE).args(["--rtol", "1e-3", "--atol", "1e-5"]).output().unwrap();
    assert_eq!(under_test.status.code(), Some(1), "{}", String::from_utf8_lossy(&under_test.stdout));
    let reference =
        dmlrun().arg("test").arg(&out).args(["--ep", "cpu", "--rtol", "1e-3", "--atol", "1e-5"]).output().unwrap();
    assert_eq!(reference.status.code(), Some(0), "{}", String::from_utf8_lossy(&reference.stdout));
    // The commands it prints are those.
    let reproduce = report["reproduce"][0].as_str().unwrap();
    assert!(reproduce.contains("--session-config optimization.enable_gelu_approximation=1"), "{reproduce}");
    // Nothing of the work is left beside it.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, vec![std::ffi::OsString::from("gelu-bug")]);
}

#[test]
fn a_hang_is_bisected_to_the_nodes_that_hang_where_the_reference_runs_them() {
    // gelu_hang loops for ever where Gelu is approximated (just below the Loop's threshold) and
    // stops at once where it is exact: a hang of the EP under test, as DirectML's on the H100.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hang");
    let output = dmlrun()
        .arg("reduce")
        .arg(test_model("gelu_hang.onnx"))
        .args(["--generate", "ones", "--candidate-timeout", "2s"])
        .args(APPROXIMATE)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("timeout on the whole model"), "{stdout}");
    assert!(stdout.contains("minimal     : 4 of 6 nodes (nodes 2..=5"), "{stdout}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("reduce.json")).unwrap()).unwrap();
    assert_eq!(report["mode"], "hang");
    assert_eq!(report["outcome"]["outcome"], "timeout");
    assert_eq!(report["reference_outcome"]["outcome"], "pass");
    // Without the Gelu the candidate gets the reference's (exact) value and does not hang.
    let tried: Vec<(u64, u64, &str)> = report["tried"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["first"].as_u64().unwrap(), t["last"].as_u64().unwrap(), t["outcome"]["outcome"].as_str().unwrap()))
        .collect();
    assert!(tried.contains(&(3, 5, "pass")), "{tried:?}");
    // The case reproduces the hang on the EP under test within the command it prints.
    let reproduce = report["reproduce"][0].as_str().unwrap();
    assert!(reproduce.contains("--timeout 2s"), "{reproduce}");
    let under_test = dmlrun().arg("test").arg(&out).args(APPROXIMATE).args(["--timeout", "2s"]).output().unwrap();
    assert_eq!(under_test.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&under_test.stdout).contains("TIMEOUT"));
}

#[test]
fn a_model_both_eps_run_alike_has_nothing_to_reduce_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("none");
    let model = test_model("add_mul.onnx");
    let output = dmlrun()
        .arg("reduce")
        .arg(&model)
        .args(["--generate", "ones", "-q"])
        .args(APPROXIMATE)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_one_line_error(&output, "nothing to reduce");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "no partial files");
}

#[test]
fn a_model_the_reference_cannot_run_is_refused_before_any_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let output = dmlrun()
        .arg("reduce")
        .arg(test_model("unknown_op.onnx"))
        .args(["--generate", "ones"])
        .args(APPROXIMATE)
        .arg("-o")
        .arg(dir.path().join("x"))
        .output()
        .unwrap();
    let err = assert_one_line_error(&output, "the reference EP (--compare-ep cpu) cannot run it with these inputs");
    assert!(err.contains("Frobnicate") || err.contains("com.example"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_time_limit_keeps_the_smallest_failing_model_so_far_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("partial");
    let output = dmlrun()
        .arg("reduce")
        .args(gelu_chain())
        .args(APPROXIMATE)
        .args(["--time-limit", "1ms", "-q", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].contains("--timeout 1ms hit") && lines[0].contains("(6 of 6 nodes)"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("reduce.json")).unwrap()).unwrap();
    assert_eq!(report["complete"], false);
    // What was kept still shows the difference.
    let under_test =
        dmlrun().arg("test").arg(&out).args(APPROXIMATE).args(["--rtol", "1e-3", "--atol", "1e-5"]).output().unwrap();
    assert_eq!(under_test.status.code(), Some(1));
}

#[test]
fn a_candidate_killed_at_its_timeout_is_one_line_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let output = dmlrun()
        .arg("reduce")
        .args(gelu_chain())
        .args(APPROXIMATE)
        .args(["--candidate-timeout", "1ms", "-q", "-o"])
        .arg(dir.path().join("x"))
        .output()
        .unwrap();
    assert_one_line_error(&output, "ran past --candidate-timeout");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn an_output_folder_that_cannot_be_written_or_is_not_empty_is_refused_first() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let output =
        dmlrun().arg("reduce").args(gelu_chain()).args(APPROXIMATE).arg("-o").arg(file.join("out")).output().unwrap();
    assert_one_line_error(&output, &format!("{} is not a folder", file.display()));
    assert!(!String::from_utf8_lossy(&output.stderr).contains(".dmlrun-"), "no temporary name");
    let output = dmlrun().arg("reduce").args(gelu_chain()).args(APPROXIMATE).arg("-o").arg(&file).output().unwrap();
    assert_one_line_error(&output, "is a file; this names a folder to write");
    let busy = dir.path().join("busy");
    std::fs::create_dir(&busy).unwrap();
    std::fs::write(busy.join("keep.txt"), "mine").unwrap();
    let output = dmlrun().arg("reduce").args(gelu_chain()).args(APPROXIMATE).arg("-o").arg(&busy).output().unwrap();
    assert_one_line_error(&output, "exists and is not an empty folder");
    assert_eq!(std::fs::read_to_string(busy.join("keep.txt")).unwrap(), "mine");
}

#[test]
fn the_same_ep_with_the_same_options_on_both_sides_is_refused() {
    let output = dmlrun().arg("reduce").args(gelu_chain()).args(["--ep", "cpu"]).output().unwrap();
    assert_one_line_error(&output, "are the same execution provider here, with the same options");
}

#[test]
fn each_op_checks_every_operator_type_alone_and_names_the_one_that_differs() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("ops.json");
    let output = dmlrun()
        .arg("reduce")
        .args(gelu_chain())
        .args(APPROXIMATE)
        .arg("--each-op")
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "one operator differs: exit 1; {stderr}");
    let survey: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(survey["schema"], "dmlrun.each-op/1");
    let ops = survey["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 6);
    let failing: Vec<&str> =
        ops.iter().filter(|o| o["outcome"]["outcome"] != "pass").map(|o| o["op_type"].as_str().unwrap()).collect();
    assert_eq!(failing, vec!["Gelu"], "{survey}");
    let gelu = ops.iter().find(|o| o["op_type"] == "Gelu").unwrap();
    assert_eq!(gelu["node"]["name"], "gelu");
    assert_eq!(gelu["reference"]["outcome"], "pass");
    // No model is written.
    assert!(!test_model("gelu_chain-reduced").exists());
}

/// The README's and the guide's Linux example runs as printed and finds what they say.
#[test]
fn the_documented_linux_example_finds_the_gelu() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let line = readme
        .lines()
        .find_map(|l| l.strip_prefix("$ dmlrun reduce tests/models/gelu_chain.onnx"))
        .expect("the README shows the gelu_chain reduction");
    let guide = std::fs::read_to_string(common::root().join("docs/guide.md")).unwrap();
    assert!(
        guide.contains(&format!("dmlrun reduce tests/models/gelu_chain.onnx{line}")),
        "the guide shows the same line"
    );
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<&str> = line.split_whitespace().collect();
    let out_at = args.iter().position(|a| *a == "-o").unwrap();
    let output = dmlrun()
        .current_dir(common::root())
        .arg("reduce")
        .arg("tests/models/gelu_chain.onnx")
        .args(&args[..out_at])
        .arg("-o")
        .arg(dir.path().join(args[out_at + 1]))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    for shown in readme.lines().skip_while(|l| !l.contains(line)).skip(1).take_while(|l| !l.starts_with("```")) {
        assert!(stdout.contains(shown), "the README shows `{shown}`; the run printed:\n{stdout}");
    }
}

#[test]
fn a_reduction_of_a_rewritten_model_names_the_users_file_and_the_rewrite_never_the_temporary_one() {
    let dir = tempfile::tempdir().unwrap();
    let model = test_model("gemm_gelu.onnx");
    let json = dir.path().join("r.json");
    let reduce = |out: &str, json: Option<&std::path::Path>| {
        dmlrun()
            .arg("reduce")
            .arg(&model)
            .args(["--generate", "ones", "--dim", "N=2", "--gemm-zero-bias"])
            .args(APPROXIMATE)
            .arg("-o")
            .arg(dir.path().join(out))
            .args(json.map(|p| [std::ffi::OsStr::new("--json"), p.as_os_str()]).into_iter().flatten())
            .output()
            .unwrap()
    };
    let output = reduce("out", Some(&json));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("reduce: rewritten: --gemm-zero-bias: 1 node ('project')"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["model"], model.display().to_string());
    assert_eq!(report["made"], "rewritten by --gemm-zero-bias");
    assert_eq!(report["node"]["name"], "gelu");
    // Without --json the same reads on stdout, and nothing a person reads names the made file.
    let output = reduce("out2", None);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stdout.contains(&format!("model       : {} (rewritten by --gemm-zero-bias, 3 nodes)", model.display())),
        "{stdout}"
    );
    assert!(!stdout.contains("rewritten.onnx") && !stderr.contains("rewritten.onnx"), "{stdout}\n{stderr}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_while_the_whole_model_is_checked_exits_130_and_writes_nothing() {
    // gelu_hang never ends on the EP under test, so Ctrl-C comes while its check is under way
    // in the candidate's child; the parent and the child both see it, as a terminal sends it.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let args: Vec<std::ffi::OsString> = ["reduce".into(), test_model("gelu_hang.onnx").into_os_string()]
        .into_iter()
        .chain(["--generate", "ones", "--candidate-timeout", "60s", "-o"].map(Into::into))
        .chain([out.clone().into_os_string()])
        .chain(APPROXIMATE.map(Into::into))
        .collect();
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    // Ready once the staging folder beside the output holds the first candidate.
    let candidate_written = || {
        std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .any(|e| e.path().join("nodes-0-5").join("model.onnx").is_file())
    };
    let started = std::time::Instant::now();
    let output = common::interrupt_group(&args, 1, || {
        candidate_written() && started.elapsed() > std::time::Duration::from_millis(1500)
    });
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted while the whole model was checked"), "{stderr}");
    assert!(!stderr.contains("nothing to reduce"), "{stderr}");
    // No output folder, and the staging folder is gone with its candidates.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_json_file_that_cannot_be_written_is_refused_before_any_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let output = dmlrun()
        .arg("reduce")
        .args(gelu_chain())
        .args(APPROXIMATE)
        .args(["-q", "-o"])
        .arg(dir.path().join("out"))
        .arg("--json")
        .arg(dir.path().join("no-such-folder").join("reduce.json"))
        .output()
        .unwrap();
    assert_one_line_error(&output, "--json");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written, no staging folder left");
}

#[test]
fn without_output_the_minimal_model_goes_to_the_working_folder_not_beside_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let out = dmlrun()
        .current_dir(dir.path())
        .arg("reduce")
        .arg(test_model("gelu_chain.onnx"))
        .args(["--generate", "ones", "--dim", "N=2", "--ep", "cpu"])
        .args(["--session-config", "optimization.enable_gelu_approximation=1", "-q"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.path().join("gelu_chain-reduced").join("model.onnx").is_file());
    assert!(!test_model("gelu_chain-reduced").exists(), "written into the models' folder");
}

#[test]
fn with_no_input_given_the_inputs_are_generated_and_said_to_be() {
    // A missing input is no failure of the model's: fix and reduce generate it, seeded, as
    // `run --generate random` does, and say so once.
    let dir = tempfile::tempdir().unwrap();
    let note = "dmlrun: note: reduce: no --input given: the inputs are generated as --generate random does";
    let output = dmlrun()
        .arg("reduce")
        .arg(test_model("gelu_chain.onnx"))
        .args(["--dim", "N=2"])
        .args(APPROXIMATE)
        .arg("-o")
        .arg(dir.path().join("reduced"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stderr.matches(note).count(), 1, "{stderr}");
    let output = dmlrun()
        .arg("fix")
        .arg(test_model("matmul_weights.onnx"))
        .args(["--dim", "N=2", "--precision", "int8", "--atol", "0.5", "-o"])
        .arg(dir.path().join("fixed.onnx"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("dmlrun: note: fix: no --input given"), "{stderr}");
}

/// reduce makes its model with the engine's one maker, so int4 and int8 reach it as they reach
/// run: the quantized model is the one reduced (here it passes, so nothing is written).
#[test]
fn reduce_works_on_the_model_int8_makes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dmlrun()
        .arg("reduce")
        .arg(test_model("matmul_weights.onnx"))
        .args(["--precision", "int8", "--generate", "ones", "--dim", "N=2"])
        .args(APPROXIMATE)
        .arg("-o")
        .arg(dir.path().join("reduced"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("reduce: --precision int8: int8, block 32, symmetric, accuracy level 4"), "{stderr}");
    assert!(stderr.contains("MatMulNBits 'head_Q8'") && stderr.contains("its weights quantized to int8"), "{stderr}");
}
