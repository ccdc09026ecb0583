//! `dmlrun fix` of an onnxruntime-genai folder: a decoder is checked by what it generates, not by
//! one run's outputs. An attempt generates greedily from a fixed synthetic prompt, as `generate`
//! runs by default (the decode step captured on DirectML where the model allows it), and passes
//! where its tokens are the reference's; the fixed folder is the input's with the decoder
//! rewritten, every other file (config, tokenizer) copied as it is: the engine's check and writer
//! (`engine/decoder/folder.rs`), judged here as an attempt.

use crate::report::fix::AttemptOutcome;
use crate::runtime::engine::{DecoderRun, Generated};

/// An attempt's tokens against the reference's, as the engine judges them (a part at a near-tie
/// passes, with a note), said as an attempt's outcome.
pub fn judge(run: &DecoderRun, reference: &[i64]) -> (AttemptOutcome, Option<String>) {
    match run.against(reference) {
        Generated::Agrees(note) => (AttemptOutcome::Passes, note),
        Generated::Uncaptured(why, note) => (AttemptOutcome::Fails(why), note),
        Generated::Differs(why) => (AttemptOutcome::Differs(why), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::verdict::{LogitAgreement, StepAgreement};

    /// Logits over 16 ids whose best is id 3, `margin` above id 5, each nudged by `noise`.
    fn logits(margin: f32, noise: f32, swapped: bool) -> Vec<f32> {
        let mut v: Vec<f32> = (0..16).map(|i| i as f32 * 0.1 + if i % 2 == 0 { noise } else { -noise }).collect();
        v[3] = 10.0;
        v[5] = 10.0 - margin;
        if swapped {
            v.swap(3, 5);
        }
        v
    }

    /// Five steps of noise 0.01, the third with the reference's `margin`, where this EP takes the
    /// second-best.
    fn parted_at_step_2(margin: f32) -> LogitAgreement {
        let steps = (0..5)
            .map(|s| {
                let (m, swapped) = if s == 2 { (margin, true) } else { (1.0, false) };
                StepAgreement::of(s, &logits(m, 0.01, swapped), &logits(m, 0.0, false))
            })
            .collect();
        LogitAgreement::judge(steps)
    }

    fn run(tokens: &[i64], uncaptured: bool, logits: Option<LogitAgreement>) -> DecoderRun {
        DecoderRun { tokens: tokens.to_vec(), uncaptured: uncaptured.then(|| "a node on the CPU".into()), logits }
    }

    #[test]
    fn the_reference_s_tokens_captured_pass_and_uncaptured_fail() {
        let reference = [4, 5, 6];
        assert!(matches!(judge(&run(&reference, false, None), &reference), (AttemptOutcome::Passes, None)));
        let (outcome, _) = judge(&run(&reference, true, None), &reference);
        assert!(
            matches!(&outcome, AttemptOutcome::Fails(why) if why.contains("uncaptured: a node on the CPU")),
            "{outcome:?}"
        );
    }

    #[test]
    fn tokens_that_part_at_a_near_tie_pass_with_a_note_and_at_a_sure_step_differ() {
        let reference = [4, 5, 6];
        let (outcome, note) = judge(&run(&[4, 9, 9], false, Some(parted_at_step_2(0.005))), &reference);
        assert!(matches!(outcome, AttemptOutcome::Passes), "{outcome:?}");
        assert!(
            note.as_deref().is_some_and(|n| n.starts_with("token 2 parts from the reference's at a near-tie")),
            "{note:?}"
        );
        // A near-tie does not excuse an uncaptured decode.
        let (outcome, _) = judge(&run(&[4, 9, 9], true, Some(parted_at_step_2(0.005))), &reference);
        assert!(matches!(outcome, AttemptOutcome::Fails(_)), "{outcome:?}");
        // Where the reference was sure, the part is a difference, its verdict said.
        let (outcome, note) = judge(&run(&[4, 9, 9], false, Some(parted_at_step_2(1.0))), &reference);
        assert!(
            matches!(&outcome, AttemptOutcome::Differs(d) if d.starts_with("token 2 of 3 is 9") && d.contains("logits:")),
            "{outcome:?}"
        );
        assert_eq!(note, None);
    }
}
