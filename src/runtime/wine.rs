//! The Windows build under Wine: knowing that it is there, the AMX tiles ONNX Runtime's int8
//! kernels need from Linux (`allow_amx_tiles`), and the two things Wine's Direct3D 12 (vkd3d)
//! needs before DirectML starts on it. On Windows every function here does nothing.
//!
//! 1. `winevulkan.dll` kept loaded: vkd3d loads and frees it as devices come and go; once the
//!    last reference goes while vkd3d's threads still use it, the process crashes at exit after
//!    printing correct results (and a default Wine prefix then hangs in its debugger).
//! 2. 64-bit integer shader operations hidden from DirectML: vkd3d 1.6 (Wine 8) reports
//!    `Int64ShaderOps` on a device of shader model 5.1, but 64-bit integer operations exist only
//!    in shader model 6 (DXIL), which it cannot compile. DirectML believes the flag and hands it
//!    DXIL shaders for every int64 operator (the `Cast` of a decoder's attention mask, for one):
//!    vkd3d logs `Skipping DXIL shader model 6+ code chunk`, pipeline creation fails, and DirectML
//!    says `80070057 Invalid parameter`. Told the truth, DirectML emulates int64 with 32-bit
//!    operations in the shaders vkd3d compiles. The flag is corrected in the one place DirectML
//!    reads it, vkd3d's `CheckFeatureSupport`, only while the shader model says it cannot hold.

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

/// Under Wine, why DXGI lists one adapter however many GPUs the machine has, and how another
/// GPU is chosen: Wine's wined3d makes its one adapter from the first Vulkan device
/// (`get_vulkan_physical_device` in `dlls/wined3d/adapter_vk.c`), so the choice is made below
/// it, in the Vulkan loader's device order (docs/gpu.md, "Two GPUs").
pub fn one_adapter_note() -> Option<String> {
    wine_version().map(|v| {
        format!(
            "under Wine {v} DXGI lists one adapter, the first Vulkan device; to use another GPU, let Mesa's device-select layer put it first (DRI_PRIME=N for the N-th other one) and keep --device 0 (docs/gpu.md, \"Two GPUs\")"
        )
    })
}

/// How many DirectML sessions one process may open under Wine before the next fails. On the
/// H100s (Wine 8, vkd3d 1.6, NVIDIA's driver 580) the 15th session's DXGI factory in a process
/// fails with 887A0004, whatever the model, with one GPU visible or two (docs/gpu.md, "Two
/// GPUs"); lavapipe runs 100 in one. Work that opens a session per item starts a fresh process
/// before this many; `None` on Windows and elsewhere.
pub fn directml_sessions_per_process() -> Option<usize> {
    wine_version().map(|_| 10)
}

/// Under Wine on Linux, asks the kernel for the AMX tile state ONNX Runtime's int8 kernels use
/// (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`, once per process). Linux gives a process
/// the tiles only on that request; ONNX Runtime's Windows build, seeing them in the CPU's and the
/// OS's feature bits, never asks, and its first `tileloadd` (a quantized `QLinearConv` or
/// `MatMulInteger` on the CPU EP, on a CPU with AMX) dies of an illegal instruction. On a CPU
/// without AMX the kernel refuses the request, and nothing changes.
pub fn allow_amx_tiles() {
    static ASKED: std::sync::Once = std::sync::Once::new();
    ASKED.call_once(|| {
        if wine_version().is_some() {
            imp::allow_amx_tiles();
        }
    });
}

/// Under Wine, readies its Direct3D 12 for DirectML (once per process; see the module's text)
/// and says what was changed in it, for the report; `None` on Windows and elsewhere.
pub fn prepare_direct3d12() -> Option<String> {
    static PREPARED: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    PREPARED.get_or_init(|| wine_version().and_then(|_| imp::prepare())).clone()
}

#[cfg(not(windows))]
mod imp {
    pub fn prepare() -> Option<String> {
        None
    }

