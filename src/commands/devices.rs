//! `dmlrun devices`: the DXGI adapters DirectML can use.

use anyhow::Result;

use crate::exit::ExitStatus;

use crate::cli::DevicesArgs;
use crate::runtime::adapters::{list_adapters, vendor_name};

pub fn execute(args: &DevicesArgs) -> Result<ExitStatus> {
    let adapters = match list_adapters() {
        Ok(list) => list,
        // Not a failure of this command: the honest answer on this platform is "none".
        Err(e) if !cfg!(windows) => {
            let empty: Vec<crate::runtime::adapters::Adapter> = Vec::new();
            match &args.json {
                Some(path) if crate::report::write_json(path, &empty, "--json")? => crate::errln!("dmlrun: {e}"),
                _ => crate::outln!("{e}"),
            }
            return Ok(ExitStatus::Success);
        }
        Err(e) => return Err(e),
    };
    if let Some(path) = &args.json {
        if crate::report::write_json(path, &adapters, "--json")? {
            return Ok(ExitStatus::Success);
        }
    }
    if adapters.is_empty() {
        crate::outln!("no DXGI adapters found");
        return Ok(ExitStatus::Success);
    }
    crate::outln!(
        "The index is DirectML's device_id (IDXGIFactory::EnumAdapters order): --device INDEX; --device NAME and --device luid:HIGH-LOW pick the same adapter by name or LUID."
    );
    for a in &adapters {
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
    Ok(ExitStatus::Success)
}
