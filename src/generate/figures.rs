//! The figures LLM benchmarks report, from the measured generations: time to first token,
//! prompt and generation tokens per second, per-token decode latency, end-to-end time, the
//! per-phase split and the latency at each position (where KV growth shows).

use serde::{Deserialize, Serialize};

use super::Generation;
use crate::stats::{self, LatencyStats};

/// Figures over the measured repetitions of one prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerationFigures {
    pub repetitions: usize,
    pub prompt_tokens: usize,
    /// New tokens per repetition: the first measured one's. Repetitions make the same tokens
    /// (greedy, or sampling seeded alike); one that does not is reported as such. Earlier
    /// reports wrote it as a float, which is still read.
    #[serde(deserialize_with = "whole_number")]
    pub new_tokens: usize,
    /// Time to first token: the prompt through the model and the first token chosen (ms).
    pub ttft_ms: Option<LatencyStats>,
    /// Prompt tokens / time to first token (mean over repetitions).
    pub prompt_tokens_per_s: f64,
    /// Each token after the first: one decode step and its choice (ms), all repetitions pooled.
    pub decode_ms: Option<LatencyStats>,
    /// Tokens after the first / their decode time (mean over repetitions); 0 with one new token.
    pub generation_tokens_per_s: f64,
    /// Time to first token plus every decode step (ms).
    pub end_to_end_ms: Option<LatencyStats>,
    /// Where a decode step's time goes, mean ms per token.
    pub decode_phases: Phases,
    /// Mean decode latency at each position after the first token (ms), over repetitions.
    pub per_position_ms: Vec<f64>,
}

/// A step's time split: inputs made and bound, the model's `Run`, the logits read back, and
/// the choice of the token (ms).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Phases {
    pub inputs_ms: f64,
    pub compute_ms: f64,
    pub outputs_ms: f64,
    pub sampling_ms: f64,
}

/// A count written as `64` or, by earlier versions, `64.0`.
fn whole_number<'de, D: serde::Deserializer<'de>>(from: D) -> Result<usize, D::Error> {
    let value = f64::deserialize(from)?;
    if value >= 0.0 && value.fract() == 0.0 && value <= usize::MAX as f64 {
        Ok(value as usize)
    } else {
        Err(serde::de::Error::custom(format!("{value} is not a count")))
    }
}

/// Figures from `runs` (the measured repetitions, warm-ups left out).
pub fn figures(runs: &[Generation]) -> GenerationFigures {
    let ttft: Vec<f64> = runs.iter().map(|g| g.prefill.total_ms).collect();
    let decode: Vec<f64> = runs.iter().flat_map(|g| g.decode.iter().map(|s| s.total_ms)).collect();
    let end_to_end: Vec<f64> =
        runs.iter().map(|g| g.prefill.total_ms + g.decode.iter().map(|s| s.total_ms).sum::<f64>()).collect();
    let mean = |values: &[f64]| if values.is_empty() { 0.0 } else { values.iter().sum::<f64>() / values.len() as f64 };
    let prompt_rates: Vec<f64> = runs
        .iter()
        .filter(|g| g.prefill.total_ms > 0.0)
        .map(|g| g.prompt_tokens as f64 / (g.prefill.total_ms / 1000.0))
        .collect();
    let generation_rates: Vec<f64> = runs
        .iter()
        .filter(|g| !g.decode.is_empty())
        .map(|g| g.decode.len() as f64 / (g.decode.iter().map(|s| s.total_ms).sum::<f64>() / 1000.0))
        .collect();
    let steps = decode.len().max(1) as f64;
    let sum = |f: fn(&super::TokenStep) -> f64| runs.iter().flat_map(|g| g.decode.iter().map(f)).sum::<f64>() / steps;
    let positions = runs.iter().map(|g| g.decode.len()).max().unwrap_or(0);
    let per_position_ms = (0..positions)
        .map(|p| mean(&runs.iter().filter_map(|g| g.decode.get(p).map(|s| s.total_ms)).collect::<Vec<_>>()))
        .collect();
    GenerationFigures {
        repetitions: runs.len(),
        prompt_tokens: runs.first().map_or(0, |g| g.prompt_tokens),
        new_tokens: runs.first().map_or(0, |g| g.tokens.len()),
        ttft_ms: stats::summarize(&ttft),
        prompt_tokens_per_s: mean(&prompt_rates),
        decode_ms: stats::summarize(&decode),
        generation_tokens_per_s: mean(&generation_rates),
        end_to_end_ms: stats::summarize(&end_to_end),
        decode_phases: Phases {
            inputs_ms: sum(|s| s.inputs_ms),
            compute_ms: sum(|s| s.compute_ms),
            outputs_ms: sum(|s| s.outputs_ms),
            sampling_ms: sum(|s| s.sampling_ms),
        },
        per_position_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Stop, TokenStep};
    use super::*;

    fn step(total: f64) -> TokenStep {
        TokenStep { total_ms: total, inputs_ms: 0.1, compute_ms: total - 0.3, outputs_ms: 0.1, sampling_ms: 0.1 }
    }

    #[test]
    fn figures_follow_the_llm_benchmark_definitions() {
        let run = |prefill: f64, decode: &[f64]| Generation {
            prompt_tokens: 100,
            tokens: vec![1; decode.len() + 1],
            prefill: step(prefill),
            decode: decode.iter().map(|&d| step(d)).collect(),
            stop: Stop::MaxNewTokens,
        };
        let f = figures(&[run(50.0, &[10.0, 10.0, 20.0]), run(100.0, &[20.0, 20.0, 40.0])]);
        assert_eq!(f.repetitions, 2);
        assert_eq!(f.new_tokens, 4);
        assert_eq!(f.ttft_ms.as_ref().unwrap().mean, 75.0);
        // 100 tokens in 50 ms and in 100 ms: 2000/s and 1000/s.
        assert!((f.prompt_tokens_per_s - 1500.0).abs() < 1e-9);
        // 3 tokens in 40 ms and in 80 ms: 75/s and 37.5/s.
        assert!((f.generation_tokens_per_s - 56.25).abs() < 1e-9);
        assert_eq!(f.per_position_ms, vec![15.0, 15.0, 30.0]);
        assert_eq!(f.end_to_end_ms.as_ref().unwrap().max, 180.0);
        assert!((f.decode_phases.compute_ms - (120.0 / 6.0 - 0.3)).abs() < 1e-9);
    }
}
