//! A genai folder's decoder as `fix` and `tune` handle it: checked by what it generates (its
//! greedy tokens against the reference's, and where they part every step's logits), two forms
//! timed as `generate` times them in alternating rounds, and the folder written back with the
//! decoder made anew, every other file (config, tokenizer) copied as it is.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::{open_generating, DecoderOptions, DecoderSession};
use crate::formats::model::ModelFile;
use crate::generate::verdict::LogitAgreement;
use crate::generate::DecoderSpec;
use crate::generate::{self, CaptureAsk, DecoderModel, LoopSettings, Sampler, Sampling};
use crate::runtime::engine::{self, Preflight, Scope};
use crate::runtime::plan::PlanRequest;
use crate::runtime::Runtime;

/// The check's prompt and the tokens generated after it: enough steps that a wrong kernel in
/// the decode path parts from the reference, few enough for a check to take seconds on a CPU
/// reference.
const CHECK_PROMPT_TOKENS: usize = 16;
const CHECK_NEW_TOKENS: usize = 16;
const PROMPT_SEED: u64 = 0;

/// A decoder's check: its greedy tokens; where DirectML's decode capture was wanted and refused,
/// why (a node off DirectML, as a rule); and where its tokens part from the reference's, every
/// step's logits against the reference's.
pub struct DecoderRun {
    pub tokens: Vec<i64>,
    pub uncaptured: Option<String>,
    pub logits: Option<LogitAgreement>,
}

/// What a decoder's check says against the reference's tokens.
#[derive(Debug, PartialEq)]
pub enum Generated {
    /// The reference's tokens (or parted only where the reference itself hesitated: the note).
    Agrees(Option<String>),
    /// Another token where the reference was sure.
    Differs(String),
    /// The right tokens, but the decode could not be captured where it was wanted (with the note
    /// as `Agrees`).
    Uncaptured(String, Option<String>),
}

impl DecoderRun {
    /// The tokens against the reference's. Tokens that part only where the reference itself
    /// hesitated (a near-tie in the logit verdict) agree, as `generate --compare-ep` judges them:
    /// a decoder with random weights has flat logits, and int4 against the CPU's int4 kernel moves
    /// them by more than their margins. Where the decode could not be captured on DirectML, the
    /// right tokens are not enough: an uncaptured decode is 30-40 times slower a token on this
    /// project's stack.
    pub fn against(&self, reference: &[i64]) -> Generated {
        let tokens = &self.tokens;
        let parted = tokens.iter().zip(reference).position(|(a, b)| a != b);
        let near_tie = self.logits.as_ref().filter(|l| !l.verdict.failed());
        let agrees = match (parted, near_tie) {
            (None, _) => tokens.len() == reference.len(),
            (Some(_), Some(_)) => true,
            (Some(_), None) => false,
        };
        let note = match (parted, near_tie) {
            (Some(k), Some(logits)) => {
                Some(format!("token {} parts from the reference's at {}", k + 1, logits.summary()))
            }
            _ => None,
        };
        match (agrees, &self.uncaptured) {
            (true, None) => Generated::Agrees(note),
            (true, Some(why)) => {
                Generated::Uncaptured(format!("the reference's tokens, but the decode ran uncaptured: {why}"), note)
            }
            (false, _) => Generated::Differs(match parted {
                None => format!("{} tokens, the reference made {}", tokens.len(), reference.len()),
                Some(k) => format!(
                    "token {} of {} is {}, the reference's is {} (greedy, from a {CHECK_PROMPT_TOKENS}-token synthetic prompt){}",
                    k + 1,
                    reference.len(),
                    tokens[k],
                    reference[k],
                    self.logits.as_ref().map(|l| format!("; logits: {}", l.summary())).unwrap_or_default()
                ),
            }),
        }
    }
}

