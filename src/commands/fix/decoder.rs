//! `dmlrun fix` of an onnxruntime-genai folder: a decoder is checked by what it generates, not by
//! one run's outputs. An attempt generates greedily from a fixed synthetic prompt, as `generate`
//! runs by default (the decode step captured on DirectML where the model allows it), and passes
//! where its tokens are the reference's; the fixed folder is the input's with the decoder
//! rewritten, every other file (config, tokenizer) copied as it is.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::generate::verdict::LogitAgreement;
use crate::generate::{self, CaptureAsk, DecoderModel, LoopSettings, Sampler, Sampling};
use crate::report::fix::AttemptOutcome;
use crate::runtime::engine::{self, Generating, Preflight, Scope};
use crate::runtime::plan::PlanRequest;
use crate::runtime::Runtime;

/// The prompt and the tokens generated after it: enough steps that a wrong kernel in the decode
/// path parts from the reference, few enough for an attempt to take seconds on a CPU reference.
const PROMPT_TOKENS: usize = 16;
const NEW_TOKENS: usize = 16;
const PROMPT_SEED: u64 = 0;

/// A decoder's attempt: its greedy tokens; where DirectML's decode capture was wanted and
/// refused, why (a node off DirectML, as a rule); and where its tokens part from the reference's,
/// every step's logits against the reference's.
pub struct DecoderRun {
    pub tokens: Vec<i64>,
    pub uncaptured: Option<String>,
    pub logits: Option<LogitAgreement>,
}

/// The reference an attempt is held to: its request (the EP fix compares with) and its tokens.
#[derive(Clone, Copy)]
pub struct Against<'a> {
    pub request: &'a PlanRequest,
    pub tokens: &'a [i64],
}

/// The greedy tokens of the folder's decoder with `request` (its EP, options and rewrites), as
/// `generate` runs it by default (the decode captured on DirectML; the token chosen on the host,
/// so that the logits are there to compare where the tokens part from `against`'s).
pub fn greedy_tokens(
    runtime: &Runtime,
    folder: &Path,
    request: &PlanRequest,
    against: Option<Against>,
) -> Result<DecoderRun> {
    let DecoderModel { spec, file, vocab, .. } = DecoderModel::read(folder, None, None)?;
    let reference_file = against.is_some().then(|| file.clone());
    let prompt = generate::synthetic_prompt(PROMPT_TOKENS, vocab, &spec.eos_token_ids, PROMPT_SEED);
    let kv_length = generate::kv_length(PROMPT_TOKENS, NEW_TOKENS, None, spec.context_length)?;
    let preflight = Preflight::of(runtime, &spec.model.clone(), file, request, Scope::Alone)?;
    crate::stage::step("session creation");
    let generating = Generating {
        preflight: &preflight,
        spec: &spec,
        kv_length,
        print_plan: false,
        capture: CaptureAsk::Default,
        choice: match against {
            Some(_) => generate::Choice::GreedyLogitsCompared,
            None => generate::Choice::Greedy,
        },
    };
    let wanted = generate::GraphCapture::choose(
        CaptureAsk::Default,
        preflight.plan.uses_directml(),
        spec.past_present_share_buffer,
    );
    let (mut decoder, _, capture) = engine::open_generating(runtime, &generating)?;
    let uncaptured = (wanted.captured && !capture.captured).then_some(capture.why);
    // A fixed count of tokens, EOS or not: both sides make the same number.
    let settings = LoopSettings { max_new_tokens: NEW_TOKENS, eos_token_ids: &spec.eos_token_ids, ignore_eos: true };
    let generation =
        generate::generate(&mut decoder, &prompt, &settings, &mut Sampler::new(Sampling::Greedy), &mut |_, _| Ok(()))?;
    let parted = against.filter(|a| a.tokens != generation.tokens.as_slice());
    let logits = match (parted, reference_file) {
        (Some(against), Some(file)) => {
            let preflight = Preflight::of(runtime, &spec.model.clone(), file, against.request, Scope::Alone)?;
            let reference = Generating { preflight: &preflight, capture: CaptureAsk::Default, ..generating };
            let (mut reference, _, _) =
                engine::open_generating(runtime, &reference).context("the reference's session")?;
            Some(generate::against_reference(&mut decoder, &mut reference, &prompt, &settings)?.logits)
        }
        _ => None,
    };
    Ok(DecoderRun { tokens: generation.tokens, uncaptured, logits })
}

