//! A bench report judged against a baseline: an earlier report's runs as stored (`--baseline`),
//! or old models timed in this session (`--baseline-model`), each verdict from both sample sets
//! (`stats::change`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{BenchReport, FailedModel, ModelBench, ModelStatus};

/// Each model judged against a baseline: an earlier report's runs, or a baseline model timed in
/// this session (`--baseline-model`).
#[derive(Debug, Clone, Serialize)]
pub struct BaselineComparison {
    /// What the models were judged against: the report's path, or the baseline models.
    pub against: String,
    /// `file` (an earlier --json report) or `same session` (--baseline-model, alternating rounds).
    pub source: BaselineSource,
    pub max_regression: f64,
    /// The test behind every verdict.
    pub test: String,
    pub models: Vec<BaselineRow>,
    pub regressions: usize,
    pub improvements: usize,
    pub inconclusive: usize,
    /// What the reader must know of the baseline as a whole (an interrupted report, say).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BaselineSource {
    File,
    #[serde(rename = "same session")]
    SameSession,
}

#[derive(Debug, Clone, Serialize)]
pub struct BaselineRow {
    pub name: String,
    pub status: ModelStatus,
    /// Generation tokens/s (a generate entry, judged on its decode steps) now and in the baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_tokens_per_s: Option<f64>,
    pub baseline_p50_ms: Option<f64>,
    /// Absent for a model that failed this time.
    pub p50_ms: Option<f64>,
    /// New median over old (decode steps for a generate entry): above 1 is slower.
    pub ratio: Option<f64>,
    /// The verdict and its figures; absent where there is nothing to judge (a model new, failed,
    /// or whose baseline has no runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<crate::stats::change::Change>,
    pub verdict: Option<crate::stats::change::Verdict>,
    pub regression: bool,
    /// How this run differs from the baseline's beyond the model's speed: the model file, the
    /// device, ONNX Runtime, dmlrun, the timing flags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub differences: Vec<String>,
    /// Why there is no verdict, or what it rests on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl BaselineRow {
    /// A model that failed this time: listed with its status and no figure of its own; it fails
    /// the run as a failure (exit 1), not as a regression.
    fn failed(f: &FailedModel, baseline_p50_ms: Option<f64>) -> BaselineRow {
        BaselineRow {
            name: f.name.clone(),
            status: f.status,
            tokens_per_s: None,
            baseline_tokens_per_s: None,
            baseline_p50_ms,
            p50_ms: None,
            ratio: None,
            change: None,
            verdict: None,
            regression: false,
            differences: Vec::new(),
            note: None,
        }
    }

    /// The verdict column: the word, or why there is none.
    pub fn verdict_word(&self) -> String {
        match (self.status, self.verdict) {
            (status, _) if status != ModelStatus::Ok && status != ModelStatus::Interrupted => {
                format!("{} this time", status.word())
            }
            (_, Some(v)) => v.word().to_string(),
            (_, None) => self.note.clone().unwrap_or_else(|| "not judged".to_string()),
        }
    }
}

