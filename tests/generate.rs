//! `dmlrun generate` on the CPU EP with the committed test decoder (tests/models/tiny_decoder:
//! onnxruntime-genai's layout, made by scripts/make_tiny_decoder.py). Its greedy tokens are held
//! to onnxruntime-genai's, committed in genai_expected.json, which scripts/genai-check compares
//! with onnxruntime-genai itself in CI.

mod common;

use std::path::PathBuf;

use common::{assert_one_line_error, dmlrun, test_model};

fn tiny() -> PathBuf {
    test_model("tiny_decoder")
}

fn expected() -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(tiny().join("genai_expected.json")).unwrap()).unwrap()
}

fn generate_json(args: &[&str]) -> serde_json::Value {
    let output = dmlrun().arg("generate").arg(tiny()).args(args).args(["--json", "-"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "dmlrun generate {args:?}: {stderr}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)))
}

fn ids(value: &serde_json::Value) -> Vec<i64> {
    value.as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect()
}

#[test]
fn greedy_tokens_equal_onnxruntime_genai_token_for_token_with_either_kv_layout() {
    for case in expected()["cases"].as_array().unwrap() {
        let n = case["max_new_tokens"].to_string();
        let mut args = vec!["-n", n.as_str()];
        let prompt_ids;
        if let Some(text) = case["prompt"].as_str() {
            args.extend(["--prompt", text]);
        } else {
            prompt_ids = ids(&case["prompt_ids"]).iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",");
            args.extend(["--prompt-ids", prompt_ids.as_str()]);
        }
        for layout in ["shared", "growing"] {
            let report = generate_json(&[args.as_slice(), &["--kv-layout", layout]].concat());
            let prompt = &report["prompts"][0];
            assert_eq!(ids(&prompt["prompt_token_ids"]), ids(&case["prompt_ids_genai"]), "tokenizer, {layout}");
            assert_eq!(ids(&prompt["token_ids"]), ids(&case["tokens"]), "{layout}: {case}");
            assert_eq!(report["kv_cache"]["layout"], layout);
        }
    }
}

/// `--decode-rewrite`: every one-token step after the prompt runs in a session of its own whose
/// model the rule rewrote, over the same KV cache, and the greedy tokens are onnxruntime-genai's
/// still, with either layout; a rule that finds nothing and a name that is no rule are one line.
#[test]
fn decode_rewrite_runs_the_decode_steps_in_their_own_rewritten_session_with_the_same_tokens() {
    let case = &expected()["cases"][1];
    let prompt_ids = ids(&case["prompt_ids"]).iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let n = case["max_new_tokens"].as_i64().unwrap();
    for layout in ["shared", "growing"] {
        let report = generate_json(&[
            "--prompt-ids",
            &prompt_ids,
            "-n",
            &n.to_string(),
            "--kv-layout",
            layout,
            "--decode-rewrite",
            "matmul-as-mul-reducesum",
        ]);
        assert_eq!(ids(&report["prompts"][0]["token_ids"]), ids(&case["tokens"]), "{layout}");
        let decode = &report["decode_session"];
        // The first token is the prompt's run's; every later one a decode step's.
        assert_eq!(decode["steps"].as_i64(), Some(n - 1), "{layout}: {decode}");
        // Its own KV buffers get the prompt's positions once (the growing cache is fed as inputs):
        // with none handed over, its steps would attend to zeros and the tokens part.
        assert_eq!(decode["hand_overs"].as_i64(), Some(if layout == "shared" { 1 } else { 0 }), "{decode}");
        let rewritten = decode["rewrite"]["summary"].to_string();
        assert!(
            rewritten.contains("\"--matmul-as-mul-reducesum\":[\"/model/layers.0/attn/q_proj/MatMul\""),
            "{rewritten}"
        );
        // The prompt's session runs the model as written.
        assert!(report["rewrite"].is_null(), "{}", report["rewrite"]);
    }
    let folder = tiny();
    let nothing = dmlrun()
        .arg("generate")
        .arg(&folder)
        .args(["--prompt-ids", "5,6", "-n", "2", "--decode-rewrite", "gemm-zero-bias"])
        .output()
        .unwrap();
    assert_one_line_error(&nothing, "--decode-rewrite gemm-zero-bias: ");
    let unknown = dmlrun()
        .arg("generate")
        .arg(&folder)
        .args(["--prompt-ids", "5", "--decode-rewrite", "faster"])
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("'faster' is no rewrite rule"));
}

