#!/usr/bin/env python3
"""bench/results_table.py -- bench/RESULTS.md from the kept JSON.

  bench/results_table.py                 print RESULTS.md to stdout
  bench/results_table.py --write         write bench/RESULTS.md
  bench/results_table.py --check         exit 1 if bench/RESULTS.md differs
  bench/results_table.py add CLASS RAW.json [--machine TEXT] [--repetitions N]
        merge a placer_bench run (Google Benchmark JSON, with repetitions or
        their medians) into bench/results/CLASS.json: each benchmark keeps
        its newest figure (the median CPU time of the run's repetitions)
  bench/results_table.py proof CLASS SUMMARY.json [NOTE]
        store bench/compare_proof.sh's summary (and a line on how the
        machine was loaded) in bench/results/CLASS.json

One JSON file per machine class (bench/results/CLASS.json, e.g.
zen5-avx512: the CPU family and its widest instruction set) holds the
current figures of that class; RESULTS.md is generated from them and from
nothing else. Each table row carries the filter that measures it again
with the table's command.
"""
import argparse
import glob
import json
import os
import re
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "RESULTS.md")
CLASSES = os.path.join(HERE, "results")
UNIT = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
STANDARD = {"name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
            "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
            "aggregate_name", "aggregate_unit", "label", "error_occurred", "error_message", "skipped"}
ISAS = ("avx512", "avx2", "sse4.2", "scalar", "neon", "arm")
# The public matrix's columns: (heading, case or counter, kind)
PUBLIC_COLS = [
    ("batch", "placer_batch", "ns"),
    ("router batch", "router_batch", "ns"),
    ("dependent", "placer_dependent", "ns"),
    ("floor", "floor", "ns"),
    ("p. batch/floor", "batch_vs_floor", "x"),
    ("p. lower_bound/batch", "batch_vs_lower_bound", "x"),
    ("p. lower_bound/dep.", "dependent_vs_lower_bound", "x"),
    ("p. dep./floor dep.", "dependent_vs_floor", "x"),
]
PAIRED_COUNTERS = {"batch_vs_floor": "batch_over_floor", "batch_vs_lower_bound": "lower_bound_over_batch",
                   "dependent_vs_lower_bound": "lower_bound_over_dependent",
                   "dependent_vs_floor": "dependent_over_floor"}
# The paired table of replica sets and the router: (heading, case, its counter)
PAIRED_COLS = [
    ("replicas/lookup dep.", "replicas_vs_dependent", "replicas_over_lookup"),
    ("replicas/lookup indep.", "replicas_vs_single", "replicas_over_lookup"),
    ("replicas/lookup batch", "replicas_vs_batch", "replicas_over_lookup"),
    ("walk/replicas dep.", "walk_vs_replicas_dependent", "walk_over_replicas"),
    ("walk/replicas batch", "walk_vs_replicas_batch", "walk_over_replicas"),
    ("router/lookup dep.", "router_vs_dependent", "router_over_lookup"),
    ("router/lookup indep.", "router_vs_single", "router_over_lookup"),
    ("router/lookup batch", "router_vs_batch", "router_over_lookup"),
    ("lookup dep./floor", "dependent_vs_floor", "dependent_over_floor"),
    ("lookup batch/floor", "batch_vs_floor", "batch_over_floor"),
]
HIDDEN_SIZES = {"8", "16", "64", "256", "1024", "2^18", "2^20", "2^22", "2^24"}  # the JSON keeps them
RING_ORDER = ["120x256", "120x256sets3", "120x256weighted", "120x256balanced", "4096x256", "4096x256sets3",
              "65536x256", "65537x256"]


