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


# qdq-unfused: the QDQ model with ONNX Runtime's QDQ fusion off (session.disable_quant_qdq=1);
# qdq-dropped: with --drop-qdq-pair (the pairs after its Mul and Softmax dropped).
FORMS = ["fp32", "fp16", "qdq", "qdq-unfused", "qdq-dropped", "qop"]


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
    for form in FORMS:
        paths = {p: os.path.join(folder, f"{form}-{p}.json") for p in photos}
        failed_file = os.path.join(folder, f"failed-{form}")
        if not any(os.path.exists(path) for path in paths.values()):
            if os.path.exists(failed_file) or os.path.exists(os.path.join(folder, f"hung-{form}")):
                reason = open(failed_file).read().strip() if os.path.exists(failed_file) else "hung"
                print(f"| {form} | no result ({reason}) | - |")
                summary[form] = {"top1_same": 0, "photos": len(photos), "no_result": len(photos), "why": reason}
            continue
        got = {p: top1(path) for p, path in paths.items() if os.path.exists(path)}
        same = sum(got[p][0] == reference[p][0] for p in got)
        worst = max((abs(got[p][1] - reference[p][1]) for p in got if got[p][0] == reference[p][0]), default=float("nan"))
        missing = len(photos) - len(got)
        hung, failed = (os.path.join(folder, f"{what}-{form}") for what in ("hung", "failed"))
        why = ""
        if missing:
            why = f"; no result on {missing}"
            if os.path.exists(hung):
                why += f" (hung on {open(hung).read().strip()}, the rest not run)"
            elif os.path.exists(failed):
                why += f" ({open(failed).read().strip()}, the rest not run)"
        summary[form] = {"top1_same": same, "photos": len(photos), "no_result": missing}
        print(f"| {form} | {same} of {len(photos)}{why} | {worst:.4f} |")
    for form in FORMS[2:] + ["fp16"]:
        path = os.path.join(folder, f"bench-{form}.json")
        if not os.path.exists(path):
            continue
        report = json.load(open(path))
        failed = report.get("failed") or []
        if failed or not report.get("baseline"):
            for model in failed:
                print(f"bench {form}: {model['name']} {model['status']}: {model['error']}")
            summary[f"bench_{form}"] = {"failed": [{k: m.get(k) for k in ("name", "status", "error")} for m in failed]}
            continue
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
