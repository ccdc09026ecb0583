//! What a decoder needs to be driven: its tensor names, KV layout, context length and special
//! tokens, read from onnxruntime-genai's `genai_config.json` the way onnxruntime-genai reads it,
//! or inferred from a bare decoder's input and output names.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::formats::model::ModelInfo;

/// How the KV cache is kept between steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KvLayout {
    /// One buffer of the KV length's positions, bound as both past and present (static shapes):
    /// onnxruntime-genai's `past_present_share_buffer`.
    Shared,
    /// Each step's present outputs become the next step's past inputs, one position longer.
    Growing,
}

flag_values!(KvLayout { Shared => "shared", Growing => "growing" });
display_as_flag_value!(KvLayout);

/// A decoder's interface and limits: everything the generation loop and the engine need.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecoderSpec {
    /// The decoder's `.onnx` file.
    pub model: PathBuf,
    /// Where the spec came from: `genai_config.json`'s path, or `input names` for a bare model.
    pub source: String,
    pub input_ids: String,
    pub attention_mask: Option<String>,
    pub position_ids: Option<String>,
    /// `past_key_values.%d.key`-style patterns (`%d` is the layer).
    pub past_key: String,
    pub past_value: String,
    pub present_key: String,
    pub present_value: String,
    pub logits: String,
    pub layers: usize,
    pub kv_heads: usize,
    pub head_size: usize,
    /// The longest sequence (prompt plus new tokens) the model takes.
    pub context_length: usize,
    /// The vocabulary the logits span, where the config says it.
    pub vocab_size: Option<usize>,
    pub eos_token_ids: Vec<i64>,
    pub pad_token_id: Option<i64>,
    /// One KV buffer of `max_length` tokens, bound as both past and present (static shapes).
    pub past_present_share_buffer: bool,
    /// The config's `search.max_length` (defaults to the context length).
    pub max_length: usize,
    /// The config's model type (`llama`, `phi3`, ...), where it says.
    pub model_type: Option<String>,
}

impl DecoderSpec {
    /// The name of layer `layer`'s tensor from a `%d` pattern.
    pub fn layer_name(pattern: &str, layer: usize) -> String {
        pattern.replacen("%d", &layer.to_string(), 1)
    }

    /// Every (past input, present output) pair, keys then values per layer.
    pub fn kv_pairs(&self) -> Vec<(String, String)> {
        (0..self.layers)
            .flat_map(|l| {
                [
                    (Self::layer_name(&self.past_key, l), Self::layer_name(&self.present_key, l)),
                    (Self::layer_name(&self.past_value, l), Self::layer_name(&self.present_value, l)),
                ]
            })
            .collect()
    }

    /// Checks the spec against the model's declared inputs and outputs: one line naming the
    /// first tensor the model lacks.
    pub fn check_against(&self, info: &ModelInfo) -> Result<()> {
        let has_input = |n: &str| info.inputs.iter().any(|i| i.name == n);
        let has_output = |n: &str| info.outputs.iter().any(|o| o.name == n);
        let model = self.model.display();
        let mut inputs = vec![&self.input_ids];
        inputs.extend(self.attention_mask.iter());
        inputs.extend(self.position_ids.iter());
        for name in inputs {
            if !has_input(name) {
                bail!(
                    "{}: names input '{name}', which model {model} does not have (its inputs: {})",
                    self.source,
                    names(&info.inputs)
                );
            }
        }
        if !has_output(&self.logits) {
            bail!(
                "{}: names output '{}', which model {model} does not have (its outputs: {})",
                self.source,
                self.logits,
                names(&info.outputs)
            );
        }
        for (past, present) in self.kv_pairs() {
            if !has_input(&past) {
                bail!("{}: names KV input '{past}', which model {model} does not have", self.source);
            }
            if !has_output(&present) {
                bail!("{}: names KV output '{present}', which model {model} does not have", self.source);
            }
        }
        let extra: Vec<&str> = info
            .inputs
            .iter()
            .map(|i| i.name.as_str())
            .filter(|n| {
                ![Some(&self.input_ids), self.attention_mask.as_ref(), self.position_ids.as_ref()]
                    .iter()
                    .any(|k| k.is_some_and(|k| k == n))
                    && !self.kv_pairs().iter().any(|(p, _)| p == n)
            })
            .collect();
        if !extra.is_empty() {
            bail!(
                "model {model} has inputs the generation loop does not feed: {} (dmlrun generate drives input_ids, attention_mask, position_ids and the past KV)",
                extra.join(", ")
            );
        }
        Ok(())
    }
}

