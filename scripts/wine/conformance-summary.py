"""Summarises `scripts/wine-check --conformance`: the ONNX suite on DirectML vs the CPU EP.

    python3 scripts/wine/conformance-summary.py RESULTS_DIR SET...

RESULTS_DIR holds one `dmlrun test --json` report per chunk (`SET-NNNN.json`, DirectML compared
with the CPU EP in the same process) and, in `cpu124/`, the cases of each chunk that did not
pass, run again on the same ONNX Runtime's CPU EP against the expected outputs in the case. A
case that does not pass there either is a limit of ONNX Runtime 1.24 (an opset it refuses, an
op with no kernel), not of DirectML.
"""

import collections
import glob
import json
import os
import re
import statistics
import sys

DML = "DmlExecutionProvider"


def where(case):
    """Where ONNX Runtime put the case's nodes: all on DirectML, split, or none on DirectML."""
    nodes = {p["execution_provider"]: p["nodes"] for p in case.get("placement", [])}
    if not nodes:
        return "unknown"
    return "dml" if set(nodes) == {DML} else "split" if nodes.get(DML) else "cpu"


def short(reason):
    """The reason without build paths, addresses and thread ids, so equal causes group."""
    reason = reason or ""
    reason = re.sub(r"[A-Z]:\\_work\\1\\s\\onnxruntime\\", "", reason)
    reason = re.sub(r"\\onnxruntime\.dll!\w+: \(caller: \w+\) Exception\(\d+\) tid\(\w+\)", "", reason)
    reason = reason.replace("model .\\model.onnx: ", "").replace("Exception during initialization: ", "")
    reason = reason.replace("DirectML started on adapter 0 but could not compile this model", "DirectML could not compile")
    reason = reason.replace(". Run it with --ep cpu", "").replace("!node_provider_type.empty() was false. ", "")
    reason = reason.replace("core\\providers\\dml\\DmlExecutionProvider\\src\\", "")
    reason = re.sub(r"onnxruntime::\w+(::\w+)* ", "", reason)
    return reason[:200]


def load(pattern):
    return [c for f in sorted(glob.glob(pattern)) for c in json.load(open(f))["cases"]]


def main():
    results, sets = sys.argv[1], sys.argv[2:]
    print("DirectML (ONNX Runtime 1.24.4, onnxruntime-directml) under Wine on vkd3d + lavapipe,")
    print("compared with the CPU EP of the same ONNX Runtime in the same process. A pass: outputs")
    print("within rtol 1e-3, atol 1e-7 (or the case's own data.json tolerances). Passes are split by")
    print("where ONNX Runtime placed the nodes: all on DirectML, split with the CPU EP, or all on")
    print("the CPU EP. Cases that did not pass ran again on the CPU EP alone: 'ORT 1.24' counts those")
    print("that do not pass there either, 'DirectML' those only DirectML gets wrong.\n")
    head = (f"{'set':<18} {'cases':>5} {'pass':>5} | {'on DML':>6} {'split':>5} {'on CPU':>6} | "
            f"not passing: {'ORT 1.24':>8} {'DirectML':>8} | max |diff| of passes run on DirectML: median, max")
    print(head)
    own = collections.Counter()
    inherited = collections.Counter()
    for s in sets:
        cases = load(os.path.join(results, f"{s}-*.json"))
        on_cpu = {c["name"]: c for c in load(os.path.join(results, "cpu124", f"{s}-*.json"))}
        passes = collections.Counter(where(c) for c in cases if c["status"] == "pass")
        not_passing = [c for c in cases if c["status"] != "pass"]
        missing = [c["name"] for c in not_passing if c["name"] not in on_cpu]
        if missing:
            sys.exit(f"{s}: no CPU re-run for {', '.join(missing[:5])}")
        dml_only = [c for c in not_passing if on_cpu[c["name"]]["status"] == "pass"]
        diffs = [c["max_abs_diff"] for c in cases
                 if c["status"] == "pass" and where(c) in ("dml", "split") and c.get("max_abs_diff") is not None]
        spread = f"{statistics.median(diffs):.1e}, {max(diffs):.1e}" if diffs else "-"
        n_pass = sum(passes.values())
        print(f"{s:<18} {len(cases):>5} {n_pass:>5} | {passes['dml']:>6} {passes['split']:>5} {passes['cpu']:>6} | "
              f"             {len(not_passing) - len(dml_only):>8} {len(dml_only):>8} | {spread}")
        for c in not_passing:
            if c in dml_only:
                own[f"{c['status']}: {short(c['reason'])}"] += 1
            else:
                cpu = on_cpu[c["name"]]
                inherited[f"{cpu['status']}: {short(cpu['reason'])}"] += 1
    for title, reasons in (("DirectML's own", own), ("ONNX Runtime 1.24's (the CPU EP's reason)", inherited)):
        print(f"\nnot passing, {title} (most common first):")
        for reason, n in reasons.most_common(30):
            print(f"{n:>5}  {reason}")


if __name__ == "__main__":
    main()
