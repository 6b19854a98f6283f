#!/usr/bin/env python3
"""bench/nginx_swap_cost.py -- what a snapshot swap costs an nginx worker
running the placer upstream module, and what a snapshot weighs in it.

For each ring size (NODES servers, VNODES points each) nginx starts with one
worker on an upstream of NODES `server` lines (nothing listens: no request
is sent) and a one-node snapshot. Then:
  * memory: the worker's private memory (Private_Clean + Private_Dirty of
    /proc/PID/smaps_rollup) with the one-node snapshot, and again once a
    snapshot of the whole ring is in force; the difference is what the
    snapshot and its node-to-server map hold in each worker;
  * swap: SWAPS more files of that ring (new epochs) are renamed over the
    snapshot one after the other, each waited for in the error log; the
    CPU time (schedstat) the worker's threads spent over them, per swap,
    split into the event-loop thread and the thread pool's threads.
With the default thread pool (32 threads), a pool of one thread
(`thread_pool placer threads=1;`) and thread_pool=off (--pools). The timer's
stat() every 20 ms is in the figures (a few microseconds a check). Not a
test: no pass or fail.

  bench/nginx_swap_cost.py PLACER MODULE.so [--sizes 10x256,100x256,1000x256]
                           [--swaps 10] [--pools default,placer,off]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import nginx_harness as nh  # noqa: E402  (ports, start, stop)

FRONT = nh.front_prologue(workers=1, connections=64) + """  access_log off;
""" + nh.temp_paths("f") + """  upstream ring {{
    placer_hash $request_uri snapshot={snap} check=20ms thread_pool={pool};
{servers}
  }}
  server {{ listen 127.0.0.1:{port}; location / {{ proxy_pass http://ring; }} }}
}}
"""


def private_kb(pid):
    got = 0
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            if line.startswith(("Private_Clean:", "Private_Dirty:")):
                got += int(line.split()[1])
    return got


def cpu_ns(pid):
    """(event-loop thread, other threads) CPU time in ns."""
    main = rest = 0
    for d in glob.glob("/proc/%d/task/*" % pid):
        with open(d + "/schedstat") as f:
            ns = int(f.read().split()[0])
        if int(os.path.basename(d)) == pid:
            main += ns
        else:
            rest += ns
    return main, rest


def wait_for(path, needle, bound=60.0):
    end = time.monotonic() + bound
    while time.monotonic() < end:
        with open(path, errors="replace") as f:
            if needle in f.read():
                return
        time.sleep(0.005)
    raise SystemExit("never logged: " + needle)


def build(placer, tmp, addrs, vnodes, epoch):
    m = os.path.join(tmp, "m.json")
    with open(m, "w") as f:
        json.dump({"strategy": "ring", "vnodes": vnodes,
                   "nodes": [{"id": "n%d" % i, "address": a} for i, a in enumerate(addrs)]}, f)
    out = os.path.join(tmp, "e%d.snap" % epoch)
    r = subprocess.run([placer, "build", m, "--epoch", str(epoch), "-o", out],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        raise SystemExit("placer build: " + r.stderr)
    return out


def one(args, module, nodes, vnodes, pool):
    tmp = tempfile.mkdtemp(prefix="placer-nginx-swap-")
    os.chmod(tmp, 0o755)
    procs = []
    try:
        port = nh.free_ports(1)[0]
        addrs = ["127.0.0.1:%d" % (20000 + i) for i in range(nodes)]
        snap = os.path.join(tmp, "cache.snap")
        os.rename(build(args.placer, tmp, addrs[:1], 1, 1), snap)
        files = [build(args.placer, tmp, addrs, vnodes, e) for e in range(2, args.swaps + 3)]
        size = os.path.getsize(files[0])
        with open(os.path.join(tmp, "front.conf"), "w") as f:
            f.write(FRONT.format(module=module, tmp=tmp, snap=snap, pool=pool, port=port,
                                 servers="".join("    server %s;\n" % a for a in addrs)))
        master = nh.start(tmp, "front.conf", ["taskset", "-c", "1"])
        procs.append(master)
        nh.wait_port(port, master)
        with open("/proc/%d/task/%d/children" % (master.pid, master.pid)) as f:
            worker = int(f.read().split()[0])
        time.sleep(0.5)
        err = os.path.join(tmp, "front.err")
        small = private_kb(worker)
        os.rename(files[0], snap)
        wait_for(err, "epoch 2 in force")
        time.sleep(0.5)  # the replaced snapshot's grace period
        big = private_kb(worker)
        before = cpu_ns(worker)
        for e, path in enumerate(files[1:], start=3):
            os.rename(path, snap)
            wait_for(err, "epoch %d in force" % e)
        after = cpu_ns(worker)
        time.sleep(0.5)
        last = private_kb(worker)
        n = len(files) - 1
        loop_ms = (after[0] - before[0]) / n / 1e6
        pool_ms = (after[1] - before[1]) / n / 1e6
        print("%5d nodes x %5d vnodes  %9d bytes  pool %-7s  snapshot %7d KiB a worker "
              "(after %d swaps %7d KiB)  swap: event loop %7.2f ms, pool threads %7.2f ms"
              % (nodes, vnodes, size, pool, big - small, n, last - small, loop_ms, pool_ms),
              flush=True)
    finally:
        nh.stop(procs)
        subprocess.run(["rm", "-rf", tmp])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("placer")
    ap.add_argument("module")
    ap.add_argument("--sizes", default="10x256,100x256,1000x256")
    ap.add_argument("--swaps", type=int, default=10)
    ap.add_argument("--pools", default="default,placer,off")
    args = ap.parse_args()
    module = os.path.abspath(args.module)
    for spec in args.sizes.split(","):
        nodes, vnodes = (int(x) for x in spec.split("x"))
        for pool in args.pools.split(","):
            one(args, module, nodes, vnodes, pool)
    return 0


if __name__ == "__main__":
    sys.exit(main())
