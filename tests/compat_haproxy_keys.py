#!/usr/bin/env python3
"""compat_haproxy_keys.py -- haproxy snapshots' key rules against haproxy 2.6 itself.

Starts, on loopback, five nginx servers that answer their own index and
haproxy in front of them with a backend for each `balance` form: `uri` in
every form (whole, len, depth, path-only; origin-form and absolute-form
requests), `url_param`, `hdr(Host) use_domain_only`, `hdr(X-Key)`, `source`
(IPv4 clients from 127.x.y.z). Each request is sent to haproxy, which names
the server it chose; then `placer import-haproxy` of the same file and
`placer lookup` of the request as a user types it (the target, the header's
value, the dotted address: no --hex, no --raw) must name the same server.
A membership with "key_rule" is built for some forms too.

With --ipv6: `balance source` from IPv6 clients, which needs addresses other
than ::1: a network namespace (ip netns, as root) whose loopback holds 300
random addresses of 2001:db8::/32; the script runs itself inside it. Exit 77
(skipped, with the reason) when not root or `ip` is missing.

Usage: compat_haproxy_keys.py [--ipv6] PATH/TO/placer. Exit 0 when every key
matches, 1 on any difference, 77 when a program is not installed.
"""
import http.client
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat_programs as cp  # noqa: E402  (its process, port and placer helpers)

NREQ = 250
SERVERS = 5
WEIGHTS = [1, 2, 1, 2, 1]
LABEL = "abcdefghijklmnopqrstuvwxyz0123456789-"
PATHCH = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~:,;!*()@$"


def word(rng, chars, lo=1, hi=12):
    return "".join(rng.choice(chars) for _ in range(rng.randint(lo, hi)))


