//! ONNX Runtime's EP devices (the EP-device API of 1.22+): each pairing of an execution provider
//! with a hardware device ONNX Runtime found, including those of plugin EP libraries registered
//! with `--ep-library`. Windows ML chooses its plugin EPs this way; so does `--ep NAME`.

use std::collections::BTreeMap;
use std::ffi::{c_char, CStr};
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde::Serialize;

/// One EP device, as `GetEpDevices` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EpDevice {
    /// Its position in ONNX Runtime's list, which stays put while no library is registered.
    pub index: usize,
    /// The execution provider's name (`WebGpuExecutionProvider`).
    pub ep_name: String,
    /// Who makes the execution provider (`Microsoft`), not the hardware.
    pub ep_vendor: String,
    pub hardware_type: HardwareType,
    /// Who makes the hardware, as ONNX Runtime's device discovery names it.
    pub vendor: String,
    pub vendor_id: u32,
    pub device_id: u32,
    /// The hardware device's metadata: on Windows `DxgiAdapterNumber`, `DxgiVideoMemory`,
    /// `Discrete`, `Description`; on Linux what the EP's own discovery adds (`pci_bus_id`).
    pub metadata: BTreeMap<String, String>,
    /// What the execution provider says about itself on this device.
    pub ep_metadata: BTreeMap<String, String>,
    /// The EP's default options on this device.
    pub ep_options: BTreeMap<String, String>,
    /// The `--ep-library` registration that brought it, if any (built-in EPs have none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum HardwareType {
    Cpu,
    Gpu,
    Npu,
}

impl std::fmt::Display for HardwareType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HardwareType::Cpu => "CPU",
            HardwareType::Gpu => "GPU",
            HardwareType::Npu => "NPU",
        })
    }
}

impl EpDevice {
    /// `GPU NVIDIA 0x10de:0x2330 (NVIDIA H100 80GB HBM3)`: what the hardware is, in one phrase.
    pub fn hardware(&self) -> String {
        let vendor = if self.vendor.is_empty() { super::adapters::vendor_name(self.vendor_id) } else { &self.vendor };
        let mut text = format!("{} {vendor} {:#06x}:{:#06x}", self.hardware_type, self.vendor_id, self.device_id);
        if let Some(description) = self.metadata.get("Description").filter(|d| !d.trim().is_empty()) {
            text.push_str(&format!(" ({})", description.trim()));
        }
        text
    }

    /// The DXGI adapter index (DirectML's `device_id`) ONNX Runtime's discovery gave this
    /// device, on Windows.
    pub fn dxgi_adapter(&self) -> Option<u32> {
        self.metadata.get("DxgiAdapterNumber")?.trim().parse().ok()
    }
}

/// One `--ep-library` registration and the execution providers whose devices it added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EpLibrary {
    pub name: String,
    pub path: PathBuf,
    /// EP names of the devices it offers here; empty when it registered but found no device.
    pub execution_providers: Vec<String>,
}

/// `--ep-library [NAME=]PATH` as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpLibraryRequest {
    pub name: String,
    pub path: PathBuf,
}

impl EpLibraryRequest {
    /// `webgpu=/x/libonnxruntime_providers_webgpu.so`, or the path alone, which names the
    /// registration after the file (`onnxruntime_providers_webgpu`, without `lib` and the
    /// extension).
    pub fn parse(text: &str) -> Result<EpLibraryRequest, String> {
        let (name, path) = match text.split_once('=') {
            Some((name, path)) if !name.is_empty() && !name.contains(['/', '\\']) => (Some(name), path),
            _ => (None, text),
        };
        if path.is_empty() {
            return Err("a plugin EP library path is required: [NAME=]PATH".into());
        }
        let path_text = path;
        let path = PathBuf::from(path);
        let name = match name {
            Some(name) => name.to_string(),
            None => {
                // Either separator, so a Windows path names the same registration everywhere.
                let file = path_text.rsplit(['/', '\\']).next().unwrap_or_default();
                let stem = file.split('.').next().unwrap_or_default();
                stem.strip_prefix("lib").unwrap_or(stem).to_string()
            }
        };
        if name.is_empty() {
            return Err(format!("'{text}': give the registration a name: NAME=PATH"));
        }
        Ok(EpLibraryRequest { name, path })
    }
}

/// Registers each library with the environment, in order, and returns what each added.
pub fn register(env: &ort::environment::Environment, requests: &[EpLibraryRequest]) -> Result<Vec<EpLibrary>> {
    let mut libraries: Vec<EpLibrary> = Vec::new();
    // The EP names listed so far: what a registration adds is what is new after it.
    let mut known = ep_names(env);
    for request in requests {
        if let Some(earlier) = libraries.iter().find(|l| l.name == request.name) {
            bail!(
                "--ep-library: the name '{}' is given to {} and to {}; name them apart with NAME=PATH",
                request.name,
                earlier.path.display(),
                request.path.display()
            );
        }
        if !request.path.is_file() {
            bail!("--ep-library {}: no such file", request.path.display());
        }
        env.register_ep_library(&request.name, absolute(&request.path)).map_err(|e| {
            anyhow::anyhow!(
                "--ep-library {}: ONNX Runtime could not register it as a plugin execution provider: {e}",
                request.path.display()
            )
        })?;
        let mut added: Vec<String> = Vec::new();
        for name in ep_names(env) {
            if !known.contains(&name) && !added.contains(&name) {
                added.push(name);
            }
        }
        known.extend(added.iter().cloned());
        libraries.push(EpLibrary {
            name: request.name.clone(),
            path: request.path.clone(),
            execution_providers: added,
        });
    }
    Ok(libraries)
}

