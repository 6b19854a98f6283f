#!/usr/bin/env python3
"""bench/nginx_balancers.py -- the placer upstream module against nginx's own
`hash $request_uri consistent`, through Debian's nginx on loopback, with wrk.

One nginx serves five backends (each answering its name); a second nginx,
with the module loaded and one worker, fronts them twice: port A through
`placer_hash $request_uri` on the snapshot `placer import-nginx` made of
the chash upstream (so both place every key on the same backend), port B
through `hash $request_uri consistent`. The same worker serves both ports,
one at a time, so the two sides compete for the same CPUs identically.

The method is made for a noisy machine:
  * CPU pinning (taskset, worker_cpu_affinity): the front's worker on one
    CPU, wrk and the backends on another (--cpus FRONT,WRK,BACKENDS;
    default 1,0,0 on a 2-core machine), so the scheduler moves nothing
    between runs;
  * warm-up runs on both ports first, discarded (--warmup seconds each);
  * many short pairs (--pairs N of --seconds S each), in ABBA order (A B,
    then B A, ...), so a drift of the machine hits both sides alike;
  * the result is the median of the pairs' ratios placer/chash of
    requests/s with a distribution-free 95% interval (order statistics of
    the binomial sign test: no assumption on the ratios' distribution, and
    outlier pairs move it less than a mean's t interval, printed too for
    comparison). The load average before and after is printed: compare
    runs only at a load well under one.
Not a test: no pass or fail.

  bench/nginx_balancers.py PLACER MODULE.so [--pairs N] [--seconds S]
                           [--warmup S] [--connections C] [--cpus F,W,B]
                           [--json OUT]

A run with any socket error or non-2xx answer is reported and the script
exits 1.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import nginx_harness as nh  # noqa: E402  (ports, backends, chash import, stop)

WRK_LUA = r"""
local n = 0
local id = tostring(math.random(1, 1e9))
request = function()
  n = n + 1
  return wrk.format("GET", "/k/" .. id .. "-" .. n)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('JSON {"requests": %d, "duration_us": %d, "errors": %d, ' ..
    '"p50_us": %d, "p90_us": %d, "p99_us": %d}\n', summary.requests, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout, latency:percentile(50),
    latency:percentile(90), latency:percentile(99)))
