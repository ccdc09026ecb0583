"""What the zoo's real models answer, read from their outputs as their packages read them, and the
check that dmlrun on an EP gives the CPU EP's answers: the same text, the same speech frames, the
same content types, the same boxes (matched at IoU >= 0.9). The numbers may differ within
tolerance; the answers may not.

    python3 scripts/zoo_semantics.py ZOO [--dmlrun CMD] [--json FILE] [--expect FILE] -- [FLAGS...]
    python3 scripts/zoo_semantics.py --self-test

runs `CMD run MODEL --input NAME=FILE... --save-outputs DIR --save-format npz FLAGS...` for
every folder of ZOO with a semantic.json (made by scripts/make_zoo.py), decodes what it saved and
compares with the answer made from the CPU EP's outputs. CMD is how dmlrun is started (default
`dmlrun`; under Wine "wine path/dmlrun.exe"). Prints a line a model and a summary; exits 1 when an
answer differs or a run fails, but for the models --expect FILE lists (`differs NAME` lines, #
comments: known on that stack; one of them that now gives the CPU EP's answer fails the run too,
so the list is kept true). --json FILE writes the answers.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np


# --- decoders (also used by make_zoo.py for the CPU EP's answer) ---------------------------------
def decode(semantic, outputs):
    """The answer of `semantic['kind']` from the model's outputs (name -> array, in model order)."""
    values = list(outputs.values())
    kind = semantic["kind"]
    if kind == "text-lines":
        return text_lines(values[0])
    if kind == "ctc-text":
        return ctc_text(values[0], semantic["characters"])
    if kind == "orientation":
        return [semantic["labels"][int(i)] for i in np.argmax(values[0], axis=1)]
    if kind == "speech-frames":
        probs = np.asarray(outputs["output"]).reshape(-1)
        return [int(p > semantic["threshold"]) for p in probs]
    if kind == "content-types":
        return [semantic["labels"][int(i)] for i in np.argmax(values[0], axis=1)]
    if kind == "boxes":
        return boxes(values[0], semantic["score"])
    raise ValueError(f"unknown semantic kind {kind}")


def text_lines(prob, threshold=0.3, box_threshold=0.5, min_size=3):
    """The detector's text boxes as PP-OCR's DB post-processing finds them: the pixels over 0.3
    (rapidocr's thresh), grouped into 8-connected regions; a region is kept where its box is at
    least 3 pixels each way (min_size) and the mean probability inside its box at least 0.5
    (box_thresh, score_mode fast); each box as [top, bottom, left, right], top to bottom."""
    p = np.asarray(prob)[0, 0]
    mask = p > threshold
    seen = np.zeros_like(mask)
    boxes = []
    for y, x in zip(*np.nonzero(mask)):
        if seen[y, x]:
            continue
        stack, ys, xs = [(y, x)], [], []
        seen[y, x] = True
        while stack:
            cy, cx = stack.pop()
            ys.append(cy)
            xs.append(cx)
            for ny in (cy - 1, cy, cy + 1):
                for nx in (cx - 1, cx, cx + 1):
                    if 0 <= ny < mask.shape[0] and 0 <= nx < mask.shape[1] and mask[ny, nx] and not seen[ny, nx]:
                        seen[ny, nx] = True
                        stack.append((ny, nx))
        top, bottom, left, right = min(ys), max(ys), min(xs), max(xs)
        if bottom - top + 1 < min_size or right - left + 1 < min_size:
            continue
        if float(p[top:bottom + 1, left:right + 1].mean()) < box_threshold:
            continue
        boxes.append([int(top), int(bottom), int(left), int(right)])
    return sorted(boxes)


def ctc_text(prob, characters):
    """PP-OCR's CTC greedy decoding: the best class a step, repeats merged, blanks (0) dropped;
    class k is characters[k - 1], and the class after the list a space (use_space_char)."""
    table = [""] + list(characters) + [" "]
    texts = []
    for steps in np.argmax(np.asarray(prob), axis=2):
        chars, last = [], 0
        for k in steps:
            if k != last and k != 0:
                chars.append(table[k])
            last = k
        texts.append("".join(chars).strip())
    return texts


def iou(a, b):
    x1, y1, x2, y2 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def boxes(output, score, nms_iou=0.45):
    """YOLOv8's head as NudeNet reads it: [4 + classes, anchors] an image, centre x, y, width,
    height then class scores; kept above `score`, greedy NMS per class at IoU 0.45."""
    result = []
    for image in np.asarray(output):
        scores = image[4:].max(axis=0)
        classes = image[4:].argmax(axis=0)
        order = [int(i) for i in np.argsort(-scores) if scores[i] > score]
        kept = []
        for i in order:
            cx, cy, w, h = (float(v) for v in image[:4, i])
            box = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]
            if all(k["class"] != int(classes[i]) or iou(k["box"], box) <= nms_iou for k in kept):
                kept.append({"class": int(classes[i]), "score": round(float(scores[i]), 4), "box": [round(v, 2) for v in box]})
        result.append(kept)
    return result


