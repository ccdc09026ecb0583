//! One request for many models: the part every model shares, checked once, and the request
//! fitted to each model (a `--dim`, `--dim-denotation`, `--shape` or rewrite that names what a
//! model lacks is left out for it and said), with the run's error where no model has it.

use anyhow::{bail, Result};

use super::dims::{list_or_none, shape_flag};
use super::PlanRequest;
use crate::formats::model::ModelInfo;
use crate::graph::Rewrite;

impl PlanRequest {
    /// The request without the flags that name a model's own dimensions and inputs (`--dim`,
    /// `--dim-denotation`, `--shape`): what every model of a run shares, checked once before
    /// any model is read.
    pub fn shared_part(&self) -> PlanRequest {
        PlanRequest {
            dims: Vec::new(),
            dim_denotations: Vec::new(),
            shapes: Vec::new(),
            rewrites: Vec::new(),
            ..self.clone()
        }
    }

    /// This request for one model of several: a `--dim`, `--dim-denotation` or `--shape` that
    /// names a dimension, denotation or input the model does not have is left out for it, and
    /// said in the notes returned. What names something the model has stays, for [`resolve`]
    /// to check against it (a shape of the wrong rank is that model's error).
    ///
    /// [`resolve`]: super::resolve
    pub fn fitted_to(&self, model: &ModelInfo) -> (PlanRequest, Vec<String>) {
        let mut notes = Vec::new();
        let (symbolic, denotations) = (model.symbolic_dims(), model.dim_denotations());
        let mut fitted = self.clone();
        fitted.dims.retain(|(name, value)| {
            let fits = symbolic.contains(name);
            if !fits {
                notes.push(format!("--dim {name}={value} not applied: this model has no free dimension '{name}'"));
            }
            fits
        });
        fitted.dim_denotations.retain(|(denotation, value)| {
            let fits = denotations.contains(denotation);
            if !fits {
                notes.push(format!(
                    "--dim-denotation {denotation}={value} not applied: no dimension of this model has that denotation"
                ));
            }
            fits
        });
        fitted.shapes.retain(|(name, shape)| {
            let fits = model.input(name).is_some();
            if !fits {
                notes.push(format!("{} not applied: this model has no input '{name}'", shape_flag(name, shape)));
            }
            fits
        });
        if self.precision.weight_bits().is_some() && !quantizable(model) {
            notes.push(format!(
                "--precision {} not applied: {}",
                self.precision,
                nothing_to_quantize(model, "this model")
            ));
            fitted.precision = super::Precision::Fp32;
            fitted.keep_fp32.clear();
            fitted.quantization = Default::default();
        }
        fitted.rewrites.retain(|rewrite| {
            let fits = rewritable(model, *rewrite);
            if !fits {
                notes.push(format!("{} not applied: {}", rewrite.flag(), nothing_to_rewrite(*rewrite, "this model")));
            }
            fits
        });
        (fitted, notes)
    }
}

