//! Free dimensions: the overrides from `--dim`, `--dim-denotation` and `--shape`, those DirectML
//! needs fixed from the inputs about to be bound, the ones left free, and what to say of them.

use std::collections::BTreeMap;

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

use super::{PlanRequest, SessionPlan};
use crate::formats::model::ModelInfo;

/// A free-dimension override, applied at session creation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DimOverride {
    /// `name` (AddFreeDimensionOverrideByName) or `denotation` (AddFreeDimensionOverride).
    pub by: DimKey,
    pub key: String,
    pub value: i64,
    /// Who chose the size: the user (`--dim`, `--dim-denotation`, a manifest's `dims`) or dmlrun,
    /// from the inputs it was about to bind.
    pub source: DimSource,
}

/// Where a dimension override came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DimSource {
    /// `--dim`, `--dim-denotation` or a bench manifest's `dims`.
    Requested,
    /// `--shape` (or a manifest's `shapes`) of `input`, at `axis`.
    Shape { input: String, axis: usize },
    /// Fixed by dmlrun because DirectML runs the model: the size of `axis` of the tensor bound
    /// to `input`, which came `from` images, a file or generated data.
    Automatic { input: String, axis: usize, from: String },
}

impl DimSource {
    /// Where a size for the dimension `name` came from, as a note says it: `by --dim N`,
    /// `by --shape x (axis 0)`, `in input 'x' (axis 0)`.
    fn phrase(&self, name: &str) -> String {
        match self {
            DimSource::Requested => format!("by --dim {name}"),
            DimSource::Shape { input, axis } => format!("by --shape {input} (axis {axis})"),
            DimSource::Automatic { input, axis, .. } => format!("in input '{input}' (axis {axis})"),
        }
    }
}

/// The shape of one input as it is about to be bound, and what it came from (`2 images`,
/// `a.npy`, `generated`), for the plan's account of automatic overrides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundShape {
    pub input: String,
    pub shape: Vec<usize>,
    pub from: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DimKey {
    Name,
    Denotation,
}

impl DimSource {
    /// `automatic, from input 'data' axis 0 (2 images)`.
    pub fn describe(&self) -> String {
        match self {
            DimSource::Requested => "requested".to_string(),
            DimSource::Shape { input, axis } => format!("from --shape {input} axis {axis}"),
            DimSource::Automatic { input, axis, from } => {
                format!("automatic, from input '{input}' axis {axis} ({from})")
            }
        }
    }
}

impl SessionPlan {
    /// The warning DirectML users need when a free dimension stays free.
    pub fn dynamic_shape_warning(&self) -> Option<String> {
        if !self.uses_directml() || (self.unfixed_dims.is_empty() && self.unnamed_dims.is_empty()) {
            return None;
        }
        let mut parts = Vec::new();
        if !self.unfixed_dims.is_empty() {
            parts.push(self.unfixed_dims_advice("; "));
        }
        if !self.unnamed_dims.is_empty() {
            parts.push(format!(
                "{} unnamed, and ONNX Runtime can fix only named dimensions (export the model with names or static sizes)",
                self.unnamed_dims.join(", ")
            ));
        }
        Some(format!("DirectML is slow with dynamic shapes: {}", parts.join("; ")))
    }

    /// `free dimension(s) N are not fixed (--no-auto-dims){sep}add --dim N=<size>`: what is left
    /// free, and the flags that fix it.
    pub(super) fn unfixed_dims_advice(&self, sep: &str) -> String {
        let flags: Vec<String> = self.unfixed_dims.iter().map(|d| format!("--dim {d}=<size>")).collect();
        format!(
            "free dimension(s) {} are not fixed{}{sep}add {}",
            self.unfixed_dims.join(", "),
            if self.auto_dims { "" } else { " (--no-auto-dims)" },
            flags.join(" ")
        )
    }

    /// Graph capture records one run's GPU work for fixed buffers and shapes: a free dimension
    /// left free cannot be captured. Checked once the inputs have fixed what they fix.
    pub fn check_graph_capture(&self) -> Result<()> {
        if !self.graph_capture() {
            return Ok(());
        }
        if !self.unfixed_dims.is_empty() {
            bail!("DirectML graph capture needs static shapes, but {}", self.unfixed_dims_advice(": "));
        }
        if !self.unnamed_dims.is_empty() {
            bail!(
                "DirectML graph capture needs static shapes, but {} {} unnamed and free, which no --dim can fix \
                 (ONNX Runtime fixes only named dimensions): export the model with names or static sizes",
                self.unnamed_dims.join(", "),
                if self.unnamed_dims.len() == 1 { "is" } else { "are" }
            );
        }
        Ok(())
    }
}

