//! A decoder as `generate` and `bench` take it: an onnxruntime-genai folder or a bare `.onnx`,
//! read into its spec, its header and its tokenizer, checked against each other.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use super::config;
use super::tokenizer::TextTokenizer;
use super::DecoderSpec;
use crate::formats::model::{ModelFile, ModelInfo};

/// A decoder read and checked: what it is driven by, what it declares, how it tokenizes.
pub struct DecoderModel {
    pub spec: DecoderSpec,
    /// The decoder's `.onnx` as dmlrun read it (once).
    pub file: ModelFile,
    pub tokenizer: Option<TextTokenizer>,
    /// Logits per position.
    pub vocab: usize,
}

impl DecoderModel {
    /// Reads `model` (a genai folder or a decoder `.onnx`); `tokenizer` overrides the folder's
    /// `tokenizer.json`; `context_length` gives a bare model's context.
    pub fn read(model: &Path, tokenizer: Option<&Path>, context_length: Option<usize>) -> Result<DecoderModel> {
        let (mut spec, tokenizer_path) = if model.is_dir() {
            let spec = config::from_genai_folder(model)?;
            let default_tokenizer = model.join("tokenizer.json");
            (
                spec,
                tokenizer.map(Path::to_path_buf).or_else(|| default_tokenizer.is_file().then_some(default_tokenizer)),
            )
        } else if model.is_file() {
            let info = ModelInfo::read(model)?;
            let mut spec = config::from_bare_model(model, &info)?;
            if let Some(context) = context_length {
                spec.context_length = context;
                spec.max_length = context;
            }
            // The tokenizer.json beside a bare model, as a folder's is taken from the folder.
            let beside = model.parent().map(|p| p.join("tokenizer.json")).filter(|p| p.is_file());
            (spec, tokenizer.map(Path::to_path_buf).or(beside))
        } else {
            bail!("model {}: no such file or folder", model.display());
        };
        if !spec.model.is_file() {
            bail!("{}: names the decoder {}, which does not exist", spec.source, spec.model.display());
        }
        let file = ModelFile::read(&spec.model)?;
        if model.is_dir() {
            config::keep_declared_inputs(&mut spec, &file.info);
        }
        spec.check_against(&file.info)?;
        let tokenizer = tokenizer_path.map(|p: PathBuf| TextTokenizer::load(&p)).transpose()?;
        let vocab = logits_width(&spec, &file.info)?;
        if let Some(t) = &tokenizer {
            t.check_fits(vocab, &spec.model)?;
        }
        Ok(DecoderModel { spec, file, tokenizer, vocab })
    }
}

/// How many logits a position has: the model's fixed last logits dimension, or the config's
/// vocabulary size.
fn logits_width(spec: &DecoderSpec, info: &ModelInfo) -> Result<usize> {
    let declared =
        info.outputs.iter().find(|o| o.name == spec.logits).and_then(|o| o.dims.last()).and_then(|d| d.value);
    match (declared, spec.vocab_size) {
        (Some(d), Some(v)) if d as usize != v => {
            bail!("{}: vocab_size {v}, but the model's '{}' has {d} per position", spec.source, spec.logits)
        }
        (Some(d), _) => Ok(d as usize),
        (None, Some(v)) => Ok(v),
        (None, None) => {
            bail!(
                "model {}: '{}' has no fixed vocabulary dimension and no config names one",
                spec.model.display(),
                spec.logits
            )
        }
    }
}
