//! The entry points of the fuzz targets (fuzz/fuzz_targets/) into what users hand the newer
//! commands: a model folder's `genai_config.json` and `tokenizer.json` (generate), the reports
//! `merge` reads, and the graph surgery of `reduce`. Each runs the whole path a command takes on
//! bytes instead of files, and asserts what must hold of a success; an error is a fine outcome,
//! a panic or an abort is the bug.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::generate::config::from_genai_json;
use crate::generate::tokenizer::TextTokenizer;
use crate::graph::{Graph, TensorType};
use crate::report::merge::{self, Report};
use crate::tensor::DType;

/// `genai_config.json` read into a decoder's spec, and `tokenizer.json` loaded, used on text and
/// checked against the config's vocabulary, as `dmlrun generate` does.
pub fn genai(config: &str, tokenizer: &[u8]) {
    if let Ok(spec) = from_genai_json(config, Path::new("/model"), "genai_config.json") {
        assert!(spec.layers >= 1 && spec.kv_heads >= 1 && spec.head_size >= 1 && spec.context_length >= 1);
        assert_eq!(spec.kv_pairs().len(), 2 * spec.layers);
        let _ = spec.check_against(&crate::formats::model::ModelInfo::default());
        let _ = crate::generate::kv_length(spec.context_length / 2 + 1, 1, None, spec.context_length);
    }
    if let Ok(tokenizer) = TextTokenizer::from_bytes(tokenizer, Path::new("tokenizer.json")) {
        let vocab = tokenizer.vocab_size();
        let _ = tokenizer.check_fits(vocab, Path::new("model.onnx"));
        if let Ok(ids) = tokenizer.encode("Why is the sky blue? ¿Por qué? 空はなぜ青い") {
            let _ = tokenizer.decode(&ids);
        }
        let _ = tokenizer.decode(&[0, 1, 2, i64::from(u32::MAX), -1]);
    }
}

/// Reports read as `merge` reads them, then merged as shards, compared side by side, and every
/// export of the result rendered.
pub fn merge(texts: &[&str]) {
    let reports: Vec<(PathBuf, Report)> = texts
        .iter()
        .enumerate()
        .filter_map(|(i, text)| {
            let path = PathBuf::from(format!("report-{i}.json"));
            Report::parse(text, &path).ok().map(|r| (path, r))
        })
        .collect();
    if reports.is_empty() {
        return;
    }
    if let Ok(comparison) = merge::compare(reports.clone()) {
        let _ = comparison.markdown();
        let _ = comparison.html();
        let _ = serde_json::to_string(&comparison);
    }
    match merge::merge_shards(reports) {
        Ok(Report::Test(report)) => {
            let _ = crate::report::validation::junit::render(&report);
            let _ = crate::report::validation::html::render(&report);
            let _ = crate::report::validation::human::render(&report, true, false, None);
            let _ = crate::report::validation::expectations::render(&report);
        }
        Ok(Report::Bench(report)) => {
            use crate::report::export::Exporter;
            let _ = crate::report::bench::json::JsonExporter.render(&report);
            let _ = crate::report::bench::csv::CsvExporter.render(&report);
            let _ = crate::report::bench::markdown::MarkdownExporter.render(&report);
            let _ = crate::report::bench::html::HtmlExporter.render(&report);
            let _ = crate::report::bench::human::render(&report);
        }
        Err(_) => {}
    }
}

/// A model read for reduce's surgery, and the edits reduce makes: every tensor exposed, and runs
/// of nodes extracted as models of their own (the whole graph, each half, each of the first
/// nodes alone). What an edit writes of a model the header reader reads must read back, as a
/// model and as a graph.
pub fn graph(bytes: &[u8]) {
    // reduce reads a model's header before its graph: what the header reader refuses never gets
    // here, and what it reads must read back after an edit.
    if crate::formats::model::ModelInfo::from_bytes(bytes).is_err() {
        return;
    }
    let Ok(graph) = Graph::from_bytes(bytes, Path::new("/nonexistent")) else { return };
    let readable = |written: &[u8]| {
        crate::formats::model::ModelInfo::from_bytes(written).expect("an edited model reads back");
        Graph::from_bytes(written, Path::new("/nonexistent")).expect("an edited graph reads back");
    };
    if let Ok(written) = graph.with_outputs(&graph.intermediate_tensors()) {
        readable(&written);
    }
    let n = graph.nodes().len();
    if n == 0 {
        return;
    }
    let mut ranges = vec![0..=n - 1, 0..=(n - 1) / 2, n / 2..=n - 1];
    ranges.extend((0..n.min(8)).map(|i| i..=i));
    for range in ranges {
        let types: HashMap<String, TensorType> = graph
            .boundary_inputs(&range)
            .into_iter()
            .map(|name| (name, TensorType { dtype: DType::Float32, shape: vec![1] }))
            .collect();
        let _ = graph.boundary_outputs(&range);
        if let Ok(written) = graph.extract(&range, &types) {
            readable(&written);
        }
    }
}
