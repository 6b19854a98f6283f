#!/usr/bin/env python3
"""nginx_placer.py -- ngx_http_upstream_placer_module in Debian's nginx, on loopback.

Starts five backends (one nginx, five servers, each answering its own name)
and, in front of them, nginx with the module loaded (master + 2 workers,
changed files read by a thread pool of one thread)
whose upstream lists the five and a sixth server nothing listens on. While
clients send requests with keys never repeated, the snapshot file is
replaced by atomic renames: good snapshots (each a new epoch, built with
`placer build`, with differing members and weights, the dead server among
the members of some) and bad ones (truncated; re-signed: a header count
changed and the CRC-32C made right; forged: well-formed but naming a server
the upstream lacks; stale: an older epoch). After each file the test waits
until both workers have logged taking or refusing it.

Then it checks, offline with `placer lookup --raw --replicas 3`:
  * every request answered 200 (0 failures), by the backend the log names;
  * every request went to the first server of its key's replica set under
    the epoch logged with it that is not the dead one; role "owner" when
    that is the owner, "replica" otherwise, and only the dead server tried
    before it ($upstream_addr);
  * at least 5,000 requests and 20 epochs served, both roles seen;
  * every bad file refused by both workers with its reason, no epoch of a
    bad file ever logged, no worker crashed;
  * a snapshot with a node no server matches fails `nginx -t` with its name;
  * the check can fail: the same log read against the wrong epochs finds
    misplaced requests;
  * docs/NGINX.md's membership and configuration, as written (paths moved
    under the test's directory), build and pass `nginx -t`;
  * moving from nginx's own balancer moves no key: nginx with `hash
    $request_uri consistent` and nginx with the module on the snapshot
    `placer import-nginx` made of that upstream answer 1,000 keys from the
    same backends (and a module on another snapshot does not).

With --lua LIBPLACER.so the front is lua-resty-placer instead, in
balancer_by_lua with ngx.balancer (Debian's libnginx-mod-http-lua): the same
requests, swaps, bad files and checks, but for nginx -t, the configuration
of docs/NGINX.md and the comparison with hash consistent, which are the
module's. Its failures are counted by resty.placer.failures.

Both fronts count failures (max_fails=1, fail_timeout=1s, per worker: the
module through nginx's round robin), and the test checks that the dead
server is then skipped: tried by at most max_fails + the clients + one
probe per fail_timeout of the run in each worker, far fewer than the
requests whose key it owns (which all try it first without the
accounting).

Usage: nginx_placer.py PLACER MODULE.so | nginx_placer.py --lua LIBPLACER.so PLACER
Exit 0 on success, 1 on a failed check, 77 (skipped) when nginx is not installed. Every process is stopped by
its pid; every wait is bounded.
"""
import http.client
import json
import os
import random
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nginx_harness as nh  # noqa: E402  (ports, backends, chash import, stop)

NGINX = nh.NGINX
GOOD_SWAPS = int(os.environ.get("PLACER_NGINX_SWAPS", "24"))
MIN_REQUESTS = 6000
CLIENTS = 6
# the servers' max_fails and fail_timeout (seconds), and lua-resty-placer's
MAX_FAILS, FAIL_TIMEOUT = 1, 1
WAIT = 30.0  # the bound of every wait (never a pass/fail criterion)
FAILED = []


def check(ok, what):
    if not ok:
        FAILED.append(what)
        print("FAILED: " + what, file=sys.stderr)


def crc32c(data):
    table = crc32c.table
    if table is None:
        table = []
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            table.append(c)
        crc32c.table = table
    crc = 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


crc32c.table = None


def resign(data):
    """The header's CRC-32C (offset 60) made right for data (docs/FORMAT.md)."""
    crc = crc32c(data[:60] + data[64:])
    return data[:60] + struct.pack("<I", crc) + data[64:]


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=WAIT, **kw)


