//! `dmlrun devices`: the DXGI adapters DirectML can use, and the EP devices ONNX Runtime
//! reports (plugin EP libraries' included), each DirectML one matched to its DXGI adapter.

use anyhow::Result;
use serde::Serialize;

use crate::cli::DevicesArgs;
use crate::exit::ExitStatus;
use crate::runtime::adapters::{list_adapters, luid_text, vendor_name, Adapter};
use crate::runtime::ep_devices::{EpDevice, EpLibrary};
use crate::settings::LookSettings;

#[derive(Serialize)]
struct DevicesReport {
    adapters: Vec<Adapter>,
    /// Why there are no adapters, where DXGI does not exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    adapters_unavailable: Option<String>,
    /// Why the list may hold fewer adapters than the machine has GPUs (under Wine).
    #[serde(skip_serializing_if = "Option::is_none")]
    adapters_note: Option<String>,
    onnxruntime: Option<OnnxRuntime>,
    /// Why ONNX Runtime's EP devices are not listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    onnxruntime_unavailable: Option<String>,
    ep_devices: Vec<ListedDevice>,
    ep_libraries: Vec<EpLibrary>,
}

#[derive(Serialize)]
struct OnnxRuntime {
    version: String,
    path: std::path::PathBuf,
}

#[derive(Serialize)]
struct ListedDevice {
    #[serde(flatten)]
    device: EpDevice,
    /// The DXGI adapter (DirectML's `device_id`) this device is, when its `DxgiAdapterNumber`
    /// names one whose vendor and device ids agree.
    #[serde(skip_serializing_if = "Option::is_none")]
    dxgi_adapter: Option<u32>,
}

pub fn execute(args: &DevicesArgs) -> Result<ExitStatus> {
    devices(&LookSettings::resolve(&args.ort, &args.json)?)
}

fn devices(settings: &LookSettings) -> Result<ExitStatus> {
    let (adapters, adapters_unavailable) = match list_adapters() {
        Ok(list) => (list, None),
        // Not a failure of this command: the honest answer on this platform is "none".
        Err(e) if !cfg!(windows) => (Vec::new(), Some(e.to_string())),
        Err(e) => return Err(e),
    };
    // Without ONNX Runtime the adapters are still worth listing, unless the user named a
    // library: then not finding it is the answer they need.
    let (runtime, onnxruntime_unavailable) = match settings.ort.load() {
        Ok(runtime) => (Some(runtime), None),
        Err(e) if !settings.named_library => (None, Some(format!("{e:#}"))),
        Err(e) => return Err(e),
    };
    let report = DevicesReport {
        ep_devices: runtime
            .iter()
            .flat_map(|r| &r.ep_devices)
            .map(|d| ListedDevice { dxgi_adapter: dxgi_match(d, &adapters), device: d.clone() })
            .collect(),
        ep_libraries: runtime.as_ref().map(|r| r.ep_libraries.clone()).unwrap_or_default(),
        onnxruntime: runtime
            .as_ref()
            .map(|r| OnnxRuntime { version: r.library.version.clone(), path: r.library.path.clone() }),
        onnxruntime_unavailable,
        adapters,
        adapters_unavailable,
        adapters_note: crate::runtime::wine::one_adapter_note(),
    };
    if let Some(path) = &settings.json {
        if crate::report::write_json(path, &report, "--json")? {
            return Ok(ExitStatus::Success);
        }
    }
    print_adapters(&report);
    crate::outln!();
    print_ep_devices(&report);
    Ok(ExitStatus::Success)
}

/// The adapter ONNX Runtime's discovery says `device` is, checked by its ids and, where the
/// metadata has it (ONNX Runtime 1.24 writes `LUID` in decimal), its LUID.
fn dxgi_match(device: &EpDevice, adapters: &[Adapter]) -> Option<u32> {
    let number = device.dxgi_adapter()?;
    let luid = device.metadata.get("LUID").and_then(|l| l.trim().parse::<u64>().ok());
    let luid = luid.map(|l| luid_text((l >> 32) as u32, l as u32));
    adapters
        .iter()
        .find(|a| {
            a.index == number
                && a.vendor_id == device.vendor_id
                && a.device_id == device.device_id
                && luid.as_ref().is_none_or(|l| *l == a.luid)
        })
        .map(|a| a.index)
}

fn print_adapters(report: &DevicesReport) {
    if let Some(why) = &report.adapters_unavailable {
        crate::outln!("DXGI adapters: none ({why})");
        return;
    }
    if report.adapters.is_empty() {
        crate::outln!("DXGI adapters: none found");
        return;
    }
    crate::outln!(
        "DXGI adapters. The index is DirectML's device_id (IDXGIFactory::EnumAdapters order): --device INDEX; --device NAME and --device luid:HIGH-LOW pick the same adapter by name or LUID."
    );
    for a in &report.adapters {
        crate::outln!(
            "{:>2}  {}  [{} {:#06x}:{:#06x}]  LUID {}  {} MiB dedicated, {} MiB shared{}",
            a.index,
            a.name,
            vendor_name(a.vendor_id),
            a.vendor_id,
            a.device_id,
            a.luid,
            a.dedicated_video_memory / (1 << 20),
            a.shared_system_memory / (1 << 20),
            if a.software { "  (software adapter)" } else { "" }
        );
    }
    if let Some(note) = &report.adapters_note {
        crate::outln!("Note: {note}.");
    }
}

fn print_ep_devices(report: &DevicesReport) {
    let Some(ort) = &report.onnxruntime else {
        crate::outln!(
            "ONNX Runtime EP devices: not listed ({})",
            report.onnxruntime_unavailable.as_deref().unwrap_or("ONNX Runtime not loaded")
        );
        return;
    };
    crate::outln!(
        "ONNX Runtime {} EP devices ({}). --ep NAME runs on an EP's first device; --ep policy:POLICY lets ONNX Runtime choose among them.",
        ort.version,
        ort.path.display()
    );
    if report.ep_devices.is_empty() {
        crate::outln!("    none (this ONNX Runtime build has no EP-device discovery)");
    }
    for listed in &report.ep_devices {
        let d = &listed.device;
        let from = d.library.as_ref().map(|l| format!("  [--ep-library {l}]")).unwrap_or_default();
        crate::outln!("{:>2}  {} ({})  {}{from}", d.index, d.ep_name, d.ep_vendor, d.hardware());
        if let Some(index) = listed.dxgi_adapter {
            let adapter = report.adapters.iter().find(|a| a.index == index);
            let luid = adapter.map(|a| format!(", LUID {}", a.luid)).unwrap_or_default();
            crate::outln!("      DXGI adapter {index}{luid}: --device {index}");
        } else if let Some(number) = d.dxgi_adapter() {
            crate::outln!(
                "      DxgiAdapterNumber {number} matches no DXGI adapter with ids {:#06x}:{:#06x} in the list above",
                d.vendor_id,
                d.device_id
            );
        }
        for (label, pairs) in
            [("metadata", &d.metadata), ("EP metadata", &d.ep_metadata), ("EP options", &d.ep_options)]
        {
            if !pairs.is_empty() {
                let text: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={}", v.trim())).collect();
                crate::outln!("      {label}: {}", text.join(", "));
            }
        }
    }
    for library in report.ep_libraries.iter().filter(|l| l.execution_providers.is_empty()) {
        crate::outln!(
            "    --ep-library {} ({}): registered, but it offers no device on this machine",
            library.name,
            library.path.display()
        );
    }
}
