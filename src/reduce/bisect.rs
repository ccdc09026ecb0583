//! The search `dmlrun reduce` makes over a model's nodes in topological order, as a pure
//! function of a check that says whether a contiguous run of nodes still fails.
//!
//! First the end: the shortest prefix `0..=j` that fails, by bisection (a prefix that fails
//! stays failing as it grows, for a failure that one node causes); node `j` is the node whose
//! arrival makes it fail. Then the start: the single node `j..=j` first (most failures are one
//! node's), else the latest `i` for which `i..=j` fails, by bisection. Every range the search
//! returns was checked to fail, whatever the failure's shape: where monotony does not hold the
//! result is smaller than the model but perhaps not the smallest.

use std::ops::RangeInclusive;

use anyhow::Result;

/// What a check says of a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The failure reproduces.
    Fails,
    /// It does not (the range runs, or fails otherwise).
    Passes,
    /// The time limit is spent: stop, keeping what is known.
    Stop,
}

/// Where the search ended: a range checked to fail, and whether the search finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub range: RangeInclusive<usize>,
    pub complete: bool,
}

/// Shrinks `0..=end` (checked to fail) to a short failing range: the end first, then the start.
pub fn shrink(end: usize, mut check: impl FnMut(&RangeInclusive<usize>) -> Result<Verdict>) -> Result<Found> {
    let last = match shortest_prefix(end, &mut check)? {
        Found { range, complete: true } => *range.end(),
        stopped => return Ok(stopped),
    };
    latest_start(last, &mut check)
}

/// The shortest prefix `0..=j` of `0..=end` that fails.
fn shortest_prefix(end: usize, check: &mut impl FnMut(&RangeInclusive<usize>) -> Result<Verdict>) -> Result<Found> {
    let (mut low, mut high) = (0, end);
    while low < high {
        let mid = low + (high - low) / 2;
        match check(&(0..=mid))? {
            Verdict::Fails => high = mid,
            Verdict::Passes => low = mid + 1,
            Verdict::Stop => return Ok(Found { range: 0..=high, complete: false }),
        }
    }
    Ok(Found { range: 0..=high, complete: true })
}

/// The latest `i` for which `i..=last` fails, given that `0..=last` does: `last` itself first.
pub fn latest_start(last: usize, check: &mut impl FnMut(&RangeInclusive<usize>) -> Result<Verdict>) -> Result<Found> {
    if last == 0 {
        return Ok(Found { range: 0..=0, complete: true });
    }
    match check(&(last..=last))? {
        Verdict::Fails => return Ok(Found { range: last..=last, complete: true }),
        Verdict::Stop => return Ok(Found { range: 0..=last, complete: false }),
        Verdict::Passes => {}
    }
    // 0..=last fails and last..=last does not: the answer is in 0..last.
    let (mut low, mut high) = (0, last - 1);
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        match check(&(mid..=last))? {
            Verdict::Fails => low = mid,
            Verdict::Passes => high = mid - 1,
            Verdict::Stop => return Ok(Found { range: low..=last, complete: false }),
        }
    }
    Ok(Found { range: low..=last, complete: true })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A check that fails when the range holds every node of `needed`, counting its calls.
    fn needs(
        needed: &[usize],
    ) -> (impl FnMut(&RangeInclusive<usize>) -> Result<Verdict> + '_, std::rc::Rc<std::cell::Cell<usize>>) {
        let calls = std::rc::Rc::new(std::cell::Cell::new(0));
        let counter = calls.clone();
        let check = move |r: &RangeInclusive<usize>| {
            counter.set(counter.get() + 1);
            Ok(if needed.iter().all(|n| r.contains(n)) { Verdict::Fails } else { Verdict::Passes })
        };
        (check, calls)
    }

    #[test]
    fn one_failing_node_is_found_alone_in_logarithmic_checks() {
        for bad in [0, 1, 317, 671] {
            let needed = [bad];
            let (check, calls) = needs(&needed);
            let found = shrink(671, check).unwrap();
            assert_eq!(found, Found { range: bad..=bad, complete: true });
            assert!(calls.get() <= 11, "{} checks for node {bad}", calls.get());
        }
    }

    #[test]
    fn a_failure_that_needs_two_nodes_keeps_both_and_nothing_before() {
        let needed = [40, 95];
        let (check, _) = needs(&needed);
        assert_eq!(shrink(200, check).unwrap(), Found { range: 40..=95, complete: true });
    }

    #[test]
    fn a_time_limit_keeps_the_smallest_range_checked_to_fail() {
        let mut calls = 0;
        let found = shrink(100, |_: &RangeInclusive<usize>| {
            calls += 1;
            Ok(match calls {
                1 => Verdict::Passes, // 0..=50
                2 => Verdict::Fails,  // 0..=75
                _ => Verdict::Stop,
            })
        })
        .unwrap();
        assert_eq!(found, Found { range: 0..=75, complete: false });
        let found = latest_start(10, &mut |r: &RangeInclusive<usize>| {
            Ok(if *r.start() == 10 { Verdict::Passes } else { Verdict::Stop })
        })
        .unwrap();
        assert_eq!(found, Found { range: 0..=10, complete: false });
    }
}
