#!/usr/bin/env python3
"""bench/ratios.py RESULT.json [MORE.json ...] -- the figures of placer_bench
runs as ratios against the baselines that ran in the same process (the
router's benchmarks run in a second, unpinned process: their ratios are
within that run too).

Reads Google Benchmark JSON (with --benchmark_repetitions, it uses the
median aggregate; without, the single run), prints every benchmark's time
per item and then the ratio table: baseline time / placer time, so 3.0x means
placer is three times faster. Only the standard library is used.
"""
import json
import sys

# (what is compared, placer benchmark, baseline benchmark, goal): the ratio
# is baseline time / placer time, so 3.0 means placer is three times faster;
# a goal of 0.5 reads "at most 2x the baseline's time".
RATIOS = [
    ("CRC32C 1 MiB: hardware vs software", "crc32c/hardware/1048576", "crc32c/software/1048576", 8),
    ("CRC32C 32 B: hardware vs software", "crc32c/hardware/32", "crc32c/software/32", None),
    ("hash64 32 B vs a plain CRC32C of the key", "hash64/32B/hardware", "hash64/32B/crc32c_hw_baseline", None),
    ("hash64 32 B, batch, vs a plain CRC32C", "hash64/32B/hardware_batch", "hash64/32B/crc32c_hw_baseline", None),
    ("30,720 tokens, keys, batched: placer vs CRC32C + std::lower_bound",
     "lookup/30720/placer/batch", "lookup/30720/crc32c+std_lower_bound", 12),
    ("30,720 tokens, keys, single: placer vs CRC32C + std::lower_bound",
     "lookup/30720/placer/single", "lookup/30720/crc32c+std_lower_bound", 6),
    ("30,720 tokens, search only, batched: vs std::lower_bound",
     "search/30720/placer/batch", "search/30720/std_lower_bound", 20),
    ("2^20 tokens, search only, batched: vs std::lower_bound",
     "search/2^20/placer/batch", "search/2^20/std_lower_bound", 15),
    ("2^24 tokens, search only, batched: vs std::lower_bound",
     "search/2^24/placer/batch", "search/2^24/std_lower_bound", 20),
    ("2^24 tokens, search only, batched: vs random-access limit",
     "search/2^24/placer/batch", "search/2^24/random_access_limit", 0.5),
    ("30,720 tokens, keys, batched: vs libmemcached ketama (100 servers)",
     "lookup/30720/placer/batch", "lookup/libmemcached_ketama_100_servers", 25),
    ("30,720 tokens (120 nodes), search, batched: vs jump hash, 120 buckets",
     "search/30720/placer/batch", "search/30720/jump_hash", 1),
    ("30,720 tokens (120 nodes), search, single: vs jump hash, 120 buckets",
     "search/30720/placer/single", "search/30720/jump_hash", 1),
    ("2^20 tokens, keys, batched: vs CRC32C + std::lower_bound",
     "lookup/2^20/placer/batch", "lookup/2^20/crc32c+std_lower_bound", None),
    ("2^24 tokens, keys, batched: vs CRC32C + std::lower_bound",
     "lookup/2^24/placer/batch", "lookup/2^24/crc32c+std_lower_bound", None),
]

RATIOS += [
    ("replicas (want 3, walked) vs a single lookup, 30,720 tokens (at most 2x its time)",
     "replicas/30720/want_3", "lookup/30720/placer/single", 0.5),
    ("replicas (want 3, precomputed) vs a single lookup (at most 2x its time)",
     "replicas/30720/want_3/precomputed_3", "lookup/30720/placer/single", 0.5),
]

RATIOS += [
    ("IEEE CRC-32 over 1 MiB: placer (folding) vs zlib", "crc32/placer_fold/1048576", "crc32/zlib/1048576", None),
    ("IEEE CRC-32 of 32-byte keys: placer vs zlib", "crc32/placer_fold/32", "crc32/zlib/32", None),
    ("Couchbase key -> vBucket, 32-byte keys: placer vs zlib crc32() + modulo",
     "vbucket/32B/placer", "vbucket/32B/zlib", 5),
]

RATIOS += [
    ("Couchbase key -> vBucket via placer_partition vs zlib crc32() + modulo",
     "vbucket/32B/placer_partition", "vbucket/32B/zlib", 5),
    ("Maglev vs ring, 120 nodes, batched (at most 1.5x the ring's time)",
     "strategy/maglev/120/batch", "strategy/ring/120/batch", 1 / 1.5),
    ("Maglev vs ring, 10,000 nodes, batched (at most 1.5x the ring's time)",
     "strategy/maglev/10000/batch", "strategy/ring/10000/batch", 1 / 1.5),
    ("rendezvous kernel, 120 equal weights: AVX-512 vs scalar reference",
     "rendezvous_kernel/120/equal_weights/chosen", "rendezvous_kernel/120/equal_weights/scalar", 5),
    ("rendezvous kernel, 120 weights 1..4: AVX-512 vs scalar reference",
     "rendezvous_kernel/120/weighted/chosen", "rendezvous_kernel/120/weighted/scalar", 5),
    ("rendezvous, 120 nodes in 4 weight classes (lookup of a hash): AVX-512 vs scalar",
     "rendezvous_classes/120/chosen", "rendezvous_classes/120/scalar", 5),
    ("jump, 120 buckets: placer_jump_hash vs the paper's loop (no slower)",
     "jump/120/placer", "jump/120/paper", 1),
    ("jump, 10,000 buckets: placer_jump_hash vs the paper's loop (no slower)",
     "jump/10000/placer", "jump/10000/paper", 1),
    ("partitions vs ring, 120 nodes, single", "strategy/partitions/120/single",
     "strategy/ring/120/single", None),
    ("jump vs ring, 120 nodes, single", "strategy/jump/120/single", "strategy/ring/120/single", None),
    ("rendezvous vs ring, 120 nodes, single", "strategy/rendezvous/120/single",
     "strategy/ring/120/single", None),
]

