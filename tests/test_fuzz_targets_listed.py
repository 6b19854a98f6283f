#!/usr/bin/env python3
"""tests/test_fuzz_targets_listed.py SOURCE_ROOT -- README's fuzzing entry
names every fuzz target.

The targets: the names in fuzz/meson.build's fuzz_targets list, every
executable('fuzz_NAME' it builds outside that list (compat), and every
fuzz/fuzz_NAME.c. Each must appear in backquotes (`NAME`) in README.md's
"**Fuzzing:**" entry (from that line to the next "- **" entry or heading),
and every fuzz/fuzz_NAME.c must be one meson builds (a file no build
knows is a fuzzer nobody runs).

Before reading the real files, the check runs on a made-up meson list,
file list and README holding one omission of each kind and must report
exactly those: so it can fail.
"""
import os
import re
import sys


def meson_targets(text):
    """Names meson builds: the fuzz_targets list and executable('fuzz_X'."""
    names = set()
    m = re.search(r"^fuzz_targets\s*=\s*\[([^\]]*)\]", text, re.M)
    if m:
        names |= set(re.findall(r"'([A-Za-z0-9_]+)'", m.group(1)))
    names |= set(re.findall(r"executable\(\s*'fuzz_([A-Za-z0-9_]+)'", text))
    return names


def readme_entry(text):
    """The text of README's fuzzing entry, or None."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("- **Fuzzing:**"):
            end = i + 1
            while end < len(lines) and not lines[end].startswith(("- **", "#")):
                end += 1
            return "\n".join(lines[i:end])
    return None


def check(meson_text, source_names, readme_text):
    problems = []
    built = meson_targets(meson_text)
    if not built:
        problems.append("fuzz/meson.build: no fuzz_targets list found")
    for name in sorted(source_names - built):
        problems.append("fuzz/fuzz_%s.c: no build in fuzz/meson.build" % name)
    entry = readme_entry(readme_text)
    if entry is None:
        return problems + ["README.md: no '- **Fuzzing:**' entry"]
    listed = set(re.findall(r"`([A-Za-z0-9_]+)`", entry))
    for name in sorted((built | source_names) - listed):
        problems.append("README.md: fuzz target `%s` missing from the Fuzzing entry" % name)
    return problems


def self_check():
    meson = "fuzz_targets = ['alpha', 'beta']\nexecutable('fuzz_gamma', 'fuzz_gamma.c')\n"
    readme = "# x\n- **Fuzzing:** targets `alpha`,\n  `gamma`.\n- **Other:** `beta`\n"
    got = check(meson, {"alpha", "beta", "gamma", "delta"}, readme)
    want = ["fuzz/fuzz_delta.c: no build in fuzz/meson.build",
            "README.md: fuzz target `beta` missing from the Fuzzing entry",
            "README.md: fuzz target `delta` missing from the Fuzzing entry"]
    if got != want:
        print("self-check failed: on a made-up tree the check said %r, not %r" % (got, want))
        return False
    if check(meson, {"alpha", "beta", "gamma"}, readme.replace("`gamma`", "`gamma`, `beta`")):
        print("self-check failed: a complete made-up README was refused")
        return False
    return True


def main():
    if len(sys.argv) != 2:
        print("usage: test_fuzz_targets_listed.py SOURCE_ROOT", file=sys.stderr)
        return 2
    if not self_check():
        return 1
    root = sys.argv[1]
    fuzz = os.path.join(root, "fuzz")
    sources = {f[len("fuzz_"):-2] for f in os.listdir(fuzz) if f.startswith("fuzz_") and f.endswith(".c")}
    problems = check(open(os.path.join(fuzz, "meson.build"), encoding="utf-8").read(), sources,
                     open(os.path.join(root, "README.md"), encoding="utf-8").read())
    for p in problems:
        print(p)
    print("fuzz_targets_listed: %d targets, %d problems" % (len(sources), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
