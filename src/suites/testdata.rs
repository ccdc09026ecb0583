//! ONNX test-data folders: `model.onnx` with `test_data_set_N/{input,output}_K.pb`, and an
//! optional `data.json` holding `rtol`/`atol`. Discovery and loading only; running is in
//! `commands/test.rs`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::formats::model::ValueKind;
use crate::formats::tensor_proto;
use crate::tensor::{HostTensor, HostValue};

/// One model folder. Serialised for an isolation child, which runs the cases its parent hands it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Case {
    /// Path relative to the root it was found under, `/`-separated (e.g. `node/test_abs`); a
    /// part that is not UTF-8 is named lossily.
    pub name: String,
    #[serde(with = "crate::fsutil::any_path")]
    pub dir: PathBuf,
    #[serde(with = "crate::fsutil::any_path")]
    pub model: PathBuf,
    /// `test_data_set_*` folders, in numeric order.
    #[serde(with = "crate::fsutil::any_path::vec")]
    pub data_sets: Vec<PathBuf>,
    /// Tolerances from `data.json`.
    pub rtol: Option<f64>,
    pub atol: Option<f64>,
}

/// A folder that looks like a test case but cannot be one, and why: reported, never silently
/// passed over.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Skipped {
    #[serde(with = "crate::fsutil::any_path")]
    pub dir: PathBuf,
    pub reason: String,
}

/// Every case under `paths` (each a case folder or a tree of them), sorted by name, and the
/// folders skipped on the way.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    pub cases: Vec<Case>,
    pub skipped: Vec<Skipped>,
}

/// Finds every case under `paths`.
pub fn discover(paths: &[PathBuf]) -> Result<Discovery> {
    let mut found = Discovery::default();
    for root in paths {
        if root.is_file() && is_onnx(root) {
            found.cases.push(bare_case(root, root.parent().unwrap_or(Path::new(""))));
            continue;
        }
        if !root.exists() {
            bail!("{}: no such file or folder", root.display());
        }
        if !root.is_dir() {
            bail!(
                "{}: not a folder or an .onnx file (expected a model folder with model.onnx, a tree of them, or a model file)",
                root.display()
            );
        }
        let (cases_before, skipped_before) = (found.cases.len(), found.skipped.len());
        // A case given itself is named after its folder, as it would be inside a tree.
        let is_case = root.join("model.onnx").is_file()
            || std::fs::read_dir(root).is_ok_and(|entries| {
                entries.flatten().any(|e| e.file_name().to_str().is_some_and(|n| n.starts_with("test_data_set_")))
            });
        let base = if is_case { root.parent().unwrap_or(root) } else { root.as_path() };
        walk(root, base, &mut found)?;
        if found.cases.len() == cases_before {
            let why = match found.skipped.get(skipped_before) {
                Some(first) => format!(" ({} skipped: {})", found.skipped.len() - skipped_before, first.reason),
                None => String::new(),
            };
            bail!(
                "{}: no model.onnx, test_data_set_* folder or .onnx file found in it or below it{why}",
                root.display()
            );
        }
    }
    found.cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

fn walk(dir: &Path, base: &Path, found: &mut Discovery) -> Result<()> {
    let cases = &mut found.cases;
    if dir.join("model.onnx").is_file() {
        cases.push(load_case(dir, base)?);
        return Ok(());
    }
    let listed: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    let mut entries: Vec<PathBuf> = listed.iter().filter(|p| p.is_dir()).cloned().collect();
    entries.sort();
    // Model files beside the folders: models without test data, checked with --compare-ep.
    let mut models: Vec<&PathBuf> = listed.iter().filter(|p| p.is_file() && is_onnx(p)).collect();
    models.sort();
    // Test data without a model is a case that cannot run, reported as such, not skipped.
    if entries.iter().any(|e| e.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("test_data_set_"))) {
        cases.push(load_case(dir, base)?);
        return Ok(());
    }
    if entries.is_empty() && dir.join("data.json").is_file() {
        // ONNX's `real/` cases ship a data.json naming a model to download, and nothing else.
        let named = std::fs::read_to_string(dir.join("data.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .and_then(|v| v.get("model_name").and_then(|n| n.as_str()).map(String::from));
        let reason = match named {
            Some(model) => {
                format!("no model.onnx or test data: its data.json only names model '{model}', kept elsewhere")
            }
            None => "no model.onnx or test data, only a data.json".to_string(),
        };
        found.skipped.push(Skipped { dir: dir.to_path_buf(), reason });
        return Ok(());
    }
    for model in models {
        found.cases.push(bare_case(model, base));
    }
    for entry in entries {
        walk(&entry, base, found)?;
    }
    Ok(())
}

fn is_onnx(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("onnx"))
}

/// A model file without test data, named by its path below `base` without `.onnx`.
fn bare_case(model: &Path, base: &Path) -> Case {
    Case {
        name: relative_name(&model.with_extension(""), base),
        dir: model.parent().unwrap_or(Path::new("")).to_path_buf(),
        model: model.to_path_buf(),
        data_sets: Vec::new(),
        rtol: None,
        atol: None,
    }
}

/// `dir` below `base`, `/`-separated, each part's bytes that are not UTF-8 escaped (`\xNN`), so
/// that two cases never share a name.
fn relative_name(dir: &Path, base: &Path) -> String {
    dir.strip_prefix(base)
        .unwrap_or(dir)
        .components()
        .map(|c| crate::fsutil::escaped(c.as_os_str()))
        .collect::<Vec<_>>()
        .join("/")
}

fn load_case(dir: &Path, base: &Path) -> Result<Case> {
    let name = relative_name(dir, base);
    let mut data_sets: Vec<(usize, PathBuf)> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let n = p.file_name()?.to_str()?.strip_prefix("test_data_set_")?.parse().ok()?;
            p.is_dir().then_some((n, p))
        })
        .collect();
    data_sets.sort();
    let (mut rtol, mut atol) = (None, None);
    let data_json = dir.join("data.json");
    if data_json.is_file() {
        let text = crate::fsutil::read_text(&data_json).with_context(|| format!("reading {}", data_json.display()))?;
        let value: serde_json::Value =
            serde_json::from_str(&text).with_context(|| format!("{}: not valid JSON", data_json.display()))?;
        rtol = value.get("rtol").and_then(|v| v.as_f64());
        atol = value.get("atol").and_then(|v| v.as_f64());
    }
    Ok(Case {
        name,
        dir: dir.to_path_buf(),
        model: dir.join("model.onnx"),
        data_sets: data_sets.into_iter().map(|(_, p)| p).collect(),
        rtol,
        atol,
    })
}

