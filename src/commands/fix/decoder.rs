//! `dmlrun fix` of an onnxruntime-genai folder: a decoder is checked by what it generates, not by
//! one run's outputs. An attempt generates greedily from a fixed synthetic prompt, as `generate`
//! runs by default (the decode step captured on DirectML where the model allows it), and passes
//! where its tokens are the reference's; the fixed folder is the input's with the decoder
//! rewritten, every other file (config, tokenizer) copied as it is.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

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

/// A decoder's attempt: its greedy tokens, and where DirectML's decode capture was wanted and
/// refused, why (a node off DirectML, as a rule).
pub struct DecoderRun {
    pub tokens: Vec<i64>,
    pub uncaptured: Option<String>,
}

/// The greedy tokens of the folder's decoder with `request` (its EP, options and rewrites), as
/// `generate` runs it by default.
pub fn greedy_tokens(runtime: &Runtime, folder: &Path, request: &PlanRequest) -> Result<DecoderRun> {
    let DecoderModel { spec, file, vocab, .. } = DecoderModel::read(folder, None, None)?;
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
        choice: generate::Choice::Greedy,
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
    Ok(DecoderRun { tokens: generation.tokens, uncaptured })
}

/// An attempt's tokens against the reference's. Where the decode could not be captured on
/// DirectML, the right tokens are not a pass: an uncaptured decode is 30-40 times slower a token
/// on this project's stack, and a remedy (a node put back on DirectML) may mend it.
pub fn judge(run: &DecoderRun, reference: &[i64]) -> AttemptOutcome {
    let tokens = &run.tokens;
    match tokens.iter().zip(reference).position(|(a, b)| a != b) {
        None if tokens.len() == reference.len() => match &run.uncaptured {
            None => AttemptOutcome::Passes,
            Some(why) => AttemptOutcome::Fails(format!("the reference's tokens, but the decode ran uncaptured: {why}")),
        },
        None => AttemptOutcome::Differs(format!("{} tokens, the reference made {}", tokens.len(), reference.len())),
        Some(k) => AttemptOutcome::Differs(format!(
            "token {} of {} is {}, the reference's is {} (greedy, from a {PROMPT_TOKENS}-token synthetic prompt)",
            k + 1,
            reference.len(),
            tokens[k],
            reference[k]
        )),
    }
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
    let rewritten = engine::rewrite(runtime, &spec.model, &file.info, &request.rewrites, None)?;
    let preflight = Preflight::of(runtime, &spec.model.clone(), file, request, Scope::Alone)?;
    let made = std::fs::read(&rewritten.path).context("reading the rewritten decoder")?;
    let bytes = engine::saved_model(&spec.model, &preflight, Some(&made), Some(&rewritten.report), None, false)?;

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
    crate::formats::onnx_proto::write_model(&staging.path().join(&decoder_name), &bytes)
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
    if output.is_file() {
        bail!("--output {}: a genai folder is fixed into a folder, and this is a file", output.display());
    }
    if crate::fsutil::occupied(output) {
        bail!("--output {}: exists and is not an empty folder (name another)", output.display());
    }
    Ok(())
}