/// The model's named free dimensions that `overrides` leave free.
pub(super) fn unfixed_dims(model: &ModelInfo, overrides: &[DimOverride]) -> Vec<String> {
    model.symbolic_dims().into_iter().filter(|name| fixed_size(model, overrides, name).is_none()).collect()
}

/// The size `overrides` give the free dimension `name`: by name, or through the denotation of
/// a dimension that has that name.
fn fixed_size(model: &ModelInfo, overrides: &[DimOverride], name: &str) -> Option<i64> {
    let by_name = overrides.iter().find(|o| o.by == DimKey::Name && o.key == name);
    by_name
        .or_else(|| {
            model.inputs.iter().flat_map(|i| &i.dims).filter(|d| d.param.as_deref() == Some(name)).find_map(|d| {
                let den = d.denotation.as_ref()?;
                overrides.iter().find(|o| o.by == DimKey::Denotation && &o.key == den)
            })
        })
        .map(|o| o.value)
}

/// Fixes the named free dimensions the plan leaves free from the shapes of the inputs about to
/// be bound, when the plan asks for it (DirectML, and not `--no-auto-dims`).
///
/// DirectML compiles a graph with free dimensions for dynamic shapes, which is several times
/// slower per run and costs seconds in the first; the inputs already say the sizes. A name two
/// inputs give different sizes is an error naming both: one session cannot serve both shapes.
pub fn fix_dims_from_inputs(plan: &mut SessionPlan, model: &ModelInfo, bound: &[BoundShape]) -> Result<()> {
    if !plan.auto_dims {
        return Ok(());
    }
    let mut automatic: Vec<DimOverride> = Vec::new();
    let mut conflicting: Vec<String> = Vec::new();
    for input in &model.inputs {
        let Some(shape) = bound.iter().find(|b| b.input == input.name) else { continue };
        if shape.shape.len() != input.dims.len() {
            continue; // the input check reports the rank
        }
        for (axis, (dim, &size)) in input.dims.iter().zip(&shape.shape).enumerate() {
            let (None, Some(name)) = (dim.value, &dim.param) else { continue };
            if fixed_size(model, &plan.dimension_overrides, name).is_some() {
                continue;
            }
            // ONNX Runtime runs inputs that disagree on a name (the name is only a hint); a
            // session can be fixed to one size, so such a name stays free.
            propose_size(
                &mut automatic,
                &mut conflicting,
                &mut plan.notes,
                DimOverride {
                    by: DimKey::Name,
                    key: name.clone(),
                    value: i64::try_from(size)?,
                    source: DimSource::Automatic { input: input.name.clone(), axis, from: shape.from.clone() },
                },
            );
        }
    }
    plan.dimension_overrides.extend(automatic);
    plan.unfixed_dims = unfixed_dims(model, &plan.dimension_overrides);
    Ok(())
}

pub(super) fn resolve_dims(request: &PlanRequest, model: &ModelInfo) -> Result<Vec<DimOverride>> {
    let mut overrides = Vec::new();
    let symbolic = model.symbolic_dims();
    for (name, value) in &request.dims {
        if !symbolic.contains(name) {
            bail!(
                "--dim {name}={value}: the model has no input dimension named '{name}' (its symbolic dimensions: {})",
                list_or_none(&symbolic)
            );
        }
        overrides.push(DimOverride {
            by: DimKey::Name,
            key: name.clone(),
            value: *value,
            source: DimSource::Requested,
        });
    }
    let denotations = model.dim_denotations();
    for (denotation, value) in &request.dim_denotations {
        if !denotations.contains(denotation) {
            bail!(
                "--dim-denotation {denotation}={value}: no model input dimension has the denotation '{denotation}' (denotations in this model: {})",
                list_or_none(&denotations)
            );
        }
        overrides.push(DimOverride {
            by: DimKey::Denotation,
            key: denotation.clone(),
            value: *value,
            source: DimSource::Requested,
        });
    }
    Ok(overrides)
}

