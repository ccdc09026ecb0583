//! `bench`'s regression gate inputs: the stored report `--baseline` names, the old model each
//! target is timed against with `--baseline-model`, and each timing's fingerprint (what it
//! depends on besides the model's speed).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::ModelPlan;
use crate::formats::model::ModelFile;
use crate::report::bench::{self, BenchReport, StoredReport};
use crate::runtime::engine::{self, Preflight};
use crate::runtime::plan::PlanRequest;
use crate::runtime::Runtime;
use crate::settings::BenchSettings;
use crate::suites::manifest::BenchTarget;

pub(super) fn settle_baseline(report: &mut BenchReport, baseline: Option<&StoredReport>, settings: &BenchSettings) {
    if let (Some(stored), Some(path)) = (baseline, &settings.baseline) {
        report.baseline = Some(bench::compare_with_baseline(report, stored, path.clone(), settings.max_regression));
    } else if !settings.baseline_models.is_empty() {
        report.baseline = Some(bench::compare_with_paired(report, settings.max_regression));
    }
}

/// Each target's `--baseline-model`: by order when there are as many as targets, else the one
/// of the same file name. A target without one, or one given to no target, is a usage error.
pub(super) fn pair_baseline_models(targets: &[BenchTarget], models: &[PathBuf]) -> Result<Vec<Option<PathBuf>>> {
    if models.is_empty() {
        return Ok(vec![None; targets.len()]);
    }
    if let Some(entry) = targets.iter().find(|t| t.generation.is_some()) {
        bail!(
            "--baseline-model: {} is a generate entry; old against new in one session times models, not generations",
            entry.name
        );
    }
    if models.len() == targets.len() {
        return Ok(models.iter().cloned().map(Some).collect());
    }
    let pairs: Vec<Option<PathBuf>> =
        targets.iter().map(|t| models.iter().find(|m| m.file_name() == t.path.file_name()).cloned()).collect();
    if let Some((target, _)) = targets.iter().zip(&pairs).find(|(_, p)| p.is_none()) {
        bail!(
            "--baseline-model: none for {} ({}, {}): give one per model in the same order, or files of the same names",
            target.path.display(),
            crate::report::count(targets.len(), "model", "models"),
            crate::report::count(models.len(), "baseline model", "baseline models")
        );
    }
    if let Some(unused) = models.iter().find(|m| !pairs.iter().flatten().any(|p| p == *m)) {
        bail!("--baseline-model {}: no model of that file name to judge against it", unused.display());
    }
    Ok(pairs)
}

pub(super) fn read_baseline(path: &Path) -> Result<StoredReport> {
    let bytes = std::fs::read(path).with_context(|| format!("--baseline {}", path.display()))?;
    let Ok(text) = String::from_utf8(bytes) else {
        // An .onnx here is one slip from --baseline-model.
        bail!(
            "--baseline {}: not a dmlrun bench JSON report (it is not text); to time an old model beside the new one, give it with --baseline-model",
            path.display()
        );
    };
    let stored: StoredReport = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("--baseline {}: not a dmlrun bench JSON report ({e})", path.display()))?;
    if stored.schema != bench::BENCH_SCHEMA {
        bail!("--baseline {}: schema '{}' is not {}", path.display(), stored.schema, bench::BENCH_SCHEMA);
    }
    Ok(stored)
}

/// The baseline model under the measured one's request, as it is: the rewrites, the float16
/// conversion, the profile and the cache are the measured model's alone.
pub(super) fn baseline_preflight(
    runtime: &Runtime,
    request: &PlanRequest,
    path: &Path,
    measured: &crate::formats::model::ModelInfo,
) -> Result<Preflight> {
    let file = ModelFile::read(path).with_context(|| format!("--baseline-model {}", path.display()))?;
    same_inputs(measured, &file.info).with_context(|| format!("--baseline-model {}", path.display()))?;
    let (mut request, not_applied) = request.fitted_to(&file.info);
    request.precision = crate::runtime::plan::Precision::Fp32;
    request.keep_fp32.clear();
    request.rewrites.clear();
    request.profile_prefix = None;
    request.optimized_model_path = None;
    Preflight::resolve(runtime, path, file, request, not_applied)
        .with_context(|| format!("--baseline-model {}", path.display()))
}

/// A baseline model is the measured one in another version: the same inputs by name and rank. A
/// model with other inputs is another model, and a verdict against its timing says nothing.
fn same_inputs(measured: &crate::formats::model::ModelInfo, baseline: &crate::formats::model::ModelInfo) -> Result<()> {
    let signature = |info: &crate::formats::model::ModelInfo| {
        info.inputs.iter().map(|i| (i.name.clone(), i.dims.len())).collect::<std::collections::BTreeSet<_>>()
    };
    let said = |info: &crate::formats::model::ModelInfo| {
        let inputs: Vec<String> = info
            .inputs
            .iter()
            .map(|i| format!("{} [{}]", i.name, i.dims.iter().map(|d| d.label()).collect::<Vec<_>>().join(", ")))
            .collect();
        inputs.join(", ")
    };
    if signature(measured) != signature(baseline) {
        bail!(
            "its inputs ({}) are not the measured model's ({}): another model, not a version of this one, so no verdict",
            said(baseline),
            said(measured)
        );
    }
    Ok(())
}

/// What a timing depends on besides the model's speed, for a later verdict to compare.
pub(super) fn fingerprint(
    runtime: &Runtime,
    plan: &ModelPlan,
    device: &engine::DeviceReport,
    session: &crate::runtime::plan::SessionPlan,
    settings: &BenchSettings,
) -> bench::Fingerprint {
    let sha: String = plan.preflight.model.sha256.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let budget = &settings.budget;
    let runs = match budget.time_box {
        Some(limit) => format!("{} ({} to {} runs)", humantime::format_duration(limit), budget.min, budget.max),
        None => budget.max.to_string(),
    };
    let mut made = vec![format!("optimization {:?}", session.optimization_level)];
    made.extend(session.intra_op_threads.map(|n| format!("intra threads {n}")));
    made.extend(session.inter_op_threads.map(|n| format!("inter threads {n}")));
    made.push(format!("precision {:?}", session.precision).to_lowercase());
    made.extend(session.rewrites.iter().map(|r| r.flag()));
    made.extend(session.io_on_device.then(|| "io on device".to_string()));
    made.extend(session.session_config.iter().map(|(k, v)| format!("{k}={v}")));
    made.extend(session.provider_options.iter().map(|(k, v)| format!("{k}={v}")));
    let machine = crate::sysinfo::machine();
    [
        ("model sha256", sha),
        ("execution provider", device.execution_provider.clone()),
        ("adapter", device.adapter_name.clone().unwrap_or_else(|| "-".to_string())),
        (
            "cpu",
            format!("{} ({} logical cores)", machine.cpu.unwrap_or_else(|| "unknown".into()), machine.logical_cores),
        ),
        ("onnxruntime", runtime.library.version.clone()),
        ("dmlrun", env!("CARGO_PKG_VERSION").to_string()),
        ("session", made.join(", ")),
        ("warm-up", settings.warmup.to_string()),
        ("runs", runs),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}
