//! `dmlrun fix` on Linux, where the CPU EP is the only execution provider: as in tests/reduce.rs,
//! the EP under test is the CPU EP with `optimization.enable_gelu_approximation=1` (ONNX Runtime
//! swaps the exact Gelu for its tanh approximation, a real numerical difference at one node), and
//! the reference is the CPU EP as ONNX Runtime configures it by default. DirectML's repairs are
//! shown under Wine (scripts/wine-check) and on the H100 (docs/gpu.md).

mod common;

use common::*;

const APPROXIMATE: [&str; 4] = ["--ep", "cpu", "--session-config", "optimization.enable_gelu_approximation=1"];

fn fix(model: &str, extra: &[&str], output: &std::path::Path) -> (std::process::Output, serde_json::Value) {
    let out = dmlrun()
        .arg("fix")
        .arg(test_model(model))
        .args(extra)
        .args(["--json", "-", "-q", "-o"])
        .arg(output)
        .output()
        .unwrap();
    let record = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out, record)
}

#[test]
fn a_model_that_already_passes_is_said_to_and_written_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("fixed.onnx");
    let (out, record) = fix("add_mul.onnx", &["--ep", "cpu", "--generate", "random", "--dim", "batch=2"], &output);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(record["schema"], "dmlrun.fix/1");
    assert_eq!(record["verdict"], "passes");
    assert_eq!(record["attempts"].as_array().unwrap().len(), 1, "{record}");
    assert_eq!(record["attempts"][0]["outcome"], "passes");
    // No --timeout: an attempt may take ten times the reference's own time, at least 30 s (a
    // model this small gets the floor), not the ten minutes of a bench model.
    assert_eq!(record["time_limit_s"], 30.0, "{record}");
    // Written unchanged (with dmlrun's record), so `fix ... -o out && use out` holds: exit 0
    // always leaves a model that passes at --output.
    assert_eq!(record["written"], output.to_str().unwrap());
    assert!(output.is_file());
    // The CPU EP judged against itself passes by construction: the warning says so, once.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warned = "dmlrun: warning: fix: --ep cpu and --compare-ep cpu are the same execution provider here (cpu)";
    assert_eq!(stderr.matches(warned).count(), 1, "{stderr}");
    // --write-unchanged, once needed for that, is still accepted.
    std::fs::remove_file(&output).unwrap();
    let (out, record) =
        fix("add_mul.onnx", &["--ep", "cpu", "--generate", "random", "--dim", "batch=2", "--write-unchanged"], &output);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(record["written"], output.to_str().unwrap());
    assert!(output.is_file());
    // A --timeout given is the limit, scaled from nothing.
    std::fs::remove_file(&output).unwrap();
    let (out, record) =
        fix("add_mul.onnx", &["--ep", "cpu", "--generate", "random", "--dim", "batch=2", "--timeout", "45s"], &output);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(record["time_limit_s"], 45.0, "{record}");
}

#[test]
fn a_difference_is_fixed_by_the_remedy_that_fits_and_the_written_model_passes_alone() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("gelu-fixed.onnx");
    let flags = [&APPROXIMATE[..], &["--generate", "ones", "--dim", "N=2", "--atol", "1e-6", "--rtol", "0"]].concat();
    let (out, record) = fix("gelu_chain.onnx", &flags, &output);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr} {record}");
    let attempts = record["attempts"].as_array().unwrap();
    assert_eq!(attempts[0]["remedies"], serde_json::json!([]));
    assert_eq!(attempts[0]["outcome"], "differs", "{record}");
    assert_eq!(record["verdict"], "fixed");
    assert_eq!(record["remedies"], serde_json::json!(["--decompose Gelu"]), "{record}");
    assert!(record["remedies_that_fit"].as_array().unwrap().contains(&serde_json::json!("--decompose Gelu")));
    // Reduce found the node first, and what got its smallest model through; that model is not
    // kept where the whole was fixed.
    let located = &record["located"];
    assert_eq!((located["node"].as_str(), located["op_type"].as_str()), (Some("gelu"), Some("Gelu")), "{record}");
    assert!(located["passing_on_minimal"].as_array().unwrap().contains(&serde_json::json!("--decompose Gelu")));
    assert!(located["minimal"].is_null(), "{record}");
    assert!(!dir.path().join("gelu-fixed-reduced").exists());
    // The fixed model alone, no remedy flag, on the same EP: it agrees with the reference on the
    // original.
    let again = dmlrun()
        .arg("fix")
        .arg(&output)
        .args(&flags)
        .args(["--json", "-", "-q", "-o"])
        .arg(dir.path().join("again.onnx"))
        .output()
        .unwrap();
    let record: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(record["verdict"], "passes", "{record}");
}

