//! A model as a session ran it, written to ship (`run --save-model`, `test` and `bench
//! --save-models`): the bytes dmlrun made or the user's own, with the record of what was done.

use std::path::Path;

use anyhow::{Context, Result};

use super::precision::QuantizedModel;
use super::{PrecisionReport, Preflight, RewriteReport};
use crate::graph::Quantization;

/// The model a run's session ran, as a file to ship: the one dmlrun made (rewritten, converted to
/// float16) or the user's own, with `dmlrun.*` metadata_props saying what was done and how far
/// its outputs are from the original's on the reference EP. Its free dimensions stay as the file
/// had them (a session fixes them through its options, not in the graph), unless `fixed_dims`
/// (`--save-fixed-dims`): then the graph's inputs and outputs carry the sizes the session was
/// given, for an application that sets no free-dimension overrides of its own.
///
/// A model dmlrun did not change keeps its external data references as they are, relative to
/// the model's own folder: write it with `onnx_proto::write_model_from` and that folder, which
/// copies the data beside the written model.
pub fn saved_model(
    model_path: &Path,
    preflight: &Preflight,
    made: Option<&[u8]>,
    rewrite: Option<&RewriteReport>,
    precision: Option<&PrecisionReport>,
    fixed_dims: bool,
) -> Result<Vec<u8>> {
    let bytes = match made {
        Some(bytes) => bytes.to_vec(),
        None => std::fs::read(model_path).with_context(|| format!("reading {}", model_path.display()))?,
    };
    let plan = &preflight.plan;
    let mut entries = record(model_path, preflight, precision.and_then(|p| p.quantization.as_ref()));
    // The largest difference from the original's outputs, where dmlrun measured one: the
    // conversion's (which includes the rewrites before it), else the rewrites'.
    let measured = match (precision, rewrite) {
        (Some(p), _) => Some((&p.outputs, p.float32_on.describe())),
        (None, Some(r)) => r.compared_on.as_ref().map(|on| (&r.outputs, on.describe())),
        (None, None) => None,
    };
    if let Some((outputs, on)) = measured {
        let largest = outputs.iter().map(|o| o.max_abs).fold(0.0_f64, f64::max);
        entries.push(("dmlrun.max_abs_diff".to_string(), format!("{largest:e} against the original on {on}")));
    }
    let bytes = match fixed_dims {
        true => {
            use crate::runtime::plan::DimKey;
            let of = |by: DimKey| -> Vec<(String, i64)> {
                plan.dimension_overrides.iter().filter(|o| o.by == by).map(|o| (o.key.clone(), o.value)).collect()
            };
            let (by_name, by_denotation) = (of(DimKey::Name), of(DimKey::Denotation));
            let dims = crate::formats::onnx_proto::FixedDims {
                by_name: &by_name,
                by_denotation: &by_denotation,
                shapes: &plan.input_shapes,
            };
            let (bytes, count) = crate::formats::onnx_proto::with_fixed_dims(&bytes, &dims)
                .with_context(|| format!("{}", model_path.display()))?;
            let sizes: Vec<String> = by_name
                .iter()
                .chain(&by_denotation)
                .map(|(k, v)| format!("{k}={v}"))
                .chain(plan.input_shapes.iter().map(|(input, shape)| {
                    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
                    format!("{input}:{}", dims.join("x"))
                }))
                .collect();
            entries.push(("dmlrun.fixed_dims".to_string(), format!("{count} dimensions fixed: {}", sizes.join(", "))));
            bytes
        }
        false => bytes,
    };
    crate::formats::onnx_proto::with_metadata(&bytes, "dmlrun.", &entries)
        .with_context(|| format!("{}", model_path.display()))
}

/// The `dmlrun.*` metadata_props of a model dmlrun wrote: its version, the source model, the
/// rewrites and the precision, and (int4, int8) what was quantized and what left, and why. A
/// source dmlrun wrote before keeps what its record said was done to it (`fix` of an int4 model
/// it made stays `int4`, not `fp32`): the rewrites add up, and a precision this run did not
/// change is carried.
fn record(model_path: &Path, preflight: &Preflight, quantization: Option<&Quantization>) -> Vec<(String, String)> {
    use crate::runtime::plan::Precision;
    let sha: String = preflight.model.sha256.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let name = model_path.file_name().map_or_else(String::new, crate::fsutil::escaped);
    let plan = &preflight.plan;
    let earlier = |key: &str| preflight.model.info.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let before = earlier("dmlrun.rewrites").filter(|r| r != "none");
    let added =
        plan.rewrites.iter().map(|r| r.flag()).filter(|f| !before.as_ref().is_some_and(|b| b.contains(f.as_str())));
    let rewrites: Vec<String> = before.clone().into_iter().chain(added).collect();
    let precision = match (plan.precision, earlier("dmlrun.precision")) {
        (Precision::Fp32, Some(before)) => before,
        (precision, _) => precision.to_string(),
    };
    let mut entries = vec![
        ("dmlrun.version".to_string(), env!("CARGO_PKG_VERSION").to_string()),
        ("dmlrun.source".to_string(), format!("{name} (sha256 {sha}...)")),
        ("dmlrun.rewrites".to_string(), if rewrites.is_empty() { "none".into() } else { rewrites.join(" ") }),
        ("dmlrun.precision".to_string(), precision),
    ];
    match (quantization, earlier("dmlrun.quantization")) {
        (Some(q), _) => entries.push(("dmlrun.quantization".to_string(), q.describe())),
        (None, Some(before)) if plan.precision == Precision::Fp32 => {
            entries.push(("dmlrun.quantization".to_string(), before))
        }
        (None, _) => {}
    }
    entries
}