/// The EP name of each of the environment's EP devices, in ONNX Runtime's order.
fn ep_names(env: &ort::environment::Environment) -> Vec<String> {
    env.devices().filter_map(|d| d.ep().ok().map(str::to_string)).collect()
}

/// ONNX Runtime resolves a relative library path against its own idea of the working folder
/// (on Windows, the DLL search path); an absolute one means what the user typed.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The environment's EP devices in ONNX Runtime's order, each labelled with the library among
/// `libraries` that offers its execution provider.
pub fn list(env: &ort::environment::Environment, libraries: &[EpLibrary]) -> Vec<EpDevice> {
    use ort::AsPointer;
    let api = ort::api();
    env.devices()
        .enumerate()
        .map(|(index, device)| {
            let hardware = device.hardware_device();
            let ep_name = device.ep().unwrap_or_default().to_string();
            let library = libraries.iter().find(|l| l.execution_providers.contains(&ep_name)).map(|l| l.name.clone());
            // SAFETY: the device pointers come from the environment's live list; ONNX Runtime
            // owns the key-value pairs they return for as long as the environment lives.
            let (vendor_id, metadata, ep_metadata, ep_options) = unsafe {
                (
                    (api.HardwareDevice_VendorId)(hardware.ptr()),
                    pairs((api.HardwareDevice_Metadata)(hardware.ptr())),
                    pairs((api.EpDevice_EpMetadata)(device.ptr())),
                    pairs((api.EpDevice_EpOptions)(device.ptr())),
                )
            };
            EpDevice {
                index,
                ep_vendor: device.ep_vendor().unwrap_or_default().to_string(),
                hardware_type: match hardware.ty() {
                    ort::memory::DeviceType::GPU => HardwareType::Gpu,
                    ort::memory::DeviceType::NPU => HardwareType::Npu,
                    _ => HardwareType::Cpu,
                },
                vendor: hardware.vendor().unwrap_or_default().to_string(),
                vendor_id,
                device_id: hardware.id(),
                metadata,
                ep_metadata,
                ep_options,
                library,
                ep_name,
            }
        })
        .collect()
}

/// # Safety
/// `kvps` must be null or a live `OrtKeyValuePairs`.
unsafe fn pairs(kvps: *const ort::sys::OrtKeyValuePairs) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    if kvps.is_null() {
        return map;
    }
    let mut keys: *const *const c_char = std::ptr::null();
    let mut values: *const *const c_char = std::ptr::null();
    let mut count = 0usize;
    // SAFETY: ONNX Runtime fills in two arrays of `count` C strings it owns.
    unsafe {
        (ort::api().GetKeyValuePairs)(kvps, &mut keys, &mut values, &mut count);
        for i in 0..count {
            let text = |p: *const c_char| {
                if p.is_null() {
                    String::new()
                } else {
                    CStr::from_ptr(p).to_string_lossy().into_owned()
                }
            };
            map.insert(text(*keys.add(i)), text(*values.add(i)));
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_names_come_from_the_flag_or_the_file() {
        let named = EpLibraryRequest::parse("webgpu=/x/libonnxruntime_providers_webgpu.so").unwrap();
        assert_eq!(
            (named.name.as_str(), named.path.as_path()),
            ("webgpu", Path::new("/x/libonnxruntime_providers_webgpu.so"))
        );
        let bare = EpLibraryRequest::parse("/x/libonnxruntime_providers_openvino_plugin.so.1.8.1").unwrap();
        assert_eq!(bare.name, "onnxruntime_providers_openvino_plugin");
        let windows = EpLibraryRequest::parse(r"C:\eps\onnxruntime_providers_webgpu.dll").unwrap();
        assert_eq!(windows.name, "onnxruntime_providers_webgpu");
        // A drive letter is not a name.
        assert_eq!(EpLibraryRequest::parse(r"C:\a=b\x.dll").unwrap().path, Path::new(r"C:\a=b\x.dll"));
        assert!(EpLibraryRequest::parse("webgpu=").is_err());
        assert!(EpLibraryRequest::parse("").is_err());
    }

    #[test]
    fn hardware_is_named_with_ids_and_description() {
        let device = EpDevice {
            index: 1,
            ep_name: "WebGpuExecutionProvider".into(),
            ep_vendor: "Microsoft".into(),
            hardware_type: HardwareType::Gpu,
            vendor: String::new(),
            vendor_id: 0x10de,
            device_id: 0x2330,
            metadata: BTreeMap::from([
                ("Description".into(), "NVIDIA H100".into()),
                ("DxgiAdapterNumber".into(), "2".into()),
            ]),
            ep_metadata: BTreeMap::new(),
            ep_options: BTreeMap::new(),
            library: None,
        };
        assert_eq!(device.hardware(), "GPU NVIDIA 0x10de:0x2330 (NVIDIA H100)");
        assert_eq!(device.dxgi_adapter(), Some(2));
    }
}
