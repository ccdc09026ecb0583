//! Text generation with decoder LLMs: the loop (prefill, then one token at a time), the prompt,
//! the choice of each token, and the figures LLM benchmarks report. The model itself is driven
//! through [`Decoder`], which the engine implements over ONNX Runtime
//! (`runtime::engine::decoder`); everything here is plain Rust and testable without a model.

pub mod capture;
pub mod chat;
mod compare;
pub mod config;
pub mod figures;
mod model;
pub mod perplexity;
pub mod sampling;
pub mod tokenizer;
pub mod verdict;

use std::time::{Duration, Instant};

use anyhow::Result;
use serde::{Deserialize, Serialize};

pub use capture::{CaptureAsk, Choice, GraphCapture, TokenChoice};
pub use compare::{against_reference, AgainstReference};
pub use config::{DecoderSpec, KvLayout};
pub use model::DecoderModel;
pub use sampling::{LogitsProcessing, Sampler, Sampling};

/// How long one step of the model took, split where the engine can split it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepTiming {
    /// Making and binding the step's inputs (token ids, mask, positions): the copies in.
    pub inputs: Duration,
    /// ONNX Runtime's `Run` (for DirectML with outputs to the host, it includes their copy back).
    pub compute: Duration,
    /// Reading the last position's logits into host memory: the copy out.
    pub outputs: Duration,
}

/// A decoder with its KV cache: the engine's side of the loop.
pub trait Decoder {
    /// Starts a new sequence: the KV cache is emptied.
    fn reset(&mut self) -> Result<()>;
    /// Feeds `tokens` (the prompt at the first step, then the one token chosen) at the positions
    /// after those already fed; leaves the last position's logits in [`Decoder::logits`].
    fn step(&mut self, tokens: &[i64]) -> Result<StepTiming>;
    /// The last step's logits for its last position (the whole vocabulary); empty where the
    /// token was chosen on the device ([`Decoder::chosen`]).
    fn logits(&self) -> &[f32];
    /// The greedy token the device chose at the last step, where the engine chose it there (a
    /// decoder opened for greedy choice only); the logits then never came back.
    fn chosen(&self) -> Option<i64> {
        None
    }
    /// Feeds `tokens` from an empty cache and returns every position's logits
    /// (`tokens.len()` rows of the vocabulary): teacher forcing, for perplexity. This default
    /// feeds one token a step; the engine feeds them in one pass.
    fn forward_all(&mut self, tokens: &[i64]) -> Result<Vec<f32>> {
        self.reset()?;
        let mut all = Vec::new();
        for &token in tokens {
            self.step(&[token])?;
            all.extend_from_slice(self.logits());
        }
        Ok(all)
    }
}

/// Why a generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// The model produced an end-of-sequence token.
    Eos,
    /// `--max-new-tokens` were produced.
    MaxNewTokens,
    /// Ctrl-C.
    Interrupted,
}

/// One token's step: the model and the choice of the token.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TokenStep {
    pub total_ms: f64,
    pub inputs_ms: f64,
    pub compute_ms: f64,
    pub outputs_ms: f64,
    pub sampling_ms: f64,
}

/// One generation: the tokens produced and what each step took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    pub prompt_tokens: usize,
    /// The generated ids, the EOS token included when it ended the sequence.
    pub tokens: Vec<i64>,
    /// The prefill: the whole prompt through the model and the first token chosen (time to
    /// first token).
    pub prefill: TokenStep,
    /// Each following token's step, in order.
    pub decode: Vec<TokenStep>,
    pub stop: Stop,
}

/// What one generation is asked to do.
pub struct LoopSettings<'a> {
    pub max_new_tokens: usize,
    pub eos_token_ids: &'a [i64],
    /// Keep going past EOS (benchmarks: every iteration makes the same number of tokens).
    pub ignore_eos: bool,
}

/// Whether `tokens` end in a loop: their last stretch is one run of 1 to 8 tokens, repeated three
/// times or more (`a b c a b c a b c`), six tokens at the least.
pub fn ends_in_a_loop(tokens: &[i64]) -> bool {
    (1..=8).any(|period| {
        let tail = (3 * period).max(6);
        tokens.len() >= tail && {
            let end = &tokens[tokens.len() - tail..];
            end.iter().zip(&end[period..]).all(|(a, b)| a == b)
        }
    })
}

