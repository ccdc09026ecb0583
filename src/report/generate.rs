//! `dmlrun generate`'s report: the value, and its human summary, CSV, Markdown and HTML.

use std::fmt::Write;
use std::path::PathBuf;

use serde::Serialize;

use crate::generate::figures::GenerationFigures;
use crate::generate::perplexity::Perplexity;
use crate::generate::verdict::LogitAgreement;
use crate::generate::{CaptureAsk, DecoderSpec, GraphCapture, KvLayout, Sampling, Stop, TokenChoice};
use crate::runtime::engine::{DeviceReport, GpuMemory};
use crate::runtime::plan::SessionPlan;
use crate::runtime::LibraryInfo;

pub const GENERATE_SCHEMA: &str = "dmlrun.generate/1";

/// Everything `dmlrun generate` measured.
#[derive(Debug, Clone, Serialize)]
pub struct GenerateReport {
    pub schema: &'static str,
    pub dmlrun_version: &'static str,
    pub model: PathBuf,
    pub decoder: DecoderSpec,
    pub tokenizer: Option<PathBuf>,
    pub onnxruntime: LibraryInfo,
    pub device: DeviceReport,
    pub plan: SessionPlan,
    /// ONNX Runtime session creation (ms).
    pub session_create_ms: f64,
    pub kv_cache: KvCache,
    /// The decode step captured once and replayed (the prefill uncaptured).
    pub decode_step_captured: bool,
    /// Whether it was captured, and why.
    pub graph_capture: GraphCapture,
    /// Where the decode step's token was chosen (on the device: one int64 read back), and why.
    pub token_choice: TokenChoice,
    pub sampling: Sampling,
    pub max_new_tokens: usize,
    pub warmup: u64,
    pub prompts: Vec<PromptResult>,
    /// The process's peak resident memory, where the platform reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_memory: Option<GpuMemory>,
    /// The memory at the end of each phase of the first generation: the session made (load), the
    /// prompt's first token (prefill), the last token (decode).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub memory_phases: Vec<PhaseMemory>,
    /// With --compare-ep: the reference EP's greedy tokens against these.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<TokenComparison>,
    /// With --perplexity: the text's perplexity (no prompts are generated then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub perplexity: Option<PerplexityResult>,
    /// With --decompose or --gemm-zero-bias: what the decoder had rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<crate::runtime::engine::RewriteReport>,
    /// With --precision int4 or int8: what was quantized.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quantization: Option<crate::graph::Quantization>,
    /// Ctrl-C stopped the run; the figures are over what was done.
    pub interrupted: bool,
}

/// The process's memory when a phase of a generation ended.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseMemory {
    /// `load`, `prefill` or `decode`.
    pub phase: String,
    /// When it ended (milliseconds since the Unix epoch), to line up readings taken outside the
    /// process (the GPU's own, where the adapter's figures are not DirectML's: under Wine).
    pub ended_unix_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rss_bytes: Option<u64>,
    /// The peak so far: over this phase and those before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    /// DXGI's figures for the adapter DirectML runs on, where it is asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adapter: Option<crate::runtime::adapters::VideoMemory>,
}

