"""Compares a merged test report with the unsharded run's: the same cases in the same order,
with the same status and reason each, and the same summary but for its duration.

    python3 scripts/shard_check.py WHOLE.json MERGED.json
"""
import json
import sys

whole, merged = (json.load(open(path, encoding="utf-8")) for path in sys.argv[1:3])


def cases(report):
    return [(c["name"], c["status"], c.get("reason")) for c in report["cases"]]


def summary(report):
    return {k: v for k, v in report["summary"].items() if k != "duration_ms"}


a, b = cases(whole), cases(merged)
assert [c[0] for c in a] == [c[0] for c in b], "the merged report holds other cases, or in another order"
differ = [(x, y) for x, y in zip(a, b) if x != y]
assert not differ, f"{len(differ)} cases differ, first: {differ[0]}"
assert summary(whole) == summary(merged), f"summaries differ: {summary(whole)} vs {summary(merged)}"
assert "shard" not in merged
print(f"shard-check: 4 shards merged = the unsharded run: {len(a)} cases, {summary(merged)['passed']} passed, "
      f"{len(summary(merged)['unexpected'])} unexpected")
