//! `dmlrun info MODEL`: what the model file declares, read without ONNX Runtime.

use anyhow::Result;

use crate::exit::ExitStatus;

use crate::cli::InfoArgs;
use crate::formats::model::{DimInfo, IoInfo, ModelFile, ModelInfo};
use crate::formats::weights::size;
use crate::settings::InfoSettings;

pub fn execute(args: &InfoArgs) -> Result<ExitStatus> {
    info(&InfoSettings::resolve(args)?)
}

fn info(settings: &InfoSettings) -> Result<ExitStatus> {
    let file = ModelFile::read(&settings.model)?;
    let info = &file.info;
    if let Some(path) = &settings.json {
        // The nodes' outline is what a rewrite asks of them, not what the file declares.
        let mut json = serde_json::to_value(info)?;
        if let Some(fields) = json.as_object_mut() {
            fields.remove("nodes");
            fields.remove("subgraph_nodes");
            fields.insert("size_bytes".into(), file.size_bytes.into());
            fields.insert("external_data_bytes".into(), file.external_data_bytes.into());
        }
        if crate::report::write_json(path, &json, "--json")? {
            return Ok(ExitStatus::Success);
        }
    }
    print_header(&settings.model, &file);
    print_inputs_and_outputs(info);
    print_free_dims(info);
    if let Some(form) = &info.quantized {
        crate::outln!("quantized  {}", form.describe());
    }
    if let Some(hint) = decoder_hint(&settings.model, info) {
        crate::outln!("{hint}");
    }
    if !info.metadata.is_empty() {
        crate::outln!("metadata:");
        for (k, v) in &info.metadata {
            crate::outln!("  {k} = {}", if settings.full_metadata { v.clone() } else { shortened(v) });
        }
    }
    Ok(ExitStatus::Success)
}

/// The file: its size, producer, opsets, nodes and weights.
fn print_header(model: &std::path::Path, file: &ModelFile) {
    let info = &file.info;
    crate::outln!("model      {}", model.display());
    crate::outln!("size       {}", describe_size(file));
    if let Some(p) = &info.producer_name {
        crate::outln!("producer   {p} {}", info.producer_version.as_deref().unwrap_or(""));
    }
    if let Some(v) = info.ir_version {
        crate::outln!("ir version {v}");
    }
    let opsets: Vec<String> = info.opsets.iter().map(|o| format!("{} {}", o.domain, o.version)).collect();
    crate::outln!("opsets     {}", opsets.join(", "));
    crate::outln!("nodes      {}", describe_nodes(info));
    crate::outln!("weights    {}", info.weights.describe());
    if let Some(doc) = &info.doc_string {
        crate::outln!("doc        {}", doc.lines().next().unwrap_or(""));
    }
}

/// The inputs and outputs, a line each (a decoder's layers collapsed).
fn print_inputs_and_outputs(info: &ModelInfo) {
    // A decoder's 30 layers of past_key_values.N.key are one line each way, not 60.
    let (inputs, outputs) = (collapsed(&info.inputs), collapsed(&info.outputs));
    // One name column for inputs and outputs, as wide as the longest name (at least 20), so a
    // long name never pushes its type out of line.
    let width = inputs.iter().chain(&outputs).map(|io| io.name.chars().count()).max().unwrap_or(0).max(20);
    crate::outln!("inputs:");
    for io in &inputs {
        print_io(io, width);
    }
    crate::outln!("outputs:");
    for io in &outputs {
        print_io(io, width);
    }
}

/// The free dimensions and the flags that fix them.
fn print_free_dims(info: &ModelInfo) {
    let symbolic = info.symbolic_dims();
    if !symbolic.is_empty() {
        let flags: Vec<String> = symbolic.iter().map(|s| format!("--dim {s}=<size>")).collect();
        crate::outln!("symbolic dimensions: {} (fix with {})", symbolic.join(", "), flags.join(" "));
    }
    for io in info.inputs.iter().filter(|io| io.dims.iter().any(DimInfo::is_unnamed_free)) {
        let axes: Vec<String> =
            io.dims.iter().enumerate().filter(|(_, d)| d.is_unnamed_free()).map(|(axis, _)| axis.to_string()).collect();
        let example: Vec<String> = io
            .dims
            .iter()
            .enumerate()
            .map(|(axis, d)| match (&d.value, &d.param) {
                (Some(v), _) => v.to_string(),
                (None, Some(name)) => format!("<{name}>"),
                (None, None) => format!("<d{axis}>"),
            })
            .collect();
        crate::outln!(
            "unnamed free dimensions (?): input '{}' {} {} (size them with --shape {}={})",
            io.name,
            if axes.len() == 1 { "axis" } else { "axes" },
            axes.join(", "),
            io.name,
            example.join(",")
        );
    }
}

/// `1.2 MiB`, or `538.4 MiB (the file 1.2 MiB, external data 537.2 MiB in model.onnx.data)`.
fn describe_size(file: &ModelFile) -> String {
    match file.info.external_data.is_empty() {
        true => size(file.size_bytes),
        false => format!(
            "{} (the file {}, external data {} in {})",
            size(file.size_bytes),
            size(file.size_bytes - file.external_data_bytes),
            size(file.external_data_bytes),
            file.info.external_data.join(", ")
        ),
    }
}

/// `66 (Conv 26, Relu 26, Concat 8, MaxPool 3, Dropout 1, ... and 2 more types)`: the most
/// frequent operator types first.
fn describe_nodes(info: &ModelInfo) -> String {
    const SHOWN: usize = 8;
    let mut types: Vec<(&String, &usize)> = info.op_types.iter().collect();
    types.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut parts: Vec<String> = types.iter().take(SHOWN).map(|(op, n)| format!("{op} {n}")).collect();
    if types.len() > SHOWN {
        parts.push(format!("... and {} more types", types.len() - SHOWN));
    }
    match parts.is_empty() {
        true => info.node_count.to_string(),
        false => format!("{} ({})", info.node_count, parts.join(", ")),
    }
}

