#!/usr/bin/env python3
"""tests/test_compat_ids.py SOURCE_ROOT -- the registry is the one list of
compatibility programs: outside a program's own module and the registry
(engine/compat/compat_registry.c), no code compares a program id
(PLACER_COMPAT_<P>, or PLC_COMPAT_<P> should one come back, for every program P the registry
lists; PLACER_COMPAT_NONE is no program and may be compared) with ==, !=,
<, <=, > or >=, names it in a `case`, indexes a table with it, or lists
several ids; and no code or Python keeps a list of the programs' names.
Callers ask the registry instead (inside libplacer plc_compat_program_get
and the ops' fields, compat_program.h; outside, placer_compat_name and the
placer_compat_has_* calls).

A program's module: the files whose name contains the program's name
(compat_haproxy.c, compat_haproxy_map.c, control/haproxy_import.c).
include/placer_compat.h defines the ids. Tests, fuzz
targets and benchmarks are not scanned: they check programs by name.

PENDING below may list files that do not ask the registry yet, each with
its count of such lines: the check fails when a file not listed has one,
and when a listed file has more, or fewer (then lower its count here), so
the list only shrinks. It is empty: every caller asks the registry.

Before scanning, the check runs on a made-up tree holding one violation of
each kind and must report exactly those: so it can fail.
"""
import os
import re
import sys
import tempfile

SCANNED = ("engine", "control", "cli", "simd", "python/placer")
REGISTRY = "engine/compat/compat_registry.c"
DEFINED = ("engine/compat/compat.h", "include/placer.h", "include/placer_compat.h")

# Callers still comparing ids: none (the batch index reads the ops'
# batch_rule and tag, the partitions strategy their key_hash_base).
PENDING = {}


def programs(root):
    """[name] of every registry line X(name)."""
    text = open(os.path.join(root, REGISTRY), encoding="utf-8").read()
    return re.findall(r"^\s*X\((\w+)\)", text, flags=re.M)


def code_lines(text):
    """(line number, code) with comments blanked, line numbers kept."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S)
    for n, line in enumerate(text.split("\n"), 1):
        yield n, line.split("//")[0]


def scan(root):
    names = programs(root)
    if not names:
        return ["%s: no program found (X(name) lines)" % REGISTRY]
    ids = {}
    for name in names:
        for prefix in ("PLC_COMPAT_", "PLACER_COMPAT_"):
            ids[prefix + name.upper()] = name
    quoted = re.compile(r"[\"'](%s)[\"']" % "|".join(re.escape(n) for n in names))
    found = []
    paths = []
    for top in SCANNED:
        for d, _, files in os.walk(os.path.join(root, top)):
            paths += [os.path.join(d, f) for f in files if f.endswith((".c", ".h", ".py"))]
    for path in sorted(paths):
        rel = os.path.relpath(path, root)
        if rel == REGISTRY or rel in DEFINED:
            continue
        text = open(path, encoding="utf-8").read()
        base = os.path.basename(rel)
        own = {i for i, name in ids.items() if name in base}
        if rel.endswith(".py"):
            for n, line in enumerate(text.split("\n"), 1):
                code = line.split("#")[0]
                if len(quoted.findall(code)) >= 2:
                    found.append("%s:%d: lists program names (ask placer_compat_name)" % (rel, n))
            continue
        for n, line in code_lines(text):
            hits = [h for h in re.findall(r"\b(?:PLC|PLACER)_COMPAT_[A-Z0-9_]+\b", line) if h in ids]
            others = [h for h in hits if h not in own]
            what = None
            for h in others:
                if re.search(r"(==|!=|<=?|>=?)\s*%s\b|\b%s\s*(==|!=|<=?|>=?)" % (h, h), line):
                    what = "compares " + h
                elif re.search(r"\bcase\s+%s\b" % h, line):
                    what = "a case on " + h
                elif re.search(r"\[[^]]*\b%s\b[^]]*\]" % h, line):
                    what = "indexes a table with " + h
                if what:
                    break
            if not what and others and len(hits) >= 2 and "," in line:
                what = "lists program ids (ask the registry)"
            if not what and not own and len(quoted.findall(line)) >= 2:
                what = "lists program names (ask the registry)"
            if what:
                found.append("%s:%d: %s" % (rel, n, what))
    return found


def judge(found, pending):
    """The failures: findings outside pending files, and pending counts
    that no longer hold."""
    per = {}
    out = []
    for f in found:
        rel = f.split(":", 1)[0]
        if rel in pending:
            per[rel] = per.get(rel, 0) + 1
        else:
            out.append(f)
    for rel, count in sorted(pending.items()):
        if per.get(rel, 0) != count:
            out.append("%s: %d lines compare program ids, PENDING says %d (%s)"
                       % (rel, per.get(rel, 0), count,
                          "lower its count" if per.get(rel, 0) < count else "ask the registry"))
    return out


SELF_TEST = {
    "engine/compat/compat_registry.c": "#define PLC_COMPAT_PROGRAMS(X) \\\n    X(foo) \\\n    X(bar)\n",
    "engine/compat/compat_foo.c": "static int own(int p) { return p == PLC_COMPAT_FOO; }\n",
    "cli/bad.c": """int a(int p) { return p == PLACER_COMPAT_FOO; }