def load_classes():
    out = {}
    for path in sorted(glob.glob(os.path.join(CLASSES, "*.json"))):
        with open(path) as f:
            out[os.path.basename(path)[:-5]] = json.load(f)
    return out


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def add(cls, raw, machine, reps_override):
    path = os.path.join(CLASSES, cls + ".json")
    data = {"class": cls, "machine": machine or "", "benchmarks": {}}
    if os.path.exists(path):
        with open(path) as f:
            data = json.load(f)
    if machine:
        data["machine"] = machine
    with open(raw) as f:
        run = json.load(f)
    date = run.get("context", {}).get("date", "")[:10]
    seen = defaultdict(list)
    for b in run.get("benchmarks", []):
        if b.get("error_occurred") or b.get("skipped"):
            continue
        agg = b.get("aggregate_name")
        if agg not in (None, "median") or (agg is None and b.get("run_type") == "aggregate"):
            continue
        seen[b["run_name"]].append(b)
    for name, rows in seen.items():
        meds = [r for r in rows if r.get("aggregate_name") == "median"]
        pick = meds if meds else rows  # the median aggregate, or every repetition
        scale = UNIT[pick[0].get("time_unit", "ns")]
        entry = {"date": date, "repetitions": reps_override or pick[0].get("repetitions", len(pick)),
                 "cpu_ns": round(median([r["cpu_time"] for r in pick]) * scale, 4)}
        items = [r["items_per_second"] for r in pick if r.get("items_per_second")]
        if items:
            entry["ns_per_item"] = round(1e9 / median(items), 4)
        counters = {k: round(median([r[k] for r in pick if k in r]), 4) for k in pick[0]
                    if k not in STANDARD and k != "items_per_second" and isinstance(pick[0][k], (int, float))}
        if counters:
            entry["counters"] = counters
        if pick[0].get("label"):
            entry["label"] = pick[0]["label"]
        old = data["benchmarks"].get(name)
        if old is None or old["date"] <= date:
            data["benchmarks"][name] = entry
    save(path, data)


def save(path, data):
    data["benchmarks"] = dict(sorted(data["benchmarks"].items()))
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


def proof(cls, summary, note):
    path = os.path.join(CLASSES, cls + ".json")
    with open(path) as f:
        data = json.load(f)
    with open(summary) as f:
        data["compare_proof"] = json.load(f)
    if note:
        data["compare_proof"]["note"] = note
    save(path, data)


def per_item(e):
    return e.get("ns_per_item", e["cpu_ns"])


def fmt(x, kind):
    if x is None:
        return "-"
    return f"{x:.2f}x" if kind == "x" else f"{x:.2f}"


def widest(names):
    for isa in ISAS:
        if any(f"/{isa}/" in n for n in names):
            return isa
    return None


def row_order(k):
    ring, keys, isa = k
    return (RING_ORDER.index(ring) if ring in RING_ORDER else 99, ring, keys != "stream", ISAS.index(isa)
            if isa in ISAS else 99)


def public_table(bench):
    rows = defaultdict(dict)
    dates = defaultdict(set)
    for name, e in bench.items():
        parts = name.split("/", 4)
        if len(parts) != 5 or parts[0] != "public" or parts[1] == "layout":
            continue
        _, isa, ring, keys, what = parts
        key = (ring, keys, isa)
        dates[key].add(e["date"])
        if what in PAIRED_COUNTERS:
            rows[key][what] = e.get("counters", {}).get(PAIRED_COUNTERS[what])
        else:
            rows[key][what] = per_item(e)
    if not rows:
        return []
    top = widest([f"/{isa}/" for _, _, isa in rows])
    out = ["ns per key (CPU time, the median of the run's repetitions); \"p.\" is a paired ratio, "
           f"the two passes alternating in one process; resident keys and the weighted and balanced rings "
           f"under {top} only. Command:", "",
           "```sh", "taskset -c 1 build/bench/placer_bench --benchmark_filter='FILTER' --benchmark_min_time=0.1 \\",
           "    --benchmark_repetitions=7 --benchmark_enable_random_interleaving=true",
           "```", "",
           "At 4,096 x 256 a dependent pass of 262,144 keys takes 30-45 ms, so 0.1 s gives 1-3 pairs "
           "a repetition: measure its paired cells with `--benchmark_min_time=1.5` or 2 (20-60 pairs; the "
           "JSON's `pairs` counter gives every cell's count, and zen5-avx512's 4,096 x 256 "
           "`floor` columns took 9 repetitions so, their dependent pairs still spreading 1.35-2.2x "
           "across repetitions on the loaded machine). There the dependent lookup reads lines of 8 MiB (2^17 of 64 bytes) where the "
           "floor reads a table of 4 MiB (4 bytes a token), and a dependent chain waits on every "
           "miss: with resident keys the same pair is 1.16x.", "",
           "| filter | " + " | ".join(h for h, _, _ in PUBLIC_COLS) + " | date |",
           "|---|" + "---:|" * len(PUBLIC_COLS) + "---|"]

    for key in sorted(rows, key=row_order):
        ring, keys, isa = key
        r = rows[key]
        if isa != top and (keys == "resident" or ring not in ("120x256", "4096x256")):
            continue
        if not any(r.get(c) is not None for _, c, _ in PUBLIC_COLS):
            continue
        cells = [fmt(r.get(c), kind) for _, c, kind in PUBLIC_COLS]
        out.append(f"| `^public/{isa}/{ring}/{keys}/` | " + " | ".join(cells) + f" | {max(dates[key])} |")
    return out


