//! The execution providers a plan appends and their options: what the loaded ONNX Runtime
//! offers, DirectML's adapter choice and provider options, EP devices found by name, the
//! session config entries, and the error when DirectML is asked for where it does not exist.

use std::collections::BTreeMap;

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

use super::request::ep_key;
use super::{DeviceFilter, DevicePolicy, EpRequest, PerformancePreference, PlanRequest, SessionPlan, DML_PROVIDER};
use crate::runtime::ep_devices::{EpDevice, EpLibrary};

/// What the loaded ONNX Runtime offers the plan: the execution providers compiled in, and the
/// EP devices, plugin libraries' included.
#[derive(Debug, Clone, Copy)]
pub struct Offered<'a> {
    pub providers: &'a [String],
    pub ep_devices: &'a [EpDevice],
    pub ep_libraries: &'a [EpLibrary],
}

impl<'a> Offered<'a> {
    /// Only compiled-in providers, no EP devices.
    #[cfg(test)]
    pub fn providers(providers: &'a [String]) -> Offered<'a> {
        Offered { providers, ep_devices: &[], ep_libraries: &[] }
    }

    pub(super) fn has(&self, provider: &str) -> bool {
        self.providers.iter().any(|p| p == provider)
    }
}

/// How the DirectML adapter is chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum AdapterSelection {
    /// A DXGI adapter index (`device_id`), as `dmlrun devices` lists them.
    Index { device_id: u32 },
    /// Let DirectML pick by preference and filter (ONNX Runtime's `OrtDmlDeviceOptions`).
    Preference { performance_preference: PerformancePreference, device_filter: DeviceFilter },
}

/// One execution provider, in registration order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "name")]
pub enum ProviderPlan {
    #[serde(rename = "DmlExecutionProvider")]
    DirectML { adapter: AdapterSelection },
    #[serde(rename = "CPUExecutionProvider")]
    Cpu,
    /// An execution provider appended through one of its EP devices
    /// (`SessionOptionsAppendExecutionProvider_V2`), `device` being its index in ONNX Runtime's
    /// list.
    #[serde(rename = "EpDevice")]
    EpDevice { ep: String, device: usize, hardware: String },
    /// Nothing appended: ONNX Runtime picks the execution providers by `policy` when it creates
    /// the session.
    #[serde(rename = "EpSelectionPolicy")]
    Policy { policy: DevicePolicy },
}

/// The prefix of DirectML's session config entries.
pub const DML_CONFIG_PREFIX: &str = "ep.dml.";
/// The session config entry that turns on DirectML's graph capture.
pub const DML_GRAPH_CAPTURE: &str = "ep.dml.enable_graph_capture";
/// The session config entry that turns off DirectML's graph fusion (per-operator profiles).
pub const DML_DISABLE_FUSION: &str = "ep.dml.disable_graph_fusion";
/// The DirectML provider options ONNX Runtime 1.24's factory reads; the adapter keys among them
/// have flags of their own.
const DML_PROVIDER_OPTIONS: [&str; 4] =
    ["disable_metacommands", "device_id", "performance_preference", "device_filter"];
/// The `ep.dml.*` session config entries ONNX Runtime 1.24's DirectML build contains.
const DML_CONFIG_ENTRIES: [&str; 5] = [
    "ep.dml.enable_graph_capture",
    "ep.dml.enable_cpu_sync_spinning",
    "ep.dml.disable_graph_fusion",
    "ep.dml.disable_memory_arena",
    "ep.dml.enable_graph_serialization",
];

/// The DirectML-only flags in `request`, as the user typed them; `--ep-option`s among them when
/// `with_ep_options`.
pub(super) fn dml_only_flags(request: &PlanRequest, with_ep_options: bool) -> Vec<String> {
    let mut flags = Vec::new();
    if request.dml_disable_metacommands {
        flags.push("--dml-disable-metacommands".to_string());
    }
    if request.dml_graph_capture {
        flags.push("--dml-graph-capture".to_string());
    }
    if request.io_on_device {
        flags.push("--io-on-device".to_string());
    }
    if with_ep_options {
        flags.extend(request.ep_options.iter().map(|(k, v)| format!("--ep-option {k}={v}")));
    }
    flags.extend(
        request
            .session_config
            .iter()
            .filter(|(k, _)| k.starts_with(DML_CONFIG_PREFIX))
            .map(|(k, v)| format!("--session-config {k}={v}")),
    );
    flags
}

/// Whether `--ep-option` goes to the execution provider `ep` asks for (DirectML's, or an EP
/// device's) rather than being refused.
pub(super) fn ep_options_allowed(ep: &EpRequest) -> bool {
    matches!(ep, EpRequest::Auto | EpRequest::Dml | EpRequest::Device(_))
}

