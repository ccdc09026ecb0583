//! The figures for a person, printed after the generated text (to stderr).

use std::fmt::Write;

use super::{f1, f2, stat, GenerateReport, PromptResult};
use crate::generate::{CaptureAsk, KvLayout};

/// The figures for a person; `verbose` adds each prompt's token ids and its decode latency along
/// the positions (where a growing KV cache shows).
pub fn human(report: &GenerateReport, verbose: bool) -> String {
    let mut out = String::new();
    session(&mut out, report);
    for p in &report.prompts {
        prompt(&mut out, report, p, verbose);
    }
    if let Some(p) = &report.perplexity {
        let _ = writeln!(out, "{}", p.describe());
    }
    if let Some(rss) = report.peak_rss_bytes {
        let mib = |b: u64| format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0));
        let phases: Vec<String> =
            report.memory_phases.iter().filter_map(|p| Some(format!("{} {}", p.phase, mib(p.rss_bytes?)))).collect();
        match phases.is_empty() {
            true => _ = writeln!(out, "memory:    peak RSS {}", mib(rss)),
            false => _ = writeln!(out, "memory:    peak RSS {}; RSS after {}", mib(rss), phases.join(", ")),
        }
    }
    comparison(&mut out, report);
    out
}

/// The model, its weights, the session and its KV cache, and on DirectML how decode runs.
fn session(out: &mut String, report: &GenerateReport) {
    let _ = writeln!(out, "model:     {} ({})", report.model.display(), report.device.describe());
    if let Some(off) = report.device.off_directml_line() {
        let _ = writeln!(out, "off DirectML: {off}");
    }
    if let Some(changed) = &report.device.direct3d12 {
        let _ = writeln!(out, "direct3d12: {changed}");
    }
    if let Some(q) = &report.quantization {
        let _ = writeln!(out, "weights:   {}", q.describe());
    }
    let _ = writeln!(
        out,
        "session:   {:.1} ms to create; KV cache {} ({}{}, {:.1} MiB{})",
        report.session_create_ms,
        report.kv_cache.layout,
        report.kv_cache.length.map(|l| format!("{l} positions, ")).unwrap_or_default(),
        if report.kv_cache.layout == KvLayout::Shared { "bound as past and present" } else { "present -> past" },
        report.kv_cache.bytes as f64 / (1024.0 * 1024.0),
        if report.kv_cache.on_device { ", on the device" } else { "" },
    );
    if let Some(decode) = &report.decode_session {
        let rewritten = decode.rewrite.as_ref().map_or_else(|| "its model as written".into(), |r| r.describe());
        let handed = match decode.hand_over_p50_ms {
            Some(ms) => format!("the prompt's KV cache handed over {} times, p50 {ms:.2} ms", decode.hand_overs),
            None => "the KV cache fed as inputs".to_string(),
        };
        let _ = writeln!(out, "decode:    {} steps in a session of their own ({handed}); {rewritten}", decode.steps);
    }
    // Said where it is DirectML's question, or where a flag asked it.
    if report.plan.uses_directml() || report.graph_capture.asked != CaptureAsk::Default {
        let capture = &report.graph_capture;
        let _ = writeln!(
            out,
            "capture:   {} ({})",
            if capture.captured { "the decode step captured once, replayed (DirectML graph capture)" } else { "none" },
            capture.why
        );
        let choice = &report.token_choice;
        let _ = writeln!(
            out,
            "choice:    {} ({})",
            if choice.on_device {
                "on the device, one token id read back"
            } else {
                "on the host, from the logits read back"
            },
            choice.why
        );
    }
}

/// One prompt's figures: TTFT, decode per token, where a token's time goes.
fn prompt(out: &mut String, report: &GenerateReport, p: &PromptResult, verbose: bool) {
    let f = &p.figures;
    let _ = writeln!(
        out,
        "prompt:    {} ({} tokens) -> {} new tokens ({}), {} repetition(s) after {} warm-up",
        p.source,
        f.prompt_tokens,
        f.new_tokens,
        serde_json::to_value(p.stop).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
        f.repetitions,
        report.warmup
    );
    let _ = writeln!(
        out,
        "  time to first token  {} ms (p50)   prompt {} tokens/s",
        stat(&f.ttft_ms, |s| s.p50),
        f1(f.prompt_tokens_per_s)
    );
    let _ = writeln!(
        out,
        "  decode per token     p50 {} ms   p90 {} ms   p99 {} ms   {} tokens/s",
        stat(&f.decode_ms, |s| s.p50),
        stat(&f.decode_ms, |s| s.p90),
        stat(&f.decode_ms, |s| s.p99),
        f1(f.generation_tokens_per_s)
    );
    let ph = &f.decode_phases;
    let _ = writeln!(
        out,
        "  per token: run {} ms, inputs {} ms, {} {} ms, sampling {} ms;  end to end {} ms (p50)",
        f2(ph.compute_ms),
        f2(ph.inputs_ms),
        if report.token_choice.on_device { "ArgMax and id out" } else { "logits out" },
        f2(ph.outputs_ms),
        f2(ph.sampling_ms),
        stat(&f.end_to_end_ms, |s| s.p50)
    );
    if verbose {
        let _ = writeln!(out, "  token ids: {:?}", p.token_ids);
        let _ = writeln!(out, "  decode ms by position: {}", by_position(&f.per_position_ms));
    }
}

/// `--compare-ep`: where the tokens part and the logits' verdict.
fn comparison(out: &mut String, report: &GenerateReport) {
    if let Some(c) = &report.comparison {
        for p in &c.prompts {
            let tokens = match p.first_difference {
                None => format!("{} generates the same {} tokens", c.reference_ep, p.matching),
                Some(at) => format!(
                    "{} parts at token {at} ({} equal before it): this EP {}, {} {}",
                    c.reference_ep,
                    p.matching,
                    token_at(report.prompts.iter().find(|r| r.source == p.source).map(|r| &r.token_ids[..]), at),
                    c.reference_ep,
                    token_at(Some(&p.reference_token_ids), at),
                ),
            };
            let _ = writeln!(out, "compare:   {tokens}");
            let _ = writeln!(out, "  logits:  {}: {}", p.logits.verdict_word(), p.logits.summary());
        }
    }
}

/// The per-position decode latency in at most 8 spans, each its mean: `2-17 0.21, 18-33 0.22`.
fn by_position(per_position_ms: &[f64]) -> String {
    if per_position_ms.is_empty() {
        return "none (one new token)".to_string();
    }
    let span = per_position_ms.len().div_ceil(8);
    per_position_ms
        .chunks(span)
        .enumerate()
        .map(|(i, chunk)| {
            // Position 0 of the list is the second token: the first is the prefill's.
            let (first, last) = (i * span + 2, i * span + chunk.len() + 1);
            let mean = chunk.iter().sum::<f64>() / chunk.len() as f64;
            let at = if first == last { first.to_string() } else { format!("{first}-{last}") };
            format!("{at} {}", f2(mean))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Token `at` of a generation, or that it had ended before it.
fn token_at(ids: Option<&[i64]>, at: usize) -> String {
    match ids.and_then(|ids| ids.get(at)) {
        Some(id) => id.to_string(),
        None => "ended before it".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parted_token_is_its_id_or_the_end_of_its_sequence() {
        assert_eq!(token_at(Some(&[381, 206]), 1), "206");
        assert_eq!(token_at(Some(&[381]), 1), "ended before it");
        assert_eq!(token_at(None, 0), "ended before it");
    }
}
