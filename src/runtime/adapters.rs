//! DirectML adapters: DXGI enumeration on Windows, a clear answer elsewhere.
//!
//! The index of an adapter here is the `device_id` DirectML takes (`--device`): ONNX Runtime's
//! DirectML provider opens adapter N of `IDXGIFactory1::EnumAdapters1`.

use serde::{Deserialize, Serialize};

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

/// A LUID as DXGI and Task Manager show it, `HIGH-LOW` in hex: [`Adapter::luid`].
pub fn luid_text(high: u32, low: u32) -> String {
    format!("{high:08X}-{low:08X}")
}

/// How `--device` names an adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceSelector {
    /// DXGI's `EnumAdapters` index: DirectML's `device_id`.
    Index(u32),
    /// A case-insensitive part of the adapter's name.
    Name(String),
    /// The adapter's LUID, `HIGH-LOW`.
    Luid { high: u32, low: u32 },
}

impl DeviceSelector {
    /// `1`, `luid:0-d2f1` or a name.
    pub fn parse(text: &str) -> Result<DeviceSelector, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("an adapter index, name or luid:HIGH-LOW is required".into());
        }
        if let Some(luid) = text.strip_prefix("luid:").or_else(|| text.strip_prefix("LUID:")) {
            let (high, low) = luid.split_once('-').ok_or_else(|| format!("'{text}' is not luid:HIGH-LOW"))?;
            let hex = |part: &str| {
                let digits = part.trim_start_matches("0x").trim_start_matches("0X");
                u32::from_str_radix(digits, 16).map_err(|_| format!("'{part}' in '{text}' is not a 32-bit hex number"))
            };
            return Ok(DeviceSelector::Luid { high: hex(high)?, low: hex(low)? });
        }
        if text.bytes().all(|b| b.is_ascii_digit()) {
            return text.parse().map(DeviceSelector::Index).map_err(|_| format!("'{text}' is too large an index"));
        }
        if text.starts_with('-') && text[1..].bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("'{text}': an adapter index is 0 or more"));
        }
        Ok(DeviceSelector::Name(text.to_string()))
    }

    /// The adapter index this selects among `adapters`: a name must match exactly one.
    pub fn select(&self, adapters: &[Adapter]) -> anyhow::Result<u32> {
        let candidates = || {
            let list: Vec<String> =
                adapters.iter().map(|a| format!("{}: {} (LUID {})", a.index, a.name, a.luid)).collect();
            if list.is_empty() {
                "none".to_string()
            } else {
                list.join("; ")
            }
        };
        let matching: Vec<&Adapter> = match self {
            DeviceSelector::Index(index) => return Ok(*index),
            DeviceSelector::Name(name) => {
                let needle = name.to_lowercase();
                adapters.iter().filter(|a| a.name.to_lowercase().contains(&needle)).collect()
            }
            DeviceSelector::Luid { high, low } => {
                adapters.iter().filter(|a| a.luid == luid_text(*high, *low)).collect()
            }
        };
        match matching.as_slice() {
            [one] => Ok(one.index),
            [] => anyhow::bail!("--device {self}: no DirectML adapter matches; the adapters are: {}", candidates()),
            several => anyhow::bail!(
                "--device {self}: {} adapters match ({}); give more of the name, the index or luid:HIGH-LOW",
                several.len(),
                several.iter().map(|a| format!("{}: {}", a.index, a.name)).collect::<Vec<_>>().join("; ")
            ),
        }
    }

    /// The adapter index on this machine: an index as given, a name or LUID looked up in DXGI.
    pub fn resolve(&self) -> anyhow::Result<u32> {
        match self {
            DeviceSelector::Index(index) => Ok(*index),
            _ => {
                let adapters = list_adapters().map_err(|e| anyhow::anyhow!("--device {self}: {e}"))?;
                self.select(&adapters)
            }
        }
    }
}

impl std::fmt::Display for DeviceSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceSelector::Index(index) => write!(f, "{index}"),
            DeviceSelector::Name(name) => write!(f, "'{name}'"),
            DeviceSelector::Luid { high, low } => write!(f, "luid:{high:08X}-{low:08X}"),
        }
    }
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
            luid: luid_text(desc.AdapterLuid.HighPart as u32, desc.AdapterLuid.LowPart),
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
        0x887A0006 => Some("DXGI_ERROR_DEVICE_HUNG: the GPU took too long on a command (a removal reason)"),
        0x887A0007 => Some("DXGI_ERROR_DEVICE_RESET: a badly formed command reset the GPU (a removal reason)"),
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

