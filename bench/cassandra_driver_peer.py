#!/usr/bin/env python3
"""bench/cassandra_driver_peer.py -- the DataStax Python driver's replica
lookup, one key at a time in Python, on bench/bench_datacenters.c's
cluster: 120 nodes (node n in datacenter dc(n % 2 + 1), rack n / 2 % 3)
x 256 tokens from the same xorshift64 stream, a keyspace of
NetworkTopologyStrategy {dc1: 3, dc2: 2}. Its row:

  replicas/cassandra_nts_dc3_dc2/30720/driver_python_loop
      TokenMap.get_replicas(keyspace, Murmur3Token.from_key(key)): what
      token-aware routing does per request (the token, a bisect, the
      precomputed map's list)

The map's build (TokenMap's make_token_replica_map) is printed, not
timed as a row. The keys: --keys distinct 32-byte keys; the figure is the
median over --reps rounds of the loop's CPU time a key. --json FILE writes
Google Benchmark JSON for bench/results_table.py add. Run it under
Debian's /usr/bin/python3 (python3-cassandra), pinned: taskset -c 1.
"""
import argparse
import json
import statistics
import time

from cassandra.connection import DefaultEndPoint
from cassandra.metadata import KeyspaceMetadata, Metadata, Murmur3Token, TokenMap
from cassandra.policies import SimpleConvictionPolicy
from cassandra.pool import Host

ROW = "replicas/cassandra_nts_dc3_dc2/30720/driver_python_loop"


def cluster():
    """bench_datacenters.c's ring: token v of node n is the (n * 256 + v)-th
    xorshift64 value from 0x2545f4914f6cdd1d, as a signed 64-bit token."""
    x, m = 0x2545F4914F6CDD1D, (1 << 64) - 1
    owner = {}
    for n in range(120):
        host = Host(DefaultEndPoint("10.%d.%d.%d" % (n % 2, n // 2 % 3, n)),
                    SimpleConvictionPolicy, "dc%d" % (n % 2 + 1), "rack%d" % (n // 2 % 3))
        for _ in range(256):
            x ^= (x << 13) & m
            x ^= x >> 7
            x ^= (x << 17) & m
            owner[Murmur3Token(x - (1 << 64) if x >> 63 else x)] = host
    return owner


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=50000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    owner = cluster()
    md = Metadata()
    md.keyspaces["ks"] = KeyspaceMetadata("ks", True, "NetworkTopologyStrategy",
                                          {"dc1": "3", "dc2": "2"})
    t = time.process_time()
    tm = TokenMap(Murmur3Token, owner, sorted(owner), md)
    tm.get_replicas("ks", Murmur3Token.from_key(b"warm"))
    print("the driver's replica map of %d tokens: %.2f s CPU" % (len(owner),
                                                                 time.process_time() - t))
    keys = [b"key:%028x" % (i * 0x9E3779B97F4A7C15 % (1 << 64)) for i in range(args.keys)]
    times = []
    for _ in range(args.reps):
        t = time.process_time_ns()
        for k in keys:
            tm.get_replicas("ks", Murmur3Token.from_key(k))
        times.append((time.process_time_ns() - t) / len(keys))
    ns = statistics.median(times)
    print("%-56s %10.1f ns a key" % (ROW, ns))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"context": {"date": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())},
                       "benchmarks": [{"name": ROW, "run_name": ROW, "repetitions": args.reps,
                                       "time_unit": "ns", "cpu_time": ns}]}, f, indent=1)


if __name__ == "__main__":
    main()
