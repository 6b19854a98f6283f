#!/usr/bin/env python3
"""test_diff_sampled.py -- `placer diff` between snapshots that hash keys
differently: a twemproxy import against a balanced placer ring
and against a haproxy membership, by a key file and by generated keys.
Each moved count is checked against `placer lookup` of the same keys in
both snapshots, each node's gives/receives against the same lookups, the
95% interval against the fraction, and text and JSON against each other.

Usage: test_diff_sampled.py PATH/TO/placer. Exit 0 or 1.
"""
import json
import os
import subprocess
import sys
import tempfile

FAILED = 0


def check(ok, what):
    global FAILED
    print(("ok   " if ok else "FAILED: ") + what, file=sys.stdout if ok else sys.stderr)
    FAILED += not ok


def run(placer, *args, stdin=None, rc=0):
    r = subprocess.run([placer] + list(args), input=stdin, capture_output=True, timeout=120)
    if r.returncode != rc:
        raise RuntimeError("placer %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.decode()))
    return r.stdout.decode()


def owners(placer, snap, keys):
    out = run(placer, "lookup", snap, "--json", stdin="".join(k + "\n" for k in keys).encode())
    return [json.loads(line)["owner"] for line in out.splitlines()]


def main():
    placer = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="placer-diff-") as tmp:
        p = lambda n: os.path.join(tmp, n)
        with open(p("tw.yml"), "w") as f:
            f.write("p:\n  listen: 127.0.0.1:22121\n  servers:\n   - 10.0.0.1:11211:1 a\n"
                    "   - 10.0.0.2:11211:2 b\n   - 10.0.0.3:11211:1 c\n")
        run(placer, "import-twemproxy", p("tw.yml"), "-o", p("tw.snap"))
        with open(p("ring.json"), "w") as f:
            json.dump({"strategy": "ring", "tokens": "balanced",
                       "nodes": [{"id": "a"}, {"id": "b", "weight": 2}, {"id": "c"}, {"id": "d"}]}, f)
        run(placer, "build", p("ring.json"), "-o", p("ring.snap"))
        with open(p("hap.json"), "w") as f:
            json.dump({"compat": "haproxy", "nodes": [{"id": "a"}, {"id": "b", "weight": 2},
                                                      {"id": "c"}]}, f)
        run(placer, "build", p("hap.json"), "-o", p("hap.snap"))
        keys = ["user:%d" % (i * 7919) for i in range(3000)]
        with open(p("keys.txt"), "w") as f:
            f.write("".join(k + "\n" for k in keys))
        for other in ("ring.snap", "hap.snap"):
            what = "tw.snap -> " + other
            d = json.loads(run(placer, "diff", p("tw.snap"), p(other), "--key-file", p("keys.txt"),
                               "--json"))
            s = d["sampled"]
            a, b = owners(placer, p("tw.snap"), keys), owners(placer, p(other), keys)
            moved = sum(x != y for x, y in zip(a, b))
            check(s["keys"] == len(keys) and s["moved_keys"] == moved,
                  "%s: %d of %d keys moved (diff says %d of %d)" % (what, moved, len(keys),
                                                                    s["moved_keys"], s["keys"]))
            check(abs(s["moved"] - moved / len(keys)) < 1e-12 and d["moved"] == s["moved"]
                  and d["exact"] is False and s["source"] == "key_file", what + ": the fraction")
            lo, hi = s["interval95"]
            check(lo < s["moved"] < hi and hi - lo < 0.05, "%s: interval %.4f .. %.4f" % (what, lo, hi))
            for n in s["nodes"]:
                gives = sum(x == n["id"] and y != x for x, y in zip(a, b)) / len(keys)
                gets = sum(y == n["id"] and y != x for x, y in zip(a, b)) / len(keys)
                check(abs(n["gives"] - gives) < 1e-12 and abs(n["receives"] - gets) < 1e-12,
                      "%s: node %s gives %.4f receives %.4f" % (what, n["id"], gives, gets))
            check(sorted(n["id"] for n in s["nodes"]) == sorted(set(a) | set(b) | {"a", "b", "c"}),
                  what + ": every node of either snapshot listed")
            text = run(placer, "diff", p("tw.snap"), p(other), "--key-file", p("keys.txt"))
            check(text.startswith("moved: %.4f%% of %d sampled keys (key file " % (100 * s["moved"], len(keys))),
                  what + ": text says the same: " + text.splitlines()[0])
        # generated keys: the stated default size, the same keys every run
        g1 = json.loads(run(placer, "diff", p("tw.snap"), p("ring.snap"), "--json"))["sampled"]
        g2 = json.loads(run(placer, "diff", p("tw.snap"), p("ring.snap"), "--json"))["sampled"]
        check(g1["keys"] == 100000 and g1["source"] == "generated" and g1 == g2,
              "generated: 100,000 keys by default, the same each run")
        g3 = json.loads(run(placer, "diff", p("tw.snap"), p("ring.snap"), "--json", "--sample", "5000"))["sampled"]
        check(g3["keys"] == 5000, "--sample 5000")
        same = json.loads(run(placer, "diff", p("hap.snap"), p("hap.snap"), "--json", "--sample", "2000"))["sampled"]
        check(same["moved_keys"] == 0 and same["interval95"][0] == 0, "a snapshot against itself moves nothing")
        run(placer, "diff", p("tw.snap"), p("ring.snap"), "--sample", "0", rc=1)
        run(placer, "diff", p("tw.snap"), p("ring.snap"), "--sample", "5", "--key-file", p("keys.txt"), rc=1)
        with open(p("empty.txt"), "w"):
            pass
        run(placer, "diff", p("tw.snap"), p("ring.snap"), "--key-file", p("empty.txt"), rc=2)
    print("test_diff_sampled: %s" % ("failed" if FAILED else "passed"))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