#[test]
fn a_model_no_remedy_fixes_exits_1_with_every_attempt_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("never.onnx");
    // The EP under test told to read ONNX bytes as ORT's own format: no session opens, whatever
    // dmlrun does to the model, while the reference runs it.
    let flags = [
        "--ep",
        "cpu",
        "--session-config",
        "session.load_model_format=ORT",
        "--generate",
        "random",
        "--dim",
        "batch=2",
    ];
    let (out, record) = fix("add_mul.onnx", &flags, &output);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(record["verdict"], "not_fixed");
    // Its Add and Mul are of two inputs of one declared shape: --binary-as-reduce rewrites them.
    assert_eq!(record["remedies_that_fit"], serde_json::json!(["--binary-as-reduce", "--precision fp16"]));
    let attempts = record["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 3, "as it is, then stacked, then float16 too: {record}");
    // gelu_chain's Adds and Muls fit the rule by their type, but at two rows each broadcasts a
    // constant row over them: the rule would rewrite nothing there, so it is no remedy.
    let gelu_dir = tempfile::tempdir().unwrap();
    let gelu_flags = [&flags[..6], &["--dim", "N=2"][..]].concat();
    let (_, gelu) = fix("gelu_chain.onnx", &gelu_flags, &gelu_dir.path().join("gelu.onnx"));
    assert_eq!(gelu["remedies_that_fit"], serde_json::json!(["--decompose Gelu", "--precision fp16"]));
    // paddle_unsized declares no shape of its Add's operands either; ONNX Runtime infers them
    // (its input's size written in where no name reaches it), and the rule then fits.
    let paddle_dir = tempfile::tempdir().unwrap();
    let (_, paddle) = fix("paddle_unsized.onnx", &flags[..6], &paddle_dir.path().join("paddle.onnx"));
    assert_eq!(paddle["remedies_that_fit"], serde_json::json!(["--binary-as-reduce", "--precision fp16"]));
    // if_rate's If is decided by the reference's run of the same inputs (read with the shapes,
    // the inputs bound once): --inline-if fits.
    let if_dir = tempfile::tempdir().unwrap();
    let (_, with_if) = fix("if_rate.onnx", &flags[..6], &if_dir.path().join("if.onnx"));
    let fit = with_if["remedies_that_fit"].as_array().unwrap();
    assert!(fit.contains(&serde_json::json!("--inline-if")), "{with_if}");
    for attempt in attempts {
        assert_eq!(attempt["outcome"], "fails", "{attempt}");
        assert!(attempt["detail"].as_str().unwrap().contains("session.load_model_format=ORT"), "{attempt}");
    }
    assert!(!output.exists());
    // Where it still fails, with every remedy: reduce's node, and its smallest model beside the
    // output, which `dmlrun test` shows failing with the same flags.
    let located = &record["located"];
    assert_eq!(located["mode"], "rejection", "{record}");
    assert!(located["node"].as_str().is_some_and(|n| !n.is_empty()), "{record}");
    assert!(located["nodes_after"].as_u64().unwrap() <= located["nodes_before"].as_u64().unwrap(), "{record}");
    let minimal = dir.path().join("never-reduced");
    assert_eq!(located["minimal"], minimal.to_str().unwrap());
    assert!(minimal.join("model.onnx").is_file() && minimal.join("test_data_set_0").is_dir());
    let shown = dmlrun()
        .arg("test")
        .arg(&minimal)
        .args(["--ep", "cpu", "--session-config", "session.load_model_format=ORT", "-q"])
        .output()
        .unwrap();
    assert_eq!(shown.status.code(), Some(1), "{}", String::from_utf8_lossy(&shown.stdout));
    // A second fix does not write over the first's minimal model.
    let again =
        dmlrun().arg("fix").arg(test_model("add_mul.onnx")).args(flags).arg("-o").arg(&output).output().unwrap();
    assert_one_line_error(&again, "never-reduced (where the smallest failing model goes if nothing fixes it) exists");
}

