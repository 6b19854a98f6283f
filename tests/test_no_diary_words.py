#!/usr/bin/env python3
"""tests/test_no_diary_words.py SOURCE_ROOT -- the project's files speak of
the code and its measurements, not of how the work was organised: no file
git tracks (docs, READMEs, NEWS.md, RESULTS, comments, test names, scripts,
data) names a work session, a tracker issue or a git branch, in its
contents or in its path. Commit messages are not scanned: they may name
the issue they close.

The rule, case-insensitive, a match may span a line break:
  - the word "session" or "sessions", then spaces and a number (an
    optional "#" before it): a session's number;
  - the word "issue" or "issues", then spaces and a number, likewise (a
    list of issues is caught at its first number); "issue" or "session"
    glued to a number by nothing, "-" or "_" too (a file name's form);
  - a branch name: the word "branch" or "branches", then spaces and a
    NAME (optionally in backquotes), or a NAME (optionally in
    backquotes) then spaces and the word "branch" standing alone (not
    "branch-free", "branchy"). A NAME is a git-branch-like token: it
    starts with a lower-case letter, holds only lower-case letters,
    digits, ".", "_", "/" and "-", and holds a digit (hot25, wt6-avx,
    sse4.2 too: say "the SSE4.2 path"), or it is one of KNOWN_BRANCHES,
    the names the project's branches have had. "hot" is a branch name
    only after the word "branch" ("a hot branch" is a CPU's).
  The word "branch" alone is allowed: a CPU's branch, "branch-free",
  "branch mispredicts", "a 50/50 branch", "this branch".
  - in paths, a component holding "issue" or "session" next to a number
    (by nothing, "-", "_" or "."), or a known branch name as a whole
    "-"/"_"-separated word.

Text files only: a file with a NUL byte in it (fuzz inputs, images) is
checked by its path alone. The files are those `git ls-files` lists; out
of a git checkout (a tarball), every file under SOURCE_ROOT but .git and
build folders.

Before scanning, the matcher runs on made-up samples holding each banned
form and each allowed form, and the test fails if it misjudges one: so it
can fail. The samples spell the banned words with an "@" inside
(sess@ion), removed before matching, so this file passes its own scan.
"""
import os
import re
import subprocess
import sys

KNOWN_BRANCHES = ("hot", "hot25", "sse25", "benchcmp", "difftruth", "etcdsoak", "fuzzkit",
                  "harden", "importers", "keyrules", "wording")
# names that are also plain English next to "branch" (a hot branch)
AFTER_BRANCH_ONLY = ("hot",)

NAME = r"[a-z][a-z0-9._/-]*[0-9][a-z0-9._/-]*"
KNOWN = "|".join(KNOWN_BRANCHES)
KNOWN_BEFORE = "|".join(b for b in KNOWN_BRANCHES if b not in AFTER_BRANCH_ONLY)

CONTENT_RULES = [
    ("a session's number", re.compile(r"\bsessions?(?:\s+#?|[-_]?)\d+", re.I)),
    ("an issue's number", re.compile(r"\bissues?(?:\s+#?|[-_]?#?)\d+", re.I)),
    # NAME is case-sensitive: "the AVX2 branch" is code, a lower-case name with a digit git's
    ("a branch name", re.compile(r"\b[Bb]ranch(?:es)?\s+`?(?:%s|(?:%s)\b)`?" % (NAME, KNOWN))),
    ("a branch name", re.compile(r"(?<![\w.-])`?(?:%s|%s)`?\s+[Bb]ranch(?![-\w])" % (NAME, KNOWN_BEFORE))),
]
PATH_RULES = [
    ("an issue or session in the path",
     re.compile(r"(?:issues?|sessions?)[-_.]?\d|\d[-_.]?(?:issue|session)", re.I)),
    ("a branch name in the path", re.compile(r"(?:^|[-_/.])(?:%s)(?=$|[-_/.])" % KNOWN, re.I)),
]


