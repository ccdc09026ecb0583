//! How close two EPs' logits are, step by step, and what that says of a generation: the verdict
//! of `generate --compare-ep`.
//!
//! Both sides see the same tokens at every step (the EP under test is fed the reference's greedy
//! tokens: teacher forcing), so every step compares like with like, also after the greedy
//! choices part. Per step: the largest absolute difference of the logits, their cosine, how many
//! of the two top-5 sets are shared, and the reference's margin between its first and second
//! choice. Where the two choose differently, the reference's margin decides whose fault it is:
//! a margin within the noise the two EPs show over the whole generation is a near-tie (either
//! token is right), a larger one is a failure.

use serde::Serialize;

/// The cosine below which two sets of logits no longer agree. Measured on SmolLM2-135M under Wine
/// on lavapipe (docs/guide.md): its float16 form on DirectML against the CPU EP stays at 0.998 or
/// above over 8 steps, while DirectML's fused RMS norms there, computing wrong, give 0.06 to 0.13.
pub const MIN_COSINE: f64 = 0.99;
/// Of the two top-5 sets, how many ids must be shared for the logits to agree: one near-tie at
/// the fifth place may swap in a sixth.
pub const MIN_TOP5_SHARED: usize = 4;
/// A part is a near-tie while the reference's margin is at most this many times the noise
/// (each of the two logits may move by the noise, in opposite directions).
pub const NEAR_TIE_NOISE_MULTIPLE: f32 = 2.0;

/// One step's two sets of logits, compared.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StepAgreement {
    /// 0: the prefill's, then each decode step.
    pub step: usize,
    pub max_abs_diff: f32,
    pub cosine: f64,
    /// Ids in both top-5 sets (0 to 5).
    pub top5_shared: usize,
    /// The reference's greedy token at this step, and this EP's.
    pub reference_token: i64,
    pub token: i64,
    /// The reference's first choice minus its second, in its logits.
    pub reference_margin: f32,
}

impl StepAgreement {
    /// Compares `ours` with `reference` (the same vocabulary); NaN or an infinity on either side
    /// makes the step disagree.
    pub fn of(step: usize, ours: &[f32], reference: &[f32]) -> StepAgreement {
        let n = ours.len().min(reference.len());
        let (ours, reference) = (&ours[..n], &reference[..n]);
        let mut max_abs_diff = 0.0f32;
        let (mut dot, mut a2, mut b2) = (0.0f64, 0.0f64, 0.0f64);
        for (&a, &b) in ours.iter().zip(reference) {
            let d = (a - b).abs();
            max_abs_diff = if d.is_nan() { f32::INFINITY } else { max_abs_diff.max(d) };
            dot += f64::from(a) * f64::from(b);
            a2 += f64::from(a) * f64::from(a);
            b2 += f64::from(b) * f64::from(b);
        }
        let cosine = if a2 > 0.0 && b2 > 0.0 { dot / (a2.sqrt() * b2.sqrt()) } else { f64::NAN };
        let (top_ours, top_ref) = (top_k(ours, 5), top_k(reference, 5));
        let top5_shared = top_ours.iter().filter(|i| top_ref.contains(i)).count();
        let reference_margin = match (top_ref.first(), top_ref.get(1)) {
            (Some(&a), Some(&b)) => reference[a] - reference[b],
            _ => f32::INFINITY,
        };
        StepAgreement {
            step,
            max_abs_diff,
            cosine,
            top5_shared,
            reference_token: top_ref.first().map_or(-1, |&i| i as i64),
            token: top_ours.first().map_or(-1, |&i| i as i64),
            reference_margin,
        }
    }

    /// Whether the two sets of logits agree here: close in direction, the same few candidates.
    pub fn agrees(&self) -> bool {
        self.cosine >= MIN_COSINE && self.top5_shared >= MIN_TOP5_SHARED
    }

    pub fn parts(&self) -> bool {
        self.token != self.reference_token
    }

    /// Whether a part here would be a near-tie: the logits agree and the reference's margin is
    /// within what `noise` can move (each of its two logits by the noise, opposite ways).
    pub fn within_noise(&self, noise: f32) -> bool {
        self.agrees() && self.reference_margin <= NEAR_TIE_NOISE_MULTIPLE * noise
    }
}

/// The ids of the `k` largest values, largest first (NaN never among them; ties to the lower id,
/// as an ArgMax).
fn top_k(values: &[f32], k: usize) -> Vec<usize> {
    let mut top: Vec<usize> = Vec::with_capacity(k + 1);
    for (i, &v) in values.iter().enumerate() {
        if v.is_nan() {
            continue;
        }
        let at = top.iter().position(|&j| v > values[j]).unwrap_or(top.len());
        if at < k {
            top.insert(at, i);
            top.truncate(k);
        }
    }
    top
}

/// What the comparison of one generation says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The same tokens, and the logits agree at every step.
    Agree,
    /// The same tokens, but the logits stop agreeing from some step: a warning.
    Drifts,
    /// The tokens part only where the reference was not sure (its margin within the noise): a
    /// warning, either token is right.
    NearTie,
    /// The tokens part where the reference was sure: a failure.
    Parts,
}