# The radix directory: the ring through the radix directory, per instruction set (forced
# with the CPU mask in bench_directory.c; a missing one was skipped), against
# the floor (CRC32C + fmix64 + one 4-byte table read), the reference S+ tree
# (bench/baselines.c) and CRC32C + fmix64 + std::lower_bound, in one process.
D = "ring/%s/%s/%s"
for isa in ("avx512", "avx2", "sse4.2", "scalar"):
    RATIOS += [
        (f"{isa}: 30,720 tokens, keys, batched: vs the floor (within 1.3x)",
         D % (isa, "30720", "placer_dir/batch"), D % (isa, "30720", "floor"), 1 / 1.3),
        (f"{isa}: 30,720 tokens, keys, batched: vs the reference S+ tree",
         D % (isa, "30720", "placer_dir/batch"), D % (isa, "30720", "reference_stree"), 2.2),
        (f"{isa}: 30,720 tokens, keys, batched: vs CRC32C + std::lower_bound",
         D % (isa, "30720", "placer_dir/batch"), D % (isa, "30720", "crc32c+std_lower_bound"), 15),
        (f"{isa}: 30,720 tokens, keys, single: vs CRC32C + std::lower_bound",
         D % (isa, "30720", "placer_dir/single"), D % (isa, "30720", "crc32c+std_lower_bound"), 8),
        (f"{isa}: 2^20 tokens, keys, batched: vs the floor (within 1.3x)",
         D % (isa, "2^20", "placer_dir/batch"), D % (isa, "2^20", "floor"), 1 / 1.3),
        (f"{isa}: 2^24 tokens, keys, batched: vs the floor (within 1.6x)",
         D % (isa, "2^24", "placer_dir/batch"), D % (isa, "2^24", "floor"), 1 / 1.6),
    ]
    for size in ("1024", "2^18", "2^22"):
        RATIOS += [(f"{isa}: {size} tokens, keys, batched: vs the floor",
                    D % (isa, size, "placer_dir/batch"), D % (isa, size, "floor"), None)]
    for size in ("1024", "30720", "2^18", "2^20", "2^22", "2^24"):
        RATIOS += [
            (f"{isa}: {size} tokens, keys, batched: directory vs the S+ tree's fused kernel",
             D % (isa, size, "placer_dir/batch"), D % (isa, size, "placer_stree/batch"), None),
            (f"{isa}: {size} tokens, keys, batched: vs the reference S+ tree",
             D % (isa, size, "placer_dir/batch"), D % (isa, size, "reference_stree"), None),
        ]

R = "router/%s/real_time/threads:%d"
RATIOS += [
    ("router: 0 vs 1,000 publishes/s (throughput kept), writer's build included",
     R % ("placer_router/writer_1000", 1), R % ("placer_router/writer_0", 1), 0.95),
    ("router: publishing 1,000/s vs the same writer building without publishing",
     R % ("placer_router/writer_1000", 1), R % ("placer_router/build_only_1000", 1), 0.95),
    ("router: 2 reader threads vs 1 (throughput gained)",
     R % ("placer_router/writer_0", 2), R % ("placer_router/writer_0", 1), 1.8),
    ("router vs rwlock, writer at 1,000/s", R % ("placer_router/writer_1000", 1),
     R % ("rwlock/writer_1000", 1), None),
    ("router vs mutex refcount, writer at 1,000/s", R % ("placer_router/writer_1000", 1),
     R % ("mutex_refcount/writer_1000", 1), None),
    ("router vs rwlock, 2 readers", R % ("placer_router/writer_0", 2), R % ("rwlock/writer_0", 2), None),
    ("router vs mutex refcount, 2 readers", R % ("placer_router/writer_0", 2),
     R % ("mutex_refcount/writer_0", 2), None),
    ("router (urcu-bp) vs urcu-memb, no writer", R % ("placer_router/writer_0", 1),
     R % ("urcu_memb/writer_0", 1), None),
    ("router (urcu-bp) vs urcu-qsbr, no writer", R % ("placer_router/writer_0", 1),
     R % ("urcu_qsbr/writer_0", 1), None),
]

