//! `bench --sweep`: each target once per point of the sweep where its model has what is swept.

use anyhow::{bail, Result};

use super::ModelRead;
use crate::suites::manifest::{BenchTarget, Sweep};

/// Each target once per point of `sweep` where its model has what is swept (a generate entry,
/// or a model without it, once, with a note saying so), each with its model as read.
pub(super) fn swept(
    targets: Vec<BenchTarget>,
    read: Vec<Result<ModelRead>>,
    sweep: Option<&Sweep>,
) -> Vec<(BenchTarget, Result<ModelRead>, Option<String>)> {
    let Some(sweep) = sweep else { return targets.into_iter().zip(read).map(|(t, r)| (t, r, None)).collect() };
    let mut points = Vec::new();
    for (target, read) in targets.into_iter().zip(read) {
        match read {
            Ok(ModelRead::Model(file)) if sweep_applies(sweep, &file.info) => {
                for point in target.swept(sweep) {
                    points.push((point, Ok(ModelRead::Model(file.clone())), None));
                }
            }
            Ok(read) => {
                let note = format!(
                    "{} {}: this model has no such free dimension or input; measured once",
                    sweep.flag(),
                    sweep.over()
                );
                points.push((target, Ok(read), Some(note)));
            }
            Err(e) => points.push((target, Err(e), None)),
        }
    }
    points
}

pub(super) fn sweep_applies(sweep: &Sweep, info: &crate::formats::model::ModelInfo) -> bool {
    match sweep {
        Sweep::Dim { name, .. } => info.symbolic_dims().contains(name),
        Sweep::Shape { input, .. } => info.input(input).is_some(),
    }
}

/// A sweep over what no model has is a typo: the run's usage error.
pub(super) fn check_sweep_fits_some(sweep: &Sweep, models: &[&crate::formats::model::ModelInfo]) -> Result<()> {
    if !models.is_empty() && !models.iter().any(|m| sweep_applies(sweep, m)) {
        let what = match sweep {
            Sweep::Dim { .. } => "a free dimension",
            Sweep::Shape { .. } => "an input",
        };
        bail!(
            "{} {}: none of the {} model(s) has {what} named '{}'",
            sweep.flag(),
            sweep.over(),
            models.len(),
            sweep.over()
        );
    }
    Ok(())
}
