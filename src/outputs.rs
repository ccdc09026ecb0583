//! What a run produced: per-output summaries, top-k classes with labels, and saved tensors.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::formats::{npy, tensor_proto};
use crate::tensor::HostTensor;

/// How many leading values each output summary shows.
pub const FIRST_VALUES: usize = 8;

#[derive(Debug, Clone, Serialize)]
pub struct OutputSummary {
    pub name: String,
    pub dtype: String,
    pub shape: Vec<usize>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub mean: Option<f64>,
    pub nan_count: usize,
    pub inf_count: usize,
    /// The first few values (numbers as f64; strings quoted).
    pub first_values: Vec<serde_json::Value>,
}

/// Summarises one output tensor.
pub fn summarize(name: &str, tensor: &HostTensor) -> OutputSummary {
    let mut summary = OutputSummary {
        name: name.to_string(),
        dtype: tensor.dtype.to_string(),
        shape: tensor.shape.clone(),
        min: None,
        max: None,
        mean: None,
        nan_count: 0,
        inf_count: 0,
        first_values: Vec::new(),
    };
    if let Some(strings) = tensor.strings() {
        summary.first_values = strings.iter().take(FIRST_VALUES).map(|s| serde_json::Value::from(s.as_str())).collect();
        return summary;
    }
    let values = tensor.to_f64().unwrap_or_default();
    let mut min = f64::INFINITY;
    let mut max = f64::NEG_INFINITY;
    let mut sum = 0.0;
    let mut finite = 0usize;
    for &v in &values {
        if v.is_nan() {
            summary.nan_count += 1;
        } else if v.is_infinite() {
            summary.inf_count += 1;
        } else {
            min = min.min(v);
            max = max.max(v);
            sum += v;
            finite += 1;
        }
    }
    if finite > 0 {
        summary.min = Some(min);
        summary.max = Some(max);
        summary.mean = Some(sum / finite as f64);
    }
    summary.first_values = values
        .iter()
        .take(FIRST_VALUES)
        .map(|v| {
            serde_json::Number::from_f64(*v)
                .map_or_else(|| serde_json::Value::from(v.to_string()), serde_json::Value::Number)
        })
        .collect();
    summary
}

/// One predicted class.
#[derive(Debug, Clone, Serialize)]
pub struct ClassScore {
    pub index: usize,
    pub score: f64,
    pub label: Option<String>,
}

/// Top-k classes of one output, per batch item.
#[derive(Debug, Clone, Serialize)]
pub struct TopK {
    pub output: String,
    /// One list per batch item (one item for a `[C]` output).
    pub items: Vec<Vec<ClassScore>>,
}

/// Reads a labels file: one label per line, in class-index order.
pub fn read_labels(path: &Path) -> Result<Vec<String>> {
    let text = crate::fsutil::read_text(path).with_context(|| format!("reading labels {}", path.display()))?;
    Ok(text.lines().map(|l| l.trim_end_matches('\r').to_string()).collect())
}

/// Top-k over every float output shaped like class scores (`[C]` or `[N, C]`, trailing 1s ignored).
pub fn top_k(outputs: &[(String, HostTensor)], k: usize, labels: Option<(&Path, &[String])>) -> Result<Vec<TopK>> {
    let mut result = Vec::new();
    for (name, tensor) in outputs {
        if !tensor.dtype.is_float() {
            continue;
        }
        let mut dims: Vec<usize> = tensor.shape.clone();
        while dims.len() > 2 && dims.last() == Some(&1) {
            dims.pop();
        }
        let (rows, classes) = match dims.as_slice() {
            [c] => (1, *c),
            [n, c] => (*n, *c),
            _ => continue,
        };
        if classes < 2 {
            continue;
        }
        if let Some((path, labels)) = labels {
            if labels.len() != classes {
                bail!(
                    "labels file {} has {} lines but output '{name}' has {classes} classes",
                    path.display(),
                    labels.len()
                );
            }
        }
        let values = tensor.to_f64().unwrap_or_default();
        let items = values
            .chunks_exact(classes)
            .take(rows)
            .map(|row| {
                let mut idx: Vec<usize> = (0..classes).collect();
                // NaN sorts last so it never hides a real class.
                idx.sort_by(|&a, &b| {
                    row[b].partial_cmp(&row[a]).unwrap_or_else(|| row[a].is_nan().cmp(&row[b].is_nan()))
                });
                idx.into_iter()
                    .take(k)
                    .map(|i| ClassScore { index: i, score: row[i], label: labels.map(|(_, l)| l[i].clone()) })
                    .collect()
            })
            .collect();
        result.push(TopK { output: name.clone(), items });
    }
    if result.is_empty() {
        bail!("--top-k needs a float output shaped [classes] or [batch, classes]; this model has none");
    }
    Ok(result)
}