class Snapshots:
    """Membership files built into snapshots with the placer command."""

    def __init__(self, placer, tmp, addrs, dead):
        self.placer, self.tmp, self.addrs, self.dead = placer, tmp, addrs, dead
        self.files = {}  # epoch -> path

    def build(self, epoch, nodes, name=None):
        m = os.path.join(self.tmp, "m%d.json" % epoch)
        with open(m, "w") as f:
            json.dump({"strategy": "ring", "vnodes": 64, "nodes": nodes}, f)
        out = os.path.join(self.tmp, name or "e%d.snap" % epoch)
        r = run([self.placer, "build", m, "--epoch", str(epoch), "-o", out])
        if r.returncode != 0:
            raise SystemExit("placer build: " + r.stderr)
        if name is None:
            self.files[epoch] = out
        with open(out, "rb") as f:
            return f.read()

    def good(self, epoch, rng):
        names = ["b%d" % i for i in range(5)] + ["dead"]
        members = rng.sample(names, rng.randint(3, 6))
        if epoch % 3 == 0 and "dead" not in members:
            members.append("dead")
        nodes = [{"id": n, "address": self.dead if n == "dead" else self.addrs[n],
                  "weight": rng.randint(1, 3)} for n in members]
        return self.build(epoch, nodes)

    def replica_sets(self, epoch, keys):
        """key -> [address...]: the owner first, under that epoch's snapshot."""
        r = run([self.placer, "lookup", "--raw", "--replicas", "3", "--json",
                 self.files[epoch]], input="".join(k + "\n" for k in keys))
        if r.returncode != 0:
            raise SystemExit("placer lookup: " + r.stderr)
        out = {}
        for line in r.stdout.splitlines():
            j = json.loads(line)
            out[j["key"]] = [x["address"] for x in j["replicas"]]
        return out


FRONT_CONF = nh.front_prologue() + """  log_format placer '$request_uri $placer_epoch $placer_role "$upstream_addr" $status';
  access_log {tmp}/access.log placer;
""" + nh.temp_paths("f") + """  upstream backends {{
    placer_hash $request_uri snapshot={snap} check=20ms thread_pool=placer;
    placer_replicas 3;
{servers}
    keepalive 8;
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://backends;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
    }}
  }}
}}
"""


CHASH_CONF = """
load_module {module};
daemon off; master_process on; worker_processes 1;
error_log {tmp}/chash.err notice; pid {tmp}/chash.pid;
events {{ worker_connections 256; }}
http {{
  access_log off;
""" + nh.temp_paths("c") + """  include {tmp}/chash_upstream.conf;
  upstream placer {{
    placer_hash $request_uri snapshot={snap} thread_pool=off;
{servers}
  }}
  server {{ listen 127.0.0.1:{chash_port}; location / {{ proxy_pass http://chash; }} }}
  server {{ listen 127.0.0.1:{placer_port}; location / {{ proxy_pass http://placer; }} }}
}}
"""


def answers(port, keys):
    conn, out = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT), {}
    for k in keys:
        conn.request("GET", k)
        r = conn.getresponse()
        out[k] = (r.status, r.read().decode().strip())
    conn.close()
    return out


def same_as_chash(placer, module, tmp, addrs, procs, other_snap):
    """nginx's hash consistent vs the module on `placer import-nginx`'s snapshot."""
    servers = "".join("    server %s;\n" % a for a in addrs.values())
    snap = nh.import_chash(placer, tmp, list(addrs.values()))
    keys = ["/k/chash-%d" % i for i in range(1000)]
    got = {}
    for name, path in (("imported", snap), ("other", other_snap)):
        cport, pport = nh.free_ports(2)
        conf = os.path.join(tmp, "chash.conf")
        with open(conf, "w") as f:
            f.write(CHASH_CONF.format(module=module, tmp=tmp, snap=path, servers=servers, chash_port=cport,
                                      placer_port=pport))
        proc = nh.start(tmp, "chash.conf")
        procs.append(proc)
        nh.wait_port(cport, proc, WAIT)
        nh.wait_port(pport, proc, WAIT)
        got[name] = (answers(cport, keys), answers(pport, keys))
        proc.send_signal(signal.SIGQUIT)
        proc.wait(WAIT)
    chash, mod = got["imported"]
    check(all(v[0] == 200 for v in list(chash.values()) + list(mod.values())),
          "every request of the comparison answered 200")
    differ = [k for k in keys if chash[k] != mod[k]]
    check(not differ, "the module on the imported snapshot answers as hash consistent "
          "(%d of %d differ, e.g. %s)" % (len(differ), len(keys), differ[:3]))
    chash, mod = got["other"]
    differ = [k for k in keys if chash[k] != mod[k]]
    check(len(differ) > len(keys) // 10,
          "the comparison can fail: another snapshot differs on %d keys" % len(differ))


