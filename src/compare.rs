//! Output comparison with the rules of ONNX's backend test runner and ONNX Runtime's
//! onnx_test_runner: a float element passes when |expected - actual| <= atol + rtol * |expected|,
//! NaN equals NaN, infinities of the same sign are equal; integers, bools and strings must be
//! exact; dtype and shape must match.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::tensor::{format_shape, HostTensor, HostValue};

/// Absolute and relative tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tolerance {
    pub atol: f64,
    pub rtol: f64,
}

/// ONNX's tolerance for its test data (onnx_test_runner's): `dmlrun test`'s default.
pub const ONNX_TEST_DATA: Tolerance = Tolerance { atol: 1e-7, rtol: 1e-3 };

/// Two execution providers' outputs on the same inputs (`--compare-ep`, `reduce`): kernels that
/// sum in another order differ by more than ONNX's test data allows, near zero above all.
pub const EP_COMPARISON: Tolerance = Tolerance { atol: 1e-5, rtol: 1e-3 };

/// What a model converted to float16 is held to against float32's outputs (`tune`'s float16
/// candidate, `fix`'s float16 remedy), where the tolerance given asks less: float16 keeps 11 bits.
pub const FLOAT16: Tolerance = Tolerance { atol: 1e-3, rtol: 1e-2 };

impl Tolerance {
    /// Each bound the looser of this one and `floor`'s.
    pub fn at_least(self, floor: Tolerance) -> Tolerance {
        Tolerance { atol: self.atol.max(floor.atol), rtol: self.rtol.max(floor.rtol) }
    }
}

impl Default for Tolerance {
    /// ONNX's defaults for its test data.
    fn default() -> Self {
        ONNX_TEST_DATA
    }
}

/// The tolerances a check holds outputs to: `--atol`/`--rtol`, a case's own (`data.json`, a
/// manifest entry's), and `--tol NAME=ATOL,RTOL` for one output, which wins over both.
#[derive(Debug, Clone, Default)]
pub struct Tolerances {
    pub default: Tolerance,
    pub per_output: BTreeMap<String, Tolerance>,
}

impl Tolerances {
    /// `--atol`/`--rtol`, and `--tol NAME=ATOL,RTOL` for single outputs.
    pub fn given(default: Tolerance, per_output: impl IntoIterator<Item = (String, Tolerance)>) -> Tolerances {
        Tolerances { default, per_output: per_output.into_iter().collect() }
    }

    /// The tolerance of `output`, where the item (a case, a manifest entry) may say its own.
    pub fn for_output(&self, output: &str, item_atol: Option<f64>, item_rtol: Option<f64>) -> Tolerance {
        self.per_output.get(output).copied().unwrap_or(Tolerance {
            atol: item_atol.unwrap_or(self.default.atol),
            rtol: item_rtol.unwrap_or(self.default.rtol),
        })
    }
}

/// Why an output did not match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mismatch {
    pub output: String,
    /// One-line explanation.
    pub reason: String,
    /// Set for value mismatches.
    pub values: Option<Box<ValueMismatch>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValueMismatch {
    pub first_index: usize,
    pub expected: String,
    pub actual: String,
    pub diff: Option<f64>,
    pub tolerance: Tolerance,
    pub mismatched: usize,
    pub total: usize,
    /// Smallest atol that passes every element with rtol 0 (infinite when NaN/Inf differ).
    pub min_atol: Option<f64>,
    /// Smallest rtol that passes every element with atol 0.
    pub min_rtol: Option<f64>,
}

impl Mismatch {
    /// Whether NaN or infinity stands where the other side has a number (or the other
    /// infinity): a difference no tolerance passes, and in float16 a value that left its range.
    pub fn non_finite(&self) -> bool {
        self.values.as_ref().is_some_and(|v| v.min_atol.is_none())
    }
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "output '{}': {}", self.output, self.reason)
    }
}

fn float_close(expected: f64, actual: f64, tol: Tolerance) -> bool {
    if expected.is_nan() || actual.is_nan() {
        return expected.is_nan() && actual.is_nan();
    }
    if expected.is_infinite() || actual.is_infinite() {
        return expected == actual;
    }
    (expected - actual).abs() <= tol.atol + tol.rtol * expected.abs()
}

