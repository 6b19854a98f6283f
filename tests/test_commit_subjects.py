#!/usr/bin/env python3
"""tests/test_commit_subjects.py SOURCE_ROOT -- every commit made after
BASELINE (merges included) has a subject of at most 72 characters
(CONTRIBUTING.md, "Commits"), so `git log --oneline` and bisect read well.
History up to BASELINE, which has longer subjects under its merges, is
not rewritten and not checked.

Skipped (exit 77) where SOURCE_ROOT is not a git checkout (a release
tarball) or is a shallow clone without BASELINE; a full clone without
BASELINE fails: the history was rewritten.

Before checking, the test runs on a made-up repository holding a subject
of 72 characters and one of 73 after its baseline, and must report the
second alone: so it can fail.
"""
import os
import shutil
import subprocess
import sys
import tempfile

BASELINE = "e0a297a"  # main when the rule got its check
LIMIT = 72


def git(root, *args, env=None):
    return subprocess.run(["git", "-C", root] + list(args), check=True, capture_output=True,
                          text=True, encoding="utf-8", env=env).stdout


def too_long(root, base):
    """[(hash, subject)] of the commits after base whose subject is over LIMIT."""
    out = git(root, "log", "--format=%h%x09%s", base + "..HEAD")
    bad = []
    for line in out.splitlines():
        h, _, subject = line.partition("\t")
        if len(subject) > LIMIT:
            bad.append((h, subject))
    return bad


def self_test():
    d = tempfile.mkdtemp(prefix="placer-subjects-")
    try:
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t", GIT_CONFIG_NOSYSTEM="1", HOME=d)
        git(d, "init", "-q", env=env)
        for subject in ("x" * 200, "base", "y" * LIMIT, "z" * (LIMIT + 1), "é" * LIMIT):
            git(d, "commit", "-q", "--allow-empty", "-m", subject, env=env)
            if subject == "base":
                base = git(d, "rev-parse", "HEAD", env=env).strip()
        got = [s for _, s in too_long(d, base)]
        if got != ["z" * (LIMIT + 1)]:
            print("FAIL: the check on a made-up history reported %r" % got)
            return False
        return True
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    root = sys.argv[1]
    if shutil.which("git") is None:
        print("git not installed: skipped")
        return 77
    try:
        git(root, "rev-parse", "--git-dir")
    except subprocess.CalledProcessError:
        print("%s is not a git checkout: skipped" % root)
        return 77
    if not self_test():
        return 1
    try:
        git(root, "rev-parse", "--verify", "--quiet", BASELINE + "^{commit}")
    except subprocess.CalledProcessError:
        if git(root, "rev-parse", "--is-shallow-repository").strip() == "true":
            print("shallow clone without %s: skipped" % BASELINE)
            return 77
        print("FAIL: %s, the baseline, is not in this history" % BASELINE)
        return 1
    bad = too_long(root, BASELINE)
    for h, subject in bad:
        print("FAIL: %s: subject of %d characters (at most %d): %s" % (h, len(subject), LIMIT, subject))
    if bad:
        print("Reword them before they land (git rebase -i): CONTRIBUTING.md, \"Commits\".")
        return 1
    n = len(git(root, "log", "--format=%h", BASELINE + "..HEAD").splitlines())
    print("test_commit_subjects: the %d commits after %s have subjects of at most %d characters"
          % (n, BASELINE, LIMIT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