#[test]
fn the_text_streams_to_stdout_and_the_figures_go_to_stderr() {
    let output = dmlrun()
        .arg("generate")
        .arg(tiny())
        .args(["--prompt", "Hello world, dmlrun generates text.", "-n", "24"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    // The text Hugging Face's tokenizers (Python) decode from onnxruntime-genai's tokens.
    assert_eq!(stdout, format!("{}\n", expected()["cases"][0]["text"].as_str().unwrap()), "{stderr}");
    for figure in ["time to first token", "decode per token", "tokens/s", "KV cache shared (45 positions"] {
        assert!(stderr.contains(figure), "{figure:?} missing from: {stderr}");
    }
    assert!(!stdout.contains("time to first token"));
}

#[test]
fn synthetic_prompts_and_ignore_eos_fix_the_token_counts_benchmarks_need() {
    let report =
        generate_json(&["--prompt-tokens", "40", "-n", "30", "--ignore-eos", "--iterations", "3", "--warmup", "1"]);
    let prompt = &report["prompts"][0];
    let figures = &prompt["figures"];
    assert_eq!(prompt["prompt_token_ids"].as_array().unwrap().len(), 40);
    assert_eq!(prompt["token_ids"].as_array().unwrap().len(), 30);
    assert_eq!(figures["repetitions"], 3);
    assert_eq!(figures["new_tokens"], 30.0);
    assert_eq!(figures["decode_ms"]["count"], 3 * 29);
    assert_eq!(figures["per_position_ms"].as_array().unwrap().len(), 29);
    assert!(figures["ttft_ms"]["p50"].as_f64().unwrap() > 0.0);
    assert!(figures["generation_tokens_per_s"].as_f64().unwrap() > 0.0);
    let phases = &figures["decode_phases"];
    assert!(phases["compute_ms"].as_f64().unwrap() <= figures["decode_ms"]["mean"].as_f64().unwrap());
    assert_eq!(report["kv_cache"]["length"], 70);
    assert_eq!(report["warmup"], 1);
    assert_eq!(report["schema"], "dmlrun.generate/1");
    // The memory at the end of the first generation's phases (the warm-up's), in order, each
    // peak at least the one before and at least its own RSS.
    let memory = report["memory_phases"].as_array().unwrap();
    let names: Vec<&str> = memory.iter().map(|p| p["phase"].as_str().unwrap()).collect();
    assert_eq!(names, ["load", "prefill", "decode"]);
    // Linux keeps a process's RSS in per-CPU counters whose sum is read approximately (a few
    // pages either way), so a later peak may read a few KiB under an earlier one (seen: 8 KiB).
    const COUNTER_SLACK: u64 = 256 << 10;
    for pair in memory.windows(2) {
        let (earlier, later) =
            (pair[0]["peak_rss_bytes"].as_u64().unwrap(), pair[1]["peak_rss_bytes"].as_u64().unwrap());
        assert!(later + COUNTER_SLACK >= earlier, "{memory:?}");
        assert!(pair[1]["ended_unix_ms"].as_u64() >= pair[0]["ended_unix_ms"].as_u64(), "{memory:?}");
    }
    for phase in memory {
        assert!(phase["peak_rss_bytes"].as_u64() >= phase["rss_bytes"].as_u64(), "{phase}");
        assert!(phase["rss_bytes"].as_u64().unwrap() > 1 << 20, "{phase}");
    }
    // Its source is the flag, as --prompt's is: the count is said once, beside it.
    assert_eq!(prompt["source"], "--prompt-tokens");
    // The same seed draws the same synthetic prompt.
    let again = generate_json(&["--prompt-tokens", "40", "-n", "2"]);
    assert_eq!(again["prompts"][0]["prompt_token_ids"], prompt["prompt_token_ids"]);
}

#[test]
fn seeded_sampling_repeats_itself_and_differs_from_greedy() {
    let args =
        ["--prompt-ids", "5,17,33", "-n", "30", "--ignore-eos", "--sample", "--temperature", "1.5", "--seed", "9"];
    let a = generate_json(&args);
    let b = generate_json(&args);
    let greedy = generate_json(&["--prompt-ids", "5,17,33", "-n", "30", "--ignore-eos"]);
    assert_eq!(a["prompts"][0]["token_ids"], b["prompts"][0]["token_ids"]);
    assert_ne!(a["prompts"][0]["token_ids"], greedy["prompts"][0]["token_ids"]);
    assert_eq!(a["sampling"]["mode"], "sample");
    // Repetitions of one run (a warm-up among them) draw alike too: the KV buffer reused from
    // the last repetition leaves nothing behind, and the report says so by naming none.
    let repeated = generate_json(&[&args[..], &["--iterations", "3", "--warmup", "1"]].concat());
    assert_eq!(repeated["prompts"][0]["token_ids"], a["prompts"][0]["token_ids"]);
    assert!(repeated["prompts"][0].get("differing_repetition").is_none(), "{}", repeated["prompts"][0]);
    assert_eq!(repeated["decode_step_captured"], false);
}

#[test]
fn the_report_says_whether_the_decode_step_was_captured_and_why() {
    // The CPU EP: capture is DirectML's, so the default does not capture, and says why.
    let default = generate_json(&["--prompt-ids", "5,17,33", "-n", "4"]);
    assert_eq!(default["graph_capture"]["asked"], "default");
    assert_eq!(default["graph_capture"]["captured"], false);
    assert_eq!(default["graph_capture"]["why"], "graph capture is DirectML's");
    let off = generate_json(&["--prompt-ids", "5,17,33", "-n", "4", "--no-dml-graph-capture"]);
    assert_eq!(off["graph_capture"]["asked"], "no-dml-graph-capture");
    assert_eq!(off["graph_capture"]["why"], "--no-dml-graph-capture");
    assert_eq!(off["prompts"][0]["token_ids"], default["prompts"][0]["token_ids"]);
    // The human summary names capture where a flag asked about it, not on every CPU run.
    let human = |extra: &[&str]| {
        let out = dmlrun()
            .arg("generate")
            .arg(tiny())
            .args(["--prompt-ids", "5,17,33", "-n", "4"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    assert!(!human(&[]).contains("capture:"));
    assert!(human(&["--no-dml-graph-capture"]).contains("capture:   none (--no-dml-graph-capture)"));
    // The two flags contradict each other.
    let both = dmlrun()
        .arg("generate")
        .arg(tiny())
        .args(["--prompt-ids", "5", "--dml-graph-capture", "--no-dml-graph-capture"])
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&both.stderr).contains("--no-dml-graph-capture"));
}

#[test]
fn compare_ep_compares_the_generated_token_ids() {
    let dir = tempfile::tempdir().unwrap();
    let (html, md, junit) = (dir.path().join("g.html"), dir.path().join("g.md"), dir.path().join("g.xml"));
    let output = dmlrun()
        .arg("generate")
        .arg(tiny())
        .args([
            "--prompt-ids",
            "5,17,33",
            "-n",
            "16",
            "--compare-ep",
            "cpu",
            "--compare-opt-level",
            "disable",
            "--json",
            "-",
        ])
        .arg("--html")
        .arg(&html)
        .arg("--markdown")
        .arg(&md)
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    // Every export says the verdict.
    for file in [&html, &md, &junit] {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(text.contains("logits agree at every step"), "{}: {text}", file.display());
    }
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let compared = &report["comparison"]["prompts"][0];
    assert_eq!(compared["first_difference"], serde_json::Value::Null);
    assert_eq!(compared["matching"], 16);
    assert_eq!(compared["reference_token_ids"], report["prompts"][0]["token_ids"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("generates the same 16 tokens"), "{stderr}");
    // The same model on the same EP at another optimisation level: the logits agree at every
    // step, each step compared (the prefill and the 15 decode steps fed the reference's tokens).
    let logits = &compared["logits"];
    assert_eq!(logits["verdict"], "agree", "{logits}");
    assert_eq!(logits["steps"].as_array().unwrap().len(), 16);
    assert!(logits["worst_cosine"].as_f64().unwrap() > 0.99999, "{logits}");
    assert!(logits["worst_max_abs_diff"].as_f64().unwrap() < 1e-3, "{logits}");
    assert_eq!(logits["worst_top5_shared"], 5);
    for (step, s) in logits["steps"].as_array().unwrap().iter().enumerate() {
        assert_eq!(s["step"], step);
        assert_eq!(s["token"], s["reference_token"]);
        assert_eq!(s["reference_token"], compared["reference_token_ids"][step]);
    }
    assert!(stderr.contains("logits:  agree: logits agree at every step"), "{stderr}");
}

/// The tiny decoder's folder copied, with a chat template in its tokenizer_config.json.
fn tiny_with_chat_template(dir: &std::path::Path) -> PathBuf {
    let folder = dir.join("chatty");
    std::fs::create_dir(&folder).unwrap();
    for entry in std::fs::read_dir(tiny()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), folder.join(entry.file_name())).unwrap();
    }
    let config = serde_json::json!({
        "tokenizer_class": "GPT2Tokenizer",
        "bos_token": "<|endoftext|>",
        "eos_token": "<|endoftext|>",
        "chat_template": "{% for m in messages %}<|endoftext|>{{ m.role }}: {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}"
    });
    std::fs::write(folder.join("tokenizer_config.json"), config.to_string()).unwrap();
    folder
}

#[test]
fn chat_wraps_the_prompt_in_the_models_template() {
    let dir = tempfile::tempdir().unwrap();
    let folder = tiny_with_chat_template(dir.path());
    let json = |args: &[&str]| -> serde_json::Value {
        let output =
            dmlrun().arg("generate").arg(&folder).args(args).args(["-n", "4", "--json", "-"]).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let chat = json(&["--chat", "--system", "Be brief.", "--prompt", "Hello world"]);
    let by_hand = json(&["--prompt", "<|endoftext|>system: Be brief.\n<|endoftext|>user: Hello world\nassistant:"]);
    let plain = json(&["--prompt", "Hello world"]);
    let chat_ids = ids(&chat["prompts"][0]["prompt_token_ids"]);
    assert_eq!(chat_ids, ids(&by_hand["prompts"][0]["prompt_token_ids"]));
    assert_eq!(chat["prompts"][0]["token_ids"], by_hand["prompts"][0]["token_ids"]);
    assert!(chat_ids.len() > ids(&plain["prompts"][0]["prompt_token_ids"]).len());
    // The template's special token is one id, as Hugging Face's tokenizers match added tokens.
    assert_eq!(chat_ids.iter().filter(|&&id| id == 0).count(), 2, "{chat_ids:?}");
    // The report keeps the prompt as given.
    assert_eq!(chat["prompts"][0]["text"], "Hello world");
}

#[test]
fn chat_refuses_what_it_cannot_wrap() {
    let no_text = dmlrun().arg("generate").arg(tiny()).args(["--chat", "--prompt-ids", "5"]).output().unwrap();
    assert_one_line_error(&no_text, "--chat wraps a text prompt");
    // The committed tiny decoder's tokenizer_config.json has no template.
    let no_template = dmlrun().arg("generate").arg(tiny()).args(["--chat", "--prompt", "hi"]).output().unwrap();
    assert_one_line_error(&no_template, "has no chat template");
}

#[test]
fn perplexity_scores_every_token_after_the_first_and_equals_its_reference_on_the_same_ep() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("text.txt");
    std::fs::write(&text, "Hello world, dmlrun generates text. The tokens of this sentence are scored one by one.\n")
        .unwrap();
    let report = generate_json(&[
        "--perplexity",
        text.to_str().unwrap(),
        "--window",
        "8",
        "--stride",
        "4",
        "--compare-ep",
        "cpu",
        "--compare-opt-level",
        "disable",
    ]);
    let p = &report["perplexity"];
    let measured = &p["measured"];
    let tokens = measured["tokens"].as_u64().unwrap();
    assert!(tokens > 8, "{p}");
    assert_eq!(measured["scored"].as_u64().unwrap(), tokens - 1);
    assert_eq!(measured["windows"].as_u64().unwrap(), (tokens - 8).div_ceil(4) + 1);
    let ppl = measured["perplexity"].as_f64().unwrap();
    // Random weights over a 384-token vocabulary: worse than knowing, better than infinite.
    assert!(ppl.is_finite() && ppl > 1.0, "{p}");
    assert!((measured["mean_nll"].as_f64().unwrap().exp() - ppl).abs() < 1e-9 * ppl);
    assert!((p["ratio"].as_f64().unwrap() - 1.0).abs() < 1e-4, "{p}");
    assert_eq!(report["prompts"].as_array().unwrap().len(), 0);
    // One window over the whole text scores the same tokens with more context: another figure.
    let whole = generate_json(&["--perplexity", text.to_str().unwrap(), "--window", "128"]);
    assert_eq!(whole["perplexity"]["measured"]["windows"], 1);
    assert_eq!(whole["perplexity"]["measured"]["scored"].as_u64().unwrap(), tokens - 1);
}

#[test]
fn perplexity_refuses_what_it_cannot_score() {
    let missing = dmlrun().arg("generate").arg(tiny()).args(["--perplexity", "no-such-text.txt"]).output().unwrap();
    assert_one_line_error(&missing, "--perplexity no-such-text.txt");
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("t.txt");
    std::fs::write(&text, "Some text to score.").unwrap();
    let long = dmlrun().arg("generate").arg(tiny()).arg("--perplexity").arg(&text).args(["--window", "4096"]).output();
    assert_one_line_error(&long.unwrap(), "--window 4096 is longer than the model's context of 128 tokens");
    let stride = dmlrun()
        .arg("generate")
        .arg(tiny())
        .arg("--perplexity")
        .arg(&text)
        .args(["--window", "4", "--stride", "8"])
        .output()
        .unwrap();
    assert_one_line_error(&stride, "the stride 1 to the window's length");
    let both = dmlrun().arg("generate").arg(tiny()).arg("--perplexity").arg(&text).args(["--prompt", "hi"]).output();
    assert_eq!(both.unwrap().status.code(), Some(2));
}

#[test]
fn a_prompt_file_is_one_result_per_line_and_every_export_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let prompts = dir.path().join("prompts.txt");
    std::fs::write(&prompts, "The first prompt\n\nA second one, longer than the first\n").unwrap();
    let (csv, md, html) = (dir.path().join("g.csv"), dir.path().join("g.md"), dir.path().join("g.html"));
    let output = dmlrun()
        .arg("generate")
        .arg(tiny())
        .arg("--prompt-file")
        .arg(&prompts)
        .args(["-n", "8", "-q", "--csv"])
        .arg(&csv)
        .arg("--markdown")
        .arg(&md)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stdout.is_empty(), "-q prints no text");
    let csv = std::fs::read_to_string(csv).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 3, "{csv}");
    assert!(rows[0].starts_with("prompt,prompt_tokens,new_tokens,repetitions,ttft_ms_p50"));
    assert!(rows[1].contains("prompts.txt:1,") && rows[2].contains("prompts.txt:3,"), "{csv}");
    assert_eq!(std::fs::read_to_string(md).unwrap().lines().count(), 4);
    let html = std::fs::read_to_string(html).unwrap();
    assert_eq!(html.matches("<polyline").count(), 2, "one latency plot per prompt");
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_cleanly_with_the_figures_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("g.json");
    let model = tiny();
    let args: Vec<std::ffi::OsString> = vec![
        "generate".into(),
        model.into(),
        "--prompt-tokens".into(),
        "8".into(),
        "-n".into(),
        "100".into(),
        "--ignore-eos".into(),
        "--iterations".into(),
        "10000000".into(),
        "-q".into(),
        "--json".into(),
        json.clone().into(),
    ];
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let output = common::interrupted_after_a_while(&refs);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(!stderr.contains("panicked"));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    assert_eq!(report["interrupted"], true);
    assert!(report["prompts"][0]["figures"]["repetitions"].as_u64().unwrap() >= 1);
}