impl Verdict {
    pub fn failed(self) -> bool {
        self == Verdict::Parts
    }

    pub fn warns(self) -> bool {
        matches!(self, Verdict::Drifts | Verdict::NearTie)
    }
}

/// Every step of one generation compared, and the verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogitAgreement {
    pub verdict: Verdict,
    /// The median over the steps of the largest logit difference: what two EPs computing the same
    /// model show anyway.
    pub noise: f32,
    /// The first step whose logits do not agree (cosine or top-5), parted or not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_disagreeing_step: Option<usize>,
    /// The first step where the greedy choices part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_part: Option<usize>,
    /// Steps where the choices part within the noise / beyond it.
    pub near_tie_parts: usize,
    pub sure_parts: usize,
    pub worst_max_abs_diff: f32,
    pub worst_cosine: f64,
    pub worst_top5_shared: usize,
    pub steps: Vec<StepAgreement>,
}

impl LogitAgreement {
    pub fn judge(steps: Vec<StepAgreement>) -> LogitAgreement {
        let noise = median(steps.iter().map(|s| s.max_abs_diff).collect());
        let near_tie_parts = steps.iter().filter(|s| s.parts() && s.within_noise(noise)).count();
        let sure_parts = steps.iter().filter(|s| s.parts() && !s.within_noise(noise)).count();
        let first_disagreeing_step = steps.iter().find(|s| !s.agrees()).map(|s| s.step);
        let verdict = match (sure_parts, near_tie_parts, first_disagreeing_step) {
            (1.., _, _) => Verdict::Parts,
            (0, 1.., _) => Verdict::NearTie,
            (0, 0, Some(_)) => Verdict::Drifts,
            (0, 0, None) => Verdict::Agree,
        };
        LogitAgreement {
            verdict,
            noise,
            first_disagreeing_step,
            first_part: steps.iter().find(|s| s.parts()).map(|s| s.step),
            near_tie_parts,
            sure_parts,
            worst_max_abs_diff: steps.iter().map(|s| s.max_abs_diff).fold(0.0, f32::max),
            worst_cosine: steps.iter().map(|s| s.cosine).fold(1.0, |a, b| if b.is_nan() || b < a { b } else { a }),
            worst_top5_shared: steps.iter().map(|s| s.top5_shared).min().unwrap_or(5),
            steps,
        }
    }

    /// The verdict in a word or two, as reports label it.
    pub fn verdict_word(&self) -> &'static str {
        match self.verdict {
            Verdict::Agree => "agree",
            Verdict::Drifts => "drift (warning)",
            Verdict::NearTie => "near-tie (warning)",
            Verdict::Parts => "FAILED",
        }
    }

    /// One line for a person: the verdict, then the figures it rests on.
    pub fn summary(&self) -> String {
        let figures = format!(
            "max |diff| {}, cosine >= {:.6}, top-5 shared >= {}/5, noise {} over {} steps",
            g3(self.worst_max_abs_diff),
            self.worst_cosine,
            self.worst_top5_shared,
            g3(self.noise),
            self.steps.len()
        );
        let margin_at = |step: Option<usize>| {
            step.and_then(|s| self.steps.iter().find(|x| x.step == s)).map(|s| s.reference_margin)
        };
        match self.verdict {
            Verdict::Agree => format!("logits agree at every step ({figures})"),
            Verdict::Drifts => format!(
                "the same tokens, but the logits stop agreeing at step {} ({figures})",
                self.first_disagreeing_step.unwrap_or_default()
            ),
            Verdict::NearTie => format!(
                "a near-tie: the choices part at step {} where the reference's margin was {}, within {NEAR_TIE_NOISE_MULTIPLE} x the noise ({figures})",
                self.first_part.unwrap_or_default(),
                g3(margin_at(self.first_part).unwrap_or(f32::NAN))
            ),
            Verdict::Parts => {
                let sure = self.steps.iter().find(|s| s.parts() && !s.within_noise(self.noise));
                format!(
                    "the choices part at step {} where the reference was sure (margin {}, noise {}{}); {} such step(s) ({figures})",
                    sure.map_or(0, |s| s.step),
                    g3(sure.map_or(f32::NAN, |s| s.reference_margin)),
                    g3(self.noise),
                    if sure.is_some_and(|s| !s.agrees()) { ", and the logits disagree there" } else { "" },
                    self.sure_parts
                )
            }
        }
    }
}

/// Three significant digits, as people read a difference: 0.0123, 1.5, 2.4e-7.
pub fn g3(v: f32) -> String {
    let v = f64::from(v);
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let magnitude = v.abs().log10().floor() as i32;
    if !(-3..6).contains(&magnitude) {
        return format!("{v:.2e}");
    }
    format!("{:.*}", (2 - magnitude).max(0) as usize, v)
}

