#!/usr/bin/env python3
"""bench/lookup_json_ratio.py [PLACER] [--keys N] [--rounds R] [--out FILE]

`placer lookup --json` against `placer lookup` (text) on the same keys and
snapshot: R rounds, each running both (in alternating order, so drift
favours neither), timing each run's CPU (user + system, from wait4) and
wall clock. Prints every round's json/text ratio and their medians; the
goal is json within 2.5x of text. Keys: "user:1" .. "user:N" (1,000,000 by
default) from a file, so reading them costs both alike; a 4-node ring with
3 replicas in 3 zones. Output goes to /dev/null unless --out names a file
(then both write it, rewritten each run).
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

MEMBERSHIP = """{"strategy": "ring", "replicas": 3, "nodes": [
 {"id": "a", "zone": "z1", "address": "10.0.0.1:11211"},
 {"id": "b", "zone": "z2", "address": "10.0.0.2:11211"},
 {"id": "c", "zone": "z3", "address": "10.0.0.3:11211"},
 {"id": "d", "zone": "z1", "address": "10.0.0.4:11211"}]}
"""


def run(cmd, keys, out):
    """(CPU seconds, wall seconds) of one run."""
    with open(keys, "rb") as fin, open(out, "wb") as fout:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdin=fin, stdout=fout)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("failed: %s" % " ".join(cmd))
    return ru.ru_utime + ru.ru_stime, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("placer", nargs="?", default="build/cli/placer")
    ap.add_argument("--keys", type=int, default=1000000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--out", default=os.devnull)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        member, snap, keys = (os.path.join(d, f) for f in ("m.json", "m.snap", "keys"))
        with open(member, "w") as f:
            f.write(MEMBERSHIP)
        subprocess.run([a.placer, "build", member, "-o", snap], check=True, stdout=subprocess.DEVNULL)
        with open(keys, "w") as f:
            f.write("".join("user:%d\n" % i for i in range(1, a.keys + 1)))
        text_cmd = [a.placer, "lookup", "-q", snap]
        json_cmd = [a.placer, "lookup", "-q", "--json", snap]
        cpu, wall = [], []
        print("round  text_cpu_s  json_cpu_s  cpu_ratio  text_wall_s  json_wall_s  wall_ratio")
        for r in range(a.rounds):
            order = [("text", text_cmd), ("json", json_cmd)]
            if r % 2:
                order.reverse()
            got = {name: run(cmd, keys, a.out) for name, cmd in order}
            cpu.append(got["json"][0] / got["text"][0])
            wall.append(got["json"][1] / got["text"][1])
            print("%5d  %10.3f  %10.3f  %9.2f  %11.3f  %11.3f  %10.2f" % (
                r, got["text"][0], got["json"][0], cpu[-1], got["text"][1], got["json"][1], wall[-1]))
        print("median json/text over %d rounds of %d keys: CPU %.2fx, wall %.2fx (goal: within 2.5x)"
              % (a.rounds, a.keys, statistics.median(cpu), statistics.median(wall)))


if __name__ == "__main__":
    main()
