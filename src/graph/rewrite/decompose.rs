//! `--decompose OP`: each node of a normalisation op becomes primitive ONNX ops with the same
//! meaning, the statistics and the normalisation computed in float32 whatever the model's float
//! type (as ONNX Runtime's kernels compute them, and `stash_type` asks), the scale and bias
//! applied in the model's type (as ONNX's function body of LayerNormalization does), with every
//! optional output; Gelu in its input's own type. Some execution providers, or their drivers,
//! hang or fail on the fused op and run the primitives (DirectML on this stack's H100, Wine 8 +
//! vkd3d 1.6). The primitives are chosen so that ONNX Runtime's own fusions (LayerNormFusion,
//! SimplifiedLayerNormFusion) do not put the op back: `Reciprocal` and `Mul` where they look for
//! `Div`. Each binary op has a broadcast operand (a scalar, a reduced statistic, a scale) but a
//! skip norm's residual sum, which is in the model's own type: DirectML on this project's stack
//! rejects a float32 op on two tensors of one shape.

use std::fmt;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::{float_of, int_attribute, int_of, Built, FLOAT};
use crate::formats::onnx_proto::lossless::EditNode;

/// An operator `--decompose` can write as primitive ops: the variants are the operators' names.
#[allow(clippy::enum_variant_names)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Decomposable {
    /// ONNX's (opset 17): mean and variance over `axis` and after.
    LayerNormalization,
    /// ONNX's (opset 23): root mean square over `axis` and after.
    #[serde(rename = "RMSNormalization")]
    RmsNormalization,
    /// ONNX Runtime's RMS norm in the default domain (what onnxruntime-genai's builder writes).
    SimplifiedLayerNormalization,
    /// `com.microsoft`: a residual add, then layer norm over the last axis.
    SkipLayerNormalization,
    /// `com.microsoft`: a residual add, then RMS norm over the last axis.
    SkipSimplifiedLayerNormalization,
    /// ONNX's (opset 20, a function op; `approximate` "none" or "tanh") and `com.microsoft`'s
    /// (exact): what torch's exporter writes in every BERT and ViT.
    Gelu,
}

impl Decomposable {
    pub const ALL: [Decomposable; 6] = [
        Decomposable::LayerNormalization,
        Decomposable::RmsNormalization,
        Decomposable::SimplifiedLayerNormalization,
        Decomposable::SkipLayerNormalization,
        Decomposable::SkipSimplifiedLayerNormalization,
        Decomposable::Gelu,
    ];

    /// The operator type as a model names it.
    pub fn op_type(self) -> &'static str {
        match self {
            Decomposable::LayerNormalization => "LayerNormalization",
            Decomposable::RmsNormalization => "RMSNormalization",
            Decomposable::SimplifiedLayerNormalization => "SimplifiedLayerNormalization",
            Decomposable::SkipLayerNormalization => "SkipLayerNormalization",
            Decomposable::SkipSimplifiedLayerNormalization => "SkipSimplifiedLayerNormalization",
            Decomposable::Gelu => "Gelu",
        }
    }

    /// The operator types ONNX Runtime's fusions would make of the primitives again: the op
    /// itself, and for Gelu the fused forms of its contrib domain (GeluFusion, FastGeluFusion,
    /// BiasGeluFusion).
    pub fn fused_forms(self) -> &'static [&'static str] {
        match self {
            Decomposable::LayerNormalization => &["LayerNormalization"],
            Decomposable::RmsNormalization => &["RMSNormalization"],
            Decomposable::SimplifiedLayerNormalization => &["SimplifiedLayerNormalization"],
            Decomposable::SkipLayerNormalization => &["SkipLayerNormalization"],
            Decomposable::SkipSimplifiedLayerNormalization => &["SkipSimplifiedLayerNormalization"],
            Decomposable::Gelu => &["Gelu", "FastGelu", "BiasGelu"],
        }
    }

    /// `--decompose`'s value: an operator type, as the model names it.
    pub fn parse(text: &str) -> Result<Decomposable, String> {
        Decomposable::ALL.into_iter().find(|d| d.op_type() == text).ok_or_else(|| {
            let names: Vec<&str> = Decomposable::ALL.iter().map(|d| d.op_type()).collect();
            let near = crate::suggest::closest(text, names.iter().map(|n| n.to_string()));
            let near = near.first().map(|n| format!(" (did you mean {n}?)")).unwrap_or_default();
            format!("'{text}' is not an operator dmlrun can decompose{near}; it can: {}", names.join(", "))
        })
    }
}

impl fmt::Display for Decomposable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.op_type())
    }
}

impl Built<'_, '_> {
    /// The mean over `axes`, dimensions kept.
    fn mean(&mut self, input: &str, axes: &[i64]) -> String {
        self.reduce("ReduceMean", input, axes, true, None)
    }

