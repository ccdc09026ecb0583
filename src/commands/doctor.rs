//! `dmlrun doctor`: which ONNX Runtime is loaded, from where, and what it offers.

use anyhow::Result;

use crate::exit::ExitStatus;
use serde_json::json;

use crate::cli::DoctorArgs;
use crate::runtime::plan::DML_PROVIDER;
use crate::runtime::session;
use crate::settings::LookSettings;

pub fn execute(args: &DoctorArgs) -> Result<ExitStatus> {
    doctor(&LookSettings::resolve(&args.ort, &args.json)?)
}

fn doctor(settings: &LookSettings) -> Result<ExitStatus> {
    let runtime = settings.ort.load()?;
    let lib = &runtime.library;
    let directml = runtime.has_provider(DML_PROVIDER) && session::directml_api_present();
    let adapters = crate::runtime::adapters::list_adapters();
    let wine = crate::runtime::wine::wine_version();
    if let Some(path) = &settings.json {
        let value = json!({
            "dmlrun_version": env!("CARGO_PKG_VERSION"),
            "wine": wine,
            "onnxruntime": lib,
            "directml_available": directml,
            "adapters": adapters.as_ref().ok(),
            "adapters_error": adapters.as_ref().err().map(|e| e.to_string()),
        });
        if crate::report::write_json(path, &value, "--json")? {
            return Ok(ExitStatus::Success);
        }
    }
    crate::outln!("dmlrun        {}", env!("CARGO_PKG_VERSION"));
    if let Some(version) = &wine {
        crate::outln!("wine          {version} (a Windows build running under Wine, not Windows)");
    }
    crate::outln!("onnxruntime   {}", lib.version);
    crate::outln!("library       {} ({})", lib.path.display(), lib.source.describe());
    crate::outln!("providers     {}", lib.providers.join(", "));
    crate::outln!(
        "directml      {}",
        if directml {
            "available"
        } else {
            "not available (DirectML needs Windows and the onnxruntime-directml build)"
        }
    );
    match adapters {
        Ok(list) => {
            for a in list {
                crate::outln!("adapter {:>2}    {}{}", a.index, a.name, if a.software { " (software)" } else { "" });
            }
        }
        Err(e) => crate::outln!("adapters      {e}"),
    }
    Ok(ExitStatus::Success)
}