def docs_config(placer, module, tmp):
    """docs/NGINX.md's first json and nginx blocks: placer build, nginx -t."""
    doc = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                            "NGINX.md")).read()
    blocks = {}
    for part in doc.split("```")[1::2]:
        lang, _, body = part.partition("\n")
        blocks.setdefault(lang, body)
    d = os.path.join(tmp, "docs")
    os.makedirs(d)
    moved = {"/etc/placer/": d + "/", "/var/log/nginx/": d + "/",
             "modules/ngx_http_upstream_placer_module.so": module}
    for k, v in moved.items():
        blocks["nginx"] = blocks["nginx"].replace(k, v)
    with open(os.path.join(d, "cache.json"), "w") as f:
        f.write(blocks["json"])
    r = run([placer, "build", os.path.join(d, "cache.json"), "--epoch", "1",
             "-o", os.path.join(d, "cache.snap")])
    check(r.returncode == 0, "docs/NGINX.md's membership builds: " + r.stderr)
    with open(os.path.join(d, "nginx.conf"), "w") as f:
        f.write("pid %s/nginx.pid;\nerror_log %s/error.log;\n" % (d, d) + blocks["nginx"])
    r = run([NGINX, "-t", "-p", d, "-c", os.path.join(d, "nginx.conf"), "-e", d + "/error.log"])
    check(r.returncode == 0, "docs/NGINX.md's configuration passes nginx -t: " + r.stderr[-300:])


# The same front through lua-resty-placer (lua/resty/placer.lua): each
# worker's router follows the file from a timer, access_by_lua routes the
# key, balancer_by_lua takes the candidates in order (ngx.balancer). Its log
# lines say what the module's say.
FRONT_LUA_CONF = """
load_module {lua_modules}/ndk_http_module.so;
load_module {lua_modules}/ngx_http_lua_module.so;
daemon off; master_process on; worker_processes 2;
error_log {tmp}/front.err notice; pid {tmp}/front.pid;
events {{ worker_connections 512; }}
http {{
  log_format placer '$request_uri $placer_epoch $placer_role "$upstream_addr" $status';
  access_log {tmp}/access.log placer;
""" + nh.temp_paths("f") + """  lua_package_path "{lua_path}/?.lua;;";
  init_by_lua_block {{ assert(require("resty.placer").init("{library}")) }}
  init_worker_by_lua_block {{
    local placer = require "resty.placer"
    local path, allowed = "{snap}", {{ {allowed} }}
    local function check(s)
      for i = 0, s:count() - 1 do
        if not allowed[s:address(i)] then
          return nil, 'node "' .. s:id(i) .. '" (address "' .. tostring(s:address(i))
                      .. '") matches no server'
        end
      end
      return true
    end
    local snap = assert(placer.load_file(path))
    assert(check(snap))
    local router = assert(placer.router(snap))
    package.loaded["placer.worker"] = router
    package.loaded["placer.failures"] = assert(require("resty.placer.failures").new {{
      max_fails = {max_fails}, fail_timeout = {fail_timeout} }})
    assert(ngx.timer.every(0.02, function(premature)
      if premature then return end
      local was = router:epoch()
      local ok, err = router:follow(path, check)
      if ok then
        ngx.log(ngx.NOTICE, 'placer_hash: "', path, '": epoch ', router:epoch(),
                ' in force (was ', was, ')')
      elseif ok == nil then
        ngx.log(ngx.ERR, 'placer_hash: "', path, '" refused: ', err, ' (epoch ', was, ' kept)')
      end
    end))
  }}
  upstream backends {{
    server 0.0.0.1;
    balancer_by_lua_block {{
      local balancer = require "ngx.balancer"
      local ctx = ngx.ctx
      local fails = package.loaded["placer.failures"]
      local addr, role = fails:next(ctx, balancer.get_last_failure() == "failed")
      if not addr then return ngx.exit(502) end
      if ctx.tries == 1 and #ctx.candidates > 1 then
        assert(balancer.set_more_tries(#ctx.candidates - 1))
      end
      local host, port = addr:match("^(.+):(%d+)$")
      assert(balancer.set_current_peer(host, tonumber(port)))
      ngx.var.placer_role = role
    }}
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      set $placer_epoch "";
      set $placer_role "";
      access_by_lua_block {{
        local candidates, epoch = require("placer.worker"):route(ngx.var.request_uri, 3)
        ngx.ctx.candidates = candidates
        ngx.var.placer_epoch = epoch
      }}
      log_by_lua_block {{
        local header_time = ngx.var.upstream_header_time or "-"
        package.loaded["placer.failures"]:finish(ngx.ctx, header_time:match("[^ ,]+$") == "-")
      }}
      proxy_pass http://backends;
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
    }}
  }}
}}
"""
LUA_MODULES = "/usr/lib/nginx/modules"