/// What an earlier JSON report must hold for `--baseline`.
#[derive(Debug, Clone, Deserialize)]
pub struct StoredReport {
    pub schema: String,
    pub models: Vec<StoredModel>,
    #[serde(default)]
    pub interrupted: bool,
    #[serde(default)]
    pub failed: Vec<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct StoredModel {
    pub name: String,
    #[serde(default = "ok_status")]
    pub status: ModelStatus,
    pub latency_ms: StoredLatency,
    #[serde(default)]
    pub samples_ms: Vec<f64>,
    #[serde(default)]
    pub rounds: Vec<usize>,
    #[serde(default)]
    pub fingerprint: Fingerprint,
    #[serde(default)]
    pub generation: Option<StoredGeneration>,
}

fn ok_status() -> ModelStatus {
    ModelStatus::Ok
}

#[derive(Debug, Clone, Deserialize)]
pub struct StoredGeneration {
    pub generation_tokens_per_s: f64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct StoredLatency {
    pub p50: f64,
}

/// What a timing depends on besides the model's speed, as `name: value`: the model file's
/// hash, the execution provider and adapter, the CPU, ONNX Runtime and dmlrun, the session's
/// options and the timing flags. A verdict against another run says each that differs.
pub type Fingerprint = std::collections::BTreeMap<String, String>;

/// `name: old -> new` for each entry of the fingerprints that differs (one missing from an
/// older report is not a difference: it was not recorded).
pub fn fingerprint_differences(old: &Fingerprint, new: &Fingerprint) -> Vec<String> {
    new.iter()
        .filter_map(|(key, now)| {
            let then = old.get(key)?;
            (then != now).then(|| match key.as_str() {
                "model sha256" => format!("model file {then} -> {now} (another version of the model)"),
                _ => format!("{key} {then} -> {now}"),
            })
        })
        .collect()
}

fn row(m: &ModelBench, old: Option<crate::stats::change::Timed>, max_regression: f64) -> BaselineRow {
    use crate::stats::change::{judge, Timed, Verdict};
    let change = old.and_then(|old| judge(old, Timed { samples: &m.samples_ms, rounds: &m.rounds }, max_regression));
    let verdict = change.as_ref().map(|c| c.verdict);
    BaselineRow {
        name: m.name.clone(),
        status: m.status,
        tokens_per_s: m.generation.as_ref().map(|g| g.generation_tokens_per_s),
        baseline_tokens_per_s: None,
        baseline_p50_ms: old.and_then(|o| crate::stats::summarize(o.samples)).map(|s| s.p50),
        p50_ms: Some(m.latency_ms.p50),
        ratio: change.as_ref().map(|c| c.ratio),
        regression: verdict == Some(Verdict::Regression),
        verdict,
        change,
        differences: Vec::new(),
        note: (m.status == ModelStatus::Interrupted)
            .then(|| format!("interrupted this time: judged on the {} runs made", m.samples_ms.len())),
    }
}

/// Judges each model against an earlier report's runs of the model of the same name.
pub fn compare_with_baseline(
    report: &BenchReport,
    baseline: &StoredReport,
    file: PathBuf,
    max_regression: f64,
) -> BaselineComparison {
    use crate::stats::change::Timed;
    let stored = |name: &str| baseline.models.iter().find(|b| b.name == name);
    let mut models: Vec<BaselineRow> = report
        .models
        .iter()
        .map(|m| {
            let Some(old) = stored(&m.name) else {
                return BaselineRow { note: Some("not in the baseline".to_string()), ..row(m, None, max_regression) };
            };
            let timed = Timed { samples: &old.samples_ms, rounds: &old.rounds };
            let mut r = row(m, (!old.samples_ms.is_empty()).then_some(timed), max_regression);
            r.baseline_p50_ms = Some(old.latency_ms.p50);
            r.baseline_tokens_per_s = old.generation.as_ref().map(|g| g.generation_tokens_per_s);
            r.differences = fingerprint_differences(&old.fingerprint, &m.fingerprint);
            if r.verdict == Some(crate::stats::change::Verdict::Inconclusive) {
                r.note = Some(
                    "a report recorded at another time carries that time's load: --baseline-model times old and new together"
                        .to_string(),
                );
            }
            if old.samples_ms.is_empty() {
                r.note = Some("the baseline kept no runs of it to test against: record it again".to_string());
            } else if old.status == ModelStatus::Interrupted {
                let said = format!("the baseline's run of it was interrupted: judged on its {} runs", old.samples_ms.len());
                r.note = Some(r.note.map_or(said.clone(), |n| format!("{n}; {said}")));
            }
            r
        })
        .collect();
    // A model that fails now has no figure to compare; it is listed, and fails the run as a
    // failure (exit 1), not as a regression.
    models.extend(report.failed.iter().map(|f| BaselineRow::failed(f, stored(&f.name).map(|b| b.latency_ms.p50))));
    let mut notes = Vec::new();
    if baseline.interrupted {
        notes.push(format!(
            "the baseline report was interrupted (Ctrl-C after {} of its models): a model it did not reach is 'not in the baseline'",
            baseline.models.len() + baseline.failed.len()
        ));
    }
    tally(file.display().to_string(), BaselineSource::File, max_regression, models, notes)
}

/// Judges each model against the baseline model timed beside it in this session.
pub fn compare_with_paired(report: &BenchReport, max_regression: f64) -> BaselineComparison {
    use crate::stats::change::Timed;
    let mut models: Vec<BaselineRow> = report
        .models
        .iter()
        .map(|m| match &m.baseline_model {
            Some(old) => {
                let timed = Timed { samples: &old.samples_ms, rounds: &old.rounds };
                let mut r = row(m, Some(timed), max_regression);
                let said = format!("against {} in alternating rounds", old.model.display());
                r.note = Some(r.note.map_or(said.clone(), |n| format!("{n}; {said}")));
                r
            }
            None => BaselineRow { note: Some("no baseline model".to_string()), ..row(m, None, max_regression) },
        })
        .collect();
    models.extend(report.failed.iter().map(|f| BaselineRow::failed(f, None)));
    let against = "the --baseline-model models, timed in this session".to_string();
    tally(against, BaselineSource::SameSession, max_regression, models, Vec::new())
}

/// The comparison of `models` against what `against` names, with its verdicts counted.
fn tally(
    against: String,
    source: BaselineSource,
    max_regression: f64,
    models: Vec<BaselineRow>,
    notes: Vec<String>,
) -> BaselineComparison {
    use crate::stats::change::Verdict;
    let count = |v: Verdict| models.iter().filter(|r| r.verdict == Some(v)).count();
    BaselineComparison {
        against,
        source,
        max_regression,
        test: crate::stats::change::TEST.to_string(),
        regressions: count(Verdict::Regression),
        improvements: count(Verdict::Improvement),
        inconclusive: count(Verdict::Inconclusive),
        models,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample_report;
    use super::super::BENCH_SCHEMA;
    use super::*;
    use crate::stats::change::Verdict;

    /// 100 runs around `center` ms in 10 rounds, the same shape whatever the centre.
    fn runs(center: f64) -> Vec<f64> {
        (0..100).map(|i| center * (1.0 + 0.01 * ((i * 37 % 11) as f64 - 5.0) / 5.0)).collect()
    }

    fn stored(name: &str, samples: Vec<f64>, fingerprint: Fingerprint) -> StoredReport {
        StoredReport {
            schema: BENCH_SCHEMA.into(),
            models: vec![StoredModel {
                name: name.to_string(),
                status: ModelStatus::Ok,
                latency_ms: StoredLatency { p50: crate::stats::summarize(&samples).unwrap().p50 },
                rounds: vec![10; 10],
                samples_ms: samples,
                fingerprint,
                generation: None,
            }],
            interrupted: false,
            failed: vec![],
        }
    }

    #[test]
    fn baseline_verdicts_come_from_the_runs_of_both() {
        let mut report = sample_report();
        report.models[0].samples_ms = runs(2.5);
        report.models[0].rounds = vec![10; 10];
        report.models[0].latency_ms = crate::stats::summarize(&report.models[0].samples_ms).unwrap();
        let name = report.models[0].name.clone();
        let judged = |old: f64| {
            compare_with_baseline(&report, &stored(&name, runs(old), Fingerprint::new()), "b.json".into(), 0.05)
        };
        let slower = judged(2.0);
        let r = &slower.models[0];
        assert_eq!((slower.regressions, r.verdict, r.regression), (1, Some(Verdict::Regression), true));
        assert!((r.ratio.unwrap() - 1.25).abs() < 1e-9, "{r:?}");
        assert_eq!(r.change.as_ref().unwrap().test, crate::stats::change::TEST);
        let same = judged(2.5);
        assert_eq!((same.regressions, same.models[0].verdict), (0, Some(Verdict::NoChange)));
        let faster = judged(3.0);
        assert_eq!((faster.improvements, faster.models[0].verdict), (1, Some(Verdict::Improvement)));
        let missing = compare_with_baseline(
            &report,
            &StoredReport { schema: BENCH_SCHEMA.into(), models: vec![], interrupted: false, failed: vec![] },
            "b".into(),
            0.05,
        );
        assert_eq!((missing.regressions, missing.models[0].ratio), (0, None));
        assert_eq!(missing.models[0].verdict_word(), "not in the baseline");
        // The failed model is listed with its status and no figure, and is no regression.
        let failed = &slower.models[1];
        assert_eq!(
            (failed.name.as_str(), failed.status, failed.p50_ms, failed.regression),
            ("broken", ModelStatus::Failed, None, false)
        );
        assert_eq!(failed.verdict_word(), "failed this time");
    }

    #[test]
    fn a_baseline_says_how_it_differs_and_what_it_was() {
        let mut report = sample_report();
        report.models[0].samples_ms = runs(2.0);
        report.models[0].fingerprint =
            Fingerprint::from([("model sha256".into(), "bbbb".into()), ("onnxruntime".into(), "1.31.1".into())]);
        let name = report.models[0].name.clone();
        let old = Fingerprint::from([
            ("model sha256".into(), "aaaa".into()),
            ("onnxruntime".into(), "1.31.1".into()),
            ("only then".into(), "x".into()),
        ]);
        let mut baseline = stored(&name, runs(2.0), old);
        baseline.interrupted = true;
        baseline.models[0].status = ModelStatus::Interrupted;
        let b = compare_with_baseline(&report, &baseline, "b.json".into(), 0.05);
        assert_eq!(b.models[0].differences, vec!["model file aaaa -> bbbb (another version of the model)"]);
        assert!(b.notes[0].starts_with("the baseline report was interrupted"), "{:?}", b.notes);
        assert!(
            b.models[0].note.as_ref().unwrap().contains("the baseline's run of it was interrupted"),
            "{:?}",
            b.models[0]
        );
        // A baseline without runs (nothing to test) is said, not judged.
        baseline.models[0].samples_ms.clear();
        let b = compare_with_baseline(&report, &baseline, "b.json".into(), 0.05);
        assert_eq!(b.models[0].verdict, None);
        assert!(b.models[0].verdict_word().contains("kept no runs"), "{}", b.models[0].verdict_word());
    }

    #[test]
    fn paired_baselines_are_judged_in_the_same_session() {
        let mut report = sample_report();
        report.models[0].samples_ms = runs(2.4);
        report.models[0].rounds = vec![10; 10];
        report.models[0].baseline_model = Some(crate::runtime::engine::PairedRuns {
            model: "old.onnx".into(),
            device: report.models[0].device.clone(),
            first_run_ms: 1.0,
            samples_ms: runs(2.0),
            rounds: vec![10; 10],
        });
        let b = compare_with_paired(&report, 0.05);
        assert_eq!(
            (b.source, b.regressions, b.models[0].verdict),
            (BaselineSource::SameSession, 1, Some(Verdict::Regression))
        );
        assert!(b.models[0].note.as_ref().unwrap().contains("old.onnx in alternating rounds"));
    }
}
