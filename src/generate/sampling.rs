//! Choosing the next token from one position's logits: greedy, or sampling with temperature,
//! top-k and top-p from a seeded generator. Pure functions over a slice of logits.

use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// How the next token is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum Sampling {
    /// The highest logit; the lowest id among equals (as onnxruntime-genai's greedy search).
    Greedy,
    /// Temperature, then the `top_k` highest (0: all), then the smallest set whose probability
    /// reaches `top_p`, then a draw from what is left.
    Sample { temperature: f32, top_k: usize, top_p: f32, seed: u64 },
}

/// `--repetition-penalty` and `--no-repeat-ngram`: the logits rewritten with the tokens so far
/// (the prompt's and those generated) before the choice, as transformers'
/// `RepetitionPenaltyLogitsProcessor` and `NoRepeatNGramLogitsProcessor` (and onnxruntime-genai's
/// `repetition_penalty`) define them: a guard against a greedy decoder looping.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LogitsProcessing {
    /// Each token seen has its logit divided by this where positive, multiplied where negative
    /// (1: off).
    pub repetition_penalty: f32,
    /// No n-gram of this size occurs twice: a token that would complete one seen before gets -inf
    /// (0: off).
    pub no_repeat_ngram: usize,
}

impl Default for LogitsProcessing {
    fn default() -> Self {
        LogitsProcessing { repetition_penalty: 1.0, no_repeat_ngram: 0 }
    }
}

impl LogitsProcessing {
    pub fn is_identity(&self) -> bool {
        self.repetition_penalty == 1.0 && self.no_repeat_ngram == 0
    }

    /// `logits` rewritten for the next token after `history`.
    pub fn apply(&self, logits: &mut [f32], history: &[i64]) {
        if self.repetition_penalty != 1.0 {
            let mut seen = std::collections::HashSet::new();
            for &token in history {
                let Some(logit) = usize::try_from(token).ok().and_then(|t| logits.get_mut(t)) else { continue };
                if seen.insert(token) {
                    *logit =
                        if *logit < 0.0 { *logit * self.repetition_penalty } else { *logit / self.repetition_penalty };
                }
            }
        }
        let n = self.no_repeat_ngram;
        if n > 0 && history.len() + 1 >= n {
            let prefix = &history[history.len() + 1 - n..];
            for window in history.windows(n) {
                if &window[..n - 1] == prefix {
                    if let Some(logit) = usize::try_from(window[n - 1]).ok().and_then(|t| logits.get_mut(t)) {
                        *logit = f32::NEG_INFINITY;
                    }
                }
            }
        }
    }
}

/// A sampler holding its generator, so a seeded run draws the same tokens every time, and (where
/// the logits are processed) the tokens so far.
pub struct Sampler {
    sampling: Sampling,
    rng: rand::rngs::StdRng,
    processing: LogitsProcessing,
    history: Vec<i64>,
    scratch: Vec<f32>,
}