fn median(mut values: Vec<f32>) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(|a, b| a.total_cmp(b));
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Logits over 8 ids with the largest at `top` (value 10) and the runner-up at `second`
    /// (10 - margin), the rest spread below.
    fn logits(top: usize, second: usize, margin: f32) -> Vec<f32> {
        let mut v: Vec<f32> = (0..8).map(|i| i as f32 * 0.5).collect();
        v[top] = 10.0;
        v[second] = 10.0 - margin;
        v
    }

    fn nudged(v: &[f32], by: f32) -> Vec<f32> {
        v.iter().enumerate().map(|(i, x)| x + if i % 2 == 0 { by } else { -by }).collect()
    }

    #[test]
    fn identical_logits_agree_with_no_noise() {
        let steps: Vec<_> = (0..4).map(|s| StepAgreement::of(s, &logits(3, 5, 2.0), &logits(3, 5, 2.0))).collect();
        let a = LogitAgreement::judge(steps);
        assert_eq!(a.verdict, Verdict::Agree);
        assert_eq!((a.noise, a.worst_max_abs_diff, a.worst_top5_shared), (0.0, 0.0, 5));
        assert!((a.worst_cosine - 1.0).abs() < 1e-12);
        assert_eq!((a.first_part, a.first_disagreeing_step), (None, None));
    }

    #[test]
    fn a_part_where_the_reference_hesitated_is_a_near_tie() {
        // Noise 0.01 at every step; at step 2 the reference's two best are 0.005 apart and this
        // EP takes the second.
        let mut steps: Vec<_> = (0..5)
            .map(|s| {
                let r = logits(3, 5, 1.0);
                StepAgreement::of(s, &nudged(&r, 0.01), &r)
            })
            .collect();
        let r = logits(3, 5, 0.005);
        let mut ours = nudged(&r, 0.01);
        ours.swap(3, 5);
        steps[2] = StepAgreement::of(2, &ours, &r);
        let a = LogitAgreement::judge(steps);
        assert_eq!(a.verdict, Verdict::NearTie, "{a:?}");
        assert_eq!((a.first_part, a.near_tie_parts, a.sure_parts), (Some(2), 1, 0));
        assert!(!a.verdict.failed() && a.verdict.warns());
        assert!(a.summary().contains("near-tie") && a.summary().contains("step 2"), "{}", a.summary());
    }

    #[test]
    fn a_part_where_the_reference_was_sure_fails() {
        let mut steps: Vec<_> = (0..5)
            .map(|s| {
                let r = logits(3, 5, 1.0);
                StepAgreement::of(s, &nudged(&r, 0.01), &r)
            })
            .collect();
        // The reference is 1.0 sure of id 3; this EP says 6.
        let r = logits(3, 5, 1.0);
        let mut ours = r.clone();
        ours[6] = 12.0;
        steps[3] = StepAgreement::of(3, &ours, &r);
        let a = LogitAgreement::judge(steps);
        assert_eq!(a.verdict, Verdict::Parts, "{a:?}");
        assert_eq!((a.first_part, a.sure_parts), (Some(3), 1));
        assert!(a.verdict.failed());
        assert!(a.summary().contains("step 3") && a.summary().contains("sure"), "{}", a.summary());
    }

    #[test]
    fn logits_that_drift_without_a_part_are_named_at_their_first_step() {
        // The top token stays (id 3, far ahead) while the rest of the logits scatter from step 2.
        let reference = logits(3, 5, 4.0);
        let steps: Vec<_> = (0..5)
            .map(|s| {
                let ours = if s < 2 {
                    reference.clone()
                } else {
                    reference.iter().enumerate().map(|(i, &x)| if i == 3 { x } else { -x * s as f32 }).collect()
                };
                StepAgreement::of(s, &ours, &reference)
            })
            .collect();
        let a = LogitAgreement::judge(steps);
        assert_eq!(a.verdict, Verdict::Drifts, "{a:?}");
        assert_eq!((a.first_disagreeing_step, a.first_part), (Some(2), None));
        assert!(a.worst_cosine < MIN_COSINE);
        assert!(a.summary().contains("stop agreeing at step 2"), "{}", a.summary());
    }

    #[test]
    fn nan_logits_disagree_and_a_part_there_is_never_a_near_tie() {
        let r = logits(3, 5, 0.001);
        let mut ours = r.clone();
        ours[0] = f32::NAN;
        ours.swap(3, 5);
        let s = StepAgreement::of(0, &ours, &r);
        assert!(!s.agrees() && s.max_abs_diff.is_infinite());
        assert_eq!(LogitAgreement::judge(vec![s]).verdict, Verdict::Parts);
    }

    #[test]
    fn three_significant_digits() {
        assert_eq!(
            (g3(0.012345), g3(1.5), g3(123.4), g3(2.4e-7), g3(0.0)),
            ("0.0123".into(), "1.50".into(), "123".into(), "2.40e-7".into(), "0".into())
        );
    }

    #[test]
    fn top_k_takes_the_largest_first_and_the_lower_id_on_a_tie() {
        assert_eq!(top_k(&[1.0, 5.0, 5.0, f32::NAN, 2.0], 3), vec![1, 2, 4]);
        assert_eq!(top_k(&[1.0], 5), vec![0]);
    }
}
