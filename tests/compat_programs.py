#!/usr/bin/env python3
"""compat_programs.py -- placer's compatibility modes against the real programs.

Starts, on free loopback ports, Debian's programs as a user runs them and asks
each where every key went:
  * twemproxy (nutcracker) over five memcached: every `hash:` function with
    ketama and modula, named and unnamed servers, weights 1 and 2, hash_tag;
    each key is set through the proxy, then each memcached is asked which
    keys it holds;
  * nginx: five tiny servers that answer their own index, and upstreams with
    `hash $arg_k consistent` and plain `hash $arg_k` in front of them;
  * haproxy (`balance url_param k`) in front of the same five: every hash
    function, with and without avalanche, consistent and map-based, with
    automatic and explicit server ids;
  * Redis Cluster: CLUSTER KEYSLOT of every key, and the slot ranges that
    `redis-cli --cluster create` gives 3 and 5 masters.
and compares each key's owner with tests/compat_place.c (placer's layouts).
Then the user's path, through the placer command: the nutcracker.yml
nutcracker runs with -> `placer import-twemproxy` (and `placer build` of the
membership it writes); nginx's and haproxy's servers written as membership
files -> `placer build`; the CLUSTER NODES of the running clusters ->
`placer import-redis`; then `placer lookup` of the same keys, compared with
where the real program put each of them.

Usage: compat_programs.py PATH/TO/compat_place PATH/TO/placer. Exit 0 when every key
matches, 1 on any difference, 77 (skipped) when a program is not installed
(scripts/setup.sh installs them). Every process is stopped by its pid; every
wait is bounded.
"""
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

NKEYS = 2000
TIMEOUT = 10.0
PASSED = 0
FAILED = 0
PROCS = []
PLACER = None  # the placer command (the user's path)


def check(ok, what):
    global PASSED, FAILED
    if ok:
        PASSED += 1
    else:
        FAILED += 1
        print("FAILED: " + what, file=sys.stderr)


def free_ports(n):
    """n distinct free loopback ports (held open together, then released)."""
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def free_redis_ports(n, rng):
    """n ports below 55536 whose cluster bus port (+10000) is free too."""
    ports = []
    for _ in range(2000):
        p = rng.randint(20000, 45000)
        if p in ports or any(abs(p - q) == 10000 for q in ports):
            continue
        try:
            socks = []
            for q in (p, p + 10000):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", q))
            ports.append(p)
        except OSError:
            pass
        finally:
            for s in socks:
                s.close()
        if len(ports) == n:
            return ports
    raise RuntimeError("no free port pairs for Redis Cluster")


def start(argv, log):
    p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    PROCS.append(p)
    return p


def stop_all():
    for p in PROCS:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.time() + 10
    for p in PROCS:
        try:
            p.wait(timeout=max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=5)


def wait_port(port, proc, what):
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("%s exited with %d" % (what, proc.returncode))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("%s did not listen on %d in %.0f s" % (what, port, TIMEOUT))