/// What to run a decoder with: `dmlrun generate` of its genai folder, or of the bare model with a
/// tokenizer.
fn decoder_hint(model: &std::path::Path, info: &ModelInfo) -> Option<String> {
    let folder = crate::fsutil::folder_of(model);
    if folder.join("genai_config.json").is_file() {
        return Some(format!("a decoder: dmlrun generate {} --prompt \"...\"", folder.display()));
    }
    crate::generate::config::from_bare_model(model, info)
        .ok()
        .map(|_| format!("a decoder: dmlrun generate {} --tokenizer tokenizer.json --prompt \"...\"", model.display()))
}

/// Inputs or outputs whose names differ only in one number (`past_key_values.0.key`,
/// `past_key_values.1.key`, ...) and that have the same type, as one line where the first of them
/// stands: `past_key_values.{0..29}.key`. Three or more make a group, numbered without a gap; the
/// others between them (a decoder's `.value`s) keep their own group.
fn collapsed(ios: &[IoInfo]) -> Vec<IoInfo> {
    // The name around the number, and the type written out.
    type Key = (String, String, String);
    let mut groups: std::collections::HashMap<Key, Vec<u64>> = std::collections::HashMap::new();
    let keyed: Vec<Option<(Key, u64)>> = ios
        .iter()
        .map(|io| {
            let (prefix, number, suffix) = numbered(&io.name)?;
            Some(((prefix, suffix, format!("{:?} {:?} {:?}", io.dtype, io.dims, io.type_name)), number))
        })
        .collect();
    for (key, number) in keyed.iter().flatten() {
        groups.entry(key.clone()).or_default().push(*number);
    }
    let folds = |numbers: &Vec<u64>| {
        let mut sorted = numbers.clone();
        sorted.sort_unstable();
        sorted.len() >= 3 && sorted.windows(2).all(|w| w[1] == w[0] + 1)
    };
    let mut out = Vec::new();
    let mut said = std::collections::HashSet::new();
    for (io, keyed) in ios.iter().zip(&keyed) {
        match keyed {
            Some((key, _)) if folds(&groups[key]) => {
                if said.insert(key.clone()) {
                    let numbers = &groups[key];
                    let (low, high) = (numbers.iter().min(), numbers.iter().max());
                    let name = format!("{}{{{}..{}}}{}", key.0, low.unwrap_or(&0), high.unwrap_or(&0), key.1);
                    out.push(IoInfo { name, ..io.clone() });
                }
            }
            _ => out.push(io.clone()),
        }
    }
    out
}

/// `past_key_values.3.key` as (`past_key_values.`, 3, `.key`): the first number standing alone
/// between dots (or at an end).
fn numbered(name: &str) -> Option<(String, u64, String)> {
    let parts: Vec<&str> = name.split('.').collect();
    let at = parts.iter().position(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))?;
    let number = parts[at].parse().ok()?;
    let prefix = parts[..at].iter().map(|p| format!("{p}.")).collect();
    let suffix = parts[at + 1..].iter().map(|p| format!(".{p}")).collect();
    Some((prefix, number, suffix))
}

/// A metadata value as `info` prints it by default: a few lines at most, and how much was left.
fn shortened(value: &str) -> String {
    const LINES: usize = 4;
    const CHARS: usize = 200;
    let lines = value.lines().count();
    let kept: String = value.lines().take(LINES).collect::<Vec<_>>().join("\n");
    let kept: String = kept.chars().take(CHARS).collect();
    if kept.len() == value.len() {
        return value.to_string();
    }
    format!(
        "{kept}\n  ... ({lines} lines, {} characters in all; --full-metadata prints it whole)",
        value.chars().count()
    )
}

fn print_io(io: &IoInfo, width: usize) {
    let dims: Vec<String> = io
        .dims
        .iter()
        .map(|d| match &d.denotation {
            Some(den) => format!("{} ({den})", d.label()),
            None => d.label(),
        })
        .collect();
    match &io.type_name {
        Some(type_name) => crate::outln!("  {:<width$} {type_name}", io.name),
        None => {
            crate::outln!("  {:<width$} {} [{}]", io.name, io.dtype.as_deref().unwrap_or("non-tensor"), dims.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(name: &str, dims: &[i64]) -> IoInfo {
        IoInfo {
            name: name.into(),
            dtype: Some("float32".into()),
            dims: dims.iter().map(|&d| DimInfo { value: Some(d), ..DimInfo::default() }).collect(),
            ..IoInfo::default()
        }
    }

    #[test]
    fn numbered_siblings_of_one_type_are_one_line_and_others_stay() {
        let mut ios = vec![io("input_ids", &[1, 4])];
        for layer in 0..30 {
            ios.push(io(&format!("past_key_values.{layer}.key"), &[1, 3, 8, 64]));
            ios.push(io(&format!("past_key_values.{layer}.value"), &[1, 3, 8, 64]));
        }
        ios.push(io("layer.0.x", &[1]));
        ios.push(io("layer.1.x", &[2]));
        let names: Vec<String> = collapsed(&ios).into_iter().map(|i| i.name).collect();
        assert_eq!(
            names,
            ["input_ids", "past_key_values.{0..29}.key", "past_key_values.{0..29}.value", "layer.0.x", "layer.1.x"]
        );
    }
}