RATIOS += [
    ("router batch of 256 vs the bare snapshot's batch (within 3%)",
     "router/batch_256/router", "router/batch_256/bare", 1 / 1.03),
]

# (what, benchmark, minus benchmark, most nanoseconds more)
DIFFS = [
    ("router lookup minus bare snapshot lookup", R % ("placer_router/writer_0", 1),
     "router/bare_snapshot", 2),
]

# (what, benchmark, least bytes per second)
THROUGHPUT = [
    ("decode a 2^20-token snapshot (goal 1 GB/s)", "codec/2^20/decode", 1e9),
    ("encode a 2^20-token snapshot", "codec/2^20/encode", None),
    ("memcpy of the same bytes (the ceiling)", "codec/2^20/memcpy", None),
]

# (what, benchmark, most nanoseconds per item)
ABSOLUTE = [
    ("30,720 tokens, keys, batched: ns per lookup", "lookup/30720/placer/batch", 5),
    ("hash64 of a 32-byte key: ns", "hash64/32B/hardware", 2.5),
    ("build 30,720 tokens: ns (3 ms)", "build/30720", 3e6),
    ("build 2^20 tokens: ns (150 ms)", "build/2^20", 150e6),
    ("router: publish until the replaced snapshot is freed: ns", "router/publish_to_reclaim", None),
    ("rendezvous kernel over 120 equal weights: ns", "rendezvous_kernel/120/equal_weights/chosen", 25),
    ("rendezvous lookup of a key, 120 equal weights (hash included): ns",
     "strategy/rendezvous/120/single", 25),
    ("rendezvous kernel over 120 weights 1..4 (every candidate's log): ns",
     "rendezvous_kernel/120/weighted/chosen", None),
    ("rendezvous lookup of a hash, 120 nodes, weights 1..4 (4 classes): ns",
     "rendezvous_classes/120/chosen", 25),
]


def per_item_ns(b):
    """Nanoseconds per item (per iteration when the benchmark reports none)."""
    t = b["real_time"]
    unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
    return t * unit


def load_all(paths):
    context, runs = {}, {}
    for p in paths:
        c, r = load(p)
        context = context or c
        runs.update(r)
    return context, runs


def load(path):
    with open(path) as f:
        doc = json.load(f)
    medians, singles = {}, {}
    for b in doc["benchmarks"]:
        if b.get("error_occurred"):
            continue
        name = b.get("run_name", b["name"])
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = b
        else:
            singles.setdefault(name, b)
    return doc.get("context", {}), medians or singles


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: bench/ratios.py RESULT.json [MORE.json ...]")
    context, runs = load_all(sys.argv[1:])
    reps = "median of repetitions" if any(
        b.get("run_type") == "aggregate" for b in runs.values()) else "single run"
    print(f"host: {context.get('host_name', '?')}, {context.get('num_cpus', '?')} CPUs "
          f"@ {context.get('mhz_per_cpu', '?')} MHz, {reps}")
    print()
    print(f"{'benchmark':58} {'ns/item':>10}  label")
    for name, b in runs.items():
        print(f"{name:58} {per_item_ns(b):10.2f}  {b.get('label', '')}")
    print()
    print(f"{'ratio (baseline time / placer time)':72} {'ratio':>8}  goal")
    for what, mine, base, goal in RATIOS:
        if mine in runs and base in runs:
            r = per_item_ns(runs[base]) / per_item_ns(runs[mine])
            verdict = "" if goal is None else f">= {goal}x: " + ("met" if r >= goal else "NOT met")
            print(f"{what:72} {r:7.2f}x  {verdict}")
        else:
            print(f"{what:72} {'n/a':>8}  (not run)")
    print()
    print(f"{'difference (this machine)':72} {'ns':>8}  goal")
    for what, a, b, most in DIFFS:
        if a in runs and b in runs:
            d = per_item_ns(runs[a]) - per_item_ns(runs[b])
            print(f"{what:72} {d:8.2f}  <= {most:g}: " + ("met" if d <= most else "NOT met"))
        else:
            print(f"{what:72} {'n/a':>8}  (not run)")
    print()
    print(f"{'absolute (this machine)':72} {'value':>8}  goal")
    for what, name, most in ABSOLUTE:
        if name in runs:
            v = per_item_ns(runs[name])
            goal = "" if most is None else f"<= {most:g}: " + ("met" if v <= most else "NOT met")
            print(f"{what:72} {v:8.2f}  {goal}")
        else:
            print(f"{what:72} {'n/a':>8}  (not run)")
    print()
    print(f"{'throughput (this machine)':72} {'GB/s':>8}  goal")
    for what, name, least in THROUGHPUT:
        if name in runs and "bytes_per_second" in runs[name]:
            v = runs[name]["bytes_per_second"]
            goal = "" if least is None else f">= {least / 1e9:g} GB/s: " + ("met" if v >= least else "NOT met")
            print(f"{what:72} {v / 1e9:8.2f}  {goal}")
        else:
            print(f"{what:72} {'n/a':>8}  (not run)")


if __name__ == "__main__":
    main()