/// Element-wise equality for values that must match exactly (integers, bools, strings).
fn exact<T: PartialEq>(
    output: &str,
    expected: &[T],
    actual: &[T],
    what: &str,
    tol: Tolerance,
    show: impl Fn(&T) -> String,
    diff: impl Fn(&T, &T) -> Option<f64>,
) -> Result<(), Mismatch> {
    let total = expected.len();
    let bad: Vec<usize> = (0..total).filter(|&i| expected[i] != actual[i]).collect();
    let Some(&i) = bad.first() else {
        return Ok(());
    };
    Err(Mismatch {
        output: output.to_string(),
        reason: format!(
            "{} of {total} {what} differ (must be exact); first at index {i}: expected {}, got {}",
            bad.len(),
            show(&expected[i]),
            show(&actual[i])
        ),
        values: Some(Box::new(ValueMismatch {
            first_index: i,
            expected: show(&expected[i]),
            actual: show(&actual[i]),
            diff: diff(&expected[i], &actual[i]),
            tolerance: tol,
            mismatched: bad.len(),
            total,
            min_atol: None,
            min_rtol: None,
        })),
    })
}

fn render(v: f64) -> String {
    format!("{v}")
}

/// Compares one output. `Ok(())` when it matches.
pub fn compare(output: &str, expected: &HostTensor, actual: &HostTensor, tol: Tolerance) -> Result<(), Mismatch> {
    let fail = |reason: String| Mismatch { output: output.to_string(), reason, values: None };
    if expected.dtype != actual.dtype {
        return Err(fail(format!("dtype differs: expected {}, got {}", expected.dtype, actual.dtype)));
    }
    if expected.shape != actual.shape {
        return Err(fail(format!(
            "shape differs: expected {}, got {}",
            format_shape(&expected.shape),
            format_shape(&actual.shape)
        )));
    }
    let total = expected.len();
    if let (Some(e), Some(a)) = (expected.strings(), actual.strings()) {
        return exact(output, e, a, "strings", tol, |v| format!("{v:?}"), |_, _| None);
    }
    if !expected.dtype.is_float() {
        let (Some(e), Some(a)) = (expected.to_i128(), actual.to_i128()) else {
            return Err(fail(format!("cannot compare {} values", expected.dtype)));
        };
        let what = format!("{} elements", expected.dtype);
        return exact(output, &e, &a, &what, tol, |v| v.to_string(), |x, y| Some((x - y).abs() as f64));
    }
    let (Some(e), Some(a)) = (expected.to_f64(), actual.to_f64()) else {
        return Err(fail(format!("cannot compare {} values", expected.dtype)));
    };
    let mut first = None;
    let mut mismatched = 0usize;
    let mut min_atol = 0.0f64;
    let mut min_rtol = 0.0f64;
    for i in 0..total {
        if float_close(e[i], a[i], tol) {
            continue;
        }
        mismatched += 1;
        first.get_or_insert(i);
        let diff = (e[i] - a[i]).abs();
        if diff.is_nan() || e[i].is_nan() != a[i].is_nan() || e[i].is_infinite() || a[i].is_infinite() {
            min_atol = f64::INFINITY;
            min_rtol = f64::INFINITY;
        } else {
            min_atol = min_atol.max(diff);
            min_rtol = min_rtol.max(if e[i] == 0.0 { f64::INFINITY } else { diff / e[i].abs() });
        }
    }
    let Some(i) = first else {
        return Ok(());
    };
    let diff = (e[i] - a[i]).abs();
    let allowed = tol.atol + tol.rtol * e[i].abs();
    let finite = |v: f64| if v.is_finite() { Some(v) } else { None };
    let would_pass = match (finite(min_atol), finite(min_rtol)) {
        (Some(at), Some(rt)) => format!("; would pass with atol >= {at:.3e} or rtol >= {rt:.3e}"),
        (Some(at), None) => format!("; would pass with atol >= {at:.3e}"),
        _ => String::new(),
    };
    Err(Mismatch {
        output: output.to_string(),
        reason: format!(
            "{mismatched} of {total} elements differ; first at index {i}: expected {}, got {}, diff {} > {:.3e} (atol {:e} + rtol {:e} * |expected|){would_pass}",
            render(e[i]),
            render(a[i]),
            render(diff),
            allowed,
            tol.atol,
            tol.rtol
        ),
        values: Some(Box::new(ValueMismatch {
            first_index: i,
            expected: render(e[i]),
            actual: render(a[i]),
            diff: finite(diff),
            tolerance: tol,
            mismatched,
            total,
            min_atol: finite(min_atol),
            min_rtol: finite(min_rtol),
        })),
    })
}

