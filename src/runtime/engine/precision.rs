//! `--precision fp16`, `int4`, `int8`: the model converted before its session, and what it is
//! held to.
//!
//! fp16: one run of the float32 model on the reference EP (the CPU EP, or `--compare-ep`), with
//! every tensor a node reads exposed, on the inputs about to be bound, does two things: its
//! tensors' element types tell the conversion where a value is a float
//! (`graph::Graph::to_float16`), and its outputs are the float32 model's, which the float16
//! outputs are compared with. int4 and int8 (`graph::quantize_model`) need no types: the original
//! runs on the reference EP for its outputs alone.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::diagnose::run_exposed;
use super::open::DeviceReport;
use super::preflight::Preflight;
use super::runs::PreparedInputs;
use crate::compare::Agreement;
use crate::graph::{Conversion, Graph, Quantization};
use crate::runtime::plan::{PlanRequest, SessionPlan};
use crate::runtime::Runtime;
use crate::stats::LatencyStats;
use crate::tensor::{DType, HostValue};

/// A model converted for one run (to float16, or its weights quantized), and the original's
/// outputs it is held to.
pub struct ConvertedModel {
    /// The converted model, in a temporary folder that lives as long as this value; the model
    /// itself where nothing was converted.
    pub path: PathBuf,
    _folder: Option<tempfile::TempDir>,
    pub conversion: Converted,
    /// The original model's outputs on the same inputs.
    pub float32_outputs: Vec<(String, HostValue)>,
    /// Where they were computed.
    pub float32_on: DeviceReport,
}

/// What a conversion did.
#[derive(Debug, Clone)]
pub enum Converted {
    Float16(Conversion),
    Weights(Quantization),
}

impl Converted {
    pub fn converted_anything(&self) -> bool {
        match self {
            Converted::Float16(c) => c.converted_anything(),
            Converted::Weights(q) => q.converted_anything(),
        }
    }
}

/// A model whose weights were quantized for one session, in a temporary folder that lives as
/// long as this value.
pub struct QuantizedModel {
    /// The model itself where nothing was quantized.
    pub path: PathBuf,
    /// What was written: the model and its data file, if any.
    pub files: Vec<PathBuf>,
    _folder: tempfile::TempDir,
    pub quantization: Quantization,
}

/// Quantizes the weights of the model at `model_path` as `plan` asks (`--precision int4|int8`).
pub fn quantize_for(model_path: &Path, plan: &SessionPlan) -> Result<QuantizedModel> {
    let bits = plan.precision.weight_bits().context("a weight-only precision")?;
    let options = crate::graph::WeightOnly {
        blockwise: crate::graph::Blockwise {
            bits,
            block_size: plan.quantization.block_size as usize,
            symmetric: !plan.quantization.asymmetric,
        },
        keep: plan.keep_fp32.clone(),
        whole_blocks_only: plan.uses_directml(),
        accuracy_level: plan.quantization.accuracy_level,
    };
    let folder = tempfile::tempdir().context("a temporary folder for the quantized model")?;
    // The model's own file name, so that what ONNX Runtime says of it names the model, and a saved
    // copy is what the model's folder (genai_config.json) names.
    let name = model_path.file_name().map_or_else(|| "model.onnx".into(), |s| s.to_os_string());
    let path = folder.path().join(name);
    let (files, quantization) = crate::graph::quantize_model(model_path, &path, &options)
        .with_context(|| format!("--precision {}: quantizing model {}", plan.precision, model_path.display()))?;
    if !quantization.converted_anything() {
        // A run "at int4" of a model that is not: refused, not reported as a quantized result.
        bail!(
            "--precision {}: nothing to quantize in {}: {}",
            plan.precision,
            model_path.display(),
            quantization.describe()
        );
    }
    Ok(QuantizedModel { path, files, _folder: folder, quantization })
}

/// [`quantize_for`], and the original run on `reference` with `prepared` inputs for the outputs
/// the quantized model is held to.
pub fn quantize_weights(
    runtime: &Runtime,
    model_path: &Path,
    preflight: &Preflight,
    plan: &SessionPlan,
    (reference, prepared): (&PlanRequest, &PreparedInputs),
) -> Result<ConvertedModel> {
    let quantized = quantize_for(model_path, plan)?;
    let what = format!("--precision {}: the original model on the reference EP", plan.precision);
    let mut original = super::open::load(runtime, model_path, preflight.info(), reference).context(what.clone())?;
    let float32_outputs = super::runs::run_to_host_values(&mut original.session, prepared).context(what)?;
    Ok(ConvertedModel {
        path: quantized.path,
        _folder: Some(quantized._folder),
        conversion: Converted::Weights(quantized.quantization),
        float32_outputs,
        float32_on: original.device,
    })
}

