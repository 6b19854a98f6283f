#!/usr/bin/env python3
"""bench/public_table.py RESULT.json -- bench_public.c's matrix as a table:
per ISA, ring and key stream, the median CPU time per lookup of each case
(ns) and placer's ratios to the floor, the reference S+ tree and
std::lower_bound, all from the one process that wrote RESULT.json (run with
--benchmark_repetitions=7 --benchmark_enable_random_interleaving=true), and
the paired ratios (the median over repetitions of each repetition's median
of alternating passes): batch_vs_floor (placer_batch / floor),
batch_vs_stree and batch_vs_lower_bound (the baseline / placer_batch),
dependent_vs_lower_bound (the dependent baseline / placer_dependent) and
dependent_vs_floor (placer_dependent / floor_dependent)."""
import json
import sys
from collections import defaultdict

LABELS = {}
PAIRED = {}  # run name -> the paired cases' counter: the median ratio of paired passes
COUNTERS = ("batch_over_floor", "stree_over_batch", "lower_bound_over_batch",
            "lower_bound_over_dependent", "dependent_over_floor")

def medians(path):
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("label"):
            LABELS[b["run_name"]] = b["label"]
        if b.get("aggregate_name") == "median" or (b.get("run_type") == "iteration" and b["run_name"] not in out):
            if b.get("error_occurred") or b.get("skipped"):
                continue
            for counter in COUNTERS:
                if counter in b:
                    PAIRED[b["run_name"]] = b[counter]
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
for name in PAIRED:  # a run of paired cases alone still makes its rows
    parts = name.split("/", 4)
    if len(parts) == 5:
        rows.setdefault((parts[2], parts[3], parts[1]), {})
cols = ["placer_batch", "placer_batch_16384", "router_batch", "placer_dependent", "floor", "floor_dependent",
        "reference_stree", "crc32c+std_lower_bound", "crc32c+std_lower_bound_dependent",
        "placer_hash_only", "floor_hash_only"]
paired = ["batch_vs_floor", "batch_vs_stree", "batch_vs_lower_bound",
          "dependent_vs_lower_bound", "dependent_vs_floor"]
print("| ring | keys | ISA | layout | " + " | ".join(cols) +
      " | batch/floor | paired batch/floor | S+/batch | paired S+/batch | lower_bound/batch"
      " | paired lower_bound/batch | lower_bound/dependent | dependent lower_bound/dependent"
      " | paired dependent lower_bound/dependent | paired dependent/dependent floor"
      " | hash/floor hash |")
print("|" + "---|" * (len(cols) + 15))
for (ring, keys, isa), r in sorted(rows.items()):
    g = lambda k: r.get(k, float("nan"))
    pg = lambda w: PAIRED.get("public/%s/%s/%s/%s" % (isa, ring, keys, w), float("nan"))
    cells = ["%.2f" % g(c) for c in cols]
    ratios = [g("placer_batch") / g("floor"), pg("batch_vs_floor"),
              g("reference_stree") / g("placer_batch"), pg("batch_vs_stree"),
              g("crc32c+std_lower_bound") / g("placer_batch"), pg("batch_vs_lower_bound"),
              g("crc32c+std_lower_bound") / g("placer_dependent"),
              g("crc32c+std_lower_bound_dependent") / g("placer_dependent"),
              pg("dependent_vs_lower_bound"), pg("dependent_vs_floor"),
              g("placer_hash_only") / g("floor_hash_only")]
    layout = LABELS.get("public/%s/%s/%s/placer_batch" % (isa, ring, keys), "")
    print("| %s | %s | %s | %s | " % (ring, keys, isa, layout) + " | ".join(cells) + " | " +
          " | ".join("%.2fx" % x for x in ratios) + " |")
