#!/usr/bin/env python3
"""A function's walk through the house: the functions of this crate it reaches, in the order a
reader meets them, and the rooms (files) they sit in.

    python3 scripts/walk.py commands::reduce::execute            # the walk, depth 3
    python3 scripts/walk.py commands::run::execute --depth 2 --summary

The calls come from rust-analyzer's LSIF dump (each name resolved as the compiler resolves it),
made with `rust-analyzer lsif .` (scripts/walk makes it and the component where missing). The
walk is depth-first from the entry, each function once, its calls in the order they are written,
down to --depth calls from the entry. A *stay* is a run of consecutive functions in one file; a
room *re-entered* is a stay in a file the walk was in before. A call through a trait (a batch's
`run`) stops at the trait's declaration: what the walk cannot see, it does not count.
"""

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path


def load(lsif_path, root):
    vertices, documents = {}, {}
    next_of, definition_of, hover_of, moniker_of = {}, {}, {}, {}
    items = defaultdict(list)
    contains = defaultdict(list)
    for line in open(lsif_path, encoding="utf-8"):
        o = json.loads(line)
        label = o["label"]
        if o["type"] == "vertex":
            vertices[o["id"]] = o
            if label == "document":
                documents[o["id"]] = o["uri"].removeprefix("file://")
            continue
        if label == "next":
            next_of[o["outV"]] = o["inV"]
        elif label == "textDocument/definition":
            definition_of[o["outV"]] = o["inV"]
        elif label == "textDocument/hover":
            hover_of[o["outV"]] = o["inV"]
        elif label == "moniker":
            moniker_of[o["outV"]] = o["inV"]
        elif label == "item":
            items[o["outV"]].extend((d, o.get("document")) for d in o["inVs"])
        elif label == "contains":
            contains[o["outV"]].extend(o["inVs"])
    src = str(Path(root, "src").resolve()) + "/"
    ranges = {}  # range id -> (file, line, character)
    for doc, path in documents.items():
        if path.startswith(src):
            for r in contains[doc]:
                v = vertices[r]
                if v["label"] == "range":
                    ranges[r] = (path, v["start"]["line"], v["start"]["character"])
    return vertices, ranges, next_of, definition_of, hover_of, moniker_of, items


def functions_and_calls(root, lsif_path):
    vertices, ranges, next_of, definition_of, hover_of, moniker_of, items = load(lsif_path, root)

    def definitions(r):
        result = definition_of.get(next_of.get(r))
        return [d for d, _ in items.get(result, []) if d in ranges]

    # A function's definition: a range that is its own definition, whose hover says `fn`.
    functions = {}
    for r, where in ranges.items():
        if r not in definitions(r):
            continue
        hover = vertices.get(hover_of.get(next_of.get(r)), {}).get("result", {}).get("contents", {})
        text = hover.get("value", "") if isinstance(hover, dict) else ""
        blocks = re.findall(r"```rust\n(.*?)```", text, re.S)
        if len(blocks) >= 2 and re.search(r"\bfn\s", blocks[1]):
            moniker = vertices.get(moniker_of.get(next_of.get(r)), {}).get("identifier", "")
            functions[r] = (where, moniker.removeprefix("dmlrun::"))
    sources = {}
    bodies = {}
    for r, ((path, line, col), _) in functions.items():
        text = sources.setdefault(path, Path(path).read_text(encoding="utf-8").splitlines())
        bodies[r] = body_extent(text, line, col)
    calls = defaultdict(list)
    for r, (path, line, col) in sorted(ranges.items(), key=lambda kv: kv[1]):
        for d in definitions(r):
            if d not in functions or d == r:
                continue
            caller = innermost(functions, bodies, path, line, col)
            if caller is not None and d != caller and d not in calls[caller]:
                calls[caller].append(d)
    return functions, calls


def body_extent(lines, line, col):
    """(start, end) positions of the braces of the function named at (line, col), or None for a
    declaration without a body. Strings and comments are skipped as the lexer skips them."""
    depth, started, start = 0, False, None
    i, j = line, col
    in_string = False
    while i < len(lines):
        text = lines[i]
        while j < len(text):
            c = text[j]
            if in_string:
                if c == "\\":
                    j += 1
                elif c == '"':
                    in_string = False
            elif text.startswith("//", j):
                break
            elif c == '"':
                in_string = True
            elif c == "'" and j + 2 < len(text) and (text[j + 2] == "'" or text[j + 1] == "\\"):
                j = text.index("'", j + 2)
            elif c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif c == ";" and depth == 0 and not started:
                return None
            elif c == "{":
                if not started and depth == 0:
                    started, start = True, (i, j)
                depth += 1 if started else 0
            elif c == "}" and started:
                depth -= 1
                if depth == 0:
                    return start, (i, j)
            j += 1
        i, j = i + 1, 0
    return None


def innermost(functions, bodies, path, line, col):
    best = None
    for f, ((fpath, _, _), _) in functions.items():
        body = bodies.get(f)
        if fpath != path or body is None:
            continue
        if body[0] <= (line, col) <= body[1] and (best is None or bodies[best][0] < body[0]):
            best = f
    return best


def walk(functions, calls, entry, depth):
    seen, order = set(), []

    def visit(f, level):
        if f in seen:
            return
        seen.add(f)
        order.append(f)
        if level < depth:
            for g in calls.get(f, []):
                visit(g, level + 1)

    visit(entry, 0)
    return order


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("entry", help="a function's path in the crate, e.g. commands::reduce::execute")
    parser.add_argument("--lsif", default="target/walk/dmlrun.lsif")
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--summary", action="store_true", help="only the counts")
    args = parser.parse_args()
    root = Path(__file__).resolve().parent.parent
    functions, calls = functions_and_calls(root, args.lsif)
    entries = [f for f, (_, name) in functions.items() if name == args.entry]
    if not entries:
        sys.exit(f"walk.py: no function '{args.entry}' in the crate (a path like commands::run::execute)")
    order = walk(functions, calls, entries[0], args.depth)
    stays, rooms, reentered = [], set(), 0
    for f in order:
        room = str(Path(functions[f][0][0]).relative_to(root / "src"))
        if not stays or stays[-1][0] != room:
            reentered += room in rooms
            rooms.add(room)
            stays.append((room, []))
        stays[-1][1].append(functions[f][1].rsplit("::", 1)[-1])
    if not args.summary:
        for n, (room, fns) in enumerate(stays, 1):
            names = ", ".join(fns)
            print(f"{n:3}. {room}: {names}")
    print(f"{args.entry}, depth {args.depth}: {len(order)} functions, {len(stays)} stays in {len(rooms)} rooms, "
          f"{reentered} re-entered")


if __name__ == "__main__":
    main()
