#!/usr/bin/env python3
"""bench/clientlibs_peers.py -- the client libraries themselves, one key at
a time in their own language's loop, on the configurations of
bench/bench_clientlibs.c's rows (whose figures are placer's batches):

  compat/groupcache/100_peers/50_replicas/go_loop      Map.Get (Go, GOPATH
                                                       mode, offline, Debian's
                                                       groupcache source)
  compat/uhashring/100_nodes/python_loop               HashRing.get_node
  compat/uhashring_ketama/100_nodes/python_loop        hash_fn="ketama"
  compat/pymemcache/{10,100}_servers/python_loop       RendezvousHash.get_node

The keys: --keys distinct 32-byte str keys (262,144 by default, as many as
the placer/ rows' stream; pymemcache's 100 servers a tenth of them, its
loop being a hundred times slower); the figure is the median over
--reps rounds of the loop's time a key (the Go loop's wall time on one
thread, Python's CPU time). --json FILE writes the rows as Google Benchmark
JSON for bench/results_table.py add. Run it under Debian's /usr/bin/python3
(python3-uhashring, python3-pymemcache, golang-go,
golang-github-golang-groupcache-dev), pinned: taskset -c 1.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

from pymemcache.client.rendezvous import RendezvousHash
from uhashring import HashRing

GO_LOOP = r'''
package main

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/golang/groupcache/consistenthash"
)

func main() {
	var n, reps int
	fmt.Sscan(%s, &n)
	fmt.Sscan(%s, &reps)
	m := consistenthash.New(50, nil)
	for i := 1; i <= 100; i++ {
		m.Add("http://10.0.0." + strconv.Itoa(i) + ":8000")
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("key:%%028x", uint64(i)*0x9E3779B97F4A7C15)
	}
	var ns []float64
	sink := 0
	for r := 0; r < reps; r++ {
		t := time.Now()
		for _, k := range keys {
			sink += len(m.Get(k))
		}
		ns = append(ns, float64(time.Since(t).Nanoseconds())/float64(n))
	}
	sort.Float64s(ns)
	fmt.Println(ns[len(ns)/2], sink > 0)
}
'''


def go_loop(keys, reps):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "loop.go")
        with open(src, "w") as f:
            f.write(GO_LOOP % ('"%d"' % keys, '"%d"' % reps))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp,
               "GOPATH": "/usr/share/gocode", "GO111MODULE": "off", "GOFLAGS": "",
               "GOPROXY": "off", "GOCACHE": os.path.join(tmp, "cache")}
        binary = os.path.join(tmp, "loop")
        subprocess.run(["go", "build", "-o", binary, src], env=env, check=True)
        out = subprocess.run([binary], stdout=subprocess.PIPE, check=True).stdout.split()
        return float(out[0])


def py_loop(fn, keys, reps):
    times = []
    for _ in range(reps):
        t = time.process_time_ns()
        for k in keys:
            fn(k)
        times.append((time.process_time_ns() - t) / len(keys))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=262144)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    keys = ["key:%028x" % (i * 0x9E3779B97F4A7C15 % (1 << 64)) for i in range(args.keys)]
    cache = ["10.0.0.%d:11211" % i for i in range(1, 101)]
    rows = {
        "compat/groupcache/100_peers/50_replicas/go_loop": go_loop(args.keys, args.reps),
        "compat/uhashring/100_nodes/python_loop":
            py_loop(HashRing(nodes=cache).get_node, keys, args.reps),
        "compat/uhashring_ketama/100_nodes/python_loop":
            py_loop(HashRing(nodes=cache, hash_fn="ketama").get_node, keys, args.reps),
        "compat/pymemcache/10_servers/python_loop":
            py_loop(RendezvousHash(cache[:10]).get_node, keys, args.reps),
        "compat/pymemcache/100_servers/python_loop":
            py_loop(RendezvousHash(cache).get_node, keys[:args.keys // 10], args.reps),
    }
    for name, ns in rows.items():
        print("%-52s %10.1f ns a key" % (name, ns))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"context": {"date": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())},
                       "benchmarks": [{"name": n, "run_name": n, "repetitions": args.reps,
                                       "time_unit": "ns", "cpu_time": ns}
                                      for n, ns in rows.items()]}, f, indent=1)


if __name__ == "__main__":
    main()
