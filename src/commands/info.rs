//! `dmlrun info MODEL`: what the model file declares, read without ONNX Runtime.

use anyhow::Result;

use crate::exit::ExitStatus;

use crate::cli::InfoArgs;
use crate::formats::model::{IoInfo, ModelInfo};

pub fn execute(args: &InfoArgs) -> Result<ExitStatus> {
    let info = ModelInfo::read(&args.model)?;
    if let Some(path) = &args.json {
        if crate::report::write_json(path, &info, "--json")? {
            return Ok(ExitStatus::Success);
        }
    }
    crate::outln!("model      {}", args.model.display());
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
    crate::outln!("inputs:");
    for io in &info.inputs {
        print_io(io);
    }
    crate::outln!("outputs:");
    for io in &info.outputs {
        print_io(io);
    }
    let symbolic = info.symbolic_dims();
    if !symbolic.is_empty() {
        let flags: Vec<String> = symbolic.iter().map(|s| format!("--dim {s}=<size>")).collect();
        crate::outln!("symbolic dimensions: {} (fix with {})", symbolic.join(", "), flags.join(" "));
    }
    if !info.metadata.is_empty() {
        crate::outln!("metadata:");
        for (k, v) in &info.metadata {
            crate::outln!("  {k} = {v}");
        }
    }
    Ok(ExitStatus::Success)
}

fn print_io(io: &IoInfo) {
    let dims: Vec<String> = io
        .dims
        .iter()
        .map(|d| match &d.denotation {
            Some(den) => format!("{} ({den})", d.label()),
            None => d.label(),
        })
        .collect();
    crate::outln!("  {:<20} {} [{}]", io.name, io.dtype.as_deref().unwrap_or("non-tensor"), dims.join(", "));
}
