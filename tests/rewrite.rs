//! `--decompose` and `--gemm-zero-bias`: each rewrite checked against ONNX Runtime's own kernel
//! on the CPU EP, every output compared, in run, test and bench.

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// One-node models of every operator --decompose rewrites (float32 and float16, shapes and axes
/// drawn from a seed), written by scripts/make_rewrite_models.py, and its list of them.
fn rewrite_models(dir: &Path) -> Vec<serde_json::Value> {
    models_made_by("scripts/make_rewrite_models.py", dir, &["--seed", "45", "--per-op", "3"])
}

fn run_json(model: &Path, extra: &[&str]) -> serde_json::Value {
    let out = dmlrun()
        .arg(model)
        .args(["--generate", "random", "--generate-range=-4,4", "--iterations", "1", "--json", "-"])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}: {}", model.display(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_decomposition_equals_onnx_runtimes_kernel_on_every_output_in_float32_and_float16() {
    let dir = tempfile::tempdir().unwrap();
    let cases = rewrite_models(dir.path());
    assert_eq!(cases.len(), 36, "6 operators x 2 types x 3 shapes");
    for case in &cases {
        let (file, op) = (case["file"].as_str().unwrap(), case["op"].as_str().unwrap());
        let report = run_json(&dir.path().join(file), &["--decompose", op]);
        let rewrite = &report["rewrite"];
        let what = format!("{file}: {rewrite}");
        let flag = format!("--decompose {op}");
        assert_eq!(rewrite["summary"]["rewritten"][&flag].as_array().unwrap().len(), 1, "{what}");
        assert!(rewrite["summary"]["nodes_added"].as_u64().unwrap() > 5, "{what}");
        // Every output of the node, the optional ones too, against the kernel's.
        let compared: Vec<&str> =
            rewrite["outputs"].as_array().unwrap().iter().map(|o| o["output"].as_str().unwrap()).collect();
        let wanted: Vec<&str> = case["outputs"].as_array().unwrap().iter().map(|o| o.as_str().unwrap()).collect();
        assert_eq!(compared, wanted, "{what}");
        // Float32 arithmetic in both: float32 outputs agree to a few ulps, float16 ones to one.
        let tolerance = if case["dtype"] == "float16" { 4e-3 } else { 4e-6 };
        for output in rewrite["outputs"].as_array().unwrap() {
            let diff = output["max_abs"].as_f64().unwrap();
            assert!(diff <= tolerance, "{what}: {} differs by {diff}", output["output"]);
            assert_eq!(output["not_finite"], 0, "{what}");
        }
        assert_eq!(rewrite["compared_on"]["execution_provider"], "CPUExecutionProvider", "{what}");
        // ONNX Runtime's fusions did not put the operator back.
        assert_eq!(rewrite["fused_back"], serde_json::json!([]), "{what}");
        assert!(report["plan"]["rewrites"].as_array().is_some_and(|r| !r.is_empty()), "{what}");
    }
}

#[test]
fn onnx_runtime_fuses_a_naive_rms_norm_back_but_not_the_decomposition() {
    // Pow, ReduceMean, Add, Sqrt, Div, Mul is what SimplifiedLayerNormFusion looks for: ONNX
    // Runtime's optimised graph has the operator again. dmlrun's primitives (x * x, Reciprocal)
    // stay primitives, which the optimised graph of the decomposed model shows.
    let dir = tempfile::tempdir().unwrap();
    let python = python_with("onnx, numpy", &["onnx", "numpy"]);
    let naive = dir.path().join("naive_rms.onnx");
    let script = "import sys, numpy as np, onnx\n\
from onnx import helper, TensorProto, numpy_helper as nh\n\
x = helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 4, 64])\n\
y = helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 4, 64])\n\
inits = [nh.from_array(np.array(2.0, np.float32), 'two'), nh.from_array(np.array([-1], np.int64), 'axes'),\n\
         nh.from_array(np.array(1e-6, np.float32), 'eps'), nh.from_array(np.ones(64, np.float32), 'scale')]\n\
nodes = [helper.make_node('Pow', ['x', 'two'], ['p']), helper.make_node('ReduceMean', ['p', 'axes'], ['m'], keepdims=1),\n\
         helper.make_node('Add', ['m', 'eps'], ['a']), helper.make_node('Sqrt', ['a'], ['s']),\n\
         helper.make_node('Div', ['x', 's'], ['d']), helper.make_node('Mul', ['d', 'scale'], ['y'])]\n\
m = helper.make_model(helper.make_graph(nodes, 'naive', [x], [y], initializer=inits), opset_imports=[helper.make_opsetid('', 18)])\n\
m.ir_version = 8\n\
onnx.save(m, sys.argv[1])\n";
    let status = std::process::Command::new(&python).args(["-c", script]).arg(&naive).status().unwrap();
    assert!(status.success());
    let models = rewrite_models(&dir.path().join("models"));
    let simplified = models.iter().find(|c| c["op"] == "SimplifiedLayerNormalization").unwrap();
    let decomposed = dir.path().join("models").join(simplified["file"].as_str().unwrap());
    let optimised_ops = |model: &Path, extra: &[&str]| -> serde_json::Value {
        let cache = tempfile::tempdir().unwrap();
        let out = dmlrun()
            .arg("bench")
            .arg(model)
            .args(["--iterations", "1", "--opt-level", "extended", "--cache"])
            .arg(cache.path())
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let cached: PathBuf = std::fs::read_dir(cache.path()).unwrap().next().unwrap().unwrap().path();
        let info = dmlrun().arg("info").arg(&cached).arg("--json").output().unwrap();
        let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
        info["op_types"].clone()
    };
    let naive_ops = optimised_ops(&naive, &[]);
    assert!(naive_ops.get("SimplifiedLayerNormalization").is_some(), "{naive_ops}");
    let ours = optimised_ops(&decomposed, &["--decompose", "SimplifiedLayerNormalization"]);
    assert!(ours.get("SimplifiedLayerNormalization").is_none(), "{ours}");
    assert!(ours.get("Reciprocal").is_some() || ours.as_object().unwrap().len() > 3, "{ours}");
}

