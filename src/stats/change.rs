//! Whether a model got slower: a verdict from two sets of latency samples, each timed in rounds
//! (consecutive blocks of runs), as asv and criterion decide rather than by two medians.
//!
//! A change is called one only when two tests agree that it is real and its whole interval is
//! beyond the threshold (`--max-regression`), as criterion calls a change beyond its noise
//! threshold:
//! - the Mann-Whitney U test (two-sided, normal approximation with the tie and continuity
//!   corrections, as scipy's `mannwhitneyu(method="asymptotic")`) on every run: is one side
//!   stochastically slower?
//! - a 95% bootstrap confidence interval of the ratio of medians (new / old) that resamples the
//!   rounds first and the runs within each chosen round second. A slow spell on a shared machine
//!   lasts seconds: it lands in one round, widens the interval and leaves the verdict
//!   `inconclusive` instead of making a regression of it.
//!
//! Within the threshold both ways the verdict is `no change`; where the interval straddles the
//! threshold (a significant change it cannot size, or noise wider than the threshold),
//! `inconclusive`, with the noise's width said.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// The significance level of the Mann-Whitney U test.
pub const ALPHA: f64 = 0.05;
/// The name every report gives the test.
pub const TEST: &str =
    "Mann-Whitney U (two-sided, alpha 0.05) and a 95% bootstrap CI of the ratio of medians (rounds resampled)";
/// Bootstrap resamples: enough for a stable 2.5th and 97.5th percentile; seeded, so the same
/// samples always give the same interval and verdict.
const RESAMPLES: usize = 2000;
const SEED: u64 = 0x646d_6c72_756e;

/// What a comparison of two sample sets came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Slower: significant by both tests, and the whole interval beyond the threshold.
    Regression,
    /// Faster: significant by both tests, and the whole interval beyond the threshold.
    Improvement,
    /// The interval lies within the threshold both ways: any change is smaller than it.
    NoChange,
    /// The noise is wider than the threshold: these samples cannot tell.
    Inconclusive,
}

impl Verdict {
    /// The word every report uses.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Regression => "regression",
            Verdict::Improvement => "improvement",
            Verdict::NoChange => "no change",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// One side's timed runs (ms) in the order they ran, and the sizes of the consecutive rounds they
/// came in (empty, or sizes that do not add up to the samples: one round of all of them).
#[derive(Debug, Clone, Copy)]
pub struct Timed<'a> {
    pub samples: &'a [f64],
    pub rounds: &'a [usize],
}

impl<'a> Timed<'a> {
    fn round_slices(&self) -> Vec<&'a [f64]> {
        let samples: &'a [f64] = self.samples;
        let fits = self.rounds.iter().sum::<usize>() == samples.len() && self.rounds.iter().all(|&n| n > 0);
        if !fits || self.rounds.len() < 2 {
            return vec![samples];
        }
        let mut rest = samples;
        self.rounds
            .iter()
            .map(|&n| {
                let (round, after) = rest.split_at(n);
                rest = after;
                round
            })
            .collect()
    }
}

/// The sizes of `rounds` consecutive blocks that `count` runs split into, as evenly as can be
/// (the first ones one larger), none empty.
pub fn split_rounds(count: usize, rounds: usize) -> Vec<usize> {
    let rounds = rounds.clamp(1, count.max(1));
    if count == 0 {
        return Vec::new();
    }
    (0..rounds).map(|i| count / rounds + usize::from(i < count % rounds)).collect()
}

/// The comparison of a new sample set with an old one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub verdict: Verdict,
    /// New median over old median: above 1 is slower.
    pub ratio: f64,
    /// The 95% bootstrap confidence interval of `ratio`.
    pub ci_low: f64,
    pub ci_high: f64,
    /// The Mann-Whitney U test's two-sided p-value.
    pub p_value: f64,
    /// The largest change taken as none (`--max-regression`): 0.05 is 5%.
    pub threshold: f64,
    /// Half the interval's width, relative to the ratio: how wide the noise is.
    pub noise: f64,
    pub test: String,
    /// Rounds and runs on each side, old then new.
    pub rounds: [usize; 2],
    pub runs: [usize; 2],
    /// Why this verdict, in one line.
    pub reason: String,
}