/// An attempt's tokens against the reference's, and what the outcome rests on where that is not
/// plain. Tokens that part only where the reference itself hesitated (a near-tie in the logit
/// verdict) pass, as `generate --compare-ep` judges them: a decoder with random weights has flat
/// logits, and int4 against the CPU's int4 kernel moves them by more than their margins. Where the
/// decode could not be captured on DirectML, the right tokens are not a pass: an uncaptured decode
/// is 30-40 times slower a token on this project's stack, and a remedy (a node put back on
/// DirectML) may mend it.
pub fn judge(run: &DecoderRun, reference: &[i64]) -> (AttemptOutcome, Option<String>) {
    let tokens = &run.tokens;
    let parted = tokens.iter().zip(reference).position(|(a, b)| a != b);
    let near_tie = run.logits.as_ref().filter(|l| !l.verdict.failed());
    let tokens_pass = match (parted, near_tie) {
        (None, _) => tokens.len() == reference.len(),
        (Some(_), Some(_)) => true,
        (Some(_), None) => false,
    };
    let note = match (parted, near_tie) {
        (Some(k), Some(logits)) => Some(format!("token {} parts from the reference's at {}", k + 1, logits.summary())),
        _ => None,
    };
    if tokens_pass {
        return match &run.uncaptured {
            None => (AttemptOutcome::Passes, note),
            Some(why) => {
                (AttemptOutcome::Fails(format!("the reference's tokens, but the decode ran uncaptured: {why}")), note)
            }
        };
    }
    let outcome = match parted {
        None => AttemptOutcome::Differs(format!("{} tokens, the reference made {}", tokens.len(), reference.len())),
        Some(k) => AttemptOutcome::Differs(format!(
            "token {} of {} is {}, the reference's is {} (greedy, from a {PROMPT_TOKENS}-token synthetic prompt){}",
            k + 1,
            reference.len(),
            tokens[k],
            reference[k],
            run.logits.as_ref().map(|l| format!("; logits: {}", l.summary())).unwrap_or_default()
        )),
    };
    (outcome, None)
}

/// The decoder `.onnx` a genai folder names.
pub fn decoder_file(folder: &Path) -> Result<PathBuf> {
    Ok(DecoderModel::read(folder, None, None)?.spec.model)
}

/// Writes `output` (a folder that must not hold anything yet): every file of `folder` but the
/// decoder and its external data, then the decoder rewritten by `request`'s rewrites under its
/// own name, with dmlrun's record. Made beside `output` and renamed into place, so a failure
/// leaves nothing half-written.
pub fn write_fixed_folder(runtime: &Runtime, folder: &Path, request: &PlanRequest, output: &Path) -> Result<()> {
    let DecoderModel { spec, file, .. } = DecoderModel::read(folder, None, None)?;
    let external: Vec<PathBuf> = file.info.external_data.iter().map(PathBuf::from).collect();
    let decoder_name = spec.model.file_name().context("the decoder's file name")?.to_os_string();
    let preflight = Preflight::of(runtime, &spec.model.clone(), file, request, Scope::Alone)?;
    let why = "a decoder's outputs are compared by generating (fix's attempts compared its tokens)";
    let made = engine::made_for_session(runtime, &preflight, &preflight.plan, engine::Check::Not(why), &mut |w| {
        crate::errln!("dmlrun: warning: fix: {w}")
    })?;
    let made_bytes = std::fs::read(made.path()).context("reading the fixed decoder")?;
    let bytes = engine::saved_model(&spec.model, &preflight, Some(&made_bytes), made.rewrite().as_ref(), None, false)?;

    let staging = crate::fsutil::temp_dir_beside(output, ".dmlrun-fix-folder-")
        .with_context(|| format!("--output {}", output.display()))?;
    for entry in std::fs::read_dir(folder).with_context(|| format!("reading {}", folder.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        let is_decoder = name == decoder_name || external.iter().any(|e| e.as_os_str() == name);
        if is_decoder || !entry.file_type()?.is_file() {
            continue;
        }
        std::fs::copy(entry.path(), staging.path().join(&name))
            .with_context(|| format!("copying {}", entry.path().display()))?;
    }
    // Its weights copied a tensor at a time from the rewritten model's data file to its own.
    let made_folder = crate::fsutil::folder_of(made.path());
    crate::formats::onnx_proto::write_model_from(&staging.path().join(&decoder_name), &bytes, made_folder)
        .context("writing the fixed decoder")?;
    if output.is_dir() {
        std::fs::remove_dir(output).with_context(|| format!("--output {}", output.display()))?;
    }
    let kept = staging.keep();
    std::fs::rename(&kept, output)
        .with_context(|| format!("--output {}: moving the fixed folder there", output.display()))
}

/// `-o` for a folder: absent, or an empty folder.
pub fn check_output_folder(output: &Path) -> Result<()> {
    if output.is_file() || output.extension().is_some_and(|e| e.eq_ignore_ascii_case("onnx")) {
        bail!(
            "--output {}: a genai folder is fixed into a folder (its config, tokenizer and decoder); name a folder, as -o qwen-dml",
            output.display()
        );
    }
    crate::fsutil::check_free_folder(output).with_context(|| format!("--output {}", output.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::verdict::StepAgreement;

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