def nginx_t_refuses(snaps, snap, tmp, module, addrs, dead, front_port):
    bad = snaps.build(1, [{"id": "b0", "address": addrs["b0"]},
                          {"id": "stranger", "address": "127.0.0.1:1"}], name="stranger.snap")
    with open(snap, "wb") as f:
        f.write(bad)
    servers_t = "".join("    server %s;\n" % a for a in list(addrs.values()) + [dead])
    tconf = os.path.join(tmp, "t.conf")
    with open(tconf, "w") as f:
        f.write(FRONT_CONF.format(module=module, tmp=tmp, snap=snap, port=front_port,
                                  servers=servers_t))
    r = run([NGINX, "-t", "-p", tmp, "-c", tconf, "-e", tmp + "/t.err"])
    check(r.returncode != 0 and 'node "stranger"' in r.stderr,
          "nginx -t refuses a node no server matches, naming it: %r" % r.stderr[-300:])


def start_front(tmp, module, snap, port, addrs, dead, library=None):
    servers = "".join("    server %%s max_fails=%d fail_timeout=%ds;\n" % (MAX_FAILS, FAIL_TIMEOUT) % a
                      for a in list(addrs.values()) + [dead])
    conf = os.path.join(tmp, "front.conf")
    with open(conf, "w") as f:
        if library is None:
            f.write(FRONT_CONF.format(module=module, tmp=tmp, snap=snap, port=port,
                                      servers=servers))
        else:
            allowed = ", ".join('["%s"] = true' % a for a in list(addrs.values()) + [dead])
            lua_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lua")
            f.write(FRONT_LUA_CONF.format(lua_modules=LUA_MODULES, tmp=tmp, snap=snap,
                                          port=port, allowed=allowed, library=library,
                                          max_fails=MAX_FAILS, fail_timeout=FAIL_TIMEOUT,
                                          lua_path=os.path.abspath(lua_path)))
    return conf, nh.start(tmp, "front.conf")


def log_count(path, needle):
    with open(path, errors="replace") as f:
        return f.read().count(needle)


def wait_log(path, needle, want, proc):
    """Until needle is in the log want times (both workers); bounded."""
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        if log_count(path, needle) >= want:
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.01)
    return False


class Clients:
    """Threads sending GET /k/<thread>-<n> on keep-alive connections."""

    def __init__(self, port):
        self.port, self.stop, self.answers, self.failures = port, False, {}, []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(i,)) for i in range(CLIENTS)]

    def run(self, t):
        conn, n, got = None, 0, {}
        while not self.stop:
            uri = "/k/%d-%d-%x" % (t, n, random.getrandbits(32))
            n += 1
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT)
                conn.request("GET", uri)
                r = conn.getresponse()
                body = r.read().decode()
                if r.status != 200:
                    self.failures.append("%s: %d" % (uri, r.status))
                got[uri] = body.strip()
            except (OSError, http.client.HTTPException) as e:
                self.failures.append("%s: %r" % (uri, e))
                conn = None
        with self.lock:
            self.answers.update(got)


