#!/usr/bin/env python3
"""The table scripts/int8-vision and scripts/wine-check print: per form, top-1 against float32's
on each photo, the mean of float32's top-1 probability against the form's on the same class, and
bench's time of each int8 form beside float32 (one session, alternating rounds; the change and
its confidence interval as bench's regression gate judges it).

    python3 scripts/int8_vision_table.py DIR EP [--reference PREFIX]

The reference is each photo's `fp32-*.json` (the run's own float32), or with `--reference ref`
the `ref-*.json` files (the CPU EP's float32, for DirectML's table).
"""
import glob
import json
import os
import sys


def top1(path):
    item = json.load(open(path))["top_k"][0]["items"][0][0]
    return item["index"], item["score"], item.get("label", "")


def main():
    folder, ep = sys.argv[1], sys.argv[2]
    prefix = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--reference" else "fp32"
    photos = sorted(os.path.basename(p)[len(prefix) + 1 : -5] for p in glob.glob(os.path.join(folder, f"{prefix}-*.json")))
    assert photos, f"no {prefix}-*.json in {folder}"
    reference = {p: top1(os.path.join(folder, f"{prefix}-{p}.json")) for p in photos}
    against = "the CPU EP's float32" if prefix == "ref" else "float32's"
    print(f"SqueezeNet 1.1 on {ep}, {len(photos)} photos: top-1 against {against}")
    print("| form | top-1 = float32's | max |prob - float32's| |")
    print("|---|---|---|")
    summary = {}
    for form in ("fp32", "fp16", "qdq", "qop"):
        got = {p: top1(os.path.join(folder, f"{form}-{p}.json")) for p in photos}
        same = sum(got[p][0] == reference[p][0] for p in photos)
        worst = max(abs(got[p][1] - reference[p][1]) for p in photos if got[p][0] == reference[p][0]) if same else float("nan")
        summary[form] = {"top1_same": same, "photos": len(photos)}
        print(f"| {form} | {same} of {len(photos)} | {worst:.4f} |")
    for form in ("qdq", "qop", "fp16"):
        path = os.path.join(folder, f"bench-{form}.json")
        if not os.path.exists(path):
            continue
        report = json.load(open(path))
        row = report["baseline"]["models"][0]
        change = row["change"]
        new = report["models"][0]["stats"]["p50"] if "stats" in report["models"][0] else None
        ratio = change.get("ratio", change.get("estimate"))
        ratio = f"{ratio:.3f}" if isinstance(ratio, (int, float)) else ratio
        print(f"bench {form} against float32: {row['verdict']} (time ratio {ratio}, "
              f"95% CI [{change['ci_low']:.3f}, {change['ci_high']:.3f}], {change['test']})")
        summary[f"bench_{form}"] = {"verdict": row["verdict"], "change": change, "p50_ms": new}
    with open(os.path.join(folder, f"summary-{ep.split()[0]}.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
