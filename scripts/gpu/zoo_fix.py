"""`dmlrun fix` on every zoo case that did not pass as written, spread over the GPUs (one fix at a
time a GPU, the GPU chosen as scripts/gpu/run-on-gpu's on_gpu chooses it), each with the case's
own inputs and tolerances (its data.json) and the time limit fix scales from the reference's
run; the records in one JSON. REPORT: `dmlrun test` JSONs (shards of one run): every case none of
them passed is fixed.

    python3 zoo_fix.py ZOO REPORT... --json OUT [--gpus N] [--layer-path DIR] [--budget S] [--flags FLAGS] -- DMLRUN...

DMLRUN is the command that runs dmlrun (under Wine: the loader and dmlrun.exe). Each fix writes
its model to ZOO-fixed/NAME/model.onnx (deleted after: only the record comes back) and its record
(`dmlrun.fix/1`) into OUT's `fixes`, with the exit code and seconds; a fix still running when
--budget runs out is stopped and recorded as such. --flags (one string, split as a shell splits
it) are given to every fix: they stay in each of its attempts and in the reduce that locates the
failure, so what is found is what stops the model after them (the second pass's remedies).
"""
import argparse
import json
import os
import queue
import shlex
import shutil
import subprocess
import sys
import threading
import time

from zoo_cases import statuses


def read_pb_name(path):
    from onnx import TensorProto

    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name


def fix_command(zoo, name, dmlrun, out_root, flags=()):
    folder = os.path.join(zoo, name)
    data = os.path.join(folder, "test_data_set_0")
    with open(os.path.join(folder, "data.json")) as f:
        tol = json.load(f)
    cmd = [*dmlrun, "fix", os.path.join(folder, "model.onnx"), "--device", "0", "--rtol", str(tol["rtol"]),
           "--atol", str(tol["atol"]), "-q", "--ort-log-level", "fatal", *flags]
    for n in sorted(os.listdir(data)):
        if n.startswith("input_"):
            cmd += ["--input", f"{read_pb_name(os.path.join(data, n))}={os.path.join(data, n)}"]
    out = os.path.join(out_root, name)
    os.makedirs(out, exist_ok=True)
    return cmd + ["-o", os.path.join(out, "model.onnx"), "--json", os.path.join(out, "fix.json")], out


def gpu_env(gpu, gpus, layer_path):
    env = dict(os.environ)
    if gpus > 1 and layer_path:
        env.update(VK_LAYER_PATH=layer_path, VK_INSTANCE_LAYERS="VK_LAYER_MESA_device_select", DRI_PRIME=str(gpu),
                   MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE="1")
    return env


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("usage: zoo_fix.py ZOO REPORT... --json OUT [--gpus N] [--layer-path DIR] [--budget S] -- DMLRUN...")
    split = argv.index("--")
    p = argparse.ArgumentParser()
    p.add_argument("zoo")
    p.add_argument("reports", nargs="+")
    p.add_argument("--json", required=True)
    p.add_argument("--gpus", type=int, default=1)
    p.add_argument("--layer-path")
    p.add_argument("--budget", type=float, default=300)
    p.add_argument("--flags", default="", help="dmlrun flags every fix is given")
    a = p.parse_args(argv[:split])
    dmlrun = argv[split + 1:]
    failing = [name for name, st in sorted(statuses(a.reports).items()) if st != "pass"]
    out_root = a.zoo.rstrip("/") + "-fixed"
    work = queue.Queue()
    for name in failing:
        work.put(name)
    deadline = time.time() + a.budget
    fixes, lock = [], threading.Lock()

    def worker(gpu):
        while time.time() < deadline:
            try:
                name = work.get_nowait()
            except queue.Empty:
                return
            cmd, out = fix_command(a.zoo, name, dmlrun, out_root, shlex.split(a.flags))
            t0 = time.time()
            entry = {"name": name, "gpu": gpu}
            try:
                run = subprocess.run(cmd, env=gpu_env(gpu, a.gpus, a.layer_path), capture_output=True, text=True,
                                     timeout=max(5, deadline - time.time()))
                entry["exit"] = run.returncode
                entry["stderr_tail"] = run.stderr.strip().splitlines()[-3:]
            except subprocess.TimeoutExpired:
                entry["exit"] = None
                entry["stopped"] = "the zoo's fix budget ran out"
            entry["seconds"] = round(time.time() - t0, 1)
            record = os.path.join(out, "fix.json")
            if os.path.isfile(record):
                with open(record) as f:
                    entry["record"] = json.load(f)
            shutil.rmtree(out, ignore_errors=True)
            with lock:
                fixes.append(entry)
                verdict = entry.get("record", {}).get("verdict", entry.get("stopped", f"exit {entry['exit']}"))
                print(f"fix {name} on GPU {gpu}: {verdict} in {entry['seconds']} s", flush=True)

    threads = [threading.Thread(target=worker, args=(g,)) for g in range(a.gpus)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    left = []
    while not work.empty():
        left.append(work.get_nowait())
    with open(a.json, "w") as f:
        json.dump({"schema": "dmlrun.zoo-fix/1", "command": dmlrun, "fixes": fixes, "not_tried": left}, f, indent=1)
    print(f"{len(fixes)} fixes run, {len(left)} not tried for lack of time")


if __name__ == "__main__":
    main()