/// Checks `--shape` against the model and turns the named free dimensions it sizes into
/// overrides. A name sized twice differently (by two shapes, or by a shape and `--dim`) is
/// not fixed, and said in `notes`; ONNX Runtime itself accepts such inputs.
pub(super) fn resolve_shapes(
    request: &PlanRequest,
    model: &ModelInfo,
    overrides: &mut Vec<DimOverride>,
    notes: &mut Vec<String>,
) -> Result<BTreeMap<String, Vec<usize>>> {
    let mut shapes = BTreeMap::new();
    let mut conflicting: Vec<String> = Vec::new();
    for (name, shape) in &request.shapes {
        let flag = shape_flag(name, shape);
        let Some(input) = model.input(name) else {
            let names: Vec<String> = model.inputs.iter().map(|i| i.name.clone()).collect();
            bail!("{flag}: the model has no input '{name}' (its inputs: {})", list_or_none(&names));
        };
        if shapes.contains_key(name) {
            bail!("{flag}: input '{name}' is given a shape twice");
        }
        if input.dims.len() != shape.len() {
            bail!(
                "{flag}: input '{name}' has rank {} ([{}]), not {}",
                input.dims.len(),
                input.dims.iter().map(|d| d.label()).collect::<Vec<_>>().join(", "),
                shape.len()
            );
        }
        for (axis, (dim, &size)) in input.dims.iter().zip(shape).enumerate() {
            if let Some(fixed) = dim.value {
                if fixed != size as i64 {
                    bail!("{flag}: axis {axis} of input '{name}' is fixed to {fixed} in the model");
                }
            }
            let (None, Some(param)) = (dim.value, &dim.param) else { continue };
            propose_size(
                overrides,
                &mut conflicting,
                notes,
                DimOverride {
                    by: DimKey::Name,
                    key: param.clone(),
                    value: i64::try_from(size)?,
                    source: DimSource::Shape { input: name.clone(), axis },
                },
            );
        }
        shapes.insert(name.clone(), shape.clone());
    }
    Ok(shapes)
}

/// Adds `proposed` to `overrides`, unless an override there already gives its name another size:
/// then the name stays free (that override goes, and later proposals for it are ignored) and
/// `notes` says which two disagreed.
fn propose_size(
    overrides: &mut Vec<DimOverride>,
    conflicting: &mut Vec<String>,
    notes: &mut Vec<String>,
    proposed: DimOverride,
) {
    if conflicting.contains(&proposed.key) {
        return;
    }
    match overrides.iter().position(|o| o.by == DimKey::Name && o.key == proposed.key) {
        Some(i) if overrides[i].value != proposed.value => {
            let earlier = overrides.remove(i);
            notes.push(format!(
                "free dimension '{}' is {} {} but {} {}: left free, as one override cannot give it both sizes",
                proposed.key,
                earlier.value,
                earlier.source.phrase(&earlier.key),
                proposed.value,
                proposed.source.phrase(&proposed.key)
            ));
            conflicting.push(proposed.key);
        }
        Some(_) => {}
        None => overrides.push(proposed),
    }
}

/// `--shape x=1,3,224,224`, as the user typed it.
pub(super) fn shape_flag(name: &str, shape: &[usize]) -> String {
    format!("--shape {name}={}", shape.iter().map(usize::to_string).collect::<Vec<_>>().join(","))
}