/// Compares every expected output (tensor, sequence or empty optional) with the actual output
/// of the same name (outputs the reference has and the run lacks are skipped: both come from
/// the same model).
pub fn compare_outputs(
    expected: &[(String, HostValue)],
    actual: &[(String, HostValue)],
    tol: Tolerance,
) -> Vec<Mismatch> {
    expected
        .iter()
        .filter_map(|(name, want)| Some((name, want, &actual.iter().find(|(n, _)| n == name)?.1)))
        .flat_map(|(name, want, got)| compare_values(name, want, got, tol))
        .collect()
}

/// How far apart two runs of one float output are, whether or not they pass: the numbers a
/// DirectML-vs-CPU check records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    pub output: String,
    /// Largest |expected - actual| over finite element pairs.
    pub max_abs: f64,
    /// Largest |expected - actual| / |expected| over finite pairs with a non-zero expected value.
    pub max_rel: f64,
    /// Every element bit-for-bit equal (NaN payloads aside): the two runs computed the same thing
    /// the same way.
    pub identical: bool,
    /// Elements NaN or infinite in one run and not in the other (or infinite of the other sign),
    /// which the largest differences above leave out: a float16 overflow shows here.
    #[serde(default)]
    pub not_finite: usize,
    /// Where the output is quantized (written by a DequantizeLinear, or integers a QuantizeLinear
    /// or QLinear operator writes): one step of it (the scale, or 1), so the difference can be
    /// counted in steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantization_step: Option<f64>,
}

impl Difference {
    /// `, 1000 values NaN or infinite in one run only` where there are such, else nothing.
    pub fn not_finite_note(&self) -> String {
        not_finite_note(self.not_finite)
    }

    /// `, 7 quantization steps (of 3.922e-3)` for a quantized output, else nothing.
    pub fn steps_note(&self) -> String {
        match self.quantization_step {
            Some(step) if step > 0.0 => {
                let steps = self.max_abs / step;
                let plural = if (steps - 1.0).abs() < 0.05 { "" } else { "s" };
                format!(", {} quantization step{plural} (of {step:.3e})", crate::compare::steps_text(steps))
            }
            _ => String::new(),
        }
    }
}

/// A count of steps as a person reads it: whole where it is within 5% of whole (a float output's
/// rounding), else to one decimal.
pub fn steps_text(steps: f64) -> String {
    match (steps - steps.round()).abs() < 0.05 {
        true => format!("{}", steps.round()),
        false => format!("{steps:.1}"),
    }
}

/// `, N values NaN or infinite in one run only`, or nothing for 0.
pub fn not_finite_note(count: usize) -> String {
    if count == 0 {
        String::new()
    } else {
        format!(", {count} value(s) NaN or infinite in one run only")
    }
}

/// How many rows of a classifier's scores two runs rank alike: the same class first (`top1`),
/// the same set of the best five (`top5`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agreement {
    pub rows: usize,
    pub top1: usize,
    pub top5: usize,
}

/// The top-1 and top-5 agreement of two float outputs shaped as a classifier's ([classes] or
/// [batch, classes], at least 5 classes); `None` for any other output.
pub fn classifier_agreement(expected: &HostTensor, actual: &HostTensor) -> Option<Agreement> {
    let classes = *expected.shape.last()?;
    if expected.shape != actual.shape || expected.shape.len() > 2 || classes < 5 {
        return None;
    }
    let (want, got) = (expected.to_f64()?, actual.to_f64()?);
    let best = |row: &[f64], k: usize| {
        let mut order: Vec<usize> = (0..row.len()).collect();
        order.sort_by(|&a, &b| row[b].total_cmp(&row[a]).then(a.cmp(&b)));
        order.truncate(k);
        order
    };
    let mut agreement = Agreement { rows: 0, top1: 0, top5: 0 };
    for (w, g) in want.chunks(classes).zip(got.chunks(classes)) {
        agreement.rows += 1;
        agreement.top1 += usize::from(best(w, 1) == best(g, 1));
        let (mut w5, mut g5) = (best(w, 5), best(g, 5));
        w5.sort_unstable();
        g5.sort_unstable();
        agreement.top5 += usize::from(w5 == g5);
    }
    Some(agreement)
}

