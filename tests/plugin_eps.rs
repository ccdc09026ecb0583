//! Plugin execution providers and ONNX Runtime's EP devices, with the real plugin wheels from
//! PyPI (onnxruntime-ep-webgpu, onnxruntime-ep-openvino; fetched once into target/plugin-eps by
//! scripts/fetch_plugin_eps.py). On a machine without a GPU WebGPU registers and offers no
//! device; OpenVINO offers its CPU device on Intel CPUs and none on others, and each test
//! asserts what that machine must show.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use common::{assert_one_line_error, dmlrun, root, run_json, sample};

struct Plugins {
    webgpu: String,
    openvino: String,
}

fn plugins() -> &'static Plugins {
    static PLUGINS: OnceLock<Plugins> = OnceLock::new();
    PLUGINS.get_or_init(|| {
        let dest = root().join("target").join("plugin-eps");
        let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        let status = std::process::Command::new(python)
            .arg(root().join("scripts/fetch_plugin_eps.py"))
            .arg(&dest)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("python3 runs");
        assert!(status.success(), "fetching the plugin EP wheels failed");
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dest.join("plugins.json")).unwrap()).unwrap();
        let library = |name: &str| manifest["libraries"][name].as_str().unwrap().to_string();
        Plugins { webgpu: library("webgpu"), openvino: library("openvino") }
    })
}

fn squeezenet() -> String {
    sample("squeezenet1.1.onnx").to_str().unwrap().to_string()
}

fn webgpu_flag() -> String {
    format!("webgpu={}", plugins().webgpu)
}

fn openvino_flag() -> String {
    format!("openvino={}", plugins().openvino)
}