def describe(kind, answer):
    if kind == "text-lines":
        return f"{len(answer)} text boxes, rows {[(b[0], b[1]) for b in answer]}"
    if kind in ("ctc-text", "orientation", "content-types"):
        return ", ".join(repr(a) for a in answer)
    if kind == "speech-frames":
        return f"{sum(answer)} of {len(answer)} frames speech"
    if kind == "boxes":
        return "; ".join(f"{len(b)} boxes" for b in answer)
    return str(answer)


# --- comparison ----------------------------------------------------------------------------------
def same(kind, semantic, cpu, other):
    """Whether two answers agree; returns (bool, why)."""
    if kind == "boxes":
        for image, (a, b) in enumerate(zip(cpu, other)):
            if len(a) != len(b):
                return False, f"image {image}: {len(a)} boxes on the CPU EP, {len(b)} here"
            for box in a:
                best = max((iou(box["box"], c["box"]) for c in b if c["class"] == box["class"]), default=0.0)
                if best < semantic["iou"]:
                    return False, f"image {image}: a class-{box['class']} box matched at IoU {best:.3f} < {semantic['iou']}"
        return True, ""
    if kind == "text-lines":
        if len(cpu) != len(other):
            return False, f"{len(cpu)} text boxes on the CPU EP, {len(other)} here"
        # [top, bottom, left, right] as corners, matched at the same IoU as NudeNet's boxes.
        for a, b in zip(cpu, other):
            overlap = iou([a[2], a[0], a[3] + 1, a[1] + 1], [b[2], b[0], b[3] + 1, b[1] + 1])
            if overlap < semantic.get("iou", 0.9):
                return False, f"a text box matched at IoU {overlap:.3f}"
        return True, ""
    if cpu != other:
        differing = [i for i, (a, b) in enumerate(zip(cpu, other)) if a != b]
        return False, f"{len(differing)} of {len(cpu)} differ, first at {differing[0] if differing else '?'}"
    return True, ""


def truth(semantic, answer):
    """The answer against what the input holds, where it is known: a note, not a verdict on the EP
    (a model may misread a synthetic input on every EP alike)."""
    kind = semantic["kind"]
    if kind == "ctc-text":
        return "reads the rendered text" if answer == semantic["texts"] else f"reads {answer}, rendered {semantic['texts']}"
    if kind == "orientation":
        return "gets the orientations right" if answer == semantic["truth"] else f"says orientations {answer}, truth {semantic['truth']}"
    if kind == "text-lines":
        return "finds the rendered lines" if len(answer) == semantic["lines"] else f"finds {len(answer)} boxes, rendered {semantic['lines']} lines"
    if kind == "speech-frames":
        def inside(frame):
            mid = (frame[0] + frame[1]) / 2
            return any(s <= mid <= e for s, e in semantic["bursts"])
        hits = sum(1 for f, a in zip(semantic["frames"], answer) if a and inside(f))
        false = sum(1 for f, a in zip(semantic["frames"], answer) if a and not inside(f))
        return f"flags {hits} frames inside the voiced bursts, {false} outside"
    return ""


def read_pb(path):
    from onnx import TensorProto, numpy_helper

    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def check(folder, command, flags):
    with open(os.path.join(folder, "semantic.json")) as f:
        semantic = json.load(f)
    data = os.path.join(folder, "test_data_set_0")
    if not os.path.isdir(data):
        return None, semantic, f"{data}: no such folder (make the zoo again with scripts/make-zoo)"
    inputs = sorted(n for n in os.listdir(data) if n.startswith("input_"))
    args = [f"{read_pb(os.path.join(data, n))[0]}={os.path.join(data, n)}" for n in inputs]
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [*command, "run", os.path.join(folder, "model.onnx")]
        for a in args:
            cmd += ["--input", a]
        cmd += ["--save-outputs", tmp, "--save-format", "npz", "--iterations", "1", "-q", *flags]
        try:
            run = subprocess.run(cmd, capture_output=True, text=True)
        except FileNotFoundError:
            sys.exit(f"zoo_semantics: --dmlrun {shlex.join(command)}: no such program (give the path of dmlrun, or \"wine PATH/dmlrun.exe\")")
        # Exit 1 with outputs saved is a numeric verdict (--compare-ep, or float16 held to the
        # float32 reference): the answer is read all the same, since the answer is the question.
        saved = [n for n in os.listdir(tmp) if n.endswith(".npz")]
        if not saved:
            said = [line for line in run.stderr.splitlines() if line.startswith("dmlrun: error")][-1:]
            return None, semantic, f"dmlrun exited {run.returncode}, no outputs saved: {said[0] if said else run.stderr.strip()[-300:]}"
        npz = np.load(os.path.join(tmp, saved[0]))
        outputs = {}
        for n in sorted(o for o in os.listdir(data) if o.startswith("output_")):
            name = read_pb(os.path.join(data, n))[0]
            outputs[name] = npz[name]
    return decode(semantic, outputs), semantic, ""