/// The difference of each float output present in both runs with the same shape.
pub fn differences(expected: &[(String, HostTensor)], actual: &[(String, HostTensor)]) -> Vec<Difference> {
    expected
        .iter()
        .filter_map(|(name, want)| difference(name, want, &actual.iter().find(|(n, _)| n == name)?.1))
        .collect()
}

/// The difference of one float output; `None` for other dtypes or when dtype or shape differ.
pub fn difference(output: &str, expected: &HostTensor, actual: &HostTensor) -> Option<Difference> {
    if !expected.dtype.is_float() || expected.dtype != actual.dtype || expected.shape != actual.shape {
        return None;
    }
    let (e, a) = (expected.to_f64()?, actual.to_f64()?);
    let mut max_abs = 0.0f64;
    let mut max_rel = 0.0f64;
    let mut not_finite = 0;
    for (&e, &a) in e.iter().zip(&a) {
        let diff = (e - a).abs();
        let same_non_finite = (e.is_nan() && a.is_nan()) || (e.is_infinite() && e == a);
        if !diff.is_finite() && !same_non_finite {
            not_finite += 1;
        }
        if diff.is_finite() {
            max_abs = max_abs.max(diff);
            if e != 0.0 {
                max_rel = max_rel.max(diff / e.abs());
            }
        }
    }
    let identical = expected.bytes().is_some() && expected.bytes() == actual.bytes();
    Some(Difference { output: output.to_string(), max_abs, max_rel, identical, not_finite, quantization_step: None })
}

/// Compares values that may be sequences or empty optionals; sequence items are named `output[i]`.
pub fn compare_values(output: &str, expected: &HostValue, actual: &HostValue, tol: Tolerance) -> Vec<Mismatch> {
    match (expected, actual) {
        (HostValue::Tensor(e), HostValue::Tensor(a)) => compare(output, e, a, tol).err().into_iter().collect(),
        (HostValue::Sequence(e), HostValue::Sequence(a)) if e.len() != a.len() => vec![Mismatch {
            output: output.to_string(),
            reason: format!("sequence length differs: expected {}, got {}", e.len(), a.len()),
            values: None,
        }],
        (HostValue::Maps(e), HostValue::Maps(a)) if e.len() != a.len() => vec![Mismatch {
            output: output.to_string(),
            reason: format!("sequence length differs: expected {} maps, got {}", e.len(), a.len()),
            values: None,
        }],
        // Item by item; a map as the tensors ONNX Runtime keeps it in: keys must match exactly
        // (integers and strings compare exactly at any tolerance), values within tolerance.
        (HostValue::Sequence(_), HostValue::Sequence(_))
        | (HostValue::Map(_), HostValue::Map(_))
        | (HostValue::Maps(_), HostValue::Maps(_)) => expected
            .tensors(output)
            .into_iter()
            .zip(actual.tensors(output))
            .filter_map(|((name, e), (_, a))| compare(&name, e, a, tol).err())
            .collect(),
        (HostValue::Absent, HostValue::Absent) => Vec::new(),
        (e, a) => vec![Mismatch {
            output: output.to_string(),
            reason: format!("expected a {}, got a {}", e.kind(), a.kind()),
            values: None,
        }],
    }
}