/// How `--save-outputs` writes files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SaveFormat {
    /// One NAME.npy per output.
    Npy,
    /// One outputs.npz holding every output.
    Npz,
    /// One output_K.pb (ONNX TensorProto) per output, as in ONNX test data.
    Pb,
}

flag_values!(SaveFormat { Npy => "npy", Npz => "npz", Pb => "pb" });

/// Whether saved tensors are a model's inputs or its outputs (names files `input_0.pb` or
/// `output_0.pb`, `inputs.npz` or `outputs.npz`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TensorRole {
    Input,
    Output,
}

impl TensorRole {
    fn word(self) -> &'static str {
        match self {
            TensorRole::Input => "input",
            TensorRole::Output => "output",
        }
    }

    fn flag(self) -> &'static str {
        match self {
            TensorRole::Input => "--save-inputs",
            TensorRole::Output => "--save-outputs",
        }
    }
}

/// Writes named tensors into `dir`. Everything is encoded before the first file is written,
/// and each file is written atomically, so a failure leaves no partial file.
pub fn save(
    dir: &Path,
    tensors: &[(String, HostTensor)],
    format: SaveFormat,
    role: TensorRole,
) -> Result<Vec<PathBuf>> {
    let word = role.word();
    let files: Vec<(PathBuf, Vec<u8>)> = match format {
        SaveFormat::Npy => tensors
            .iter()
            .map(|(name, t)| {
                let bytes = npy::write_npy(t).with_context(|| format!("{word} '{name}'"))?;
                Ok((dir.join(format!("{}.npy", sanitize(name))), bytes))
            })
            .collect::<Result<_>>()?,
        SaveFormat::Npz => vec![(dir.join(format!("{word}s.npz")), npy::write_npz(tensors)?)],
        SaveFormat::Pb => tensors
            .iter()
            .enumerate()
            .map(|(i, (name, t))| (dir.join(format!("{word}_{i}.pb")), tensor_proto::write(name, t)))
            .collect(),
    };
    prepare_dir(dir, role.flag())?;
    let mut written = Vec::new();
    for (path, bytes) in files {
        crate::fsutil::write_atomic(&path, &bytes)?;
        written.push(path);
    }
    Ok(written)
}

/// Writes named JSON values into `dir` as `NAME.json` (map outputs): all encoded before the
/// first file is written, each file written atomically, as [`save`] does.
pub fn save_json<'a>(
    dir: &Path,
    values: impl IntoIterator<Item = (&'a str, &'a serde_json::Value)>,
) -> Result<Vec<PathBuf>> {
    let files: Vec<(PathBuf, String)> = values
        .into_iter()
        .map(|(name, value)| Ok((dir.join(format!("{}.json", sanitize(name))), serde_json::to_string_pretty(value)?)))
        .collect::<Result<_>>()?;
    if files.is_empty() {
        return Ok(Vec::new());
    }
    prepare_dir(dir, TensorRole::Output.flag())?;
    let mut written = Vec::new();
    for (path, text) in files {
        crate::fsutil::write_atomic(&path, text.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

/// Creates `dir` if needed and fails clearly when it is a file.
pub fn prepare_dir(dir: &Path, flag: &str) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!("{flag} {}: exists and is not a directory", dir.display());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("{flag} {}: cannot create directory", dir.display()))
}

/// Output names can hold `/` or `:`; keep file names portable.
fn sanitize(name: &str) -> String {
    let cleaned: String =
        name.chars().map(|c| if c.is_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    if cleaned.is_empty() {
        "output".to_string()
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_nan_and_inf() {
        let t = HostTensor::from_f32(vec![4], &[1.0, f32::NAN, f32::INFINITY, 3.0]).unwrap();
        let s = summarize("y", &t);
        assert_eq!((s.nan_count, s.inf_count, s.min, s.max, s.mean), (1, 1, Some(1.0), Some(3.0), Some(2.0)));
    }

    #[test]
    fn top_k_orders_scores_and_checks_labels() {
        let t = HostTensor::from_f32(vec![1, 4], &[0.1, 0.5, 0.3, 0.1]).unwrap();
        let outputs = vec![("prob".to_string(), t)];
        let top = top_k(&outputs, 2, None).unwrap();
        let idx: Vec<usize> = top[0].items[0].iter().map(|c| c.index).collect();
        assert_eq!(idx, vec![1, 2]);
        let labels = vec!["a".to_string(), "b".to_string()];
        let err = top_k(&outputs, 2, Some((Path::new("l.txt"), &labels))).unwrap_err().to_string();
        assert!(err.contains("has 2 lines but output 'prob' has 4 classes"), "{err}");
    }

    #[test]
    fn sanitizes_output_names() {
        assert_eq!(sanitize("a/b:0"), "a_b_0");
    }
}
