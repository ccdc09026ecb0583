//! Whether `generate` captures DirectML's decode step, and why: the choice and its reason, kept
//! apart from the session that carries it out so that every branch is tested without a GPU.

use serde::Serialize;

/// What was asked of DirectML graph capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaptureAsk {
    /// No flag: captured on DirectML where the model allows it, as onnxruntime-genai does.
    Default,
    /// `--dml-graph-capture`: captured, or an error saying why it cannot be.
    DmlGraphCapture,
    /// `--no-dml-graph-capture`.
    NoDmlGraphCapture,
}

/// Whether the decode step was graph-captured, and why.
#[derive(Debug, Clone, Serialize)]
pub struct GraphCapture {
    pub asked: CaptureAsk,
    pub captured: bool,
    pub why: String,
}

impl GraphCapture {
    /// The choice before the session opens. On DirectML the decode step is captured by default,
    /// as onnxruntime-genai does (its `IsGraphCaptureEnabled` is true for DirectML), where the
    /// shapes allow it: the shared KV buffer keeps the decode step's shapes static; a growing
    /// cache does not.
    pub fn choose(asked: CaptureAsk, on_directml: bool, shared_kv: bool) -> GraphCapture {
        let (captured, why) = match asked {
            CaptureAsk::DmlGraphCapture => (true, "--dml-graph-capture"),
            CaptureAsk::NoDmlGraphCapture => (false, "--no-dml-graph-capture"),
            CaptureAsk::Default if !on_directml => (false, "graph capture is DirectML's"),
            CaptureAsk::Default if !shared_kv => (
                false,
                "the KV cache grows a position a step (--kv-layout growing), so the decode step's shapes are not static",
            ),
            CaptureAsk::Default => (
                true,
                "DirectML's default, as onnxruntime-genai's: the decode step over the shared KV buffer has static shapes; --no-dml-graph-capture turns it off",
            ),
        };
        GraphCapture { asked, captured, why: why.to_string() }
    }

    /// The default's capture did not open: the run goes on uncaptured, saying why.
    pub fn fell_back(&mut self, error: &str) {
        self.captured = false;
        self.why = format!("this model cannot be captured, so it ran uncaptured: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_captures_on_directml_with_the_shared_kv_buffer_only() {
        let on = GraphCapture::choose(CaptureAsk::Default, true, true);
        assert!(on.captured);
        assert!(on.why.contains("onnxruntime-genai"), "{}", on.why);
        let cpu = GraphCapture::choose(CaptureAsk::Default, false, true);
        assert!(!cpu.captured);
        assert_eq!(cpu.why, "graph capture is DirectML's");
        let growing = GraphCapture::choose(CaptureAsk::Default, true, false);
        assert!(!growing.captured);
        assert!(growing.why.contains("--kv-layout growing"), "{}", growing.why);
    }

    #[test]
    fn a_flag_decides_whatever_the_session() {
        for (on_directml, shared_kv) in [(true, true), (true, false), (false, true)] {
            let on = GraphCapture::choose(CaptureAsk::DmlGraphCapture, on_directml, shared_kv);
            assert!(on.captured && on.why == "--dml-graph-capture");
            let off = GraphCapture::choose(CaptureAsk::NoDmlGraphCapture, on_directml, shared_kv);
            assert!(!off.captured && off.why == "--no-dml-graph-capture");
        }
    }

    #[test]
    fn a_fallback_says_why_and_is_not_captured() {
        let mut capture = GraphCapture::choose(CaptureAsk::Default, true, true);
        capture.fell_back("a node on the CPU");
        assert!(!capture.captured);
        assert_eq!(capture.why, "this model cannot be captured, so it ran uncaptured: a node on the CPU");
        assert_eq!(serde_json::to_value(capture.asked).unwrap(), "default");
    }
}