impl PhaseMemory {
    /// The readings now, for the phase just ended.
    pub fn now(phase: &str, adapter: Option<crate::runtime::adapters::VideoMemory>) -> PhaseMemory {
        let ended_unix_ms =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        PhaseMemory {
            phase: phase.to_string(),
            ended_unix_ms,
            rss_bytes: crate::sysinfo::rss_bytes(),
            peak_rss_bytes: crate::sysinfo::peak_rss_bytes(),
            adapter,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct KvCache {
    pub layout: KvLayout,
    /// Positions in the shared buffer (prompt plus new tokens at most).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<usize>,
    /// Bytes allocated (shared) or at the largest (growing).
    pub bytes: u64,
    /// In DirectML's memory (--io-on-device) rather than the host's.
    pub on_device: bool,
}

/// One prompt's generation and figures.
#[derive(Debug, Clone, Serialize)]
pub struct PromptResult {
    /// `text`, `file:LINE` or `synthetic`.
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub prompt_token_ids: Vec<i64>,
    /// The first measured repetition's tokens.
    pub token_ids: Vec<i64>,
    /// The first repetition (counting warm-ups, from 1) whose tokens are not the first one's:
    /// with a seeded sampler every repetition should make the same, so one that does not shows
    /// state left over from the last (a KV buffer, a captured graph's inputs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub differing_repetition: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generated_text: Option<String>,
    pub stop: Stop,
    pub figures: GenerationFigures,
}

/// `--perplexity`: a text scored on this EP and, with `--compare-ep`, on the reference.
#[derive(Debug, Clone, Serialize)]
pub struct PerplexityResult {
    pub text: PathBuf,
    pub measured: Perplexity,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_ep: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<Perplexity>,
    /// This EP's perplexity over the reference's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
}

impl PerplexityResult {
    /// The lines a person reads.
    pub fn describe(&self) -> String {
        let m = &self.measured;
        let mut out = format!(
            "perplexity: {:.4} on {} ({} tokens, {} scored, in {} window(s) of {} with stride {}; mean NLL {:.4} nats; {:.1} s)",
            m.perplexity,
            self.text.display(),
            m.tokens,
            m.scored,
            m.windows,
            m.window,
            m.stride,
            m.mean_nll,
            m.ms / 1000.0
        );
        if let (Some(ep), Some(r), Some(ratio)) = (&self.reference_ep, &self.reference, self.ratio) {
            let _ = write!(
                out,
                "\n  reference  {:.4} on {ep}; ratio {ratio:.5} ({:+.3}%)",
                r.perplexity,
                (ratio - 1.0) * 100.0
            );
        }
        out
    }
}

/// Token ids from two EPs, greedy, compared prompt by prompt.
#[derive(Debug, Clone, Serialize)]
pub struct TokenComparison {
    pub reference_ep: String,
    pub prompts: Vec<PromptComparison>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PromptComparison {
    pub source: String,
    /// Tokens equal from the start.
    pub matching: usize,
    /// The first position where they part (None: equal throughout).
    pub first_difference: Option<usize>,
    /// Every step's logits against the reference's (this EP fed the reference's tokens), and
    /// the verdict.
    pub logits: LogitAgreement,
    pub reference_token_ids: Vec<i64>,
}

impl TokenComparison {
    /// Whether a prompt's choices part where the reference was sure: a failure. Near-ties and
    /// drifting logits warn.
    pub fn failed(&self) -> bool {
        self.prompts.iter().any(|p| p.logits.verdict.failed())
    }
}

/// Where two token sequences first differ (a length difference counts).
pub fn first_difference(a: &[i64], b: &[i64]) -> Option<usize> {
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    (common < a.len().max(b.len())).then_some(common)
}

fn f1(v: f64) -> String {
    format!("{v:.1}")
}

fn f2(v: f64) -> String {
    format!("{v:.2}")
}

fn stat(s: &Option<crate::stats::LatencyStats>, f: fn(&crate::stats::LatencyStats) -> f64) -> String {
    s.as_ref().map_or_else(|| "-".to_string(), |s| f2(f(s)))
}

/// The human summary printed after the text (to stderr).
/// Token `at` of a generation, or that it had ended before it.
fn token_at(ids: Option<&[i64]>, at: usize) -> String {
    match ids.and_then(|ids| ids.get(at)) {
        Some(id) => id.to_string(),
        None => "ended before it".to_string(),
    }
}

/// The figures for a person; `verbose` adds each prompt's token ids and its decode latency along
/// the positions (where a growing KV cache shows).
pub fn human(report: &GenerateReport, verbose: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "model:     {} ({})", report.model.display(), report.device.describe());
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
    for p in &report.prompts {
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
    out
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

const COLUMNS: &[&str] = &[
    "prompt",
    "prompt_tokens",
    "new_tokens",
    "repetitions",
    "ttft_ms_p50",
    "prompt_tokens_per_s",
    "decode_ms_p50",
    "decode_ms_p90",
    "decode_ms_p99",
    "generation_tokens_per_s",
    "end_to_end_ms_p50",
    "session_create_ms",
];

/// The same columns as people read them (Markdown, HTML); CSV keeps [`COLUMNS`] for programs.
const LABELS: &[&str] = &[
    "prompt",
    "prompt tokens",
    "new tokens",
    "repetitions",
    "TTFT p50 (ms)",
    "prompt tokens/s",
    "decode p50 (ms)",
    "decode p90 (ms)",
    "decode p99 (ms)",
    "generation tokens/s",
    "end to end p50 (ms)",
    "session (ms)",
];

fn row(report: &GenerateReport, p: &PromptResult) -> Vec<String> {
    let f = &p.figures;
    vec![
        p.source.clone(),
        f.prompt_tokens.to_string(),
        f.new_tokens.to_string(),
        f.repetitions.to_string(),
        stat(&f.ttft_ms, |s| s.p50),
        f1(f.prompt_tokens_per_s),
        stat(&f.decode_ms, |s| s.p50),
        stat(&f.decode_ms, |s| s.p90),
        stat(&f.decode_ms, |s| s.p99),
        f1(f.generation_tokens_per_s),
        stat(&f.end_to_end_ms, |s| s.p50),
        f1(report.session_create_ms),
    ]
}

/// Prompt `index`'s line for CI: whether its tokens part from `--compare-ep`'s, and its figures
/// (with where they part). The GitHub summary and the JUnit case say the same.
pub fn prompt_outcome(report: &GenerateReport, index: usize) -> (bool, String) {
    let p = &report.prompts[index];
    let compared = report.comparison.as_ref().and_then(|c| c.prompts.get(index));
    let f = &p.figures;
    let mut detail = format!(
        "{} prompt tokens, {} new: TTFT {} ms, {:.1} tokens/s",
        f.prompt_tokens,
        f.new_tokens,
        f.ttft_ms.as_ref().map_or("-".into(), |t| format!("{:.1}", t.p50)),
        f.generation_tokens_per_s
    );
    let reference = report.comparison.as_ref().map_or("", |c| c.reference_ep.as_str());
    if let Some(c) = compared {
        if let Some(at) = c.first_difference {
            let _ = write!(detail, "; tokens part from {reference}'s at token {at} ({} matching)", c.matching);
        }
        let _ = write!(detail, "; logits against {reference}'s: {}: {}", c.logits.verdict_word(), c.logits.summary());
    }
    (compared.is_some_and(|c| c.logits.verdict.failed()), detail)
}

/// JUnit XML: a case per prompt, failed where its tokens part from `--compare-ep`'s, its figures
/// in its output.
pub fn junit(report: &GenerateReport) -> anyhow::Result<String> {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut suite = TestSuite::new("dmlrun generate");
    for (i, p) in report.prompts.iter().enumerate() {
        let (differs, detail) = prompt_outcome(report, i);
        let status = match differs {
            true => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_message(detail.as_str());
                status.set_type("differs");
                status
            }
            false => TestCaseStatus::success(),
        };
        let mut case = TestCase::new(format!("prompt {} ({})", i + 1, p.source), status);
        case.set_classname("generate");
        case.set_system_out(detail);
        suite.add_test_case(case);
    }
    let mut junit = Report::new("dmlrun generate");
    junit.add_test_suite(suite);
    Ok(junit.to_string()?)
}

pub fn csv(report: &GenerateReport) -> String {
    let mut out = super::csv_record(COLUMNS);
    for p in &report.prompts {
        out += &super::csv_record(&row(report, p));
    }
    out
}

pub fn markdown(report: &GenerateReport) -> String {
    let rows: Vec<Vec<String>> = report.prompts.iter().map(|p| row(report, p)).collect();
    let mut out = super::markdown_table(LABELS, &(1..LABELS.len()).collect::<Vec<_>>(), &rows);
    if let Some(p) = &report.perplexity {
        let _ = write!(out, "\n{}\n", p.describe().replace('\n', "\n\n"));
    }
    if let Some(c) = &report.comparison {
        for p in &c.prompts {
            let _ = write!(
                out,
                "\n{}: against {}: {}: {}\n",
                p.source,
                c.reference_ep,
                p.logits.verdict_word(),
                p.logits.summary()
            );
        }
    }
    out
}

/// The HTML page: the figures and, per prompt, the decode latency at each position.
pub fn html(report: &GenerateReport) -> String {
    use super::html::{esc, Page};
    let mut page = Page::new();
    page.heading(1, &format!("dmlrun generate: {}", report.model.display()));
    page.push(&format!(
        "<p>{} &middot; ONNX Runtime {} &middot; KV cache {} ({:.1} MiB{}){} &middot; session created in {:.1} ms</p>",
        esc(&report.device.describe()),
        esc(&report.onnxruntime.version),
        report.kv_cache.layout,
        report.kv_cache.bytes as f64 / (1024.0 * 1024.0),
        if report.kv_cache.on_device { ", on the device" } else { "" },
        if report.decode_step_captured { " &middot; decode step graph-captured" } else { "" },
        report.session_create_ms
    ));
    let rows: Vec<(String, Vec<String>)> =
        report.prompts.iter().map(|p| (String::new(), row(report, p).iter().map(|c| esc(c)).collect())).collect();
    page.table("figures", LABELS, &(1..LABELS.len()).collect::<Vec<_>>(), &rows);
    if let Some(p) = &report.perplexity {
        page.heading(2, "Perplexity");
        page.push(&format!("<pre>{}</pre>", esc(&p.describe())));
    }
    if let Some(c) = &report.comparison {
        page.heading(2, &format!("Against {} (--compare-ep): logits at every step", c.reference_ep));
        for p in &c.prompts {
            let tokens = match p.first_difference {
                None => format!("the same {} tokens", p.matching),
                Some(at) => format!("tokens part at {at} ({} equal before it)", p.matching),
            };
            page.push(&format!(
                "<p class=\"verdict {}\"><b>{}</b>: {}; {}: {}</p>",
                if p.logits.verdict.failed() {
                    "bad"
                } else if p.logits.verdict.warns() {
                    "warn"
                } else {
                    "good"
                },
                esc(&p.source),
                esc(&tokens),
                esc(p.logits.verdict_word()),
                esc(&p.logits.summary())
            ));
        }
    }
    for p in &report.prompts {
        page.heading(2, &format!("{}: decode latency per token", p.source));
        page.push(&position_plot(&p.figures.per_position_ms));
        if let Some(text) = &p.generated_text {
            page.push(&format!("<pre class=\"generated\">{}</pre>", esc(text)));
        }
    }
    page.finish(&format!("dmlrun generate {}", report.model.display()))
}

/// A line of the mean decode latency at each position (inline SVG).
fn position_plot(per_position_ms: &[f64]) -> String {
    if per_position_ms.is_empty() {
        return "<p>One new token: no decode steps to plot.</p>".to_string();
    }
    let (w, h, left, bottom) = (720.0, 240.0, 56.0, 28.0);
    let max = per_position_ms.iter().copied().fold(0.0f64, f64::max).max(1e-9) * 1.1;
    let n = per_position_ms.len().max(2) - 1;
    let x = |i: usize| left + (w - left - 8.0) * i as f64 / n as f64;
    let y = |v: f64| 8.0 + (h - bottom - 8.0) * (1.0 - v / max);
    let points: Vec<String> =
        per_position_ms.iter().enumerate().map(|(i, &v)| format!("{:.1},{:.1}", x(i), y(v))).collect();
    let mut svg = format!(
        "<svg class=\"chart\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"decode latency per token position\"><title>decode latency (ms) at each token after the first</title><text x=\"4\" y=\"12\" font-size=\"11\" fill=\"var(--muted)\">ms per token</text>"
    );
    for frac in [0.0, 0.5, 1.0] {
        let v = max / 1.1 * frac;
        let (line_y, label_y) = (y(v), y(v) + 4.0);
        let _ = write!(
            svg,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{line_y:.1}\" y2=\"{line_y:.1}\" stroke=\"var(--grid)\"/><text x=\"{}\" y=\"{label_y:.1}\" text-anchor=\"end\" font-size=\"11\" fill=\"var(--muted)\">{}</text>",
            w - 8.0,
            left - 4.0,
            super::html::svg::ms(v)
        );
    }
    let _ = write!(
        svg,
        "<polyline fill=\"none\" stroke=\"var(--s1)\" stroke-width=\"1.5\" points=\"{}\"/><text x=\"{left}\" y=\"{}\" font-size=\"11\" fill=\"var(--muted)\">token 2</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"11\" fill=\"var(--muted)\">token {}</text></svg>",
        points.join(" "),
        h - 8.0,
        w - 8.0,
        h - 8.0,
        per_position_ms.len() + 1
    );
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_counts_a_shorter_sequence() {
        assert_eq!(first_difference(&[1, 2, 3], &[1, 2, 3]), None);
        assert_eq!(first_difference(&[1, 2, 3], &[1, 5, 3]), Some(1));
        assert_eq!(first_difference(&[1, 2], &[1, 2, 3]), Some(2));
    }

    #[test]
    fn a_parted_token_is_its_id_or_the_end_of_its_sequence() {
        assert_eq!(token_at(Some(&[381, 206]), 1), "206");
        assert_eq!(token_at(Some(&[381]), 1), "ended before it");
        assert_eq!(token_at(None, 0), "ended before it");
    }

    #[test]
    fn the_position_plot_has_one_point_per_decode_step() {
        let svg = position_plot(&[1.0, 2.0, 1.5]);
        let points = svg.split("points=\"").nth(1).unwrap().split('"').next().unwrap();
        assert_eq!(points.split(' ').count(), 3);
        assert!(svg.contains("token 4"));
    }
}
