//! Turning `--input` files (and `--generate`) into one tensor per model input, checked against
//! the model's declared dtype and shape.

mod check;
mod files;
pub mod synthetic;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::formats::{image, npy, tensor_proto};
use crate::tensor::{format_shape, DType, HostTensor};
use image::{Preprocess, PreprocessRequest};
use synthetic::{Fill, ValueRange};

pub use check::{check_tensor, Symbols};
use files::{detect_kind, read_limited, FileKind};

/// One dimension of a model input, after `--dim` overrides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DimSpec {
    /// Known size (fixed in the model or by an override).
    pub size: Option<usize>,
    /// The symbolic name, when the model gives one.
    pub symbol: Option<String>,
}

impl DimSpec {
    pub fn label(&self) -> String {
        match (&self.size, &self.symbol) {
            (Some(n), _) => n.to_string(),
            (None, Some(s)) => s.clone(),
            (None, None) => "?".into(),
        }
    }
}

/// A model input as dmlrun binds to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputSignature {
    pub name: String,
    /// `None` for inputs that are not tensors of a dtype dmlrun carries (sequences, maps, ...).
    pub dtype: Option<DType>,
    pub type_name: String,
    pub dims: Vec<DimSpec>,
}

impl InputSignature {
    pub fn describe(&self) -> String {
        let dims: Vec<String> = self.dims.iter().map(DimSpec::label).collect();
        format!("{} [{}]", self.type_name, dims.join(", "))
    }
}

/// One input file and the model input it is for: `--input [NAME=]FILE`, or a manifest's
/// `inputs = { NAME = FILE }`. Without a name, a file binds to the model's first input (a
/// TensorProto to the input it names, an `.npz` to the inputs its arrays name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputSpec {
    pub name: Option<String>,
    #[serde(with = "crate::fsutil::any_path")]
    pub path: PathBuf,
}

impl InputSpec {
    /// Parses `--input`: `NAME=FILE` names the input, unless the whole text is an existing file
    /// (a path that contains `=`).
    pub fn parse(text: &str) -> Result<InputSpec, String> {
        if text.is_empty() {
            return Err("a file is required: --input [NAME=]FILE".into());
        }
        match text.split_once('=') {
            Some((name, file)) if !name.is_empty() && !Path::new(text).exists() => {
                if file.is_empty() {
                    return Err(format!("'{text}' names input '{name}' but no file"));
                }
                Ok(InputSpec { name: Some(name.to_string()), path: PathBuf::from(file) })
            }
            _ => Ok(InputSpec { name: None, path: PathBuf::from(text) }),
        }
    }
}

impl std::fmt::Display for InputSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.name {
            Some(name) => write!(f, "{name}={}", self.path.display()),
            None => write!(f, "{}", self.path.display()),
        }
    }
}

/// Settings for loading inputs.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub preprocess: PreprocessRequest,
    pub generate: Option<Fill>,
    pub seed: u64,
    pub max_tensor_bytes: u64,
    /// The size generated inputs give a free dimension nothing else sizes (`--free-dim-size`).
    pub free_dim_size: usize,
    /// `--generate-range [NAME=]LO,HI`: the values random data takes, for one input (by name)
    /// or for all (no name); the last one given for an input wins.
    pub ranges: Vec<(Option<String>, ValueRange)>,
}

impl LoadOptions {
    /// The range random data for input `name` of `dtype` is drawn from.
    pub fn range_for(&self, name: &str, dtype: DType) -> ValueRange {
        let named = self.ranges.iter().rev().find(|(n, _)| n.as_deref() == Some(name));
        let all = self.ranges.iter().rev().find(|(n, _)| n.is_none());
        named.or(all).map_or_else(|| ValueRange::default_for(dtype), |(_, r)| *r)
    }
}

/// What an input was made from: in the JSON reports `image`, `npy`, `npz`, `pb` or `generated`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    Image,
    Npy,
    Npz,
    Pb,
    Generated,
}

impl std::fmt::Display for InputKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            InputKind::Image => "image",
            InputKind::Npy => "npy",
            InputKind::Npz => "npz",
            InputKind::Pb => "pb",
            InputKind::Generated => "generated",
        })
    }
}

/// Where one bound input came from, for the report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InputSource {
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub kind: InputKind,
    #[serde(with = "crate::fsutil::any_path::vec")]
    pub files: Vec<PathBuf>,
    /// The resolved image preprocessing, or how data was generated.
    pub detail: Option<String>,
}

