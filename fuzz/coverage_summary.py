#!/usr/bin/env python3
"""fuzz/coverage_summary.py ROOT COVERAGE.lcov [UNREACHED.txt] -- the share of
libplacer's and libplacer-control's lines that the fuzz corpora reach, from
llvm-cov's lcov export (fuzz/coverage.sh makes it).

libplacer: engine/ and simd/ (less simd/eytzinger.c and simd/search_scalar.c,
baselines the library does not ship); libplacer-control: control/, and a
row for it less its etcd client (control/etcd_*: no fuzz target has a
server to talk to). A line is one llvm-cov counts (DA record): code, not
comments or blank lines.

Two kinds of lines are counted apart, since no input can reach them:
  - kernels of instruction sets this CPU lacks: the files simd/meson.build
    builds with an instruction set's flags (their names end in _avx512,
    _avx2, _bmi2, _simd128, _sse, _sse41, _clmul, crc32c_hw), when
    /proc/cpuinfo does not list that set's flags;
  - allocation-failure paths: a run of at most 6 consecutive unreached lines
    holding PLACER_ENOMEM (the error a failed allocation returns; the run is
    its cleanup, e.g. "plc_free(a); plc_free(b); return PLACER_ENOMEM;"),
    and no string literal (a run with a message is another refusal too).
    tests/test_alloc_fail.c walks those paths; fuzzing cannot.
Every other unreached line is listed by file (most first), and all of them
in UNREACHED.txt (file:line: source text, the kind in brackets).
"""
import os
import re
import sys

LIBS = (
    ("libplacer", ("engine/", "simd/"), ("simd/eytzinger.c", "simd/search_scalar.c")),
    ("libplacer-control", ("control/",), ()),
)
# Rows that count a library's files less some: the etcd client talks to a
# server, which no fuzz target has (tests/test_etcd*.c run it against etcd).
EXTRA_ROWS = (("control less etcd_*", "libplacer-control", "control/etcd_"),)
# Kernel file name -> the /proc/cpuinfo flags its instruction set needs
# (simd/meson.build's isa_table). aarch64 lists crc32 and asimd.
X86_ISA = (
    (r"_avx512\.c$", {"avx512f", "avx512dq", "avx512bw", "avx512vl", "popcnt"}),
    (r"_(avx2|bmi2)\.c$", {"avx2", "bmi2", "popcnt"}),
    (r"_(simd128|sse|sse41)\.c$", {"sse4_2"}),
    (r"_clmul\.c$", {"sse4_2", "pclmulqdq"}),
    (r"crc32c_hw\.c$", {"sse4_2"}),
)
ARM_ISA = (
    (r"_simd128\.c$", {"asimd"}),
    (r"crc32c_hw\.c$", {"crc32"}),
)
ALLOC_RUN = 6


def cpu_flags(path="/proc/cpuinfo"):
    try:
        for line in open(path, encoding="utf-8", errors="replace"):
            if line.startswith(("flags", "Features")):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def read_lcov(path, root):
    """{relative path: {line: count}}, counts of a file named twice added."""
    files, cur = {}, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("SF:"):
            rel = os.path.relpath(os.path.realpath(line[3:]), root)
            cur = files.setdefault(rel, {})
        elif line.startswith("DA:") and cur is not None:
            n, count = line[3:].split(",")[:2]
            cur[int(n)] = cur.get(int(n), 0) + int(count)
        elif line == "end_of_record":
            cur = None
    return files


def lib_of(rel):
    for name, dirs, skip in LIBS:
        if rel.startswith(dirs) and not rel.startswith(skip):
            return name
    return None


def absent_isa(rel, flags, table):
    for pattern, need in table:
        if re.search(pattern, rel):
            return not need <= flags
    return False


def alloc_lines(lines, src):
    """The unreached lines in short runs that hold PLACER_ENOMEM."""
    out, run = set(), []
    numbers = sorted(lines)
    for i, n in enumerate(numbers + [None]):
        if n is not None and lines[n] == 0:
            run.append(n)
            continue
        if (run and len(run) <= ALLOC_RUN and any("ENOMEM" in src.get(k, "") for k in run)
                and not any('"' in src.get(k, "") for k in run)):
            out.update(run)
        run = []
    return out


