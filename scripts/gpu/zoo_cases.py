"""The zoo's cases between GPU_STEPS=zoo's passes:

    python3 zoo_cases.py failing ZOO DEST REPORT...
                                                 the cases no REPORT passed (`dmlrun test` JSONs,
                                                 shards of one run over ZOO), hard-linked into
                                                 DEST/FAMILY/NAME (so their names stay whole),
                                                 one folder printed a line
    python3 zoo_cases.py split ZOO KNOWN DEST_KNOWN DEST_REST
                                                 the cases KNOWN (a file of names, one a line)
                                                 lists hard-linked into DEST_KNOWN, the others
                                                 into DEST_REST (cases an earlier call found
                                                 failing as written skip that pass)
    python3 zoo_cases.py float16 FOLDER...       each case's data.json at float16's tolerance:
                                                 rtol 1e-2 and atol 1e-2 of its largest |output|
                                                 (float16 keeps 11 bits; the float32 one is kept
                                                 as data-float32.json)
"""
import json
import os
import shutil
import sys


def link(zoo, name, dest):
    target = os.path.join(dest, name)
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(os.path.join(zoo, name), target, copy_function=os.link)
    return target


def cases(zoo):
    for folder, _, files in os.walk(zoo):
        if "model.onnx" in files:
            yield os.path.relpath(folder, zoo)


def split(zoo, known_file, dest_known, dest_rest):
    with open(known_file) as f:
        known = set(f.read().split())
    for name in sorted(cases(zoo)):
        link(zoo, name, dest_known if name in known else dest_rest)


def statuses(reports):
    """Each case's status in `dmlrun test` JSONs (shards of one run; a missing shard is none)."""
    status = {}
    for path in reports:
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            for case in json.load(f)["cases"]:
                status[case["name"]] = case["status"]
    return status


def failing(zoo, dest, reports):
    for name, st in sorted(statuses(reports).items()):
        if st != "pass" and os.path.isfile(os.path.join(zoo, name, "model.onnx")):
            print(link(zoo, name, dest))


def float16(folders):
    for folder in folders:
        path = os.path.join(folder, "data.json")
        with open(path) as f:
            tol = json.load(f)
        # A new file in place of the hard link: the original case keeps its float32 data.json.
        os.replace(path, os.path.join(folder, "data-float32.json"))
        # The float32 atol is 1e-4 of the largest |output| (zoo_models.py): 1e-2 of it is 100 times that.
        largest = tol["atol"] / 1e-4
        with open(path, "w") as f:
            json.dump({"rtol": 1e-2, "atol": max(1e-3, 1e-2 * largest)}, f)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("failing", "float16", "split"):
        sys.exit(__doc__)
    if sys.argv[1] == "split":
        split(*sys.argv[2:6])
    elif sys.argv[1] == "failing":
        failing(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        float16(sys.argv[2:])