    /// The axes a norm of `axis` covers, as negative axes when the rank is not known.
    fn norm_axes(&self, input: &str, axis: i64) -> Result<Vec<i64>> {
        if axis < 0 {
            return Ok((axis..0).collect());
        }
        match self.writer.rank(input) {
            Some(rank) if (axis as usize) < rank => Ok((axis..rank as i64).collect()),
            Some(rank) => bail!("axis {axis} is beyond its input's rank {rank}"),
            None => bail!("axis {axis} counts from the front, and the model does not declare the rank of '{input}'"),
        }
    }

    /// The float32 normalisation of `x` (already float32) over `axes`: the normalised values,
    /// and the mean and reciprocal standard deviation (root mean square for `rms`).
    fn normalize(&mut self, x: &str, axes: &[i64], epsilon: f32, rms: bool, want_mean: bool) -> Norm {
        let (centred, mean) = if rms {
            (x.to_string(), want_mean.then(|| self.mean(x, axes)))
        } else {
            let mean = self.mean(x, axes);
            (self.op("Sub", &[x, &mean], None, vec![]), Some(mean))
        };
        // Pow with a scalar exponent, not x * x: DirectML under Wine 8's vkd3d rejects a float32
        // element-wise op on two tensors of one shape (it writes those shaders in DXIL, which
        // vkd3d 1.6 cannot compile) and runs one with a broadcast operand.
        let two = self.float_scalar(2.0);
        let squared = self.op("Pow", &[&centred, &two], None, vec![]);
        let variance = self.mean(&squared, axes);
        let epsilon = self.float_scalar(epsilon);
        let shifted = self.op("Add", &[&variance, &epsilon], None, vec![]);
        let deviation = self.op("Sqrt", &[&shifted], None, vec![]);
        let inv_std = self.op("Reciprocal", &[&deviation], None, vec![]);
        let normalized = self.op("Mul", &[&centred, &inv_std], None, vec![]);
        Norm { normalized, mean, inv_std }
    }

    /// `normalized` (float32) cast back to `like`'s type, then `* scale (+ bias)` in that type,
    /// written as `output`. The scale and bias stay as the model has them: DirectML on this
    /// project's stack (Wine 8, vkd3d 1.6) rejects a float32 Mul by a scale cast from float16 (seen
    /// on the H100), and runs the model's own type's.
    fn scale_and_cast(&mut self, norm: &str, scale: &str, bias: Option<&str>, like: &str, output: &str) {
        let cast = self.op("CastLike", &[norm, like], None, vec![]);
        match bias {
            Some(bias) => {
                let scaled = self.op("Mul", &[&cast, scale], None, vec![]);
                self.op("Add", &[&scaled, bias], Some(output), vec![]);
            }
            None => {
                self.op("Mul", &[&cast, scale], Some(output), vec![]);
            }
        }
    }

    /// A statistic (mean, inverse deviation) written as `output` in `stash_type`.
    fn statistic(&mut self, value: &str, output: &str, stash_type: i64) {
        if stash_type == FLOAT as i64 {
            self.op("Identity", &[value], Some(output), vec![]);
        } else {
            self.op("Cast", &[value], Some(output), vec![int_attribute("to", stash_type)]);
        }
    }