/// Video memory this process uses on one adapter (DXGI `QueryVideoMemoryInfo`): the local
/// segment group (the adapter's own memory) and the non-local one (system memory the adapter
/// reaches over the bus), in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct VideoMemory {
    pub local_bytes: u64,
    pub non_local_bytes: u64,
}

impl VideoMemory {
    /// The larger of each segment group's figure.
    pub fn max(self, other: VideoMemory) -> VideoMemory {
        VideoMemory {
            local_bytes: self.local_bytes.max(other.local_bytes),
            non_local_bytes: self.non_local_bytes.max(other.non_local_bytes),
        }
    }
}

/// Reads one adapter's video memory use repeatedly: the adapter is looked up once, so a read
/// costs one DXGI call and can sit between timed runs.
#[derive(Clone)]
pub struct VideoMemoryProbe {
    #[cfg(windows)]
    adapter: windows::Win32::Graphics::Dxgi::IDXGIAdapter3,
}

#[cfg(windows)]
impl VideoMemoryProbe {
    /// The probe for adapter `index`, when DXGI has one that answers memory queries.
    pub fn open(index: u32) -> Option<VideoMemoryProbe> {
        use windows::core::Interface;
        use windows::Win32::Graphics::Dxgi::{CreateDXGIFactory1, IDXGIFactory1};
        // SAFETY: COM calls on interfaces created here; `windows` manages their reference counts.
        unsafe {
            let factory: IDXGIFactory1 = CreateDXGIFactory1().ok()?;
            let adapter = factory.EnumAdapters1(index).ok()?.cast().ok()?;
            Some(VideoMemoryProbe { adapter })
        }
    }

    pub fn read(&self) -> Option<VideoMemory> {
        use windows::Win32::Graphics::Dxgi::{
            DXGI_MEMORY_SEGMENT_GROUP, DXGI_MEMORY_SEGMENT_GROUP_LOCAL, DXGI_MEMORY_SEGMENT_GROUP_NON_LOCAL,
            DXGI_QUERY_VIDEO_MEMORY_INFO,
        };
        let usage = |group: DXGI_MEMORY_SEGMENT_GROUP| {
            let mut info = DXGI_QUERY_VIDEO_MEMORY_INFO::default();
            // SAFETY: a query on a live adapter interface, writing into a local struct.
            unsafe { self.adapter.QueryVideoMemoryInfo(0, group, &mut info) }.ok().map(|_| info.CurrentUsage)
        };
        Some(VideoMemory {
            local_bytes: usage(DXGI_MEMORY_SEGMENT_GROUP_LOCAL)?,
            non_local_bytes: usage(DXGI_MEMORY_SEGMENT_GROUP_NON_LOCAL)?,
        })
    }
}

/// Video memory is a DXGI query; there is none elsewhere.
#[cfg(not(windows))]
impl VideoMemoryProbe {
    pub fn open(_index: u32) -> Option<VideoMemoryProbe> {
        None
    }

    pub fn read(&self) -> Option<VideoMemory> {
        None
    }
}

