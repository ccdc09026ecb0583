//! `generate --chat` with no prompt: a conversation read from standard input, a turn a line. Each
//! answer is generated from the whole conversation so far (the system message, every turn and
//! every answer) through the model's chat template, greedy or as --sample, --repetition-penalty
//! and --no-repeat-ngram ask, and streamed to standard output as it comes.

use std::io::{BufRead, IsTerminal};

use anyhow::{Context, Result};

use crate::exit::ExitStatus;
use crate::generate::chat::ChatTemplate;
use crate::generate::tokenizer::{TextStream, TextTokenizer};
use crate::generate::{self, DecoderModel, LoopSettings, Sampler};
use crate::runtime::engine::{self, DecoderOptions, DecoderSession, Preflight, Scope};
use crate::settings::GenerateSettings;

/// The conversation until end of input (or Ctrl-C, or until it outgrows the KV cache).
pub(super) fn talk(settings: &GenerateSettings) -> Result<ExitStatus> {
    let DecoderModel { spec, file, tokenizer, .. } = super::read_decoder(settings)?;
    let tokenizer = tokenizer.with_context(|| {
        format!(
            "--chat needs a tokenizer: {} has no tokenizer.json; give one with --tokenizer FILE",
            settings.model.display()
        )
    })?;
    let template = ChatTemplate::beside(&tokenizer.path)?;
    // The cache is made once, for the longest conversation it can hold: --max-length, or the
    // model's context.
    let kv_length = settings.max_length.unwrap_or(spec.context_length).min(spec.context_length);
    let runtime = settings.ort.load()?;
    let preflight = Preflight::of(&runtime, &spec.model.clone(), file, &settings.request, Scope::Alone)?;
    let generating = DecoderOptions {
        preflight: &preflight,
        spec: &spec,
        kv_length,
        print_plan: settings.print_plan,
        capture: settings.capture,
        choice: Some(settings.choice),
    };
    let (mut decoder, _, _) = engine::open_generating(&runtime, &generating)?;
    let looping =
        LoopSettings { max_new_tokens: settings.max_new_tokens, eos_token_ids: &spec.eos_token_ids, ignore_eos: false };
    let mut turns: Vec<(String, String)> = Vec::new();
    if let Some(system) = settings.chat.as_ref().and_then(|c| c.system.clone()) {
        turns.push(("system".into(), system));
    }
    let terminal = std::io::stdin().is_terminal();
    let layout = if spec.past_present_share_buffer { "shared" } else { "growing" };
    crate::errln!(
        "(a conversation of up to {kv_length} positions, KV cache {layout}: a turn a line, until end of input)"
    );
    while let Some(line) = next_turn(terminal)? {
        turns.push(("user".into(), line));
        let shown: Vec<(&str, &str)> = turns.iter().map(|(r, c)| (r.as_str(), c.as_str())).collect();
        let ids = tokenizer.encode(&template.render_turns(&shown)?)?;
        if ids.len() + settings.max_new_tokens > kv_length {
            crate::errln!(
                "dmlrun: the conversation is {} tokens, and with -n {} no longer fits the {kv_length} positions of the cache (--max-length, the model's context {}); it ends here",
                ids.len(),
                settings.max_new_tokens,
                spec.context_length
            );
            break;
        }
        let answer = answer(&mut decoder, &tokenizer, &ids, &looping, settings)?;
        turns.push(("assistant".into(), answer));
        if crate::interrupt::interrupted() {
            return Ok(ExitStatus::Interrupted);
        }
    }
    Ok(ExitStatus::Success)
}

/// The next non-empty line of standard input (`> ` asked on a terminal), or `None` at its end.
fn next_turn(terminal: bool) -> Result<Option<String>> {
    loop {
        if terminal {
            crate::err!("> ");
        }
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line).context("reading the next turn from standard input")? == 0 {
            return Ok(None);
        }
        let line = line.trim();
        if !line.is_empty() {
            return Ok(Some(line.to_string()));
        }
    }
}

/// One answer, streamed to standard output as it comes, then its figures on standard error; its
/// text (the end-of-sequence token left out) for the conversation.
fn answer(
    decoder: &mut DecoderSession,
    tokenizer: &TextTokenizer,
    ids: &[i64],
    looping: &LoopSettings<'_>,
    settings: &GenerateSettings,
) -> Result<String> {
    let mut sampler = Sampler::new(settings.sampling).with_processing(settings.processing);
    let mut stream = TextStream::default();
    let generation = generate::generate(decoder, ids, looping, &mut sampler, &mut |id, _| {
        crate::out!("{}", stream.push(tokenizer, id)?);
        Ok(())
    })?;
    crate::outln!("{}", stream.finish(tokenizer)?);
    let decode_ms: f64 = generation.decode.iter().map(|s| s.total_ms).sum();
    let per_second = match decode_ms > 0.0 {
        true => format!(", {:.1} tokens/s", generation.decode.len() as f64 * 1000.0 / decode_ms),
        false => String::new(),
    };
    crate::errln!(
        "({} tokens of {} in the conversation; first token {:.1} ms{per_second})",
        generation.tokens.len(),
        ids.len(),
        generation.prefill.total_ms
    );
    let answered: Vec<i64> = generation.tokens.into_iter().filter(|t| !looping.eos_token_ids.contains(t)).collect();
    tokenizer.decode(&answered)
}
