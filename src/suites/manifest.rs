//! What `dmlrun bench` measures: models given directly, found in folders, or listed in a
//! manifest (TOML or JSON) with per-model dims and inputs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::inputs::synthetic::{Fill, ValueRange};
use crate::inputs::InputSpec;

/// One model to benchmark (a point of a sweep counts as one). Serialised for an isolation child,
/// which measures the targets its parent hands it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchTarget {
    /// Unique name in reports (file stem, or the manifest's `name`).
    pub name: String,
    #[serde(with = "crate::fsutil::any_path")]
    pub path: PathBuf,
    /// Free-dimension overrides for this model, added to `--dim`.
    pub dims: Vec<(String, i64)>,
    /// Whole input shapes for this model, added to `--shape`.
    pub shapes: Vec<(String, Vec<usize>)>,
    /// Value ranges of generated inputs, added to `--generate-range`.
    pub generate_ranges: Vec<(Option<String>, ValueRange)>,
    /// Input files by model input; the others are generated.
    pub inputs: Vec<InputSpec>,
    pub generate: Option<Fill>,
    /// Tolerances for `--compare-ep` output checks of this model.
    pub rtol: Option<f64>,
    pub atol: Option<f64>,
    /// `kind = "generate"`: a decoder LLM measured by its generation, not by single runs.
    pub generation: Option<GenerationTarget>,
    /// `--sweep` / `--sweep-shape`: the point of the sweep this target is.
    #[serde(default)]
    pub sweep: Option<SweepPoint>,
}

/// `bench --sweep DIM=1,2,4` (a free dimension's sizes) or `--sweep-shape NAME=SHAPE:SHAPE`
/// (one input's whole shapes): each model measured once per value, each in a session of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sweep {
    Dim { name: String, values: Vec<i64> },
    Shape { input: String, shapes: Vec<Vec<usize>> },
}

/// One point of a sweep: which model it is of, what is swept, and its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The swept model's own name.
    pub of: String,
    /// `batch` (a dimension) or `x` (an input's shape).
    pub over: String,
    /// `8`, or `1x3x320x320`.
    pub value: String,
    /// Its place among the sweep's values.
    pub index: usize,
}

impl Sweep {
    /// The flag that asked for it.
    pub fn flag(&self) -> &'static str {
        match self {
            Sweep::Dim { .. } => "--sweep",
            Sweep::Shape { .. } => "--sweep-shape",
        }
    }

    /// The dimension or input it sweeps.
    pub fn over(&self) -> &str {
        match self {
            Sweep::Dim { name, .. } => name,
            Sweep::Shape { input, .. } => input,
        }
    }
}

impl BenchTarget {
    /// This target once per value of `sweep`, named `NAME batch=8` / `NAME x=1x3x320x320`, the
    /// value added to its dims or shapes (the manifest's own for that name give way).
    pub fn swept(&self, sweep: &Sweep) -> Vec<BenchTarget> {
        let point = |index: usize, value: String| SweepPoint {
            of: self.name.clone(),
            over: sweep.over().to_string(),
            value,
            index,
        };
        match sweep {
            Sweep::Dim { name, values } => values
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    let mut t = self.clone();
                    t.dims.retain(|(n, _)| n != name);
                    t.dims.push((name.clone(), v));
                    t.name = format!("{} {name}={v}", self.name);
                    t.sweep = Some(point(i, v.to_string()));
                    t
                })
                .collect(),
            Sweep::Shape { input, shapes } => shapes
                .iter()
                .enumerate()
                .map(|(i, shape)| {
                    let text = shape.iter().map(usize::to_string).collect::<Vec<_>>().join("x");
                    let mut t = self.clone();
                    t.shapes.retain(|(n, _)| n != input);
                    t.shapes.push((input.clone(), shape.clone()));
                    t.name = format!("{} {input}={text}", self.name);
                    t.sweep = Some(point(i, text));
                    t
                })
                .collect(),
        }
    }
}

/// A manifest's generate entry: a synthetic prompt of `prompt_tokens`, `new_tokens` generated
/// (EOS ignored), `repetitions` measured after one warm-up. The two lengths are `None` where the
/// entry leaves them to the defaults, which [`GenerationTarget::fitted`] fits to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationTarget {
    pub prompt_tokens: Option<usize>,
    pub new_tokens: Option<usize>,
    pub repetitions: usize,
    /// The KV buffer's length (default: prompt plus new tokens).
    pub max_length: Option<usize>,
}

/// The prompt and the new tokens a generate entry makes when it does not say: LLM benchmarks'
/// usual 128 and 128.
pub const DEFAULT_GENERATION_TOKENS: usize = 128;