/// The run's usage error when a `--dim`, `--dim-denotation` or `--shape` names what none of
/// `models` has: a typo, since [`PlanRequest::fitted_to`] leaves out for each model only what
/// that model lacks.
pub fn check_flags_fit_some(request: &PlanRequest, models: &[&ModelInfo]) -> Result<()> {
    if models.is_empty() {
        return Ok(());
    }
    if let Some(rewrite) = request.rewrites.iter().find(|r| !models.iter().any(|m| rewritable(m, **r))) {
        let which = match models.len() {
            1 => "the model".to_string(),
            n => format!("none of the {n} models"),
        };
        bail!("{}: {}", rewrite.flag(), nothing_to_rewrite(*rewrite, &which));
    }
    if request.precision.weight_bits().is_some() && !models.iter().any(|m| quantizable(m)) {
        let which = match models {
            [model] => nothing_to_quantize(model, "the model"),
            _ => format!("none of the {} models has a MatMul to quantize", models.len()),
        };
        bail!("--precision {}: {which}", request.precision);
    }
    let union = |of: fn(&ModelInfo) -> Vec<String>| {
        let mut all: Vec<String> = Vec::new();
        for name in models.iter().flat_map(|m| of(m)) {
            if !all.contains(&name) {
                all.push(name);
            }
        }
        all
    };
    // "the model has no ... (its ...)" for one, "none of the 3 models has ... (their ...)" for more.
    let (none_has, no_dim_of, their) = match models.len() {
        1 => ("the model has no".to_string(), "no dimension of the model".to_string(), "its"),
        n => (format!("none of the {n} models has a"), format!("no dimension of the {n} models"), "their"),
    };
    let symbolic = union(ModelInfo::symbolic_dims);
    if let Some((name, value)) = request.dims.iter().find(|(name, _)| !symbolic.contains(name)) {
        bail!(
            "--dim {name}={value}: {none_has} free dimension named '{name}' ({their} symbolic dimensions: {})",
            list_or_none(&symbolic)
        );
    }
    let denotations = union(ModelInfo::dim_denotations);
    if let Some((denotation, value)) = request.dim_denotations.iter().find(|(d, _)| !denotations.contains(d)) {
        bail!(
            "--dim-denotation {denotation}={value}: {no_dim_of} has the denotation '{denotation}' ({their} denotations: {})",
            list_or_none(&denotations)
        );
    }
    let inputs = union(|m| m.inputs.iter().map(|i| i.name.clone()).collect());
    if let Some((name, shape)) = request.shapes.iter().find(|(name, _)| !inputs.contains(name)) {
        bail!("{}: {none_has} input '{name}' ({their} inputs: {})", shape_flag(name, shape), list_or_none(&inputs));
    }
    Ok(())
}

/// [`check_flags_fit_some`] for a run that may be one shard of several: a shard's models are
/// not the run's, and a flag that fits none of them may fit another shard's (a rewrite only a
/// few models of a zoo need), so there it is a warning, returned to be said, not the run's error.
/// A run of one shard (or none) is refused as before.
pub fn check_flags_fit_shard(
    request: &PlanRequest,
    models: &[&ModelInfo],
    shard: Option<&crate::suites::shard::ShardInfo>,
) -> Result<Option<String>> {
    match (check_flags_fit_some(request, models), shard) {
        (Ok(()), _) => Ok(None),
        (Err(e), Some(info)) if info.shard.total > 1 => {
            Ok(Some(format!("shard {}: {e} (another shard's models may have it)", info.shard)))
        }
        (Err(e), _) => Err(e),
    }
}

/// Whether `rewrite` finds something to rewrite in the model's graph or its subgraphs.
pub fn rewritable(model: &ModelInfo, rewrite: Rewrite) -> bool {
    model.nodes.iter().any(|node| rewrite.fits(node, &model.nodes))
        || model.subgraph_nodes.iter().any(|node| rewrite.fits(node, &model.subgraph_nodes))
}

/// Whether `--precision int4|int8` finds a `MatMul` in the model's main graph to quantize.
pub fn quantizable(model: &ModelInfo) -> bool {
    model.nodes.iter().any(|node| node.op_type == "MatMul" && matches!(node.domain.as_str(), "" | "ai.onnx"))
}

/// `the model has no MatMul to quantize (it holds 30 MatMulNBits already: run it as it is)`.
pub fn nothing_to_quantize(model: &ModelInfo, which: &str) -> String {
    let already = model.op_types.get("MatMulNBits").copied().unwrap_or(0);
    match already {
        0 => format!("{which} has no MatMul to quantize"),
        n => format!("{which} has no MatMul to quantize (it holds {n} MatMulNBits already: run it as it is)"),
    }
}

