#!/usr/bin/env python3
"""bench/ratios.py RESULT.json -- the figures of one placer_bench run as
ratios against the baselines that ran in the same process.

Reads Google Benchmark JSON (with --benchmark_repetitions, it uses the
median aggregate; without, the single run), prints every benchmark's time
per item and then the ratio table: baseline time / placer time, so 3.0x means
placer is three times faster. Only the standard library is used.
"""
import json
import sys

# (what is compared, placer benchmark, baseline benchmark)
RATIOS = [
    ("CRC32C 1 MiB, hardware vs software", "crc32c/hardware/1048576", "crc32c/software/1048576"),
    ("CRC32C 32 B, hardware vs software", "crc32c/hardware/32", "crc32c/software/32"),
    ("hash64 32 B vs plain CRC32C of the key", "hash64/32B/hardware", "hash64/32B/crc32c_hw_baseline"),
    ("hash64 32 B batch vs plain CRC32C", "hash64/32B/hardware_batch", "hash64/32B/crc32c_hw_baseline"),
    ("hash64 hardware vs software", "hash64/32B/hardware", "hash64/32B/software"),
    ("lookup 30,720 tokens, key: placer vs CRC32C + std::lower_bound",
     "lookup/key/30720/placer", "lookup/key/30720/crc32c+std_lower_bound"),
    ("lookup 30,720 tokens, hash: placer vs std::lower_bound",
     "lookup/hash/30720/placer", "lookup/hash/30720/std_lower_bound"),
]


def per_item_ns(b):
    """Nanoseconds per item (per iteration when the benchmark reports none)."""
    t = b["real_time"]
    unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
    return t * unit


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
    if len(sys.argv) != 2:
        sys.exit("usage: bench/ratios.py RESULT.json")
    context, runs = load(sys.argv[1])
    reps = "median of repetitions" if any(
        b.get("run_type") == "aggregate" for b in runs.values()) else "single run"
    print(f"host: {context.get('host_name', '?')}, {context.get('num_cpus', '?')} CPUs "
          f"@ {context.get('mhz_per_cpu', '?')} MHz, {reps}")
    print()
    print(f"{'benchmark':58} {'ns/item':>10}  label")
    for name, b in runs.items():
        print(f"{name:58} {per_item_ns(b):10.2f}  {b.get('label', '')}")
    print()
    print(f"{'ratio (baseline time / placer time)':66} {'ratio':>7}")
    for what, mine, base in RATIOS:
        if mine in runs and base in runs:
            r = per_item_ns(runs[base]) / per_item_ns(runs[mine])
            print(f"{what:66} {r:6.2f}x")
        else:
            print(f"{what:66} {'n/a':>7}  (not run)")


if __name__ == "__main__":
    main()