/// Generates from `prompt` until EOS, `max_new_tokens` or Ctrl-C; `on_token` sees each token as
/// it is chosen (to print the text as it comes), with the logits it was chosen from.
pub fn generate(
    decoder: &mut dyn Decoder,
    prompt: &[i64],
    settings: &LoopSettings,
    sampler: &mut Sampler,
    on_token: &mut dyn FnMut(i64, &[f32]) -> Result<()>,
) -> Result<Generation> {
    decoder.reset()?;
    sampler.begin(prompt);
    let mut tokens = Vec::with_capacity(settings.max_new_tokens);
    let mut decode = Vec::with_capacity(settings.max_new_tokens);
    let mut prefill = None;
    let mut stop = Stop::MaxNewTokens;
    let mut next: Vec<i64> = prompt.to_vec();
    while tokens.len() < settings.max_new_tokens {
        if crate::interrupt::interrupted() {
            stop = Stop::Interrupted;
            break;
        }
        crate::stage::step(match prefill {
            None => format!("the prefill ({} prompt tokens)", next.len()),
            Some(_) => format!("decode step {}", tokens.len()),
        });
        let started = Instant::now();
        let timing = decoder.step(&next)?;
        let sampling_started = Instant::now();
        let token = match decoder.chosen() {
            Some(token) if sampler.is_greedy() => token,
            _ => sampler.next(decoder.logits()),
        };
        let step = TokenStep {
            total_ms: ms(started.elapsed()),
            inputs_ms: ms(timing.inputs),
            compute_ms: ms(timing.compute),
            outputs_ms: ms(timing.outputs),
            sampling_ms: ms(sampling_started.elapsed()),
        };
        if prefill.is_none() {
            prefill = Some(step);
        } else {
            decode.push(step);
        }
        tokens.push(token);
        on_token(token, decoder.logits())?;
        if !settings.ignore_eos && settings.eos_token_ids.contains(&token) {
            stop = Stop::Eos;
            break;
        }
        next.clear();
        next.push(token);
    }
    let prefill = prefill.unwrap_or(TokenStep {
        total_ms: 0.0,
        inputs_ms: 0.0,
        compute_ms: 0.0,
        outputs_ms: 0.0,
        sampling_ms: 0.0,
    });
    Ok(Generation { prompt_tokens: prompt.len(), tokens, prefill, decode, stop })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A synthetic prompt of exactly `n` tokens, as LLM benchmark scripts make them: ids drawn
/// from `seed` over the vocabulary, end-of-sequence ids left out.
pub fn synthetic_prompt(n: usize, vocab: usize, eos_token_ids: &[i64], seed: u64) -> Vec<i64> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut ids = Vec::with_capacity(n);
    while ids.len() < n {
        let id = rng.random_range(0..vocab.max(1)) as i64;
        if !eos_token_ids.contains(&id) || vocab <= eos_token_ids.len() {
            ids.push(id);
        }
    }
    ids
}

/// The KV buffer length for a generation: what `--max-length` asks, or the prompt plus the new
/// tokens; a prompt or a request beyond the model's context is one line naming both.
pub fn kv_length(prompt: usize, max_new_tokens: usize, max_length: Option<usize>, context: usize) -> Result<usize> {
    if prompt == 0 {
        anyhow::bail!("the prompt is empty: it must have at least one token");
    }
    if prompt >= context {
        anyhow::bail!(
            "the prompt has {prompt} tokens, which leaves no room in the model's context of {context} tokens"
        );
    }
    let needed = prompt + max_new_tokens;
    if let Some(asked) = max_length {
        if asked > context {
            anyhow::bail!("--max-length {asked} is longer than the model's context of {context} tokens");
        }
        if needed > asked {
            anyhow::bail!(
                "a {prompt}-token prompt and --max-new-tokens {max_new_tokens} need {needed} positions, more than --max-length {asked}"
            );
        }
        return Ok(asked);
    }
    if needed > context {
        anyhow::bail!(
            "a {prompt}-token prompt and --max-new-tokens {max_new_tokens} need {needed} positions, more than the model's context of {context} tokens (at most {} new tokens fit)",
            context - prompt
        );
    }
    Ok(needed)
}

