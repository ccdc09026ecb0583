//! A measured model's figures as the table cells every format of bench's report shows, formatted
//! once: the Markdown table and the HTML page read the same cells.

use super::ModelBench;

/// The latency cells of the models' table, in milliseconds to 3 places, rates and session
/// creation to 1, the coefficient of variation in percent.
pub struct Cells {
    pub p50: String,
    pub mean: String,
    pub p90: String,
    pub p99: String,
    pub stddev: String,
    pub cov: String,
    pub per_s: String,
    pub session: String,
    pub first_run: String,
}

impl Cells {
    pub fn of(m: &ModelBench) -> Cells {
        let s = &m.latency_ms;
        Cells {
            p50: ms(s.p50),
            mean: ms(s.mean),
            p90: ms(s.p90),
            p99: ms(s.p99),
            stddev: ms(s.stddev),
            cov: format!("{:.1}%", s.cov * 100.0),
            per_s: format!("{:.1}", s.throughput_per_s),
            session: format!("{:.1}", m.session_create_ms),
            first_run: ms(m.first_run_ms),
        }
    }

    /// A sweep's row after its value and status: session ms, first run ms, p50 ms, p99 ms.
    pub fn sweep(m: &ModelBench) -> [String; 4] {
        let cells = Cells::of(m);
        [cells.session, cells.first_run, cells.p50, cells.p99]
    }
}

/// A model's row against the baseline after its name: baseline p50 ms, p50 ms, their ratio, the
/// ratio's 95% confidence interval, the test's p-value (`-` where there is none).
pub fn against_baseline(r: &super::baseline::BaselineRow) -> [String; 5] {
    let c = r.change.as_ref();
    let or_dash = |v: Option<f64>| v.map_or("-".into(), ms);
    [
        or_dash(r.baseline_p50_ms),
        or_dash(r.p50_ms),
        or_dash(r.ratio),
        c.map_or("-".into(), |c| format!("{:.3} to {:.3}", c.ci_low, c.ci_high)),
        c.map_or("-".into(), |c| format!("{:.4}", c.p_value)),
    ]
}

/// Milliseconds as the tables show them.
pub fn ms(v: f64) -> String {
    format!("{v:.3}")
}