def targets(rng, absolute):
    """Request targets with 1..4 segments, a query on most; absolute-form
    ones with a scheme and an authority (a port on some, a user on some)."""
    out = set()
    while len(out) < NREQ:
        path = "".join("/" + word(rng, PATHCH, 0, 8) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.7:
            path += "?" + "&".join("%s=%s" % (word(rng, "abc", 1, 2), word(rng, PATHCH, 0, 6))
                                   for _ in range(rng.randint(1, 3)))
        if absolute:
            host = word(rng, LABEL[:26], 1, 6) + ".example" + rng.choice(["", ":8080"])
            path = "http://" + host + path
        out.add(path)
    return sorted(out)


def param_targets(rng, name):
    """Targets whose query holds `name` (haproxy hashes its first value)."""
    out = set()
    while len(out) < NREQ:
        v = word(rng, PATHCH, 0, 10)
        pre = rng.choice(["", "a=1&", name + name + "=x&", "b=&"])
        out.add("/%s?%s%s=%s%s" % (word(rng, PATHCH, 1, 6), pre, name, v,
                                   rng.choice(["", "&z=2", "&%s=other" % name])))
    return sorted(out)


def hosts(rng):
    out = set()
    while len(out) < NREQ:
        d = word(rng, LABEL, 1, 10)
        out.add(rng.choice(["www.%s.com", "%s.example.org:8080", "a.b.%s.net", "%s",
                            "%s.io"]) % d)
    return sorted(out)


def header_values(rng):
    """X-Key values as sent: haproxy hashes the first comma-separated
    element (commas inside double quotes kept), spaces around it trimmed."""
    out = set()
    while len(out) < NREQ:
        v = word(rng, PATHCH.replace(",", ""), 1, 10)
        out.add(rng.choice(["%s", "%s , tail", "%s,x,y", "\"%s,q\", z", "a %s b"]) % v)
    return sorted(out)


def source4(rng):
    out = set()
    while len(out) < NREQ:
        out.add("127.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254)))
    return sorted(out)


# (balance line, hash-type line, what the requests are)
FORMS = [
    ("uri", "consistent", "origin"),
    ("uri whole", "map-based", "origin"),
    ("uri depth 2", "consistent djb2", "origin"),
    ("uri len 5", "consistent sdbm avalanche", "origin"),
    ("uri len 9 depth 1 whole", "map-based wt6", "origin"),
    ("uri", "consistent", "absolute"),
    ("uri depth 3", "map-based", "absolute"),
    ("uri path-only", "consistent", "absolute"),
    ("uri path-only", "map-based crc32", "origin"),
    ("uri path-only whole depth 2", "consistent crc32", "absolute"),
    ("uri path-only len 8", "map-based", "absolute"),
    ("url_param k", "consistent", "param k"),
    ("url_param user_id", "map-based djb2", "param user_id"),
    ("hdr(Host) use_domain_only", "consistent", "host"),
    ("hdr(host) use_domain_only", "map-based sdbm", "host"),
    ("hdr(X-Key)", "map-based", "header"),
    ("source", "consistent", "source"),
    ("source", "map-based", "source"),
]


def requests_for(rng, kind):
    if kind in ("origin", "absolute"):
        return targets(rng, kind == "absolute")
    if kind.startswith("param "):
        return param_targets(rng, kind.split()[1])
    if kind == "host":
        return hosts(rng)
    if kind == "header":
        return header_values(rng)
    return source4(rng)


def ask(port, kind, values, family_host="127.0.0.1"):
    """The server index haproxy chose for each request."""
    out = []
    conn = None
    for v in values:
        if kind == "source":  # one connection a source address
            c = http.client.HTTPConnection(family_host, port, timeout=cp.TIMEOUT,
                                           source_address=(v, 0))
            c.request("GET", "/")
        else:
            if conn is None:
                conn = http.client.HTTPConnection(family_host, port, timeout=cp.TIMEOUT)
            c = conn
            if kind == "host":
                c.request("GET", "/", headers={"Host": v})
            elif kind == "header":
                c.request("GET", "/", headers={"X-Key": v})
            elif v.startswith("http://"):  # absolute-form, Host its authority
                c.request("GET", v, headers={"Host": v[7:].split("/")[0]})
            else:
                c.request("GET", v)
        r = c.getresponse()
        body = r.read()
        out.append(int(body) if r.status == 200 else -1)
        if kind == "source":
            c.close()
    if conn is not None:
        conn.close()
    return out


def typed_lookup(snap, values):
    """Owner index per `placer lookup --json` of each value as typed (text lines)."""
    text = cp.run_placer(cp.PLACER, ["lookup", snap, "--json"],
                         "".join(v + "\n" for v in values).encode())
    owners = [int(json.loads(line)["owner"][1:]) for line in text.decode().splitlines()]
    if len(owners) != len(values):
        raise RuntimeError("placer lookup: %d answers for %d keys" % (len(owners), len(values)))
    return owners


def wait_listen(host, port, proc):
    """cp.wait_port on any loopback address (::1 too), with its deadline."""
    deadline = time.time() + cp.TIMEOUT
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("haproxy exited with %d" % proc.returncode)
        try:
            socket.create_connection((host, port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("haproxy did not listen on %s port %d in %.0f s" % (host, port, cp.TIMEOUT))


def backends(tmp, log):
    bports = cp.free_ports(SERVERS)
    conf = cp.index_servers_conf(tmp, bports) + ["}\n"]
    cfg = os.path.join(tmp, "nginx.conf")
    with open(cfg, "w") as f:
        f.write("".join(conf))
    nginx = cp.start(["nginx", "-c", cfg, "-p", tmp], log)
    for p in bports:
        cp.wait_port(p, nginx, "nginx")
    return bports


def run_forms(tmp, forms, rng, bind="127.0.0.1", connect="127.0.0.1"):
    log = open(os.path.join(tmp, "programs.log"), "wb")
    bports = backends(tmp, log)
    fports = cp.free_ports(len(forms))
    conf = ["global\n  maxconn 256\ndefaults\n  mode http\n  timeout connect 5s\n"
            "  timeout client 30s\n  timeout server 30s\n"]
    for fi, ((bal, ht, _), fp) in enumerate(zip(forms, fports)):
        conf.append("frontend f%d\n  bind %s:%d\n  default_backend b%d\n"
                    "backend b%d\n  balance %s\n  hash-type %s\n" % (fi, bind, fp, fi, fi, bal, ht))
        for i, p in enumerate(bports):
            conf.append("  server s%d 127.0.0.1:%d weight %d\n" % (i, p, WEIGHTS[i]))
    cfg = os.path.join(tmp, "haproxy.cfg")
    with open(cfg, "w") as f:
        f.write("".join(conf))
    hap = cp.start(["haproxy", "-db", "-f", cfg], log)
    for p in fports:
        wait_listen(connect, p, hap)
    for fi, ((bal, ht, kind), fp) in enumerate(zip(forms, fports)):
        values = requests_for(rng, kind) if kind != "source6" else SOURCES6
        asked = ask(fp, "source" if kind == "source6" else kind, values, connect)
        snap = os.path.join(tmp, "b%d.snap" % fi)
        cp.run_placer(cp.PLACER, ["import-haproxy", cfg, "--backend", "b%d" % fi, "-o", snap])
        what = "balance %s, hash-type %s, %s" % (bal, ht, kind)
        cp.compare("import-haproxy, " + what, asked, typed_lookup(snap, values), "requests")
        if fi % 3 == 0 or kind.startswith("source"):
            # the membership a user writes: "key_rule" as the balance line says
            w = ht.split()
            m = {"compat": "haproxy", "distribution": w[0],
                 "key_hash": "source" if kind.startswith("source") else
                 (w[1] if len(w) > 1 and w[1] != "avalanche" else "sdbm"),
                 "avalanche": w[-1] == "avalanche" or w == ["consistent"],
                 "key_rule": bal,
                 "nodes": [{"id": "s%d" % i, "weight": WEIGHTS[i]} for i in range(SERVERS)]}
            snap = cp.user_build(cp.PLACER, tmp, "member-b%d" % fi, m)
            cp.compare("placer build, key_rule " + what, asked, typed_lookup(snap, values),
                       "requests")


SOURCES6 = []


def inside_namespace(tmp, addrs_file):
    """The IPv6 run, in the namespace: haproxy on [::1], clients from the
    namespace's addresses."""
    with open(addrs_file) as f:
        SOURCES6.extend(line.strip() for line in f if line.strip())
    forms = [("source", "consistent", "source6"), ("source", "map-based", "source6"),
             ("source", "consistent djb2 avalanche", "source6")]
    run_forms(tmp, forms, random.Random(6), bind="[::1]", connect="::1")


def ipv6(tmp):
    if os.geteuid() != 0:
        print("skipped: IPv6 sources need a network namespace (ip netns), which needs root")
        return 77
    if not shutil.which("ip"):
        print("skipped: `ip` is not installed (iproute2: scripts/setup.sh installs it)")
        return 77
    ns = "placer-keys-%d" % os.getpid()
    rng = random.Random(20261204)
    addrs = sorted({"2001:db8:%x:%x:%x:%x:%x:%x" % tuple(rng.randint(0, 0xffff) for _ in range(6))
                    for _ in range(300)})
    batch = os.path.join(tmp, "ip.batch")
    with open(batch, "w") as f:
        f.write("link set lo up\n")
        f.writelines("addr add %s/128 dev lo nodad\n" % a for a in addrs)
    listed = os.path.join(tmp, "sources6.txt")
    with open(listed, "w") as f:
        f.write("".join(a + "\n" for a in addrs))
    made = subprocess.run(["ip", "netns", "add", ns], capture_output=True, timeout=30)
    try:
        if made.returncode == 0:
            made = subprocess.run(["ip", "-n", ns, "-batch", batch], capture_output=True,
                                  timeout=60)
        if made.returncode != 0:
            # a machine (or chroot) where namespaces cannot be made: no
            # placer behaviour is at stake, so skipped, saying why
            print("skipped: cannot set up a network namespace here: %s"
                  % made.stderr.decode(errors="replace").strip())
            return 77
        r = subprocess.run(["ip", "netns", "exec", ns, sys.executable, os.path.abspath(__file__),
                            "--in-namespace", tmp, listed, cp.PLACER], timeout=600)
        return r.returncode
    finally:
        subprocess.run(["ip", "netns", "delete", ns], timeout=30)


def main():
    args = sys.argv[1:]
    if len(args) == 4 and args[0] == "--in-namespace":
        listed, cp.PLACER = args[2], args[3]
        tmp = tempfile.mkdtemp(prefix="placer-keys6-", dir=args[1])
        run = lambda: inside_namespace(tmp, listed)  # noqa: E731
    elif len(args) in (1, 2) and (len(args) == 1 or args[0] == "--ipv6"):
        cp.PLACER = args[-1]
        tmp = tempfile.mkdtemp(prefix="placer-keys-")
        if len(args) == 2:
            rc = 1
            try:
                rc = ipv6(tmp)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            return rc
        run = lambda: run_forms(tmp, FORMS, random.Random(20261204))  # noqa: E731
    else:
        print(__doc__, file=sys.stderr)
        return 2
    missing = [p for p in ("nginx", "haproxy") if not shutil.which(p)]
    if missing:
        print("skipped: not installed: %s (scripts/setup.sh installs them)" % " ".join(missing))
        return 77
    return cp.run_checks("compat_haproxy_keys", tmp, run)


if __name__ == "__main__":
    sys.exit(main())
