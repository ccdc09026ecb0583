//! DirectML adapters: DXGI enumeration on Windows, a clear answer elsewhere.
//!
//! The index of an adapter here is the `device_id` DirectML takes (`--device`): ONNX Runtime's
//! DirectML provider opens adapter N of `IDXGIFactory1::EnumAdapters1`.

use serde::Serialize;

/// One DXGI adapter.
#[derive(Debug, Clone, Serialize)]
pub struct Adapter {
    /// The `--device` value that selects this adapter.
    pub index: u32,
    pub name: String,
    pub vendor_id: u32,
    pub device_id: u32,
    pub dedicated_video_memory: u64,
    pub shared_system_memory: u64,
    /// The adapter's LUID as `HIGH-LOW` in hex, as DXGI and Task Manager show it.
    pub luid: String,
    /// WARP and other software rasterisers.
    pub software: bool,
}

/// Vendor name for the PCI vendor ids of the DX12 GPU makers.
pub fn vendor_name(vendor_id: u32) -> &'static str {
    match vendor_id {
        0x10DE => "NVIDIA",
        0x1002 | 0x1022 => "AMD",
        0x8086 => "Intel",
        0x5143 | 0x4D4F4351 => "Qualcomm",
        0x1414 => "Microsoft",
        _ => "unknown",
    }
}

/// Lists the adapters DirectML can use.
#[cfg(windows)]
pub fn list_adapters() -> anyhow::Result<Vec<Adapter>> {
    use windows::Win32::Graphics::Dxgi::{
        CreateDXGIFactory1, IDXGIFactory1, DXGI_ADAPTER_FLAG_SOFTWARE, DXGI_ERROR_NOT_FOUND,
    };

    // SAFETY: plain COM factory creation; the returned interface is reference-counted by `windows`.
    let factory: IDXGIFactory1 = unsafe { CreateDXGIFactory1() }
        .map_err(|e| anyhow::anyhow!("creating a DXGI factory failed: HRESULT {:#010X} {}", e.code().0, e.message()))?;
    let mut adapters = Vec::new();
    for index in 0u32.. {
        // SAFETY: enumerating by index on a live factory; NOT_FOUND marks the end.
        let adapter = match unsafe { factory.EnumAdapters1(index) } {
            Ok(a) => a,
            Err(e) if e.code() == DXGI_ERROR_NOT_FOUND => break,
            Err(e) => anyhow::bail!("enumerating DXGI adapter {index}: HRESULT {:#010X} {}", e.code().0, e.message()),
        };
        // SAFETY: `adapter` is a valid IDXGIAdapter1 from the factory above.
        let desc = unsafe { adapter.GetDesc1() }.map_err(|e| {
            anyhow::anyhow!("reading DXGI adapter {index}: HRESULT {:#010X} {}", e.code().0, e.message())
        })?;
        let name_len = desc.Description.iter().position(|&c| c == 0).unwrap_or(desc.Description.len());
        adapters.push(Adapter {
            index,
            name: String::from_utf16_lossy(&desc.Description[..name_len]),
            vendor_id: desc.VendorId,
            device_id: desc.DeviceId,
            dedicated_video_memory: desc.DedicatedVideoMemory as u64,
            shared_system_memory: desc.SharedSystemMemory as u64,
            luid: format!("{:08X}-{:08X}", desc.AdapterLuid.HighPart as u32, desc.AdapterLuid.LowPart),
            software: desc.Flags & (DXGI_ADAPTER_FLAG_SOFTWARE.0 as u32) != 0,
        });
    }
    Ok(adapters)
}

/// Lists the adapters DirectML can use.
#[cfg(not(windows))]
pub fn list_adapters() -> anyhow::Result<Vec<Adapter>> {
    anyhow::bail!(
        "DirectML adapters exist only on Windows (DXGI); this is {}. On this platform dmlrun runs models on the CPU (--ep cpu)",
        std::env::consts::OS
    )
}

/// Dedicated GPU memory the process uses on adapter `index` (DXGI `QueryVideoMemoryInfo`,
/// local segment group), in bytes.
#[cfg(windows)]
pub fn gpu_memory_in_use(index: u32) -> Option<u64> {
    use windows::core::Interface;
    use windows::Win32::Graphics::Dxgi::{
        CreateDXGIFactory1, IDXGIAdapter3, IDXGIFactory1, DXGI_MEMORY_SEGMENT_GROUP_LOCAL, DXGI_QUERY_VIDEO_MEMORY_INFO,
    };
    // SAFETY: COM calls on interfaces created here; `windows` manages their reference counts.
    unsafe {
        let factory: IDXGIFactory1 = CreateDXGIFactory1().ok()?;
        let adapter: IDXGIAdapter3 = factory.EnumAdapters1(index).ok()?.cast().ok()?;
        let mut info = DXGI_QUERY_VIDEO_MEMORY_INFO::default();
        adapter.QueryVideoMemoryInfo(0, DXGI_MEMORY_SEGMENT_GROUP_LOCAL, &mut info).ok()?;
        Some(info.CurrentUsage)
    }
}

/// GPU memory use is a DXGI query; there is none elsewhere.
#[cfg(not(windows))]
pub fn gpu_memory_in_use(_index: u32) -> Option<u64> {
    None
}

/// Checks that `--device N` names an adapter, where adapters can be listed.
pub fn check_device_index(index: u32) -> anyhow::Result<()> {
    if !cfg!(windows) {
        return Ok(());
    }
    let adapters = list_adapters()?;
    if index as usize >= adapters.len() {
        let names: Vec<String> = adapters.iter().map(|a| format!("{}: {}", a.index, a.name)).collect();
        anyhow::bail!(
            "--device {index}: no such DirectML adapter; this machine has {} ({}). Run `dmlrun devices` to list them, or use --ep cpu",
            adapters.len(),
            names.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendor_names() {
        assert_eq!(vendor_name(0x10DE), "NVIDIA");
        assert_eq!(vendor_name(0x8086), "Intel");
        assert_eq!(vendor_name(0x1234), "unknown");
    }

    #[cfg(not(windows))]
    #[test]
    fn non_windows_says_directml_is_windows_only() {
        let err = list_adapters().unwrap_err().to_string();
        assert!(err.contains("only on Windows"), "{err}");
    }
}
