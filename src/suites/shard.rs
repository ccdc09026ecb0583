//! `--shard K/N`: one of N deterministic parts of a batch (test cases, bench models), so a CI
//! matrix or a job array can split the work and `dmlrun merge` put it back together.
//!
//! Two modes, as `cargo nextest --partition` has them: `count` (the default) deals the items,
//! in the batch's own order, round-robin (balanced, but an item added to the batch moves the
//! ones after it to other shards); `hash` puts each item by a hash of its name (an item keeps its
//! shard whatever else is added, the shards less even).

use serde::{Deserialize, Serialize};

/// How items are dealt to shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShardMode {
    Count,
    Hash,
}

/// Shard `index` (1-based) of `total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub total: usize,
    pub mode: ShardMode,
}

/// What a sharded report records: which shard, and how many items the whole batch had.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    #[serde(flatten)]
    pub shard: Shard,
    /// Items in the whole batch, before sharding.
    pub of_items: usize,
    /// With `--shard auto`: the variables it was read from.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub from: Option<String>,
}

/// `--shard`: a part given by hand, or `auto`, the part this CI job is, read from its variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardRequest {
    Given(Shard),
    Auto,
}

impl ShardRequest {
    pub fn parse(text: &str) -> Result<ShardRequest, String> {
        match text.trim() {
            "auto" => Ok(ShardRequest::Auto),
            _ => Shard::parse(text).map(ShardRequest::Given),
        }
    }
}

/// The CI systems whose parallel jobs say which part they are, by an index and a count: name,
/// index variable, count variable, and the first index (0 or 1).
const PARALLEL_JOBS: &[(&str, &str, &str, usize)] = &[
    ("GitLab", "CI_NODE_INDEX", "CI_NODE_TOTAL", 1),
    ("Buildkite", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0),
    ("CircleCI", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0),
    ("Azure Pipelines", "SYSTEM_JOBPOSITIONINPHASE", "SYSTEM_TOTALJOBSINPHASE", 1),
];

/// The shard this CI job is (count mode, as `--shard K/N`), and the variables that said so:
/// `DMLRUN_SHARD=K/N` (any system, GitHub's matrix included; `hash:K/N` too), else GitLab's,
/// Buildkite's, CircleCI's or Azure Pipelines' parallel jobs, else a SLURM job array (whose task
/// ids may start anywhere and step). `variable` reads one; none set is an error that names them
/// all, never a run of everything.
pub fn from_ci(variable: impl Fn(&str) -> Option<String>) -> Result<(Shard, String), String> {
    let var = |name: &str| variable(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    let number = |name: &str, value: &str| {
        value.parse::<usize>().map_err(|_| format!("--shard auto: {name}={value} is not a whole number"))
    };
    if let Some(value) = var("DMLRUN_SHARD") {
        let shard = Shard::parse(&value).map_err(|e| format!("--shard auto: DMLRUN_SHARD: {e}"))?;
        return Ok((shard, format!("DMLRUN_SHARD={value}")));
    }
    for &(system, index_name, total_name, first) in PARALLEL_JOBS {
        // The index marks a parallel job: GitLab sets CI_NODE_TOTAL=1 on every job.
        let Some(index) = var(index_name) else { continue };
        let total = var(total_name)
            .ok_or_else(|| format!("--shard auto: {index_name} is set but {total_name} is not ({system})"))?;
        let (i, n) = (number(index_name, &index)?, number(total_name, &total)?);
        if i < first || i - first >= n {
            return Err(format!(
                "--shard auto: {index_name}={index} is not a job of {total_name}={total} ({system} counts from {first})"
            ));
        }
        let shard = Shard { index: i - first + 1, total: n, mode: ShardMode::Count };
        return Ok((shard, format!("{index_name}={index}, {total_name}={total} ({system})")));
    }
    if let Some(id) = var("SLURM_ARRAY_TASK_ID") {
        let read = |name: &str| {
            var(name)
                .ok_or_else(|| format!("--shard auto: SLURM_ARRAY_TASK_ID is set but {name} is not"))
                .and_then(|v| number(name, &v))
        };
        let (id, min, max, count) = (
            number("SLURM_ARRAY_TASK_ID", &id)?,
            read("SLURM_ARRAY_TASK_MIN")?,
            read("SLURM_ARRAY_TASK_MAX")?,
            read("SLURM_ARRAY_TASK_COUNT")?,
        );
        let step = match var("SLURM_ARRAY_TASK_STEP") {
            Some(step) => number("SLURM_ARRAY_TASK_STEP", &step)?,
            None if count > 1 && (max - min) % (count - 1) == 0 => (max - min) / (count - 1),
            None if count == 1 => 1,
            None => {
                return Err(format!(
                    "--shard auto: SLURM array {min}-{max} of {count} tasks is not evenly stepped; set DMLRUN_SHARD=K/N"
                ))
            }
        };
        if count == 0 || step == 0 || id < min || id > max || (id - min) % step != 0 {
            return Err(format!(
                "--shard auto: SLURM_ARRAY_TASK_ID={id} is not a task of the array {min}-{max}:{step} ({count} tasks)"
            ));
        }
        let shard = Shard { index: (id - min) / step + 1, total: count, mode: ShardMode::Count };
        return Ok((shard, format!("SLURM_ARRAY_TASK_ID={id} of {min}-{max}:{step} (SLURM_ARRAY_TASK_COUNT={count})")));
    }
    let looked: Vec<String> = PARALLEL_JOBS.iter().map(|(s, i, n, _)| format!("{i}/{n} ({s})")).collect();
    Err(format!(
        "--shard auto: no variable says which part this job is; looked for DMLRUN_SHARD, {}, SLURM_ARRAY_TASK_ID (SLURM); give --shard K/N or set DMLRUN_SHARD=K/N",
        looked.join(", ")
    ))
}

impl Shard {
    /// `K/N`, `count:K/N` or `hash:K/N`, with 1 <= K <= N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (mode, rest) = match text.split_once(':') {
            Some(("count", rest)) => (ShardMode::Count, rest),
            Some(("hash", rest)) => (ShardMode::Hash, rest),
            Some((other, _)) => return Err(format!("'{other}' is not a shard mode: count:K/N or hash:K/N")),
            None => (ShardMode::Count, text),
        };
        let (k, n) = rest.split_once('/').ok_or_else(|| format!("'{text}' is not K/N (for example 2/4)"))?;
        let number =
            |s: &str| s.trim().parse::<usize>().map_err(|_| format!("'{s}' in '{text}' is not a whole number"));
        let (index, total) = (number(k)?, number(n)?);
        if total == 0 || index == 0 || index > total {
            return Err(format!("'{text}': shards are numbered 1 to N, and N is at least 1"));
        }
        Ok(Shard { index, total, mode })
    }

    /// The items of this shard, in their order; `name` names an item stably across machines.
    pub fn select<T>(&self, items: Vec<T>, name: impl Fn(&T) -> &str) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(i, item)| {
                let slot = match self.mode {
                    ShardMode::Count => *i,
                    ShardMode::Hash => (fnv1a(name(item).as_bytes()) % self.total as u64) as usize,
                };
                slot % self.total == self.index - 1
            })
            .map(|(_, item)| item)
            .collect()
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.mode {
            ShardMode::Count => write!(f, "{}/{}", self.index, self.total),
            ShardMode::Hash => write!(f, "hash:{}/{}", self.index, self.total),
        }
    }
}

