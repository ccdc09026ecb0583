//! Everything that touches ONNX Runtime: loading the library, the environment and its logger,
//! the execution providers on offer, and building sessions from a [`plan::SessionPlan`].

pub mod adapters;
pub mod engine;
pub mod ep_devices;
pub mod library;
pub mod placement;
pub mod plan;
pub mod profile;
pub mod session;
pub mod values;
pub mod wine;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use serde::Serialize;

pub use library::LibrarySource;
pub use plan::OrtLogLevel;

/// The loaded ONNX Runtime: where it came from, what it is, what it offers.
pub struct Runtime {
    pub library: LibraryInfo,
    /// Held for the life of the process: sessions borrow it.
    pub environment: ort::environment::Environment,
    /// The plugin EP libraries registered with `--ep-library`, in order.
    pub ep_libraries: Vec<ep_devices::EpLibrary>,
    /// ONNX Runtime's EP devices once those libraries are registered.
    pub ep_devices: Vec<ep_devices::EpDevice>,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct LibraryInfo {
    pub path: PathBuf,
    pub source: LibrarySource,
    pub version: String,
    pub providers: Vec<String>,
}

static LOG_THRESHOLD: AtomicU8 = AtomicU8::new(OrtLogLevel::Warning as u8);

fn level_rank(level: ort::logging::LogLevel) -> u8 {
    use ort::logging::LogLevel as L;
    match level {
        L::Verbose => OrtLogLevel::Verbose as u8,
        L::Info => OrtLogLevel::Info as u8,
        L::Warning => OrtLogLevel::Warning as u8,
        L::Error => OrtLogLevel::Error as u8,
        L::Fatal => OrtLogLevel::Fatal as u8,
    }
}

impl Runtime {
    /// Finds and loads ONNX Runtime, and creates the process's one environment.
    ///
    /// ONNX Runtime's own log lines at `log_level` or above go to stderr, prefixed `onnxruntime:`.
    /// The plugin EP libraries are registered with the environment before anything else.
    pub fn load(
        ort_lib: Option<&Path>,
        log_level: OrtLogLevel,
        ep_libraries: &[ep_devices::EpLibraryRequest],
    ) -> Result<Runtime> {
        // Before ONNX Runtime's first int8 kernel could run (wine.rs says why).
        wine::allow_amx_tiles();
        let (path, source) = library::locate(ort_lib)?;
        let version = library::read_version(&path)?;
        library::check_version(&version, &path)?;
        LOG_THRESHOLD.store(log_level as u8, Ordering::Relaxed);
        let logger: ort::logging::LoggerFunction = Arc::new(|level, category, id, location, message| {
            if location.contains(placement::LOG_LOCATION) {
                placement::feed_log(id, message);
            }
            let threshold = LOG_THRESHOLD.load(Ordering::Relaxed);
            // ONNX Runtime warns on every run where HOME is not writable (its telemetry device ID
            // goes unsaved): nothing a user can act on, so said only from --ort-log-level info.
            let noise = location.contains("telemetry") && threshold > OrtLogLevel::Info as u8;
            if level_rank(level) >= threshold && !noise {
                crate::errln!("onnxruntime: [{level:?}] {category} {location}: {message}");
            }
        });
        let environment = ort::init_from(&path)
            .map_err(|e| anyhow::anyhow!("loading ONNX Runtime from {}: {e}", path.display()))?
            .with_name("dmlrun")
            .with_logger(logger)
            .build()
            .map_err(|e| anyhow::anyhow!("creating the ONNX Runtime environment: {e}"))?;
        let providers = available_providers().context("asking ONNX Runtime for its execution providers")?;
        crate::interrupt::on_interrupt(engine::stop_runs);
        let ep_libraries = ep_devices::register(&environment, ep_libraries)?;
        let ep_devices = ep_devices::list(&environment, &ep_libraries);
        Ok(Runtime { library: LibraryInfo { path, source, version, providers }, environment, ep_libraries, ep_devices })
    }

    /// What the plan may choose from.
    pub fn offered(&self) -> plan::Offered<'_> {
        plan::Offered {
            providers: &self.library.providers,
            ep_devices: &self.ep_devices,
            ep_libraries: &self.ep_libraries,
        }
    }

    pub fn has_provider(&self, name: &str) -> bool {
        self.library.providers.iter().any(|p| p == name)
    }
}

/// ONNX Runtime's `GetAvailableProviders`: the execution providers compiled into the library.
/// An ONNX Runtime C API status as a result: its message when it is an error, which is
/// released here.
///
/// # Safety
/// `status` must come from a call through `ort::api()` and not have been released.
pub(crate) unsafe fn status_result(status: ort::sys::OrtStatusPtr) -> std::result::Result<(), String> {
    if status.0.is_null() {
        return Ok(());
    }
    let api = ort::api();
    // SAFETY: a live status from the API, released exactly once here.
    unsafe {
        let message = c_string((api.GetErrorMessage)(status.0));
        (api.ReleaseStatus)(status.0);
        Err(message)
    }
}

fn available_providers() -> Result<Vec<String>> {
    let api = ort::api();
    let mut names: *mut *mut std::ffi::c_char = std::ptr::null_mut();
    let mut count: std::ffi::c_int = 0;
    // SAFETY: the API table comes from the loaded library; the function fills in an array of
    // `count` C strings that we copy and then release with the matching call.
    unsafe {
        let status = (api.GetAvailableProviders)(&mut names, &mut count);
        if !status.0.is_null() {
            let message = c_string((api.GetErrorMessage)(status.0));
            (api.ReleaseStatus)(status.0);
            anyhow::bail!("{message}");
        }
        let providers = (0..count.max(0) as usize).map(|i| c_string(*names.add(i))).collect();
        let status = (api.ReleaseAvailableProviders)(names, count);
        if !status.0.is_null() {
            (api.ReleaseStatus)(status.0);
        }
        Ok(providers)
    }
}

/// # Safety
/// `ptr` must be null or point to a NUL-terminated string.
unsafe fn c_string(ptr: *const std::ffi::c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: guaranteed by the caller.
    unsafe { std::ffi::CStr::from_ptr(ptr) }.to_string_lossy().into_owned()
}
