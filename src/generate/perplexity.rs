//! Teacher-forced perplexity of a text: the number people compare two forms of one model by.
//!
//! The usual recipe (Hugging Face's "perplexity of fixed-length models"): the text's tokens in
//! windows of `window` tokens, each starting `stride` after the last, each window one forward
//! pass from an empty cache; a window scores only the tokens the previous one did not, so with
//! overlapping windows (stride < window) every token after the first is scored once, with at
//! least `window - stride` tokens of context before it (without overlap, each window's first
//! token has none and is not scored). Perplexity is exp of the mean negative log-likelihood over the scored tokens.

use anyhow::{bail, Result};
use serde::Serialize;

use super::Decoder;

/// One forward pass: tokens `begin..end` of the text, scoring those from `scored_from`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub begin: usize,
    pub end: usize,
    pub scored_from: usize,
}

/// The windows over `tokens` tokens.
pub fn windows(tokens: usize, window: usize, stride: usize) -> Result<Vec<Window>> {
    if tokens < 2 {
        bail!("the text has {tokens} token(s): perplexity needs at least 2");
    }
    if window < 2 || stride == 0 || stride > window {
        bail!("--window {window} and --stride {stride}: the window needs 2 tokens or more, the stride 1 to the window's length");
    }
    let mut out = Vec::new();
    let mut scored_to = 0;
    let mut begin = 0;
    loop {
        let end = (begin + window).min(tokens);
        // The first token of the text has nothing to be predicted from.
        out.push(Window { begin, end, scored_from: scored_to.max(begin + 1) });
        scored_to = end;
        if end == tokens {
            return Ok(out);
        }
        begin += stride;
    }
}

/// The negative log-likelihood of `target` under `logits` (natural log), in f64.
pub fn nll(logits: &[f32], target: usize) -> f64 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let sum: f64 = logits.iter().map(|&l| (l as f64 - max).exp()).sum();
    max + sum.ln() - logits.get(target).map_or(f64::NAN, |&l| l as f64)
}

/// A text's perplexity on one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Perplexity {
    /// Tokens in the text.
    pub tokens: usize,
    /// Tokens scored: every one after the first.
    pub scored: usize,
    pub windows: usize,
    pub window: usize,
    pub stride: usize,
    /// Mean negative log-likelihood per scored token (nats).
    pub mean_nll: f64,
    pub perplexity: f64,
    /// Wall time of the forward passes (ms).
    pub ms: f64,
}

