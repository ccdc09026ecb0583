//! How `generate`, `bench` and `fix` open a decoder: as `generate` runs it, the decode step
//! captured by default on DirectML and the greedy token chosen on the device.

use anyhow::Result;

use super::{DecoderOptions, DecoderSession};
use crate::generate::{CaptureAsk, GraphCapture};
use crate::runtime::engine::Preflight;
use crate::runtime::plan::PlanRequest;
use crate::runtime::Runtime;

/// The decoder `generate`, `bench` and `fix` generate with: on DirectML its decode step captured
/// by default where the model allows it (as onnxruntime-genai), a model that cannot be captured
/// run uncaptured with the reason said, never failed for a default; with the preflight the session
/// was opened from (the captured one where it was) and the capture's choice.
pub fn open_generating(runtime: &Runtime, how: &DecoderOptions) -> Result<(DecoderSession, Preflight, GraphCapture)> {
    let (preflight, asked) = (how.preflight, how.capture);
    let mut capture = GraphCapture::choose(asked, preflight.plan.uses_directml(), how.spec.past_present_share_buffer);
    let mut refused = None;
    if capture.captured && asked == CaptureAsk::Default {
        let request = PlanRequest { dml_graph_capture: true, io_on_device: true, ..preflight.request.clone() };
        let captured = preflight.with_request(runtime, &request)?;
        match DecoderSession::open(runtime, &DecoderOptions { preflight: &captured, ..*how }) {
            Ok(session) => return Ok((session, captured, capture)),
            Err(e) => {
                refused = Some(crate::exit::one_line(&e));
                capture.captured = false;
            }
        }
    }
    let session = DecoderSession::open(runtime, how)?;
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
