//! Facts about the machine and this process for benchmark reports: OS, CPU, peak resident
//! memory, and (on Windows) the GPU memory DXGI says is in use.

use serde::Serialize;

#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Machine {
    pub os: String,
    pub arch: String,
    pub cpu: Option<String>,
    pub logical_cores: usize,
    /// The Wine version when a Windows build runs under Wine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wine: Option<String>,
}

/// What machine this is.
pub fn machine() -> Machine {
    Machine {
        os: std::env::consts::OS.to_string(),
        arch: std::env::consts::ARCH.to_string(),
        cpu: cpu_model(),
        logical_cores: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        wine: crate::runtime::wine::wine_version(),
    }
}

#[cfg(target_os = "linux")]
fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

#[cfg(not(target_os = "linux"))]
fn cpu_model() -> Option<String> {
    None
}

/// Starts a new peak of the resident set size, so that the next [`peak_rss_bytes`] covers what
/// came after: Linux resets VmHWM to the current size (`clear_refs` 5). Windows has no such
/// reset; `false` there and wherever the reset fails.
pub fn reset_peak_rss() -> bool {
    #[cfg(target_os = "linux")]
    {
        std::fs::write("/proc/self/clear_refs", b"5").is_ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// The process's peak resident set size in bytes (VmHWM on Linux, PeakWorkingSetSize on Windows).
#[cfg(target_os = "linux")]
pub fn peak_rss_bytes() -> Option<u64> {
    proc_status_kib("VmHWM:").map(|k| k * 1024)
}

#[cfg(target_os = "linux")]
fn proc_status_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status_kib(&status, key)
}

#[cfg(target_os = "linux")]
fn status_kib(status: &str, key: &str) -> Option<u64> {
    status.lines().find(|l| l.starts_with(key))?.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(windows)]
fn process_memory() -> Option<windows::Win32::System::ProcessStatus::PROCESS_MEMORY_COUNTERS> {
    use windows::Win32::System::ProcessStatus::{GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS};
    use windows::Win32::System::Threading::GetCurrentProcess;
    let mut counters = PROCESS_MEMORY_COUNTERS::default();
    let size = std::mem::size_of::<PROCESS_MEMORY_COUNTERS>() as u32;
    // SAFETY: the pseudo-handle of the current process is always valid; `counters` is a properly
    // sized, writable struct whose size we pass.
    unsafe { GetProcessMemoryInfo(GetCurrentProcess(), &mut counters, size) }.ok()?;
    Some(counters)
}

#[cfg(windows)]
pub fn peak_rss_bytes() -> Option<u64> {
    process_memory().map(|c| c.PeakWorkingSetSize as u64)
}

#[cfg(not(any(target_os = "linux", windows)))]
pub fn peak_rss_bytes() -> Option<u64> {
    None
}

/// The process's resident set size now, in bytes (VmRSS on Linux, WorkingSetSize on Windows).
#[cfg(target_os = "linux")]
pub fn rss_bytes() -> Option<u64> {
    proc_status_kib("VmRSS:").map(|k| k * 1024)
}

#[cfg(windows)]
pub fn rss_bytes() -> Option<u64> {
    process_memory().map(|c| c.WorkingSetSize as u64)
}

#[cfg(not(any(target_os = "linux", windows)))]
pub fn rss_bytes() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    // Both values come from one read of the status file: other tests run on other threads of
    // this process, so two reads can see the resident set grow in between.
    #[cfg(target_os = "linux")]
    #[test]
    fn peak_rss_is_at_least_current() {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let peak = super::status_kib(&status, "VmHWM:").unwrap();
        let current = super::status_kib(&status, "VmRSS:").unwrap();
        assert!(peak >= current && current > 0, "VmHWM {peak} KiB, VmRSS {current} KiB");
        assert!(super::peak_rss_bytes().unwrap() >= peak * 1024);
    }
}