/// The EP device `--ep NAME` means: the first device of the execution provider of that name
/// (ONNX Runtime's order), or of the first execution provider of the `--ep-library` registered
/// under that name.
pub(super) fn find_ep_device<'a>(name: &str, offered: &Offered<'a>) -> Result<&'a EpDevice> {
    let key = ep_key(name);
    let by_ep = |ep: &str| offered.ep_devices.iter().find(|d| d.ep_name == ep);
    if let Some(device) = offered.ep_devices.iter().find(|d| ep_key(&d.ep_name) == key) {
        return Ok(device);
    }
    let here = || {
        let mut names: Vec<String> =
            offered.ep_devices.iter().map(|d| format!("{} on {}", d.ep_name, d.hardware())).collect();
        names.dedup();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    if let Some(library) = offered.ep_libraries.iter().find(|l| ep_key(&l.name) == key) {
        return match library.execution_providers.first().and_then(|ep| by_ep(ep)) {
            Some(device) => Ok(device),
            None => bail!(
                "--ep {name}: the plugin library '{}' ({}) is registered, but it offers no device on this machine (ONNX Runtime's EP devices here: {}); `dmlrun devices --ep-library {}` lists them",
                library.name,
                library.path.display(),
                here(),
                library.path.display()
            ),
        };
    }
    let libraries: Vec<&str> = offered.ep_libraries.iter().map(|l| l.name.as_str()).collect();
    bail!(
        "--ep {name}: no execution provider of that name among ONNX Runtime's EP devices here ({}){}; --ep takes auto, dml, cpu, policy:POLICY or an EP name, and --ep-library [NAME=]PATH registers a plugin EP",
        here(),
        if libraries.is_empty() { String::new() } else { format!(" nor among the registered libraries ({})", libraries.join(", ")) }
    )
}

pub(super) fn is_true(value: &str) -> bool {
    matches!(value.to_ascii_lowercase().as_str(), "1" | "true")
}

/// DirectML's provider options and the session config entries, from the typed flags and the
/// pass-through ones. A key given twice with two values is an error naming both.
pub(super) fn resolve_options(
    request: &PlanRequest,
    use_dml: bool,
) -> Result<(BTreeMap<String, String>, BTreeMap<String, String>)> {
    fn insert(map: &mut BTreeMap<String, String>, flag: &str, key: &str, value: &str) -> Result<()> {
        if key.is_empty() || value.is_empty() {
            bail!("{flag} {key}={value}: ONNX Runtime takes neither an empty key nor an empty value");
        }
        match map.get(key) {
            Some(old) if old != value => bail!("{flag}: '{key}' is given twice, as '{old}' and as '{value}'"),
            _ => {
                map.insert(key.to_string(), value.to_string());
                Ok(())
            }
        }
    }
    let mut provider = BTreeMap::new();
    let mut config = BTreeMap::new();
    if use_dml && request.dml_disable_metacommands {
        provider.insert("disable_metacommands".to_string(), "true".to_string());
    }
    if use_dml && request.dml_graph_capture {
        config.insert(DML_GRAPH_CAPTURE.to_string(), "1".to_string());
    }
    for (key, value) in &request.ep_options {
        let flag = "--ep-option";
        // An EP device's options are its own: passed as given, under its name.
        if matches!(request.ep, EpRequest::Device(_)) {
            insert(&mut provider, flag, key, value)?;
            continue;
        }
        match key.as_str() {
            "device_id" | "performance_preference" | "device_filter" => bail!(
                "{flag} {key}={value}: the adapter is chosen with --device, --dml-performance-preference or --dml-device-filter, which the plan shows"
            ),
            // Users pass it as a provider option (Python's examples do); ONNX Runtime reads the
            // session config entry.
            "enable_graph_capture" => {
                if is_true(value) {
                    insert(&mut config, flag, DML_GRAPH_CAPTURE, "1")?;
                }
            }
            _ => insert(&mut provider, flag, key, value)?,
        }
    }
    for (key, value) in &request.session_config {
        insert(&mut config, "--session-config", key, value)?;
    }
    Ok((provider, config))
}

impl SessionPlan {
    /// The provider options as flags name them: `disable_metacommands=true, k=v`.
    pub fn provider_options_text(&self) -> String {
        self.provider_options.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
    }

    /// Whether a plugin EP is given options: it reads them only when ONNX Runtime creates it, at
    /// load, so a session that fails there may fail for an option rather than for the model.
    pub fn plugin_options_read_at_load(&self) -> bool {
        matches!(self.execution_providers.first(), Some(ProviderPlan::EpDevice { .. }))
            && !self.provider_options.is_empty()
    }

    /// Whether DirectML's graph capture is on.
    pub fn graph_capture(&self) -> bool {
        self.session_config.get(DML_GRAPH_CAPTURE).is_some_and(|v| is_true(v))
    }

    /// Whether DirectML's graph fusion is off (a per-operator profile).
    pub fn fusion_disabled(&self) -> bool {
        self.session_config.get(DML_DISABLE_FUSION).is_some_and(|v| is_true(v))
    }

