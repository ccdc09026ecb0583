//! The figures as a table, a row a prompt: the column names programs read (CSV, `csv.rs`), the
//! labels people read (Markdown, `markdown.rs`; HTML, `html.rs`), and the cells they all show.

use super::{f1, stat, GenerateReport, PromptResult};

pub(super) const COLUMNS: &[&str] = &[
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
pub(super) const LABELS: &[&str] = &[
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

pub(super) fn row(report: &GenerateReport, p: &PromptResult) -> Vec<String> {
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