/// Scores `ids` on `decoder` window by window.
pub fn measure(decoder: &mut dyn Decoder, ids: &[i64], window: usize, stride: usize) -> Result<Perplexity> {
    let plan = windows(ids.len(), window, stride)?;
    let started = std::time::Instant::now();
    let (mut total, mut scored) = (0.0f64, 0usize);
    for (i, w) in plan.iter().enumerate() {
        if crate::interrupt::interrupted() {
            bail!("interrupted in window {} of {}", i + 1, plan.len());
        }
        crate::stage::step(format!("perplexity window {} of {} (tokens {}..{})", i + 1, plan.len(), w.begin, w.end));
        let logits = decoder.forward_all(&ids[w.begin..w.end])?;
        let vocab = logits.len() / (w.end - w.begin);
        for (at, &id) in ids.iter().enumerate().take(w.end).skip(w.scored_from) {
            // The logits at position p predict the token at p + 1.
            let row = at - 1 - w.begin;
            let target = usize::try_from(id).unwrap_or(usize::MAX);
            if target >= vocab {
                bail!("token {id} at position {at} is past the model's vocabulary of {vocab}");
            }
            total += nll(&logits[row * vocab..(row + 1) * vocab], target);
            scored += 1;
        }
    }
    let mean_nll = total / scored as f64;
    Ok(Perplexity {
        tokens: ids.len(),
        scored,
        windows: plan.len(),
        window,
        stride,
        mean_nll,
        perplexity: mean_nll.exp(),
        ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::StepTiming;

    #[test]
    fn every_token_after_the_first_is_scored_once_when_windows_overlap() {
        let w = windows(10, 4, 2).unwrap();
        assert_eq!(
            w,
            vec![
                Window { begin: 0, end: 4, scored_from: 1 },
                Window { begin: 2, end: 6, scored_from: 4 },
                Window { begin: 4, end: 8, scored_from: 6 },
                Window { begin: 6, end: 10, scored_from: 8 },
            ]
        );
        for (tokens, window, stride) in [(10, 4, 2), (2600, 2048, 1024), (7, 7, 7), (5, 100, 50), (9, 4, 4)] {
            let w = windows(tokens, window, stride).unwrap();
            let scored: usize = w.iter().map(|w| w.end - w.scored_from).sum();
            // Windows that do not overlap (stride = window) leave each one's first token without
            // context, so unscored, as Hugging Face's recipe does.
            let unscored = if stride < window { 1 } else { w.len() };
            assert_eq!(scored, tokens - unscored, "{tokens} {window} {stride}");
            assert!(w.iter().all(|w| w.end - w.begin <= window && w.scored_from > w.begin));
        }
        assert!(windows(1, 4, 2).is_err() && windows(10, 4, 5).is_err() && windows(10, 1, 1).is_err());
    }

    /// A bigram model over 3 ids: after id a, the logits are row a of a fixed table; it counts
    /// the forward passes and keeps no state between them but the tokens of the current one.
    struct Bigram {
        fed: Vec<i64>,
        passes: usize,
    }
    const TABLE: [[f32; 3]; 3] = [[2.0, 0.0, -1.0], [0.5, 0.5, 0.5], [-3.0, 1.0, 4.0]];

    impl Decoder for Bigram {
        fn reset(&mut self) -> Result<()> {
            self.fed.clear();
            self.passes += 1;
            Ok(())
        }
        fn step(&mut self, tokens: &[i64]) -> Result<StepTiming> {
            self.fed.extend_from_slice(tokens);
            Ok(StepTiming::default())
        }
        fn logits(&self) -> &[f32] {
            &TABLE[*self.fed.last().unwrap() as usize]
        }
    }

    #[test]
    fn perplexity_of_a_bigram_model_is_the_hand_computed_value() {
        // ids 0 1 2 2 0: the pairs (0,1), (1,2), (2,2), (2,0) scored once each.
        let ids = [0, 1, 2, 2, 0];
        let lse = |r: [f32; 3]| r.iter().map(|&x| (x as f64).exp()).sum::<f64>().ln();
        let expected = [lse(TABLE[0]) - 0.0, lse(TABLE[1]) - 0.5, lse(TABLE[2]) - 4.0, lse(TABLE[2]) - (-3.0)];
        let mean: f64 = expected.iter().sum::<f64>() / 4.0;
        for (window, stride) in [(5, 5), (2, 1), (3, 2)] {
            let mut d = Bigram { fed: vec![], passes: 0 };
            let p = measure(&mut d, &ids, window, stride).unwrap();
            assert_eq!((p.tokens, p.scored), (5, 4));
            assert!((p.mean_nll - mean).abs() < 1e-9, "{window}/{stride}: {} vs {mean}", p.mean_nll);
            assert!((p.perplexity - mean.exp()).abs() < 1e-9);
            assert_eq!(p.windows, d.passes);
        }
        // By hand: ln(e^2 + 1 + e^-1) = ln(8.75694) = 2.169846, the first pair's NLL.
        assert!((expected[0] - 2.169_846).abs() < 1e-6);
    }

    #[test]
    fn nll_is_stable_for_large_logits() {
        assert!((nll(&[1000.0, 1000.0], 0) - 2f64.ln()).abs() < 1e-12);
        assert!(nll(&[0.0], 3).is_nan());
    }
}
