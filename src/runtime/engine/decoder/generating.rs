//! How `generate`, `bench` and `fix` open a decoder: as `generate` runs it, the decode step
//! captured by default on DirectML and the greedy token chosen on the device.

use anyhow::Result;

use super::{DecoderOptions, DecoderSession};
use crate::generate::{CaptureAsk, Choice, DecoderSpec, GraphCapture, TokenChoice};
use crate::runtime::engine::Preflight;
use crate::runtime::plan::PlanRequest;
use crate::runtime::Runtime;

/// How a command that generates opens its decoder: as `generate` runs it.
pub struct Generating<'a> {
    pub preflight: &'a Preflight,
    pub spec: &'a DecoderSpec,
    pub kv_length: usize,
    pub print_plan: bool,
    pub capture: CaptureAsk,
    /// How tokens are chosen: greedy over a captured step is chosen on the device.
    pub choice: Choice,
}

/// The decoder `generate`, `bench` and `fix` generate with: on DirectML its decode step captured
/// by default where the model allows it (as onnxruntime-genai), a model that cannot be captured
/// run uncaptured with the reason said, never failed for a default; with the preflight the session
/// was opened from (the captured one where it was) and the capture's choice.
pub fn open_generating(runtime: &Runtime, how: &Generating) -> Result<(DecoderSession, Preflight, GraphCapture)> {
    let (preflight, asked) = (how.preflight, how.capture);
    let mut capture = GraphCapture::choose(asked, preflight.plan.uses_directml(), how.spec.past_present_share_buffer);
    let mut refused = None;
    if capture.captured && asked == CaptureAsk::Default {
        let request = PlanRequest { dml_graph_capture: true, io_on_device: true, ..preflight.request.clone() };
        let captured = preflight.with_request(runtime, &request)?;
        match DecoderSession::open(runtime, &how.options(&captured, true)) {
            Ok(session) => return Ok((session, captured, capture)),
            Err(e) => {
                refused = Some(crate::exit::one_line(&e));
                capture.captured = false;
            }
        }
    }
    let session = DecoderSession::open(runtime, &how.options(preflight, capture.captured))?;
    if let Some(error) = refused {
        // ONNX Runtime's sentence names no node: what it left off DirectML does.
        let off = crate::runtime::placement::off_directml(&session.model.device.placement);
        capture.fell_back(&match off {
            Some(off) => format!("{error}; {off}"),
            None => error,
        });
        crate::errln!("dmlrun: warning: {}", capture.why);
    }
    Ok((session, preflight.clone(), capture))
}

impl<'a> Generating<'a> {
    fn options<'p>(&self, preflight: &'p Preflight, captured: bool) -> DecoderOptions<'p>
    where
        'a: 'p,
    {
        DecoderOptions {
            preflight,
            spec: self.spec,
            print_plan: self.print_plan,
            kv_length: self.kv_length,
            greedy_on_device: TokenChoice::wanted(self.choice, captured),
            capture_falls_back: self.capture == CaptureAsk::Default,
        }
    }
}