def paired_table(bench):
    """Replica sets and the router against placer_lookup on the same snapshot, paired."""
    rows = defaultdict(dict)
    dates = defaultdict(set)
    wanted = {case: counter for _, case, counter in PAIRED_COLS}
    for name, e in bench.items():
        parts = name.split("/", 4)
        if len(parts) != 5 or parts[0] != "public" or parts[4] not in wanted:
            continue
        _, isa, ring, keys, what = parts
        value = e.get("counters", {}).get(wanted[what])
        if value is None:
            continue
        rows[(ring, keys, isa)][what] = value
        dates[(ring, keys, isa)].add(e["date"])
    if not any(any(c in r for c in ("replicas_vs_dependent", "replicas_vs_batch")) for r in rows.values()):
        return []
    out = ["Medians of paired ratios (the two passes alternating in one process, CPU time of each pass): "
           "`placer_replicas` of 3 (3 zones) and `placer_router_lookup` over `placer_lookup` on the same snapshot "
           "(lower is better), the floor's hash + `std::lower_bound` + plain walk over `placer_replicas` (higher "
           "is better), and `placer_lookup` over the floor (it must not grow). Rings `sets3` are built with "
           "`placer_builder_set_replicas(b, 3)` and read through the fused line-set kernels "
           "(simd/buckets_sets_body.h); the others walk. With AVX-512 the walk's first lap (a node of each "
           "unused zone) comes from the key's line and the next, 16 consecutive owners read in vectors, "
           "their zones looked up (two word permutes up to 128 nodes, a gather past them) and the picks "
           "a mask, without the slot, a leaf or a conditional jump a token (simd/walk.h); ties, crowded lines, the "
           "last line and windows short of zones take the slot's walk, three leaf lines at a time. The "
           "other CPU levels walk a token at a time: a mispredicted conditional jump a token makes each key's walk "
           "wait for the last, and the slot and a leaf are two more misses after the line. "
           "Same command as above, with the row's filter, the paired cases only "
           "(`(replicas_vs_|walk_vs_replicas_|router_vs_|dependent_vs_floor|batch_vs_floor)`), 5 "
           "repetitions interleaved, `--benchmark_min_time=0.5` at 120 x 256 and 1.5 at 4,096 x 256 "
           "(the router cells of the plain 120 x 256 rows: `router_vs_` only, 9 repetitions, 1.0, load "
           "average 0.9-1, the machine otherwise idle): "
           "at 0.1 a dependent or independent pair of 4,096 x 256 passes fits once or twice, too few for "
           "a median (zen5-avx512, 2026-12-06, load average 2.5-4 from other jobs). "
           "The `sets3` line sets are 16 bytes beside each 64-byte line of the line table (2 MiB beside "
           "its 8 at 4,096 x 256; engine/core/replica_lines.c): a line's owner lanes past its tokens hold "
           "the owners of the tokens after it, so a byte a rank names the two lanes whose owners are the "
           "set's second and third nodes, or, where they are not among the line's 16 owners, a spill into the "
           "bytes past the line's ranks: the rank's own lane for the line's spill word (the one node most of "
           "its ranks missing one node miss, a 16-bit word), one lane twice for a record of both nodes. A key reads "
           "its line and its 16 bytes, both addressed by its hash and fetched together. The keys they leave "
           "take their per-slot sets: 1.5% at 4,096 x 256 (0.69% whose nodes are neither among the lanes nor "
           "spilled, 0.82% in crowded lines, 0.014% ties; 3.9% with records alone) and 0.9% at 120 x 256 "
           "(0.55%, 0.34%, 0.012%; 4 million random hashes), one "
           "key at a time through the slot kernel, the batch gathering them 64 at a time and reading their "
           "first-token indexes, at most 3 of a crowded line's tokens (in the tree's leaves; its line sets "
           "hold the suffixes of its tokens 3, 7, 11, ...) and their sets in "
           "passes of independent loads; the tree finds the slot of ties and of lines past 27 tokens only. "
           "The `sets3` rows come from runs on the otherwise idle machine (load average 1). The "
           "avx512 batch cells move with the machine's state more than their pairs' spread shows: the "
           "rows' runs read 1.73x at 4,096 x 256 and 1.49x at 120 x 256, three more idle runs of `replicas_vs_batch` "
           "alone within the same hour 1.62-1.71x and 1.50-1.57x, and earlier idle runs of the same code "
           "1.67x and 1.62-1.66x: past 1.5x at 4,096 x 256 in every run, at 120 x 256 in most. "
           "Paired runs of altered kernels at 4,096 x 256 (before the crowded lines' suffixes, "
           "1.68-1.73x as built, load average 3-4.7) give the batch's time: 1.13x reading no line sets, "
           "1.32-1.42x reading them but leaving no key, 1.50-1.57x leaving only the keys of lines that are "
           "not crowded: the keys left, 1.5%, take about a fifth of the batch (a first-token index, leaves "
           "and a per-slot set each, past the caches; answered a block after they are found instead of at "
           "the batch's end, 1.88x), the line sets' second miss a key most of the rest (perf: the pass "
           "waits on its prefetches). Line sets of 64 bytes a line (each rank's second and third nodes as "
           "16-bit ids beside a crowded line's suffixes) measured 1.82x, 1.86x and 1.75x at 4,096 x 256 and "
           "1.09x, 1.31x and 1.34x at 120 x 256 in paired runs (load average 3.0): with every line in the "
           "caches the keys left (and the lanes' extra read) cost more than the smaller table saves. "
           "Neither did two cheaper changes (idle or same-minute paired runs, alternating processes): "
           "the usual blocks stepped in a function of their own registers (five of eight reloads a key "
           "left) measured within the runs' spread at both sizes, and non-temporal stores of the sets "
           "1.71-1.72x against 1.58-1.60x at 120 x 256 (load average 2). "
           "Precomputed sets are not the default: on the zen5-avx512 machine "
           "(the `build/sets3/` and `build/sets5/` rows below: paired medians, 2026-12-06, load average "
           "0.8-1) they make a 120 x 256 build 1.53x longer (0.81 to 1.24 ms) and a 4,096 x 256 build "
           "1.38x (40 to 55 ms) in 3 zones, 1.51x and 1.38x with NetworkTopologyStrategy in one datacenter "
           "of 3 racks (the line sets' lanes and spills: sets of 3 zones reach past the next token), "
           "1.20-1.27x with one zone or SimpleStrategy (one backward sweep of every slot's set, "
           "engine/core/replica_sweep.c), and add 14-14.1 bytes a token (12 of per-slot sets, 2-2.1 of "
           "line sets) to a layout of 22.9-23.5. NetworkTopologyStrategy in one datacenter of one rack "
           "(`nts_1rack`, the deployment without racks: the first 3 hosts met) takes 1.66x and 1.48x, and "
           "over two datacenters of 3 racks, factors 3 and 2 (`build/sets5/`: sets of 5, with the wide line "
           "sets beside the narrow ones), 2.10x (0.82 to 1.71 ms) and 1.87x (39 to 74 ms): both one backward "
           "sweep of a list of the keys met first, racks or a single rack's hosts "
           "(engine/core/replica_sweep_dcs.c), the second then 20 bytes a token of per-slot sets and the "
           "wide line sets' 64 bytes a line (128 past 255 nodes) to write. A datacenter of 2 racks or more "
           "but fewer than its factor takes replica_rules.c's move-to-front lists (two laps of list moves a "
           "slot, each set sorted): the same rings through the lists took 2.14x and 2.00x (one rack) and "
           "3.70x and 3.12x (two datacenters; commit 96528a35, whose build took them there, with this "
           "benchmark file, minutes later).", "",
           "| filter | " + " | ".join(h for h, _, _ in PAIRED_COLS) + " | date |",
           "|---|" + "---:|" * len(PAIRED_COLS) + "---|"]

    for key in sorted(rows, key=row_order):
        ring, keys, isa = key
        r = rows[key]
        if not any(c in r for _, c, n in PAIRED_COLS if not n.endswith("_over_floor")):
            continue  # the lookup's floors alone: the public table has them
        cells = [fmt(r.get(c), "x") for _, c, _ in PAIRED_COLS]
        out.append(f"| `^public/{isa}/{ring}/{keys}/` | " + " | ".join(cells) + f" | {max(dates[key])} |")
    return out