/// A named tensor from a `.pb` file; the name is empty when the file gives none.
pub type NamedTensor = (String, HostTensor);
/// A named value from a `.pb` file.
pub type NamedValue = (String, HostValue);

/// Reads `prefix_K.pb` files (`input` or `output`) of a data set, in numeric order of K; file K
/// is decoded as `kinds[K]` says (a tensor when the list is shorter).
pub fn read_values(data_set: &Path, prefix: &str, kinds: &[ValueKind], max_bytes: u64) -> Result<Vec<NamedValue>> {
    let mut files: Vec<(usize, PathBuf)> = std::fs::read_dir(data_set)
        .with_context(|| format!("reading {}", data_set.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let stem = p.file_name()?.to_str()?.strip_suffix(".pb")?.strip_prefix(prefix)?.strip_prefix('_')?;
            Some((stem.parse().ok()?, p))
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .enumerate()
        .map(|(position, (_, path))| {
            let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            let kind = kinds.get(position).copied().unwrap_or_default();
            tensor_proto::read_value(&bytes, kind, max_bytes).with_context(|| format!("{}", path.display()))
        })
        .collect()
}

/// Pairs tensors with the model's names: by the tensor's own name when it is one of `names`,
/// otherwise by position (ONNX's convention for test data).
pub fn bind_by_name_or_position<T>(tensors: Vec<(String, T)>, names: &[String]) -> Result<Vec<(String, T)>> {
    let mut bound: Vec<(String, T)> = Vec::new();
    for (position, (name, tensor)) in tensors.into_iter().enumerate() {
        let target = if names.contains(&name) {
            name
        } else {
            names.get(position).cloned().ok_or_else(|| {
                anyhow::anyhow!(
                    "file {position} has no matching name ('{name}') and the model has only {} names",
                    names.len()
                )
            })?
        };
        if bound.iter().any(|(n, _)| *n == target) {
            bail!("two files bind to '{target}'");
        }
        bound.push((target, tensor));
    }
    Ok(bound)
}

/// Writes a test-data folder: the model, and `test_data_set_0` with inputs and outputs as `.pb`.
pub fn write_case(dir: &Path, model: &[u8], inputs: &[NamedTensor], outputs: &[NamedTensor]) -> Result<Vec<PathBuf>> {
    let set = dir.join("test_data_set_0");
    // Encode everything first; then write each file atomically.
    let mut files: Vec<(PathBuf, Vec<u8>)> = vec![(dir.join("model.onnx"), model.to_vec())];
    for (i, (name, t)) in inputs.iter().enumerate() {
        files.push((set.join(format!("input_{i}.pb")), tensor_proto::write(name, t)));
    }
    for (i, (name, t)) in outputs.iter().enumerate() {
        files.push((set.join(format!("output_{i}.pb")), tensor_proto::write(name, t)));
    }
    crate::outputs::prepare_dir(&set, "--save-outputs")?;
    let mut written = Vec::new();
    for (path, bytes) in files {
        crate::fsutil::write_atomic(&path, &bytes)?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binds_by_name_then_position() {
        let t = HostTensor::from_f32(vec![1], &[0.0]).unwrap();
        let names = vec!["a".to_string(), "b".to_string()];
        let bound = bind_by_name_or_position(vec![("b".into(), t.clone()), ("".into(), t.clone())], &names);
        // "b" binds by name, the unnamed second file by position 1 = "b" again: an error.
        assert!(bound.is_err());
        let bound = bind_by_name_or_position(vec![("".into(), t.clone()), ("b".into(), t)], &names).unwrap();
        assert_eq!(bound.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), vec!["a", "b"]);
    }
}
