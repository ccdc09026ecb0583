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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    #[serde(flatten)]
    pub shard: Shard,
    /// Items in the whole batch, before sharding.
    pub of_items: usize,
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
