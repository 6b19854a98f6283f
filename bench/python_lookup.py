#!/usr/bin/env python3
"""bench/python_lookup.py -- Snapshot.lookup_batch against one C call of
placer_lookup_batch on the same keys and snapshot, in the same process.

The snapshot: 120 nodes in 3 zones, 256 tokens each (the seed scenario,
30,720 tokens). The keys: 1,000,000 fixed-seed 32-byte keys ("key:" and 28
hex digits, no NULs). The C rate is one ctypes call of placer_lookup_batch
with pointer and length arrays built beforehand (the call alone is timed);
the padded S array of keys of 8 to 32 bytes is paired with that call on
its own keys (keys of varied lengths hash slower in C too).
Every Python form is timed from its container to the int64 answer array,
everything the module does included, and checked against the C owners.
The U array's floor: one read pass over its bytes (NumPy's OR of them as
uint64, 4 bytes a code point), timed in the same rounds; the numpy_u32
row gives it as read_pass_ns and the paired ratio of the two as
over_read_pass.
Medians of --reps runs (default 7) of CPU time; the forms are interleaved per round so
that a load change on a shared machine hits them all alike; each form's
ratio to C is also given as the median of the rounds' paired ratios (its
time over the C call's in the same round). --json FILE writes Google
Benchmark JSON for bench/results_table.py add: rows python/batch/FORM, ns a
key, with the C call's ns a key and the paired time ratio as counters.

Usage (from a build tree):
  PLACER_LIBRARY_PATH=build/engine:build/control PYTHONPATH=python \\
  PLACER_EXTENSION_PATH=build/python \\
      /usr/bin/python3 bench/python_lookup.py [--keys N] [--reps R] [--json FILE]
"""
import argparse
import json
import statistics
import time

import numpy as np

import placer
from placer import _lib, _native_reader


def membership():
    return {"strategy": "ring", "vnodes": 256, "seed": 1,
            "nodes": [{"id": "node-%d" % i, "zone": "zone-%s" % "abc"[i % 3]} for i in range(120)]}


def make_keys(n):
    rng = np.random.default_rng(12345)
    digits = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    body = digits[rng.integers(0, 16, size=(n, 28))]
    raw = np.concatenate([np.tile(np.frombuffer(b"key:", np.uint8), (n, 1)), body], axis=1)
    return np.ascontiguousarray(raw).view("S32").reshape(n)


def mixed_keys(n):
    """Keys of 8 to 32 bytes in an S32 array: the padded (slow) S path."""
    rng = np.random.default_rng(777)
    full = make_keys(n).view(np.uint8).reshape(n, 32).copy()
    lens = rng.integers(8, 33, size=n)
    full[np.arange(32)[None, :] >= lens[:, None]] = 0
    return full.view("S32").reshape(n)