/// FNV-1a, 64 bits: the same number for the same name on every machine and every build, which
/// Rust's own hashers do not promise.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, String)]) -> impl Fn(&str) -> Option<String> + 'a {
        |name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn every_ci_system_maps_its_jobs_to_the_shards_k_of_n() {
        let total = 4;
        for k in 1..=total {
            let given = Shard { index: k, total, mode: ShardMode::Count };
            let jobs: Vec<Vec<(&str, String)>> = vec![
                vec![("CI_NODE_INDEX", k.to_string()), ("CI_NODE_TOTAL", total.to_string())],
                vec![
                    ("BUILDKITE_PARALLEL_JOB", (k - 1).to_string()),
                    ("BUILDKITE_PARALLEL_JOB_COUNT", total.to_string()),
                ],
                vec![("CIRCLE_NODE_INDEX", (k - 1).to_string()), ("CIRCLE_NODE_TOTAL", total.to_string())],
                vec![("SYSTEM_JOBPOSITIONINPHASE", k.to_string()), ("SYSTEM_TOTALJOBSINPHASE", total.to_string())],
                vec![("DMLRUN_SHARD", format!("{k}/{total}"))],
                // A SLURM array 10-16:2 (tasks 10, 12, 14, 16), with and without the step said.
                vec![
                    ("SLURM_ARRAY_TASK_ID", (10 + 2 * (k - 1)).to_string()),
                    ("SLURM_ARRAY_TASK_MIN", "10".into()),
                    ("SLURM_ARRAY_TASK_MAX", "16".into()),
                    ("SLURM_ARRAY_TASK_COUNT", "4".into()),
                ],
                vec![
                    ("SLURM_ARRAY_TASK_ID", (10 + 2 * (k - 1)).to_string()),
                    ("SLURM_ARRAY_TASK_MIN", "10".into()),
                    ("SLURM_ARRAY_TASK_MAX", "16".into()),
                    ("SLURM_ARRAY_TASK_COUNT", "4".into()),
                    ("SLURM_ARRAY_TASK_STEP", "2".into()),
                ],
            ];
            for job in &jobs {
                let (shard, from) = from_ci(env(job)).unwrap();
                assert_eq!(shard, given, "{job:?}");
                assert!(from.contains(job[0].0), "{from}");
            }
        }
        // The union of the jobs' shards is every item exactly once.
        let items: Vec<String> = (0..11).map(|i| format!("case{i}")).collect();
        let mut seen: Vec<String> = (0..total)
            .flat_map(|k| {
                let job = [("CIRCLE_NODE_INDEX", k.to_string()), ("CIRCLE_NODE_TOTAL", total.to_string())];
                from_ci(env(&job)).unwrap().0.select(items.clone(), |s| s)
            })
            .collect();
        seen.sort();
        let mut all = items.clone();
        all.sort();
        assert_eq!(seen, all);
    }

    #[test]
    fn shard_auto_refuses_to_guess() {
        let none = from_ci(env(&[])).unwrap_err();
        for name in
            ["DMLRUN_SHARD", "CI_NODE_INDEX", "BUILDKITE_PARALLEL_JOB", "CIRCLE_NODE_INDEX", "SLURM_ARRAY_TASK_ID"]
        {
            assert!(none.contains(name), "{none}");
        }
        // GitLab's CI_NODE_TOTAL=1 on a job without `parallel:` is no shard.
        assert!(from_ci(env(&[("CI_NODE_TOTAL", "1".into())])).is_err());
        let half = from_ci(env(&[("CIRCLE_NODE_INDEX", "1".into())])).unwrap_err();
        assert!(half.contains("CIRCLE_NODE_TOTAL is not"), "{half}");
        let outside = from_ci(env(&[("CI_NODE_INDEX", "0".into()), ("CI_NODE_TOTAL", "3".into())])).unwrap_err();
        assert!(outside.contains("counts from 1"), "{outside}");
        let uneven = [
            ("SLURM_ARRAY_TASK_ID", "3".to_string()),
            ("SLURM_ARRAY_TASK_MIN", "1".into()),
            ("SLURM_ARRAY_TASK_MAX", "8".into()),
            ("SLURM_ARRAY_TASK_COUNT", "3".into()),
        ];
        assert!(from_ci(env(&uneven)).unwrap_err().contains("DMLRUN_SHARD"));
        assert_eq!(ShardRequest::parse("auto"), Ok(ShardRequest::Auto));
        assert_eq!(
            ShardRequest::parse("hash:2/3"),
            Ok(ShardRequest::Given(Shard { index: 2, total: 3, mode: ShardMode::Hash }))
        );
    }

    #[test]
    fn shards_parse_and_bad_ones_say_why() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, total: 4, mode: ShardMode::Count }));
        assert_eq!(Shard::parse("hash:1/3"), Ok(Shard { index: 1, total: 3, mode: ShardMode::Hash }));
        assert!(Shard::parse("0/4").unwrap_err().contains("numbered 1 to N"));
        assert!(Shard::parse("5/4").unwrap_err().contains("numbered 1 to N"));
        assert!(Shard::parse("1/0").is_err());
        assert!(Shard::parse("2").unwrap_err().contains("K/N"));
        assert!(Shard::parse("slice:1/2").unwrap_err().contains("not a shard mode"));
    }

    #[test]
    fn the_shards_of_a_batch_cover_every_item_exactly_once_in_both_modes() {
        let items: Vec<String> = (0..1914).map(|i| format!("node/test_case_{i}")).collect();
        for mode in [ShardMode::Count, ShardMode::Hash] {
            for total in [1, 2, 3, 4, 7] {
                let mut seen: Vec<String> = Vec::new();
                for index in 1..=total {
                    let shard = Shard { index, total, mode };
                    let part = shard.select(items.clone(), String::as_str);
                    if mode == ShardMode::Count {
                        // Balanced: sizes differ by at most one.
                        assert!(part.len().abs_diff(items.len() / total) <= 1, "{shard}: {}", part.len());
                    }
                    seen.extend(part);
                }
                seen.sort();
                let mut all = items.clone();
                all.sort();
                assert_eq!(seen, all, "{mode:?} {total}");
            }
        }
    }

    #[test]
    fn hash_mode_keeps_an_item_in_its_shard_when_others_are_added() {
        let shard = |items: &[&str]| -> Vec<usize> {
            let target = "models/resnet50.onnx";
            (1..=4)
                .filter(|&index| {
                    Shard { index, total: 4, mode: ShardMode::Hash }.select(items.to_vec(), |s| s).contains(&target)
                })
                .collect()
        };
        let before = shard(&["a.onnx", "models/resnet50.onnx"]);
        let after = shard(&["0.onnx", "a.onnx", "b.onnx", "models/resnet50.onnx", "z.onnx"]);
        assert_eq!(before.len(), 1);
        assert_eq!(before, after);
    }
}
