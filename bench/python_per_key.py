#!/usr/bin/env python3
"""bench/python_per_key.py -- Snapshot.lookup of one key at a time, through
the C extension (placer/_native.c) and through ctypes, and Router.lookup
through the extension (a router serving the same ring), against uhashring's
HashRing.get_node (Debian's python3-uhashring, pure Python) in the same
process.

The snapshot: 120 nodes in 3 zones, 256 tokens each (the seed scenario);
uhashring's ring: the same 120 node names, its defaults. The keys: 100,000
distinct 32-byte str keys, looked up one by one in a Python loop (the loop
is the same for every form, so its cost is in every figure). The forms are
interleaved per round; medians of --reps rounds of CPU time. --json FILE
writes them as Google Benchmark JSON for bench/results_table.py add: the
row python/per_key/native (ns a key), the ctypes path's, the router's and
uhashring's ns and the extension's rate over ctypes' and uhashring's as
counters.

Usage (from a build tree):
  PLACER_LIBRARY_PATH=build/engine:build/control PYTHONPATH=python \\
  PLACER_EXTENSION_PATH=build/python /usr/bin/python3 bench/python_per_key.py
"""
import argparse
import json
import statistics
import time
import types

import placer
from placer import _native_reader

try:
    from uhashring import HashRing
except ImportError:
    HashRing = None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=100000)
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--json")
    args = ap.parse_args()
    if _native_reader.native is None:
        raise SystemExit("the C extension was not found: build it and set PLACER_EXTENSION_PATH")
    names = ["node-%d" % i for i in range(120)]
    membership = {"strategy": "ring", "vnodes": 256, "seed": 1,
                  "nodes": [{"id": n, "zone": "zone-%s" % "abc"[i % 3]} for i, n in enumerate(names)]}
    snap = placer.build(membership, epoch=1)
    router = placer.Router(placer.build(membership, epoch=1))
    keys = ["key:%028x" % (i * 0x9E3779B97F4A7C15 % (1 << 112)) for i in range(args.keys)]
    forms = {"native": snap.lookup, "ctypes": types.MethodType(placer.Snapshot.lookup, snap),
             "router": router.lookup}
    if HashRing is not None:
        forms["uhashring"] = HashRing(nodes=names).get_node
    if not forms["native"]("x") == forms["ctypes"]("x") == forms["router"]("x"):
        raise SystemExit("the two paths disagree")
    times = {k: [] for k in forms}
    for _ in range(args.reps):
        for name, fn in forms.items():
            t = time.process_time_ns()
            for k in keys:
                fn(k)
            times[name].append((time.process_time_ns() - t) / len(keys))
    med = {k: statistics.median(v) for k, v in times.items()}
    print("%d keys of 32 bytes one at a time, 120 x 256 ring, median of %d rounds (CPU time)"
          % (len(keys), args.reps))
    for name, ns in med.items():
        extra = "  %.2fx uhashring's rate" % (med["uhashring"] / ns) if "uhashring" in med else ""
        print("%-10s %8.1f ns a key%s  %.2fx the ctypes path's rate" % (name, ns, extra,
                                                                          med["ctypes"] / ns))
    if args.json:  # one row: the extension's figure, the others as counters
        row = {"name": "python/per_key/native", "run_name": "python/per_key/native",
               "repetitions": args.reps, "time_unit": "ns", "cpu_time": med["native"],
               "ctypes_ns": med["ctypes"], "rate_over_ctypes": med["ctypes"] / med["native"],
               "router_ns": med["router"]}
        if "uhashring" in med:
            row["uhashring_ns"] = med["uhashring"]
            row["rate_over_uhashring"] = med["uhashring"] / med["native"]
        with open(args.json, "w") as f:
            json.dump({"context": {"date": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())},
                       "benchmarks": [row]}, f, indent=1)

if __name__ == "__main__":
    main()