/// Converts `preflight`'s model to float16, with the types and outputs of a float32 run on
/// `reference` (a request for the float32 model) with `prepared` inputs.
pub fn to_float16(
    runtime: &Runtime,
    model_path: &Path,
    preflight: &Preflight,
    reference: &PlanRequest,
    prepared: &PreparedInputs,
) -> Result<ConvertedModel> {
    let graph = Graph::read(model_path)?;
    let (values, float32_on) = run_exposed(runtime, &graph, reference, prepared, &graph.intermediate_tensors())
        .context("--precision fp16: the float32 run that finds which tensors are floats")?;
    let mut types: HashMap<String, DType> = values
        .iter()
        .filter_map(|(name, value)| match value {
            HostValue::Tensor(t) => Some((name.clone(), t.dtype)),
            _ => None,
        })
        .collect();
    for input in &preflight.info().inputs {
        if let Some(dtype) = input.element_type() {
            types.insert(input.name.clone(), dtype);
        }
    }
    let (bytes, mut conversion) =
        graph.to_float16(&types, &preflight.plan.keep_fp32).context("--precision fp16: converting the model")?;
    let float32_outputs = values.into_iter().filter(|(name, _)| graph.outputs().contains(name)).collect();
    if !conversion.converted_anything() {
        // Nothing to convert: the model runs as it is, and the report says why, once.
        conversion.nothing_converted = Some(nothing_to_convert(&types));
        return Ok(ConvertedModel {
            path: model_path.to_path_buf(),
            _folder: None,
            conversion: Converted::Float16(conversion),
            float32_outputs,
            float32_on,
        });
    }
    let folder = tempfile::tempdir().context("a temporary folder for the float16 model")?;
    // Named after the model, so that an error about it names the model.
    let stem = model_path.file_stem().map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
    let path = folder.path().join(format!("{stem}.fp16.onnx"));
    crate::formats::onnx_proto::write_model(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
    Ok(ConvertedModel {
        path,
        _folder: Some(folder),
        conversion: Converted::Float16(conversion),
        float32_outputs,
        float32_on,
    })
}

/// Why a model has nothing to convert, from the element types a float32 run saw in it.
fn nothing_to_convert(types: &HashMap<String, DType>) -> String {
    let has = |dtype: DType| types.values().any(|t| *t == dtype);
    if has(DType::Float16) {
        "nothing to convert: the model computes in float16 already".to_string()
    } else if has(DType::Float64) {
        "nothing to convert: the model computes in float64, which --precision fp16 leaves as it is".to_string()
    } else {
        "nothing to convert: the model has no float32 tensors".to_string()
    }
}

impl ConvertedModel {
    /// How far `outputs` (the converted model's) are from the original's.
    pub fn report(&self, outputs: &[(String, HostValue)]) -> PrecisionReport {
        let converted = self.conversion.converted_anything();
        let (conversion, quantization) = match &self.conversion {
            Converted::Float16(c) => (Some(c.clone()), None),
            Converted::Weights(q) => (None, Some(q.clone())),
        };
        PrecisionReport {
            conversion,
            quantization,
            float32_on: self.float32_on.clone(),
            outputs: if converted { accuracy(&self.float32_outputs, outputs) } else { Vec::new() },
            float32_latency_ms: None,
            float32_error: None,
        }
    }
}

/// Each output of `wanted` against the output of the same name in `got`: a float tensor by its
/// largest differences, values not finite in one only and a classifier's agreement; anything
/// else (integers, strings, maps, sequences) exactly, and said as such.
pub fn accuracy(wanted: &[(String, HostValue)], got: &[(String, HostValue)]) -> Vec<OutputAccuracy> {
    wanted
        .iter()
        .filter_map(|(name, want)| {
            let (_, got) = got.iter().find(|(n, _)| n == name)?;
            if let (HostValue::Tensor(w), HostValue::Tensor(g)) = (want, got) {
                if let Some(difference) = crate::compare::difference(name, w, g) {
                    return Some(OutputAccuracy {
                        output: name.clone(),
                        max_abs: difference.max_abs,
                        max_rel: difference.max_rel,
                        not_finite: difference.not_finite,
                        agreement: crate::compare::classifier_agreement(w, g),
                        exact: None,
                    });
                }
            }
            let kind = match want {
                HostValue::Tensor(t) => format!("{} tensor", t.dtype.name()),
                other => other.kind().to_string(),
            };
            Some(OutputAccuracy {
                output: name.clone(),
                max_abs: 0.0,
                max_rel: 0.0,
                not_finite: 0,
                agreement: None,
                exact: Some(ExactMatch { kind, equal: want == got }),
            })
        })
        .collect()
}

/// An output compared exactly, as it is not a float tensor.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExactMatch {
    /// `int64 tensor`, `map`, `sequence of maps`.
    pub kind: String,
    pub equal: bool,
}