fn names(io: &[crate::formats::model::IoInfo]) -> String {
    io.iter().map(|i| i.name.as_str()).collect::<Vec<_>>().join(", ")
}

/// `genai_config.json`, the parts dmlrun reads (unknown fields are ignored, as onnxruntime-genai
/// ignores those it does not know).
#[derive(Debug, Deserialize)]
struct GenaiConfig {
    model: GenaiModel,
    #[serde(default)]
    search: GenaiSearch,
}

#[derive(Debug, Deserialize)]
struct GenaiModel {
    context_length: usize,
    decoder: GenaiDecoder,
    eos_token_id: OneOrMany,
    pad_token_id: Option<i64>,
    vocab_size: Option<usize>,
    #[serde(rename = "type")]
    model_type: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(i64),
    Many(Vec<i64>),
}

#[derive(Debug, Deserialize)]
struct GenaiDecoder {
    filename: String,
    head_size: usize,
    num_hidden_layers: usize,
    num_key_value_heads: usize,
    #[serde(default)]
    inputs: GenaiInputs,
    #[serde(default)]
    outputs: GenaiOutputs,
}

// onnxruntime-genai's defaults (config.h) where a name is left out.
#[derive(Debug, Deserialize)]
#[serde(default)]
struct GenaiInputs {
    input_ids: String,
    attention_mask: String,
    position_ids: String,
    past_key_names: String,
    past_value_names: String,
    inputs_embeds: Option<String>,
}