/// Judges `new` against `old` with `threshold` (0.05 for 5%). `None` when either side has no
/// runs or a median of zero (nothing to take a ratio of).
pub fn judge(old: Timed, new: Timed, threshold: f64) -> Option<Change> {
    let old_median = median(old.samples.to_vec())?;
    let new_median = median(new.samples.to_vec())?;
    if old_median <= 0.0 || new_median <= 0.0 {
        return None;
    }
    let ratio = new_median / old_median;
    let (ci_low, ci_high) = bootstrap_ratio_interval(&old.round_slices(), &new.round_slices());
    let p_value = mann_whitney_u(old.samples, new.samples);
    let up = 1.0 + threshold.max(0.0);
    let down = 1.0 / up;
    let significant = p_value < ALPHA && (ci_low > 1.0 || ci_high < 1.0);
    // As criterion decides: a change is called one only where the whole interval lies beyond the
    // threshold, not its middle alone. A median past the threshold whose interval reaches back
    // inside it is a change these samples cannot size: inconclusive, never a failed gate.
    let verdict = if significant && ci_low > up {
        Verdict::Regression
    } else if significant && ci_high < down {
        Verdict::Improvement
    } else if ci_low >= down && ci_high <= up {
        Verdict::NoChange
    } else {
        Verdict::Inconclusive
    };
    let noise = (ci_high - ci_low) / 2.0 / ratio;
    let change = format!("{} (95% CI {} to {}, p{})", signed(ratio), signed(ci_low), signed(ci_high), p(p_value));
    let limit = format!("{:.1}%", threshold * 100.0);
    let reason = match verdict {
        Verdict::Regression => format!("slower by {change}: significant, the interval beyond the {limit} threshold"),
        Verdict::Improvement => format!("faster by {change}: significant, the interval beyond the {limit} threshold"),
        Verdict::NoChange if significant => format!("{change}: a real change, within the {limit} threshold"),
        Verdict::NoChange => format!("{change}: within the {limit} threshold both ways"),
        Verdict::Inconclusive if significant => {
            format!("{change}: significant, but the interval straddles the {limit} threshold")
        }
        Verdict::Inconclusive => format!(
            "{change}: the noise (±{:.1}%) is wider than the {limit} threshold: time more runs or rounds",
            noise * 100.0
        ),
    };
    let rounds = [old.round_slices().len(), new.round_slices().len()];
    Some(Change {
        verdict,
        ratio,
        ci_low,
        ci_high,
        p_value,
        threshold,
        noise,
        test: TEST.to_string(),
        rounds,
        runs: [old.samples.len(), new.samples.len()],
        reason,
    })
}

/// `1.123` as `+12.3%`.
fn signed(ratio: f64) -> String {
    format!("{:+.1}%", (ratio - 1.0) * 100.0)
}

/// A p-value with its relation: `<0.0001`, `=0.0123` (so "p<0.0001", never "p=<0.0001").
fn p(value: f64) -> String {
    if value < 1e-4 {
        "<0.0001".to_string()
    } else {
        format!("={value:.4}")
    }
}

fn median(mut samples: Vec<f64>) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    samples.sort_by(f64::total_cmp);
    Some(super::percentile(&samples, 50.0))
}

/// The two-sided p-value of the Mann-Whitney U test of `a` against `b`: the normal approximation
/// with the tie correction of the variance and the continuity correction (scipy's
/// `mannwhitneyu(a, b, method="asymptotic")`). 1 when either side is empty or every value ties.
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> f64 {
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    if a.is_empty() || b.is_empty() {
        return 1.0;
    }
    let mut all: Vec<(f64, bool)> = a.iter().map(|&x| (x, true)).chain(b.iter().map(|&x| (x, false))).collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    // Average ranks over ties; sum(t^3 - t) over the tie groups for the variance.
    let mut rank_sum_a = 0.0;
    let mut ties = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        let group = (j - i + 1) as f64;
        ties += group.powi(3) - group;
        rank_sum_a += rank * all[i..=j].iter().filter(|(_, in_a)| *in_a).count() as f64;
        i = j + 1;
    }
    let u = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    let n = n1 + n2;
    let variance = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if variance <= 0.0 {
        return 1.0;
    }
    let z = ((u - n1 * n2 / 2.0).abs() - 0.5).max(0.0) / variance.sqrt();
    libm::erfc(z / std::f64::consts::SQRT_2).min(1.0)
}