    /// Options this ONNX Runtime does not read: ONNX Runtime accepts any key and ignores those
    /// it does not know, so a typo would otherwise change nothing, silently.
    pub fn option_warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        for (key, value) in self.provider_options.iter().filter(|_| self.uses_directml()) {
            if !DML_PROVIDER_OPTIONS.contains(&key.as_str()) {
                warnings.push(format!(
                    "--ep-option {key}={value}: ONNX Runtime 1.24's DirectML provider reads only {}; it ignores this one",
                    DML_PROVIDER_OPTIONS.join(", ")
                ));
            }
        }
        for (key, value) in &self.session_config {
            if key.starts_with(DML_CONFIG_PREFIX) && !DML_CONFIG_ENTRIES.contains(&key.as_str()) {
                warnings.push(format!(
                    "--session-config {key}={value}: ONNX Runtime 1.24's DirectML build knows only {}; it ignores this one",
                    DML_CONFIG_ENTRIES.join(", ")
                ));
            }
        }
        warnings
    }
}

/// Fails when the plan needs an execution provider the loaded ONNX Runtime does not have.
///
/// Kept apart from [`super::resolve`] so `--print-plan` can show what a DirectML run would apply even
/// where DirectML cannot run.
pub fn check_available(plan: &SessionPlan, request: &PlanRequest, offered: &Offered) -> Result<()> {
    if plan.uses_directml() && !offered.has(DML_PROVIDER) {
        bail!("{}", dml_unavailable_message(request, offered.providers));
    }
    Ok(())
}

fn dml_unavailable_message(request: &PlanRequest, available: &[String]) -> String {
    let named = dml_only_flags(request, true);
    let flag = if request.ep == EpRequest::Dml {
        "--ep dml"
    } else if request.device.is_some() {
        "--device"
    } else if let Some(first) = named.first() {
        first.as_str()
    } else {
        "a DirectML option"
    };
    let platform_hint = if cfg!(windows) {
        "load the onnxruntime-directml build (its onnxruntime.dll and DirectML.dll next to dmlrun.exe, or ORT_DYLIB_PATH)"
    } else {
        "DirectML exists only on Windows (use the Windows build of dmlrun with onnxruntime-directml)"
    };
    format!(
        "{flag} asks for DirectML, but the loaded ONNX Runtime offers only {}: {platform_hint}, or run on the CPU with --ep cpu",
        available.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{resolve, CPU_PROVIDER};
    use super::*;
    use crate::formats::model::ModelInfo;

    #[test]
    fn an_ep_name_resolves_to_its_first_device_or_says_why_not() {
        let providers = vec![CPU_PROVIDER.to_string()];
        let devices = vec![
            device(0, CPU_PROVIDER, None),
            device(1, "WebGpuExecutionProvider", Some("wg")),
            device(2, "WebGpuExecutionProvider", Some("wg")),
        ];
        let libraries = vec![
            EpLibrary {
                name: "wg".into(),
                path: "/x/wg.so".into(),
                execution_providers: vec!["WebGpuExecutionProvider".into()],
            },
            EpLibrary { name: "ov".into(), path: "/x/ov.so".into(), execution_providers: vec![] },
        ];
        let offered = Offered { providers: &providers, ep_devices: &devices, ep_libraries: &libraries };
        for name in ["webgpu", "WebGpuExecutionProvider", "wg"] {
            let request = PlanRequest { ep: EpRequest::Device(name.into()), ..PlanRequest::default() };
            let plan = resolve(&request, &offered, &ModelInfo::default()).unwrap();
            assert!(
                matches!(&plan.execution_providers[..], [ProviderPlan::EpDevice { device: 1, .. }, ProviderPlan::Cpu]),
                "{name}: {:?}",
                plan.execution_providers
            );
            assert!(plan.memory_pattern && !plan.uses_directml());
        }
        let request = PlanRequest { ep: EpRequest::Device("ov".into()), ..PlanRequest::default() };
        let err = resolve(&request, &offered, &ModelInfo::default()).unwrap_err().to_string();
        assert!(err.contains("'ov' (/x/ov.so) is registered, but it offers no device on this machine"), "{err}");
        let request = PlanRequest { ep: EpRequest::Device("cuda".into()), ..PlanRequest::default() };
        let err = resolve(&request, &offered, &ModelInfo::default()).unwrap_err().to_string();
        assert!(err.contains("no execution provider of that name") && err.contains("(wg, ov)"), "{err}");
        let request =
            PlanRequest { ep: EpRequest::Device("webgpu".into()), io_on_device: true, ..PlanRequest::default() };
        assert!(resolve(&request, &offered, &ModelInfo::default())
            .unwrap_err()
            .to_string()
            .contains("--io-on-device applies to DirectML"));
    }
}
