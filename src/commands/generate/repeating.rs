//! Each repetition of each prompt generated, timed and reported, with `--compare-ep`'s replay.

use anyhow::{Context, Result};

use super::{blame, compare_prompts, Prompt};
use crate::generate::tokenizer::{TextStream, TextTokenizer};
use crate::generate::{self, figures, Generation, LoopSettings, Sampler, Sampling, Stop};
use crate::report::generate::{PhaseMemory, PromptResult, TokenComparison};
use crate::runtime::adapters::VideoMemoryProbe;
use crate::runtime::engine::{DecoderOptions, DecoderSession};
use crate::runtime::plan::EpRequest;
use crate::runtime::Runtime;
use crate::settings::GenerateSettings;

/// What every repetition of every prompt is generated with.
pub(super) struct Repeating<'a> {
    pub(super) settings: &'a GenerateSettings,
    pub(super) runtime: &'a Runtime,
    /// The decoder's options, for the CPU EP's replay of a failure (`blame`).
    pub(super) options: &'a DecoderOptions<'a>,
    pub(super) tokenizer: Option<&'a TextTokenizer>,
    pub(super) looping: &'a LoopSettings<'a>,
    pub(super) text_to_stdout: bool,
    pub(super) several: bool,
    /// The adapter DirectML runs on, read at each phase's end.
    pub(super) probe: Option<&'a VideoMemoryProbe>,
    /// The memory at each phase's end: the session's (load) before the first generation, which
    /// adds its prefill's and decode's.
    pub(super) phases: &'a std::cell::RefCell<Vec<PhaseMemory>>,
}