/// The 2.5th and 97.5th percentiles of new-median / old-median over bootstrap resamples: each
/// resample draws as many rounds as there are, with replacement, and within each drawn round as
/// many runs as it had, with replacement.
fn bootstrap_ratio_interval(old: &[&[f64]], new: &[&[f64]]) -> (f64, f64) {
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut buffer = Vec::new();
    let mut ratios: Vec<f64> = (0..RESAMPLES)
        .filter_map(|_| {
            let old_median = resampled_median(old, &mut rng, &mut buffer)?;
            let new_median = resampled_median(new, &mut rng, &mut buffer)?;
            (old_median > 0.0).then(|| new_median / old_median)
        })
        .collect();
    if ratios.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    ratios.sort_by(f64::total_cmp);
    (super::percentile(&ratios, 2.5), super::percentile(&ratios, 97.5))
}

fn resampled_median(rounds: &[&[f64]], rng: &mut StdRng, buffer: &mut Vec<f64>) -> Option<f64> {
    buffer.clear();
    for _ in 0..rounds.len() {
        let round = rounds[rng.random_range(0..rounds.len())];
        buffer.extend((0..round.len()).map(|_| round[rng.random_range(0..round.len())]));
    }
    if buffer.is_empty() {
        return None;
    }
    let count = buffer.len();
    let (below, at, _) = buffer.select_nth_unstable_by(count / 2, f64::total_cmp);
    let upper = *at;
    Some(match count % 2 {
        1 => upper,
        _ => (below.iter().copied().fold(f64::NEG_INFINITY, f64::max) + upper) / 2.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Latencies around `center` ms with a spread of `spread` (a sum of uniforms: near-normal,
    /// bounded), from a fixed seed.
    fn latencies(seed: u64, count: usize, center: f64, spread: f64) -> Vec<f64> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..count).map(|_| center + spread * ((0..4).map(|_| rng.random::<f64>()).sum::<f64>() - 2.0)).collect()
    }

    fn judged(old: &[f64], old_rounds: &[usize], new: &[f64], new_rounds: &[usize]) -> Change {
        judge(Timed { samples: old, rounds: old_rounds }, Timed { samples: new, rounds: new_rounds }, 0.05).unwrap()
    }

    #[test]
    fn a_p_value_reads_with_its_relation() {
        assert_eq!(format!("p{}", p(0.00001)), "p<0.0001");
        assert_eq!(format!("p{}", p(0.0123)), "p=0.0123");
    }

    #[test]
    fn mann_whitney_matches_scipy_asymptotic() {
        // scipy.stats.mannwhitneyu([1,2,3,4,5], [6,7,8,9,10], method="asymptotic").pvalue
        let p = mann_whitney_u(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]);
        assert!((p - 0.012185).abs() < 1e-5, "{p}");
        // With ties: mannwhitneyu([1,2,2,3,3,3], [2,3,3,4,4,5], method="asymptotic").pvalue
        let p = mann_whitney_u(&[1.0, 2.0, 2.0, 3.0, 3.0, 3.0], &[2.0, 3.0, 3.0, 4.0, 4.0, 5.0]);
        assert!((p - 0.078_403).abs() < 1e-5, "{p}");
        assert_eq!(mann_whitney_u(&[1.0, 1.0], &[1.0, 1.0]), 1.0);
    }

    #[test]
    fn rounds_split_evenly_and_never_empty() {
        assert_eq!(split_rounds(100, 10), vec![10; 10]);
        assert_eq!(split_rounds(7, 3), vec![3, 2, 2]);
        assert_eq!(split_rounds(3, 10), vec![1, 1, 1]);
        assert_eq!(split_rounds(0, 10), Vec::<usize>::new());
    }

    #[test]
    fn equal_distributions_are_no_change() {
        let old = latencies(1, 100, 10.0, 0.3);
        let new = latencies(2, 100, 10.0, 0.3);
        let c = judged(&old, &[10; 10], &new, &[10; 10]);
        assert_eq!(c.verdict, Verdict::NoChange, "{}", c.reason);
        assert!(c.ci_low < 1.0 && c.ci_high > 1.0, "{c:?}");
        assert_eq!((c.rounds, c.runs), ([10, 10], [100, 100]));
    }

    #[test]
    fn a_twenty_percent_slowdown_is_a_regression_and_back_an_improvement() {
        let old = latencies(3, 100, 10.0, 0.5);
        let new = latencies(4, 100, 12.0, 0.6);
        let c = judged(&old, &[10; 10], &new, &[10; 10]);
        assert_eq!(c.verdict, Verdict::Regression, "{}", c.reason);
        assert!(c.p_value < 1e-10 && c.ci_low > 1.15 && c.ci_high < 1.25, "{c:?}");
        assert!(c.reason.starts_with("slower by +"), "{}", c.reason);
        let back = judged(&new, &[10; 10], &old, &[10; 10]);
        assert_eq!(back.verdict, Verdict::Improvement, "{}", back.reason);
    }

    #[test]
    fn a_small_real_change_within_the_threshold_is_no_change() {
        let old = latencies(5, 400, 10.0, 0.2);
        let new = latencies(6, 400, 10.2, 0.2);
        let c = judged(&old, &[40; 10], &new, &[40; 10]);
        assert!(c.p_value < ALPHA, "{c:?}");
        assert_eq!(c.verdict, Verdict::NoChange, "{}", c.reason);
        assert!(c.reason.contains("a real change, within the 5.0% threshold"), "{}", c.reason);
    }

    #[test]
    fn a_median_past_the_threshold_whose_interval_reaches_back_is_inconclusive() {
        // About 7% slower with ±3% noise: real, and likely past 5%, but not surely.
        let old = latencies(15, 60, 10.0, 1.0);
        let new = latencies(16, 60, 10.7, 1.0);
        let c = judged(&old, &[6; 10], &new, &[6; 10]);
        assert!(c.ratio > 1.05 && c.ci_low < 1.05 && c.p_value < ALPHA, "{c:?}");
        assert_eq!(c.verdict, Verdict::Inconclusive, "{}", c.reason);
        assert!(c.reason.contains("straddles the 5.0% threshold"), "{}", c.reason);
    }

    #[test]
    fn heavy_noise_is_inconclusive_even_past_the_threshold() {
        // The medians differ by about 8%, inside noise of ±40%.
        let old = latencies(7, 20, 10.0, 4.0);
        let new = latencies(8, 20, 10.8, 4.0);
        let c = judged(&old, &[2; 10], &new, &[2; 10]);
        assert_eq!(c.verdict, Verdict::Inconclusive, "{}", c.reason);
        assert!(c.noise > 0.05 && c.reason.contains("is wider than the 5.0% threshold"), "{}", c.reason);
    }

    #[test]
    fn a_bimodal_slow_spell_is_inconclusive_not_a_regression() {
        // Four of the new side's ten rounds ran while the machine was busy (30% slower): the
        // median sits at the edge of the fast runs, and resampling the rounds shows how far it
        // could as well have moved.
        let old = latencies(9, 100, 10.0, 0.2);
        let mut new = latencies(10, 100, 10.0, 0.2);
        for x in &mut new[60..] {
            *x *= 1.3;
        }
        let c = judged(&old, &[10; 10], &new, &[10; 10]);
        assert_eq!(c.verdict, Verdict::Inconclusive, "{}", c.reason);
        assert!(c.ci_high > 1.2 && c.ratio < 1.05, "{c:?}");
    }

    #[test]
    fn drift_between_rounds_widens_the_interval() {
        // Each round runs at its own pace (a shared machine): pooled as one round the runs give
        // an interval as narrow as the runs' own noise; resampled by round, one as wide as the drift.
        let paces = [1.0, 1.06, 0.95, 1.03, 0.97, 1.08, 0.94, 1.02, 0.99, 1.05];
        let paced = |seed| {
            let mut runs = latencies(seed, 100, 10.0, 0.1);
            for (i, x) in runs.iter_mut().enumerate() {
                *x *= paces[(i / 10 + seed as usize) % 10];
            }
            runs
        };
        let (old, new) = (paced(13), paced(14));
        let pooled = judged(&old, &[], &new, &[]);
        let by_round = judged(&old, &[10; 10], &new, &[10; 10]);
        assert!(
            by_round.ci_high - by_round.ci_low > 2.0 * (pooled.ci_high - pooled.ci_low),
            "by round {by_round:?}, pooled {pooled:?}"
        );
    }

    #[test]
    fn the_same_samples_always_give_the_same_interval() {
        let old = latencies(11, 50, 5.0, 0.4);
        let new = latencies(12, 50, 5.1, 0.4);
        assert_eq!(judged(&old, &[5; 10], &new, &[5; 10]), judged(&old, &[5; 10], &new, &[5; 10]));
    }

    #[test]
    fn nothing_to_compare_is_no_verdict() {
        let t = |s: &'static [f64]| Timed { samples: s, rounds: &[] };
        assert!(judge(t(&[]), t(&[1.0]), 0.05).is_none());
        assert!(judge(t(&[0.0, 0.0]), t(&[1.0]), 0.05).is_none());
    }
}