/// The reference a check is held to: its request (the EP it compares with) and its tokens.
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
    let folder = Folder::read(folder)?;
    let prompt = folder.prompt(CHECK_PROMPT_TOKENS);
    let kv_length = generate::kv_length(CHECK_PROMPT_TOKENS, CHECK_NEW_TOKENS, None, folder.spec.context_length)?;
    let choice = match against {
        Some(_) => generate::Choice::GreedyLogitsCompared,
        None => generate::Choice::Greedy,
    };
    crate::stage::step("session creation");
    let (mut decoder, preflight, capture) = folder.open(runtime, request, kv_length, choice)?;
    let wanted = generate::GraphCapture::choose(
        CaptureAsk::Default,
        preflight.plan.uses_directml(),
        folder.spec.past_present_share_buffer,
    );
    let uncaptured = (wanted.captured && !capture.captured).then_some(capture.why);
    // A fixed count of tokens, EOS or not: both sides make the same number.
    let settings = folder.looping(CHECK_NEW_TOKENS);
    let generation =
        generate::generate(&mut decoder, &prompt, &settings, &mut Sampler::new(Sampling::Greedy), &mut |_, _| Ok(()))?;
    let logits = match against.filter(|a| a.tokens != generation.tokens.as_slice()) {
        Some(against) => {
            let (mut reference, _, _) =
                folder.open(runtime, against.request, kv_length, choice).context("the reference's session")?;
            Some(generate::against_reference(&mut decoder, &mut reference, &prompt, &settings)?.logits)
        }
        None => None,
    };
    Ok(DecoderRun { tokens: generation.tokens, uncaptured, logits })
}

/// How two forms of a decoder are timed against each other: a synthetic prompt of
/// `prompt_tokens`, `new_tokens` generated greedily past EOS, one generation each to warm up,
/// then `rounds` rounds of one generation each, the two alternating.
#[derive(Debug, Clone, Copy)]
pub struct PairedDecode {
    pub prompt_tokens: usize,
    pub new_tokens: usize,
    pub rounds: usize,
}

/// One form's side of a paired timing: each round's time to first token, and every decode step
/// (ms) with how many each round gave.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct DecodeTimes {
    pub ttft_ms: Vec<f64>,
    pub step_ms: Vec<f64>,
    pub steps_per_round: Vec<usize>,
}

impl DecodeTimes {
    fn add(&mut self, generation: &generate::Generation) {
        self.ttft_ms.push(generation.prefill.total_ms);
        self.step_ms.extend(generation.decode.iter().map(|s| s.total_ms));
        self.steps_per_round.push(generation.decode.len());
    }
}

/// Both sides of a paired timing, and the device they ran on, as the session said it.
pub struct PairedTimes {
    pub original: DecodeTimes,
    pub candidate: DecodeTimes,
    pub device: String,
}

/// The folder's decoder as `original` and as `candidate` make it, both open at once and timed
/// in alternating rounds (A B, B A, ...) as `generate` runs them by default (the decode captured on DirectML,
/// the greedy token chosen on the device), so that a slow spell of the device falls on both.
pub fn time_paired(
    runtime: &Runtime,
    folder: &Path,
    (original, candidate): (&PlanRequest, &PlanRequest),
    how: PairedDecode,
) -> Result<PairedTimes> {
    let folder = Folder::read(folder)?;
    let prompt = folder.prompt(how.prompt_tokens);
    let kv_length = generate::kv_length(how.prompt_tokens, how.new_tokens, None, folder.spec.context_length)?;
    let open = |request: &PlanRequest, which: &str| {
        crate::stage::step(format!("session creation ({which})"));
        (folder.open(runtime, request, kv_length, generate::Choice::Greedy).map(|(decoder, _, _)| decoder))
            .with_context(|| format!("the {which}"))
    };
    let mut sides = [open(original, "original")?, open(candidate, "candidate")?];
    let settings = folder.looping(how.new_tokens);
    let mut times = [DecodeTimes::default(), DecodeTimes::default()];
    for round in 0..=how.rounds {
        // A B, then B A: whichever runs second in a round (a warmer cache, a clock raised by the
        // first) is each side in turn.
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for which in order {
            if crate::interrupt::interrupted() {
                bail!("interrupted");
            }
            let generation = generate::generate(
                &mut sides[which],
                &prompt,
                &settings,
                &mut Sampler::new(Sampling::Greedy),
                &mut |_, _| Ok(()),
            )?;
            // Round 0 warms both up.
            if round > 0 {
                times[which].add(&generation);
            }
        }
    }
    let device = sides[1].model.device.describe();
    let [original, candidate] = times;
    Ok(PairedTimes { original, candidate, device })
}

/// A genai folder's decoder, read once and opened as `generate` opens it for each request.
struct Folder {
    spec: DecoderSpec,
    file: ModelFile,
    vocab: usize,
}