def self_test():
    """The comparison can fail: each kind of answer, changed as an EP could change it, differs."""
    box = {"class": 3, "score": 0.8, "box": [10.0, 10.0, 50.0, 90.0]}
    moved = dict(box, box=[16.0, 10.0, 56.0, 90.0])  # IoU 0.74
    cases = [
        ("boxes", {"iou": 0.9}, [[box]], [[moved]]),
        ("boxes", {"iou": 0.9}, [[box]], [[]]),
        ("text-lines", {"iou": 0.9}, [[47, 62, 40, 300]], [[47, 62, 40, 300], [120, 140, 40, 200]]),
        ("text-lines", {"iou": 0.9}, [[47, 62, 40, 300]], [[47, 62, 40, 200]]),
        ("ctc-text", {}, ["dmlrun 2026"], ["dmlrun 2O26"]),
        ("speech-frames", {}, [0, 1, 1, 0], [0, 1, 0, 0]),
        ("content-types", {}, ["rust", "python"], ["rust", "c"]),
    ]
    for kind, semantic, a, b in cases:
        if same(kind, semantic, a, a)[0] is not True or same(kind, semantic, a, b)[0] is not False:
            sys.exit(f"zoo_semantics: self-test: {kind}: {a} against {b} not told apart")
    print(f"zoo_semantics: self-test: {len(cases)} changed answers told apart, their originals kept")


def read_expect(path):
    known = set()
    if path:
        with open(path) as f:
            for line in f:
                words = line.split("#")[0].split()
                if len(words) == 2 and words[0] == "differs":
                    known.add(words[1])
                elif words:
                    sys.exit(f"zoo_semantics: {path}: not a 'differs NAME' line: {line.strip()}")
    return known


def main():
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("zoo", nargs="?", help="the zoo scripts/make-zoo made (or one model folder of it)")
    p.add_argument("--dmlrun", default="dmlrun", help='how dmlrun is started (default: dmlrun; under Wine "wine PATH/dmlrun.exe")')
    p.add_argument("--json", help="write the answers to FILE")
    p.add_argument("--expect", help="a file of 'differs NAME' lines: the models known to differ on this stack")
    p.add_argument("--self-test", action="store_true", help="check that the comparison tells changed answers apart, and stop")
    a, unknown = p.parse_known_args(argv[:split])
    if unknown:
        p.error(f"unrecognized arguments: {' '.join(unknown)} (dmlrun's own flags go after --: ZOO --dmlrun PATH -- --ep cpu)")
    if a.self_test:
        self_test()
        return
    if a.zoo is None:
        p.error("the zoo folder is required")
    if not os.path.isdir(a.zoo):
        sys.exit(f"zoo_semantics: {a.zoo}: no such folder")
    command, flags = shlex.split(a.dmlrun), argv[split + 1:]
    known = read_expect(a.expect)
    folders = sorted(d for d, _, files in os.walk(a.zoo) if "semantic.json" in files)
    if not folders:
        sys.exit(f"zoo_semantics: no semantic.json under {a.zoo}: only the zoo's real models have one (scripts/make-zoo)")
    unexpected, differing, results = [], 0, []
    for folder in folders:
        name = os.path.relpath(folder, a.zoo)
        if name == ".":
            name = os.path.basename(os.path.abspath(folder))
        answer, semantic, error = check(folder, command, flags)
        kind = semantic["kind"]
        if error:
            ok, why = False, error
        else:
            ok, why = same(kind, semantic, semantic["cpu_answer"], answer)
        differing += not ok
        if ok == (name in known):
            unexpected.append(f"{name} {'now gives the CPU EP answer, but --expect lists it' if ok else 'differs'}")
        note = truth(semantic, semantic["cpu_answer"])
        print(f"{'SAME' if ok else 'DIFF'}  {name}: {describe(kind, answer) if answer is not None else '-'}"
              f"{'  (' + why + ')' if why else ''}{' (known)' if not ok and name in known else ''}"
              f"{'; the CPU EP ' + note if note else ''}")
        results.append({"model": name, "kind": kind, "same": ok, "why": why, "answer": answer,
                        "cpu_answer": semantic["cpu_answer"], "cpu_note": note})
    print(f"{len(folders)} models: {len(folders) - differing} give the CPU EP's answers, {differing} do not"
          f"{f'; {len(unexpected)} unexpected: ' + '; '.join(unexpected) if unexpected else ''}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"schema": "dmlrun.zoo-semantics/1", "command": command + flags, "models": results}, f, indent=1)
    sys.exit(1 if unexpected else 0)


if __name__ == "__main__":
    main()
