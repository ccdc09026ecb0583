"""The zoo's table from what a GPU_STEPS=zoo call brought back (one folder a call, several calls
joined, a later call's result standing over an earlier one's): each model as written on
DirectML (pass, differs, rejected, crash, hang), with the remedies of the second pass or of
`dmlrun fix` (pass with remedies), or still failing (why, and the node reduce pinned it on where
fix ran), and the pass rate of each family and of all; a summary line on stderr.

    python3 scripts/zoo_table.py REPORTS_DIR... [--markdown FILE] [--remedies FLAGS]

Each REPORTS_DIR holds zoo-dynamo.json (or zoo-torchscript.json, zoo-both.json: scripts/gpu/zoo_models.py), zoo-test-G.json and
zoo-remedied-G.json (`dmlrun test` on DirectML, a shard a GPU) and zoo-fix.json
(scripts/gpu/zoo_fix.py). A model not exported is counted
apart (the exporter's failure, not DirectML's).
"""
import argparse
import glob
import gzip
import json
import os
import random
import re
import statistics
import sys
from collections import defaultdict

AS_WRITTEN = {"pass": "pass", "fail": "differs", "error": "rejected", "crash": "crash", "timeout": "hang",
              "interrupted": "interrupted"}


def clip(text, limit):
    """`text` cut at a word before `limit` characters, with an ellipsis where cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " ..."


def read_json(path):
    """A report as a call brought it back (`.json`) or as docs/zoo-reports keeps it (`.json.gz`:
    what travels to the GPU machine with the tracked files has a size limit)."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def load(folder, name):
    for path in (os.path.join(folder, name), os.path.join(folder, name + ".gz")):
        if os.path.isfile(path):
            return read_json(path)
    return None


def cases_of(folder, pattern):
    found = {}
    paths = glob.glob(os.path.join(folder, pattern)) + glob.glob(os.path.join(folder, pattern + ".gz"))
    for path in sorted(paths):
        for c in read_json(path).get("cases", []):
            found[c["name"]] = c
    return found


def rows(folders, remedies):
    """Every model, from the folders of the calls in order (a later call's result for a model
    stands over an earlier one's)."""
    exports, written, remedied, fixes, remedied_with = {}, {}, {}, {}, {}
    for folder in folders:
        # A call's own remedies (its GPU_ZOO_REMEDIES) in remedies.txt; else the ones given.
        own = os.path.join(folder, "remedies.txt")
        flags = open(own).read().strip() if os.path.exists(own) else remedies
        # One index an exporter setting (zoo_models.py --exporter): dynamo, torchscript or both.
        indexes = [load(folder, f"zoo-{exporter}.json") or {} for exporter in ("dynamo", "torchscript", "both")]
        for r in (m for index in indexes for m in index.get("models", [])):
            key = f"{r['family']}/{r['name']}"
            # A model a later call did not export again keeps its first record.
            if r["status"] == "made" or key not in exports:
                exports[key] = r
        written.update(cases_of(folder, "zoo-test-[0-9]*.json"))
        these = cases_of(folder, "zoo-remedied-[0-9]*.json")
        remedied.update(these)
        remedied_with.update({key: flags for key in these})
        for fx in (load(folder, "zoo-fix.json") or {}).get("fixes", []):
            fixes[fx["name"]] = fx
    table = []
    for key, export in sorted(exports.items()):
        row = {"model": key, "family": export["family"], "name": export["name"],
               "parameters": export.get("parameters"), "exporter": export.get("exporter", "")}
        if export["status"] != "made":
            row.update(written="not exported", final="not exported", note=clip(export.get("why", ""), 160))
            table.append(row)
            continue
        case = written.get(key)
        # The first call left a failed export's half-written folder (no model.onnx): no result.
        if case is not None and "but no model.onnx" in (case.get("reason") or ""):
            case = None
        if case is None and key not in remedied:
            row.update(written="not run", final="not run", note="no DirectML result (the calls' time ran out)")
            table.append(row)
            continue
        # A model a call sent straight to the remedies (its first export broke) has no result as
        # written; it counts as run, with what the remedies did.
        row["written"] = AS_WRITTEN.get(case["status"], case["status"]) if case else "not tried"
        row["reason"] = clip(case.get("reason") or "", 200) if case else ""
        if row["written"] == "pass":
            row["final"] = "pass"
        elif key in remedied and remedied[key]["status"] == "pass":
            row.update(final="pass with remedies", remedy=remedied_with[key])
        elif key not in remedied and key not in fixes:
            row.update(final="remedies not tried", note="the calls' time ran out before its second pass")
        else:
            again = remedied.get(key)
            row.update(final_of(fixes.get(key)))
            if again is not None:
                with_remedies = f"with the remedies: {AS_WRITTEN.get(again['status'], again['status'])}, {clip(again.get('reason') or '', 160)}"
                row["note"] = f"{with_remedies}; {row['note']}" if row.get("note") else with_remedies
        table.append(row)
    return table


