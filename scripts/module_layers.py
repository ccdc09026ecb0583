"""Checks how src/'s modules import each other (called by .ci/run):

1. no import cycle between modules: files that are neither ancestor nor descendant of each other
   (a module's own submodules are part of it, as `mod.rs` and its files are) must not reach
   each other both ways;
2. no lower layer importing a higher one, by the table below: the engine never reaches for the
   CLI, a report never for a command, and so on.

An import is a `use crate::...`/`use super::...` (brace groups included) or a path written out
in code (`crate::report::write_json(...)`); `pub use` in a `mod.rs` (a module naming what it
offers) and `#[cfg(test)] mod tests` blocks are not counted.

    python3 scripts/module_layers.py [--graph]
"""
import os, re, sys

SRC = os.path.join(os.path.dirname(__file__), "..", "src")

# Lowest first. A module may import from its own layer and those below it.
LAYERS = [
    ["exit", "stdio", "interrupt", "stage", "fsutil", "tensor", "stats", "progress", "suggest"],
    ["compare", "formats"],
    ["graph", "inputs", "outputs", "suites", "generate"],
    ["runtime"],
    ["sysinfo", "isolation"],
    ["reduce"],
    ["report"],
    ["batch", "cases"],
    ["cli"],
    ["settings"],
    ["commands", "fuzzing"],
]
LAYER_OF = {name: i for i, names in enumerate(LAYERS) for name in names}


def modules():
    found = {}
    for folder, _, files in os.walk(SRC):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(folder, f)
            parts = os.path.relpath(path, SRC)[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            found[tuple(parts)] = path
    return found


def code_of(path):
    text = open(path, encoding="utf-8").read()
    cut = re.search(r"#\[cfg\(test\)\]\s*mod tests", text)
    if cut:
        text = text[: cut.start()]
    text = re.sub(r"//[^\n]*", "", text)
    if path.endswith("mod.rs"):
        text = re.sub(r"pub use [^;]*;", "", text, flags=re.S)
    return text


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = tree.strip()
    brace = tree.find("{")
    if brace < 0:
        return [tree.split(" as ")[0].strip()]
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rfind("}")]
    items, depth, current = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            items.append(current)
            current = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        current += ch
    items.append(current)
    return [prefix + rest for item in items if item.strip() for rest in expand_use(item)]


def imports(module, path, known):
    code = code_of(path)
    paths = []
    for m in re.finditer(r"\buse\s+((?:crate|super)\b[^;]*);", code, re.S):
        paths += expand_use(m.group(1))
    paths += re.findall(r"\b((?:crate|super)(?:::\w+)+)", code)
    targets = set()
    for p in paths:
        parts = [x for x in p.replace(" ", "").split("::") if x]
        if parts[0] == "crate":
            full = parts[1:]
        else:
            base = list(module)
            while parts and parts[0] == "super":
                base, parts = base[:-1], parts[1:]
            full = base + parts
        for i in range(len(full), 0, -1):
            if tuple(full[:i]) in known:
                targets.add(tuple(full[:i]))
                break
    targets.discard(module)
    return targets


def related(a, b):
    """One is the other's ancestor (or the same module)."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def cycles(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(component)

    for v in graph:
        if v not in index:
            visit(v)
    return out


def name(module):
    return "::".join(module) or "crate"


def main():
    known = modules()
    graph = {m: {t for t in imports(m, p, known) if not related(m, t)} for m, p in known.items()}
    if "--graph" in sys.argv:
        for m in sorted(graph):
            print(name(m), "->", ", ".join(sorted(name(t) for t in graph[m])))
    problems = []
    for component in cycles(graph):
        problems.append("import cycle: " + " <-> ".join(sorted(name(m) for m in component)))
    for m, targets in graph.items():
        for t in targets:
            if not m or not t:
                continue
            low, high = LAYER_OF.get(m[0]), LAYER_OF.get(t[0])
            if low is None:
                problems.append(f"{name(m)}: top-level module '{m[0]}' is in no layer of scripts/module_layers.py")
            elif high is not None and high > low:
                problems.append(f"{name(m)} imports {name(t)}: a lower layer importing a higher one")
    for line in sorted(set(problems)):
        print(line)
    if problems:
        sys.exit(1)
    print(f"module layers: {len(known)} modules, no import cycle, no lower layer importing a higher one")


if __name__ == "__main__":
    main()