/// The inputs, in the model's input order, ready to run.
#[derive(Debug, Clone)]
pub struct BoundInputs {
    pub tensors: Vec<(String, HostTensor)>,
    pub sources: Vec<InputSource>,
    /// What binding accepted but the user should hear (a dimension name given two sizes).
    pub warnings: Vec<String>,
}

impl BoundInputs {
    /// What dmlrun chose for generated inputs and how to change it, when the inputs are to blame
    /// for a failed run: the model may simply not take those sizes (a 1x1 image for a convolution).
    pub fn generated_advice(&self) -> Option<String> {
        let generated: Vec<String> = self
            .sources
            .iter()
            .filter(|s| s.kind == InputKind::Generated)
            .map(|s| {
                let chosen = s.detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
                format!("'{}' {} {}{chosen}", s.name, s.dtype, format_shape(&s.shape))
            })
            .collect();
        (!generated.is_empty()).then(|| format!(
            "on generated input(s) {}: if the model takes other sizes or values, set them with --shape NAME=D0,D1,..., --dim NAME=N, --free-dim-size N or --generate-range NAME=LO,HI (a manifest's shapes, dims), or give the inputs with --input",
            generated.join("; ")
        ))
    }
}

enum Loaded {
    Tensor { tensor: HostTensor, kind: InputKind, file: PathBuf },
    Images(Vec<PathBuf>),
}

/// Binds inputs in three steps: loads every file and assigns it to a model input ([`load`]),
/// turns what was assigned into checked tensors (images preprocessed for the input they fill),
/// and generates what no file gives, if asked ([`generate_missing`]).
pub fn bind(specs: &[InputSpec], signatures: &[InputSignature], options: &LoadOptions) -> Result<BoundInputs> {
    let mut assigned = load(specs, signatures, options)?;
    let mut tensors = Vec::new();
    let mut sources = Vec::new();
    // Values that symbolic dimensions take in the inputs given so far, to keep them consistent.
    let mut symbols = Symbols::new();
    let mut missing = Vec::new();
    for sig in signatures {
        let Some(loaded) = assigned.remove(&sig.name) else {
            missing.push(sig);
            continue;
        };
        let (tensor, source) = materialize(sig, loaded, options, &mut symbols.warnings)?;
        check_tensor(sig, &tensor, &source.files, &mut symbols)?;
        tensors.push((sig.name.clone(), tensor));
        sources.push(source);
    }
    for sig in missing {
        let (tensor, source) = generate_missing(sig, options, tensors.len() as u64, &mut symbols)?;
        tensors.push((sig.name.clone(), tensor));
        sources.push(source);
    }
    // Keep the model's input order in the report and the run.
    let order = |name: &str| signatures.iter().position(|s| s.name == name).unwrap_or(usize::MAX);
    tensors.sort_by_key(|(n, _)| order(n));
    sources.sort_by_key(|s| order(&s.name));
    Ok(BoundInputs { tensors, sources, warnings: symbols.warnings })
}