def final_of(fix):
    if fix is None:
        return {"final": "fails", "note": "fix not run (the calls' time ran out)"}
    record = fix.get("record")
    if record is None:
        why = fix.get("stopped") or f"fix exited {fix.get('exit')}: {clip(' '.join(fix.get('stderr_tail', [])), 200)}"
        return {"final": "fails", "note": why}
    verdict = record["verdict"]
    located = record.get("located") or {}
    if verdict in ("passes", "fixed"):
        remedies = " ".join(record.get("remedies", [])) or "(passed on a second run as written)"
        return {"final": "pass with remedies", "remedy": remedies}
    node = located.get("node")
    where = f"node '{node}' ({located.get('op_type', '?')}, {located.get('mode', '?')})" if node else (located.get("error") or "not reduced")
    return {"final": "fails", "note": f"reduced to {where}"}


def markdown(table):
    families = defaultdict(list)
    for r in table:
        families[r["family"]].append(r)
    exported = [r for r in table if r["written"] not in ("not exported",)]
    ran = [r for r in exported if r["written"] != "not run"]
    lines = ["| family | models exported | ran on DirectML | pass as written | pass as written or with remedies | fail with remedies | remedies not tried |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]

    def counts(rs):
        e = [r for r in rs if r["written"] != "not exported"]
        n = [r for r in e if r["written"] != "not run"]
        w = sum(r["written"] == "pass" for r in n)
        f = sum(r["final"] == "pass with remedies" for r in n)
        u = sum(r["final"] == "remedies not tried" for r in n)
        return len(e), len(n), w, f, len(n) - w - f - u, u

    def pct(k, n):
        return f"{k} ({100 * k / n:.0f}%)" if n else "0"

    for fam in sorted(families):
        e, n, w, f, s, u = counts(families[fam])
        lines.append(f"| {fam} | {e} of {len(families[fam])} | {n} | {pct(w, n)} | {pct(w + f, n)} | {s} | {u} |")
    e, n, w, f, s, u = counts(table)
    lines.append(f"| **all** | {e} of {len(table)} | {n} | {pct(w, n)} | {pct(w + f, n)} | {s} | {u} |")
    lines += ["", "| model | parameters | exporter | as written | in the end | remedies, or where and why it fails |",
              "| --- | ---: | --- | --- | --- | --- |"]
    # Failures first, then by family and name.
    order = {"fails": 0, "remedies not tried": 1, "not run": 2, "pass with remedies": 3, "not exported": 4, "pass": 5}
    for r in sorted(table, key=lambda r: (order.get(r["final"], 0), r["model"])):
        params = f"{r['parameters'] / 1e6:.1f} M" if r.get("parameters") else ""
        detail = r.get("remedy") or r.get("note") or ""
        if r["written"] not in ("pass", "not exported", "not run") and r.get("reason") and r["final"] == "fails":
            detail = f"{detail}; as written: {r['reason']}" if detail else r["reason"]
        detail = detail.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {r['model']} | {params} | {r['exporter']} | {r['written']} | {r['final']} | {detail} |")
    return "\n".join(lines) + "\n", (n, w, w + f, u)


def case_of(path):
    """`family/name` of a case's model path as dmlrun.exe wrote it (Windows separators under Wine)."""
    return "/".join(re.split(r"[\\/]", path)[-3:-1])


def bootstrap_ratio(slow, fast, rounds=2000, seed=0):
    """The ratio of medians median(slow) / median(fast) and its 95% percentile-bootstrap interval
    (each side resampled on its own: the runs were not paired)."""
    rng = random.Random(seed)
    ratios = sorted(statistics.median(rng.choices(slow, k=len(slow))) / statistics.median(rng.choices(fast, k=len(fast)))
                    for _ in range(rounds))
    return statistics.median(slow) / statistics.median(fast), ratios[int(0.025 * rounds)], ratios[int(0.975 * rounds) - 1]


def speed(folders):
    """The speed step's models (zoo-speed-written.json, zoo-speed-remedied.json: `dmlrun bench` on
    DirectML; zoo-speed-cpu.json: the CPU EP; zoo-eager.json: PyTorch eager on CUDA), a row each."""
    dml, cpu, eager = {}, {}, {}
    for folder in folders:
        for form in ("written", "remedied"):
            for m in (load(folder, f"zoo-speed-{form}.json") or {}).get("models", []):
                dml[case_of(m["path"])] = (form, m)
        for m in (load(folder, "zoo-speed-cpu.json") or {}).get("models", []):
            cpu[case_of(m["path"])] = m
        for m in (load(folder, "zoo-eager.json") or {}).get("models", []):
            eager[m["model"]] = m
    rows = []
    for key in sorted(dml):
        form, m = dml[key]
        row = {"model": key, "form": "float32 as written" if form == "written" else "float16 with the remedies",
               "dml": m["latency_ms"]["p50"], "dml_cov": m["latency_ms"]["cov"]}
        c = cpu.get(key)
        if c and c.get("samples_ms") and m.get("samples_ms"):
            row["cpu"], row["cpu_cov"] = c["latency_ms"]["p50"], c["latency_ms"]["cov"]
            row["cpu_ratio"] = bootstrap_ratio(c["samples_ms"], m["samples_ms"])
        e = eager.get(key, {}).get("float32" if form == "written" else "float16")
        if e:
            row["eager"] = e["p50_ms"]
        rows.append(row)
    return rows


def speed_markdown(rows):
    lines = ["| model | on DirectML | DirectML p50 ms (CoV) | CPU EP p50 ms (CoV) | CPU EP / DirectML [95% CI] | PyTorch eager on CUDA p50 ms, same precision | eager / DirectML |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        cpu = f"{r['cpu']:.2f} ({100 * r['cpu_cov']:.0f}%)" if "cpu" in r else "-"
        ratio = "{:.1f}x [{:.1f}, {:.1f}]".format(*r["cpu_ratio"]) if "cpu_ratio" in r else "-"
        eager = f"{r['eager']:.2f}" if "eager" in r else "-"
        versus = f"{r['eager'] / r['dml']:.2f}x" if "eager" in r else "-"
        lines.append(f"| {r['model']} | {r['form']} | {r['dml']:.2f} ({100 * r['dml_cov']:.0f}%) | {cpu} | {ratio} | {eager} | {versus} |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folders", nargs="+", help="one folder of reports a GPU_STEPS=zoo call, earliest first")
    p.add_argument("--markdown", help="write the tables to FILE (default: standard output)")
    p.add_argument("--remedies", default="--gemm-zero-bias --reshape-allowzero-off --decompose LayerNormalization --precision fp16",
                   help="the remedies of the calls' second pass (GPU_ZOO_REMEDIES)")
    a = p.parse_args()
    for folder in a.folders:
        if not os.path.isdir(folder):
            sys.exit(f"zoo_table: {folder}: no such folder")
    table = rows(a.folders, a.remedies)
    if not table:
        sys.exit(f"zoo_table: no zoo-dynamo.json, zoo-torchscript.json or zoo-both.json in {', '.join(a.folders)}")
    text, (ran, written, final, untried) = markdown(table)
    timed = speed(a.folders)
    if timed:
        text += "\n" + speed_markdown(timed)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    print(f"zoo: {ran} models ran on DirectML: {written} pass as written ({100 * written / max(ran, 1):.0f}%), "
          f"{final} as written or with remedies ({100 * final / max(ran, 1):.0f}%); "
          f"of the {ran - untried} that were given the remedies where needed, {100 * final / max(ran - untried, 1):.0f}% pass",
          file=sys.stderr)


if __name__ == "__main__":
    main()
