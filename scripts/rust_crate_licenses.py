"""The licence texts of the Rust crates linked into one build of dmlrun, for what ships it (the
release archives' licenses/rust-crates.txt, the wheels' RUST-CRATES-LICENSES.txt).

    python3 scripts/rust_crate_licenses.py TARGET DEPS_DIR OUT

cargo-about writes the file (about.toml picks the licence taken where a crate offers a choice, and
scripts/rust-crates-licenses.hbs the layout), offline, from the crates' own files. The list is
checked before it is written: every crate linked for TARGET must be in it. Build TARGET first
(release), so that DEPS_DIR holds what was compiled for it. Installs cargo-about with cargo when
it is missing.
"""
import functools, json, os, subprocess, sys


def output(command, env=None):
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[:3])} failed (exit {done.returncode}):\n{done.stderr.strip()}")
    return done.stdout


@functools.cache
def fetch_sources():
    """Every crate's sources, for what reads them offline: cargo-about and `cargo metadata`."""
    output(["cargo", "fetch", "--locked", "--quiet"])


@functools.cache
def metadata():
    fetch_sources()
    return json.loads(output(["cargo", "metadata", "--format-version", "1", "--locked", "--offline"]))


def install_cargo_about():
    """Built without its release profile's LTO and at opt-level 1: on a fresh 2-core machine it
    compiles in 3.7 minutes instead of 4.8, and lists dmlrun's crates in 11 s instead of 9."""
    if subprocess.run(["cargo", "about", "--version"], capture_output=True).returncode != 0:
        faster_build = {"CARGO_PROFILE_RELEASE_LTO": "false", "CARGO_PROFILE_RELEASE_OPT_LEVEL": "1"}
        output(["cargo", "install", "cargo-about", "--locked", "--features", "cli", "--version", "0.9.3", "--quiet"],
               env=os.environ | faster_build)


def linked_crates(target, deps_dir):
    """(name, version) of every crate linked into dmlrun for `target`: in `cargo tree`'s normal
    dependencies *and* compiled for the target into `deps_dir`. Neither alone will do: `cargo tree`
    also lists optional target-specific dependencies whose feature is off (pest_stack_guard's psm
    and stacker on windows-gnu), and a native build's deps folder also holds build scripts'
    dependencies, which are not linked."""
    tree = output(["cargo", "tree", "--locked", "--offline", "-e", "normal", "--target", target,
                   "--prefix", "none", "--format", "{p}"])
    # "name vVERSION (path or note)"
    in_tree = {(line.split()[0], line.split()[1].removeprefix("v")) for line in tree.splitlines() if line.strip()}
    built = {name.removeprefix("lib").rsplit("-", 1)[0] for name in os.listdir(deps_dir) if name.endswith(".rlib")}
    lib_names = {(p["name"], p["version"]): t["name"] for p in metadata()["packages"]
                 for t in p["targets"] if "lib" in t["kind"] or "rlib" in t["kind"]}
    return {crate for crate in in_tree if lib_names.get(crate) in built}


def rust_crate_licenses(target, deps_dir):
    """The text: every crate linked for `target`, with the licence text it carries. Exits naming
    what is missing rather than return an incomplete list."""
    install_cargo_about()
    fetch_sources()
    text = output(["cargo", "about", "generate", "--locked", "--offline", "--fail", "--target", target,
                   "scripts/rust-crates-licenses.hbs"])
    listed = {tuple(line.split()[:2]) for line in text.splitlines() if line.startswith("    ")}
    linked = linked_crates(target, deps_dir)
    if len(linked) < 50:
        sys.exit(f"found only {len(linked)} crates linked for {target} in {deps_dir}; build it first (release)")
    missing = sorted(f"{name} {version}" for name, version in linked - listed)
    if missing:
        sys.exit(f"the licence list for {target} lacks {len(missing)} linked crates: " + ", ".join(missing))
    return text


if __name__ == "__main__":
    target, deps_dir, out = sys.argv[1:4]
    text = rust_crate_licenses(target, deps_dir)
    with open(out + ".partial", "w") as f:
        f.write(text)
    os.replace(out + ".partial", out)