    pub fn allow_amx_tiles() {}
}

#[cfg(windows)]
mod imp {
    use std::ffi::c_void;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use windows::core::{s, w, GUID, HRESULT};
    use windows::Win32::System::LibraryLoader::{GetProcAddress, LoadLibraryW};
    use windows::Win32::System::Memory::{VirtualProtect, PAGE_PROTECTION_FLAGS, PAGE_READWRITE};

    const IID_ID3D12_DEVICE: GUID = GUID::from_u128(0x189819f1_1db6_4b57_be54_1821339b85f7);
    const D3D_FEATURE_LEVEL_11_0: i32 = 0xb000;
    const D3D12_FEATURE_SHADER_MODEL: i32 = 7;
    const D3D12_FEATURE_D3D12_OPTIONS1: i32 = 8;
    const D3D_SHADER_MODEL_6_0: i32 = 0x60;
    /// `ID3D12Device`'s vtable: IUnknown (3), ID3D12Object (4), then GetNodeCount,
    /// CreateCommandQueue, CreateCommandAllocator, CreateGraphicsPipelineState,
    /// CreateComputePipelineState, CreateCommandList, CheckFeatureSupport.
    const RELEASE_SLOT: usize = 2;
    const CHECK_FEATURE_SUPPORT_SLOT: usize = 13;

    /// `D3D12_FEATURE_DATA_D3D12_OPTIONS1`.
    #[repr(C)]
    #[derive(Default)]
    struct Options1 {
        wave_ops: i32,
        wave_lane_count_min: u32,
        wave_lane_count_max: u32,
        total_lane_count: u32,
        expanded_compute_resource_states: i32,
        int64_shader_ops: i32,
    }

    type CreateDevice = unsafe extern "system" fn(*mut c_void, i32, *const GUID, *mut *mut c_void) -> HRESULT;
    type CheckFeatureSupport = unsafe extern "system" fn(*mut c_void, i32, *mut c_void, u32) -> HRESULT;
    type Release = unsafe extern "system" fn(*mut c_void) -> u32;

    /// vkd3d's own `CheckFeatureSupport`, which the corrected one calls.
    static VKD3D_CHECK_FEATURE_SUPPORT: AtomicUsize = AtomicUsize::new(0);

    unsafe extern "system" fn check_feature_support(
        device: *mut c_void,
        feature: i32,
        data: *mut c_void,
        size: u32,
    ) -> HRESULT {
        // SAFETY: set to vkd3d's function before this one is put in the vtable.
        let vkd3d: CheckFeatureSupport =
            unsafe { std::mem::transmute(VKD3D_CHECK_FEATURE_SUPPORT.load(Ordering::Acquire)) };
        // SAFETY: the caller's arguments, passed on as they came.
        let hr = unsafe { vkd3d(device, feature, data, size) };
        if hr.is_ok() && feature == D3D12_FEATURE_D3D12_OPTIONS1 && size as usize >= std::mem::size_of::<Options1>() {
            // SAFETY: vkd3d just filled this D3D12_FEATURE_DATA_D3D12_OPTIONS1 of `size` bytes.
            unsafe { (*data.cast::<Options1>()).int64_shader_ops = 0 };
        }
        hr
    }

    /// `arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)` as the Linux syscall it is: Wine
    /// runs a Windows program's code as a Linux process's, and passes a `syscall` instruction it
    /// does not dispatch itself to the kernel.
    pub fn allow_amx_tiles() {
        const SYS_ARCH_PRCTL: i64 = 158;
        const ARCH_REQ_XCOMP_PERM: i64 = 0x1023;
        const XFEATURE_XTILEDATA: i64 = 18;
        // SAFETY: a Linux syscall that changes only which xsave features this process may use;
        // the kernel clobbers rcx and r11 and returns in rax (refused or not, nothing to do).
        unsafe {
            std::arch::asm!(
                "syscall",
                inlateout("rax") SYS_ARCH_PRCTL => _,
                in("rdi") ARCH_REQ_XCOMP_PERM,
                in("rsi") XFEATURE_XTILEDATA,
                lateout("rcx") _,
                lateout("r11") _,
                options(nostack),
            );
        }
    }