impl GenerationTarget {
    /// The entry's prompt and new tokens for a model of `context` positions (or the entry's
    /// `max_length`, if shorter), and what was changed to fit, if anything. What the entry leaves
    /// to the defaults shrinks to fit a short context (halves of it, when both do); what it sets
    /// must fit as it is, and an error names the keys to change.
    pub fn fitted(&self, context: usize) -> Result<(usize, usize, Option<String>)> {
        let room = self.max_length.map_or(context, |m| m.min(context));
        let default = DEFAULT_GENERATION_TOKENS;
        let (prompt, new) = match (self.prompt_tokens, self.new_tokens) {
            (Some(p), Some(n)) => (p, n),
            (Some(p), None) => (p, default.min(room.saturating_sub(p))),
            (None, Some(n)) => (default.min(room.saturating_sub(n)), n),
            (None, None) if 2 * default <= room => (default, default),
            (None, None) => (room / 2, room - room / 2),
        };
        if prompt == 0 || new == 0 || prompt + new > room {
            bail!(
                "prompt_tokens {prompt} and new_tokens {new} need {} positions, and the model has {room} (its {}): set prompt_tokens and new_tokens to fit",
                prompt + new,
                if room < context { "entry's max_length" } else { "context" }
            );
        }
        let defaults_moved =
            (self.prompt_tokens.is_none() && prompt != default) || (self.new_tokens.is_none() && new != default);
        let note = defaults_moved.then(|| {
            format!(
                "prompt_tokens {prompt} and new_tokens {new}: the defaults ({default} each) shortened to fit the model's {room} positions"
            )
        });
        Ok((prompt, new, note))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    #[serde(alias = "models")]
    model: Vec<ManifestModel>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestModel {
    path: PathBuf,
    name: Option<String>,
    #[serde(default)]
    dims: BTreeMap<String, i64>,
    #[serde(default)]
    shapes: BTreeMap<String, Vec<usize>>,
    #[serde(default)]
    generate_range: BTreeMap<String, [f64; 2]>,
    #[serde(default)]
    inputs: BTreeMap<String, PathBuf>,
    generate: Option<String>,
    rtol: Option<f64>,
    atol: Option<f64>,
    /// `model` (the default) or `generate`.
    kind: Option<String>,
    prompt_tokens: Option<usize>,
    new_tokens: Option<usize>,
    repetitions: Option<usize>,
    max_length: Option<usize>,
}

/// Expands the command-line targets into models, in order; names are made unique.
pub fn resolve(targets: &[PathBuf]) -> Result<Vec<BenchTarget>> {
    let mut models = Vec::new();
    for target in targets {
        let ext = target.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase());
        if target.join("genai_config.json").is_file() {
            models.push(decoder(target));
        } else if target.is_dir() {
            let before = models.len();
            collect_models(target, &mut models)?;
            if models.len() == before {
                bail!("{}: no .onnx files in it or below it", target.display());
            }
        } else if matches!(ext.as_deref(), Some("toml" | "json")) {
            models.extend(read_manifest(target)?);
        } else if target.is_file() {
            models.push(plain(target));
        } else {
            bail!("{}: no such file or directory", target.display());
        }
    }
    // Two models with the same stem get their parent folder in the name.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for m in &models {
        *seen.entry(m.name.clone()).or_default() += 1;
    }
    for m in &mut models {
        if seen[&m.name] > 1 {
            if let Some(parent) = m.path.parent().and_then(|p| p.file_name()) {
                m.name = format!("{}/{}", crate::fsutil::escaped(parent), m.name);
            }
        }
    }
    // Names key the reports, the baseline gate and isolation: they must differ.
    for (i, m) in models.iter().enumerate() {
        if let Some(other) = models[..i].iter().find(|o| o.name == m.name) {
            bail!(
                "two models are both named '{}' ({} and {}): give them different names (a manifest's `name`)",
                m.name,
                crate::fsutil::escaped(other.path.as_os_str()),
                crate::fsutil::escaped(m.path.as_os_str())
            );
        }
    }
    Ok(models)
}

fn plain(path: &Path) -> BenchTarget {
    BenchTarget {
        name: path.file_stem().map(crate::fsutil::escaped).unwrap_or_else(|| "model".into()),
        path: path.to_path_buf(),
        dims: Vec::new(),
        shapes: Vec::new(),
        generate_ranges: Vec::new(),
        inputs: Vec::new(),
        generate: None,
        rtol: None,
        atol: None,
        generation: None,
        sweep: None,
    }
}

/// An onnxruntime-genai folder: a decoder, measured by its generation, named by its folder.
fn decoder(dir: &Path) -> BenchTarget {
    let mut decoder = plain(&dir.join("model.onnx"));
    decoder.path = dir.to_path_buf();
    decoder.name = folder_name(dir, "decoder");
    decoder.generation =
        Some(GenerationTarget { prompt_tokens: None, new_tokens: None, repetitions: 3, max_length: None });
    decoder
}

