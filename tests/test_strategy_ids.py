#!/usr/bin/env python3
"""tests/test_strategy_ids.py SOURCE_ROOT -- the registry is the one list of
strategies: outside a strategy's own module and the registry
(engine/strategies/strategies.c), no code compares a strategy id
(PLACER_RING, ... PLACER_EMULATED, and every PLACER_<strategy> a module
declares with `.id = PLACER_<strategy>`) with == or !=, names it in a
`case`, indexes a table with it, or lists several ids (a copy of the
registry); Python keeps no {id: "name"} table. Callers ask the registry
instead (placer_strategy_describe, placer_strategy_next; inside libplacer,
plc_strategy_get(id)->options / ->traits).

A strategy's module: the files under engine/strategies/ and engine/compat/
whose name contains the module's name (strategy_ring.c, ring_build.c,
ring_balance.c; compat_*.c for "compat", PLACER_EMULATED). Tests, fuzz
targets and benchmarks are not scanned: they check strategies by name.

Before scanning, the check runs on a made-up tree holding one violation of
each kind and must report exactly those: so it can fail.
"""
import os
import re
import sys
import tempfile

SCANNED = ("engine", "control", "cli", "simd", "python/placer")
REGISTRY = "engine/strategies/strategies.c"


def modules(root):
    """[(PLACER_ID, name)] of every module's ops under engine/."""
    out = []
    for d, _, files in os.walk(os.path.join(root, "engine")):
        for f in files:
            if f.endswith(".c"):
                text = open(os.path.join(d, f), encoding="utf-8").read()
                # (compatibility programs' ops have PLACER_COMPAT_* ids:
                # tests/test_compat_ids.py checks those)
                out += re.findall(r'\.id = (PLACER_(?!COMPAT_)[A-Z0-9_]+),\s*\.name = "([^"]*)"', text)
    return sorted(set(out))


def code_lines(text):
    """(line number, code) with comments blanked, line numbers kept."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S)
    for n, line in enumerate(text.split("\n"), 1):
        yield n, line.split("//")[0]


def scan(root):
    mods = modules(root)
    if not mods:
        return ["%s: no strategy module found (.id = PLACER_...)" % root]
    ids = {i for i, _ in mods}
    names = "|".join(re.escape(n) for _, n in mods)
    found = []
    paths = []
    for top in SCANNED:
        for d, _, files in os.walk(os.path.join(root, top)):
            paths += [os.path.join(d, f) for f in files if f.endswith((".c", ".h", ".py"))]
    for path in sorted(paths):
        rel = os.path.relpath(path, root)
        if rel == REGISTRY:
            continue
        text = open(path, encoding="utf-8").read()
        if rel.endswith(".py"):
            for n, line in enumerate(text.split("\n"), 1):
                code = line.split("#")[0]
                if re.search(r"\b\d+\s*:\s*[\"'](%s)[\"']" % names, code):
                    found.append("%s:%d: a table of strategy ids (ask placer_strategy_name)" % (rel, n))
                elif re.search(r"strategy\w*\([^#]*\)\s*(==|!=)\s*\d+\b", code):
                    found.append("%s:%d: compares a strategy id with a number (ask the registry: "
                                 "strategy_traits)" % (rel, n))
            continue
        own = set()
        if rel.startswith(("engine/strategies/", "engine/compat/")):
            own = {i for i, name in mods if name in os.path.basename(rel)}
        for n, line in code_lines(text):
            hits = re.findall(r"\bPLACER_[A-Z0-9_]+\b", line)
            hits = [h for h in hits if h in ids]
            others = [h for h in hits if h not in own]
            what = None
            for h in others:
                if re.search(r"(==|!=)\s*%s\b|\b%s\s*(==|!=)" % (h, h), line):
                    what = "compares " + h
                elif re.search(r"\bcase\s+%s\b" % h, line):
                    what = "a case on " + h
                elif re.search(r"\[[^]]*\b%s\b[^]]*\]" % h, line):
                    what = "indexes a table with " + h
                if what:
                    break
            if not what and others and len(hits) >= 2 and "," in line:
                what = "lists strategy ids (iterate placer_strategy_next)"
            if what:
                found.append("%s:%d: %s" % (rel, n, what))
    return found


SELF_TEST = {
    "engine/strategies/strategy_foo.c": """const plc_strategy_ops plc_foo_ops = {
    .id = PLACER_FOO,
    .name = "foo",
};
static int own(int s) { return s == PLACER_FOO; }
""",
    "cli/bad.c": """int a(int s) { return s == PLACER_FOO; }
int b(int s) { return PLACER_FOO != s; }
int c(int s) { switch (s) { case PLACER_FOO: return 1; } return 0; }
static const char *const names[] = {[PLACER_FOO] = "foo"};
static const int all[] = {PLACER_FOO, PLACER_FOO};
/* s == PLACER_FOO in a comment is no comparison */
int d(int s) { return f(s, PLACER_FOO); } // a call is no comparison
""",
    "python/placer/__init__.py": 'STRATEGIES = {1: "foo"}\n'
                                 'slow = _lib.snapshot_strategy(s) == 4\n',
}
SELF_EXPECTED = [
    "cli/bad.c:1: compares PLACER_FOO",
    "cli/bad.c:2: compares PLACER_FOO",
    "cli/bad.c:3: a case on PLACER_FOO",
    "cli/bad.c:4: indexes a table with PLACER_FOO",
    "cli/bad.c:5: lists strategy ids (iterate placer_strategy_next)",
    "python/placer/__init__.py:1: a table of strategy ids (ask placer_strategy_name)",
    "python/placer/__init__.py:2: compares a strategy id with a number (ask the registry: "
    "strategy_traits)",
]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in SELF_TEST.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w", encoding="utf-8") as f:
                f.write(text)
        got = scan(tmp)
    if got != SELF_EXPECTED:
        print("FAIL: the check itself: on the made-up tree it found")
        print("\n".join(got) or "(nothing)")
        print("instead of")
        print("\n".join(SELF_EXPECTED))
        return 1
    root = sys.argv[1]
    found = scan(root)
    for line in found:
        print("FAIL: " + line)
    if found:
        print("test_strategy_ids: ask the registry instead (placer_strategy_describe; "
              'docs/ARCHITECTURE.md, "Adding a strategy")')
        return 1
    print("test_strategy_ids: %d strategies; no id compared, cased, indexed or listed outside "
          "its module and the registry" % len(modules(root)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