    pub fn prepare() -> Option<String> {
        // SAFETY: loading system DLLs by name; the handles are deliberately never freed, so
        // winevulkan outlives vkd3d's threads and the patched vtable outlives every device.
        let d3d12 = unsafe {
            let _ = LoadLibraryW(w!("winevulkan.dll"));
            LoadLibraryW(w!("d3d12.dll")).ok()?
        };
        // SAFETY: D3D12CreateDevice has this signature; a null adapter is the default one.
        let device = unsafe {
            let create: CreateDevice = std::mem::transmute(GetProcAddress(d3d12, s!("D3D12CreateDevice"))?);
            let mut device = std::ptr::null_mut();
            create(std::ptr::null_mut(), D3D_FEATURE_LEVEL_11_0, &IID_ID3D12_DEVICE, &mut device).ok().ok()?;
            device
        };
        // SAFETY: `device` is a live ID3D12Device; its first field is its vtable.
        let vtable = unsafe { *device.cast::<*mut usize>() };
        let vkd3d: CheckFeatureSupport = unsafe { std::mem::transmute(*vtable.add(CHECK_FEATURE_SUPPORT_SLOT)) };
        let mut shader_model = D3D_SHADER_MODEL_6_0;
        let mut options1 = Options1::default();
        // SAFETY: the two feature queries with their own data structures.
        let (model_hr, options_hr) = unsafe {
            (
                vkd3d(device, D3D12_FEATURE_SHADER_MODEL, (&mut shader_model as *mut i32).cast(), 4),
                vkd3d(
                    device,
                    D3D12_FEATURE_D3D12_OPTIONS1,
                    (&mut options1 as *mut Options1).cast(),
                    std::mem::size_of::<Options1>() as u32,
                ),
            )
        };
        let contradictory = model_hr.is_ok()
            && options_hr.is_ok()
            && shader_model < D3D_SHADER_MODEL_6_0
            && options1.int64_shader_ops != 0;
        let note = contradictory.then(|| patch(vtable, vkd3d)).flatten().map(|()| {
            format!(
                "Wine's Direct3D 12 reports 64-bit integer shader ops at shader model {}.{}, which has none; \
                 dmlrun tells DirectML it has none, so DirectML emulates them in shaders vkd3d compiles",
                shader_model >> 4,
                shader_model & 0xf
            )
        });
        // SAFETY: the reference D3D12CreateDevice gave us.
        unsafe {
            let release: Release = std::mem::transmute(*vtable.add(RELEASE_SLOT));
            release(device);
        }
        note
    }

    /// Puts the corrected `CheckFeatureSupport` in the vtable every vkd3d device shares.
    fn patch(vtable: *mut usize, vkd3d: CheckFeatureSupport) -> Option<()> {
        VKD3D_CHECK_FEATURE_SUPPORT.store(vkd3d as *const () as usize, Ordering::Release);
        let slot = unsafe { vtable.add(CHECK_FEATURE_SUPPORT_SLOT) };
        let mut old = PAGE_PROTECTION_FLAGS(0);
        // SAFETY: the slot lies in d3d12.dll's read-only data, made writable for this one store
        // and then given its protection back; d3d12.dll stays loaded for the process.
        unsafe {
            VirtualProtect(slot.cast(), std::mem::size_of::<usize>(), PAGE_READWRITE, &mut old).ok()?;
            slot.write(check_feature_support as *const () as usize);
            let _ = VirtualProtect(slot.cast(), std::mem::size_of::<usize>(), old, &mut old);
        }
        Some(())
    }
}