#[test]
fn a_generation_past_its_time_limit_ends_saying_which_step_it_was_in() {
    // Thousands of repetitions: the limit falls inside the loop.
    let out = dmlrun()
        .arg("generate")
        .arg(tiny())
        .args(["--prompt-tokens", "8", "-n", "64", "--ignore-eos", "--iterations", "100000", "--timeout", "2s", "-q"])
        .output()
        .unwrap();
    let line = assert_one_line_error(&out, "ran past --timeout 2s in ");
    assert!(line.contains(" in decode step ") || line.contains(" in the prefill (8 prompt tokens)"), "{line}");
    // Before the loop, the step is said too.
    let out =
        dmlrun().arg("generate").arg(tiny()).args(["--prompt-tokens", "8", "-n", "4", "--timeout", "1ms"]).output();
    assert_one_line_error(
        &out.unwrap(),
        "ran past --timeout 1ms in loading ONNX Runtime; stopped (--timeout 0 for no limit)",
    );
}

#[test]
fn bench_on_a_genai_folder_fits_its_defaults_to_the_context_and_says_so() {
    // 128 + 128 positions do not fit the test decoder's 128: the defaults halve.
    let out = dmlrun().arg("bench").arg(tiny()).args(["--json", "-"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let model = &report["models"][0];
    assert_eq!(
        (model["generation"]["prompt_tokens"].as_u64(), model["generation"]["new_tokens"].as_u64()),
        (Some(64), Some(64))
    );
    let note = "prompt_tokens 64 and new_tokens 64: the defaults (128 each) shortened to fit the model's 128 positions";
    assert!(model["warnings"].as_array().unwrap().iter().any(|w| w == note), "{model}");
    assert!(stderr.contains(note), "{stderr}");
    // Three measured generations by default; --duration measures until it is spent (one at least).
    assert_eq!(model["generation"]["repetitions"], 3, "{model}");
    let out = dmlrun().arg("bench").arg(tiny()).args(["--duration", "1ms", "--json", "-", "-q"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["models"][0]["generation"]["repetitions"], 1, "{report}");
}

#[test]
fn a_folder_without_genai_config_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let output = dmlrun().arg("generate").arg(dir.path()).args(["--prompt", "hi"]).output().unwrap();
    assert_one_line_error(&output, "no genai_config.json");
}

#[test]
fn a_config_naming_a_tensor_the_model_lacks_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["model.onnx", "model.onnx.data", "tokenizer.json"] {
        std::fs::copy(tiny().join(name), dir.path().join(name)).unwrap();
    }
    let config = std::fs::read_to_string(tiny().join("genai_config.json")).unwrap();
    std::fs::write(dir.path().join("genai_config.json"), config.replace("\"present.%d.key\"", "\"present_key.%d\""))
        .unwrap();
    let output = dmlrun().arg("generate").arg(dir.path()).args(["--prompt", "hi"]).output().unwrap();
    assert_one_line_error(&output, "names KV output 'present_key.0', which model");
}

#[test]
fn a_prompt_longer_than_the_context_is_one_line() {
    let output = dmlrun().arg("generate").arg(tiny()).args(["--prompt-tokens", "200"]).output().unwrap();
    assert_one_line_error(
        &output,
        "the prompt has 200 tokens, which leaves no room in the model's context of 128 tokens",
    );
    let output = dmlrun().arg("generate").arg(tiny()).args(["--prompt-tokens", "100", "-n", "50"]).output().unwrap();
    assert_one_line_error(&output, "at most 28 new tokens fit");
}

#[test]
fn a_tokenizer_with_more_tokens_than_the_logits_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut tokenizer: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tiny().join("tokenizer.json")).unwrap()).unwrap();
    let vocab = tokenizer["model"]["vocab"].as_object_mut().unwrap();
    for i in 0..100 {
        let id = vocab.len();
        vocab.insert(format!("extra{i}"), id.into());
    }
    let path = dir.path().join("tokenizer.json");
    std::fs::write(&path, serde_json::to_vec(&tokenizer).unwrap()).unwrap();
    let output =
        dmlrun().arg("generate").arg(tiny()).arg("--tokenizer").arg(&path).args(["--prompt", "hi"]).output().unwrap();
    assert_one_line_error(&output, "has 484 tokens but model");
}