/// Reads every file and assigns it to a model input (images are only collected: how they are
/// preprocessed depends on the input they fill).
fn load(specs: &[InputSpec], signatures: &[InputSignature], options: &LoadOptions) -> Result<BTreeMap<String, Loaded>> {
    let names: Vec<&str> = signatures.iter().map(|s| s.name.as_str()).collect();
    let known = || names.join(", ");
    let mut assigned: BTreeMap<String, Loaded> = BTreeMap::new();

    let mut put = |name: String, loaded: Loaded| -> Result<()> {
        match (assigned.get_mut(&name), loaded) {
            (None, loaded) => {
                assigned.insert(name, loaded);
                Ok(())
            }
            (Some(Loaded::Images(list)), Loaded::Images(more)) => {
                list.extend(more);
                Ok(())
            }
            (Some(_), Loaded::Tensor { file, .. }) => {
                bail!("input '{name}' is given twice (again by {})", file.display())
            }
            (Some(_), Loaded::Images(files)) => {
                bail!("input '{name}' is given twice (again by {})", files[0].display())
            }
        }
    };

    for spec in specs {
        let (explicit, path) = (spec.name.clone(), spec.path.clone());
        if let Some(name) = &explicit {
            if !names.contains(&name.as_str()) {
                bail!("--input {spec}: the model has no input '{name}' (its inputs: {})", known());
            }
        }
        let kind = detect_kind(&path)?;
        let first = || -> Result<String> {
            signatures
                .first()
                .map(|s| s.name.clone())
                .ok_or_else(|| anyhow::anyhow!("--input {spec}: the model has no inputs"))
        };
        match kind {
            FileKind::Image => put(explicit.map_or_else(first, Ok)?, Loaded::Images(vec![path]))?,
            FileKind::Npy => {
                let tensor = read_limited(&path, options.max_tensor_bytes)
                    .and_then(|b| npy::read_npy(&b, options.max_tensor_bytes))
                    .with_context(|| format!("input file {}", path.display()))?;
                put(explicit.map_or_else(first, Ok)?, Loaded::Tensor { tensor, kind: InputKind::Npy, file: path })?;
            }
            FileKind::Pb => {
                let (proto_name, tensor) = read_limited(&path, options.max_tensor_bytes)
                    .and_then(|b| tensor_proto::read(&b, options.max_tensor_bytes))
                    .with_context(|| format!("input file {}", path.display()))?;
                // ONNX test data names its tensors; fall back to the first input when it does not.
                let name = match explicit {
                    Some(n) => n,
                    None if names.contains(&proto_name.as_str()) => proto_name,
                    None => first()?,
                };
                put(name, Loaded::Tensor { tensor, kind: InputKind::Pb, file: path })?;
            }
            FileKind::Npz => {
                let arrays = read_limited(&path, options.max_tensor_bytes.saturating_mul(4))
                    .and_then(|b| npy::read_npz(&b, options.max_tensor_bytes))
                    .with_context(|| format!("input file {}", path.display()))?;
                if let Some(name) = explicit {
                    // NAME=file.npz: the archive must hold exactly that array, or just one.
                    let pick =
                        arrays.iter().position(|(k, _)| *k == name).or(if arrays.len() == 1 { Some(0) } else { None });
                    let Some(i) = pick else {
                        bail!(
                            "input file {}: has no array '{name}' (it has: {})",
                            path.display(),
                            array_names(&arrays)
                        );
                    };
                    let tensor = arrays.into_iter().nth(i).expect("index from position").1;
                    put(name, Loaded::Tensor { tensor, kind: InputKind::Npz, file: path })?;
                } else {
                    for (key, tensor) in arrays {
                        if !names.contains(&key.as_str()) {
                            bail!(
                                "input file {}: array '{key}' matches no model input (its inputs: {})",
                                path.display(),
                                known()
                            );
                        }
                        put(key, Loaded::Tensor { tensor, kind: InputKind::Npz, file: path.clone() })?;
                    }
                }
            }
        }
    }

    Ok(assigned)
}

