//! `dmlrun generate`'s report: the value, and its human summary, CSV, Markdown and HTML.
//!
//! One file a format: `human.rs` (the summary after the text), `csv.rs`, `markdown.rs` and
//! `html.rs` over the rows of `table.rs`, `junit.rs`; the JSON is the report serialized.

mod csv;
mod html;
mod human;
mod junit;
mod markdown;
mod table;

pub use csv::csv;
pub use html::html;
pub use human::human;
pub use junit::{junit, prompt_outcome};
pub use markdown::markdown;

use crate::report::export::{Exporter, Format, Formats};

/// generate's report is written in every format.
impl Formats for GenerateReport {
    const WHAT: &'static str = "a generate report";

    fn exporter(format: Format) -> Option<Box<dyn Exporter<Self>>> {
        Some(match format {
            Format::Json => Box::new(|r: &GenerateReport| crate::report::json_text(r)),
            Format::Csv => Box::new(|r: &GenerateReport| Ok(csv(r))),
            Format::Markdown => Box::new(|r: &GenerateReport| Ok(markdown(r))),
            Format::Html => Box::new(|r: &GenerateReport| Ok(html(r))),
            Format::Junit => Box::new(junit),
        })
    }
}

use std::fmt::Write;
use std::path::PathBuf;

use serde::Serialize;

use crate::generate::figures::GenerationFigures;
use crate::generate::perplexity::Perplexity;
use crate::generate::verdict::LogitAgreement;
use crate::generate::{DecoderSpec, GraphCapture, KvLayout, Sampling, Stop, TokenChoice};
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
    /// `--repetition-penalty`, `--no-repeat-ngram`, where asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logits_processing: Option<crate::generate::LogitsProcessing>,
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
    /// With --decode-rewrite: the decode step's own session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_session: Option<DecodeSession>,
    /// With --precision int4 or int8: what was quantized.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quantization: Option<crate::graph::Quantization>,
    /// Ctrl-C stopped the run; the figures are over what was done.
    pub interrupted: bool,
}

/// `--decode-rewrite`: the session the one-token steps ran in, beside the prompt's.
#[derive(Debug, Clone, Serialize)]
pub struct DecodeSession {
    /// What its model had rewritten: the prompt's rewrites and its own.
    pub rewrite: Option<crate::runtime::engine::RewriteReport>,
    /// The steps it ran, every generation's (warm-ups and the comparison's included).
    pub steps: u64,
    /// How often the prompt's KV cache was handed over to it (once a generation, before its
    /// first decode step), and the median time that took: the first decode step's, not the
    /// first token's.
    pub hand_overs: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand_over_p50_ms: Option<f64>,
}

impl DecodeSession {
    pub fn of(
        rewrite: Option<crate::runtime::engine::RewriteReport>,
        steps: u64,
        took: &[std::time::Duration],
    ) -> Self {
        let ms: Vec<f64> = took.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        DecodeSession {
            rewrite,
            steps,
            hand_overs: ms.len(),
            hand_over_p50_ms: crate::stats::summarize(&ms).map(|s| s.p50),
        }
    }
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

pub(super) fn f1(v: f64) -> String {
    format!("{v:.1}")
}

pub(super) fn f2(v: f64) -> String {
    format!("{v:.2}")
}

pub(super) fn stat(s: &Option<crate::stats::LatencyStats>, f: fn(&crate::stats::LatencyStats) -> f64) -> String {
    s.as_ref().map_or_else(|| "-".to_string(), |s| f2(f(s)))
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
}