impl Repeating<'_> {
    /// `--compare-ep`: the prompts on the reference EP's session, against this one's results.
    pub(super) fn compare(
        &self,
        decoder: &mut DecoderSession,
        prompts: &[Prompt],
        results: &[PromptResult],
    ) -> Result<Option<TokenComparison>> {
        let Some((ep, optimization_level)) = &self.settings.compare else { return Ok(None) };
        let preflight = self.options.preflight;
        let reference =
            preflight.with_request(self.runtime, &preflight.request.reference(ep.clone(), *optimization_level))?;
        let options = DecoderOptions { preflight: &reference, print_plan: false, ..*self.options };
        let mut other = DecoderSession::open(self.runtime, &options).context("the --compare-ep session")?;
        // Tokens chosen from rewritten logits are compared as sampled ones are: the reference's
        // own greedy tokens are not what this run chose from.
        let sampled =
            matches!(self.settings.sampling, Sampling::Sample { .. }) || !self.settings.processing.is_identity();
        Ok(Some(compare_prompts(decoder, &mut other, prompts, results, self.looping, sampled)?))
    }

    /// Every prompt in turn; the results, and whether Ctrl-C stopped them.
    pub(super) fn generate_prompts(
        &self,
        decoder: &mut DecoderSession,
        prompts: &[Prompt],
    ) -> Result<(Vec<PromptResult>, bool)> {
        let mut results = Vec::new();
        for prompt in prompts {
            let (result, stopped) = self.generate_prompt(decoder, prompt)?;
            results.extend(result);
            if stopped {
                return Ok((results, true));
            }
        }
        Ok((results, false))
    }

    /// Where greedy text ends in a loop (a small or quantized model's usual failure), what guards
    /// against it and what tells whether the model was sure: said once, on the streamed text.
    pub(super) fn hint_if_it_loops(&self, generation: &Generation) {
        let settings = self.settings;
        let greedy = matches!(settings.sampling, Sampling::Greedy) && settings.processing.is_identity();
        if settings.quiet || !greedy || settings.ignore_eos || !generate::ends_in_a_loop(&generation.tokens) {
            return;
        }
        let compare = match settings.compare {
            Some(_) => "",
            None => "; --compare-ep cpu says whether the reference was sure where the tokens part (a near-tie) or not",
        };
        crate::errln!(
            "dmlrun: note: the text ends repeating itself, as a greedy small or quantized model often does: --repetition-penalty 1.2 or --no-repeat-ngram 3 guard against it{compare}"
        );
    }

    /// One prompt's warm-ups and timed repetitions, the first timed one's text streamed; its
    /// result (none where Ctrl-C came before a timed one) and whether Ctrl-C stopped it.
    pub(super) fn generate_prompt(
        &self,
        decoder: &mut DecoderSession,
        prompt: &Prompt,
    ) -> Result<(Option<PromptResult>, bool)> {
        let settings = self.settings;
        let (warmup, iterations) = (settings.warmup, settings.iterations);
        let repetitions = warmup + iterations;
        let mut measured: Vec<Generation> = Vec::new();
        let mut first_tokens: Option<Vec<i64>> = None;
        let mut differing_repetition = None;
        let mut text = None;
        let mut interrupted = false;
        for repetition in 0..repetitions {
            let is_warmup = repetition < warmup;
            let streamed = !is_warmup && measured.is_empty();
            if !settings.quiet && self.several && repetition == 0 {
                crate::errln!("--- {}", prompt.source);
            }
            let (generation, produced) = self.repetition(decoder, prompt, streamed)?;
            if streamed {
                text = produced;
                self.hint_if_it_loops(&generation);
            }
            if !settings.quiet && repetitions > 1 {
                crate::errln!(
                    "{} {}/{}: {} tokens",
                    if is_warmup { "warm-up" } else { "repetition" },
                    if is_warmup { repetition + 1 } else { repetition - warmup + 1 },
                    if is_warmup { warmup } else { iterations },
                    generation.tokens.len()
                );
            }
            match &first_tokens {
                None => first_tokens = Some(generation.tokens.clone()),
                Some(first)
                    if differing_repetition.is_none()
                        && *first != generation.tokens
                        && generation.stop != Stop::Interrupted =>
                {
                    differing_repetition = Some(repetition + 1);
                    crate::errln!(
                        "dmlrun: warning: repetition {} of {} made other tokens than the first (state left from a previous repetition?)",
                        repetition + 1,
                        prompt.source
                    );
                }
                Some(_) => {}
            }
            let stop = generation.stop;
            if !is_warmup {
                measured.push(generation);
            }
            if stop == Stop::Interrupted {
                interrupted = true;
                break;
            }
        }
        let result = measured.first().map(|first| PromptResult {
            source: prompt.source.clone(),
            text: prompt.text.clone(),
            prompt_token_ids: prompt.ids.clone(),
            token_ids: first.tokens.clone(),
            differing_repetition,
            generated_text: text,
            stop: first.stop,
            figures: figures::figures(&measured),
        });
        Ok((result, interrupted))
    }

    /// One generation from the prompt, with a sampler seeded afresh (so repetitions draw alike);
    /// where `streamed`, its text printed as it comes and returned. The first generation of the
    /// run marks the prefill's and the decode's ends in the memory phases.
    pub(super) fn repetition(
        &self,
        decoder: &mut DecoderSession,
        prompt: &Prompt,
        streamed: bool,
    ) -> Result<(Generation, Option<String>)> {
        let settings = self.settings;
        let mut sampler = Sampler::new(settings.sampling).with_processing(settings.processing);
        let mut stream = TextStream::default();
        let mut produced = String::new();
        let mut chosen = Vec::new();
        let first_generation = self.phases.borrow().len() == 1;
        let generation = generate::generate(decoder, &prompt.ids, self.looping, &mut sampler, &mut |id, _| {
            chosen.push(id);
            if first_generation && chosen.len() == 1 {
                self.phases.borrow_mut().push(PhaseMemory::now("prefill", self.probe.and_then(|p| p.read())));
            }
            if let (true, Some(t)) = (streamed, self.tokenizer) {
                let piece = stream.push(t, id)?;
                if self.text_to_stdout {
                    crate::out!("{piece}");
                }
                produced.push_str(&piece);
            }
            Ok(())
        });
        let generation = match generation {
            Ok(generation) => generation,
            Err(e) if settings.request.ep != EpRequest::Cpu && settings.blame => {
                return Err(blame(self.runtime, self.options, &prompt.ids, &chosen, &decoder.model.device, e))
            }
            Err(e) => return Err(e.context(format!("generating from {}", prompt.source))),
        };
        if first_generation {
            self.phases.borrow_mut().push(PhaseMemory::now("decode", self.probe.and_then(|p| p.read())));
        }
        if let Some(memory) = decoder.model.memory.as_mut() {
            memory.sample();
        }
        let (true, Some(t)) = (streamed, self.tokenizer) else { return Ok((generation, None)) };
        let rest = stream.finish(t)?;
        produced.push_str(&rest);
        if self.text_to_stdout {
            crate::outln!("{rest}");
        }
        Ok((generation, Some(produced)))
    }
}