impl Folder {
    fn read(folder: &Path) -> Result<Folder> {
        let DecoderModel { spec, file, vocab, .. } = DecoderModel::read(folder, None, None)?;
        Ok(Folder { spec, file, vocab })
    }

    /// A synthetic prompt of `tokens`, the same for every form.
    fn prompt(&self, tokens: usize) -> Vec<i64> {
        generate::synthetic_prompt(tokens, self.vocab, &self.spec.eos_token_ids, PROMPT_SEED)
    }

    /// `new_tokens` generated past any EOS: every form makes the same number.
    fn looping(&self, new_tokens: usize) -> LoopSettings<'_> {
        LoopSettings { max_new_tokens: new_tokens, eos_token_ids: &self.spec.eos_token_ids, ignore_eos: true }
    }

    /// The decoder made by `request`, its KV buffer `kv_length` long, its tokens chosen as `choice`
    /// says, the decode captured by default on DirectML.
    fn open(
        &self,
        runtime: &Runtime,
        request: &PlanRequest,
        kv_length: usize,
        choice: generate::Choice,
    ) -> Result<(DecoderSession, Preflight, generate::GraphCapture)> {
        let preflight = Preflight::of(runtime, &self.spec.model.clone(), self.file.clone(), request, Scope::Alone)?;
        let generating = DecoderOptions {
            preflight: &preflight,
            spec: &self.spec,
            kv_length,
            print_plan: false,
            capture: CaptureAsk::Default,
            choice: Some(choice),
        };
        open_generating(runtime, &generating)
    }
}

/// The decoder `.onnx` a genai folder names.
pub fn decoder_file(folder: &Path) -> Result<PathBuf> {
    Ok(DecoderModel::read(folder, None, None)?.spec.model)
}

/// Writes `output` (a folder that must not hold anything yet): every file of `folder` but the
/// decoder and its external data, then the decoder made by `request` (rewrites, precision) under
/// its own name, with dmlrun's record and `metadata` added. Made beside `output` and renamed into
/// place, so a failure leaves nothing half-written.
pub fn write_decoder_folder(
    runtime: &Runtime,
    folder: &Path,
    request: &PlanRequest,
    metadata: &[(String, String)],
    output: &Path,
) -> Result<()> {
    let DecoderModel { spec, file, .. } = DecoderModel::read(folder, None, None)?;
    let external: Vec<PathBuf> = file.info.external_data.iter().map(PathBuf::from).collect();
    let decoder_name = spec.model.file_name().context("the decoder's file name")?.to_os_string();
    let preflight = Preflight::of(runtime, &spec.model.clone(), file, request, Scope::Alone)?;
    let why = "a decoder's outputs are compared by generating (its tokens were compared)";
    let made = engine::made_for_session(runtime, &preflight, &preflight.plan, engine::Check::Not(why), &mut |w| {
        crate::errln!("dmlrun: warning: {w}")
    })?;
    let made_bytes = std::fs::read(made.path()).context("reading the decoder made")?;
    let bytes = engine::saved_model(&spec.model, &preflight, Some(&made_bytes), made.rewrite().as_ref(), None, false)?;
    let bytes = match metadata.is_empty() {
        true => bytes,
        false => crate::formats::onnx_proto::with_metadata(&bytes, "dmlrun.tuned", metadata)?,
    };

    let staging = crate::fsutil::temp_dir_beside(output, ".dmlrun-folder-")
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
    // Its weights copied a tensor at a time from the made model's data file to its own.
    let made_folder = crate::fsutil::folder_of(made.path());
    crate::formats::onnx_proto::write_model_from(&staging.path().join(&decoder_name), &bytes, made_folder)
        .context("writing the decoder")?;
    if output.is_dir() {
        std::fs::remove_dir(output).with_context(|| format!("--output {}", output.display()))?;
    }
    let kept = staging.keep();
    std::fs::rename(&kept, output).with_context(|| format!("--output {}: moving the folder there", output.display()))
}

/// `-o` for a genai folder: absent, or an empty folder.
pub fn check_output_folder(output: &Path) -> Result<()> {
    if output.is_file() || output.extension().is_some_and(|e| e.eq_ignore_ascii_case("onnx")) {
        bail!(
            "--output {}: a genai folder is written into a folder (its config, tokenizer and decoder); name a folder, as -o qwen-dml",
            output.display()
        );
    }
    crate::fsutil::check_free_folder(output).with_context(|| format!("--output {}", output.display()))
}