fn folder_name(dir: &Path, otherwise: &str) -> String {
    dir.file_name().map(crate::fsutil::escaped).unwrap_or_else(|| otherwise.into())
}

/// The models in and below `dir`, in name order: a genai folder as a generate entry, a folder in
/// ONNX's test-data layout as its `model.onnx` named after the folder, and every other `.onnx`
/// file by its stem. A name that is not UTF-8 is named lossily; its path is kept whole.
fn collect_models(dir: &Path, found: &mut Vec<BenchTarget>) -> Result<()> {
    if dir.join("genai_config.json").is_file() {
        found.push(decoder(dir));
        return Ok(());
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    let is_case = dir.join("model.onnx").is_file()
        && paths.iter().any(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("test_data_set_")));
    if is_case {
        let mut case = plain(&dir.join("model.onnx"));
        case.name = folder_name(dir, "model");
        found.push(case);
        return Ok(());
    }
    for path in paths {
        if path.is_dir() {
            collect_models(&path, found)?;
        } else if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("onnx")) {
            found.push(plain(&path));
        }
    }
    Ok(())
}

/// Reads a manifest; paths in it are relative to the manifest's folder.
pub fn read_manifest(path: &Path) -> Result<Vec<BenchTarget>> {
    let text = crate::fsutil::read_text(path).with_context(|| format!("reading manifest {}", path.display()))?;
    parse_manifest(&text, path)
}