impl Sampler {
    pub fn new(sampling: Sampling) -> Sampler {
        let seed = match sampling {
            Sampling::Sample { seed, .. } => seed,
            Sampling::Greedy => 0,
        };
        Sampler {
            sampling,
            rng: rand::rngs::StdRng::seed_from_u64(seed),
            processing: LogitsProcessing::default(),
            history: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// The same, each step's logits rewritten by `processing` first.
    pub fn with_processing(self, processing: LogitsProcessing) -> Sampler {
        Sampler { processing, ..self }
    }

    /// A new generation from `prompt`: the tokens so far are its tokens.
    pub fn begin(&mut self, prompt: &[i64]) {
        self.history.clear();
        if !self.processing.is_identity() {
            self.history.extend_from_slice(prompt);
        }
    }

    /// Whether the choice is the highest logit's as they come, which a device can make where the
    /// logits are.
    pub fn is_greedy(&self) -> bool {
        matches!(self.sampling, Sampling::Greedy) && self.processing.is_identity()
    }

    /// The next token from `logits` (one position, the whole vocabulary).
    pub fn next(&mut self, logits: &[f32]) -> i64 {
        let logits = match self.processing.is_identity() {
            true => logits,
            false => {
                self.scratch.clear();
                self.scratch.extend_from_slice(logits);
                self.processing.apply(&mut self.scratch, &self.history);
                &self.scratch
            }
        };
        let token = match self.sampling {
            Sampling::Greedy => argmax(logits) as i64,
            Sampling::Sample { temperature, top_k, top_p, .. } => {
                let candidates = candidates(logits, temperature, top_k, top_p);
                let draw: f64 = self.rng.random();
                pick(&candidates, draw) as i64
            }
        };
        if !self.processing.is_identity() {
            self.history.push(token);
        }
        token
    }
}

/// The index of the highest value; the first among equals; NaN never wins.
pub fn argmax(logits: &[f32]) -> usize {
    let mut best = 0;
    for (i, &v) in logits.iter().enumerate() {
        if v > logits[best] || logits[best].is_nan() && !v.is_nan() {
            best = i;
        }
    }
    best
}

/// The tokens left after temperature, top-k and top-p, each with its probability (summing to 1),
/// most likely first.
pub fn candidates(logits: &[f32], temperature: f32, top_k: usize, top_p: f32) -> Vec<(usize, f64)> {
    let t = f64::from(temperature.max(1e-6));
    let mut scored: Vec<(usize, f64)> =
        logits.iter().enumerate().filter(|(_, v)| !v.is_nan()).map(|(i, &v)| (i, f64::from(v) / t)).collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    if top_k > 0 {
        scored.truncate(top_k);
    }
    let max = scored.first().map_or(0.0, |s| s.1);
    let mut total = 0.0;
    for s in &mut scored {
        s.1 = (s.1 - max).exp();
        total += s.1;
    }
    let mut kept = Vec::new();
    let mut cumulative = 0.0;
    for (i, weight) in scored {
        let p = weight / total;
        kept.push((i, p));
        cumulative += p;
        if cumulative >= f64::from(top_p) {
            break;
        }
    }
    let kept_total: f64 = kept.iter().map(|c| c.1).sum();
    kept.iter().map(|&(i, p)| (i, p / kept_total)).collect()
}

/// The candidate a uniform draw in [0, 1) lands on.
fn pick(candidates: &[(usize, f64)], draw: f64) -> usize {
    let mut cumulative = 0.0;
    for &(i, p) in candidates {
        cumulative += p;
        if draw < cumulative {
            return i;
        }
    }
    candidates.last().map_or(0, |c| c.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_takes_the_first_of_equal_maxima_and_ignores_nan() {
        assert_eq!(argmax(&[0.1, 3.0, 3.0, -1.0]), 1);
        assert_eq!(argmax(&[f32::NAN, 0.5, 0.2]), 1);
    }

    #[test]
    fn top_k_keeps_the_k_most_likely_renormalised() {
        let c = candidates(&[1.0, 4.0, 3.0, 2.0], 1.0, 2, 1.0);
        assert_eq!(c.iter().map(|c| c.0).collect::<Vec<_>>(), vec![1, 2]);
        let e = 1f64.exp();
        assert!((c[0].1 - e / (e + 1.0)).abs() < 1e-12);
        assert!((c.iter().map(|c| c.1).sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn top_p_keeps_the_smallest_set_reaching_p() {
        // Probabilities 0.5, 0.25, 0.25 (logits ln 2, 0, 0).
        let logits = [0.0, 2f32.ln(), 0.0];
        let c = candidates(&logits, 1.0, 0, 0.5);
        assert_eq!(c, vec![(1, 1.0)]);
        let c = candidates(&logits, 1.0, 0, 0.7);
        assert_eq!(c.iter().map(|c| c.0).collect::<Vec<_>>(), vec![1, 0]);
    }

    #[test]
    fn a_low_temperature_sharpens_towards_greedy() {
        let c = candidates(&[1.0, 1.1, 0.9], 0.001, 0, 0.999);
        assert_eq!(c, vec![(1, 1.0)]);
    }

    #[test]
    fn the_repetition_penalty_divides_a_positive_logit_and_multiplies_a_negative_one_once() {
        let processing = LogitsProcessing { repetition_penalty: 2.0, no_repeat_ngram: 0 };
        let mut logits = [4.0, -1.0, 3.0, 1.0];
        processing.apply(&mut logits, &[0, 1, 0]);
        assert_eq!(logits, [2.0, -2.0, 3.0, 1.0]);
        // Greedy over the penalised logits leaves token 0 for token 2.
        let mut sampler = Sampler::new(Sampling::Greedy).with_processing(processing);
        sampler.begin(&[0, 1]);
        assert!(!sampler.is_greedy());
        assert_eq!(sampler.next(&[4.0, -1.0, 3.0, 1.0]), 2);
    }

    #[test]
    fn no_repeat_ngram_bans_the_token_that_would_complete_a_seen_ngram() {
        let processing = LogitsProcessing { repetition_penalty: 1.0, no_repeat_ngram: 2 };
        // Seen: 5 7, 7 5, 5 7; the last token 7 was followed by 5: 5 is banned next.
        let mut logits = [0.0; 8];
        processing.apply(&mut logits, &[5, 7, 5, 7]);
        assert_eq!(logits.iter().filter(|l| l.is_infinite()).count(), 1);
        assert_eq!(logits[5], f32::NEG_INFINITY);
        // A 3-gram: after "1 2", "3" was seen (1 2 3); after "2 1" nothing.
        let three = LogitsProcessing { repetition_penalty: 1.0, no_repeat_ngram: 3 };
        let mut logits = [0.0; 4];
        three.apply(&mut logits, &[1, 2, 3, 1, 2]);
        assert_eq!(logits, [0.0, 0.0, 0.0, f32::NEG_INFINITY]);
        let mut logits = [0.0; 4];
        three.apply(&mut logits, &[1, 2, 3, 2, 1]);
        assert!(logits.iter().all(|l| l.is_finite()));
    }

    #[test]
    fn a_seeded_sampler_repeats_its_draws() {
        let logits: Vec<f32> = (0..50).map(|i| (i as f32 * 0.37).sin()).collect();
        let sampling = Sampling::Sample { temperature: 1.0, top_k: 0, top_p: 1.0, seed: 42 };
        let draw = |s: &mut Sampler| (0..20).map(|_| s.next(&logits)).collect::<Vec<_>>();
        let first = draw(&mut Sampler::new(sampling));
        assert_eq!(first, draw(&mut Sampler::new(sampling)));
        assert!(first.iter().collect::<std::collections::HashSet<_>>().len() > 1, "{first:?}");
    }
}