#[test]
fn gemm_zero_bias_gives_the_bias_and_keeps_the_outputs_in_float32_and_float16() {
    for model in ["gemm_tanh_no_bias.onnx", "gemm_tanh_no_bias_fp16.onnx"] {
        let report = run_json(&test_model(model), &["--gemm-zero-bias"]);
        let rewrite = &report["rewrite"];
        assert_eq!(rewrite["summary"]["rewritten"]["--gemm-zero-bias"], serde_json::json!(["node_Gemm_26"]), "{model}");
        assert_eq!(rewrite["outputs"][0]["output"], "pooled", "{model}");
        assert_eq!(rewrite["outputs"][0]["max_abs"], 0.0, "{model}: adding zero changes nothing");
    }
}

#[test]
fn a_rewrite_with_nothing_to_rewrite_is_refused_alone_and_not_applied_in_a_folder() {
    let add_mul = test_model("add_mul.onnx");
    let out =
        dmlrun().arg(&add_mul).args(["--generate", "random", "--decompose", "LayerNormalization"]).output().unwrap();
    assert_one_line_error(&out, "--decompose LayerNormalization: the model has no LayerNormalization node");
    let out = dmlrun().arg(&add_mul).args(["--generate", "random", "--gemm-zero-bias"]).output().unwrap();
    assert_one_line_error(&out, "--gemm-zero-bias: the model has no Gemm without a bias");
    let out = dmlrun().arg(&add_mul).args(["--decompose", "LayerNorm"]).output().unwrap();
    assert_one_line_error(&out, "'LayerNorm' is not an operator dmlrun can decompose");
    // In a folder it applies to the models that have the operator, and says so for the others.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&add_mul, dir.path().join("add_mul.onnx")).unwrap();
    std::fs::copy(test_model("gemm_tanh_no_bias.onnx"), dir.path().join("pooler.onnx")).unwrap();
    for kind in [&["test", "--compare-ep", "cpu"][..], &["bench", "--iterations", "2"][..]] {
        let out = dmlrun()
            .arg(kind[0])
            .arg(dir.path())
            .args(&kind[1..])
            .args(["--gemm-zero-bias", "--json", "-"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{kind:?}: {stderr}");
        assert!(
            stderr.contains("warning: add_mul: --gemm-zero-bias not applied: this model has no Gemm without a bias"),
            "{kind:?}: {stderr}"
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let rows = report["cases"].as_array().or(report["models"].as_array()).unwrap();
        let pooler = rows.iter().find(|r| r["name"] == "pooler").unwrap();
        assert_eq!(pooler["rewrite"]["summary"]["rewritten"]["--gemm-zero-bias"][0], "node_Gemm_26", "{kind:?}");
        let add_mul = rows.iter().find(|r| r["name"] == "add_mul").unwrap();
        assert!(add_mul["rewrite"].is_null(), "{kind:?}");
    }
    let out = dmlrun()
        .arg("bench")
        .arg(&add_mul)
        .arg(dir.path().join("add_mul.onnx"))
        .arg("--gemm-zero-bias")
        .output()
        .unwrap();
    assert_one_line_error(&out, "--gemm-zero-bias: none of the 2 models has a Gemm without a bias");
}

/// Quantized one-node models (scripts/make_quantized_models.py) and their list.
fn quantized_models(dir: &Path) -> Vec<serde_json::Value> {
    models_made_by("scripts/make_quantized_models.py", dir, &[])
}

/// `--dequantize-gather`: every GatherBlockQuantized form ONNX Runtime's CPU kernel reads (uint8
/// of 2, 4 and 8 bits, uint4, int4, zero points or none, float and float16 scales, a partial last
/// block, gathered on either axis; and the builder's tied form, a Reshape of the lm_head's weight)
/// as a Gather over the dequantized table, equal to the kernel's output bit for bit; the quantized
/// table is not carried in the saved model.
#[test]
fn dequantize_gather_equals_onnx_runtimes_kernel_bit_for_bit_in_every_form() {
    let dir = tempfile::tempdir().unwrap();
    let cases = quantized_models(dir.path());
    let gathers: Vec<&serde_json::Value> =
        cases.iter().filter(|c| c["kind"].as_str().unwrap().starts_with("gather_block_quantized")).collect();
    assert_eq!(gathers.len(), 9);
    for case in gathers {
        let model = dir.path().join(case["file"].as_str().unwrap());
        let saved = dir.path().join("saved.onnx");
        let report =
            run_json(&model, &["--dequantize-gather", "--generate-range=0,7", "--save-model", saved.to_str().unwrap()]);
        let rewrite = &report["rewrite"];
        assert_eq!(rewrite["summary"]["rewritten"]["--dequantize-gather"], serde_json::json!(["embed"]), "{case}");
        for output in rewrite["outputs"].as_array().unwrap() {
            assert_eq!(output["max_abs"].as_f64(), Some(0.0), "{case}: {rewrite}");
        }
        let ops = serde_json::to_string(&info_json(&saved)["op_types"]).unwrap();
        assert!(ops.contains("Gather") && !ops.contains("GatherBlockQuantized"), "{case}: {ops}");
        // The builder's tied form: the Reshape that made the table from the lm_head's weight goes
        // with it, and the lm_head still reads its quantized weight.
        if case["kind"] == "gather_block_quantized_tied" {
            assert_eq!(rewrite["outputs"].as_array().unwrap().len(), 2, "{rewrite}");
            assert!(!ops.contains("Reshape") && ops.contains("MatMulNBits"), "{case}: {ops}");
        }
        let bytes = std::fs::read(&saved).unwrap();
        assert!(!contains(&bytes, b"table"), "{case}: the quantized table is still in the saved model");
        assert!(!contains(&bytes, b"zero_points"), "{case}: the zero points are still in the saved model");
    }
    // Its table in external data, as the builder keeps it: read from the data file, the same.
    let external = dir.path().join("gbq_tied_external.onnx");
    let report = run_json(&external, &["--dequantize-gather", "--generate-range=0,7"]);
    for output in report["rewrite"]["outputs"].as_array().unwrap() {
        assert_eq!(output["max_abs"].as_f64(), Some(0.0), "{report}");
    }
    let out = dmlrun()
        .arg(test_model("add_mul.onnx"))
        .args(["--generate", "random", "--dequantize-gather"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "--dequantize-gather: the model has no GatherBlockQuantized node");
}

/// `--matmulnbits-bias-add` and `--matmulnbits-drop-g-idx`: the inputs DirectML's MatMulNBits
/// does not take, moved out or dropped, with ONNX Runtime's CPU kernel giving the original's
/// outputs (the bias as an Add bit for bit; without the g_idx, its other path, to float rounding);
/// a g_idx that reorders, or one beside zero points (which ONNX Runtime's g_idx path reads
/// otherwise), is refused with the reason.
#[test]
fn matmul_nbits_bias_and_g_idx_rules_keep_the_outputs_and_refuse_what_would_change_them() {
    let dir = tempfile::tempdir().unwrap();
    quantized_models(dir.path());
    let model = |name: &str| dir.path().join(format!("{name}.onnx"));
    let report = run_json(&model("nbits_bias"), &["--matmulnbits-bias-add"]);
    let rewrite = &report["rewrite"];
    assert_eq!(rewrite["summary"]["rewritten"]["--matmulnbits-bias-add"], serde_json::json!(["proj"]), "{rewrite}");
    assert_eq!(rewrite["outputs"][0]["max_abs"].as_f64(), Some(0.0), "{rewrite}");
    let report = run_json(&model("nbits_g_idx"), &["--matmulnbits-drop-g-idx"]);
    let rewrite = &report["rewrite"];
    assert_eq!(rewrite["summary"]["rewritten"]["--matmulnbits-drop-g-idx"], serde_json::json!(["proj"]), "{rewrite}");
    assert!(rewrite["outputs"][0]["max_abs"].as_f64().unwrap() < 1e-5, "{rewrite}");
    for refused in ["nbits_g_idx_zp", "nbits_g_idx_reordered"] {
        let out =
            dmlrun().arg(model(refused)).args(["--generate", "random", "--matmulnbits-drop-g-idx"]).output().unwrap();
        assert_one_line_error(
            &out,
            "--matmulnbits-drop-g-idx: no MatMulNBits of the model has a constant g_idx that keeps the rows in their blocks and no zero points",
        );
    }
    // info names what DirectML's kernel does not take.
    let out = dmlrun().arg("info").arg(model("nbits_bias")).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 with a bias"), "{}", String::from_utf8_lossy(&out.stdout));
}

/// `--dequantize-matmulnbits`: a MatMulNBits as a MatMul over its weight dequantized as ONNX
/// Runtime's CPU kernel dequantizes it: equal to the kernel's outputs bit for bit in float32 (4, 8
/// and 2 bits, a partial last block, block 128 with a bias), to float16's rounding in float16; its
/// cost in memory said (K x N of the scales' type); a node with a g_idx left alone.
#[test]
fn dequantize_matmulnbits_equals_onnx_runtimes_kernel_and_says_its_cost() {
    let dir = tempfile::tempdir().unwrap();
    let cases = quantized_models(dir.path());
    let forms: Vec<&serde_json::Value> = cases.iter().filter(|c| c["kind"] == "matmul_nbits_dequantized").collect();
    assert_eq!(forms.len(), 6);
    for case in forms {
        let model = dir.path().join(case["file"].as_str().unwrap());
        let saved = dir.path().join("saved.onnx");
        let report = run_json(&model, &["--dequantize-matmulnbits", "--save-model", saved.to_str().unwrap()]);
        let rewrite = &report["rewrite"];
        assert_eq!(rewrite["summary"]["rewritten"]["--dequantize-matmulnbits"], serde_json::json!(["proj"]), "{case}");
        let float16 = case["dtype"].as_str().is_some_and(|d| d.contains("float16"));
        let (k, n) = (case["k"].as_u64().unwrap_or(64), 16);
        assert_eq!(rewrite["summary"]["constant_bytes"], k * n * if float16 { 2 } else { 4 }, "{case}");
        let max_abs = rewrite["outputs"][0]["max_abs"].as_f64().unwrap();
        match float16 {
            // Outputs of magnitude 10 or so, in float16 (one unit in the last place: 2^-7 there).
            true => assert!(max_abs <= 8e-3, "{case}: {rewrite}"),
            false => assert_eq!(max_abs, 0.0, "{case}: {rewrite}"),
        }
        let ops = serde_json::to_string(&info_json(&saved)["op_types"]).unwrap();
        assert!(ops.contains("MatMul") && !ops.contains("MatMulNBits"), "{case}: {ops}");
    }
    let out = dmlrun()
        .arg(dir.path().join("nbits_g_idx_zp.onnx"))
        .args(["--generate", "random", "--dequantize-matmulnbits"])
        .output()
        .unwrap();
    assert_one_line_error(&out, "--dequantize-matmulnbits: the model has no MatMulNBits without a g_idx");
}

/// `--drop-qdq-pair`: the QuantizeLinear-DequantizeLinear pairs after a Softmax and a Mul (which
/// ONNX Runtime's QDQ fusion makes QLinearSoftmax and QLinearMul of) dropped, the ops' float
/// outputs read in their place, the other QDQ nodes kept; the outputs within the rounding the pairs
/// did; a model with no such pair refused in one line.
#[test]
fn drop_qdq_pair_drops_the_pairs_after_softmax_and_mul_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    quantized_models(dir.path());
    let model = dir.path().join("qdq_softmax_mul.onnx");
    let saved = dir.path().join("saved.onnx");
    let report = run_json(&model, &["--drop-qdq-pair", "--save-model", saved.to_str().unwrap()]);
    let rewrite = &report["rewrite"];
    assert_eq!(
        rewrite["summary"]["rewritten"]["--drop-qdq-pair"],
        serde_json::json!(["p_dequant", "m_dequant"]),
        "{rewrite}"
    );
    // Half a step of the Softmax's pair (1/255) times the weight (at most 2), and half a step of
    // the Mul's (2/255): 7.8e-3, with room for the fused kernels' own rounding in the original.
    let max_abs = rewrite["outputs"][0]["max_abs"].as_f64().unwrap();
    assert!(max_abs <= 0.012, "{rewrite}");
    let ops = &info_json(&saved)["op_types"];
    assert_eq!(ops["QuantizeLinear"], 1, "the input's quantization stays: {ops}");
    assert_eq!(ops["DequantizeLinear"], 2, "the input's and the weight's stay: {ops}");
    assert_eq!(ops["Softmax"], 1, "{ops}");
    let out = dmlrun()
        .arg(dir.path().join("nbits_bias.onnx"))
        .args(["--generate", "random", "--drop-qdq-pair"])
        .output()
        .unwrap();
    assert_one_line_error(
        &out,
        "--drop-qdq-pair: the model has no QuantizeLinear-DequantizeLinear pair after a Softmax, LeakyRelu or Mul",
    );
}

fn info_json(model: &Path) -> serde_json::Value {
    let out = dmlrun().arg("info").arg(model).args(["--json", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// `--save-model`: the model the session ran, written to ship. Loaded alone, with no flag, it
/// gives the outputs the run that wrote it gave, and its metadata says what dmlrun did.
#[test]
fn save_model_writes_what_the_session_ran_and_alone_it_gives_the_same_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str], &str, &str); 4] = [
        ("gemm_tanh_no_bias.onnx", &["--gemm-zero-bias"], "--gemm-zero-bias", "fp32"),
        // Its weights in external data, read into the rewritten model.
        ("gelu_chain.onnx", &["--decompose", "Gelu", "--dim", "N=2"], "--decompose Gelu", "fp32"),
        ("add_mul.onnx", &["--precision", "fp16"], "none", "fp16"),
        ("add_mul.onnx", &[], "none", "fp32"),
    ];
    for (i, (name, flags, rewrites, precision)) in cases.iter().enumerate() {
        let saved = dir.path().join(format!("saved{i}.onnx"));
        let (first, again) = (dir.path().join(format!("first{i}")), dir.path().join(format!("again{i}")));
        let random = ["--generate", "random", "--seed", "7", "--iterations", "1", "-q", "--save-format", "pb"];
        let out = dmlrun()
            .arg(test_model(name))
            .args(*flags)
            .args(random)
            .arg("--save-model")
            .arg(&saved)
            .arg("--save-outputs")
            .arg(&first)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        // The saved model alone, no flag but the free dimension's size.
        let dims: &[&str] = if name.starts_with("gelu") { &["--dim", "N=2"] } else { &[] };
        let out = dmlrun().arg(&saved).args(dims).args(random).arg("--save-outputs").arg(&again).output().unwrap();
        assert!(out.status.success(), "{name} saved: {}", String::from_utf8_lossy(&out.stderr));
        let outputs = |d: &Path| {
            let mut files: Vec<PathBuf> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()).collect();
            files.sort();
            files.iter().map(|f| std::fs::read(f).unwrap()).collect::<Vec<_>>()
        };
        assert!(!outputs(&first).is_empty());
        assert_eq!(outputs(&first), outputs(&again), "{name} {flags:?}: the saved model alone gives the run's outputs");
        let metadata = metadata_of(&saved);
        assert_eq!(metadata["dmlrun.version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(metadata["dmlrun.rewrites"], *rewrites, "{metadata:?}");
        assert_eq!(metadata["dmlrun.precision"], *precision, "{metadata:?}");
        assert!(metadata["dmlrun.source"].starts_with(name), "{metadata:?}");
        // Measured against the original wherever dmlrun changed the model.
        assert_eq!(metadata.contains_key("dmlrun.max_abs_diff"), i < 3, "{metadata:?}");
    }
    // Saved again from a saved model: its dmlrun.* entries replaced, not doubled.
    let twice = dir.path().join("twice.onnx");
    let out = dmlrun()
        .arg(dir.path().join("saved0.onnx"))
        .args(["--generate", "random", "--iterations", "1", "-q", "--save-model"])
        .arg(&twice)
        .output()
        .unwrap();
    assert!(out.status.success());
    let entries = metadata_of(&twice);
    assert_eq!(entries.keys().filter(|k| k.starts_with("dmlrun.")).count(), 4, "{entries:?}");
}

/// `--save-fixed-dims`: the saved model's free dimensions as the run fixed them (by name, and
/// by `--shape` where the input's are unnamed), said in dmlrun.fixed_dims; without it, symbolic.
#[test]
fn save_fixed_dims_writes_the_sizes_the_session_was_given() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = |model: &Path| -> Vec<serde_json::Value> {
        let out = dmlrun().arg("info").arg(model).args(["--json", "-"]).output().unwrap();
        let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        info["inputs"].as_array().unwrap().iter().map(|i| i["dims"].clone()).collect()
    };
    let save = |model: &str, flags: &[&str], saved: &Path| {
        let out = dmlrun()
            .arg(test_model(model))
            .args(["--ep", "cpu", "--generate", "random", "--iterations", "1", "-q"])
            .args(flags)
            .arg("--save-model")
            .arg(saved)
            .output()
            .unwrap();
        assert!(out.status.success(), "{model}: {}", String::from_utf8_lossy(&out.stderr));
    };
    let (symbolic, fixed) = (dir.path().join("symbolic.onnx"), dir.path().join("fixed.onnx"));
    save("add_mul.onnx", &["--dim", "batch=2"], &symbolic);
    save("add_mul.onnx", &["--dim", "batch=2", "--save-fixed-dims"], &fixed);
    assert_eq!(inputs(&symbolic)[0][0]["param"], "batch", "{:?}", inputs(&symbolic));
    for dims in inputs(&fixed) {
        assert_eq!(dims[0]["value"], 2, "{dims}");
        assert!(dims[0]["param"].is_null(), "{dims}");
    }
    assert_eq!(metadata_of(&fixed)["dmlrun.fixed_dims"], "4 dimensions fixed: batch=2");
    assert!(!metadata_of(&symbolic).contains_key("dmlrun.fixed_dims"));
    // Alone, with no --dim: the sizes are the model's own now.
    let out = dmlrun().arg(&fixed).args(["--generate", "random", "--iterations", "1", "-q"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let shaped = dir.path().join("shaped.onnx");
    save("conv_free_hw.onnx", &["--shape", "image=1,3,8,8", "--save-fixed-dims"], &shaped);
    let dims: Vec<i64> = inputs(&shaped)[0].as_array().unwrap().iter().map(|d| d["value"].as_i64().unwrap()).collect();
    assert_eq!(dims, [1, 3, 8, 8]);
    // It is a flag of --save-model's.
    let out =
        dmlrun().arg(test_model("add_mul.onnx")).args(["--generate", "random", "--save-fixed-dims"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A decomposed norm converted to float16 casts back with Cast, not CastLike: ONNX Runtime 1.24's
/// CPU EP (DirectML's package's) could not open the model with CastLike (a type error in its
/// InsertCastTransformer, seen under Wine and on the H100 in fix's attempts and reduce's
/// reference run); the decomposition in float32 keeps its CastLike.
#[test]
fn a_decomposed_norm_in_float16_casts_back_with_cast() {
    let dir = tempfile::tempdir().unwrap();
    let op_types = |flags: &[&str]| {
        let saved = dir.path().join("saved.onnx");
        let out = dmlrun()
            .arg(test_model("torch/bert.onnx"))
            .args([
                "--ep",
                "cpu",
                "--generate",
                "random",
                "--iterations",
                "1",
                "-q",
                "--decompose",
                "LayerNormalization",
            ])
            .args(flags)
            .arg("--save-model")
            .arg(&saved)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let out = dmlrun().arg("info").arg(&saved).args(["--json", "-"]).output().unwrap();
        let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        info["op_types"].clone()
    };
    assert!(op_types(&[])["CastLike"].as_u64().is_some_and(|n| n > 0));
    let float16 = op_types(&["--precision", "fp16"]);
    assert!(float16["CastLike"].is_null(), "{float16}");
    assert!(float16["ReduceMean"].as_u64().is_some_and(|n| n > 0), "{float16}");
}

/// `--as-test-data` writes the model that made the outputs: a float16 run's case, and a
/// rewritten one's, pass `dmlrun test` at rtol 0, with no flag.
#[test]
fn as_test_data_writes_the_model_that_made_the_outputs() {
    let dir = tempfile::tempdir().unwrap();
    for (i, flags) in [&["--precision", "fp16"][..], &["--gemm-zero-bias"][..]].iter().enumerate() {
        let case = dir.path().join(format!("case{i}"));
        let out = dmlrun()
            .arg(test_model("gemm_tanh_no_bias.onnx"))
            .args(*flags)
            .args(["--generate", "random", "--iterations", "1", "-q", "--as-test-data", "--save-outputs"])
            .arg(&case)
            .output()
            .unwrap();
        assert!(out.status.success(), "{flags:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_ne!(
            std::fs::read(case.join("model.onnx")).unwrap(),
            std::fs::read(test_model("gemm_tanh_no_bias.onnx")).unwrap(),
            "{flags:?}"
        );
        let out = dmlrun().arg("test").arg(&case).args(["--rtol", "0", "--atol", "0"]).output().unwrap();
        assert!(out.status.success(), "{flags:?}: {}", String::from_utf8_lossy(&out.stdout));
    }
}

/// `--as-test-data` of a model dmlrun did not change whose weights are in external data: the
/// case holds the model as it is with its data file beside it, and passes `dmlrun test`.
#[test]
fn as_test_data_keeps_an_unchanged_models_external_data_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("case");
    let out = dmlrun()
        .arg(test_model("external_weights.onnx"))
        .args(["--generate", "random", "--iterations", "1", "-q", "--as-test-data", "--save-outputs"])
        .arg(&case)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        std::fs::read(case.join("model.onnx")).unwrap(),
        std::fs::read(test_model("external_weights.onnx")).unwrap()
    );
    assert!(case.join("external_weights.bin").is_file());
    let out = dmlrun().arg("test").arg(&case).args(["--rtol", "0", "--atol", "0"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

/// A model's metadata_props as `dmlrun info --json` reads them.
fn metadata_of(model: &Path) -> std::collections::BTreeMap<String, String> {
    let out = dmlrun().arg("info").arg(model).args(["--json", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pairs: Vec<(String, String)> =
        serde_json::from_value(info["metadata"].clone()).unwrap_or_else(|e| panic!("{e}: {info}"));
    let count = pairs.len();
    let map: std::collections::BTreeMap<String, String> = pairs.into_iter().collect();
    assert_eq!(map.len(), count, "a key twice: {info}");
    map
}

/// `test --save-models`: each case's model as its session ran it; put back in the case, alone and
/// with no flag, it passes the case the rewrite passed.
#[test]
fn test_save_models_writes_each_case_as_its_session_ran_it() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("suite").join("pooler");
    let out = dmlrun()
        .arg(test_model("gemm_tanh_no_bias.onnx"))
        .args(["--generate", "random", "--iterations", "1", "-q", "--as-test-data", "--save-outputs"])
        .arg(&case)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let saved = dir.path().join("saved");
    let out = dmlrun()
        .arg("test")
        .arg(dir.path().join("suite"))
        .args(["--gemm-zero-bias", "--quiet", "--save-models"])
        .arg(&saved)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let model = saved.join("pooler.onnx");
    let metadata = metadata_of(&model);
    assert_eq!(metadata["dmlrun.rewrites"], "--gemm-zero-bias", "{metadata:?}");
    assert!(metadata["dmlrun.source"].starts_with("model.onnx"), "{metadata:?}");
    std::fs::copy(&model, case.join("model.onnx")).unwrap();
    let out = dmlrun().arg("test").arg(&case).output().unwrap();
    assert!(out.status.success(), "the saved model alone: {}", String::from_utf8_lossy(&out.stdout));
}

/// `bench --save-models`: a file per model, converted ones with their record; a model dmlrun did
/// not change whose weights are in external data is written with its data copied beside it.
#[test]
fn bench_save_models_writes_a_file_per_model_with_its_external_data() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models");
    std::fs::create_dir(&models).unwrap();
    for file in ["add_mul.onnx", "gelu_chain.onnx", "gelu_chain.bin"] {
        std::fs::copy(test_model(file), models.join(file)).unwrap();
    }
    let saved = dir.path().join("saved");
    let out = dmlrun()
        .arg("bench")
        .arg(&models)
        .args(["--iterations", "2", "--quiet", "--json", "-", "--save-models"])
        .arg(&saved)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(metadata_of(&saved.join("add_mul.onnx"))["dmlrun.precision"], "fp32");
    assert_eq!(metadata_of(&saved.join("gelu_chain.onnx"))["dmlrun.precision"], "fp32");
    assert!(saved.join("gelu_chain.onnx.data").is_file(), "its weights in its own data file");
    let gelu = report["models"].as_array().unwrap().iter().find(|m| m["name"] == "gelu_chain").unwrap();
    assert!(!gelu["warnings"].to_string().contains("--save-models"), "{gelu}");
    let alone = dmlrun()
        .arg(saved.join("gelu_chain.onnx"))
        .args(["--generate", "ones", "--dim", "N=2", "-q"])
        .output()
        .unwrap();
    assert!(alone.status.success(), "{}", String::from_utf8_lossy(&alone.stderr));
    // Converted to float16, the external data is read into the model written.
    let out = dmlrun()
        .arg("bench")
        .arg(&models)
        .args(["--iterations", "2", "--quiet", "--precision", "fp16", "--save-models"])
        .arg(&saved)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for name in ["add_mul", "gelu_chain"] {
        assert_eq!(metadata_of(&saved.join(format!("{name}.onnx")))["dmlrun.precision"], "fp16", "{name}");
    }
    // A folder that cannot be made is one line before any model runs, in test as in bench.
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    for command in ["bench", "test"] {
        let out = dmlrun()
            .arg(command)
            .arg(&models)
            .args(["--quiet", "--save-models"])
            .arg(file.join("sub"))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {said}");
        assert!(said.starts_with("dmlrun: error: --save-models "), "{command}: {said}");
    }
}

/// `--matmul-as-mul-reducesum`: every MatMul with a constant weight of two dimensions as a Mul
/// and a ReduceSum, the outputs the original's to float32's rounding; the MatMuls whose weight is
/// computed or has three dimensions left as they are.
#[test]
fn matmul_as_mul_reducesum_keeps_the_outputs_and_leaves_what_it_cannot_write() {
    let report = run_json(&test_model("matmul_weights.onnx"), &["--dim", "N=2", "--matmul-as-mul-reducesum"]);
    let rewrite = &report["rewrite"];
    let replaced = rewrite["summary"]["rewritten"]["--matmul-as-mul-reducesum"].as_array().unwrap().len();
    assert_eq!(replaced, 3, "{rewrite}");
    let worst =
        rewrite["outputs"].as_array().unwrap().iter().map(|o| o["max_abs"].as_f64().unwrap()).fold(0.0, f64::max);
    assert!(worst < 1e-5, "{rewrite}");
}

/// `--fuse-sibling-matmuls`: each layer's MLP gate and up, one MatMul by the weights side by
/// side and a Split; q, k and v, which GroupQueryAttention reads, left alone (split from one
/// product into it, DirectML gave wrong logits on this project's stack). The decoder generates
/// the original's tokens on the CPU EP with the same logits.
#[test]
fn sibling_matmuls_fused_generate_the_original_s_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("generate.json");
    let out = dmlrun()
        .args(["generate", "--ep", "cpu", "--fuse-sibling-matmuls", "--prompt-tokens", "8", "-n", "8", "-q"])
        .args(["--compare-ep", "cpu", "--json"])
        .arg(&json)
        .arg(test_model("tiny_decoder"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let fused = report["rewrite"]["summary"]["rewritten"]["--fuse-sibling-matmuls"].as_array().unwrap();
    let mut names: Vec<&str> = fused.iter().map(|n| n.as_str().unwrap()).collect();
    names.sort();
    let expected: Vec<String> = (0..2)
        .flat_map(|layer| ["gate_proj", "up_proj"].map(|p| format!("/model/layers.{layer}/mlp/{p}/MatMul")))
        .collect();
    assert_eq!(names, expected);
    let compared = &report["comparison"]["prompts"][0];
    assert_eq!(compared["matching"], 8, "{compared}");
    assert_eq!(compared["logits"]["verdict"], "agree", "{compared}");
    assert!(compared["logits"]["worst_max_abs_diff"].as_f64().unwrap() < 1e-4, "{compared}");
}

/// `--inline-if`: an If whose condition the run's inputs decide (Equal(rate, 16000), as Silero
/// VAD's) written as the branch they take, its initializers as constants, the same numbers, and
/// the If that branch holds written out in turn; the other branch for another rate; and refused
/// where no inputs are there to decide it.
#[test]
fn inline_if_writes_the_branch_the_run_takes() {
    let dir = tempfile::tempdir().unwrap();
    let model = test_model("if_rate.onnx");
    for (rate, written, kept) in
        [(16000i64, &["by_rate", "then_sign"][..], &["then_mul", "negated"][..]), (8000, &["by_rate"], &["else_mul"])]
    {
        let rate_file = dir.path().join(format!("rate{rate}.npy"));
        let tensor = dmlrun::tensor::HostTensor {
            dtype: dmlrun::tensor::DType::Int64,
            shape: vec![],
            data: dmlrun::tensor::TensorData::Bytes(rate.to_le_bytes().to_vec()),
        };
        write_npy(&rate_file, &tensor);
        let saved = dir.path().join(format!("inlined{rate}.onnx"));
        let input = format!("rate={}", rate_file.display());
        let report = run_json(&model, &["--inline-if", "--input", &input, "--save-model", saved.to_str().unwrap()]);
        assert_eq!(report["rewrite"]["summary"]["rewritten"]["--inline-if"], serde_json::json!(written));
        let outputs = report["rewrite"]["outputs"].as_array().unwrap();
        assert!(!outputs.is_empty() && outputs.iter().all(|o| o["max_abs"].as_f64() == Some(0.0)), "{outputs:?}");
        let info = dmlrun::formats::model::ModelInfo::from_bytes(&std::fs::read(&saved).unwrap()).unwrap();
        let names: Vec<&str> = info.nodes.iter().map(|n| n.name.as_str()).collect();
        assert!(kept.iter().all(|k| names.contains(k)), "{rate}: {names:?}");
        assert!(!info.nodes.iter().any(|n| n.op_type == "If"), "{rate}: {names:?}");
    }
    let nothing = dmlrun()
        .arg(test_model("add_mul.onnx"))
        .args(["--generate", "random", "--dim", "batch=1", "--inline-if"])
        .output()
        .unwrap();
    assert_one_line_error(&nothing, "--inline-if: the model has no If");
}

/// `--binary-as-reduce`: a float32 Add, Sub, Mul, Max, Min or Div of two tensors of one shape (two
/// ranks that broadcast to it stretching nothing, too; or a HardSwish) written as the two stacked and reduced over the new axis (a Div as a broadcast
/// one), the same numbers bit for bit, in subgraphs too; shapes the model does not declare (the square of a difference; every tensor of
/// a model with no value infos) read from ONNX Runtime's inference; an op that broadcasts (a
/// constant row added) left as it is; torch's BERT kept to float32's rounding (the CPU EP fuses
/// the original's Adds into its kernels); and a model with nothing of the kind refused with the
/// flag named.
#[test]
fn binary_as_reduce_keeps_the_numbers_and_leaves_what_it_cannot_know_or_need_not_write() {
    let rewritten = |report: &serde_json::Value| -> Vec<String> {
        let names = report["rewrite"]["summary"]["rewritten"]["--binary-as-reduce"].as_array().unwrap();
        names.iter().map(|n| n.as_str().unwrap().to_string()).collect()
    };
    let worst = |report: &serde_json::Value| {
        let outputs = report["rewrite"]["outputs"].as_array().unwrap();
        outputs.iter().map(|o| o["max_abs"].as_f64().unwrap()).fold(0.0, f64::max)
    };
    // The square of the difference, whose shape sub_broadcast does not declare, by the shape ONNX
    // Runtime infers at the run's dimensions; the broadcast Add left as it is.
    for (model, written) in [
        ("add_mul.onnx", vec!["#0 (Add)", "#1 (Mul)"]),
        ("sub_broadcast.onnx", vec!["#0 (Sub)", "#1 (Sub)", "#2 (Mul)"]),
    ] {
        let report = run_json(&test_model(model), &["--dim", "batch=3", "--binary-as-reduce"]);
        assert_eq!(rewritten(&report), written, "{model}: {}", report["rewrite"]);
        assert_eq!(worst(&report), 0.0, "{model}: {}", report["rewrite"]);
        let shapes = report["rewrite"]["shapes"].as_str().unwrap();
        assert!(
            shapes.starts_with("shapes of ") && shapes.ends_with(" tensors as ONNX Runtime infers them"),
            "{shapes}"
        );
    }
    // A model that declares no value info and an input dimension no name reaches (Paddle's `?`):
    // the input's size is written into the model ONNX Runtime infers from.
    // At one row its product by a constant row stretches nothing, and is written too.
    for (args, written) in
        [(&["--shape", "x=3,4"][..], &["relu_plus_sigmoid"][..]), (&[], &["relu_plus_sigmoid", "relu_times_row"])]
    {
        let report = run_json(&test_model("paddle_unsized.onnx"), &[args, &["--binary-as-reduce"][..]].concat());
        assert_eq!(rewritten(&report), written, "{args:?}: {}", report["rewrite"]);
        assert_eq!(worst(&report), 0.0, "{}", report["rewrite"]);
    }
    // HardSwish as x times its HardSigmoid, stacked and multiplied: the same numbers, bit for bit,
    // on both sides of its two bends (-3 and 3; the inputs are drawn from -4 to 4).
    let report = run_json(&test_model("hard_swish.onnx"), &["--binary-as-reduce"]);
    assert_eq!(rewritten(&report), ["hard_swish"], "{}", report["rewrite"]);
    assert_eq!(worst(&report), 0.0, "{}", report["rewrite"]);
    // Div, Max and Min of one shape: the division a broadcast one (its numerator stacked twice),
    // the others reductions of the stack; the same numbers.
    let report = run_json(&test_model("div_max_min.onnx"), &["--binary-as-reduce"]);
    assert_eq!(rewritten(&report), ["divide", "larger", "smaller"], "{}", report["rewrite"]);
    assert_eq!(worst(&report), 0.0, "{}", report["rewrite"]);
    // Two ranks whose broadcast stretches no dimension (a pooled row times its scale, a vector
    // over the row) are one shape as this stack sees them: the lower given its leading ones, the
    // same numbers; the Add that stretches a dimension left as it is.
    let report = run_json(&test_model("pooled_scale.onnx"), &["--binary-as-reduce"]);
    assert_eq!(rewritten(&report), ["times_scale", "vector_over_row"], "{}", report["rewrite"]);
    assert_eq!(worst(&report), 0.0, "{}", report["rewrite"]);
    // After the other rewrites, over what they wrote: the decomposed Gelu's product (x times its
    // gate, one shape, which gelu_chain reaches through an Identity ONNX Runtime's optimiser
    // removes before it says the shapes).
    let report = run_json(&test_model("gelu_chain.onnx"), &["--decompose", "Gelu", "--binary-as-reduce"]);
    // (At the run's one row the offset's Add and the doubling stretch nothing: written too.)
    let products = rewritten(&report);
    assert!(products.len() == 3 && products[2].starts_with("gelu/"), "{}", report["rewrite"]);
    assert_eq!(products[..2], ["shift", "double"], "{}", report["rewrite"]);
    assert_eq!(report["rewrite"]["summary"]["rewritten"]["--decompose Gelu"], serde_json::json!(["gelu"]));
    assert!(worst(&report) < 1e-6, "{}", report["rewrite"]);
    // Inside an If's branches too, with the shapes the main graph declares of what they read.
    let report = run_json(&test_model("if_add_sub.onnx"), &["--binary-as-reduce"]);
    assert_eq!(rewritten(&report), ["else_sub", "then_add"], "{}", report["rewrite"]);
    assert_eq!(worst(&report), 0.0, "{}", report["rewrite"]);
    let bert = dmlrun()
        .arg(test_model("torch/bert.onnx"))
        .args(["--generate", "random", "--iterations", "1", "--binary-as-reduce", "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(bert.status.code(), Some(0), "{}", String::from_utf8_lossy(&bert.stderr));
    let report: serde_json::Value = serde_json::from_slice(&bert.stdout).unwrap();
    assert!(rewritten(&report).len() >= 4, "{}", report["rewrite"]);
    assert!(worst(&report) < 1e-5, "{}", report["rewrite"]);
    let refused = dmlrun()
        .arg(test_model("beyond_float16.onnx"))
        .args(["--generate", "random", "--binary-as-reduce"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(
            "--binary-as-reduce: no Add, Sub, Mul, Max, Min or Div of the model is of two float32 tensors of one declared shape, and no HardSwish of a float32 one"
        ),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