pub(super) fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{resolve, EpRequest, PlanRequest, CPU_PROVIDER, DML_PROVIDER};
    use super::*;
    use crate::formats::model::{DimInfo, IoInfo};

    #[test]
    fn unknown_dim_name_lists_symbolic_dims() {
        let request = PlanRequest { dims: vec![("seq".into(), 4)], ..PlanRequest::default() };
        let err = resolve(&request, &providers(&[CPU_PROVIDER]), &model_with_batch()).unwrap_err().to_string();
        assert!(err.contains("'seq'") && err.contains("batch"), "{err}");
    }

    #[test]
    fn dims_fixed_by_name_or_denotation_are_not_unfixed() {
        let available = providers(&[CPU_PROVIDER]);
        let plan = resolve(&PlanRequest::default(), &available, &model_with_batch()).unwrap();
        assert_eq!(plan.unfixed_dims, vec!["batch".to_string()]);
        let by_name = PlanRequest { dims: vec![("batch".into(), 1)], ..PlanRequest::default() };
        assert!(resolve(&by_name, &available, &model_with_batch()).unwrap().unfixed_dims.is_empty());
        let by_denotation = PlanRequest { dim_denotations: vec![("DATA_BATCH".into(), 1)], ..PlanRequest::default() };
        assert!(resolve(&by_denotation, &available, &model_with_batch()).unwrap().unfixed_dims.is_empty());
    }

    #[test]
    fn warns_about_unfixed_dims_only_with_directml() {
        let available = providers(&[DML_PROVIDER, CPU_PROVIDER]);
        let model = model_with_batch();
        let dml = resolve(&PlanRequest { ep: EpRequest::Dml, ..PlanRequest::default() }, &available, &model).unwrap();
        let warning = dml.dynamic_shape_warning().unwrap();
        assert!(warning.contains("DirectML is slow with dynamic shapes") && warning.contains("--dim batch=<size>"));
        let cpu = resolve(&PlanRequest { ep: EpRequest::Cpu, ..PlanRequest::default() }, &available, &model).unwrap();
        assert_eq!(cpu.dynamic_shape_warning(), None);
        let fixed = PlanRequest { ep: EpRequest::Dml, dims: vec![("batch".into(), 1)], ..PlanRequest::default() };
        assert_eq!(resolve(&fixed, &available, &model).unwrap().dynamic_shape_warning(), None);
    }

    #[test]
    fn directml_fixes_free_dims_from_the_bound_inputs() {
        let model = two_inputs_sharing_batch();
        let available = providers(&[DML_PROVIDER, CPU_PROVIDER]);
        let mut plan =
            resolve(&PlanRequest { ep: EpRequest::Dml, ..PlanRequest::default() }, &available, &model).unwrap();
        assert_eq!(plan.unfixed_dims, ["N", "H", "W"]);
        fix_dims_from_inputs(
            &mut plan,
            &model,
            &[bound("image", &[2, 3, 224, 224], "2 images"), bound("scale", &[2], "generated")],
        )
        .unwrap();
        let fixed: Vec<(&str, i64)> = plan.dimension_overrides.iter().map(|o| (o.key.as_str(), o.value)).collect();
        assert_eq!(fixed, [("N", 2), ("H", 224), ("W", 224)]);
        assert!(plan.unfixed_dims.is_empty());
        assert_eq!(plan.dynamic_shape_warning(), None);
        assert_eq!(
            plan.dimension_overrides[0].source,
            DimSource::Automatic { input: "image".into(), axis: 0, from: "2 images".into() }
        );
        assert!(plan.to_string().contains("N=2 (automatic, from input 'image' axis 0 (2 images))"), "{plan}");
    }

    #[test]
    fn an_explicit_dim_wins_and_the_cpu_is_left_alone() {
        let model = two_inputs_sharing_batch();
        let available = providers(&[DML_PROVIDER, CPU_PROVIDER]);
        let shapes = [bound("image", &[1, 3, 64, 64], "1 image")];
        let request = PlanRequest { ep: EpRequest::Dml, dims: vec![("N".into(), 1)], ..PlanRequest::default() };
        let mut plan = resolve(&request, &available, &model).unwrap();
        fix_dims_from_inputs(&mut plan, &model, &shapes).unwrap();
        let n: Vec<&DimOverride> = plan.dimension_overrides.iter().filter(|o| o.key == "N").collect();
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].source, DimSource::Requested);

        let mut cpu =
            resolve(&PlanRequest { ep: EpRequest::Cpu, ..PlanRequest::default() }, &available, &model).unwrap();
        fix_dims_from_inputs(&mut cpu, &model, &shapes).unwrap();
        assert!(cpu.dimension_overrides.is_empty(), "{:?}", cpu.dimension_overrides);

        let off = PlanRequest { ep: EpRequest::Dml, auto_dims: false, ..PlanRequest::default() };
        let mut off = resolve(&off, &available, &model).unwrap();
        fix_dims_from_inputs(&mut off, &model, &shapes).unwrap();
        assert!(off.dimension_overrides.is_empty());
        assert!(off.dynamic_shape_warning().unwrap().contains("(--no-auto-dims)"));
        assert!(off.to_string().contains("automatic dims      : off (--no-auto-dims)"), "{off}");
    }

    #[test]
    fn a_dim_two_inputs_size_differently_is_left_free_with_a_note_naming_both() {
        let model = two_inputs_sharing_batch();
        let available = providers(&[DML_PROVIDER, CPU_PROVIDER]);
        let mut plan =
            resolve(&PlanRequest { ep: EpRequest::Dml, ..PlanRequest::default() }, &available, &model).unwrap();
        fix_dims_from_inputs(
            &mut plan,
            &model,
            &[bound("image", &[2, 3, 8, 8], "2 images"), bound("scale", &[3], "s.npy")],
        )
        .unwrap();
        assert!(plan.dimension_overrides.iter().all(|o| o.key != "N"), "{:?}", plan.dimension_overrides);
        assert_eq!(plan.unfixed_dims, vec!["N".to_string()]);
        assert_eq!(
            plan.notes,
            vec!["free dimension 'N' is 2 in input 'image' (axis 0) but 3 in input 'scale' (axis 0): left free, as one override cannot give it both sizes".to_string()]
        );
    }

    #[test]
    fn shapes_fix_named_dims_size_unnamed_ones_and_are_checked() {
        let unnamed = DimInfo::default();
        let model = ModelInfo {
            inputs: vec![IoInfo {
                name: "x".into(),
                dtype: Some("float32".into()),
                dims: vec![
                    DimInfo { param: Some("batch".into()), ..DimInfo::default() },
                    DimInfo { value: Some(3), ..DimInfo::default() },
                    unnamed.clone(),
                    unnamed,
                ],
                ..IoInfo::default()
            }],
            ..ModelInfo::default()
        };
        let available = providers(&[DML_PROVIDER, CPU_PROVIDER]);
        let request = |shape: Vec<usize>| PlanRequest {
            ep: EpRequest::Dml,
            shapes: vec![("x".into(), shape)],
            ..PlanRequest::default()
        };
        let plan = resolve(&request(vec![2, 3, 48, 192]), &available, &model).unwrap();
        assert_eq!(plan.input_shapes["x"], vec![2, 3, 48, 192]);
        let batch = plan.dimension_overrides.iter().find(|o| o.key == "batch").unwrap();
        assert_eq!((batch.value, &batch.source), (2, &DimSource::Shape { input: "x".into(), axis: 0 }));
        assert_eq!(plan.unnamed_dims, vec!["input 'x' axis 2".to_string(), "input 'x' axis 3".to_string()]);
        let warning = plan.dynamic_shape_warning().unwrap();
        assert!(warning.contains("input 'x' axis 2, input 'x' axis 3 unnamed"), "{warning}");
        // Graph capture cannot work on what stays free, and no --dim reaches an unnamed axis.
        assert!(plan.check_graph_capture().is_ok(), "graph capture is off");
        let mut capture = request(vec![2, 3, 48, 192]);
        capture.dml_graph_capture = true;
        let err = resolve(&capture, &available, &model).unwrap().check_graph_capture().unwrap_err().to_string();
        assert_eq!(
            err,
            "DirectML graph capture needs static shapes, but input 'x' axis 2, input 'x' axis 3 are unnamed and \
             free, which no --dim can fix (ONNX Runtime fixes only named dimensions): export the model with names \
             or static sizes"
        );
        let err = resolve(&request(vec![2, 4, 48, 192]), &available, &model).unwrap_err().to_string();
        assert_eq!(err, "--shape x=2,4,48,192: axis 1 of input 'x' is fixed to 3 in the model");
        let err = resolve(&request(vec![2, 3]), &available, &model).unwrap_err().to_string();
        assert_eq!(err, "--shape x=2,3: input 'x' has rank 4 ([batch, 3, ?, ?]), not 2");
        let mut conflicting = request(vec![2, 3, 48, 192]);
        conflicting.dims.push(("batch".into(), 5));
        let plan = resolve(&conflicting, &available, &model).unwrap();
        assert!(plan.dimension_overrides.iter().all(|o| o.key != "batch"));
        assert_eq!(
            plan.notes,
            vec!["free dimension 'batch' is 5 by --dim batch but 2 by --shape x (axis 0): left free, as one override cannot give it both sizes".to_string()]
        );
    }
}