    pub(super) fn decompose(&mut self, op: Decomposable, node: &EditNode) -> Result<()> {
        if self.writer.opset < 15 {
            bail!("the model's default opset {} is below 15, where CastLike begins", self.writer.opset);
        }
        let input = |i: usize| node.input.get(i).map(String::as_str).filter(|s| !s.is_empty());
        let output = |i: usize| node.output.get(i).map(String::as_str).filter(|s| !s.is_empty());
        let x = input(0).context("no input")?;
        match op {
            Decomposable::LayerNormalization
            | Decomposable::RmsNormalization
            | Decomposable::SimplifiedLayerNormalization => {
                let rms = op != Decomposable::LayerNormalization;
                let axis = int_of(node, "axis").unwrap_or(-1);
                let epsilon = float_of(node, "epsilon").unwrap_or(1e-5);
                let stash_type = int_of(node, "stash_type").unwrap_or(FLOAT as i64);
                if stash_type != FLOAT as i64 {
                    bail!("stash_type {stash_type}: only float32 (1) arithmetic is written");
                }
                let axes = self.norm_axes(x, axis)?;
                let scale = input(1).context("no scale")?;
                let bias = if op == Decomposable::LayerNormalization { input(2) } else { None };
                // LayerNormalization writes Mean then InvStdDev; the RMS norms InvStdDev alone.
                let (mean_out, inv_out) = match op {
                    Decomposable::LayerNormalization => (output(1), output(2)),
                    Decomposable::SimplifiedLayerNormalization => (None, output(1)),
                    _ => (None, None),
                };
                let xf = self.cast_to_float(x);
                let norm = self.normalize(&xf, &axes, epsilon, rms, mean_out.is_some());
                self.scale_and_cast(&norm.normalized, scale, bias, x, output(0).context("no output")?);
                if let (Some(out), Some(mean)) = (mean_out, &norm.mean) {
                    self.statistic(mean, out, stash_type);
                }
                if let Some(out) = inv_out {
                    self.statistic(&norm.inv_std, out, stash_type);
                }
            }
            Decomposable::SkipLayerNormalization | Decomposable::SkipSimplifiedLayerNormalization => {
                let rms = op == Decomposable::SkipSimplifiedLayerNormalization;
                let epsilon = float_of(node, "epsilon").unwrap_or(1e-12);
                let skip = input(1).context("no skip")?;
                let gamma = input(2).context("no gamma")?;
                // SkipLayerNormalization: input, skip, gamma, beta, bias;
                // SkipSimplifiedLayerNormalization: input, skip, gamma, bias.
                let (beta, bias) = if rms { (None, input(3)) } else { (input(3), input(4)) };
                // The residual sum in the model's own type, as the model adds elsewhere: a float32
                // Add of two tensors of one shape is what DirectML under vkd3d 1.6 rejects. Two
                // float16 values add to the float16 ONNX Runtime's kernel writes; the sum is then
                // normalised in float32.
                let mut own = self.op("Add", &[x, skip], None, vec![]);
                if let Some(bias) = bias {
                    own = self.op("Add", &[&own, bias], None, vec![]);
                }
                let sum = self.cast_to_float(&own);
                let norm = self.normalize(&sum, &[-1], epsilon, rms, false);
                self.scale_and_cast(&norm.normalized, gamma, beta, x, output(0).context("no output")?);
                if let Some(out) = output(1) {
                    // ONNX Runtime's kernel writes zeros for an RMS norm's mean: so does this.
                    let mean = match &norm.mean {
                        Some(mean) => mean.clone(),
                        None => self.op("Sub", &[&norm.inv_std, &norm.inv_std], None, vec![]),
                    };
                    self.statistic(&mean, out, FLOAT as i64);
                }
                if let Some(out) = output(2) {
                    self.statistic(&norm.inv_std, out, FLOAT as i64);
                }
                if let Some(out) = output(3) {
                    self.op("Identity", &[&own], Some(out), vec![]);
                }
            }
            Decomposable::Gelu => self.gelu(node, x, output(0).context("no output")?)?,
        }
        Ok(())
    }

    /// Gelu in its input's own type, as ONNX's function body computes it, in forms ONNX
    /// Runtime's Gelu fusions do not match (they look for `Div` by sqrt(2), then `Erf`, then
    /// `Add` of 1; and for `Tanh`):
    /// - exact: `x * (0.5 + 0.5 * erf(x * (1 / sqrt(2))))`;
    /// - tanh: `x * sigmoid(2 * sqrt(2 / pi) * (x + 0.044715 * x^3))`, the same function, since
    ///   `(1 + tanh(z)) / 2 = sigmoid(2z)`.
    fn gelu(&mut self, node: &EditNode, x: &str, output: &str) -> Result<()> {
        let approximate = node
            .attribute
            .iter()
            .find(|a| a.name.as_deref() == Some("approximate"))
            .and_then(|a| a.s.as_deref())
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .unwrap_or_else(|| "none".to_string());
        let constant = |built: &mut Self, value: f32| {
            let scalar = built.float_scalar(value);
            built.op("CastLike", &[&scalar, x], None, vec![])
        };
        let gate = match approximate.as_str() {
            "none" => {
                let inv_sqrt2 = constant(self, std::f32::consts::FRAC_1_SQRT_2);
                let half = constant(self, 0.5);
                let scaled = self.op("Mul", &[x, &inv_sqrt2], None, vec![]);
                let erf = self.op("Erf", &[&scaled], None, vec![]);
                let halved = self.op("Mul", &[&erf, &half], None, vec![]);
                self.op("Add", &[&halved, &half], None, vec![])
            }
            "tanh" => {
                let three = constant(self, 3.0);
                let coefficient = constant(self, 0.044715);
                let twice_sqrt_2_over_pi = constant(self, 2.0 * (2.0 / std::f32::consts::PI).sqrt());
                let cubed = self.op("Pow", &[x, &three], None, vec![]);
                let term = self.op("Mul", &[&cubed, &coefficient], None, vec![]);
                let inner = self.op("Add", &[x, &term], None, vec![]);
                let z = self.op("Mul", &[&inner, &twice_sqrt_2_over_pi], None, vec![]);
                self.op("Sigmoid", &[&z], None, vec![])
            }
            other => bail!("approximate '{other}': ONNX defines 'none' and 'tanh'"),
        };
        self.op("Mul", &[x, &gate], Some(output), vec![]);
        Ok(())
    }
}

struct Norm {
    normalized: String,
    mean: Option<String>,
    inv_std: String,
}
