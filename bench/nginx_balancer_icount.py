#!/usr/bin/env python3
"""bench/nginx_balancer_icount.py -- instructions per request of nginx with
the placer upstream module against nginx's own `hash $request_uri
consistent`, counted by callgrind (deterministic: machine load does not
change it).

The setup is nginx_balancers.py's (five loopback backends, one front with
both upstreams on the snapshot `placer import-nginx` made of the chash
upstream, keep-alive to the backends), but the front runs as one process
under `valgrind --tool=callgrind`. After a warm-up of both ports the
counters are zeroed, REQUESTS distinct URIs go to the placer port and the
counters are dumped, then the same number of other URIs to the chash port
and a second dump. Everything but the balancer is the same code on both
ports, so the difference per request is the difference of the balancers.
Debian's nginx binary has no symbols, so chash's own functions cannot be
named; the module's (init_peer, get_peer) can, and their inclusive count
per request is printed too. Not a test: no pass or fail.

  bench/nginx_balancer_icount.py PLACER MODULE.so [--requests N]
"""
import argparse
import glob
import http.client
import os
import re
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "tests"))
import nginx_balancers as nb  # noqa: E402  (its front configuration)
import nginx_harness as nh  # noqa: E402  (ports, backends, chash import, stop)


def send(port, prefix, n):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    for i in range(n):
        conn.request("GET", "/k/%s-%d" % (prefix, i))
        r = conn.getresponse()
        r.read()
        if r.status != 200:
            raise SystemExit("port %d answered %d" % (port, r.status))
    conn.close()


def total_ir(path):
    with open(path) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise SystemExit("no totals in " + path)


def module_ir(path, n):
    """Inclusive Ir of the module's balancer functions, per request."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True).stdout
    got = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s.*\b(ngx_http_upstream_placer_init_peer|get_peer)\b", line)
        if m and m.group(2) not in got:
            got[m.group(2)] = int(m.group(1).replace(",", "")) / n
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("placer")
    ap.add_argument("module")
    ap.add_argument("--requests", type=int, default=2000)
    args = ap.parse_args()
    module = os.path.abspath(args.module)
    tmp = tempfile.mkdtemp(prefix="placer-nginx-icount-")
    os.chmod(tmp, 0o755)
    procs = []
    try:
        bports = nh.free_ports(5)
        port_a, port_b = nh.free_ports(2)
        addrs = ["127.0.0.1:%d" % p for p in bports]
        procs.append(nh.start_backends(tmp, {"b%d" % i: a for i, a in enumerate(addrs)}))
        servers = "".join("    server %s;\n" % a for a in addrs)
        snap = nh.import_chash(args.placer, tmp, addrs)
        front = nb.FRONT.format(module=module, tmp=tmp, snap=snap, servers=servers,
                                port_a=port_a, port_b=port_b)
        front = front.replace("master_process on", "master_process off")
        front = front.replace("worker_cpu_affinity 10;", "")
        with open(os.path.join(tmp, "front.conf"), "w") as f:
            f.write(front)
        out = os.path.join(tmp, "callgrind.out")
        procs.append(nh.start(tmp, "front.conf", ["valgrind", "--tool=callgrind",
                                                  "--callgrind-out-file=" + out]))
        nh.wait_port(port_a, procs[1])
        nh.wait_port(port_b, procs[1])
        send(port_a, "warm", 200)
        send(port_b, "warm", 200)
        pid = str(procs[1].pid)
        ctl = ["callgrind_control"]
        subprocess.run(ctl + ["-z", pid], check=True, capture_output=True)
        send(port_a, "a", args.requests)
        subprocess.run(ctl + ["-d", "placer", pid], check=True, capture_output=True)
        send(port_b, "b", args.requests)
        subprocess.run(ctl + ["-d", "chash", pid], check=True, capture_output=True)
        time.sleep(0.5)
        dumps = sorted(glob.glob(out + ".*"), key=os.path.getmtime)
        if len(dumps) < 2:
            raise SystemExit("callgrind wrote %d dumps" % len(dumps))
        n = args.requests
        placer, chash = total_ir(dumps[-2]) / n, total_ir(dumps[-1]) / n
        print("nginx instructions per request (callgrind, %d requests each, keep-alive):" % n)
        print("  placer_hash upstream     %10.0f" % placer)
        print("  hash ... consistent      %10.0f" % chash)
        print("  difference (placer - chash) %7.0f  ratio %.3f" % (placer - chash, placer / chash))
        for fn, ir in sorted(module_ir(dumps[-2], n).items()):
            print("  module %-34s %7.0f inclusive per request" % (fn, ir))
        return 0
    finally:
        nh.stop(procs, 60)

if __name__ == "__main__":
    sys.exit(main())
