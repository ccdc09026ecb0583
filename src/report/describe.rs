//! Words several reports say alike: the adapter memory DirectML used, a byte count, the device
//! IO of `--io-on-device`.

/// `local 1.2 GiB before the session, 1.5 GiB after, 1.6 GiB peak in timed runs; non-local ...`
pub fn describe_gpu_memory(memory: &crate::runtime::engine::GpuMemory) -> String {
    let phases = |pick: fn(&crate::runtime::adapters::VideoMemory) -> u64| {
        let mut parts = vec![format!("{} before the session", bytes(pick(&memory.before_session)))];
        if let Some(after) = &memory.after_session {
            parts.push(format!("{} after", bytes(pick(after))));
        }
        if let Some(peak) = &memory.peak_timed_runs {
            parts.push(format!("{} peak in timed runs", bytes(pick(peak))));
        }
        parts.join(", ")
    };
    let note = memory.note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
    format!(
        "adapter {}: local {}; non-local {}{note}",
        memory.adapter,
        phases(|m| m.local_bytes),
        phases(|m| m.non_local_bytes)
    )
}

/// Bytes in binary units with one decimal: `512 B`, `3.4 MiB`, `1.2 GiB`.
fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// The copies `--io-on-device` took out of the timed runs, and its check of the outputs.
pub fn describe_device_io(io: &crate::runtime::engine::DeviceIo) -> String {
    let download = io.download_ms.map_or_else(|| "not measured".to_string(), |d| format!("{d:.3} ms"));
    let check = if io.outputs_match() {
        format!(
            "all {} equal {} (rtol {:e}, atol {:e})",
            io.outputs_checked, io.checked_against, io.tolerance.rtol, io.tolerance.atol
        )
    } else {
        format!("{} of {} DIFFER from {}", io.mismatches.len(), io.outputs_checked, io.checked_against)
    };
    format!(
        "inputs and outputs on the device: upload {:.3} ms (median of {} binds), download {download} (a run with the outputs to the host, median {:.3} ms, minus the timed p50); outputs: {check}",
        io.upload_ms, io.upload_binds, io.host_output_run_ms
    )
}