def content_hits(text):
    """[(line number, what, matched text)] of the banned forms in text."""
    hits = []
    for what, rule in CONTENT_RULES:
        for m in rule.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            hits.append((line, what, " ".join(m.group().split())))
    return sorted(set(hits))


def path_hits(path):
    return [(what, m.group()) for what, rule in PATH_RULES for m in [rule.search(path)] if m]


BANNED_SAMPLES = [
    "measured in sess@ion 12 on Zen 5",
    "Sess@ions 8-9 were loaded",
    "see bench/RESULTS.md sess@ion\n12)",
    "as iss@ue 25's goals ask",
    "(iss@ue 29)",
    "Iss@ue 29: the build took 38 s",
    "iss@ues 25 and 27",
    "iss@ue #37 item 4",
    "iss@ue25 and sess@ion11",
    "on branch h@ot25",
    "the sse@25 branch",
    "(`hot@25` branch)",
    "branch `ha@rden` has it",
    "from branch h@ot",
    "branches h@ot25 and sse@25",
]
ALLOWED_SAMPLES = [
    "a CPU branch the predictor loses",
    "branch-free select",
    "branch mispredicts per key",
    "a 50/50 branch",
    "this branch and the branch before it",
    "the hot branch of the loop",
    "the AVX2 branch of the dispatch",
    "`valgrind --branch-sim=yes`",
    "branchless and branchy searches",
    "user ids in URLs, session tokens",
    "session::00000000000000002654435761",
    "the issue's poisoned key; issue slots",
    "an sse4.2 branch-free kernel",
    "hash-type wt6 (haproxy's)",
]
BANNED_PATHS = ["bench/results/2026-12-02-iss@ue25-public.json",
                "bench/results/2026-12-02-public-sess@ion12.json",
                "bench/results/2026-12-02-h@ot25-zen3.json"]
ALLOWED_PATHS = ["bench/results/2026-12-02-public-1805-zen5.json",
                 "tests/known-answer/keys.txt", "engine/core/session_table.c",
                 "bench/results/2026-12-01-wt6-avx512-zen5.json"]


def self_test():
    wrong = []
    for s in BANNED_SAMPLES:
        if not content_hits(s.replace("@", "")):
            wrong.append("banned form not found: %r" % s.replace("@", ""))
    for s in ALLOWED_SAMPLES:
        if content_hits(s):
            wrong.append("allowed form flagged: %r %s" % (s, content_hits(s)))
    for p in BANNED_PATHS:
        if not path_hits(p.replace("@", "")):
            wrong.append("banned path not found: %r" % p.replace("@", ""))
    for p in ALLOWED_PATHS:
        if path_hits(p):
            wrong.append("allowed path flagged: %r" % p)
    for w in wrong:
        print("FAIL: the check itself: " + w)
    return not wrong


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout.decode("utf-8", "replace")
        return [p for p in out.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x != ".git" and not x.startswith("build")]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return sorted(files)


def main():
    if not self_test():
        return 1
    root = sys.argv[1]
    files = tracked_files(root)
    found = []
    texts = 0
    for rel in files:
        for what, m in path_hits(rel):
            found.append("%s: %s (%s)" % (rel, what, m))
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue  # deleted in the work tree, not yet in the index
        with open(path, "rb") as f:
            data = f.read()
        if b"\0" in data:
            continue
        texts += 1
        for line, what, m in content_hits(data.decode("utf-8", "replace")):
            found.append("%s:%d: %s (%s)" % (rel, line, what, m))
    for f in found:
        print("FAIL: " + f)
    if found:
        print("Say what the sentence means about the code or the measurement instead "
              "(a RESULTS table's heading, a machine and date, a file): CONTRIBUTING.md.")
        return 1
    print("test_no_diary_words: %d paths, %d text files: no session, issue or branch named"
          % (len(files), texts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