# The bucket strategies against the papers' loops (bench/bench_buckets.c):
# (heading, mode); each cell the median of the pairs' ratios and their p90
BUCKET_PAPER_COLS = [
    ("single", "hash_vs_paper"),
    ("dependent", "dependent_vs_paper"),
    ("batch", "hash_batch_vs_paper"),
    ("single, loop only", "hash_vs_paper_bucket"),
    ("dependent, loop only", "dependent_vs_paper_bucket"),
    ("single, A/A", "paper_vs_paper"),
    ("dependent, A/A", "dependent_paper_vs_paper"),
]
BUCKET_PAPER_RE = re.compile(r"buckets/([^/]+)/([^/]+)/(?:([^/]+)/)?(" +
                             "|".join(m for _, m in BUCKET_PAPER_COLS) + ")$")


def bucket_paper_table(bench):
    rows, dates = defaultdict(dict), defaultdict(list)
    for n, e in bench.items():
        m = BUCKET_PAPER_RE.match(n)
        if not m:
            continue
        key = (m.group(1), m.group(2), m.group(3) or "dispatched")
        rows[key][m.group(4)] = e.get("counters", {})
        dates[key].append(e["date"])
    if not rows:
        return []
    out = ["Medians of paired ratios placer / paper, the 90th percentile of the pairs in parentheses "
           "(lower is better; the goals: single lookups at most 1.05x at the 90th percentile, dependent "
           "and independent, batches 1.3x faster, at most 0.77x). Each pair is a pass of "
           "`placer_lookup_hash` (single: independent keys; dependent: each key chosen by the previous "
           "answer) or `placer_lookup_hash_batch` over the benchmark's pre-hashed keys and a pass of the "
           "paper's loop over the same 64-bit hashes, alternating in one process, CPU time of each pass; "
           "1,000 buckets, `10pct` after 100 removals. Both sides are out-of-line calls: placer's into "
           "libplacer (the benchmark links the static library, a direct call; an application linking the "
           "shared one adds a PLT jump), the paper's loop into the reference library (tests/ref_buckets.c, "
           "tests/reference.c: JumpBack is Ertl's loop, jump Lamping and Veach's), its own translation "
           "unit without link-time optimisation, as a library providing the loop would be called; a loop "
           "compiled into the benchmark's file would be inlined into the timed loop and flatter the "
           "paper. A case is timed only when placer answers every key with the node of the loop's bucket. "
           "The papers answer buckets and placer nodes: the first three columns add the caller's read of "
           "the bucket's node from a plain array to the paper's pass (the same work on both sides); the "
           "`loop only` columns leave it out, charging placer for its table read (one L1 load on a "
           "dependent chain); the `A/A` columns pair the paper's pass with itself, the same work on both "
           "sides: their median is 1.00x, their 90th percentile the spread pairs at parity show on the "
           "machine while it is measured, beside which the others' are read. "
           "`dispatched` is the default CPU mask; jump, memento and jumpback, which have "
           "SIMD kernels, are also forced to each instruction set with the CPU mask (the snapshot decoded "
           "under it). Command: `taskset -c 1 build/bench/placer_bench "
           "--benchmark_filter='^buckets/.*_vs_paper(_bucket)?$' --benchmark_repetitions=3 "
           "--benchmark_min_time=0.2` (each cell the median of the 3 repetitions' figures). "
           "On the zen5-avx512 machine (2026-12-06, load average 0.7-0.9 from other jobs) the A/A pairs' "
           "90th percentile is 1.01-1.09x, JumpBack's 1.09x single and 1.04x dependent: what a lookup at "
           "parity with its loop would show there. JumpBack's single lookups are 0.91-0.92x (median) of Ertl's loop, "
           "1.01x at the 90th percentile; its dependent ones 0.95x (0.98-1.00x), r0's half selected before "
           "it is masked, off the chain. Single and dependent lookups run the same code at "
           "every CPU level (only batches have kernels). Runs minutes apart, on builds of the same lookup "
           "code, gave JumpBack's single lookups 0.90-0.96x (1.01-1.12x): the machine's state moves the "
           "pairs more than their spread within one run shows. Against the loop alone JumpBack's dependent "
           "lookups stay 1.09x, one table read more on the chain; Anchor's dependent ones are 0.94-0.95x "
           "(0.97-0.98x), within their A/A pairs' 1.03x. JumpBack's batches are 0.25x of the loop with AVX-512, 0.54x with AVX2, 0.42x at "
           "the sse4.2 level (its SSE4.1 kernel: the mixes in the general registers, the rest four keys a "
           "vector) and 0.62x at the scalar level (the portable kernel, whose lane-wise steps the compiler "
           "vectorizes with the baseline instruction set).", "",
           "| strategy | state | kernels | " + " | ".join(h for h, _ in BUCKET_PAPER_COLS) + " | date |",
           "|---|---|---|" + "---:|" * len(BUCKET_PAPER_COLS) + "---|"]
    isa_order = ["dispatched"] + list(ISAS)
    for key in sorted(rows, key=lambda k: (k[0], k[1], isa_order.index(k[2]) if k[2] in isa_order else 99)):
        cells = []
        for _, mode in BUCKET_PAPER_COLS:
            c = rows[key].get(mode)
            if not c or "over_paper" not in c:
                cells.append("-")
            else:
                cells.append(f"{c['over_paper']:.2f}x ({c.get('over_paper_p90', 0):.2f}x)")
        out.append(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(cells) + f" | {max(dates[key])} |")
    return out