#[test]
fn a_model_without_kv_inputs_is_one_line() {
    let output =
        dmlrun().arg("generate").arg(test_model("int64_ids.onnx")).args(["--prompt-tokens", "4"]).output().unwrap();
    assert_one_line_error(&output, "no KV-cache inputs (past_key_values.0.key ...)");
}

#[test]
fn a_text_prompt_without_a_tokenizer_asks_for_one() {
    // The decoder alone in a folder: nothing to tokenize with.
    let dir = tempfile::tempdir().unwrap();
    for name in ["model.onnx", "model.onnx.data"] {
        std::fs::copy(tiny().join(name), dir.path().join(name)).unwrap();
    }
    let output = dmlrun()
        .arg("generate")
        .arg(dir.path().join("model.onnx"))
        .args(["--prompt", "hi", "--context-length", "128"])
        .output()
        .unwrap();
    assert_one_line_error(&output, "--prompt needs a tokenizer");
}

#[test]
fn a_bare_decoder_takes_the_tokenizer_json_beside_it() {
    let output = dmlrun()
        .arg("generate")
        .arg(tiny().join("model.onnx"))
        .args(["--prompt", "hi", "--context-length", "128", "-n", "2", "--json", "-", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(report["tokenizer"].as_str().unwrap().ends_with("tokenizer.json"), "{}", report["tokenizer"]);
    assert!(!report["prompts"][0]["prompt_token_ids"].as_array().unwrap().is_empty());
}

#[test]
fn bench_mixes_generate_entries_with_vision_models_and_gates_on_tokens_per_second() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("bench.toml");
    std::fs::write(
        &manifest,
        format!(
            "[[model]]\npath = '{}'\n\n[[model]]\npath = '{}'\nname = 'tiny-llm'\nkind = 'generate'\nprompt_tokens = 32\nnew_tokens = 16\nrepetitions = 2\n",
            common::test_model("add_mul.onnx").display(),
            tiny().display()
        ),
    )
    .unwrap();
    let json = dir.path().join("bench.json");
    let output = dmlrun()
        .arg("bench")
        .arg(&manifest)
        .args(["--iterations", "5", "--dim", "batch=1", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("generate: 32-token prompt, 16 new tokens: time to first token"), "{stdout}");
    let mut report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let llm = &report["models"][1];
    assert_eq!(llm["name"], "tiny-llm");
    assert_eq!(llm["latency_ms"]["count"], 2 * 15, "the latencies are the decode steps");
    assert_eq!(llm["generation"]["new_tokens"], 16.0);
    assert!(report["models"][0]["generation"].is_null());

    // A baseline ten times faster in tokens/s: a regression, exit 1.
    let tps = llm["generation"]["generation_tokens_per_s"].as_f64().unwrap();
    report["models"][1]["generation"]["generation_tokens_per_s"] = (tps * 10.0).into();
    let steps: Vec<f64> =
        report["models"][1]["samples_ms"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() / 10.0).collect();
    report["models"][1]["samples_ms"] = serde_json::json!(steps);
    let baseline = dir.path().join("fast.json");
    std::fs::write(&baseline, serde_json::to_vec(&report).unwrap()).unwrap();
    let output = dmlrun()
        .arg("bench")
        .arg(&manifest)
        .args(["--iterations", "5", "--dim", "batch=1", "--baseline"])
        .arg(&baseline)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let gate = stdout.lines().find(|l| l.trim_start().starts_with("tiny-llm") && l.contains("tokens/s")).unwrap();
    assert!(gate.contains("REGRESSION"), "{gate}");
}

#[test]
fn compare_ep_naming_the_ep_under_test_itself_is_warned_of_once_before_the_work() {
    let out = dmlrun()
        .arg("generate")
        .arg(tiny())
        .args(["--ep", "cpu", "--prompt-ids", "5,17,33", "-n", "4", "--compare-ep", "cpu", "-q"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("are the same execution provider here (cpu)").count(), 1, "{stderr}");
    let other = dmlrun()
        .arg("generate")
        .arg(tiny())
        .args(["--ep", "cpu", "--prompt-ids", "5,17,33", "-n", "4", "--compare-ep", "cpu", "--compare-opt-level"])
        .args(["disable", "-q"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&other.stderr).contains("the same execution provider"));
}

#[test]
fn repetition_penalty_and_no_repeat_ngram_change_the_greedy_tokens_and_are_said() {
    let tokens = |extra: &[&str]| {
        let out = dmlrun()
            .arg("generate")
            .arg(tiny())
            .args(["--ep", "cpu", "--prompt-ids", "5,17,33", "-n", "24", "--json", "-", "-q"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let plain = tokens(&[]);
    let ids = |report: &serde_json::Value| -> Vec<i64> {
        report["prompts"][0]["token_ids"].as_array().unwrap().iter().map(|t| t.as_i64().unwrap()).collect()
    };
    let guarded = tokens(&["--no-repeat-ngram", "2"]);
    let all: Vec<i64> = [5, 17, 33].into_iter().chain(ids(&guarded)).collect();
    let mut bigrams = std::collections::HashSet::new();
    assert!(all.windows(2).all(|w| bigrams.insert((w[0], w[1]))), "a bigram repeats: {all:?}");
    assert_eq!(guarded["logits_processing"]["no_repeat_ngram"], 2);
    assert!(guarded["token_choice"]["why"].as_str().unwrap().contains("--no-repeat-ngram"), "{guarded}");
    let penalised = tokens(&["--repetition-penalty", "5"]);
    assert_ne!(ids(&penalised), ids(&plain), "a strong penalty moves a random model's greedy tokens");
    assert!(plain.get("logits_processing").is_none());
    let refused =
        dmlrun().arg("generate").arg(tiny()).args(["--prompt-ids", "5", "--repetition-penalty", "0"]).output().unwrap();
    assert_one_line_error(&refused, "is not a factor above 0");
}

#[test]
fn perplexity_over_a_few_tokens_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("short.txt");
    std::fs::write(&text, "Hello world").unwrap();
    let out = dmlrun().arg("generate").arg(tiny()).args(["--ep", "cpu", "--perplexity"]).arg(&text).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("token(s) scored; a perplexity over fewer than 100 says little"), "{stderr}");
}

/// `dmlrun generate FOLDER ARGS` with `stdin` written to its standard input.
fn generate_with_stdin(folder: &std::path::Path, args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_dmlrun"))
        .arg("generate")
        .arg(folder)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn chat_without_a_prompt_talks_turn_by_turn_keeping_the_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let folder = tiny_with_chat_template(dir.path());
    let out = generate_with_stdin(&folder, &["--ep", "cpu", "--chat", "-n", "4"], b"Hello\n\nAgain\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // One answer a turn (the empty line is no turn), each from the whole conversation so far.
    let sizes: Vec<usize> =
        stderr.lines().filter_map(|l| l.split(" of ").nth(1)?.split(' ').next()?.parse().ok()).collect();
    assert_eq!(sizes.len(), 2, "{stderr}");
    assert!(sizes[1] > sizes[0] + 2, "the second turn holds the first and its answer: {sizes:?}");
    let refused = dmlrun().arg("generate").arg(&folder).args(["--chat", "--compare-ep", "cpu"]).output().unwrap();
    assert_one_line_error(&refused, "--chat with no prompt reads its turns from standard input");
    // --kv-layout holds in a conversation as in one generation (it was once read by the latter only).
    let args = ["--ep", "cpu", "--chat", "-n", "2", "--kv-layout", "growing", "--print-plan"];
    let out = generate_with_stdin(&folder, &args, b"Hello\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("KV cache growing"), "{stderr}");
}