def placer_owners(place, spec, keys):
    """Owner index of each key per tests/compat_place.c."""
    keys = [k.encode() if isinstance(k, str) else k for k in keys]
    text = spec + "keys\n" + "".join(k.hex() + "\n" for k in keys)
    r = subprocess.run([place], input=text.encode(), capture_output=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError("compat_place: " + r.stderr.decode(errors="replace"))
    return [int(x) for x in r.stdout.split()]


def placer_table(place, spec):
    r = subprocess.run([place], input=(spec + "table\n").encode(), capture_output=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError("compat_place: " + r.stderr.decode(errors="replace"))
    return [int(x) for x in r.stdout.split()]


def compare(what, got, want, unit="keys"):
    bad = [i for i in range(len(want)) if got[i] != want[i]]
    check(len(got) == len(want) and not bad,
          "%s: %d of %d keys differ (first: key %d, program %s, placer %s)" %
          (what, len(bad), len(want), bad[0] if bad else -1,
           got[bad[0]] if bad else "-", want[bad[0]] if bad else "-"))
    if not bad:
        print("ok   %-46s %d %s" % (what, len(want), unit))


# ------------------------------------------------------- the placer command

def run_placer(placer, args, stdin=None):
    r = subprocess.run([placer] + args, input=stdin, capture_output=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError("placer %s: exit %d: %s" % (" ".join(args), r.returncode,
                                                       r.stderr.decode(errors="replace")))
    return r.stdout


def placer_lookup(placer, snap, keys):
    """(owner id, address, partition or None) of each key, per `placer lookup --json`."""
    keys = [k.encode() if isinstance(k, str) else k for k in keys]
    text = run_placer(placer, ["lookup", snap, "--hex", "--json"],
                      "".join(k.hex() + "\n" for k in keys).encode())
    out = []
    for line in text.decode().splitlines():
        d = json.loads(line)
        out.append((d["owner"], d.get("address"), d.get("partition")))
    if len(out) != len(keys):
        raise RuntimeError("placer lookup: %d answers for %d keys" % (len(out), len(keys)))
    return out


def user_build(placer, tmp, name, membership):
    """A membership file as a user writes it, built by `placer build`."""
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(membership, f, indent=2)
    snap = os.path.join(tmp, name + ".snap")
    run_placer(placer, ["build", path, "-o", snap])
    return snap


# ---------------------------------------------------------------- memcached

class Mc:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buf = b""

    def line(self):
        while b"\r\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise RuntimeError("connection closed")
            self.buf += chunk
        ln, self.buf = self.buf.split(b"\r\n", 1)
        return ln

    def exact(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(65536)
            if not chunk:
                raise RuntimeError("connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def set_many(self, keys):
        for i in range(0, len(keys), 100):
            batch = keys[i:i + 100]
            self.s.sendall(b"".join(b"set " + k + b" 0 0 1\r\nx\r\n" for k in batch))
            for _ in batch:
                r = self.line()
                if r != b"STORED":
                    raise RuntimeError("set: %r" % r)

    def held(self, keys):
        found = set()
        for i in range(0, len(keys), 100):
            self.s.sendall(b"get " + b" ".join(keys[i:i + 100]) + b"\r\n")
            while True:
                r = self.line()
                if r == b"END":
                    break
                parts = r.split(b" ")
                if parts[0] != b"VALUE":
                    raise RuntimeError("get: %r" % r)
                found.add(parts[1])
                self.exact(int(parts[3]) + 2)
        return found


def mc_keys(rng, prefix, n):
    """Distinct memcached keys: printable ASCII, a third with bytes >= 0x80."""
    keys = set()
    while len(keys) < n:
        ln = rng.randint(1, 60)
        hi = len(keys) % 3 == 0
        body = bytes(rng.randint(0x21, 0xfe if hi else 0x7e) for _ in range(ln))
        body = body.replace(b"\x7f", b"~")
        keys.add(prefix + body)
    return sorted(keys)


TWEMPROXY_HASHES = ["one_at_a_time", "md5", "crc16", "crc32", "crc32a", "fnv1_64", "fnv1a_64",
                    "fnv1_32", "fnv1a_32", "hsieh", "murmur", "jenkins"]
WEIGHTS = [1, 2, 1, 2, 1]
NAMES = ["alpha", "beta", "gamma", "delta", "epsilon"]


def twemproxy(place, tmp, rng):
    mports = free_ports(5)
    user = ["-u", "root"] if os.geteuid() == 0 else []
    log = open(os.path.join(tmp, "memcached.log"), "wb")
    for p in mports:
        proc = start(["memcached", "-l", "127.0.0.1", "-p", str(p), "-U", "0", "-m", "64",
                      "-t", "1"] + user, log)
        wait_port(p, proc, "memcached")
    pools = []
    for h in TWEMPROXY_HASHES:
        pools.append(("ketama-" + h, h, "ketama", True, None))
        pools.append(("modula-" + h, h, "modula", True, None))
    pools.append(("ketama-md5-unnamed", "md5", "ketama", False, None))
    pools.append(("ketama-fnv1a_64-unnamed", "fnv1a_64", "ketama", False, None))
    pools.append(("modula-crc32a-unnamed", "crc32a", "modula", False, None))
    pools.append(("ketama-murmur-hash_tag", "murmur", "ketama", True, "{}"))
    pports = free_ports(len(pools))
    conf = []
    for (name, h, dist, named, tag), port in zip(pools, pports):
        conf.append("%s:\n  listen: 127.0.0.1:%d\n  hash: %s\n  distribution: %s\n"
                    "  auto_eject_hosts: false\n  timeout: 2000\n" % (name, port, h, dist))
        if tag:
            conf.append("  hash_tag: \"%s\"\n" % tag)
        conf.append("  servers:\n")
        for i, mp in enumerate(mports):
            conf.append("   - 127.0.0.1:%d:%d%s\n" % (mp, WEIGHTS[i], " " + NAMES[i] if named else ""))
    cfg = os.path.join(tmp, "nutcracker.yml")
    with open(cfg, "w") as f:
        f.write("".join(conf))
    sport = free_ports(1)[0]
    proc = start(["nutcracker", "-c", cfg, "-s", str(sport), "-a", "127.0.0.1",
                  "-o", os.path.join(tmp, "nutcracker.log")], log)
    for p in pports:
        wait_port(p, proc, "nutcracker")
    mcs = [Mc(p) for p in mports]
    for pi, ((name, h, dist, named, tag), port) in enumerate(zip(pools, pports)):
        keys = mc_keys(rng, b"p%d:" % pi, NKEYS)
        if tag:
            # Tagged, empty-tagged, unclosed and untagged keys.
            keys = [b"u{%d}:%d" % (rng.randint(0, 300), i) if i % 4 == 0 else
                    b"e{}x%d" % i if i % 4 == 1 else b"o{%d" % i if i % 4 == 2 else k
                    for i, k in enumerate(keys)]
        Mc(port).set_many(keys)
        held = [m.held(keys) for m in mcs]
        got = []
        for k in keys:
            where = [i for i in range(5) if k in held[i]]
            got.append(where[0] if len(where) == 1 else -1)
        spec = "program twemproxy\ndistribution %s\nhash %s\n" % (dist, h)
        if tag:
            spec += "hash_tag %s\n" % tag
        for i, mp in enumerate(mports):
            ident = NAMES[i] if named else "127.0.0.1:%d" % mp
            spec += "node %s 127.0.0.1:%d %d 0\n" % (ident, mp, WEIGHTS[i])
        compare("twemproxy " + name, got, placer_owners(place, spec, keys))
        # The user's path: the file nutcracker runs with, imported.
        snap = os.path.join(tmp, name + ".snap")
        doc = os.path.join(tmp, name + ".membership.json")
        run_placer(PLACER, ["import-twemproxy", cfg, "--pool", name, "-o", snap,
                            "--membership-out", doc])
        rebuilt = os.path.join(tmp, name + ".rebuilt.snap")
        run_placer(PLACER, ["build", doc, "-o", rebuilt])
        with open(snap, "rb") as a, open(rebuilt, "rb") as b:
            check(a.read() == b.read(), "twemproxy %s: import and build of its membership differ" % name)
        ident = [NAMES[i] if named else ("127.0.0.1:%d" % mp) for i, mp in enumerate(mports)]
        owners = [ident.index(o) if o in ident else -2
                  for o, _, _ in placer_lookup(PLACER, snap, keys)]
        compare("import-twemproxy --pool " + name, got, owners)


# ------------------------------------------------------- nginx and haproxy

def http_keys(rng, n):
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~:,;!*()@$"
    keys = set()
    while len(keys) < n:
        keys.add("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 48))))
    return sorted(keys)


def ask_http(port, keys):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    out = []
    for k in keys:
        conn.request("GET", "/?k=" + k)
        r = conn.getresponse()
        body = r.read()
        out.append(int(body) if r.status == 200 else -1)
    conn.close()
    return out


# (upstream, hash key, consistent or not, with a down and a max_fails server)
NGINX_INCLUDED = [
    ("u_inc_consistent", "$arg_k", "consistent", True),
    ("u_inc_hash", "$arg_k", "", False),
    ("u_uri", "$request_uri", "consistent", False),
]


def nginx_owners(tmp, cfg, upstream, bports, keys):
    """Backend index of each key per `placer import-nginx` of cfg."""
    snap = os.path.join(tmp, "imported-%s.snap" % upstream)
    run_placer(PLACER, ["import-nginx", cfg, "--upstream", upstream, "-o", snap])
    where = ["127.0.0.1:%d" % p for p in bports]
    return [where.index(a) if a in where else -2 for _, a, _ in placer_lookup(PLACER, snap, keys)]


HAPROXY_HASHES = ["sdbm", "djb2", "wt6", "crc32"]
# Explicit ids on some servers: the others get haproxy's automatic ones.
HAPROXY_IDS = [[0, 0, 0, 0, 0], [3, 0, 7, 0, 0], [0, 1, 0, 0, 2]]


def index_servers_conf(tmp, bports):
    """The start of an nginx.conf whose servers on bports answer their index
    (its http block left open)."""
    conf = ["worker_processes 1;\ndaemon off;\nerror_log %s/nginx-error.log;\npid %s/nginx.pid;\n"
            "events { worker_connections 256; }\nhttp {\n  access_log off;\n" % (tmp, tmp)]
    for d in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        conf.append("  %s_temp_path %s/%s;\n" % (d, tmp, d))
    for i, p in enumerate(bports):
        conf.append("  server { listen 127.0.0.1:%d; location / { return 200 \"%d\"; } }\n" % (p, i))
    return conf


def web(place, tmp, rng):
    bports = free_ports(5)
    nginx_cfgs = [("consistent", "consistent"), ("hash", "")]
    fports = free_ports(len(nginx_cfgs))
    conf = index_servers_conf(tmp, bports)
    for (name, mod), fp in zip(nginx_cfgs, fports):
        conf.append("  upstream u_%s {\n    hash $arg_k %s;\n" % (name, mod))
        for i, p in enumerate(bports):
            conf.append("    server 127.0.0.1:%d weight=%d;\n" % (p, WEIGHTS[i]))
        conf.append("  }\n  server { listen 127.0.0.1:%d; location / { proxy_pass http://u_%s; } }\n"
                    % (fp, name))
    # upstreams from an included file (a glob, relative to nginx.conf's
    # directory), imported by `placer import-nginx` only
    os.makedirs(os.path.join(tmp, "upstreams"), exist_ok=True)
    iports = free_ports(len(NGINX_INCLUDED))
    inc = []
    for (name, key, mod, extra), fp in zip(NGINX_INCLUDED, iports):
        inc.append("upstream %s {\n  hash %s %s;  # placed by %s\n" % (name, key, mod, key))
        for i, p in enumerate(bports):
            opts = " weight=%d" % WEIGHTS[i] if WEIGHTS[i] > 1 else ""
            if extra and i == 2:
                opts += " down"
            if extra and i == 3:
                opts += " max_fails=2 fail_timeout=5s"
            addr = "\"127.0.0.1:%d\"" % p if i == 1 else "127.0.0.1:%d" % p
            inc.append("  server %s%s;\n" % (addr, opts))
        inc.append("}\nserver { listen 127.0.0.1:%d; location / { proxy_pass http://%s; } }\n"
                   % (fp, name))
    with open(os.path.join(tmp, "upstreams", "included.conf"), "w") as f:
        f.write("".join(inc))
    conf.append("  include upstreams/*.conf;\n}\n")
    ncfg = os.path.join(tmp, "nginx.conf")
    with open(ncfg, "w") as f:
        f.write("".join(conf))
    log = open(os.path.join(tmp, "web.log"), "wb")
    nginx = start(["nginx", "-c", ncfg, "-p", tmp], log)
    for p in bports + fports + iports:
        wait_port(p, nginx, "nginx")
    keys = http_keys(rng, NKEYS)
    for (name, _), fp in zip(nginx_cfgs, fports):
        spec = "program nginx\ndistribution %s\n" % name
        for i, p in enumerate(bports):
            spec += "node n%d 127.0.0.1:%d %d 0\n" % (i, p, WEIGHTS[i])
        asked = ask_http(fp, keys)
        compare("nginx " + name, asked, placer_owners(place, spec, keys))
        snap = user_build(PLACER, tmp, "nginx-" + name, {
            "compat": "nginx", "distribution": name,
            "nodes": [{"id": "n%d" % i, "address": "127.0.0.1:%d" % p, "weight": WEIGHTS[i]}
                      for i, p in enumerate(bports)]})
        compare("placer build, nginx " + name, asked,
                [int(o[1:]) for o, _, _ in placer_lookup(PLACER, snap, keys)])
        compare("import-nginx --upstream u_" + name, asked,
                nginx_owners(tmp, ncfg, "u_" + name, bports, keys))
    for (name, key, mod, extra), fp in zip(NGINX_INCLUDED, iports):
        if key == "$arg_k":
            asked, placed = ask_http(fp, keys), keys
        else:  # $request_uri: the URI as sent, query included
            paths = ["/p/%s?x=%d" % (k, i) for i, k in enumerate(keys)]
            asked, placed = ask_paths(fp, paths), paths
        compare("import-nginx --upstream %s (included)" % name, asked,
                nginx_owners(tmp, ncfg, name, bports, placed))

    cases = []
    for t in ("consistent", "map-based"):
        for h in HAPROXY_HASHES:
            for av in (0, 1):
                cases.append((t, h, av, HAPROXY_IDS[len(cases) % len(HAPROXY_IDS)]))
    hports = free_ports(len(cases))
    conf = ["global\n  maxconn 256\ndefaults\n  mode http\n  timeout connect 5s\n"
            "  timeout client 30s\n  timeout server 30s\n"]
    for ci, ((t, h, av, ids), hp) in enumerate(zip(cases, hports)):
        conf.append("frontend f%d\n  bind 127.0.0.1:%d\n  default_backend b%d\n" % (ci, hp, ci))
        conf.append("backend b%d\n  balance url_param k\n  hash-type %s %s%s\n"
                    % (ci, t, h, " avalanche" if av else ""))
        for i, p in enumerate(bports):
            conf.append("  server s%d 127.0.0.1:%d weight %d%s\n"
                        % (i, p, WEIGHTS[i], " id %d" % ids[i] if ids[i] else ""))
    hcfg = os.path.join(tmp, "haproxy.cfg")
    with open(hcfg, "w") as f:
        f.write("".join(conf))
    hap = start(["haproxy", "-db", "-f", hcfg], log)
    for p in hports:
        wait_port(p, hap, "haproxy")
    for ci, ((t, h, av, ids), hp) in enumerate(zip(cases, hports)):
        spec = "program haproxy\ndistribution %s\nhash %s\navalanche %d\n" % (t, h, av)
        for i, p in enumerate(bports):
            spec += "node s%d 127.0.0.1:%d %d %d\n" % (i, p, WEIGHTS[i], ids[i])
        what = "haproxy %s %s%s ids %s" % (t, h, " avalanche" if av else "",
                                           ",".join(str(x) for x in ids))
        asked = ask_http(hp, keys)
        compare(what, asked, placer_owners(place, spec, keys))
        nodes = []
        for i, p in enumerate(bports):
            node = {"id": "s%d" % i, "address": "127.0.0.1:%d" % p, "weight": WEIGHTS[i]}
            if ids[i]:
                node["hash_id"] = ids[i]
            nodes.append(node)
        snap = user_build(PLACER, tmp, "haproxy-%s-%s-%d-%s" % (t, h, av, "-".join(map(str, ids))),
                          {"compat": "haproxy", "distribution": t, "key_hash": h,
                           "avalanche": bool(av), "nodes": nodes})
        compare("placer build, " + what, asked,
                [int(o[1:]) for o, _, _ in placer_lookup(PLACER, snap, keys)])
        # The user's path: the haproxy.cfg haproxy runs with, imported.
        compare("import-haproxy, " + what, asked,
                [int(o[1:]) for o, _, _ in placer_lookup(PLACER, import_haproxy(tmp, hcfg, ci), keys)])
    haproxy_forms(tmp, bports, keys, log)


def import_haproxy(tmp, cfg, backend_index):
    snap = os.path.join(tmp, "imported-b%d.snap" % backend_index)
    run_placer(PLACER, ["import-haproxy", cfg, "--backend", "b%d" % backend_index, "-o", snap])
    return snap


def uri_key(path, depth):
    """What haproxy's `balance uri depth N` hashes (backend.c get_server_uh):
    the URI up to '?' and up to the (N+1)-th '/', that slash excluded."""
    end, slashes = 0, 0
    while end < len(path):
        c = path[end]
        if c == "/":
            slashes += 1
            if slashes == depth + 1:
                break
        elif c == "?":
            break
        end += 1
    return path[:end]


def ask_paths(port, paths):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    out = []
    for p in paths:
        conn.request("GET", p)
        r = conn.getresponse()
        body = r.read()
        out.append(int(body) if r.status == 200 else -1)
    conn.close()
    return out


# haproxy's own forms, each through `placer import-haproxy` of the file
# haproxy runs and, for the bare ones, a membership without "avalanche"
# (placer's default is haproxy's): (hash-type line or None, extra server
# lines or None, balance, section keyword, how the keys are asked).
HAPROXY_FORMS = [
    ("hash-type consistent", None, "url_param k", "backend", "param"),
    ("hash-type map-based", None, "url_param k", "backend", "param"),
    (None, None, "url_param k", "backend", "param"),   # no hash-type: map-based
    ("hash-type consistent", "ids", "url_param k", "listen", "param"),
    ("hash-type consistent", "left-out", "url_param k", "backend", "param"),
    ("hash-type map-based", "left-out", "url_param k", "backend", "param"),
    ("hash-type consistent crc32", None, "uri depth 2", "backend", "uri"),
    ("hash-type consistent", None, "hdr(X-Key)", "backend", "hdr"),
    # balance source: the key is the client address's 4 bytes (connections
    # from 127.x.y.z: loopback takes any 127/8 source), whatever function
    # hash-type names; its avalanche is hash-type's
    ("hash-type consistent", None, "source", "backend", "source"),
    ("hash-type map-based", None, "source", "backend", "source"),
    ("hash-type consistent sdbm", None, "source", "backend", "source"),
    ("hash-type map-based djb2 avalanche", None, "source", "backend", "source"),
]


def source_addresses(n):
    """n distinct loopback addresses 127.x.y.z (fixed seed)."""
    rng = random.Random(26)
    out = set()
    while len(out) < n:
        out.add("127.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254)))
    return sorted(out)


def ask_sources(port, addrs):
    """The backend index haproxy chose for a connection from each address."""
    out = []
    for a in addrs:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT, source_address=(a, 0))
        conn.request("GET", "/")
        r = conn.getresponse()
        body = r.read()
        conn.close()
        out.append(int(body) if r.status == 200 else -1)
    return out


def haproxy_forms(tmp, bports, keys, log):
    fports = free_ports(len(HAPROXY_FORMS))
    conf = ["global\n  maxconn 256\ndefaults\n  mode http\n  timeout connect 5s\n"
            "  timeout client 30s\n  timeout server 30s\n  default-server weight 1\n"]
    for fi, ((ht, extra, bal, kw, _), fp) in enumerate(zip(HAPROXY_FORMS, fports)):
        if kw == "listen":
            conf.append("listen b%d\n  bind 127.0.0.1:%d\n" % (fi, fp))
        else:
            conf.append("frontend f%d\n  bind 127.0.0.1:%d\n  default_backend b%d\n"
                        "backend b%d\n" % (fi, fp, fi, fi))
        conf.append("  balance %s\n" % bal + ("  %s\n" % ht if ht else ""))
        for i, p in enumerate(bports):
            opts = " weight %d" % WEIGHTS[i]
            if extra == "ids" and i in (1, 3):
                opts += " id %d" % (10 - i)
            conf.append("  server s%d 127.0.0.1:%d%s check inter 60s\n" % (i, p, opts))
            if extra == "left-out" and i == 1:
                # not in haproxy's hash, yet each takes an automatic id
                conf.append("  server x0 127.0.0.1:%d weight 0\n  server x1 127.0.0.1:%d backup\n"
                            "  server x2 127.0.0.1:%d disabled\n" % (bports[0], bports[1], bports[2]))
    cfg = os.path.join(tmp, "haproxy-forms.cfg")
    with open(cfg, "w") as f:
        f.write("".join(conf))
    hap = start(["haproxy", "-db", "-f", cfg], log)
    for p in fports:
        wait_port(p, hap, "haproxy")
    for fi, ((ht, extra, bal, kw, ask), fp) in enumerate(zip(HAPROXY_FORMS, fports)):
        what = "%s %s, balance %s%s" % (kw, ht or "(no hash-type)", bal,
                                        ", " + extra if extra else "")
        if ask == "param":
            asked, placed = ask_http(fp, keys), keys
        elif ask == "uri":
            paths = ["/%s/%s/%s?q=%d" % (k, keys[(i * 7) % len(keys)], k[:3], i)
                     for i, k in enumerate(keys)]
            asked, placed = ask_paths(fp, paths), [uri_key(p, 2) for p in paths]
        elif ask == "source":
            addrs = source_addresses(len(keys))
            asked, placed = ask_sources(fp, addrs), [socket.inet_aton(a) for a in addrs]
        else:
            # hdr(): haproxy hashes the header's first comma-separated value;
            # an empty one falls back to round robin (get_server_hh): no key
            hkeys = [k for k in keys if k.split(",")[0]]
            asked, placed = ask_header(fp, hkeys), [k.split(",")[0] for k in hkeys]
        snap = import_haproxy(tmp, cfg, fi)
        compare("import-haproxy, " + what, asked,
                [int(o[1:]) for o, _, _ in placer_lookup(PLACER, snap, placed)])
        if ask == "source":
            # the membership a user writes for it: key_hash "source", the
            # avalanche said (a named key_hash without it means none)
            w = ht.split()
            m = {"compat": "haproxy", "key_hash": "source", "distribution": w[1],
                 "avalanche": w[-1] == "avalanche" or w[1:] == ["consistent"],
                 "nodes": [{"id": "s%d" % i, "weight": WEIGHTS[i]} for i in range(len(bports))]}
            snap = user_build(PLACER, tmp, "haproxy-source-%d" % fi, m)
            compare("placer build, " + what, asked,
                    [int(o[1:]) for o, _, _ in placer_lookup(PLACER, snap, placed)])
        elif extra is None and (ht is None or len(ht.split()) == 2):
            # the documented membership default: no "avalanche", no "key_hash"
            m = {"compat": "haproxy", "nodes": [{"id": "s%d" % i, "weight": WEIGHTS[i]}
                                                 for i in range(len(bports))]}
            if ht is None or "map-based" in ht:
                m["distribution"] = "map-based"
            snap = user_build(PLACER, tmp, "haproxy-bare-%d" % fi, m)
            compare("placer build, " + what + " (no avalanche field)", asked,
                    [int(o[1:]) for o, _, _ in placer_lookup(PLACER, snap, placed)])


def ask_header(port, keys):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    out = []
    for k in keys:
        conn.request("GET", "/", headers={"X-Key": k})
        r = conn.getresponse()
        body = r.read()
        out.append(int(body) if r.status == 200 else -1)
    conn.close()
    return out


# -------------------------------------------------------------------- Redis

def resp(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def redis_keyslots(port, keys):
    m = Mc(port)
    slots = []
    for i in range(0, len(keys), 200):
        batch = keys[i:i + 200]
        m.s.sendall(b"".join(resp("CLUSTER", "KEYSLOT", k) for k in batch))
        for _ in batch:
            r = m.line()
            if not r.startswith(b":"):
                raise RuntimeError("KEYSLOT: %r" % r)
            slots.append(int(r[1:]))
    return slots


def redis_cmd(port, *args):
    m = Mc(port)
    m.s.sendall(resp(*args))
    r = m.line()
    if r.startswith(b"$"):
        return m.exact(int(r[1:]) + 2)[:-2]
    return r


def redis(place, tmp, rng):
    port_rng = random.Random(os.getpid())
    log = open(os.path.join(tmp, "redis.log"), "wb")
    ports = []
    # A port found free can be taken by another process before redis-server
    # binds it (and its cluster bus port): a server that exits at start is
    # retried on another pair, a few times, before that counts as a failure.
    while len(ports) < 8:
        for attempt in range(5):
            p = free_redis_ports(1, port_rng)[0]
            if p in ports or any(abs(p - q) == 10000 for q in ports):
                continue
            d = os.path.join(tmp, "redis-%d-%d" % (p, attempt))
            os.mkdir(d)
            proc = start(["redis-server", "--port", str(p), "--bind", "127.0.0.1",
                          "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                          "--dir", d, "--save", "", "--appendonly", "no", "--daemonize", "no"],
                         log)
            try:
                wait_port(p, proc, "redis-server")
            except RuntimeError:
                if proc.poll() is None or attempt == 4:
                    raise
                continue
            ports.append(p)
            break
        else:
            raise RuntimeError("redis-server: no free port pair after 5 attempts")
    # Keys: random bytes, and hash tags of every shape.
    keys = []
    for i in range(NKEYS):
        body = bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 40)))
        shape = i % 5
        keys.append(body if shape == 0 else b"user:{%d}:x" % rng.randint(0, 999) if shape == 1
                    else b"{}" + body if shape == 2 else b"a{b}c{d}" + body if shape == 3
                    else b"x{" + body)
    compare("redis CLUSTER KEYSLOT", redis_keyslots(ports[0], keys), placer_slots(place, keys))
    cluster_split(place, tmp, ports[1:4], keys)
    cluster_split(place, tmp, ports[4:8] + [ports[0]], keys)  # the KEYSLOT node stored nothing


def placer_slots(place, keys):
    """Slot of each key per placer: one node per slot range of size 1 is too
    many nodes for compat_place, so ask with 2 nodes and bisect by tables."""
    # Node i owns slots with bit b set; 14 runs give every bit of the slot.
    slots = [0] * len(keys)
    for b in range(14):
        spec = "program redis\nnode r0 - 0 0\nnode r1 - 0 0\n"
        runs = []
        s = 0
        while s < 16384:
            e = s
            while e + 1 < 16384 and ((e + 1) >> b) & 1 == (s >> b) & 1:
                e += 1
            runs.append("slots %d %d %d\n" % (s, e, (s >> b) & 1))
            s = e + 1
        owners = placer_owners(place, spec + "".join(runs), keys)
        for i, o in enumerate(owners):
            slots[i] |= o << b
    return slots


def redis_routes(port, keys):
    """(slot, "ip:port") of each key as the cluster routes it: GET through
    one node, which answers (the key is its own) or redirects with MOVED."""
    m = Mc(port)
    out = []
    slots = redis_keyslots(port, keys)
    for i in range(0, len(keys), 200):
        batch = keys[i:i + 200]
        m.s.sendall(b"".join(resp("GET", k) for k in batch))
        for _ in batch:
            r = m.line()
            if r.startswith(b"-MOVED "):
                _, slot, where = r.decode().split(" ")
                out.append((int(slot), where))
            elif r == b"$-1":
                out.append((None, "127.0.0.1:%d" % port))
            else:
                raise RuntimeError("GET: %r" % r)
    return [(s if s is not None else slots[i], w) for i, (s, w) in enumerate(out)]


def cluster_split(place, tmp, group, keys):
    """redis-cli --cluster create's even split of 16384 slots to len(group)
    masters, against placer's default slot map for that many nodes; then
    the user's path: CLUSTER NODES -> placer import-redis -> placer lookup,
    against where the cluster routes each key."""
    argv = ["redis-cli", "--cluster", "create"] + ["127.0.0.1:%d" % p for p in group] + \
        ["--cluster-yes"]
    r = subprocess.run(argv, capture_output=True, timeout=60)
    check(r.returncode == 0, "redis-cli --cluster create: " + r.stderr.decode(errors="replace"))
    if r.returncode != 0:
        return
    text = redis_cmd(group[0], "CLUSTER", "NODES").decode()
    owner = [-1] * 16384
    for ln in text.splitlines():
        f = ln.split()
        port = int(f[1].split("@")[0].rsplit(":", 1)[1])
        idx = group.index(port)
        for rng_ in f[8:]:
            if rng_.startswith("["):
                continue
            a, _, b = rng_.partition("-")
            for s in range(int(a), int(b or a) + 1):
                owner[s] = idx
    spec = "program redis\n" + "".join("node r%d 127.0.0.1:%d 0 0\n" % (i, p)
                                       for i, p in enumerate(group))
    compare("redis-cli --cluster create, %d masters" % len(group), owner,
            placer_table(place, spec), "slots")
    nodes_txt = os.path.join(tmp, "cluster-nodes-%d.txt" % len(group))
    with open(nodes_txt, "w") as f:
        f.write(text)
    snap = os.path.join(tmp, "cluster-%d.snap" % len(group))
    run_placer(PLACER, ["import-redis", nodes_txt, "-o", snap])
    deadline = time.time() + TIMEOUT
    while b"cluster_state:ok" not in redis_cmd(group[0], "CLUSTER", "INFO"):
        if time.time() > deadline:
            raise RuntimeError("the cluster of %d masters is not ok after %.0f s" % (len(group), TIMEOUT))
        time.sleep(0.1)
    routes = redis_routes(group[0], keys)
    placed = placer_lookup(PLACER, snap, keys)
    compare("import-redis, %d masters: slots" % len(group), [r[0] for r in routes],
            [p[2] for p in placed])
    compare("import-redis, %d masters: owners" % len(group), [r[1] for r in routes],
            [p[1] for p in placed])


def run_checks(name, tmp, steps):
    """Runs steps() (the checks), stops every program started, keeps tmp's
    logs only when a check failed, prints the count line and returns the
    exit status."""
    try:
        steps()
    except Exception as e:  # a program that did not start or answer is a failure
        check(False, "%s: %s" % (type(e).__name__, e))
    finally:
        stop_all()
        if FAILED:
            print("logs kept in " + tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%s: %d passed, %d failed" % (name, PASSED, FAILED))
    return 1 if FAILED else 0


def main():
    global PLACER
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    place, PLACER = sys.argv[1], sys.argv[2]
    missing = [p for p in ("memcached", "nutcracker", "nginx", "haproxy", "redis-server",
                           "redis-cli") if not shutil.which(p)]
    if missing:
        print("skipped: not installed: %s (scripts/setup.sh installs them)" % " ".join(missing))
        return 77
    rng = random.Random(20261201)
    tmp = tempfile.mkdtemp(prefix="placer-compat-")
    return run_checks("compat_programs", tmp, lambda: (twemproxy(place, tmp, rng),
                                                        web(place, tmp, rng),
                                                        redis(place, tmp, rng)))


if __name__ == "__main__":
    sys.exit(main())