def size_hidden(name):
    if re.match(r"codec/2\^20/(decode|memcpy)$", name):  # README cites these figures
        return False
    return any(p in HIDDEN_SIZES for p in name.split("/"))


def other_tables(bench):
    names = [n for n in bench if (not n.startswith("public/") or n.startswith("public/layout/"))
             and not BUCKET_PAPER_RE.match(n)]
    isa = widest(names)
    fams = defaultdict(list)
    for n in sorted(names):
        parts = n.split("/")
        if size_hidden(n):
            continue
        if isa and any(p in ISAS and p != isa for p in parts):
            continue
        fams[parts[0] if parts[0] != "public" else "public/layout"].append(n)
    out = []
    if not fams:
        return out
    out += ["Other benchmarks: ns per item (CPU time, the median of the run's repetitions), "
            f"{'under ' + isa + ' only, ' if isa else ''}at 30,720 tokens where a size is in the name "
            "(the class's JSON keeps the rest). Command: "
            "`taskset -c 1 build/bench/placer_bench --benchmark_filter='^NAME$' --benchmark_repetitions=7`"
            + ("; the `import/` rows (ns an import, paired with `placer build` of its membership: "
               "build_ms, import_over_build) `build/bench/import_vs_build 7 OUT.json`" if "import" in fams else "")
            + ("; the `python/` rows with the build tree's library and C extension "
               "(`PLACER_LIBRARY_PATH=build/engine:build/control PYTHONPATH=python "
               "PLACER_EXTENSION_PATH=build/python` before each command): the `python/per_key/` "
               "rows (ns a key, one at a time from Python; router_ns: "
               "Router.lookup) `taskset -c 1 /usr/bin/python3 bench/python_per_key.py --json OUT.json`, "
               "the `python/batch/` rows (ns a key, 262,144 keys in one Snapshot.lookup_batch; "
               "rate_over_c: the median of paired rates over one C call of placer_lookup_batch "
               "on the same keys, higher is better; numpy_u32's read_pass_ns: one read pass "
               "over the U array's 32 MiB, NumPy's OR of it as uint64, and over_read_pass: the "
               "median of paired rates over that pass) `taskset -c 1 /usr/bin/python3 "
               "bench/python_lookup.py --keys 262144 --reps 11 --json OUT.json`" if "python" in fams else "")
            + ("; the `compat/*/*_loop` rows (the client libraries themselves, ns a key in their "
               "own loop over 262,144 keys, pymemcache's 100 servers a tenth of them) "
               "`taskset -c 1 /usr/bin/python3 bench/clientlibs_peers.py --json OUT.json` (the "
               "`go_loop` row, wall time: `--keys 50000`)"
               if any(n.endswith("_loop") for f in fams.values() for n in f) else "")
            + ("; the `*/driver_python_loop` rows (the DataStax Python driver's "
               "TokenMap.get_replicas, ns a key) `taskset -c 1 /usr/bin/python3 "
               "bench/cassandra_driver_peer.py --json OUT.json`"
               if any(n.endswith("driver_python_loop") for f in fams.values() for n in f) else "")
            + ("; the `router/placer_router/writer_1000_differing_vs_lookup/*` rows with "
               "`taskset -c 0,1` instead: the reader on one CPU, the writer on the other under "
               "SCHED_FIFO (writer_on_other_cpu, writer_realtime), as a writer elsewhere leaves "
               "each new ring outside the reader's caches"
               if any("writer_1000_differing_vs_lookup" in n for f in fams.values() for n in f) else "")
            + ".", "",
            "| benchmark (NAME) | ns | counters | date |", "|---|---:|---|---|"]
    for fam in sorted(fams):
        for n in fams[fam]:
            e = bench[n]
            counters = ", ".join(f"{k} {v:g}" for k, v in sorted(e.get("counters", {}).items()))
            out.append(f"| `{n}` | {per_item(e):.2f} | {counters} | {e['date']} |")
    return out