/// What `--precision` did and cost in accuracy, in the reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PrecisionReport {
    /// fp16's conversion.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub conversion: Option<Conversion>,
    /// int4's and int8's quantization.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub quantization: Option<Quantization>,
    /// Where the float32 model ran for the comparison.
    pub float32_on: DeviceReport,
    /// Each float output against the float32 model's.
    pub outputs: Vec<OutputAccuracy>,
    /// bench: the float32 model timed on the same plan, beside the float16 one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub float32_latency_ms: Option<LatencyStats>,
    /// bench: why the float32 model could not be timed there (DirectML rejecting it).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub float32_error: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutputAccuracy {
    pub output: String,
    pub max_abs: f64,
    pub max_rel: f64,
    /// Values NaN or infinite in one model's output only (float16's range overflowed), which
    /// `max_abs` leaves out.
    #[serde(default)]
    pub not_finite: usize,
    /// For a classifier's scores: rows ranked alike.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub agreement: Option<Agreement>,
    /// An output that is not a float tensor, compared exactly (`max_abs` then means nothing).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub exact: Option<ExactMatch>,
}

impl OutputAccuracy {
    /// `prob: max |diff| 3.1e-4, top-1 agrees 1/1, top-5 1/1`.
    pub fn describe(&self) -> String {
        if let Some(exact) = &self.exact {
            let verdict = if exact.equal { "equal" } else { "differs" };
            return format!("{} ({}, compared exactly): {verdict}", self.output, exact.kind);
        }
        let agreement = self
            .agreement
            .map(|a| format!(", top-1 agrees {}/{}, top-5 {}/{}", a.top1, a.rows, a.top5, a.rows))
            .unwrap_or_default();
        let overflow = crate::compare::not_finite_note(self.not_finite);
        format!("{}: max |diff| {:.2e}{overflow}{agreement}", self.output, self.max_abs)
    }
}

impl PrecisionReport {
    /// `float16`, `int4`, `int8`: what the reports call the converted model.
    pub fn label(&self) -> String {
        match &self.quantization {
            Some(q) => format!("int{}", q.bits),
            None => "float16".to_string(),
        }
    }

    /// What the original is called beside it: `float32` for float16's, `the original` else.
    pub fn original_label(&self) -> &'static str {
        if self.quantization.is_some() {
            "the original"
        } else {
            "float32"
        }
    }

    pub fn converted_anything(&self) -> bool {
        self.conversion.as_ref().is_some_and(Conversion::converted_anything)
            || self.quantization.as_ref().is_some_and(Quantization::converted_anything)
    }

    /// What the conversion did, in one line.
    pub fn describe_conversion(&self) -> String {
        match (&self.conversion, &self.quantization) {
            (_, Some(q)) => q.describe(),
            (Some(c), None) => c.describe(),
            (None, None) => String::new(),
        }
    }

    /// `prob: max |diff| 3.1e-4, top-1 1/1, top-5 1/1`, per output.
    pub fn describe_accuracy(&self) -> String {
        if let Some(why) = self.conversion.as_ref().and_then(|c| c.nothing_converted.as_ref()) {
            return format!("the model ran as it is: {why}");
        }
        if !self.converted_anything() {
            return "the model ran as it is: no MatMul to quantize".to_string();
        }
        let outputs: Vec<String> = self.outputs.iter().map(OutputAccuracy::describe).collect();
        let outputs = if outputs.is_empty() { "no outputs to compare".to_string() } else { outputs.join("; ") };
        let original = if self.quantization.is_some() { "the original" } else { "float32" };
        format!("against {original} on {}: {outputs}", self.float32_on.describe())
    }
}