/// The files of a model folder (onnxruntime-genai's) that travel with a decoder written anew:
/// its configuration, tokenizer and chat template; never another model or data file.
fn travels_with_decoder(file: &Path) -> bool {
    let extension = file.extension().and_then(|e| e.to_str()).unwrap_or_default();
    matches!(extension, "json" | "jinja" | "txt" | "model" | "tiktoken")
}

/// `generate --save-model DIR`: the decoder its session ran (its weights quantized) written as a
/// model folder beside nothing else: the model under the source's file name with its data, the
/// source folder's configuration and tokenizer files, and the `dmlrun.*` record in the model.
/// Written into a temporary folder beside DIR and renamed to it whole. Returns the files.
pub fn save_decoder(
    made: &QuantizedModel,
    model_path: &Path,
    preflight: &Preflight,
    dir: &Path,
) -> Result<Vec<std::path::PathBuf>> {
    let staging = crate::fsutil::temp_dir_beside(dir, ".dmlrun-save-model-")
        .with_context(|| format!("--save-model {}", dir.display()))?;
    let source_folder = model_path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut names = Vec::new();
    for entry in std::fs::read_dir(source_folder).with_context(|| format!("reading {}", source_folder.display()))? {
        let path = entry?.path();
        if path.is_file() && travels_with_decoder(&path) {
            let name = path.file_name().context("a file name")?.to_owned();
            std::fs::copy(&path, staging.path().join(&name)).with_context(|| format!("copying {}", path.display()))?;
            names.push(name);
        }
    }
    for file in &made.files {
        let name = file.file_name().context("a file name")?.to_owned();
        let to = staging.path().join(&name);
        if file == &made.path {
            let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
            let bytes = crate::formats::onnx_proto::with_metadata(
                &bytes,
                "dmlrun.",
                &record(model_path, preflight, Some(&made.quantization)),
            )?;
            std::fs::write(&to, bytes).with_context(|| format!("writing {}", to.display()))?;
        } else {
            std::fs::copy(file, &to).with_context(|| format!("copying {}", file.display()))?;
        }
        names.push(name);
    }
    if dir.exists() {
        // Only an empty folder is replaced (settings refuse any other).
        std::fs::remove_dir(dir).with_context(|| format!("--save-model {}", dir.display()))?;
    }
    let staged = staging.keep();
    std::fs::rename(&staged, dir).with_context(|| format!("--save-model {}", dir.display()))?;
    names.sort();
    Ok(names.into_iter().map(|n| dir.join(n)).collect())
}

/// `--save-models DIR` and `--save-fixed-dims` (test's and bench's): each item's model written to
/// the folder as its session ran it.
#[derive(Debug, Clone)]
pub struct SavedModels {
    pub folder: std::path::PathBuf,
    /// With their free dimensions as the session fixed them.
    pub fixed_dims: bool,
}

impl SavedModels {
    /// One item's model as its session ran it ([`saved_model`]), written as FOLDER/NAME.onnx.
    pub fn save(
        &self,
        name: &str,
        model_path: &Path,
        preflight: &Preflight,
        made: Option<&[u8]>,
        (rewrite, precision): (Option<&RewriteReport>, Option<&PrecisionReport>),
    ) -> Result<std::path::PathBuf> {
        let bytes = saved_model(model_path, preflight, made, rewrite, precision, self.fixed_dims)?;
        write_saved(&self.folder, name, &bytes, crate::fsutil::folder_of(model_path))
    }
}

/// Writes one item's saved model as DIR/NAME.onnx (a name's `/` parts as folders, as the report
/// names nested items; a part that would climb out of DIR, `..`, as `_`), its external data (named
/// relative to `source_folder`) copied beside it. Returns the file.
fn write_saved(dir: &Path, name: &str, bytes: &[u8], source_folder: &Path) -> Result<std::path::PathBuf> {
    let mut file = dir.to_path_buf();
    let parts: Vec<&str> = name.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        let part = if matches!(*part, "" | "." | "..") { "_" } else { part };
        file.push(if i + 1 == parts.len() { format!("{part}.onnx") } else { part.to_string() });
    }
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    crate::formats::onnx_proto::write_model_from(&file, bytes, source_folder)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_saved_model_is_named_after_its_item_and_never_outside_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let model = std::fs::read("tests/models/gemm_tanh_no_bias.onnx").unwrap();
        let file = super::write_saved(dir.path(), "zoo/resnet50-v1.7", &model, dir.path()).unwrap();
        assert_eq!(file, dir.path().join("zoo").join("resnet50-v1.7.onnx"));
        assert_eq!(std::fs::read(&file).unwrap(), model);
        let file = super::write_saved(dir.path(), "../escape", &model, dir.path()).unwrap();
        assert_eq!(file, dir.path().join("_").join("escape.onnx"));
    }
}