def proof_section(p):
    o = p["compare_options"]
    out = ["### bench/compare's error rates", "",
           f"`bench/compare_proof.sh {p['runs']} {p['planted_slowdown']}`: {p['aa_runs']} comparisons of a build "
           f"against itself (A/A) and {p['planted_runs']} against the build with `-Dplanted_slowdown="
           f"{p['planted_slowdown']}` ({p['planted_slowdown']}/16 idle loop iterations per key in `placer_lookup` "
           "and `placer_lookup_batch`), alternating; each run is `bench/compare` with its defaults "
           f"({o['rounds']} rounds x {o['repetitions']} repetitions, threshold {100 * o['threshold']:g}%, "
           f"alpha {o['alpha']:g} with Holm's correction).", "",
           "| measure | value |", "|---|---:|",
           f"| A/A runs flagging any benchmark slower (false positives) | {p['aa_false_positives']} of {p['aa_runs']} |",
           f"| planted runs flagging any benchmark slower (detections) | {p['planted_detected']} of {p['planted_runs']} |"]
    if p.get("aa_median_detectable") is not None:
        out.append(f"| median smallest detectable change, A/A | {100 * p['aa_median_detectable']:.1f}% |")
    out += ["", "| planted build: benchmark | median B/A | flagged slower | median detectable |", "|---|---:|---:|---:|"]
    for n, e in p["planted_benchmarks"].items():
        det = "-" if e["median_detectable"] is None else f"{100 * e['median_detectable']:.1f}%"
        out.append(f"| `{n}` | {e['median_ratio']:.3f} | {e['flagged_slower']} of {p['planted_runs']} | {det} |")
    if p.get("note"):
        out += ["", p["note"]]
    return out


