//! A difference in a quantized output counted in its quantization steps: "7 steps of 1/255" says
//! what "max |diff| 2.7e-2" does not, that two runs of an int8 model part by a few roundings.

use super::Preflight;
use crate::compare::Difference;
use crate::formats::model::QuantizedOutput;

/// Sets each difference's quantization step where its output is quantized: the scale of the
/// DequantizeLinear that writes it (a one-element constant), or 1 for integers.
pub fn count_in_steps(differences: &mut [Difference], preflight: &Preflight) {
    let outputs = preflight.model.info.quantized_outputs();
    if outputs.is_empty() {
        return;
    }
    let dequantized = outputs.iter().any(|(_, q)| matches!(q, QuantizedOutput::Dequantized { .. }));
    // The scales' values are in the graph, which the header does not read.
    let graph = dequantized.then(|| crate::graph::Graph::read(&preflight.model_path).ok()).flatten();
    for difference in differences {
        let Some((_, quantized)) = outputs.iter().find(|(name, _)| *name == difference.output) else { continue };
        difference.quantization_step = match quantized {
            QuantizedOutput::Integer => Some(1.0),
            QuantizedOutput::Dequantized { scale } => graph.as_ref().and_then(|g| g.scalar(scale)),
        };
    }
}