int b(int p) { return PLC_COMPAT_BAR != p; }
int c(int p) { switch (p) { case PLACER_COMPAT_FOO: return 1; } return 0; }
static const char *const names[] = {[PLC_COMPAT_FOO] = "foo"};
static const int all[] = {PLC_COMPAT_FOO, PLC_COMPAT_BAR};
int d(int p) { return p > PLACER_COMPAT_BAR; }
static const char *const spelled[] = {"foo", "bar"};
/* p == PLC_COMPAT_FOO in a comment is no comparison */
int e(int p) { return f(p, PLACER_COMPAT_FOO) || p == PLACER_COMPAT_NONE; } // calls are fine
""",
    "python/placer/__init__.py": 'PROGRAMS = ("foo", "bar")\n',
}
SELF_EXPECTED = [
    "cli/bad.c:1: compares PLACER_COMPAT_FOO",
    "cli/bad.c:2: compares PLC_COMPAT_BAR",
    "cli/bad.c:3: a case on PLACER_COMPAT_FOO",
    "cli/bad.c:4: indexes a table with PLC_COMPAT_FOO",
    "cli/bad.c:5: lists program ids (ask the registry)",
    "cli/bad.c:6: compares PLACER_COMPAT_BAR",
    "cli/bad.c:7: lists program names (ask the registry)",
    "python/placer/__init__.py:1: lists program names (ask placer_compat_name)",
]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in SELF_TEST.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w", encoding="utf-8") as f:
                f.write(text)
        got = scan(tmp)
    pend = judge(["cli/bad.c:1: x", "cli/bad.c:2: x"], {"cli/bad.c": 1, "cli/gone.c": 1})
    if got != SELF_EXPECTED or len(pend) != 2:
        print("FAIL: the check itself: on the made-up tree it found")
        print("\n".join(got + pend) or "(nothing)")
        print("instead of")
        print("\n".join(SELF_EXPECTED) + "\n(and two stale PENDING counts)")
        return 1
    root = sys.argv[1]
    failures = judge(scan(root), PENDING)
    for line in failures:
        print("FAIL: " + line)
    if failures:
        print("test_compat_ids: ask the registry instead (compat_program.h; docs/ARCHITECTURE.md, "
              '"Adding a compatibility program")')
        return 1
    print("test_compat_ids: %d programs; no id compared, cased, indexed or listed outside its "
          "module and the registry%s"
          % (len(programs(root)),
             " but in %d files not moved yet" % len(PENDING) if PENDING else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