def render():
    classes = load_classes()
    out = ["# Benchmark results", "",
           "<!-- Generated by bench/results_table.py --write from bench/results/*.json; do not edit by hand. -->",
           "",
           "Generated by `bench/results_table.py --write` from `bench/results/CLASS.json`, one file per machine",
           "class (CPU family and widest instruction set), holding the newest figure of each benchmark measured",
           "on that class; do not edit by hand. To add a run: `bench/results_table.py add CLASS RUN.json`",
           "(Google Benchmark JSON from `build/bench/placer_bench --benchmark_out=RUN.json",
           "--benchmark_out_format=json ...`), then `--write`. The test `results_table` fails when this file",
           "differs from the generator's output. Figures from earlier code are in git's history of",
           "`bench/results/`.", "",
           "Only ratios carry over between machines; nanoseconds are the class's, on shared virtual machines",
           "with 2 cores and other jobs running (noisy: compare pairs from one process, or use `bench/compare`).",
           "Debian's libbenchmark says \"Library was built as DEBUG\": Google Benchmark's build, not placer's.",
           "The goals' ratios of a fresh run: `bench/run.sh r.json && python3 bench/ratios.py r.json`."]
    for cls, data in classes.items():
        bench = data["benchmarks"]
        out += ["", f"## {cls}", "", data.get("machine", ""), ""]
        if data.get("compare_proof"):
            out += proof_section(data["compare_proof"]) + [""]
        table = public_table(bench)
        if table:
            out += ["### The public lookups (bench/bench_public.c)", ""] + table + [""]
        paired = paired_table(bench)
        if paired:
            out += ["### Replica sets and the router, paired (bench/bench_public.c)", ""] + paired + [""]
        buckets = bucket_paper_table(bench)
        if buckets:
            out += ["### The bucket strategies against the papers' loops (bench/bench_buckets.c)", ""] + buckets + [""]
        others = other_tables(bench)
        if others:
            out += ["### Other benchmarks", ""] + others + [""]
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def main(argv):
    if argv[:1] == ["add"]:
        ap = argparse.ArgumentParser(prog="bench/results_table.py add")
        ap.add_argument("cls")
        ap.add_argument("raw")
        ap.add_argument("--machine")
        ap.add_argument("--repetitions", type=int)
        a = ap.parse_args(argv[1:])
        if not re.fullmatch(r"[a-z0-9][a-z0-9.-]*", a.cls):
            sys.exit("bench/results_table.py: CLASS is lower case letters, digits, '.' and '-' (e.g. zen5-avx512)")
        add(a.cls, a.raw, a.machine, a.repetitions)
        return 0
    if argv[:1] == ["proof"] and len(argv) in (3, 4):
        proof(argv[1], argv[2], argv[3] if len(argv) == 4 else None)
        return 0
    text = render()
    if argv == ["--write"]:
        with open(RESULTS, "w") as f:
            f.write(text)
        return 0
    if argv == ["--check"]:
        with open(RESULTS) as f:
            if f.read() != text:
                print("bench/RESULTS.md differs from bench/results_table.py's output: "
                      "run bench/results_table.py --write", file=sys.stderr)
                return 1
        print("bench/RESULTS.md matches bench/results/*.json")
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