fn devices_json(extra: &[&str]) -> serde_json::Value {
    let output = dmlrun().arg("devices").args(extra).args(["--json", "-"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Whether OpenVINO offers a device on this machine's CPU (it does on Intel's).
fn openvino_has_device() -> bool {
    let json = devices_json(&["--ep-library", &openvino_flag()]);
    let library = &json["ep_libraries"].as_array().unwrap()[0];
    !library["execution_providers"].as_array().unwrap().is_empty()
}

#[test]
fn devices_lists_the_cpu_ep_device_and_each_registered_library() {
    let json = devices_json(&["--ep-library", &webgpu_flag(), "--ep-library", &openvino_flag()]);
    assert!(json["onnxruntime"]["version"].as_str().unwrap().starts_with("1."));
    let devices = json["ep_devices"].as_array().unwrap();
    let cpu = devices.iter().find(|d| d["ep_name"] == "CPUExecutionProvider").expect("the CPU EP's device");
    assert_eq!(cpu["hardware_type"], "CPU");
    assert_eq!(cpu["ep_vendor"], "Microsoft");
    assert!(cpu.get("library").is_none(), "{cpu}");
    assert_eq!(
        devices.iter().map(|d| d["index"].as_u64().unwrap()).collect::<Vec<_>>(),
        (0..devices.len() as u64).collect::<Vec<_>>()
    );

    let libraries = json["ep_libraries"].as_array().unwrap();
    let names: Vec<&str> = libraries.iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["webgpu", "openvino"]);
    // No GPU here: WebGPU registers and offers nothing.
    assert_eq!(libraries[0]["execution_providers"], serde_json::json!([]));
    // Every device a library brought is labelled with it, and every EP it names has a device.
    for library in libraries {
        for ep in library["execution_providers"].as_array().unwrap() {
            let device = devices.iter().find(|d| d["ep_name"] == *ep).expect("a device of each EP it names");
            assert_eq!(device["library"], library["name"]);
        }
    }

    let text = dmlrun().args(["devices", "--ep-library", &webgpu_flag()]).output().unwrap();
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(stdout.contains("CPUExecutionProvider (Microsoft)  CPU"), "{stdout}");
    assert!(
        stdout.contains("--ep-library webgpu") && stdout.contains("registered, but it offers no device"),
        "{stdout}"
    );
}

#[test]
fn an_ep_whose_library_offers_no_device_is_an_error_saying_so() {
    let output = dmlrun()
        .args([&squeezenet(), "--generate", "random", "--ep-library", &webgpu_flag(), "--ep", "webgpu"])
        .output()
        .unwrap();
    let stderr = assert_one_line_error(&output, "the plugin library 'webgpu'");
    assert!(stderr.contains("is registered, but it offers no device on this machine"), "{stderr}");
    assert!(stderr.contains("CPUExecutionProvider"), "{stderr}");
}

#[test]
fn cpu_means_the_cpu_ep_whatever_plugin_is_registered() {
    // With a plugin device present, ort's default MaxEfficiency policy would hand a session that
    // appends nothing to OpenVINO's CPU device: --ep cpu must still be the CPU EP.
    let report = run_json(&[&squeezenet(), "--generate", "random", "--ep-library", &openvino_flag(), "--ep", "cpu"]);
    assert_eq!(report["device"]["execution_provider"], "CPUExecutionProvider");
    let placement = report["device"]["placement"].as_array().unwrap();
    assert_eq!(placement.len(), 1, "{placement:?}");
    assert_eq!(placement[0]["execution_provider"], "CPUExecutionProvider");
}

#[test]
fn a_plugin_ep_runs_through_its_ep_device_and_compares_with_the_cpu() {
    let args = [
        squeezenet(),
        "--input".into(),
        sample("cat.png").to_str().unwrap().into(),
        "--ep-library".into(),
        openvino_flag(),
        "--ep".into(),
        "openvino".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if !openvino_has_device() {
        let output = dmlrun().args(&args).output().unwrap();
        assert_one_line_error(&output, "offers no device on this machine");
        return;
    }
    let mut compared = args.clone();
    compared.extend(["--compare-ep", "cpu", "--atol", "1e-1", "--print-plan"]);
    let output = dmlrun().args(&compared).args(["--json", "-"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("execution providers : OpenVINOExecutionProvider (EP device"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["device"]["execution_provider"], "OpenVINOExecutionProvider");
    assert!(report["device"]["adapter_name"].as_str().unwrap().starts_with("CPU "), "{}", report["device"]);
    let placement = report["device"]["placement"].as_array().unwrap();
    assert!(placement.iter().all(|p| p["execution_provider"] == "OpenVINOExecutionProvider"), "{placement:?}");
    assert_eq!(report["plan"]["execution_providers"][0]["name"], "EpDevice");
    let comparison = &report["comparison"];
    assert_eq!(comparison["reference"]["execution_provider"], "CPUExecutionProvider", "{comparison}");
    // Not the same numbers: the reference really ran elsewhere (before the CPU EP was pinned,
    // ort's policy sent it to OpenVINO too, and the two were bit-identical).
    assert!(comparison["differences"][0]["max_abs"].as_f64().unwrap() > 0.0, "{comparison}");

    // --ep-option reaches the plugin under its EP name: OpenVINO's CPU plugin may pick a lower
    // precision (9e-3 apart on a Xeon); told to keep f32, it agrees within the default tolerance.
    let mut f32 = args.clone();
    f32.extend(["--ep-option", r#"load_config={"CPU":{"INFERENCE_PRECISION_HINT":"f32"}}"#, "--compare-ep", "cpu"]);
    let report = run_json(&f32);
    assert_eq!(report["comparison"]["mismatches"], serde_json::json!([]), "{}", report["comparison"]);
    assert!(report["plan"]["provider_options"]["load_config"].as_str().unwrap().contains("f32"));
    // And one it rejects is named.
    let mut bad = args.clone();
    bad.extend(["--ep-option", "load_config=notjson"]);
    let output = dmlrun().args(&bad).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let ours: Vec<&str> = stderr.lines().filter(|l| l.starts_with("dmlrun:")).collect();
    assert_eq!(ours.len(), 1, "{stderr}");
    assert!(ours[0].contains("on OpenVINOExecutionProvider with --ep-option load_config=notjson"), "{stderr}");
}

#[test]
fn a_policy_lets_onnx_runtime_choose_and_the_report_names_its_choice() {
    let report = run_json(&[&squeezenet(), "--generate", "random", "--ep", "policy:prefer-gpu"]);
    // Without a GPU EP device, prefer-gpu falls back to the CPU.
    assert_eq!(report["device"]["execution_provider"], "CPUExecutionProvider");
    assert_eq!(report["device"]["chosen_by"], "prefer-gpu");
    assert_eq!(
        report["plan"]["execution_providers"],
        serde_json::json!([{"name": "EpSelectionPolicy", "policy": "prefer-gpu"}])
    );
    // And as a --compare-ep reference.
    let report = run_json(&[&squeezenet(), "--generate", "random", "--ep", "cpu", "--compare-ep", "policy:prefer-cpu"]);
    assert_eq!(report["comparison"]["reference"]["chosen_by"], "prefer-cpu", "{}", report["comparison"]);
}

#[test]
fn plugin_flags_are_checked_with_one_line_errors() {
    let model = squeezenet();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--ep-library".into(), "/no/such/libplugin.so".into()],
            "--ep-library /no/such/libplugin.so: no such file",
        ),
        // A real shared library that is no plugin.
        (
            vec!["--ep-library".into(), format!("notaplugin={}", libonnxruntime().display())],
            "could not register it as a plugin execution provider",
        ),
        (vec!["--ep".into(), "nosuch".into()], "--ep nosuch: no execution provider of that name"),
        (
            vec!["--ep".into(), "webgpu".into(), "--ep-library".into(), webgpu_flag(), "--device".into(), "0".into()],
            "--device selects a DirectML adapter",
        ),
        (
            vec!["--ep".into(), "policy:prefer-gpu".into(), "--ep-option".into(), "a=b".into()],
            "--ep-option a=b applies to DirectML",
        ),
        (
            vec!["--ep-library".into(), webgpu_flag(), "--ep-library".into(), format!("webgpu={}", plugins().openvino)],
            "the name 'webgpu' is given to",
        ),
    ];
    for (flags, needle) in cases {
        let output = dmlrun().args([&model, "--generate", "random"]).args(&flags).output().unwrap();
        assert_one_line_error(&output, needle);
    }
}

/// The ONNX Runtime library the build put next to the binary.
fn libonnxruntime() -> PathBuf {
    let exe = assert_cmd::cargo::cargo_bin("dmlrun");
    std::fs::read_dir(exe.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("libonnxruntime.so"))
        .expect("libonnxruntime next to dmlrun")
}