/// Checks that `--device N` names an adapter, where adapters can be listed; its name, where listed.
pub fn check_device_index(index: u32) -> anyhow::Result<Option<String>> {
    if !cfg!(windows) {
        return Ok(None);
    }
    let adapters = list_adapters().map_err(|e| {
        anyhow::anyhow!("--device {index}: DirectML cannot start: {e}. Run `dmlrun devices` to see what DXGI reports, or use --ep cpu")
    })?;
    if index as usize >= adapters.len() {
        let names: Vec<String> = adapters.iter().map(|a| format!("{}: {}", a.index, a.name)).collect();
        let wine = crate::runtime::wine::one_adapter_note().map(|note| format!("; {note}")).unwrap_or_default();
        anyhow::bail!(
            "--device {index}: no such DirectML adapter; this machine has {} ({}). Run `dmlrun devices` to list them, or use --ep cpu{wine}",
            adapters.len(),
            names.join(", ")
        );
    }
    Ok(adapters.into_iter().find(|a| a.index == index).map(|a| a.name))
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

    fn adapter(index: u32, name: &str, luid: &str) -> Adapter {
        Adapter {
            index,
            name: name.into(),
            vendor_id: 0x10DE,
            device_id: 0x2330,
            dedicated_video_memory: 0,
            shared_system_memory: 0,
            luid: luid.into(),
            software: false,
        }
    }

    fn two_adapters() -> Vec<Adapter> {
        vec![
            adapter(0, "NVIDIA H100 80GB HBM3", "00000000-0000D2F1"),
            adapter(1, "llvmpipe (LLVM 15.0.6, 256 bits)", "00000000-0000E0A4"),
        ]
    }

    #[test]
    fn device_selectors_parse() {
        assert_eq!(DeviceSelector::parse("1"), Ok(DeviceSelector::Index(1)));
        assert_eq!(DeviceSelector::parse("h100"), Ok(DeviceSelector::Name("h100".into())));
        assert_eq!(DeviceSelector::parse("luid:0-d2f1"), Ok(DeviceSelector::Luid { high: 0, low: 0xD2F1 }));
        assert_eq!(
            DeviceSelector::parse("luid:0x00000001-0x0000D2F1"),
            Ok(DeviceSelector::Luid { high: 1, low: 0xD2F1 })
        );
        assert!(DeviceSelector::parse("luid:12").unwrap_err().contains("luid:HIGH-LOW"));
        assert!(DeviceSelector::parse("luid:zz-1").unwrap_err().contains("hex"));
        assert!(DeviceSelector::parse("-1").unwrap_err().contains("0 or more"));
        assert!(DeviceSelector::parse("").is_err());
    }

    #[test]
    fn adapters_are_chosen_by_name_or_luid() {
        let adapters = two_adapters();
        assert_eq!(DeviceSelector::Name("h100".into()).select(&adapters).unwrap(), 0);
        assert_eq!(DeviceSelector::Name("LLVMPIPE".into()).select(&adapters).unwrap(), 1);
        assert_eq!(DeviceSelector::Luid { high: 0, low: 0xE0A4 }.select(&adapters).unwrap(), 1);
        assert_eq!(DeviceSelector::Index(7).select(&adapters).unwrap(), 7, "indexes are checked when opened");
    }

    #[test]
    fn an_ambiguous_or_unknown_adapter_lists_the_candidates() {
        let adapters = two_adapters();
        let err = DeviceSelector::Name("I".into()).select(&adapters).unwrap_err().to_string();
        assert_eq!(
            err,
            "--device 'I': 2 adapters match (0: NVIDIA H100 80GB HBM3; 1: llvmpipe (LLVM 15.0.6, 256 bits)); give more of the name, the index or luid:HIGH-LOW"
        );
        let err = DeviceSelector::Name("radeon".into()).select(&adapters).unwrap_err().to_string();
        assert!(
            err.starts_with("--device 'radeon': no DirectML adapter matches; the adapters are: 0: NVIDIA H100"),
            "{err}"
        );
        assert!(err.contains("(LUID 00000000-0000E0A4)"), "{err}");
        let err = DeviceSelector::Luid { high: 0, low: 1 }.select(&adapters).unwrap_err().to_string();
        assert!(err.starts_with("--device luid:00000000-00000001: no DirectML adapter matches"), "{err}");
    }

    #[cfg(not(windows))]
    #[test]
    fn a_name_cannot_be_looked_up_without_dxgi() {
        let err = DeviceSelector::Name("h100".into()).resolve().unwrap_err().to_string();
        assert!(err.starts_with("--device 'h100': DirectML adapters exist only on Windows"), "{err}");
        assert_eq!(DeviceSelector::Index(3).resolve().unwrap(), 3);
    }

    #[test]
    fn a_removed_device_and_its_reasons_are_named() {
        let ort = r"DmlCommandRecorder.cpp(373)\onnxruntime.dll!00007FF9: Exception(2) tid(1f) 887A0005 The GPU device instance has been suspended.";
        assert!(named_hresult_in(ort).unwrap().contains("DXGI_ERROR_DEVICE_REMOVED"));
        assert!(describe_hresult(0x887A0006, "").contains("DXGI_ERROR_DEVICE_HUNG"));
        assert!(describe_hresult(0x887A0007, "").contains("DXGI_ERROR_DEVICE_RESET"));
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
