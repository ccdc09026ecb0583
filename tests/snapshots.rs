//! What people read, as snapshots (uv's way): the human output of run, test and bench on fixed
//! models, with what varies between runs (timings, memory, paths of temporary folders) filtered
//! out. A change to a renderer shows as a diff here; `cargo insta review` (or
//! `INSTA_UPDATE=always cargo test --test snapshots`) takes a deliberate one.

mod common;

use common::*;

/// Filters for what varies from run to run: times, rates, memory, the machine's paths, and
/// output values in their last digits, which follow the CPU's kernels (MLAS picks them by the
/// machine's instruction set): the classes, labels and counts are what must not change.
fn settings(dir: &std::path::Path) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    let filters: &[(&str, &str)] = &[
        (r"(?m)^(  (runtime load|model load|session create|input prepare|first run))\s+\d+\.\d+", "$1 [ms]"),
        (r"(?m)^  min .*$", "  [timed runs]"),
        (r"(?m)^  stddev .*$", "  [variation]"),
        (r"\d+\.\d+%", "[%]"),
        (r"\b\d+ MiB\*?", "[MiB]"),
        (r"\(\d+\.\d s\)", "([s])"),
        (r"(?m)^(\S+)\s+(\d+\.\d+\s+){4}\[%\](\s+\d+\.\d+){3}\s+", "$1 [latency, throughput, session, first run] "),
        (r"\d+\.\d items/s", "[items/s]"),
        (r"onnxruntime \d+\.\d+\.\d+", "onnxruntime [version]"),
        (r"\(\S*libonnxruntime[^)]*\)", "([library])"),
        (r"(?m)^(\s+\S+\s+float32 \[[^\]]*\])\s+min .*$", "$1 [summary]"),
        (r"(?m)^(\s+)first values: .*$", "${1}first values: [values]"),
        (r"(?m)^(\s+\d+)\s+\d\.\d{6}(\s)", "$1 [p]$2"),
    ];
    settings.add_filter(&regex_escape(&dir.display().to_string()), "[TEMP]");
    settings.add_filter(&regex_escape(&root().display().to_string()), "[ROOT]");
    for (pattern, replacement) in filters {
        settings.add_filter(pattern, *replacement);
    }
    settings
}

fn regex_escape(text: &str) -> String {
    text.chars().fold(String::new(), |mut out, c| {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
        out
    })
}

fn stdout(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn run_classifies_the_sample_photo() {
    let dir = tempfile::tempdir().unwrap();
    let text = stdout(
        dmlrun()
            .arg(sample("squeezenet1.1.onnx"))
            .args(["--input"])
            .arg(sample("cat.png"))
            .args(["--top-k", "3", "--labels"])
            .arg(sample("imagenet_classes.txt"))
            .args(["--iterations", "3"]),
    );
    settings(dir.path()).bind(|| insta::assert_snapshot!("run_sample", text));
}

#[test]
fn test_lists_what_did_not_pass_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    std::fs::create_dir(&suite).unwrap();
    std::fs::copy(test_model("add_mul.onnx"), suite.join("add_mul.onnx")).unwrap();
    std::fs::copy(test_model("unknown_op.onnx"), suite.join("unknown_op.onnx")).unwrap();
    std::fs::copy(test_model("gemm_tanh_no_bias.onnx"), suite.join("pooler.onnx")).unwrap();
    let text = stdout(dmlrun().arg("test").arg(&suite).args([
        "--compare-ep",
        "cpu",
        "-v",
        "--gemm-zero-bias",
        "--ort-log-level",
        "fatal",
    ]));
    settings(dir.path()).bind(|| insta::assert_snapshot!("test_suite", text));
}

#[test]
fn bench_tables_each_model_and_the_ones_that_failed() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("models");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(test_model("add_mul.onnx"), folder.join("a_add_mul.onnx")).unwrap();
    std::fs::copy(test_model("unknown_op.onnx"), folder.join("b_unknown_op.onnx")).unwrap();
    let text = stdout(dmlrun().arg("bench").arg(&folder).args([
        "--iterations",
        "5",
        "--dim",
        "batch=2",
        "--ort-log-level",
        "fatal",
        "-q",
    ]));
    settings(dir.path()).bind(|| insta::assert_snapshot!("bench_folder", text));
    let text = stdout(dmlrun().arg("bench").arg(folder.join("b_unknown_op.onnx")).args(["--ort-log-level", "fatal"]));
    settings(dir.path()).bind(|| insta::assert_snapshot!("bench_all_failed", text));
}

