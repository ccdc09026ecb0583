//! A decoder's logits against a reference's over one prompt: the reference generates greedily,
//! its logits kept at every step; then the decoder is fed the reference's tokens (teacher
//! forcing), so that every step's logits compare like with like, also after the greedy choices
//! part. `generate --compare-ep` reports it; `fix` judges a decoder's attempt by it.

use anyhow::{bail, Result};

use super::verdict::{LogitAgreement, StepAgreement};
use super::{generate, Decoder, LoopSettings, Sampler, Sampling};

/// The reference's greedy tokens and every step's logit verdict.
pub struct AgainstReference {
    pub reference_tokens: Vec<i64>,
    pub logits: LogitAgreement,
}

pub fn against_reference(
    decoder: &mut dyn Decoder,
    reference: &mut dyn Decoder,
    prompt: &[i64],
    looping: &LoopSettings,
) -> Result<AgainstReference> {
    let mut reference_logits: Vec<Vec<f32>> = Vec::new();
    let greedy = generate(reference, prompt, looping, &mut Sampler::new(Sampling::Greedy), &mut |_, logits| {
        reference_logits.push(logits.to_vec());
        Ok(())
    })?;
    let mut steps = Vec::with_capacity(reference_logits.len());
    decoder.reset()?;
    let mut feed = prompt.to_vec();
    for (step, expected) in reference_logits.iter().enumerate() {
        crate::stage::step(format!("comparing step {step} with the reference"));
        decoder.step(&feed)?;
        if decoder.logits().is_empty() {
            bail!("the decoder gave no logits to compare (its token was chosen on the device)");
        }
        steps.push(StepAgreement::of(step, decoder.logits(), expected));
        feed = vec![greedy.tokens[step]];
    }
    Ok(AgainstReference { reference_tokens: greedy.tokens, logits: LogitAgreement::judge(steps) })
}
