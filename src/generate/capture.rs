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

impl CaptureAsk {
    /// The ask a session opened exactly as its plan says has: captured where the plan is, and no
    /// fallback either way.
    pub fn as_planned(captured: bool) -> CaptureAsk {
        match captured {
            true => CaptureAsk::DmlGraphCapture,
            false => CaptureAsk::NoDmlGraphCapture,
        }
    }
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

    /// The default's captured step failed to replay: the steps from there ran uncaptured.
    pub fn replay_failed(&mut self, error: &str) {
        self.captured = false;
        self.why = format!("the captured decode step failed to replay, so it ran uncaptured from there: {error}");
    }
}

/// How the command asks for each token to be chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// The highest logit, wherever it is cheapest to find.
    Greedy,
    /// The highest logit, found on the host (`--choose-on-host`).
    GreedyOnHost,
    /// The highest logit, found on the host because `--compare-ep` compares every step's logits.
    GreedyLogitsCompared,
    /// Drawn from the logits (`--sample`).
    Sampled,
    /// The highest logit after `--repetition-penalty` or `--no-repeat-ngram` rewrote them.
    GreedyProcessed,
}

/// Where the decode step's token was chosen, and why.
#[derive(Debug, Clone, Serialize)]
pub struct TokenChoice {
    /// An `ArgMax` on the device read the replayed step's logits, and one int64 came back.
    pub on_device: bool,
    pub why: String,
}

impl TokenChoice {
    /// Whether to ask the engine for the choice on the device: greedy over a captured step.
    pub fn wanted(choice: Choice, captured: bool) -> bool {
        choice == Choice::Greedy && captured
    }

    /// What happened: `device` is the engine's answer (`Err` why its `ArgMax` could not be made).
    pub fn after(choice: Choice, captured: bool, device: Result<bool, String>) -> TokenChoice {
        let (on_device, why) = match (choice, captured, device) {
            (Choice::Sampled, ..) => (false, "sampling (--sample) draws from the whole vocabulary's logits".to_string()),
            (Choice::GreedyOnHost, ..) => (false, "--choose-on-host".into()),
            (Choice::GreedyProcessed, ..) => (
                false,
                "--repetition-penalty or --no-repeat-ngram rewrites each step's logits with the tokens so far".into(),
            ),
            (Choice::GreedyLogitsCompared, ..) => {
                (false, "--compare-ep compares every step's logits, so they come back to the host".into())
            }
            (Choice::Greedy, false, _) => {
                (false, "the decode step is not captured; its logits come back with each run".into())
            }
            (Choice::Greedy, true, Err(why)) => (false, format!("the ArgMax on the device could not be made: {why}")),
            (Choice::Greedy, true, Ok(false)) => (false, "the captured step did not replay".into()),
            (Choice::Greedy, true, Ok(true)) => (
                true,
                "greedy over the captured session: an ArgMax appended to the model picks each token where the logits are; --choose-on-host turns it off".into(),
            ),
        };
        TokenChoice { on_device, why }
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
    fn the_token_is_chosen_on_the_device_only_when_greedy_over_a_captured_step_that_replayed() {
        assert!(TokenChoice::wanted(Choice::Greedy, true));
        assert!(!TokenChoice::wanted(Choice::Sampled, true) && !TokenChoice::wanted(Choice::GreedyOnHost, true));
        assert!(!TokenChoice::wanted(Choice::GreedyLogitsCompared, true), "--compare-ep reads every step's logits");
        assert!(!TokenChoice::wanted(Choice::Greedy, false));
        assert!(TokenChoice::after(Choice::Greedy, true, Ok(true)).on_device);
        let sampled = TokenChoice::after(Choice::Sampled, true, Ok(false));
        assert!(!sampled.on_device && sampled.why.contains("--sample"), "{}", sampled.why);
        let asked = TokenChoice::after(Choice::GreedyOnHost, true, Ok(false));
        assert!(!asked.on_device && asked.why == "--choose-on-host", "{}", asked.why);
        let uncaptured = TokenChoice::after(Choice::Greedy, false, Ok(false));
        assert!(!uncaptured.on_device && uncaptured.why.contains("not captured"), "{}", uncaptured.why);
        let failed = TokenChoice::after(Choice::Greedy, true, Err("ArgMax is not registered".into()));
        assert!(!failed.on_device && failed.why.ends_with("ArgMax is not registered"), "{}", failed.why);
        assert!(!TokenChoice::after(Choice::Greedy, true, Ok(false)).on_device);
    }

    #[test]
    fn a_failed_replay_is_said_and_not_counted_captured() {
        let mut capture = GraphCapture::choose(CaptureAsk::Default, true, true);
        capture.replay_failed("887A0005");
        assert!(!capture.captured);
        assert!(
            capture.why.starts_with("the captured decode step failed to replay") && capture.why.ends_with("887A0005")
        );
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
