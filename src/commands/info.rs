//! `dmlrun info MODEL`: what the model file declares, read without ONNX Runtime.

use anyhow::Result;

use crate::exit::ExitStatus;

use crate::cli::InfoArgs;
use crate::formats::model::{DimInfo, IoInfo, ModelInfo};
use crate::settings::InfoSettings;

pub fn execute(args: &InfoArgs) -> Result<ExitStatus> {
    info(&InfoSettings::resolve(args)?)
}

fn info(settings: &InfoSettings) -> Result<ExitStatus> {
    let info = ModelInfo::read(&settings.model)?;
    if let Some(path) = &settings.json {
        // The nodes' outline is what a rewrite asks of them, not what the file declares.
        let mut json = serde_json::to_value(&info)?;
        if let Some(fields) = json.as_object_mut() {
            fields.remove("nodes");
        }
        if crate::report::write_json(path, &json, "--json")? {
            return Ok(ExitStatus::Success);
        }
    }
    crate::outln!("model      {}", settings.model.display());
    if let Some(p) = &info.producer_name {
        crate::outln!("producer   {p} {}", info.producer_version.as_deref().unwrap_or(""));
    }
    if let Some(v) = info.ir_version {
        crate::outln!("ir version {v}");
    }
    let opsets: Vec<String> = info.opsets.iter().map(|o| format!("{} {}", o.domain, o.version)).collect();
    crate::outln!("opsets     {}", opsets.join(", "));
    crate::outln!("nodes      {}", info.node_count);
    if let Some(doc) = &info.doc_string {
        crate::outln!("doc        {}", doc.lines().next().unwrap_or(""));
    }
    // One name column for inputs and outputs, as wide as the longest name (at least 20), so a
    // long name never pushes its type out of line.
    let width = info.inputs.iter().chain(&info.outputs).map(|io| io.name.chars().count()).max().unwrap_or(0).max(20);
    crate::outln!("inputs:");
    for io in &info.inputs {
        print_io(io, width);
    }
    crate::outln!("outputs:");
    for io in &info.outputs {
        print_io(io, width);
    }
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
    if let Some(form) = &info.quantized {
        crate::outln!("quantized  {}", form.describe());
    }
    if !info.external_data.is_empty() {
        crate::outln!("external data: {}", info.external_data.join(", "));
    }
    if !info.metadata.is_empty() {
        crate::outln!("metadata:");
        for (k, v) in &info.metadata {
            crate::outln!("  {k} = {}", if settings.full_metadata { v.clone() } else { shortened(v) });
        }
    }
    Ok(ExitStatus::Success)
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