end
"""
FRONT = """
load_module {module};
daemon off; master_process on; worker_processes 1; worker_cpu_affinity {affinity};
error_log {tmp}/front.err warn; pid {tmp}/front.pid;
events {{ worker_connections 1024; }}
http {{
  access_log off;
""" + nh.temp_paths("f") + """  include {tmp}/chash_upstream.conf;
  upstream placer {{
    placer_hash $request_uri snapshot={snap};
    placer_replicas 2;
{servers}
    keepalive 32;
  }}
  upstream chash_ka {{
    hash $request_uri consistent;
{servers}
    keepalive 32;
  }}
  server {{ listen 127.0.0.1:{port_a}; location / {{ proxy_pass http://placer;
    proxy_http_version 1.1; proxy_set_header Connection ""; }} }}
  server {{ listen 127.0.0.1:{port_b}; location / {{ proxy_pass http://chash_ka;
    proxy_http_version 1.1; proxy_set_header Connection ""; }} }}
}}
"""

# two-sided 95% Student t quantiles by degrees of freedom
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
       19: 2.093, 24: 2.064, 29: 2.045}


def t95(df):
    k = max(d for d in T95 if d <= df)
    return T95[k] if df <= 29 else 1.96


def median_interval(xs, level=0.95):
    """The median of xs and a distribution-free interval for it: the order
    statistics x(k), x(n+1-k) with the largest k whose coverage under the
    sign test (Binomial(n, 1/2)) is at least level. (None, None) for the
    interval when n is too small for any (n < 6 at 95%)."""
    xs = sorted(xs)
    n = len(xs)
    med = statistics.median(xs)
    # P(B < k) for B ~ Binomial(n, 1/2): the interval misses the median with
    # probability 2 P(B < k)
    cdf, best = 0.0, None
    for k in range(1, n // 2 + 1):
        cdf += math.comb(n, k - 1) / 2.0 ** n  # P(B <= k - 1)
        if 2 * cdf <= 1 - level:
            best = k
        else:
            break
    if best is None:
        return med, None, None
    return med, xs[best - 1], xs[n - best]


def wrk(port, script, args, seconds=None, connections=None):
    seconds = seconds or args.seconds
    r = subprocess.run(["taskset", "-c", args.wrk_cpu, "wrk", "-t1",
                        "-c%d" % (connections or args.connections),
                        "-d%ds" % seconds, "-s", script, "http://127.0.0.1:%d/" % port],
                       capture_output=True, text=True, timeout=seconds + 60)
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("JSON ")), None)
    if line is None:
        raise SystemExit("wrk: " + r.stdout + r.stderr)
    j = json.loads(line[5:])
    j["rps"] = j["requests"] / (j["duration_us"] / 1e6)
    return j


def load_average():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("placer")
    ap.add_argument("module")
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--seconds", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--cpus", default="1,0,0",
                    help="CPUs of the front's worker, wrk and the backends")
    ap.add_argument("--json")
    args = ap.parse_args()
    front_cpu, args.wrk_cpu, backend_cpus = args.cpus.split(",", 2)
    # worker_cpu_affinity's mask: a 1 for the CPU, counted from the right
    affinity = "1" + "0" * int(front_cpu)
    module = os.path.abspath(args.module)
    procs = []
    tmp = tempfile.mkdtemp(prefix="placer-nginx-bench-")
    os.chmod(tmp, 0o755)
    try:
        bports = nh.free_ports(5)
        port_a, port_b = nh.free_ports(2)
        addrs = ["127.0.0.1:%d" % p for p in bports]
        procs.append(nh.start_backends(tmp, {"b%d" % i: a for i, a in enumerate(addrs)},
                                       argv_prefix=("taskset", "-c", backend_cpus)))
        servers = "".join("    server %s;\n" % a for a in addrs)
        snap = nh.import_chash(args.placer, tmp, addrs)
        with open(os.path.join(tmp, "front.conf"), "w") as f:
            f.write(FRONT.format(module=module, tmp=tmp, snap=snap, servers=servers,
                                 port_a=port_a, port_b=port_b, affinity=affinity))
        script = os.path.join(tmp, "keys.lua")
        with open(script, "w") as f:
            f.write(WRK_LUA)
        procs.append(nh.start(tmp, "front.conf"))
        nh.wait_port(port_a, procs[1])
        nh.wait_port(port_b, procs[1])
        load_before = load_average()
        for port in (port_a, port_b, port_a, port_b):  # warm-up, discarded
            wrk(port, script, args, seconds=max(1, args.warmup // 2))
        runs, ratios, bad = [], [], 0
        for i in range(args.pairs):
            # ABBA: A B, then B A
            order = [("placer", port_a), ("chash", port_b)]
            if i % 2:
                order.reverse()
            got = {}
            for name, port in order:
                got[name] = wrk(port, script, args)
                bad += got[name]["errors"]
            ratios.append(got["placer"]["rps"] / got["chash"]["rps"])
            runs.append(got)
            print("pair %2d  placer %8.0f req/s p50 %4d us p99 %5d us   chash %8.0f req/s "
                  "p50 %4d us p99 %5d us   ratio %.3f"
                  % (i + 1, got["placer"]["rps"], got["placer"]["p50_us"],
                     got["placer"]["p99_us"], got["chash"]["rps"], got["chash"]["p50_us"],
                     got["chash"]["p99_us"], ratios[-1]), flush=True)
        load_after = load_average()
        mean = statistics.mean(ratios)
        half = t95(len(ratios) - 1) * statistics.stdev(ratios) / math.sqrt(len(ratios)) \
            if len(ratios) > 1 else float("nan")
        med_ratio, lo, hi = median_interval(ratios)
        med = {k: statistics.median(r[k]["rps"] for r in runs) for k in ("placer", "chash")}
        interval = "[%.3f, %.3f]" % (lo, hi) if lo is not None else "(none: fewer than 6 pairs)"
        print("placer/chash requests/s over %d pairs of %d s: median ratio %.3f, 95%% interval "
              "%s (distribution-free); mean %.3f [%.3f, %.3f] (t); pairs %.3f to %.3f; "
              "medians %.0f vs %.0f req/s; %d errors; load average %s before, %s after"
              % (len(ratios), args.seconds, med_ratio, interval, mean, mean - half, mean + half,
                 min(ratios), max(ratios), med["placer"], med["chash"], bad, load_before,
                 load_after))
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"runs": runs, "ratios": ratios, "median": med_ratio,
                           "interval": [lo, hi], "mean": mean, "half": half,
                           "load": [load_before, load_after], "cpus": args.cpus}, f)
        return 1 if bad else 0
    finally:
        nh.stop(procs)

if __name__ == "__main__":
    sys.exit(main())