impl Default for GenaiInputs {
    fn default() -> Self {
        GenaiInputs {
            input_ids: "input_ids".into(),
            attention_mask: "attention_mask".into(),
            position_ids: "position_ids".into(),
            past_key_names: "past_key_values.%d.key".into(),
            past_value_names: "past_key_values.%d.value".into(),
            inputs_embeds: None,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(default)]
struct GenaiOutputs {
    logits: String,
    present_key_names: String,
    present_value_names: String,
}

impl Default for GenaiOutputs {
    fn default() -> Self {
        GenaiOutputs {
            logits: "logits".into(),
            present_key_names: "present.%d.key".into(),
            present_value_names: "present.%d.value".into(),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct GenaiSearch {
    max_length: Option<usize>,
    past_present_share_buffer: bool,
    num_beams: Option<usize>,
}

/// The model folder's `genai_config.json` read into a spec, with the names checked against the
/// decoder's declared inputs and outputs by [`DecoderSpec::check_against`] later.
pub fn from_genai_folder(folder: &Path) -> Result<DecoderSpec> {
    let config_path = folder.join("genai_config.json");
    if !config_path.is_file() {
        bail!(
            "{}: no genai_config.json in this folder (dmlrun generate takes an onnxruntime-genai model folder, or a decoder .onnx with --tokenizer)",
            folder.display()
        );
    }
    let text = crate::fsutil::read_text(&config_path).with_context(|| format!("reading {}", config_path.display()))?;
    from_genai_json(&text, folder, &config_path.display().to_string())
}

/// The largest sizes a config may give, far above any released decoder's (Llama 3.1 405B: 126
/// layers, 8 KV heads of 128; 128K context): past them a number is a mistake, and the KV buffer
/// sized from it would be one too.
const MAX_LAYERS: usize = 4096;
const MAX_KV_HEADS: usize = 4096;
const MAX_HEAD_SIZE: usize = 65536;
const MAX_CONTEXT: usize = 1 << 24;

/// A `genai_config.json`'s text, for the model folder `folder`; `source` names it in errors.
pub fn from_genai_json(text: &str, folder: &Path, source: &str) -> Result<DecoderSpec> {
    let config: GenaiConfig =
        serde_json::from_str(text).with_context(|| format!("{source}: not an onnxruntime-genai config"))?;
    let decoder = &config.model.decoder;
    for (what, value, most) in [
        ("num_hidden_layers", decoder.num_hidden_layers, MAX_LAYERS),
        ("num_key_value_heads", decoder.num_key_value_heads, MAX_KV_HEADS),
        ("head_size", decoder.head_size, MAX_HEAD_SIZE),
        ("context_length", config.model.context_length, MAX_CONTEXT),
    ] {
        if value == 0 || value > most {
            bail!("{source}: {what} {value} is not a size a decoder has (1 to {most})");
        }
    }
    if config.search.max_length.is_some_and(|m| m == 0 || m > MAX_CONTEXT) {
        bail!("{source}: search.max_length must be 1 to {MAX_CONTEXT}");
    }
    if decoder.filename.is_empty() {
        bail!("{source}: decoder.filename is empty");
    }
    if let Some(embeds) = &decoder.inputs.inputs_embeds {
        bail!("{source}: the decoder takes '{embeds}' (embeddings from a separate model); dmlrun generate drives decoders that take token ids");
    }
    if config.search.num_beams.is_some_and(|b| b > 1) {
        crate::errln!("dmlrun: note: {source} asks for beam search; dmlrun generates greedily or by sampling");
    }
    for (what, pattern) in [
        ("past_key_names", &decoder.inputs.past_key_names),
        ("past_value_names", &decoder.inputs.past_value_names),
        ("present_key_names", &decoder.outputs.present_key_names),
        ("present_value_names", &decoder.outputs.present_value_names),
    ] {
        if !pattern.contains("%d") {
            bail!("{source}: {what} '{pattern}' has no %d for the layer number");
        }
    }
    let eos_token_ids = match &config.model.eos_token_id {
        OneOrMany::One(id) => vec![*id],
        OneOrMany::Many(ids) => ids.clone(),
    };
    Ok(DecoderSpec {
        model: folder.join(&decoder.filename),
        source: source.to_string(),
        input_ids: decoder.inputs.input_ids.clone(),
        attention_mask: Some(decoder.inputs.attention_mask.clone()),
        position_ids: Some(decoder.inputs.position_ids.clone()),
        past_key: decoder.inputs.past_key_names.clone(),
        past_value: decoder.inputs.past_value_names.clone(),
        present_key: decoder.outputs.present_key_names.clone(),
        present_value: decoder.outputs.present_value_names.clone(),
        logits: decoder.outputs.logits.clone(),
        layers: decoder.num_hidden_layers,
        kv_heads: decoder.num_key_value_heads,
        head_size: decoder.head_size,
        context_length: config.model.context_length,
        vocab_size: config.model.vocab_size,
        eos_token_ids,
        pad_token_id: config.model.pad_token_id,
        past_present_share_buffer: config.search.past_present_share_buffer,
        max_length: config.search.max_length.unwrap_or(config.model.context_length),
        model_type: config.model.model_type.clone(),
    })
}

/// onnxruntime-genai feeds `attention_mask` and `position_ids` only where the model declares
/// them: the optional names of a genai spec are kept only when the model has them.
pub fn keep_declared_inputs(spec: &mut DecoderSpec, info: &ModelInfo) {
    let has = |n: &Option<String>| n.as_ref().is_some_and(|n| info.inputs.iter().any(|i| &i.name == n));
    if !has(&spec.attention_mask) {
        spec.attention_mask = None;
    }
    if !has(&spec.position_ids) {
        spec.position_ids = None;
    }
}

/// A bare decoder `.onnx` read by its input names: `input_ids`, optional `attention_mask` and
/// `position_ids`, `past_key_values.N.key|value` in, `present.N.key|value` (or
/// `present_key_values.N.*`) and `logits` out; KV shape `[batch, kv_heads, past, head_size]`.
pub fn from_bare_model(model: &Path, info: &ModelInfo) -> Result<DecoderSpec> {
    let display = model.display();
    let input = |n: &str| info.inputs.iter().find(|i| i.name == n);
    if input("input_ids").is_none() {
        bail!(
            "model {display}: no 'input_ids' input (inputs: {}); dmlrun generate drives decoders that take token ids",
            names(&info.inputs)
        );
    }
    let layers = (0..).take_while(|l| input(&format!("past_key_values.{l}.key")).is_some()).count();
    if layers == 0 {
        bail!(
            "model {display}: no KV-cache inputs (past_key_values.0.key ...): dmlrun generate needs a decoder with past/present key-value tensors (inputs: {})",
            names(&info.inputs)
        );
    }
    let output_present = ["present.%d.key", "present_key_values.%d.key"]
        .into_iter()
        .find(|p| info.outputs.iter().any(|o| o.name == DecoderSpec::layer_name(p, 0)))
        .with_context(|| format!("model {display}: no present.0.key output to go with its past_key_values inputs"))?;
    let present_value = output_present.replace(".key", ".value");
    let past = input("past_key_values.0.key").expect("counted above");
    let dim = |i: usize| past.dims.get(i).and_then(|d| d.value).filter(|v| *v > 0).map(|v| v as usize);
    let (Some(kv_heads), Some(head_size)) = (dim(1), dim(3)) else {
        bail!("model {display}: past_key_values.0.key is not [batch, kv_heads, past, head_size] with fixed heads and head size");
    };
    let logits = info
        .outputs
        .iter()
        .find(|o| o.name == "logits")
        .map(|o| o.name.clone())
        .with_context(|| format!("model {display}: no 'logits' output (outputs: {})", names(&info.outputs)))?;
    let vocab_size = info
        .outputs
        .iter()
        .find(|o| o.name == logits)
        .and_then(|o| o.dims.last())
        .and_then(|d| d.value)
        .map(|v| v as usize);
    let optional = |n: &str| input(n).map(|i| i.name.clone());
    // A bare model says nothing of its context; a share buffer needs one, so the flag gives it.
    Ok(DecoderSpec {
        model: model.to_path_buf(),
        source: format!("the input names of {display}"),
        input_ids: "input_ids".into(),
        attention_mask: optional("attention_mask"),
        position_ids: optional("position_ids"),
        past_key: "past_key_values.%d.key".into(),
        past_value: "past_key_values.%d.value".into(),
        present_key: output_present.to_string(),
        present_value,
        logits,
        layers,
        kv_heads,
        head_size,
        context_length: 2048,
        vocab_size,
        eos_token_ids: Vec::new(),
        pad_token_id: None,
        past_present_share_buffer: false,
        max_length: 2048,
        model_type: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_config(dir: &Path, text: &str) {
        std::fs::write(dir.join("genai_config.json"), text).unwrap();
    }

    const CONFIG: &str = r#"{"model": {"context_length": 128, "eos_token_id": [2, 7], "pad_token_id": 0,
        "type": "llama", "vocab_size": 384,
        "decoder": {"filename": "model.onnx", "head_size": 16, "num_hidden_layers": 2,
        "num_key_value_heads": 2, "inputs": {"input_ids": "ids"}}},
        "search": {"max_length": 96, "past_present_share_buffer": true}}"#;

    #[test]
    fn reads_genai_config_with_genai_defaults_for_missing_names() {
        let dir = tempfile::tempdir().unwrap();
        write_config(dir.path(), CONFIG);
        let spec = from_genai_folder(dir.path()).unwrap();
        assert_eq!(spec.input_ids, "ids");
        assert_eq!(spec.past_key, "past_key_values.%d.key");
        assert_eq!(spec.present_value, "present.%d.value");
        assert_eq!(spec.eos_token_ids, vec![2, 7]);
        assert_eq!(
            (spec.layers, spec.kv_heads, spec.head_size, spec.context_length, spec.max_length),
            (2, 2, 16, 128, 96)
        );
        assert!(spec.past_present_share_buffer);
        assert_eq!(spec.kv_pairs()[3], ("past_key_values.1.value".to_string(), "present.1.value".to_string()));
    }

    #[test]
    fn a_folder_without_genai_config_is_one_line_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let error = from_genai_folder(dir.path()).unwrap_err().to_string();
        assert!(error.contains("no genai_config.json"), "{error}");
        assert!(error.contains(&dir.path().display().to_string()), "{error}");
    }

    #[test]
    fn a_kv_pattern_without_the_layer_number_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        write_config(dir.path(), &CONFIG.replace(r#""input_ids": "ids""#, r#""past_key_names": "past_key""#));
        let error = from_genai_folder(dir.path()).unwrap_err().to_string();
        assert!(error.contains("past_key_names 'past_key' has no %d"), "{error}");
    }
}