/// Counts NaN and Inf elements of a float tensor (for `--check-finite`).
pub fn non_finite(tensor: &HostTensor) -> usize {
    if !tensor.dtype.is_float() {
        return 0;
    }
    tensor.to_f64().map_or(0, |v| v.iter().filter(|x| !x.is_finite()).count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_non_finite_difference_is_told_from_a_finite_one() {
        let tol = Tolerance { atol: 1e-3, rtol: 1e-2 };
        let expected = HostTensor::from_f32(vec![2], &[1.0, 2.0]).unwrap();
        let overflowed = HostTensor::from_f32(vec![2], &[f32::INFINITY, 2.0]).unwrap();
        let off = HostTensor::from_f32(vec![2], &[1.5, 2.0]).unwrap();
        assert!(compare("y", &expected, &overflowed, tol).unwrap_err().non_finite());
        assert!(!compare("y", &expected, &off, tol).unwrap_err().non_finite());
    }

    #[test]
    fn values_that_overflow_in_one_run_only_are_counted_not_hidden() {
        let t = |v: &[f32]| HostTensor::from_f32(vec![v.len()], v).unwrap();
        let want = t(&[1.0, 70000.0, f32::NAN, f32::INFINITY, 2.0]);
        // An overflow to infinity, a NaN where float32 was finite, the same NaN and infinity.
        let got = t(&[1.5, f32::INFINITY, f32::NAN, f32::INFINITY, f32::NAN]);
        let d = difference("y", &want, &got).unwrap();
        assert_eq!((d.max_abs, d.not_finite), (0.5, 2));
        assert_eq!(d.not_finite_note(), ", 2 value(s) NaN or infinite in one run only");
        assert_eq!(difference("y", &want, &want).unwrap().not_finite, 0);
    }

    #[test]
    fn a_quantized_outputs_difference_is_counted_in_its_steps() {
        let t = |v: &[f32]| HostTensor::from_f32(vec![v.len()], v).unwrap();
        let mut d = difference("p", &t(&[0.5, 0.25]), &t(&[0.5 + 7.0 / 255.0, 0.25])).unwrap();
        assert_eq!(d.steps_note(), "");
        d.quantization_step = Some(1.0 / 255.0);
        assert_eq!(d.steps_note(), ", 7 quantization steps (of 3.922e-3)");
        d.max_abs = 1.0 / 255.0;
        assert_eq!(d.steps_note(), ", 1 quantization step (of 3.922e-3)");
        // Not a whole number of steps: the outputs are not both on the grid.
        d.max_abs = 2.5 / 255.0;
        assert_eq!(d.steps_note(), ", 2.5 quantization steps (of 3.922e-3)");
    }

    #[test]
    fn classifier_agreement_counts_rows_ranked_alike() {
        let scores = |v: &[f32]| HostTensor::from_f32(vec![2, 6], v).unwrap();
        let want = scores(&[0.1, 0.9, 0.2, 0.3, 0.4, 0.0, 0.5, 0.1, 0.2, 0.3, 0.4, 0.0]);
        // Row 0: the same best class, another fifth; row 1: another best class, the same five.
        let got = scores(&[0.1, 0.9, 0.2, 0.3, 0.4, 0.35, 0.39, 0.1, 0.2, 0.3, 0.41, 0.0]);
        assert_eq!(classifier_agreement(&want, &got), Some(Agreement { rows: 2, top1: 1, top5: 1 }));
        assert_eq!(classifier_agreement(&want, &want), Some(Agreement { rows: 2, top1: 2, top5: 2 }));
        let not_a_classifier = HostTensor::from_f32(vec![2, 2, 3], &[0.0; 12]).unwrap();
        assert_eq!(classifier_agreement(&not_a_classifier, &not_a_classifier), None);
    }

    #[test]
    fn differences_measure_the_gap_between_runs() {
        let e = vec![("y".to_string(), HostTensor::from_f32(vec![3], &[1.0, -2.0, 0.0]).unwrap())];
        let a = vec![("y".to_string(), HostTensor::from_f32(vec![3], &[1.0, -2.5, 0.25]).unwrap())];
        let d = differences(&e, &a);
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].max_abs, d[0].max_rel, d[0].identical), (0.5, 0.25, false));
        let same = differences(&e, &e);
        assert_eq!((same[0].max_abs, same[0].identical), (0.0, true));
    }
    use crate::tensor::DType;

    fn f32s(v: &[f32]) -> HostTensor {
        HostTensor::from_f32(vec![v.len()], v).unwrap()
    }

    #[test]
    fn tolerance_edge_is_inclusive() {
        let tol = Tolerance { atol: 0.5, rtol: 0.0 };
        assert!(compare("y", &f32s(&[1.0]), &f32s(&[1.5]), tol).is_ok());
        assert!(compare("y", &f32s(&[1.0]), &f32s(&[1.5001]), tol).is_err());
        let tol = Tolerance { atol: 0.0, rtol: 0.1 };
        assert!(compare("y", &f32s(&[10.0]), &f32s(&[11.0]), tol).is_ok());
        assert!(compare("y", &f32s(&[10.0]), &f32s(&[11.01]), tol).is_err());
    }

    #[test]
    fn nan_equals_nan_and_infinities_by_sign() {
        let tol = Tolerance::default();
        assert!(compare("y", &f32s(&[f32::NAN]), &f32s(&[f32::NAN]), tol).is_ok());
        assert!(compare("y", &f32s(&[f32::NAN]), &f32s(&[0.0]), tol).is_err());
        assert!(compare("y", &f32s(&[0.0]), &f32s(&[f32::NAN]), tol).is_err());
        assert!(compare("y", &f32s(&[f32::INFINITY]), &f32s(&[f32::INFINITY]), tol).is_ok());
        assert!(compare("y", &f32s(&[f32::INFINITY]), &f32s(&[f32::NEG_INFINITY]), tol).is_err());
        assert!(compare("y", &f32s(&[f32::INFINITY]), &f32s(&[f32::MAX]), tol).is_err());
    }

    #[test]
    fn integers_must_be_exact() {
        let a = HostTensor::from_bytes(DType::Int64, vec![2], [1i64, 2].iter().flat_map(|v| v.to_le_bytes()).collect())
            .unwrap();
        let b = HostTensor::from_bytes(DType::Int64, vec![2], [1i64, 3].iter().flat_map(|v| v.to_le_bytes()).collect())
            .unwrap();
        let big = Tolerance { atol: 10.0, rtol: 10.0 };
        let err = compare("ids", &a, &b, big).unwrap_err();
        assert!(err.reason.contains("must be exact") && err.reason.contains("index 1"), "{err}");
        assert!(compare("ids", &a, &a.clone(), Tolerance::default()).is_ok());
    }

    #[test]
    fn strings_and_bools_must_be_exact() {
        let a = HostTensor::from_strings(vec![2], vec!["a".into(), "b".into()]).unwrap();
        let b = HostTensor::from_strings(vec![2], vec!["a".into(), "c".into()]).unwrap();
        assert!(compare("s", &a, &b, Tolerance::default()).is_err());
        let t = HostTensor::from_bytes(DType::Bool, vec![2], vec![1, 0]).unwrap();
        let f = HostTensor::from_bytes(DType::Bool, vec![2], vec![1, 1]).unwrap();
        assert!(compare("b", &t, &f, Tolerance::default()).is_err());
    }

    #[test]
    fn shape_and_dtype_mismatches_fail() {
        let a = f32s(&[1.0, 2.0]);
        let b = HostTensor::from_f32(vec![1, 2], &[1.0, 2.0]).unwrap();
        assert!(compare("y", &a, &b, Tolerance::default()).unwrap_err().reason.contains("shape differs"));
        let c = HostTensor::from_bytes(DType::Float64, vec![2], vec![0; 16]).unwrap();
        assert!(compare("y", &a, &c, Tolerance::default()).unwrap_err().reason.contains("dtype differs"));
    }

    #[test]
    fn mismatch_reports_counts_and_smallest_passing_tolerances() {
        let err = compare("y", &f32s(&[1.0, 2.0, 4.0]), &f32s(&[1.0, 2.5, 5.0]), Tolerance::default()).unwrap_err();
        let v = err.values.unwrap();
        assert_eq!((v.first_index, v.mismatched, v.total), (1, 2, 3));
        assert_eq!(v.min_atol, Some(1.0));
        assert_eq!(v.min_rtol, Some(0.25));
        assert!(err.reason.contains("2 of 3 elements differ"), "{}", err.reason);
    }

    #[test]
    fn counts_non_finite() {
        assert_eq!(non_finite(&f32s(&[1.0, f32::NAN, f32::NEG_INFINITY])), 2);
    }
}