def timed(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=1000000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--json")
    args = ap.parse_args()
    if _native_reader.native is None:
        raise SystemExit("the C extension was not found: build it and set PLACER_EXTENSION_PATH")
    n = args.keys
    snap = placer.build(membership(), epoch=1)
    s_arr = make_keys(n)
    data = s_arr.tobytes()
    offsets = np.arange(n + 1, dtype=np.uint64) * 32
    str_list = [k.decode() for k in s_arr.tolist()]
    bytes_list = s_arr.tolist()
    u_arr = np.array(str_list)
    mixed = mixed_keys(n)

    # the C call's inputs, prebuilt: pointers into data, lengths
    base = np.frombuffer(data, np.uint8).ctypes.data
    ptrs = (np.arange(n, dtype=np.uintp) * np.uintp(32)) + np.uintp(base)
    lens = np.full(n, 32, dtype=np.uintp)
    c_owners = np.empty(n, dtype=np.uint32)
    h = snap._h.acquire()  # held for the whole run: nothing closes it

    def c_call():
        if _lib.lookup_batch(h, ptrs.ctypes.data, lens.ctypes.data, n, c_owners.ctypes.data):
            raise SystemExit("placer_lookup_batch failed")
        return c_owners

    mixed_ptrs = (np.arange(n, dtype=np.uintp) * np.uintp(32)) + np.uintp(mixed.ctypes.data)
    mixed_lens = np.char.str_len(mixed).astype(np.uintp)  # outside the timing: reference only
    mixed_ref = np.empty(n, dtype=np.uint32)

    def c_mixed_call():
        if _lib.lookup_batch(h, mixed_ptrs.ctypes.data, mixed_lens.ctypes.data, n,
                             mixed_ref.ctypes.data):
            raise SystemExit("placer_lookup_batch failed")
        return mixed_ref
    c_mixed_call()
    mixed_c_owners = mixed_ref.copy()

    C = "C placer_lookup_batch (one ctypes call)"
    CM = "C placer_lookup_batch, keys of 8-32 bytes"
    forms = {
        C: c_call,
        CM: c_mixed_call,
        "NumPy S32 array": lambda: snap.lookup_batch(s_arr),
        "packed buffer + offsets": lambda: snap.lookup_batch(data, offsets=offsets),
        "list of str": lambda: snap.lookup_batch(str_list),
        "list of bytes": lambda: snap.lookup_batch(bytes_list),
        "NumPy U32 array": lambda: snap.lookup_batch(u_arr),
        "NumPy S32 array, keys of 8-32 bytes (padded)": lambda: snap.lookup_batch(mixed),
        FLOOR: lambda: np.bitwise_or.reduce(u_arr.view(np.uint64)),
    }
    times = {k: [] for k in forms}
    c_call()
    expect = c_owners.astype(np.int64)
    for _ in range(args.reps):
        for name, fn in forms.items():
            t, out = timed(fn)
            times[name].append(t)
            if name == FLOOR:
                continue
            want = mixed_c_owners.astype(np.int64) if "8-32" in name else expect
            if not np.array_equal(np.asarray(out).astype(np.int64), want):
                raise SystemExit("%s: answers differ from the C call" % name)
    snap._h.release()
    def ref(name):  # the C call on the same keys
        return CM if "8-32" in name else C

    print("%d keys of 32 bytes, 120 x 256 ring, median of %d runs; same owners as C in every run"
          % (n, args.reps))
    for name, ts in times.items():
        if name == FLOOR:
            print("%-46s %7.2f M rows/s, NumPy U32 over it: paired %5.2fx  (median %.1f ms)"
                  % (name, n / statistics.median(ts) / 1e6, paired(times, "NumPy U32 array", FLOOR),
                     1e3 * statistics.median(ts)))
            continue
        rate = n / statistics.median(ts)
        c_rate = n / statistics.median(times[ref(name)])
        print("%-46s %7.2f M keys/s  %5.2fx C, paired %5.2fx  (median %.1f ms, min %.1f, max %.1f)"
              % (name, rate / 1e6, rate / c_rate, paired(times, name, ref(name)),
                 1e3 * statistics.median(ts), 1e3 * min(ts), 1e3 * max(ts)))
    if args.json:
        rows = [{"name": "python/batch/" + SLUGS[name], "run_name": "python/batch/" + SLUGS[name],
                 "repetitions": args.reps, "time_unit": "ns",
                 "cpu_time": 1e9 * statistics.median(ts) / n,
                 "c_batch_ns": 1e9 * statistics.median(times[ref(name)]) / n,
                 "rate_over_c": paired(times, name, ref(name))}
                for name, ts in times.items() if name not in (C, CM, FLOOR)]
        for row in rows:
            if row["name"] == "python/batch/numpy_u32":
                row["read_pass_ns"] = 1e9 * statistics.median(times[FLOOR]) / n
                row["over_read_pass"] = paired(times, "NumPy U32 array", FLOOR)
        with open(args.json, "w") as f:
            json.dump({"context": {"date": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())},
                       "benchmarks": rows}, f, indent=1)


FLOOR = "one read pass over the U32 array's bytes"
SLUGS = {"NumPy S32 array": "numpy_s32", "packed buffer + offsets": "packed",
         "list of str": "list_str", "list of bytes": "list_bytes", "NumPy U32 array": "numpy_u32",
         "NumPy S32 array, keys of 8-32 bytes (padded)": "numpy_s32_padded"}


def paired(times, name, c):
    """The median over rounds of the form's rate over C's in that round."""
    return statistics.median(tc / t for t, tc in zip(times[name], times[c]))


if __name__ == "__main__":
    main()
