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
        let bytes = std::fs::read(&file).map_err(|e| anyhow!("tokenizer {}: {e}", file.display()))?;
        TextTokenizer::from_bytes(&bytes, &file)
    }

    /// A `tokenizer.json`'s bytes; `path` names it in errors.
    ///
    /// Hugging Face's reader panics on some malformed files (a decoder without a `type`, found by
    /// the genai fuzz target); such a file is an error like any other it refuses.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<TextTokenizer> {
        let refused = |why: String| {
            anyhow!("tokenizer {}: not a tokenizer.json that Hugging Face tokenizers reads: {why}", path.display())
        };
        let inner = crate::exit::unless_it_panics(|| tokenizers::Tokenizer::from_bytes(bytes))
            .ok_or_else(|| refused("its reader gave up on it (a malformed part)".to_string()))?
            .map_err(|e| refused(e.to_string()))?;
        Ok(TextTokenizer { inner, path: path.to_path_buf() })
    }

    /// The number of ids the tokenizer can produce (its vocabulary and added tokens).
    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// Token ids for `text`, with the special tokens the tokenizer's post-processor adds (a
    /// Llama tokenizer's BOS), as onnxruntime-genai's `Tokenizer.encode` gives them.
    pub fn encode(&self, text: &str) -> Result<Vec<i64>> {
        let encoding = crate::exit::unless_it_panics(|| self.inner.encode(text, true))
            .ok_or_else(|| anyhow!("tokenizer {}: encoding the prompt: its encoder gave up", self.path.display()))?
            .map_err(|e| anyhow!("tokenizer {}: encoding the prompt: {e}", self.path.display()))?;
        Ok(encoding.get_ids().iter().map(|&id| i64::from(id)).collect())
    }

    /// The text of `ids`, special tokens left out.
    pub fn decode(&self, ids: &[i64]) -> Result<String> {
        let ids: Vec<u32> = ids.iter().map(|&id| u32::try_from(id).unwrap_or(u32::MAX)).collect();
        crate::exit::unless_it_panics(|| self.inner.decode(&ids, true))
            .ok_or_else(|| anyhow!("tokenizer {}: decoding: its decoder gave up", self.path.display()))?
            .map_err(|e| anyhow!("tokenizer {}: decoding: {e}", self.path.display()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tokenizer_its_reader_panics_on_is_an_error() {
        // Found by the genai fuzz target: a decoder without its "type" made tokenizers 0.23
        // panic (`expect("Helper")`) instead of refusing the file.
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models/tiny_decoder/tokenizer.json");
        let good = std::fs::read_to_string(&path).unwrap();
        assert!(TextTokenizer::from_bytes(good.as_bytes(), &path).is_ok());
        let at = good.find("\"decoder\"").unwrap();
        let typed = at + good[at..].find("\"type\"").unwrap();
        let bad = format!("{}\"kind\"{}", &good[..typed], &good[typed + "\"type\"".len()..]);
        let err = TextTokenizer::from_bytes(bad.as_bytes(), &path).err().expect("refused");
        assert!(err.to_string().contains("not a tokenizer.json"), "{err}");
    }
}
