//! The model a session runs, made from the user's: rewritten (`--decompose`, `--gemm-zero-bias`,
//! ...), then converted to float16 or its weights quantized (`--precision fp16|int4|int8`), each
//! step checked against what it was made from where there are inputs to check it on. One maker,
//! called by run, bench and fix (through `measure`), test's cases, reduce and the decoder; a new
//! precision or rewrite is made here and nowhere else.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use super::precision::{quantize_for, quantize_weights, to_float16, Converted, ConvertedModel, QuantizedModel};
use super::rewrite::{rewrite, RewriteReport, RewrittenModel};
use super::{PrecisionReport, Preflight, PreparedInputs};
use crate::graph::Conversion;
use crate::runtime::plan::{PlanRequest, Precision, SessionPlan};
use crate::runtime::Runtime;
use crate::tensor::HostValue;

/// What each step of the making is checked on.
pub enum Check<'a> {
    /// The reference EP's request and the inputs about to be bound: each step is run against what
    /// it was made from (and float16's conversion is typed by the float32 run).
    On(&'a PlanRequest, &'a PreparedInputs),
    /// No inputs to run it on (a decoder: its tokens are compared by generating), and why.
    Not(&'static str),
}

/// The model a session runs, and the files it is made of, kept while this value lives.
pub struct MadeModel {
    original: PathBuf,
    rewritten: Option<RewrittenModel>,
    /// Converted to float16 or quantized, checked against the original's outputs.
    converted: Option<ConvertedModel>,
    /// Quantized where there was nothing to check it on.
    quantized: Option<QuantizedModel>,
    /// Why the rewrite was not compared, where it was not.
    not_compared: Option<&'static str>,
}

impl MadeModel {
    /// The file the session opens: the last one made, else the user's.
    pub fn path(&self) -> &Path {
        match (&self.converted, &self.quantized) {
            (Some(c), _) => &c.path,
            (None, Some(q)) => &q.path,
            (None, None) => self.source(),
        }
    }

    /// What the precision step started from: the rewritten model, else the user's (float32's
    /// timing beside float16 runs it).
    pub fn source(&self) -> &Path {
        self.rewritten.as_ref().map_or(self.original.as_path(), |r| r.path.as_path())
    }

    /// Whether the session runs anything but the user's own file.
    pub fn is_made(&self) -> bool {
        self.path() != self.original
    }

    pub fn rewrite(&self) -> Option<RewriteReport> {
        let rewritten = self.rewritten.as_ref()?;
        Some(match self.not_compared {
            Some(why) => RewriteReport { not_compared: Some(why.into()), ..rewritten.report.clone() },
            None => rewritten.report.clone(),
        })
    }

    /// How far `outputs` (the session's) are from the original's, where a precision step ran
    /// checked.
    pub fn precision_report(&self, outputs: &[(String, HostValue)]) -> Option<PrecisionReport> {
        self.converted.as_ref().map(|c| c.report(outputs))
    }

    /// What the precision step did, in one line (`int4, block 32, ...: 3 of 5 MatMuls ...`).
    pub fn describe_conversion(&self) -> Option<String> {
        match (&self.converted, &self.quantized) {
            (Some(c), _) => Some(match &c.conversion {
                Converted::Float16(conversion) => conversion.describe(),
                Converted::Weights(quantization) => quantization.describe(),
            }),
            (None, Some(q)) => Some(q.quantization.describe()),
            (None, None) => None,
        }
    }

    /// The quantized model made without a check, with its files: what `generate --save-model`
    /// writes.
    pub fn quantized(&self) -> Option<&QuantizedModel> {
        self.quantized.as_ref()
    }

    /// The bytes of the model the session runs, its external data read in, where dmlrun made it.
    pub fn bytes(&self) -> Result<Option<Vec<u8>>> {
        if !self.is_made() {
            return Ok(None);
        }
        let path = self.path();
        let bytes = std::fs::read(path).map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
        match crate::formats::model::ModelInfo::from_bytes(&bytes)?.external_data.is_empty() {
            true => Ok(Some(bytes)),
            false => Ok(Some(crate::graph::Graph::read(path)?.with_outputs(&[])?)),
        }
    }
}

/// The model a session with `plan` runs, made from `preflight`'s: rewritten, then converted or
/// quantized, each step checked as `check` says. `warn` hears what a reader of any report must
/// know (float16 values clamped). Nothing is made where the plan asks nothing.
pub fn made_for_session(
    runtime: &Runtime,
    preflight: &Preflight,
    plan: &SessionPlan,
    check: Check<'_>,
    warn: &mut dyn FnMut(String),
) -> Result<MadeModel> {
    let original = preflight.model_path.clone();
    let (checked_on, not_compared) = match check {
        Check::On(reference, prepared) => (Some((reference, prepared)), None),
        Check::Not(why) => (None, Some(why)),
    };
    let mut made = MadeModel { original, rewritten: None, converted: None, quantized: None, not_compared };
    if !plan.rewrites.is_empty() {
        made.rewritten = Some(rewrite(runtime, &made.original, preflight.info(), &plan.rewrites, checked_on)?);
    }
    let source = made.source().to_path_buf();
    match (plan.precision, checked_on) {
        (Precision::Fp32, _) => {}
        (Precision::Fp16, Some((reference, prepared))) => {
            crate::stage::step("the float16 conversion");
            let converted = to_float16(runtime, &source, preflight, reference, prepared)?;
            if let Converted::Float16(conversion) = &converted.conversion {
                warn_conversion(conversion, warn);
            }
            made.converted = Some(converted);
        }
        (Precision::Fp16, None) => {
            bail!("--precision fp16 types its conversion by a float32 run, and there are no inputs to run it on here")
        }
        (Precision::Int4 | Precision::Int8, Some(checked_on)) => {
            crate::stage::step("the weight quantization");
            made.converted = Some(quantize_weights(runtime, &source, preflight, plan, checked_on)?);
        }
        (Precision::Int4 | Precision::Int8, None) => {
            crate::stage::step("the weight quantization");
            made.quantized = Some(quantize_for(&source, plan)?);
        }
    }
    Ok(made)
}

/// What the float16 conversion did that a reader of any report must know: values float16
/// cannot hold.
fn warn_conversion(conversion: &Conversion, warn: &mut dyn FnMut(String)) {
    if conversion.values_clamped > 0 {
        warn(format!(
            "--precision fp16: {} weights beyond float16's range (65504) were clamped to it",
            conversion.values_clamped
        ));
    }
}

/// What dmlrun did to the model a session runs: `rewritten by --decompose LayerNormalization,
/// then converted to float16 by --precision fp16`.
pub fn made_label(plan: &SessionPlan) -> String {
    let mut steps = Vec::new();
    if !plan.rewrites.is_empty() {
        let flags: Vec<String> = plan.rewrites.iter().map(|r| r.flag()).collect();
        steps.push(format!("rewritten by {}", flags.join(" ")));
    }
    match plan.precision {
        Precision::Fp32 => {}
        Precision::Fp16 => steps.push("converted to float16 by --precision fp16".to_string()),
        Precision::Int4 | Precision::Int8 => {
            steps.push(format!("its weights quantized to {0} by --precision {0}", plan.precision))
        }
    }
    steps.join(", then ")
}
