//! What bench writes beside its report, named after the model: ONNX Runtime's profile of its
//! runs (`--profile`) and the optimised model it caches (`--cache`), keyed on all that changes it.

use std::path::Path;

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use crate::fsutil::OrtWritten;
use crate::report::bench::{self, ProfileSummary};
use crate::runtime::engine;
use crate::runtime::plan::PlanRequest;

pub(super) fn finish_profile(model: &mut engine::LoadedModel, pending: &OrtWritten) -> Result<ProfileSummary> {
    let written = model.end_profiling()?;
    // ONNX Runtime names the file after the prefix plus a timestamp.
    let file = pending.keep(Path::new(&written)).context("--profile")?;
    let top_ops = crate::runtime::profile::read_op_times(&file)?.into_iter().take(10).collect();
    let graph_fusion = if model.plan.fusion_disabled() { bench::GraphFusion::Off } else { bench::GraphFusion::On };
    Ok(ProfileSummary { file, graph_fusion, top_ops })
}

/// The cache key: everything that changes the optimised model.
pub(super) fn cache_key(model_sha256: &[u8; 32], request: &PlanRequest, ort_version: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(model_sha256);
    let mut dims = request.dims.clone();
    dims.sort();
    let mut denotations = request.dim_denotations.clone();
    denotations.sort();
    hasher.update(
        format!(
            "ep={:?};device={:?};pref={:?};filter={:?};dims={dims:?};den={denotations:?};opt={:?};ort={ort_version};config={:?};ep_options={:?};metacommands={};precision={:?};keep={:?};quantization={:?};rewrites={:?}",
            request.ep,
            request.device,
            request.performance_preference,
            request.device_filter,
            request.optimization_level,
            request.session_config,
            request.ep_options,
            !request.dml_disable_metacommands,
            request.precision,
            request.keep_fp32,
            request.quantization,
            request.rewrites
        )
        .as_bytes(),
    );
    let digest = hasher.finalize();
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// A model's name as a file name: what is not a letter, digit, `-`, `_` or `.` as `_`.
pub(super) fn sanitize(name: &str) -> String {
    name.chars().map(|c| if c.is_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect()
}
