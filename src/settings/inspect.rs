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
        Ok(InfoSettings { model: model_in(&args.model)?, json: args.json.clone(), full_metadata: args.full_metadata })
    }
}

/// The model file `info` reads: the path given, or in a genai folder the decoder its
/// genai_config.json names; any other folder is refused naming the models in it.
fn model_in(path: &std::path::Path) -> Result<PathBuf> {
    if !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    if path.join("genai_config.json").is_file() {
        return Ok(crate::generate::config::from_genai_folder(path)?.model);
    }
    let mut models: Vec<String> = std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.path().to_str().map(str::to_string))
                .filter(|p| p.ends_with(".onnx"))
                .collect()
        })
        .unwrap_or_default();
    models.sort();
    match models.as_slice() {
        [] => anyhow::bail!("model {}: is a folder with no .onnx file in it; give a model file", path.display()),
        [one] => anyhow::bail!("model {}: is a folder; give the model file in it: dmlrun info {one}", path.display()),
        many => anyhow::bail!("model {}: is a folder; give one of its models: {}", path.display(), many.join(", ")),
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
