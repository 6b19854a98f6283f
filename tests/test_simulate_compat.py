#!/usr/bin/env python3
"""test_simulate_compat.py -- `placer simulate` of compatibility-mode
memberships simulates the program's placement: with a key file,
each figure is recomputed from `placer lookup` of the same keys in the
membership, in the membership with one node more and with its first node
fewer, built by `placer build`. Usage: test_simulate_compat.py PLACER.
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


def run(placer, *args, stdin=None):
    r = subprocess.run([placer] + list(args), input=stdin, capture_output=True, timeout=120)
    if r.returncode:
        raise RuntimeError("placer %s: %s" % (" ".join(args), r.stderr.decode()))
    return r.stdout.decode()


def owners(placer, tmp, name, doc, keys):
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    run(placer, "build", path, "-o", path + ".snap")
    out = run(placer, "lookup", path + ".snap", "--json", stdin="".join(k + "\n" for k in keys).encode())
    return [json.loads(line)["owner"] for line in out.splitlines()]


MEMBERSHIPS = {
    "twemproxy": {"compat": "twemproxy", "key_hash": "md5",
                  "nodes": [{"id": "a", "weight": 1}, {"id": "b", "weight": 2}, {"id": "c", "weight": 1}]},
    "haproxy": {"compat": "haproxy", "nodes": [{"id": "a"}, {"id": "b", "weight": 3}, {"id": "c"}]},
    "libmemcached": {"compat": "libmemcached", "nodes": [
        {"id": "a", "address": "10.0.0.1:11211"}, {"id": "b", "address": "10.0.0.2:11211"}]},
}


def main():
    placer = sys.argv[1]
    keys = ["k%d" % (i * 104729) for i in range(20000)]
    with tempfile.TemporaryDirectory(prefix="placer-simc-") as tmp:
        kf = os.path.join(tmp, "keys.txt")
        with open(kf, "w") as f:
            f.write("".join(k + "\n" for k in keys))
        for prog, m in MEMBERSHIPS.items():
            path = os.path.join(tmp, prog + ".json")
            with open(path, "w") as f:
                json.dump(m, f)
            r = json.loads(run(placer, "simulate", path, "--key-file", kf, "--json"))
            check(r["compat"] == prog and r["keys"] == len(keys) and r["nodes"] == len(m["nodes"]),
                  prog + ": the program, its keys and nodes")
            base = owners(placer, tmp, prog + "-base", m, keys)
            weights = {n["id"]: n.get("weight", 1) for n in m["nodes"]}
            W = sum(weights.values())
            ratios = [base.count(i) / len(keys) / (w / W) for i, w in weights.items()]
            mean = sum(ratios) / len(ratios)
            check(abs(r["load"]["keys"]["max_mean"] - max(ratios) / mean) < 1e-9,
                  "%s: keys max/mean %.4f" % (prog, max(ratios) / mean))
            join = dict(m, nodes=m["nodes"] + [{"id": "simulated-join", "address": "192.0.2.250:11211",
                                                  "weight": max(1, round(W / len(weights)))}])
            after = owners(placer, tmp, prog + "-join", join, keys)
            moved = sum(a != b for a, b in zip(base, after)) / len(keys)
            check(abs(r["join"]["moved"] - moved) < 1e-12, "%s: join moves %.4f" % (prog, moved))
            removed = dict(m, nodes=m["nodes"][1:])
            after = owners(placer, tmp, prog + "-remove", removed, keys)
            moved = sum(a != b for a, b in zip(base, after)) / len(keys)
            check(abs(r["remove_first"]["moved"] - moved) < 1e-12 and
                  abs(r["remove_first"]["ideal"] - weights["a"] / W) < 1e-12,
                  "%s: removing the first node moves %.4f" % (prog, moved))
            text = run(placer, "simulate", path, "--key-file", kf)
            check("(the program's own placement)" in text.splitlines()[0], prog + ": the text says so")
    print("test_simulate_compat: %s" % ("failed" if FAILED else "passed"))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