/// stdout and stderr of one command, as a person sees them both.
fn both(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.output().unwrap();
    format!(
        "exit: {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap()
    )
}

/// Generate's figures vary run to run; its tokens, text, counts and words must not.
fn generate_settings(dir: &std::path::Path) -> insta::Settings {
    let mut settings = settings(dir);
    for (pattern, replacement) in [
        (r"\d+\.\d+ ms", "[ms]"),
        (r"\d+\.\d+ tokens/s", "[tokens/s]"),
        (r"\d+\.\d+ MiB", "[MiB]"),
        (r"(?m)^(  \S.*?)\s{2,}[\d.]+(\s+[\d.]+)*\s*$", "$1 [figures]"),
        (r"\d+\.\[MiB\]", "[MiB]"),
    ] {
        settings.add_filter(pattern, replacement);
    }
    settings
}

#[test]
fn generate_streams_the_text_then_says_its_figures() {
    let dir = tempfile::tempdir().unwrap();
    let text = both(dmlrun().arg("generate").arg(test_model("tiny_decoder")).args([
        "--prompt-ids",
        "5,17,33",
        "-n",
        "8",
        "--ignore-eos",
    ]));
    generate_settings(dir.path()).bind(|| insta::assert_snapshot!("generate_tiny", text));
}

#[test]
fn reduce_names_the_node_and_how_to_reproduce_it() {
    let dir = tempfile::tempdir().unwrap();
    let text = both(
        dmlrun()
            .arg("reduce")
            .arg(test_model("gelu_chain.onnx"))
            .args(["--generate", "ones", "--dim", "N=2", "--ep", "cpu", "--session-config"])
            .arg("optimization.enable_gelu_approximation=1")
            .args(["-q", "-o"])
            .arg(dir.path().join("gelu-bug")),
    );
    let mut settings = settings(dir.path());
    settings.add_filter(r"\d+\.\d+ s\b", "[s]");
    settings.add_filter(r"\d+(\.\d+)?e-?\d+", "[difference]");
    settings.add_filter(r"\d+\.\d{6,}", "[value]");
    settings.bind(|| insta::assert_snapshot!("reduce_gelu", text));
}

#[test]
fn merge_compare_puts_two_runs_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    std::fs::create_dir(&suite).unwrap();
    std::fs::copy(test_model("add_mul.onnx"), suite.join("add_mul.onnx")).unwrap();
    std::fs::copy(test_model("gelu_chain.onnx"), suite.join("gelu_chain.onnx")).unwrap();
    std::fs::copy(test_model("gelu_chain.bin"), suite.join("gelu_chain.bin")).unwrap();
    // The approximate Gelu (an optimisation) against the exact one (the reference unoptimised):
    // strict, gelu_chain fails; loose, it passes.
    let run = |name: &str, tolerance: &[&str]| {
        let json = dir.path().join(format!("{name}.json"));
        dmlrun()
            .arg("test")
            .arg(&suite)
            .args(["--ep", "cpu", "--session-config", "optimization.enable_gelu_approximation=1"])
            .args(["--compare-ep", "cpu", "--compare-opt-level", "disable", "--generate", "ones"])
            .args(["--dim", "N=2", "--dim", "batch=2", "-q"])
            .args(tolerance)
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        json
    };
    let strict = run("strict", &["--atol", "1e-7", "--rtol", "0"]);
    let loose = run("loose", &["--atol", "1", "--rtol", "0"]);
    let text = both(dmlrun().args(["merge", "--compare"]).arg(&strict).arg(&loose));
    let mut settings = settings(dir.path());
    settings.add_filter(r"\d+\.\d+ ?ms", "[ms]");
    settings.add_filter(r"\d+(\.\d+)?e-?\d+", "[difference]");
    settings.bind(|| insta::assert_snapshot!("merge_compare", text));
}