def main():
    args = sys.argv[1:]
    library = None
    if args[:1] == ["--lua"]:
        library, args = os.path.abspath(args[1]), args[2:]
    if len(args) != 2 - (library is not None):
        raise SystemExit("usage: nginx_placer.py PLACER MODULE.so | --lua LIBPLACER.so PLACER")
    placer = args[0]
    module = os.path.abspath(args[1]) if library is None else None
    if not os.access(NGINX, os.X_OK):
        print("SKIP: %s not installed (scripts/setup.sh)" % NGINX)
        return 77
    if library is not None and not os.path.isfile(LUA_MODULES + "/ngx_http_lua_module.so"):
        raise SystemExit("no %s/ngx_http_lua_module.so: scripts/setup.sh installs "
                         "libnginx-mod-http-lua and lua-resty-core" % LUA_MODULES)
    rng = random.Random(44)
    procs = []
    with tempfile.TemporaryDirectory(prefix="placer-nginx-") as tmp:
        if os.environ.get("PLACER_NGINX_KEEP"):
            tmp = tempfile.mkdtemp(prefix="placer-nginx-kept-")
            print("kept: " + tmp)
        try:
            return scenario(placer, module, tmp, rng, procs, library)
        finally:
            nh.stop(procs, WAIT)


def scenario(placer, module, tmp, rng, procs, library):
    os.chmod(tmp, 0o755)  # nginx's workers (user nobody when run as root) read the snapshot
    ports = nh.free_ports(7)
    bports, front_port, dead_port = ports[:5], ports[5], ports[6]
    addrs = {"b%d" % i: "127.0.0.1:%d" % p for i, p in enumerate(bports)}
    name_of = {a: n for n, a in addrs.items()}
    dead = "127.0.0.1:%d" % dead_port
    procs.append(nh.start_backends(tmp, addrs, connections=256))

    snaps = Snapshots(placer, tmp, addrs, dead)
    snap = os.path.join(tmp, "cache.snap")

    # nginx -t refuses a snapshot naming a node no server matches, by name
    if library is None:
        docs_config(placer, module, tmp)
        nginx_t_refuses(snaps, snap, tmp, module, addrs, dead, front_port)

    epoch = 10
    with open(snap, "wb") as f:
        f.write(snaps.good(epoch, rng))
    conf, front = start_front(tmp, module, snap, front_port, addrs, dead, library)
    procs.append(front)
    started = time.monotonic()
    nh.wait_port(front_port, front, WAIT)
    err = os.path.join(tmp, "front.err")

    clients = Clients(front_port)
    for t in clients.threads:
        t.start()

    def replace(data):
        part = snap + ".part"
        with open(part, "wb") as f:
            f.write(data)
        os.rename(part, snap)

    bad_epochs = set()
    kinds = ["truncated", "re-signed", "forged", "stale"]
    for i in range(GOOD_SWAPS):
        epoch += 1 + rng.randint(0, 2)
        replace(snaps.good(epoch, rng))
        check(wait_log(err, "epoch %d in force" % epoch, 2, front),
              "both workers took epoch %d" % epoch)
        if i % 4 == 3:
            kind = kinds[(i // 4) % len(kinds)]
            good = open(snaps.files[epoch], "rb").read()
            if kind == "truncated":
                data, reason = good[: len(good) // 2], "refused: "
            elif kind == "re-signed":
                data = resign(good[:44] + struct.pack("<I", 0xFFFFFF) + good[48:])
                reason = "refused: "
            elif kind == "forged":
                bad_epochs.add(epoch + 100000)
                data = snaps.build(epoch + 100000, [{"id": "b0", "address": addrs["b0"]},
                                               {"id": "intruder", "address": "10.9.9.9:80"}],
                                   name="forged.snap")
                reason = 'node "intruder"'
            else:
                data = open(snaps.files[min(snaps.files)], "rb").read()
                reason = "is not newer than %d" % epoch
            before = log_count(err, reason)
            replace(data)
            check(wait_log(err, reason, before + 2, front),
                  "both workers refused the %s file with its reason (%r)" % (kind, reason))
    # keep the traffic going over the last epoch until enough requests
    end = time.monotonic() + 4 * WAIT
    while len(open(os.path.join(tmp, "access.log")).readlines()) < MIN_REQUESTS:
        if time.monotonic() > end or front.poll() is not None:
            break
        time.sleep(0.05)
    clients.stop = True
    for t in clients.threads:
        t.join(WAIT)

    front.send_signal(signal.SIGQUIT)
    front.wait(WAIT)
    elapsed = time.monotonic() - started
    snaps.build(epoch + 1, [{"id": n, "address": a} for n, a in addrs.items()],
                name="other.snap")
    if library is None:
        same_as_chash(placer, module, tmp, addrs, procs, os.path.join(tmp, "other.snap"))
    errlog = open(err, errors="replace").read()
    check("exited on signal" not in errlog and "[alert]" not in errlog,
          "no worker crashed or alerted")
    check(not clients.failures, "0 failed requests (%d: %s)" % (len(clients.failures),
                                                            clients.failures[:3]))

    lines = []
    for ln in open(os.path.join(tmp, "access.log")).read().splitlines():
        p = ln.split(" ")  # $upstream_addr holds ", " between the servers tried
        lines.append((p[0], p[1], p[2], " ".join(p[3:-1]), p[-1]))
    by_epoch = {}
    for uri, ep, role, addr, status in lines:
        by_epoch.setdefault(int(ep), []).append(uri)
    check(len(lines) >= MIN_REQUESTS, "at least %d requests (%d)" % (MIN_REQUESTS, len(lines)))
    check(len(by_epoch) >= 20, "at least 20 epochs served (%d)" % len(by_epoch))
    check(not (set(by_epoch) & bad_epochs), "no epoch of a bad file served")

    def misplaced(shift):
        sets = {}
        for ep, uris in by_epoch.items():
            known = sorted(snaps.files)
            use = known[(known.index(ep) + shift) % len(known)] if ep in snaps.files else ep
            if use not in snaps.files:
                continue
            got = snaps.replica_sets(use, uris)
            for u in uris:
                sets[(ep, u)] = got[u]
        bad, roles, owner_dead = [], {"owner": 0, "replica": 0}, 0
        for uri, ep, role, addr, status in lines:
            tried = addr.strip('"').split(", ")
            rs = sets.get((int(ep), uri))
            live = [a for a in rs if a != dead] if rs else []
            want_role = "owner" if live and live[0] == rs[0] else "replica"
            ok = (status == "200" and live and tried[-1] == live[0] and role == want_role
                  and all(a == dead for a in tried[:-1])
                  and clients.answers.get(uri) == name_of.get(tried[-1]))
            if not ok:
                bad.append(" ".join([uri, ep, role, addr, status, str(rs)]))
            elif role in roles:
                roles[role] += 1
            owner_dead += bool(rs) and rs[0] == dead
        return bad, roles, owner_dead

    bad, roles, owner_dead = misplaced(0)
    check(not bad, "every request served by its key's first live server under its epoch "
          "(%d misplaced, e.g. %s)" % (len(bad), bad[:3]))
    check(roles["owner"] > 0 and roles["replica"] > 0,
          "both roles seen (%s)" % roles)
    # max_fails: a server that failed max_fails times within fail_timeout
    # is skipped for fail_timeout, then one request probes it (nginx's
    # round robin under the module, resty.placer.failures under Lua). So
    # each worker tries the dead server at most max_fails times, plus the
    # requests already on their way to it, plus one probe per fail_timeout
    # of the run; without the accounting every request whose key it owns
    # tries it first.
    dead_tries = sum(1 for ln in lines if dead in ln[3].strip('"').split(", "))
    bound = 2 * (MAX_FAILS + CLIENTS + int(elapsed / FAIL_TIMEOUT) + 1)
    check(dead_tries <= bound, "a failed server skipped for fail_timeout: tried by %d "
          "requests, at most %d in %.1f s" % (dead_tries, bound, elapsed))
    check(owner_dead > 2 * bound, "the max_fails check can fail: %d requests' keys owned "
          "by the dead server (at least %d)" % (owner_dead, 2 * bound))
    print("dead server tried by %d requests (at most %d in %.1f s), owner of %d"
          % (dead_tries, bound, elapsed, owner_dead))
    wrong, _, _ = misplaced(1)
    check(len(wrong) > len(lines) // 10,
          "the check can fail: the log read against the wrong epochs misplaces %d" % len(wrong))
    print("%d requests, %d epochs, roles %s, %d checks failed"
          % (len(lines), len(by_epoch), roles, len(FAILED)))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
