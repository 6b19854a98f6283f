#!/usr/bin/env python3
"""bench/public_table.py RESULT.json -- bench_public.c's matrix as a table:
per ISA, ring and key stream, the median CPU time per lookup of each case
(ns) and placer's ratios to the floor, the reference S+ tree and
std::lower_bound, all from the one process that wrote RESULT.json (run with
--benchmark_repetitions=7 --benchmark_enable_random_interleaving=true), and
batch_vs_floor's paired ratio (the median over repetitions of each
repetition's median of alternating floor / placer_batch passes)."""
import json
import sys
from collections import defaultdict

LABELS = {}
PAIRED = {}  # batch_vs_floor's counter: the median ratio of paired passes

def medians(path):
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("label"):
            LABELS[b["run_name"]] = b["label"]
        if b.get("aggregate_name") == "median" or (b.get("run_type") == "iteration" and b["run_name"] not in out):
            if b.get("error_occurred") or b.get("skipped"):
                continue
            if "batch_over_floor" in b:
                PAIRED[b["run_name"]] = b["batch_over_floor"]
            items = b.get("items_per_second")
            if not items:
                continue
            # CPU time per item: items_per_second is computed from CPU time
            out[b["run_name"]] = 1e9 / items
    return out

m = medians(sys.argv[1])
rows = defaultdict(dict)
for name, ns in m.items():
    parts = name.split("/", 4)
    if not name.startswith("public/") or len(parts) != 5:
        continue  # public/layout/... rows are per snapshot, not per key
    _, isa, ring, keys, what = parts
    rows[(ring, keys, isa)][what] = ns
cols = ["placer_batch", "router_batch", "placer_dependent", "floor", "reference_stree",
        "crc32c+std_lower_bound", "crc32c+std_lower_bound_dependent", "placer_hash_only",
        "floor_hash_only"]
print("| ring | keys | ISA | layout | " + " | ".join(cols) +
      " | batch/floor | paired batch/floor | S+/batch | lower_bound/batch | lower_bound/dependent | dependent lower_bound/dependent | hash/floor hash |")
print("|" + "---|" * (len(cols) + 11))
for (ring, keys, isa), r in sorted(rows.items()):
    g = lambda k: r.get(k, float("nan"))
    cells = ["%.2f" % g(c) for c in cols]
    ratios = [g("placer_batch") / g("floor"),
              PAIRED.get("public/%s/%s/%s/batch_vs_floor" % (isa, ring, keys), float("nan")),
              g("reference_stree") / g("placer_batch"),
              g("crc32c+std_lower_bound") / g("placer_batch"),
              g("crc32c+std_lower_bound") / g("placer_dependent"),
              g("crc32c+std_lower_bound_dependent") / g("placer_dependent"),
              g("placer_hash_only") / g("floor_hash_only")]
    layout = LABELS.get("public/%s/%s/%s/placer_batch" % (isa, ring, keys), "")
    print("| %s | %s | %s | %s | " % (ring, keys, isa, layout) + " | ".join(cells) + " | " +
          " | ".join("%.2fx" % x for x in ratios) + " |")
