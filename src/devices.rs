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
        .map_err(|e| anyhow::anyhow!("creating a DXGI factory failed: {}", describe(&e)))?;
    let mut adapters = Vec::new();
    for index in 0u32.. {
        // SAFETY: enumerating by index on a live factory; NOT_FOUND marks the end.
        let adapter = match unsafe { factory.EnumAdapters1(index) } {
            Ok(a) => a,
            Err(e) if e.code() == DXGI_ERROR_NOT_FOUND => break,
            Err(e) => anyhow::bail!("enumerating DXGI adapter {index}: {}", describe(&e)),
        };
        // SAFETY: `adapter` is a valid IDXGIAdapter1 from the factory above.
        let desc = unsafe { adapter.GetDesc1() }
            .map_err(|e| anyhow::anyhow!("reading DXGI adapter {index}: {}", describe(&e)))?;
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

#[cfg(windows)]
fn describe(error: &windows::core::Error) -> String {
    describe_hresult(error.code().0 as u32, &error.message())
}

/// `HRESULT 0x887A0004 (DXGI_ERROR_UNSUPPORTED: ...)`: the code, its name and what it means for
/// DirectML. Windows' own message is added when it has one (Wine has none).
pub fn describe_hresult(code: u32, system_message: &str) -> String {
    let known = match code {
        0x887A0004 => Some("DXGI_ERROR_UNSUPPORTED: no DirectX 12 display adapter is available to this process (a headless or remote session, a missing driver, or under Wine no X display)"),
        0x887A0001 => Some("DXGI_ERROR_INVALID_CALL"),
        0x887A0002 => Some("DXGI_ERROR_NOT_FOUND: no adapter with that index"),
        0x887A0005 => Some("DXGI_ERROR_DEVICE_REMOVED: the GPU was removed or its driver was updated or crashed"),
        0x887A0006 => Some("DXGI_ERROR_DEVICE_HUNG"),
        0x887A0007 => Some("DXGI_ERROR_DEVICE_RESET"),
        0x887A0020 => Some("DXGI_ERROR_DRIVER_INTERNAL_ERROR: update the GPU driver"),
        0x80004001 => Some("E_NOTIMPL: the Direct3D 12 implementation lacks something DirectML needs"),
        0x80004005 => Some("E_FAIL"),
        0x8007000E => Some("E_OUTOFMEMORY"),
        0x80070057 => Some("E_INVALIDARG"),
        _ => None,
    };
    let system_message = system_message.trim();
    match (known, system_message.is_empty()) {
        (Some(name), true) => format!("HRESULT {code:#010X} ({name})"),
        (Some(name), false) => format!("HRESULT {code:#010X} ({name}; {system_message})"),
        (None, false) => format!("HRESULT {code:#010X} ({system_message})"),
        (None, true) => format!("HRESULT {code:#010X}"),
    }
}

/// The first HRESULT this module can name inside an error text (ONNX Runtime prints them as
/// bare hex, `887A0004`, or as `0x887A0004`), described.
pub fn named_hresult_in(text: &str) -> Option<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric()).find_map(|word| {
        let hex = word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")).unwrap_or(word);
        let code = u32::from_str_radix(hex, 16).ok().filter(|_| hex.len() == 8)?;
        let described = describe_hresult(code, "");
        described.contains('(').then_some(described)
    })
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

/// The Wine version when this Windows build runs under Wine (ntdll's `wine_get_version`), so
/// reports never mistake Wine for Windows.
#[cfg(windows)]
pub fn wine_version() -> Option<String> {
    use windows::core::{s, w};
    use windows::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
    // SAFETY: ntdll is always loaded; `wine_get_version` exists only under Wine and returns a
    // static NUL-terminated string.
    unsafe {
        let ntdll = GetModuleHandleW(w!("ntdll.dll")).ok()?;
        let proc = GetProcAddress(ntdll, s!("wine_get_version"))?;
        let get_version: extern "C" fn() -> *const std::ffi::c_char = std::mem::transmute(proc);
        let version = get_version();
        (!version.is_null()).then(|| std::ffi::CStr::from_ptr(version).to_string_lossy().into_owned())
    }
}

/// There is no Wine to run under on other platforms.
#[cfg(not(windows))]
pub fn wine_version() -> Option<String> {
    None
}

/// Under Wine, loads `winevulkan.dll` for the rest of the process before DirectML starts.
///
/// Wine's Direct3D 12 (vkd3d) loads and frees winevulkan as devices come and go; once the
/// last reference goes while vkd3d's threads still use it, the process crashes at exit after
/// printing correct results (and a default Wine prefix then hangs in its debugger). One extra
/// reference that is never released keeps it loaded. On Windows this does nothing.
#[cfg(windows)]
pub fn pin_wine_vulkan() {
    use windows::core::w;
    use windows::Win32::System::LibraryLoader::LoadLibraryW;
    if wine_version().is_some() {
        // SAFETY: loading a system DLL by name; the handle is deliberately never freed.
        let _ = unsafe { LoadLibraryW(w!("winevulkan.dll")) };
    }
}

#[cfg(not(windows))]
pub fn pin_wine_vulkan() {}

/// Checks that `--device N` names an adapter, where adapters can be listed.
pub fn check_device_index(index: u32) -> anyhow::Result<()> {
    if !cfg!(windows) {
        return Ok(());
    }
    let adapters = list_adapters().map_err(|e| {
        anyhow::anyhow!("--device {index}: DirectML cannot start: {e}. Run `dmlrun devices` to see what DXGI reports, or use --ep cpu")
    })?;
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
    fn hresults_are_named() {
        let text = describe_hresult(0x887A0004, "");
        assert!(text.starts_with("HRESULT 0x887A0004 (DXGI_ERROR_UNSUPPORTED"), "{text}");
        assert_eq!(describe_hresult(0x12345678, ""), "HRESULT 0x12345678");
        let ort =
            "dml_provider_factory.cc(93)\\onnxruntime.dll!00007FF8: Exception(1) tid(1c) 80004001 Not implemented";
        assert!(named_hresult_in(ort).unwrap().contains("E_NOTIMPL"));
        assert!(named_hresult_in("failed: 0x887A0004").unwrap().contains("DXGI_ERROR_UNSUPPORTED"));
        assert_eq!(named_hresult_in("tid(00000000deadbeef) 12345678"), None);
        assert_eq!(
            describe_hresult(0x80004005, "Unspecified error\r\n"),
            "HRESULT 0x80004005 (E_FAIL; Unspecified error)"
        );
    }

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
