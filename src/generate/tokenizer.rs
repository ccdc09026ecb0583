//! Text to token ids and back, through Hugging Face's `tokenizers` reading `tokenizer.json`.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};

/// A `tokenizer.json`, loaded.
pub struct TextTokenizer {
    inner: tokenizers::Tokenizer,
    pub path: PathBuf,
}

impl TextTokenizer {
    /// Loads `path`: a `tokenizer.json`, or a folder holding one.
    pub fn load(path: &Path) -> Result<TextTokenizer> {
        let file = if path.is_dir() { path.join("tokenizer.json") } else { path.to_path_buf() };
        if !file.is_file() {
            bail!("tokenizer {}: no such file", file.display());
        }
        let inner = tokenizers::Tokenizer::from_file(&file).map_err(|e| {
            anyhow!("tokenizer {}: not a tokenizer.json that Hugging Face tokenizers reads: {e}", file.display())
        })?;
        Ok(TextTokenizer { inner, path: file })
    }

    /// The number of ids the tokenizer can produce (its vocabulary and added tokens).
    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// Token ids for `text`, with the special tokens the tokenizer's post-processor adds (a
    /// Llama tokenizer's BOS), as onnxruntime-genai's `Tokenizer.encode` gives them.
    pub fn encode(&self, text: &str) -> Result<Vec<i64>> {
        let encoding = self
            .inner
            .encode(text, true)
            .map_err(|e| anyhow!("tokenizer {}: encoding the prompt: {e}", self.path.display()))?;
        Ok(encoding.get_ids().iter().map(|&id| i64::from(id)).collect())
    }

    /// The text of `ids`, special tokens left out.
    pub fn decode(&self, ids: &[i64]) -> Result<String> {
        let ids: Vec<u32> = ids.iter().map(|&id| u32::try_from(id).unwrap_or(u32::MAX)).collect();
        self.inner.decode(&ids, true).map_err(|e| anyhow!("tokenizer {}: decoding: {e}", self.path.display()))
    }

    /// Checks that the tokenizer fits a model whose logits span `model_vocab` ids: a tokenizer
    /// with more ids than the logits belongs to another model. (Fewer is normal: models pad
    /// their vocabulary.)
    pub fn check_fits(&self, model_vocab: usize, model: &Path) -> Result<()> {
        let own = self.vocab_size();
        if own > model_vocab {
            bail!(
                "tokenizer {} has {own} tokens but model {} has {model_vocab} logits per position: the tokenizer is not this model's",
                self.path.display(),
                model.display()
            );
        }
        Ok(())
    }
}

/// Text produced as tokens arrive: decodes everything generated so far and hands out what is new,
/// holding back a tail that ends inside a multi-byte character (decoded as U+FFFD).
#[derive(Default)]
pub struct TextStream {
    ids: Vec<i64>,
    emitted: usize,
}

impl TextStream {
    /// Adds `id`; returns the text it completes, if any.
    pub fn push(&mut self, tokenizer: &TextTokenizer, id: i64) -> Result<String> {
        self.ids.push(id);
        let text = tokenizer.decode(&self.ids)?;
        if text.ends_with('\u{FFFD}') || text.len() < self.emitted || !text.is_char_boundary(self.emitted) {
            return Ok(String::new());
        }
        let new = text[self.emitted..].to_string();
        self.emitted = text.len();
        Ok(new)
    }

    /// What is still held back at the end (a tail that never completed a character).
    pub fn finish(&mut self, tokenizer: &TextTokenizer) -> Result<String> {
        let text = tokenizer.decode(&self.ids)?;
        let rest = text.get(self.emitted..).unwrap_or_default().to_string();
        self.emitted = text.len();
        Ok(rest)
    }
}
