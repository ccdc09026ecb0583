//! The settings of the commands that only look: `info`, `devices`, `doctor`.

use super::*;

/// `dmlrun info`'s flags.
#[derive(Debug, Clone)]
pub struct InfoSettings {
    pub model: PathBuf,
    pub json: Option<PathBuf>,
    /// `--full-metadata`: metadata values whole, not shortened.
    pub full_metadata: bool,
}

/// `dmlrun devices`' and `dmlrun doctor`'s flags: the runtime they look at, and where the JSON
/// goes.
#[derive(Debug, Clone)]
pub struct LookSettings {
    pub ort: OrtSettings,
    /// The user named the ONNX Runtime or a plugin EP library: not finding it is the answer.
    pub named_library: bool,
    pub json: Option<PathBuf>,
}

impl InfoSettings {
    pub fn resolve(args: &InfoArgs) -> Result<InfoSettings> {
        check_json(args.json.as_deref())?;
        Ok(InfoSettings { model: args.model.clone(), json: args.json.clone(), full_metadata: args.full_metadata })
    }
}

impl LookSettings {
    pub fn resolve(ort: &OrtArgs, json: &Option<PathBuf>) -> Result<LookSettings> {
        check_json(json.as_deref())?;
        Ok(LookSettings {
            ort: OrtSettings::of(ort),
            named_library: ort.ort_lib.is_some() || !ort.ep_libraries.is_empty(),
            json: json.clone(),
        })
    }
}