def summarize(root, files, flags, table):
    rows = [name for name, _, _ in LIBS] + [row for row, _, _ in EXTRA_ROWS]
    stats = {name: {"lines": 0, "reached": 0, "isa": 0, "alloc": 0} for name in rows}
    unreached = []  # (lib, rel, line, kind, text)
    for rel in sorted(files):
        lib = lib_of(rel)
        if lib is None:
            continue
        lines = files[rel]
        try:
            src = dict(enumerate(open(os.path.join(root, rel), encoding="utf-8").read().split("\n"), 1))
        except OSError:
            src = {}
        isa = absent_isa(rel, flags, table)
        alloc = set() if isa else alloc_lines(lines, src)
        counted = [stats[lib]] + [stats[row] for row, of, less in EXTRA_ROWS
                                  if of == lib and not rel.startswith(less)]
        for n, count in sorted(lines.items()):
            kind = "reached" if count else "isa" if isa else "alloc" if n in alloc else "other"
            for s in counted:
                s["lines"] += 1
                if kind != "other":
                    s[kind] += 1
            if count == 0:
                unreached.append((lib, rel, n, kind, src.get(n, "").strip()))
    return stats, unreached


def pct(a, b):
    return "%.1f%%" % (100.0 * a / b) if b else "-"


def report(stats, unreached, flags_note, out=sys.stdout):
    print("fuzz corpora coverage (%s)" % flags_note, file=out)
    print("%-20s %7s %8s %7s %12s %10s %10s %9s" % (
        "library", "lines", "reached", "share", "absent ISA", "alloc-fail", "reachable", "share"), file=out)
    for name, s in stats.items():
        reachable = s["lines"] - s["isa"] - s["alloc"]
        print("%-20s %7d %8d %7s %12d %10d %10d %9s" % (
            name, s["lines"], s["reached"], pct(s["reached"], s["lines"]), s["isa"], s["alloc"],
            reachable, pct(s["reached"], reachable)), file=out)
    for name, _, _ in LIBS:
        per_file = {}
        for lib, rel, _, kind, _ in unreached:
            if lib == name and kind == "other":
                per_file[rel] = per_file.get(rel, 0) + 1
        top = sorted(per_file.items(), key=lambda kv: (-kv[1], kv[0]))
        print("%s: unreached lines by file (allocation failures and absent ISAs apart)" % name, file=out)
        for rel, n in top[:25]:
            print("  %5d %s" % (n, rel), file=out)
        if len(top) > 25:
            print("  %5d in %d more files" % (sum(n for _, n in top[25:]), len(top) - 25), file=out)
        for kind, what in (("isa", "kernels of absent instruction sets"), ("alloc", "allocation-failure paths")):
            files = sorted({rel for lib, rel, _, k, _ in unreached if lib == name and k == kind})
            if files:
                print("%s: %s in %s" % (name, what, ", ".join(files)), file=out)


def self_check():
    """The two rules on made-up files: so they can fail."""
    lines = {1: 5, 2: 0, 3: 0, 4: 3, 5: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0, 11: 0, 12: 1}
    src = {2: "plc_free(a);", 3: "return PLACER_ENOMEM;", 5: "x = y;", 11: "return PLACER_ENOMEM;"}
    got = alloc_lines(lines, src)
    assert got == {2, 3}, got  # 5..11 is 7 lines: too long to be a cleanup
    src[2] = 'return fail("bad");'
    assert alloc_lines(lines, src) == set()
    assert absent_isa("simd/dir_avx512.c", {"avx2", "bmi2", "popcnt"}, X86_ISA)
    assert not absent_isa("simd/dir_avx2.c", {"avx2", "bmi2", "popcnt"}, X86_ISA)
    assert not absent_isa("simd/dir_scalar.c", set(), X86_ISA)
    assert lib_of("simd/eytzinger.c") is None and lib_of("control/membership.c") == "libplacer-control"


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    self_check()
    root = os.path.realpath(sys.argv[1])
    flags = cpu_flags()
    arm = "asimd" in flags
    stats, unreached = summarize(root, read_lcov(sys.argv[2], root), flags, ARM_ISA if arm else X86_ISA)
    if not any(s["lines"] for s in stats.values()):
        print("coverage_summary.py: no libplacer line in %s" % sys.argv[2], file=sys.stderr)
        return 1
    have = [isa for isa, need in (("avx512", X86_ISA[0][1]), ("avx2", X86_ISA[1][1]),
                                  ("sse4.2", X86_ISA[2][1]), ("pclmul", X86_ISA[3][1]))
            if need <= flags] if not arm else sorted(flags & {"asimd", "crc32"})
    report(stats, unreached, "this CPU: " + (" ".join(have) or "no vector ISA"))
    if len(sys.argv) == 4:
        with open(sys.argv[3], "w", encoding="utf-8") as f:
            for _, rel, n, kind, text in unreached:
                f.write("%s:%d: [%s] %s\n" % (rel, n, kind, text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
