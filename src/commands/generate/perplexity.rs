//! `generate --perplexity FILE`: the text scored window by window, teacher-forced, on the EP and
//! on `--compare-ep`'s.

use std::path::Path;

use anyhow::{bail, Context, Result};

use super::{exports, publish, report_of_session, save_model};
use crate::exit::ExitStatus;
use crate::generate::{CaptureAsk, DecoderModel, GraphCapture, TokenChoice};
use crate::report::generate::{self as report, GenerateReport};
use crate::runtime::engine::{DecoderOptions, DecoderSession};
use crate::settings::GenerateSettings;

/// Fewer scored tokens than this, and `--perplexity` warns that its figure is noise.
const FEW_SCORED: usize = 100;

/// Tokens in a --perplexity window when --window is not given: the model's context, at most this.
const DEFAULT_WINDOW: usize = 2048;

/// `--perplexity FILE`: the text scored window by window on the EP (the prefill path only, no
/// capture), and on `--compare-ep`'s with the ratio.
pub(super) fn score(
    settings: &GenerateSettings,
    text: &Path,
    window: Option<usize>,
    stride: Option<usize>,
) -> Result<ExitStatus> {
    let mut exports = exports(settings)?;
    let DecoderModel { spec, file, tokenizer, .. } = super::read_decoder(settings)?;
    let tokenizer = tokenizer.with_context(|| {
        format!(
            "--perplexity needs a tokenizer: {} has no tokenizer.json; give one with --tokenizer FILE",
            settings.model.display()
        )
    })?;
    let content = crate::fsutil::read_text(text).with_context(|| format!("--perplexity {}", text.display()))?;
    let ids = tokenizer.encode(&content).with_context(|| format!("--perplexity {}", text.display()))?;
    let window = window.unwrap_or(spec.context_length.min(DEFAULT_WINDOW));
    if window > spec.context_length {
        bail!("--window {window} is longer than the model's context of {} tokens", spec.context_length);
    }
    let stride = stride.unwrap_or((window / 2).max(1));
    crate::generate::perplexity::windows(ids.len(), window, stride)
        .with_context(|| format!("--perplexity {}", text.display()))?;

    let (_deadline, runtime, preflight) = super::loaded(settings, &spec, file)?;
    let options = DecoderOptions {
        preflight: &preflight,
        spec: &spec,
        print_plan: settings.print_plan,
        kv_length: window,
        capture: CaptureAsk::as_planned(preflight.plan.graph_capture()),
        choice: None,
    };
    let mut decoder = DecoderSession::open(&runtime, &options)?;
    let measured = crate::generate::perplexity::measure(&mut decoder, &ids, window, stride)?;
    // A perplexity over a handful of tokens is noise, whatever digits it prints.
    if measured.scored < FEW_SCORED {
        crate::errln!(
            "dmlrun: warning: --perplexity {}: only {} token(s) scored; a perplexity over fewer than {FEW_SCORED} says little",
            text.display(),
            measured.scored
        );
    }
    let (reference_ep, reference) = match &settings.compare {
        Some((ep, level)) => {
            let request = preflight.request.reference(ep.clone(), *level);
            let reference = preflight.with_request(&runtime, &request)?;
            let options = DecoderOptions { preflight: &reference, print_plan: false, ..options };
            let mut other = DecoderSession::open(&runtime, &options).context("the --compare-ep session")?;
            let scored = crate::generate::perplexity::measure(&mut other, &ids, window, stride)?;
            (Some(other.model.device.describe()), Some(scored))
        }
        None => (None, None),
    };
    if let Some(memory) = decoder.model.memory.as_mut() {
        memory.sample();
    }
    let ratio = reference.as_ref().map(|r| measured.perplexity / r.perplexity);
    let result = report::PerplexityResult { text: text.to_path_buf(), measured, reference_ep, reference, ratio };
    let capture = GraphCapture {
        asked: settings.capture,
        captured: false,
        why: "--perplexity runs the prefill path only".into(),
    };
    let report = GenerateReport {
        token_choice: TokenChoice { on_device: false, why: "--perplexity reads every position's logits".into() },
        graph_capture: capture,
        perplexity: Some(result),
        ..report_of_session(settings, &spec, Some(tokenizer.path.clone()), &runtime, &decoder, window)
    };
    publish(settings, &mut exports, &report)?;
    save_model(settings, &decoder, &preflight)?;
    Ok(ExitStatus::Success)
}