/// The tensor for one input from what was assigned to it: a file's tensor as read, or images
/// preprocessed for this input and stacked into its batch.
/// A loaded input as the tensor the model takes; an image's decoding may leave `warnings`.
fn materialize(
    sig: &InputSignature,
    loaded: Loaded,
    options: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<(HostTensor, InputSource)> {
    let Some(dtype) = sig.dtype else {
        bail!("input '{}' is a {}, which dmlrun cannot feed from a file", sig.name, sig.type_name);
    };
    Ok(match loaded {
        Loaded::Tensor { tensor, kind, file } => {
            let source = InputSource {
                name: sig.name.clone(),
                dtype: tensor.dtype,
                shape: tensor.shape.clone(),
                kind,
                files: vec![file],
                detail: None,
            };
            (tensor, source)
        }
        Loaded::Images(files) => {
            let dims: Vec<Option<usize>> = sig.dims.iter().map(|d| d.size).collect();
            let pre = Preprocess::resolve(&options.preprocess, &sig.name, dtype, &dims)?;
            if let (true, Some(batch)) = (pre.batched, sig.dims[0].size) {
                if batch != files.len() {
                    bail!(
                        "input '{}' has a batch of {batch} but {} image(s) were given (give {batch}, or fix the batch with --dim {}={})",
                        sig.name,
                        files.len(),
                        sig.dims[0].symbol.as_deref().unwrap_or("batch"),
                        files.len()
                    );
                }
            }
            if !pre.batched && files.len() > 1 {
                bail!("input '{}' has no batch dimension; give one image, not {}", sig.name, files.len());
            }
            let (tensor, clipped) = match (pre.image_bytes(), pre.batch_shape(files.len())) {
                // Every image has the same size: each is written in place into one batch buffer.
                (Some(each), Some(shape)) => {
                    let mut batch = vec![0u8; each * files.len()];
                    let places: Vec<(&PathBuf, &mut [u8])> = files.iter().zip(batch.chunks_exact_mut(each)).collect();
                    let clipped = parallel_map(places, |(file, dst)| pre.load_into(file, dst))
                        .into_iter()
                        .collect::<Result<Vec<_>>>()?;
                    (HostTensor::from_bytes(dtype, shape, batch)?, clipped)
                }
                _ => {
                    let (parts, clipped): (Vec<_>, Vec<_>) = parallel_map(files.iter().collect(), |f| pre.load(f))
                        .into_iter()
                        .collect::<Result<Vec<_>>>()?
                        .into_iter()
                        .unzip();
                    let tensor = HostTensor::concat_batch(parts).with_context(|| {
                        format!("stacking images for input '{}' (they must give the same size)", sig.name)
                    })?;
                    (tensor, clipped)
                }
            };
            for (file, share) in files.iter().zip(clipped) {
                if let Some(share) = share.filter(|&s| s > 0.01) {
                    warnings.push(format!(
                        "image {} is 16-bit grey: {:.1}% of its pixels are above 255, which Pillow's convert('RGB') (torchvision's loader, and dmlrun, as it) clips to white; give it as a tensor (.npy) to keep its range",
                        file.display(),
                        share * 100.0
                    ));
                }
            }
            let source = InputSource {
                name: sig.name.clone(),
                dtype: tensor.dtype,
                shape: tensor.shape.clone(),
                kind: InputKind::Image,
                files,
                detail: Some(pre.describe()),
            };
            (tensor, source)
        }
    })
}

/// Generated data for an input no file gives (`--generate`): free dimensions take the size
/// another input gave the same name, else 1. `index` varies the seed per input.
fn generate_missing(
    sig: &InputSignature,
    options: &LoadOptions,
    index: u64,
    symbols: &mut Symbols,
) -> Result<(HostTensor, InputSource)> {
    let Some(fill) = options.generate else {
        bail!(
            "missing input '{}' ({}); give it with --input {}=FILE, or fill it with --generate random",
            sig.name,
            sig.describe(),
            sig.name
        );
    };
    let Some(dtype) = sig.dtype else {
        bail!("input '{}' is a {}, which dmlrun cannot generate", sig.name, sig.type_name);
    };
    let mut defaulted = Vec::new();
    let shape: Vec<usize> = sig
        .dims
        .iter()
        .map(|d| match (d.size, &d.symbol) {
            (Some(n), _) => n,
            (None, Some(sym)) if symbols.sizes.contains_key(sym) => symbols.sizes[sym].0,
            (None, sym) => {
                defaulted.push(sym.clone().unwrap_or_else(|| "?".into()));
                options.free_dim_size
            }
        })
        .collect();
    let seed = options.seed.wrapping_add(index);
    let range = options.range_for(&sig.name, dtype);
    let tensor = synthetic::generate(dtype, &shape, fill, range, seed, options.max_tensor_bytes)
        .with_context(|| format!("generating input '{}'", sig.name))?;
    let mut detail = match fill {
        Fill::Random if dtype != DType::Bool => format!("random in {} (seed {seed})", range.describe(dtype)),
        Fill::Random => format!("random (seed {seed})"),
        other => format!("{other:?}").to_lowercase(),
    };
    if !defaulted.is_empty() {
        detail.push_str(&format!(
            "; free dimension(s) {} set to {} (--free-dim-size; or --shape, --dim NAME=N, a manifest's dims)",
            defaulted.join(", "),
            options.free_dim_size
        ));
    }
    check_tensor(sig, &tensor, &[], symbols)?;
    let source = InputSource {
        name: sig.name.clone(),
        dtype,
        shape: tensor.shape.clone(),
        kind: InputKind::Generated,
        files: vec![],
        detail: Some(detail),
    };
    Ok((tensor, source))
}

/// Applies `f` to every item on all cores, keeping the order (image decoding is the costly
/// part of preparing a batch, and each image is independent; items may be disjoint places in
/// one buffer, each filled by one thread).
fn parallel_map<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len());
    if threads <= 1 {
        return items.into_iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let mut groups: Vec<Vec<T>> = Vec::new();
    let mut items = items.into_iter().peekable();
    while items.peek().is_some() {
        groups.push(items.by_ref().take(chunk).collect());
    }
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> =
            groups.into_iter().map(|group| scope.spawn(move || group.into_iter().map(f).collect::<Vec<R>>())).collect();
        handles.into_iter().flat_map(|h| h.join().expect("image workers do not panic")).collect()
    })
}

