#!/usr/bin/env python3
"""Every test that starts threads is in meson's 'threads' suite.

scripts/test.sh runs only that suite under ThreadSanitizer: TSan finds
races between threads, and a test that never starts a second thread gives
it nothing to see (those tests run under ASan+UBSan and in release). This
test keeps the suite honest: a test whose program's sources call
pthread_create, make a router (liburcu's call_rcu thread frees its old
snapshots) or start an etcd follower, or whose script runs `placer watch`
or `placer demo` (the follower, the demo's readers), fails here unless it
carries the suite.

Usage: test_threads_suite.py BUILD_DIR
"""
import json
import os
import re
import sys

# C sources: the calls that start a thread, directly or in the library.
C_THREADS = re.compile(r"\b(pthread_create|thrd_create|placer_router_new|placer_follower_start\w*)\s*\(")
# Scripts: the commands that start threads in the placer program, run as
# `"$placer" watch ...` (shell) or `[placer, "watch", ...]` (Python).
SCRIPT_THREADS = re.compile(r"placer\S*\s+(watch|demo)\b|[\"'](watch|demo)[\"']")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    info = os.path.join(sys.argv[1], "meson-info")
    tests = json.load(open(os.path.join(info, "intro-tests.json")))
    targets = json.load(open(os.path.join(info, "intro-targets.json")))
    sources = {}
    for t in targets:
        for f in t["filename"]:
            sources[f] = [s for ts in t["target_sources"] for s in ts.get("sources", [])]

    missing, threaded = [], []
    for t in tests:
        # The test's own program, or the script it runs (not the programs
        # passed to it as arguments: the script says which commands it runs).
        why = None
        prog = t["cmd"][0]
        if prog in sources:
            for src in sources[prog]:
                if src.endswith((".c", ".cc")) and C_THREADS.search(read(src)):
                    why = os.path.basename(src)
                    break
        else:
            script = next((a for a in t["cmd"][1:] if a.endswith((".sh", ".py")) and os.path.isfile(a)), None)
            if script and os.path.samefile(script, __file__):
                continue  # this file names the commands it looks for
            if script and SCRIPT_THREADS.search(read(script)):
                why = os.path.basename(script)
        if why is None:
            continue
        threaded.append(t["name"])
        if "placer:threads" not in t["suite"]:
            missing.append(f"{t['name']} ({why} starts threads)")
    if not threaded:
        print("no test starts threads: the patterns no longer match the sources")
        return 1
    for m in missing:
        print(f"not in the 'threads' suite: {m}")
    print(f"{len(threaded)} tests start threads, {len(missing)} outside the suite")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
