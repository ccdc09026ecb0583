//! DirectML's adapter memory as a run goes on (DXGI `QueryVideoMemoryInfo`).

use serde::{Deserialize, Serialize};

use crate::runtime::adapters::{VideoMemory, VideoMemoryProbe};
use crate::runtime::plan::SessionPlan;

/// DirectML's adapter memory for this process in three phases of a run (DXGI
/// `QueryVideoMemoryInfo`): what the model and its session cost on the GPU.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GpuMemory {
    /// The adapter read (DirectML's `device_id`).
    pub adapter: u32,
    pub before_session: VideoMemory,
    pub after_session: Option<VideoMemory>,
    /// The largest reading between timed runs (one reading after each).
    pub peak_timed_runs: Option<VideoMemory>,
    /// Why the figures may not be DirectML's use (under Wine).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub note: Option<String>,
}

/// Reads [`GpuMemory`] as a run goes on.
pub struct GpuMemoryTracker {
    pub memory: GpuMemory,
    probe: VideoMemoryProbe,
}

impl GpuMemoryTracker {
    /// Starts tracking when the plan runs DirectML on an adapter DXGI can be asked about.
    pub(super) fn start(plan: &SessionPlan) -> Option<GpuMemoryTracker> {
        let adapter = plan.device_id()?;
        let probe = VideoMemoryProbe::open(adapter)?;
        let before_session = probe.read()?;
        Some(GpuMemoryTracker {
            memory: GpuMemory {
                adapter,
                before_session,
                after_session: None,
                peak_timed_runs: None,
                // Seen with Wine 8 on lavapipe and on NVIDIA's driver: its DXGI answers, with 0
                // bytes whatever Direct3D 12 (vkd3d) allocates.
                note: crate::runtime::wine::wine_version().map(|v| {
                    format!(
                        "under Wine {v}, DXGI's QueryVideoMemoryInfo does not count Direct3D 12 (vkd3d) allocations"
                    )
                }),
            },
            probe,
        })
    }

    pub(super) fn session_created(&mut self) {
        self.memory.after_session = self.probe.read();
    }

    /// One reading between timed runs, kept if it is the largest so far.
    /// A probe of the same adapter, to read it where the session is borrowed (between a
    /// generation's steps).
    pub fn probe(&self) -> VideoMemoryProbe {
        self.probe.clone()
    }

    pub fn sample(&mut self) {
        if let Some(now) = self.probe.read() {
            self.memory.peak_timed_runs = Some(self.memory.peak_timed_runs.map_or(now, |p| p.max(now)));
        }
    }
}