fn array_names(arrays: &[(String, HostTensor)]) -> String {
    arrays.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(name: &str, dtype: DType, dims: &[(Option<usize>, Option<&str>)]) -> InputSignature {
        InputSignature {
            name: name.into(),
            dtype: Some(dtype),
            type_name: dtype.name().into(),
            dims: dims.iter().map(|(s, sym)| DimSpec { size: *s, symbol: sym.map(String::from) }).collect(),
        }
    }

    #[test]
    fn input_specs_parse_once() {
        let spec =
            |name: Option<&str>, path: &str| InputSpec { name: name.map(String::from), path: PathBuf::from(path) };
        assert_eq!(InputSpec::parse("x=a.npy"), Ok(spec(Some("x"), "a.npy")));
        assert_eq!(InputSpec::parse("a.npy"), Ok(spec(None, "a.npy")));
        assert_eq!(InputSpec::parse("=a.npy"), Ok(spec(None, "=a.npy")));
        assert!(InputSpec::parse("x=").unwrap_err().contains("no file"));
        // An existing file whose name holds '=' is a file, not NAME=FILE.
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("a=b.npy");
        std::fs::write(&odd, b"").unwrap();
        assert_eq!(InputSpec::parse(odd.to_str().unwrap()), Ok(spec(None, odd.to_str().unwrap())));
        assert_eq!(spec(Some("x"), "a.npy").to_string(), "x=a.npy");
    }

    #[test]
    fn shape_check_names_axis_and_override() {
        let s = sig("input", DType::Float32, &[(Some(2), Some("batch")), (Some(3), None)]);
        let t = HostTensor::from_f32(vec![1, 3], &[0.0; 3]).unwrap();
        let err = check_tensor(&s, &t, &[], &mut Symbols::new()).unwrap_err().to_string();
        assert!(err.contains("axis 0 must be 2") && err.contains("--dim batch=2"), "{err}");
    }

    #[test]
    fn dtype_mismatch_is_reported() {
        let s = sig("ids", DType::Int64, &[(Some(1), None)]);
        let t = HostTensor::from_f32(vec![1], &[0.0]).unwrap();
        let err = check_tensor(&s, &t, &[], &mut Symbols::new()).unwrap_err().to_string();
        assert_eq!(err, "input 'ids' expects int64, got float32");
    }

    #[test]
    fn a_name_given_two_sizes_is_a_warning_as_onnx_runtime_accepts_it() {
        let a = sig("a", DType::Float32, &[(None, Some("n"))]);
        let b = sig("b", DType::Float32, &[(None, Some("n"))]);
        let mut symbols = Symbols::new();
        check_tensor(&a, &HostTensor::from_f32(vec![2], &[0.0; 2]).unwrap(), &[], &mut symbols).unwrap();
        check_tensor(&b, &HostTensor::from_f32(vec![3], &[0.0; 3]).unwrap(), &[], &mut symbols).unwrap();
        assert_eq!(symbols.warnings.len(), 1);
        assert!(
            symbols.warnings[0].starts_with("input 'b' has n=3 on axis 0, but input 'a' has n=2 on axis 0"),
            "{}",
            symbols.warnings[0]
        );
        // The same size twice is no news.
        let mut symbols = Symbols::new();
        check_tensor(&a, &HostTensor::from_f32(vec![2], &[0.0; 2]).unwrap(), &[], &mut symbols).unwrap();
        check_tensor(&b, &HostTensor::from_f32(vec![2], &[0.0; 2]).unwrap(), &[], &mut symbols).unwrap();
        assert!(symbols.warnings.is_empty());
    }

    #[test]
    fn missing_input_without_generate_is_an_error() {
        let s = sig("x", DType::Float32, &[(Some(1), None)]);
        let options = LoadOptions {
            preprocess: PreprocessRequest::default(),
            generate: None,
            seed: 0,
            max_tensor_bytes: 1 << 30,
            free_dim_size: 1,
            ranges: Vec::new(),
        };
        let err = bind(&[], std::slice::from_ref(&s), &options).unwrap_err().to_string();
        assert!(err.contains("missing input 'x'") && err.contains("--generate"), "{err}");
        let options = LoadOptions { generate: Some(Fill::Zeros), ..options };
        let bound = bind(&[], &[s], &options).unwrap();
        assert_eq!(bound.tensors[0].1.shape, vec![1]);
    }
}