#[cfg(unix)]
#[test]
fn an_attempt_that_never_returns_is_stopped_at_the_time_limit() {
    // The reference itself never returns on this model: its run is an attempt too, in a child
    // held to --timeout, and the fix ends with one line saying so.
    let dir = tempfile::tempdir().unwrap();
    let out = dmlrun()
        .arg("fix")
        .arg(test_model("endless_loop.onnx"))
        .args(["--ep", "cpu", "--session-config", "session.disable_prepacking=1", "--generate", "random"])
        .args(["--timeout", "2s", "-o"])
        .arg(dir.path().join("x.onnx"))
        .output()
        .unwrap();
    assert_one_line_error(&out, "the reference (cpu) cannot run it either, so there is nothing cpu could be fixed against: ran past --timeout 2s");
    // In this process, a limit cannot hold: refused, not ignored.
    let out = dmlrun()
        .arg("fix")
        .arg(test_model("endless_loop.onnx"))
        .args(["--ep", "cpu", "--generate", "random", "--isolation", "none", "--timeout", "2s", "-o"])
        .arg(dir.path().join("x.onnx"))
        .output()
        .unwrap();
    assert_one_line_error(&out, "--timeout 2s: --isolation none keeps the items in this process");
}

#[test]
fn a_model_the_reference_cannot_run_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dmlrun()
        .arg("fix")
        .arg(test_model("unknown_op.onnx"))
        .args(["--ep", "cpu", "--session-config", "session.disable_prepacking=1", "-o"])
        .arg(dir.path().join("x.onnx"))
        .output()
        .unwrap();
    assert_one_line_error(&out, "the reference (cpu) cannot run it either");
}

#[test]
fn a_genai_folder_is_checked_by_its_tokens_and_written_as_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let folder = test_model("tiny_decoder");
    let output = dir.path().join("fixed");
    let out = dmlrun()
        .arg("fix")
        .arg(&folder)
        .args(["--ep", "cpu", "--write-unchanged", "--json", "-", "-q", "-o"])
        .arg(&output)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["verdict"], "passes", "{record}");
    // Its norms could be decomposed; float16 is no remedy for a decoder (generate takes none).
    assert_eq!(
        record["remedies_that_fit"],
        serde_json::json!(["--decompose SimplifiedLayerNormalization", "--decompose SkipSimplifiedLayerNormalization"])
    );
    // The folder: the decoder with dmlrun's record, its weights (external data in the original)
    // in its own data file at aligned offsets, the rest copied.
    for file in ["genai_config.json", "tokenizer.json", "model.onnx", "model.onnx.data"] {
        assert!(output.join(file).is_file(), "{file}");
    }
    assert_eq!(external_offsets_misaligned(&output.join("model.onnx")), (true, Vec::<String>::new()));
    let info = dmlrun().args(["info", "--full-metadata"]).arg(output.join("model.onnx")).output().unwrap();
    assert!(
        String::from_utf8_lossy(&info.stdout).contains("dmlrun.source"),
        "{}",
        String::from_utf8_lossy(&info.stdout)
    );
    // It generates what the original does.
    let tokens = |model: &std::path::Path| {
        let out = dmlrun()
            .arg("generate")
            .arg(model)
            .args(["--ep", "cpu", "--prompt-tokens", "8", "--max-new-tokens", "8", "--json", "-", "-q"])
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        report["prompts"][0]["token_ids"].clone()
    };
    assert_eq!(tokens(&output), tokens(&folder));
    // A folder is named as a folder: `-o NAME.onnx` would make a folder that looks like a file.
    let named_as_file =
        dmlrun().arg("fix").arg(&folder).args(["--ep", "cpu", "-o"]).arg(dir.path().join("x.onnx")).output().unwrap();
    assert_one_line_error(&named_as_file, "a genai folder is written into a folder");
    assert!(!dir.path().join("x.onnx").exists());
    // A folder is written only where nothing is: a second fix into it is refused.
    let again = dmlrun().arg("fix").arg(&folder).args(["--ep", "cpu", "-o"]).arg(&output).output().unwrap();
    assert_one_line_error(&again, "exists and is not an empty folder");
    // A folder that is no genai folder is named as such.
    let plain =
        dmlrun().arg("fix").arg(dir.path()).args(["--ep", "cpu", "-o"]).arg(dir.path().join("x")).output().unwrap();
    assert_one_line_error(&plain, "is a folder without genai_config.json");
}