/// `the model has no LayerNormalization node`, `none of the 3 models has a Gemm without a bias`.
pub fn nothing_to_rewrite(rewrite: Rewrite, which: &str) -> String {
    let has = if which.starts_with("none") { "has a" } else { "has no" };
    format!("{which} {has} {}", rewrite.what_it_fits())
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{resolve, CPU_PROVIDER};
    use super::*;

    #[test]
    fn a_request_fitted_to_a_model_leaves_out_what_the_model_lacks_and_says_so() {
        let request = PlanRequest {
            dims: vec![("batch".into(), 2), ("sequence".into(), 8)],
            dim_denotations: vec![("DATA_BATCH".into(), 2), ("DATA_CHANNEL".into(), 3)],
            shapes: vec![("input".into(), vec![2, 3]), ("mask".into(), vec![2])],
            ..PlanRequest::default()
        };
        let (fitted, notes) = request.fitted_to(&model_with_batch());
        assert_eq!(fitted.dims, vec![("batch".to_string(), 2)]);
        assert_eq!(fitted.dim_denotations, vec![("DATA_BATCH".to_string(), 2)]);
        assert_eq!(fitted.shapes, vec![("input".to_string(), vec![2, 3])]);
        assert_eq!(
            notes,
            vec![
                "--dim sequence=8 not applied: this model has no free dimension 'sequence'",
                "--dim-denotation DATA_CHANNEL=3 not applied: no dimension of this model has that denotation",
                "--shape mask=2 not applied: this model has no input 'mask'",
            ]
        );
        assert!(resolve(&fitted, &providers(&[CPU_PROVIDER]), &model_with_batch()).is_ok());
    }

    #[test]
    fn a_flag_no_model_has_is_the_runs_error_and_one_some_model_has_is_not() {
        let (with, without) = (model_with_batch(), ModelInfo::default());
        let batch = PlanRequest { dims: vec![("batch".into(), 2)], ..PlanRequest::default() };
        assert!(check_flags_fit_some(&batch, &[&without, &with]).is_ok());
        let err = check_flags_fit_some(&batch, &[&without, &without]).unwrap_err().to_string();
        assert_eq!(
            err,
            "--dim batch=2: none of the 2 models has a free dimension named 'batch' (their symbolic dimensions: none)"
        );
        let shape = PlanRequest { shapes: vec![("x".into(), vec![1])], ..PlanRequest::default() };
        let err = check_flags_fit_some(&shape, &[&with]).unwrap_err().to_string();
        assert_eq!(err, "--shape x=1: the model has no input 'x' (its inputs: input)");
        let den = PlanRequest { dim_denotations: vec![("DATA_BATCH".into(), 2)], ..PlanRequest::default() };
        assert!(check_flags_fit_some(&den, &[&with]).is_ok());
        assert!(check_flags_fit_some(&den, &[&without]).is_err());
    }

    #[test]
    fn in_one_shard_of_several_a_flag_no_model_of_the_shard_has_is_a_warning_not_the_runs_error() {
        use crate::suites::shard::{Shard, ShardInfo, ShardMode};
        let shard =
            |index, total| ShardInfo { shard: Shard { index, total, mode: ShardMode::Count }, of_items: 4, from: None };
        let batch = PlanRequest { dims: vec![("batch".into(), 2)], ..PlanRequest::default() };
        let without = ModelInfo::default();
        let warning = check_flags_fit_shard(&batch, &[&without], Some(&shard(2, 4))).unwrap();
        assert_eq!(
            warning.as_deref(),
            Some("shard 2/4: --dim batch=2: the model has no free dimension named 'batch' (its symbolic dimensions: none) (another shard's models may have it)")
        );
        // A shard of one, or no shard: the whole run's models, so the run's error as before.
        assert!(check_flags_fit_shard(&batch, &[&without], Some(&shard(1, 1))).is_err());
        assert!(check_flags_fit_shard(&batch, &[&without], None).is_err());
        assert_eq!(check_flags_fit_shard(&batch, &[&model_with_batch()], Some(&shard(2, 4))).unwrap(), None);
    }
}
