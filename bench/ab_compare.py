#!/usr/bin/env python3
"""bench/ab_compare.py DIR -- the comparison of bench/regress.sh ab.

DIR holds A.<round>.json and B.<round>.json (Google Benchmark's JSON, one
run of each benchmark per file). Per benchmark: the median CPU time of A's
rounds and of B's, the raw ratio B/A of the medians, that ratio divided by
the normaliser's (a benchmark whose code both builds share, so its ratio is
the machine's change of speed between them), and the rounds in which B was
slower than A in the same round. Exit 1 when a benchmark's normalised ratio
is over the threshold and B was slower in all rounds but at most one.
"""
import argparse
import glob
import json
import os
import statistics
import sys


def times(path):
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        # skipped ones (no AVX-512 here) report an error and no time
        if b.get("run_type", "iteration") == "iteration" and not b.get("error_occurred") \
                and b.get("iterations", 0) > 0:
            out[b["run_name"]] = b["cpu_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--norm", required=True)
    ap.add_argument("--threshold", type=float, default=10)
    ap.add_argument("--rounds", type=int, required=True)
    ap.add_argument("--a-label", default="A")
    o = ap.parse_args()
    runs = {}
    for side in "AB":
        files = sorted(glob.glob(os.path.join(o.dir, f"{side}.*.json")))
        if len(files) != o.rounds:
            sys.exit(f"ab_compare: {len(files)} runs of {side}, {o.rounds} rounds")
        runs[side] = [times(f) for f in files]
    names = [n for n in runs["A"][0] if all(n in r for r in runs["A"] + runs["B"])]
    if o.norm not in names:
        sys.exit(f"ab_compare: the normaliser {o.norm} is not in every run")
    med = {s: {n: statistics.median(r[n] for r in runs[s]) for n in names} for s in "AB"}
    norm = med["B"][o.norm] / med["A"][o.norm]
    limit = 1 + o.threshold / 100
    print(f"A = {o.a_label}, B = this tree; medians of {o.rounds} rounds, CPU time")
    print(f"normaliser {o.norm}: B/A {norm:.3f}")
    print(f"{'benchmark':<48} {'A ns':>12} {'B ns':>12} {'raw B/A':>8} {'norm':>7} {'B slower':>8}")
    bad = []
    for n in names:
        a, b = med["A"][n], med["B"][n]
        raw = b / a
        slower = sum(rb[n] > ra[n] for ra, rb in zip(runs["A"], runs["B"]))
        flag = raw / norm > limit and slower >= o.rounds - 1
        if flag:
            bad.append(n)
        print(f"{n:<48} {a:>12.1f} {b:>12.1f} {raw:>8.3f} {raw / norm:>7.3f} {slower:>5}/{o.rounds}"
              + ("  REGRESSION" if flag else ""))
    print(f"\n{len(bad)} regressions over {o.threshold:.0f}% (normalised, B slower in "
          f"{o.rounds - 1}+ of {o.rounds} rounds) among {len(names)} benchmarks")
    for n in bad:
        print(f"  {n}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