#[test]
fn a_cpu_judged_against_another_cpu_configuration_or_a_precision_is_not_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    for extra in [&APPROXIMATE[..], &["--ep", "cpu", "--precision", "int8", "--atol", "0.5"][..]] {
        let args = [extra, &["--generate", "random", "--dim", "N=2"][..]].concat();
        let (out, _) = fix("matmul_weights.onnx", &args, &dir.path().join("fixed.onnx"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("the same execution provider here"), "{extra:?}: {stderr}");
        let _ = std::fs::remove_file(dir.path().join("fixed.onnx"));
    }
}

#[test]
fn a_model_with_external_data_that_passes_is_written_with_its_data_and_runs_alone() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.onnx");
    let (out, record) = fix("external_weights.onnx", &["--ep", "cpu", "--generate", "ones"], &output);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!((record["verdict"].as_str(), record["written"].as_str()), (Some("passes"), output.to_str()));
    // Its weights copied into its own data file beside it, aligned, not left pointing at the source's.
    assert!(dir.path().join("out.onnx.data").is_file());
    assert_eq!(external_offsets_misaligned(&output), (true, Vec::<String>::new()));
    let run = |model: &std::path::Path| {
        let out =
            dmlrun().arg(model).args(["--ep", "cpu", "--generate", "ones", "--json", "-", "-q"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["outputs"].clone()
    };
    assert_eq!(run(&output), run(&test_model("external_weights.onnx")));
}

/// Whether the model keeps any tensor in external data, and the tensors whose offset is not
/// aligned as dmlrun aligns them (64 KiB from 1 MiB, else 4 KiB).
fn external_offsets_misaligned(model: &std::path::Path) -> (bool, Vec<String>) {
    use dmlrun::formats::onnx_proto::{external, lossless};
    use prost::Message;
    let raw = lossless::RawModel::decode(std::fs::read(model).unwrap().as_slice()).unwrap();
    let graph = lossless::RawGraph::decode(raw.graph.unwrap().as_slice()).unwrap();
    let mut any = false;
    let mut misaligned = Vec::new();
    for raw in &graph.initializer {
        let tensor = lossless::EditTensor::decode(raw.as_slice()).unwrap();
        if let Some(at) = external::tensor_external_ref(&tensor, model.parent().unwrap()).unwrap() {
            any = true;
            if at.offset != external::aligned_offset(at.offset, at.length.unwrap()) {
                misaligned.push(tensor.name.unwrap_or_default());
            }
        }
    }
    (any, misaligned)
}

#[test]
fn a_float16_attempt_is_held_to_float16s_tolerance_and_says_so() {
    // float16 keeps 11 bits: at the float32 tolerance asked (atol 1e-7, rtol 0) no float16 model
    // could pass; the attempt is judged at float16's (atol 1e-3, rtol 1e-2) and its note says so.
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("fp16.onnx");
    let flags = ["--ep", "cpu", "--precision", "fp16", "--generate", "random", "--dim", "N=2"];
    let (out, record) = fix("gelu_chain.onnx", &[&flags[..], &["--atol", "1e-7", "--rtol", "0"]].concat(), &output);
    assert_eq!(out.status.code(), Some(0), "{} {record}", String::from_utf8_lossy(&out.stderr));
    let attempt = &record["attempts"][0];
    assert_eq!(attempt["outcome"], "passes", "{record}");
    assert_eq!(attempt["note"], "held to float16's tolerance: atol 0.001, rtol 0.01", "{record}");
    // The difference is float16's rounding: there, and within float16's bounds.
    let diff = attempt["max_abs_diff"].as_f64().unwrap();
    assert!(diff > 1e-7 && diff < 1e-2, "{diff}");
    // In float32 the tolerance asked is the one held to, and no note is made.
    let (out, record) =
        fix("gelu_chain.onnx", &["--ep", "cpu", "--generate", "random", "--dim", "N=2", "--atol", "1e-7"], &output);
    assert_eq!(out.status.code(), Some(0));
    assert!(record["attempts"][0].get("note").is_none_or(|n| n.is_null()), "{record}");
}
