"""Checks how src/'s modules import each other (called by .ci/run):

1. no import cycle between modules: files that are neither ancestor nor descendant of each other
   (a module's own submodules are part of it, as `mod.rs` and its files are) must not reach
   each other both ways;
2. no lower layer importing a higher one, by the table below: the engine never reaches for the
   CLI, a report never for a command, and so on.

An import is a `use crate::...`/`use super::...` (brace groups included) or a path written out
in code (`crate::report::write_json(...)`); `pub use` in a `mod.rs` (a module naming what it
offers) and `#[cfg(test)] mod NAME { ... }` blocks are not counted, wherever in the file they
sit: the code after a test module is read like any other (an import placed below the tests once
hid a cycle from this check).

    python3 scripts/module_layers.py [--graph] [--src DIR]
    python3 scripts/module_layers.py --self-test   (plants a cycle after a test module, and
                                                    checks that it is found)
"""
import os, re, sys

SRC = os.path.join(os.path.dirname(__file__), "..", "src")
if "--src" in sys.argv:
    SRC = sys.argv[sys.argv.index("--src") + 1]

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


def without_test_modules(text):
    """The text less every `#[cfg(test)] mod NAME { ... }` block, its braces matched (braces in
    string and char literals skipped)."""
    out, at = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", text):
        if m.start() < at:
            continue
        out.append(text[at : m.start()])
        i, depth = m.end(), 1
        while i < len(text) and depth:
            c = text[i]
            if c == '"':
                i += 1
                while i < len(text) and text[i] != '"':
                    i += 2 if text[i] == "\\" else 1
            elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i : i + 4]):
                i = text.index("'", i + 1 + (text[i + 1] == "\\"))
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            i += 1
        at = i
    out.append(text[at:])
    return "".join(out)


def code_of(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"//[^\n]*", "", text)
    text = without_test_modules(text)
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


def self_test():
    """A tree with a cycle whose second half sits after a test module: the check must fail on it,
    and pass once the import is inside the test module."""
    import subprocess, tempfile
    with tempfile.TemporaryDirectory() as src:
        os.makedirs(os.path.join(src, "formats"))
        with open(os.path.join(src, "formats", "mod.rs"), "w") as f:
            f.write("mod model;\nmod quantized;\n")
        with open(os.path.join(src, "formats", "model.rs"), "w") as f:
            f.write("use super::quantized::Form;\npub struct Model;\n")
        planted = "pub struct Form;\n#[cfg(test)]\nmod tests {\n    fn s() -> &'static str { \"}\" }\n}\nuse super::model::Model;\n"
        path = os.path.join(src, "formats", "quantized.rs")
        with open(path, "w") as f:
            f.write(planted)
        run = lambda: subprocess.run([sys.executable, __file__, "--src", src], capture_output=True, text=True)
        found = run()
        assert found.returncode == 1 and "import cycle: formats::model <-> formats::quantized" in found.stdout, found.stdout
        with open(path, "w") as f:
            f.write(planted.replace("}\nuse super::model::Model;\n", "    use super::super::model::Model;\n}\n"))
        clean = run()
        assert clean.returncode == 0, clean.stdout
    print("module layers self-test: a cycle planted after a test module is found; inside one, it is not counted")


if __name__ == "__main__":
    if "--self-test" in sys.argv:
        self_test()
    else:
        main()