#[cfg(test)]
mod loop_tests {
    #[test]
    fn a_repeated_stretch_at_the_end_is_a_loop_and_varied_text_is_not() {
        assert!(super::ends_in_a_loop(&[9, 1, 2, 3, 1, 2, 3, 1, 2, 3]));
        assert!(super::ends_in_a_loop(&[4, 4, 4, 4, 4, 4]));
        assert!(!super::ends_in_a_loop(&[1, 2, 3, 4, 5, 6, 7, 8, 9]));
        assert!(!super::ends_in_a_loop(&[1, 2, 1, 2]), "too short to say");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A decoder whose next token is the last fed token plus one (mod 10), made visible in
    /// logits; it counts the positions fed so far, as a KV cache does.
    struct Counting {
        fed: usize,
        logits: Vec<f32>,
    }

    impl Decoder for Counting {
        fn reset(&mut self) -> Result<()> {
            self.fed = 0;
            Ok(())
        }
        fn step(&mut self, tokens: &[i64]) -> Result<StepTiming> {
            self.fed += tokens.len();
            let next = (*tokens.last().unwrap() + 1) % 10;
            self.logits = (0..10).map(|i| if i == next { 1.0 } else { 0.0 }).collect();
            Ok(StepTiming::default())
        }
        fn logits(&self) -> &[f32] {
            &self.logits
        }
    }

    #[test]
    fn greedy_loop_feeds_the_prompt_once_then_one_token_at_a_time() {
        let mut d = Counting { fed: 0, logits: vec![] };
        let settings = LoopSettings { max_new_tokens: 4, eos_token_ids: &[], ignore_eos: false };
        let mut seen = Vec::new();
        let g = generate(&mut d, &[3, 4], &settings, &mut Sampler::new(Sampling::Greedy), &mut |t, _| {
            seen.push(t);
            Ok(())
        })
        .unwrap();
        assert_eq!(g.tokens, vec![5, 6, 7, 8]);
        assert_eq!(seen, g.tokens);
        assert_eq!(g.decode.len(), 3);
        assert_eq!(d.fed, 2 + 3, "the last token chosen is not fed");
        assert_eq!(g.stop, Stop::MaxNewTokens);
    }

    /// A decoder that chooses on the device: its choice is taken, its (empty) logits never read.
    struct ChoosingOnDevice(Counting);

    impl Decoder for ChoosingOnDevice {
        fn reset(&mut self) -> Result<()> {
            self.0.reset()
        }
        fn step(&mut self, tokens: &[i64]) -> Result<StepTiming> {
            self.0.step(tokens)?;
            self.0.logits.clear();
            Ok(StepTiming::default())
        }
        fn logits(&self) -> &[f32] {
            &self.0.logits
        }
        fn chosen(&self) -> Option<i64> {
            Some(42)
        }
    }

    #[test]
    fn a_greedy_loop_takes_the_token_the_device_chose() {
        let mut d = ChoosingOnDevice(Counting { fed: 0, logits: vec![] });
        let settings = LoopSettings { max_new_tokens: 3, eos_token_ids: &[], ignore_eos: false };
        let g = generate(&mut d, &[1], &settings, &mut Sampler::new(Sampling::Greedy), &mut |_, _| Ok(())).unwrap();
        assert_eq!(g.tokens, vec![42, 42, 42]);
    }

    #[test]
    fn eos_ends_the_generation_unless_ignored() {
        let mut d = Counting { fed: 0, logits: vec![] };
        let settings = LoopSettings { max_new_tokens: 10, eos_token_ids: &[7], ignore_eos: false };
        let g = generate(&mut d, &[4], &settings, &mut Sampler::new(Sampling::Greedy), &mut |_, _| Ok(())).unwrap();
        assert_eq!((g.tokens.clone(), g.stop), (vec![5, 6, 7], Stop::Eos));
        let settings = LoopSettings { ignore_eos: true, ..settings };
        let g = generate(&mut d, &[4], &settings, &mut Sampler::new(Sampling::Greedy), &mut |_, _| Ok(())).unwrap();
        assert_eq!(g.tokens.len(), 10);
    }

    #[test]
    fn kv_length_names_the_context_it_does_not_fit() {
        assert_eq!(kv_length(10, 20, None, 128).unwrap(), 30);
        assert_eq!(kv_length(10, 20, Some(64), 128).unwrap(), 64);
        let e = kv_length(100, 50, None, 128).unwrap_err().to_string();
        assert!(e.contains("context of 128") && e.contains("at most 28 new tokens"), "{e}");
        let e = kv_length(128, 1, None, 128).unwrap_err().to_string();
        assert!(e.contains("128 tokens"), "{e}");
        assert!(kv_length(10, 60, Some(64), 128).is_err());
    }

    #[test]
    fn synthetic_prompts_have_exactly_n_tokens_and_no_eos() {
        let p = synthetic_prompt(500, 16, &[3], 1);
        assert_eq!(p.len(), 500);
        assert!(!p.contains(&3) && p.iter().all(|&t| (0..16).contains(&t)));
        assert_eq!(p, synthetic_prompt(500, 16, &[3], 1));
    }
}