pub fn parse_manifest(text: &str, path: &Path) -> Result<Vec<BenchTarget>> {
    let is_json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let file: ManifestFile = if is_json {
        serde_json::from_str(text).map_err(|e| anyhow::anyhow!("manifest {}: {e}", path.display()))?
    } else {
        toml::from_str(text).map_err(|e| anyhow::anyhow!("manifest {}: {}", path.display(), e.message()))?
    };
    let base = path.parent().unwrap_or(Path::new("."));
    let mut models = Vec::new();
    for (i, m) in file.model.into_iter().enumerate() {
        let model_path = base.join(&m.path);
        let generate = match m.generate.as_deref() {
            None => None,
            Some("random") => Some(Fill::Random),
            Some("zeros") => Some(Fill::Zeros),
            Some("ones") => Some(Fill::Ones),
            Some(other) => bail!(
                "manifest {} model {}: generate must be random, zeros or ones, not '{other}'",
                path.display(),
                i + 1
            ),
        };
        let at = || format!("manifest {} model {}", path.display(), i + 1);
        let generation = match m.kind.as_deref() {
            None | Some("model") => {
                if m.prompt_tokens.is_some()
                    || m.new_tokens.is_some()
                    || m.repetitions.is_some()
                    || m.max_length.is_some()
                {
                    bail!(
                        "{}: prompt_tokens, new_tokens, repetitions and max_length belong to kind = \"generate\"",
                        at()
                    );
                }
                None
            }
            Some("generate") => {
                let target = GenerationTarget {
                    prompt_tokens: m.prompt_tokens,
                    new_tokens: m.new_tokens,
                    repetitions: m.repetitions.unwrap_or(3),
                    max_length: m.max_length,
                };
                if target.prompt_tokens == Some(0) || target.new_tokens == Some(0) || target.repetitions == 0 {
                    bail!("{}: prompt_tokens, new_tokens and repetitions must be at least 1", at());
                }
                Some(target)
            }
            Some(other) => bail!("{}: kind must be model or generate, not '{other}'", at()),
        };
        for (name, value) in &m.dims {
            if *value < 0 {
                bail!("manifest {} model {}: dim {name}={value} cannot be negative", path.display(), i + 1);
            }
        }
        for (name, [low, high]) in &m.generate_range {
            if !(low.is_finite() && high.is_finite() && low <= high) {
                bail!(
                    "manifest {} model {}: generate_range {name} = [{low}, {high}] needs LO <= HI",
                    path.display(),
                    i + 1
                );
            }
        }
        models.push(BenchTarget {
            // A genai folder is named by the folder.
            name: m.name.unwrap_or_else(|| {
                let name = if model_path.is_dir() { model_path.file_name() } else { model_path.file_stem() };
                name.map(crate::fsutil::escaped).unwrap_or_default()
            }),
            path: model_path,
            dims: m.dims.into_iter().collect(),
            shapes: m.shapes.into_iter().collect(),
            generate_ranges: m
                .generate_range
                .into_iter()
                .map(|(name, [low, high])| (Some(name), ValueRange { low, high }))
                .collect(),
            inputs: m
                .inputs
                .into_iter()
                .map(|(name, file)| InputSpec { name: Some(name), path: base.join(file) })
                .collect(),
            generate,
            rtol: m.rtol,
            atol: m.atol,
            generation,
            sweep: None,
        });
    }
    if models.is_empty() {
        bail!("manifest {}: lists no models", path.display());
    }
    Ok(models)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generate_entries_fit_their_defaults_to_the_context_and_say_what_they_set_does_not_fit() {
        let entry = |p, n, max| GenerationTarget { prompt_tokens: p, new_tokens: n, repetitions: 3, max_length: max };
        assert_eq!(entry(None, None, None).fitted(4096).unwrap(), (128, 128, None));
        let (p, n, note) = entry(None, None, None).fitted(128).unwrap();
        assert_eq!((p, n), (64, 64));
        assert_eq!(
            note.as_deref(),
            Some("prompt_tokens 64 and new_tokens 64: the defaults (128 each) shortened to fit the model's 128 positions")
        );
        let (p, n, _) = entry(Some(100), None, None).fitted(128).unwrap();
        assert_eq!((p, n), (100, 28));
        let (p, n, note) = entry(None, Some(8), None).fitted(128).unwrap();
        assert_eq!((p, n), (120, 8));
        assert!(note.unwrap().contains("prompt_tokens 120 and new_tokens 8"));
        assert_eq!(entry(None, None, Some(64)).fitted(4096).unwrap().0, 32);
        let err = entry(Some(128), Some(128), None).fitted(128).unwrap_err().to_string();
        assert_eq!(
            err,
            "prompt_tokens 128 and new_tokens 128 need 256 positions, and the model has 128 (its context): set prompt_tokens and new_tokens to fit"
        );
        assert!(entry(Some(128), None, None).fitted(128).is_err(), "no room for a new token");
    }

    #[test]
    fn toml_and_json_manifests_agree() {
        let toml = r#"
            [[model]]
            path = "a/squeeze.onnx"
            name = "squeeze"
            dims = { N = 4 }
            shapes = { mask = [4, 16] }
            generate_range = { mask = [0, 1] }
            inputs = { input = "cat.png" }
            generate = "zeros"
            rtol = 0.01
        "#;
        let json = r#"{"models": [{"path": "a/squeeze.onnx", "name": "squeeze", "dims": {"N": 4},
                       "shapes": {"mask": [4, 16]}, "generate_range": {"mask": [0, 1]},
                       "inputs": {"input": "cat.png"}, "generate": "zeros", "rtol": 0.01}]}"#;
        let a = parse_manifest(toml, Path::new("/m/bench.toml")).unwrap();
        let b = parse_manifest(json, Path::new("/m/bench.json")).unwrap();
        assert_eq!(a, b);
        assert_eq!(a[0].path, PathBuf::from("/m/a/squeeze.onnx"));
        assert_eq!(a[0].dims, vec![("N".to_string(), 4)]);
        assert_eq!(a[0].shapes, vec![("mask".to_string(), vec![4, 16])]);
        assert_eq!(a[0].generate_ranges, vec![(Some("mask".to_string()), ValueRange { low: 0.0, high: 1.0 })]);
        assert_eq!(a[0].inputs, vec![InputSpec { name: Some("input".into()), path: "/m/cat.png".into() }]);
        assert_eq!(a[0].generate, Some(Fill::Zeros));
        assert_eq!((a[0].rtol, a[0].atol), (Some(0.01), None));
    }

    #[test]
    fn generate_entries_take_their_defaults_and_refuse_misplaced_fields() {
        let toml = "[[model]]\npath = 'phi3'\nkind = 'generate'\nprompt_tokens = 1024\n";
        let m = parse_manifest(toml, Path::new("/m/bench.toml")).unwrap();
        assert_eq!(
            m[0].generation,
            Some(GenerationTarget { prompt_tokens: Some(1024), new_tokens: None, repetitions: 3, max_length: None })
        );
        let err = parse_manifest("[[model]]\npath = 'x.onnx'\nnew_tokens = 5\n", Path::new("b.toml")).unwrap_err();
        assert!(err.to_string().contains("belong to kind = \"generate\""), "{err}");
        let err = parse_manifest("[[model]]\npath = 'x'\nkind = 'llm'\n", Path::new("b.toml")).unwrap_err();
        assert!(err.to_string().contains("kind must be model or generate"), "{err}");
    }

    #[test]
    fn manifest_errors_name_the_file() {
        let err = parse_manifest("[[model]]\nfile = 'x'\n", Path::new("b.toml")).unwrap_err().to_string();
        assert!(err.starts_with("manifest b.toml"), "{err}");
        let err = parse_manifest("[[model]]\npath = 'x.onnx'\ndims = { N = -1 }\n", Path::new("b.toml")).unwrap_err();
        assert!(err.to_string().contains("N=-1"), "{err}");
        let err = parse_manifest("[[model]]\npath = 'x.onnx'\ngenerate_range = { x = [2, 1] }\n", Path::new("b.toml"));
        assert!(err.unwrap_err().to_string().contains("LO <= HI"));
    }
}
