//! Latency statistics: pure functions over samples in milliseconds. `change` judges whether
//! one set of samples is slower than another.

pub mod change;

use serde::{Deserialize, Serialize};

/// Summary of a set of latency samples (milliseconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    pub count: usize,
    pub min: f64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
    /// Sample standard deviation (n - 1).
    pub stddev: f64,
    /// Coefficient of variation: stddev / mean.
    pub cov: f64,
    /// Runs per second: count / total time.
    pub throughput_per_s: f64,
}

/// Latencies (ms) written to a tenth of a microsecond, a resolution no timer here has below it,
/// so every timed run a report keeps costs a few bytes rather than seventeen digits.
pub fn tenth_microseconds<S: serde::Serializer>(samples_ms: &[f64], serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = serializer.serialize_seq(Some(samples_ms.len()))?;
    for ms in samples_ms {
        seq.serialize_element(&((ms * 1e4).round() / 1e4))?;
    }
    seq.end()
}

/// Percentile with linear interpolation between closest ranks (numpy's default, `linear`).
/// `sorted` must be ascending and non-empty; `q` in [0, 100].
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    if n == 1 {
        return sorted[0];
    }
    let rank = q.clamp(0.0, 100.0) / 100.0 * (n - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = rank.ceil() as usize;
    let frac = rank - lo as f64;
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

/// Summarises samples; `None` when there are none.
pub fn summarize(samples_ms: &[f64]) -> Option<LatencyStats> {
    if samples_ms.is_empty() {
        return None;
    }
    let mut sorted = samples_ms.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let total: f64 = sorted.iter().sum();
    let mean = total / n as f64;
    let variance = if n > 1 { sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
    let stddev = variance.sqrt();
    Some(LatencyStats {
        count: n,
        min: sorted[0],
        mean,
        p50: percentile(&sorted, 50.0),
        p90: percentile(&sorted, 90.0),
        p95: percentile(&sorted, 95.0),
        p99: percentile(&sorted, 99.0),
        max: sorted[n - 1],
        stddev,
        cov: if mean > 0.0 { stddev / mean } else { 0.0 },
        throughput_per_s: if total > 0.0 { n as f64 * 1000.0 / total } else { 0.0 },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate_like_numpy() {
        let s = [1.0, 2.0, 3.0, 4.0];
        // numpy.percentile([1,2,3,4], [50, 90, 95, 99]) = 2.5, 3.7, 3.85, 3.97
        assert_eq!(percentile(&s, 50.0), 2.5);
        assert!((percentile(&s, 90.0) - 3.7).abs() < 1e-12);
        assert!((percentile(&s, 95.0) - 3.85).abs() < 1e-12);
        assert!((percentile(&s, 99.0) - 3.97).abs() < 1e-12);
        assert_eq!(percentile(&s, 0.0), 1.0);
        assert_eq!(percentile(&s, 100.0), 4.0);
    }

    #[test]
    fn summary_matches_hand_computed_values() {
        // mean 5, sample variance ((9+1+1+9)/3) = 20/3.
        let st = summarize(&[2.0, 4.0, 6.0, 8.0]).unwrap();
        assert_eq!((st.count, st.min, st.max, st.mean, st.p50), (4, 2.0, 8.0, 5.0, 5.0));
        assert!((st.stddev - (20.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert!((st.cov - (20.0f64 / 3.0).sqrt() / 5.0).abs() < 1e-12);
        // 4 runs in 20 ms = 200 per second.
        assert!((st.throughput_per_s - 200.0).abs() < 1e-9);
    }

    #[test]
    fn single_sample_and_empty() {
        let st = summarize(&[3.0]).unwrap();
        assert_eq!((st.p99, st.stddev), (3.0, 0.0));
        assert!(summarize(&[]).is_none());
    }
}
