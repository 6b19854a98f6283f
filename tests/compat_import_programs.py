#!/usr/bin/env python3
"""compat_import_programs.py -- import-haproxy against haproxy 2.6 itself, for
what a configuration may hold beyond servers: environment variables, global's
setenv and the like, conditional blocks, regex ACLs.

  * conditions: each .if condition's verdict from `haproxy -c` (a branch
    holding `.alert` is taken when haproxy alerts) against the import of the
    same condition around a server: taken, not taken, or refused; placer
    refuses only what haproxy refuses or what depends on the proxy's build
    or exact 2.6.x (feature(), version_atleast(2.6.5)), never guesses;
  * server keywords: haproxy 2.6's taken, later ones (hash-key, 3.0)
    refused, by `haproxy -c` and by the import alike;
  * keys: haproxy on loopback with variables in every position (double
    quotes, defaults, ${N[*]}, $.LINE, bare and single-quoted addresses,
    setenv/presetenv/unsetenv, --env-file) in front of five servers that
    answer their index; every key's server, asked through haproxy, against
    `placer lookup` of `placer import-haproxy` of the same file; and a
    backend of server-template servers, an explicit id and
    hash-balance-factor, haproxy naming its server in a header.

With --nginx-hosts, nginx 1.22 instead, with servers given by host name,
resolved from a hosts file bind-mounted over /etc/hosts in a private mount
namespace (unshare -m; root only, else skipped): `hash ... consistent`
(nodes of the names as written) and plain `hash` (`import-nginx --resolve`,
a name of two addresses two peers), key for key.

Usage: compat_import_programs.py PATH/TO/placer [--nginx-hosts]. Exit 0 when
all match, 1 on a difference, 77 (skipped) when a program is not installed.
"""
import http.client
import http.server
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat_programs as cp  # noqa: E402  (its helpers: ports, lookups, checks)

KEYS = 600  # per backend, asked through haproxy one request at a time

# (condition, what placer must do: True/False taken, None refused as
# undecidable on this side). haproxy's own verdict is asked every time.
CONDITIONS = [
    ("defined(PLC_SET)", True), ("defined(PLC_NOPE)", False), ("!defined(PLC_SET)", False),
    ("defined(PLC_LATE)", True), ("defined(PLC_GONE)", False),
    ("defined(PLC_SET) && defined(PLC_NOPE)", False), ("defined(PLC_NOPE) || 1", True),
    ("streq(a,a)", True), ("streq(a, a)", False), ("strneq(a,b)", True),
    ('"streq(${PLC_SET},prod)"', True), ('"streq($PLC_NOPE,)"', True), ("streq()", None),
    ("version_atleast(2.4)", True), ("version_atleast(2.6)", True),
    ("version_atleast(2.6.0)", True), ("version_atleast(2.7)", False),
    ("version_before(2.7)", True), ("version_before(3.0.1)", True), ("version_before(2.6)", False),
    ("version_atleast(2.6.5)", None), ("feature(OPENSSL)", None),
    ("0 && feature(OPENSSL)", False), ("1 || feature(OPENSSL)", True),
    ("0x10", True), ("0", False), ("!(1 && 0)", True), ("((1)) && !0", True),
    ("defined(A) defined(B)", None), ("bogus(1)", None), ("defined()", False),
]


def haproxy_verdict(tmp, cond, env):
    """True (taken), False, or None (haproxy refuses the file)."""
    cfg = os.path.join(tmp, "cond.cfg")
    with open(cfg, "w") as f:
        f.write("global\n  setenv PLC_LATE 1\n  unsetenv PLC_GONE\n.if %s\n  .alert \"TAKEN\"\n"
                ".endif\ndefaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n"
                "  timeout connect 1s\n" % cond)
    r = subprocess.run(["haproxy", "-c", "-f", cfg], capture_output=True, env=env, timeout=30)
    out = r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")
    if "'TAKEN'" in out:
        return True
    return None if "[ALERT]" in out else False


def placer_verdict(tmp, cond, env):
    cfg = os.path.join(tmp, "cond-import.cfg")
    with open(cfg, "w") as f:
        f.write("global\n  setenv PLC_LATE 1\n  unsetenv PLC_GONE\nbackend b\n  balance uri\n"
                "  server s0 10.0.0.1:80\n.if %s\n  server s1 10.0.0.2:80\n.endif\n" % cond)
    doc = os.path.join(tmp, "cond.json")
    r = subprocess.run([cp.PLACER, "import-haproxy", cfg, "--backend", "b",
                        "--membership-out", doc], capture_output=True, env=env, timeout=30)
    if r.returncode == 2:
        return None
    if r.returncode != 0:
        raise RuntimeError("import-haproxy: exit %d" % r.returncode)
    with open(doc) as f:
        return '"s1"' in f.read()


def conditions(tmp):
    env = dict(os.environ, PLC_SET="prod", PLC_GONE="x")
    env.pop("PLC_NOPE", None)
    for cond, want in CONDITIONS:
        hv, pv = haproxy_verdict(tmp, cond, env), placer_verdict(tmp, cond, env)
        ok = pv == hv if want is not None or hv is None else pv is None
        cp.check(ok and pv == want, ".if %s: haproxy %s, placer %s (expected %s)" % (cond, hv, pv, want))
        if ok and pv == want:
            print("ok   .if %-40s haproxy %s, placer %s" % (cond, hv, "refuses" if pv is None else pv))


# Server keywords: haproxy 2.6's (with their argument) and later ones.
KEYWORDS = ["check", "backup", "no-tfo", "send-proxy-v2-ssl-cn", "inter 2s", "proxy-v2-options ssl",
            "ws h1", "source 127.0.0.1 usesrc clientip", "hash-key addr", "shard 1",
            "curves X25519", "init-state up", "guid g"]


def keywords(tmp):
    for kw in KEYWORDS:
        cfg = os.path.join(tmp, "kw.cfg")
        with open(cfg, "w") as f:
            f.write("backend b\n  balance uri\n  server s0 127.0.0.1:81\n"
                    "  server s1 127.0.0.1:80 %s\n" % kw)
        r = subprocess.run(["haproxy", "-c", "-f", cfg], capture_output=True, timeout=30)
        known = b"unknown keyword" not in r.stdout + r.stderr
        p = subprocess.run([cp.PLACER, "import-haproxy", cfg, "--backend", "b", "--membership-out",
                            os.path.join(tmp, "kw.json")], capture_output=True, timeout=30)
        cp.check(known == (p.returncode == 0) and p.returncode in (0, 2),
                 "server keyword %s: haproxy %s, import-haproxy exit %d"
                 % (kw, "knows it" if known else "refuses it", p.returncode))
        if known == (p.returncode == 0):
            print("ok   server ... %-32s %s by both" % (kw, "taken" if known else "refused"))


class Index(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = str(self.server.index).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Quiet(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # haproxy closing an idle connection at its stop


def backends(n):
    servers = []
    for i in range(n):
        s = Quiet(("127.0.0.1", 0), Index)
        s.index = i
        threading.Thread(target=s.serve_forever, daemon=True).start()
        servers.append(s)
    return servers


HAPROXY_ENV_CFG = r'''global
  maxconn 256
  pidfile "${RUNDIR}/haproxy.pid"
  setenv W2 2
  presetenv PORT0 1
  presetenv W0 4
  unsetenv GONE
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend f
  bind "127.0.0.1:${FPORT}"
  acl api path_reg ^/api/\d+$
  http-request set-header X-Note 'not $expanded \here'
  use_backend bm if api
  default_backend b
frontend fm
  bind 127.0.0.1:"$FPORT_M"
  default_backend bm
frontend ft
  bind 127.0.0.1:${FPORT_T}
  http-response set-header X-Server %s
  default_backend bt
backend b
  balance url_param k
  hash-type consistent
  server s0 127.0.0.1:$PORT0 weight "$W0"
  server s1 "${HOST}:${PORT1}" weight "${W2}"
  server s2 '127.0.0.1:${PORT2}' weight "${NOPE-3}"
.if defined(GONE)
  server sx 127.0.0.1:1
.elif "streq($MODE,prod)" && version_atleast(2.4)
  server s3 127.0.0.1:$PORT3 id "$.LINE"
.endif
.if defined(HOST) && !defined(GONE)
  server s4 ${HOST}:${PORT4} "${OPTS[*]}"
.else
  server sy 127.0.0.1:1
.endif
backend bm
  balance url_param k
  hash-type map-based crc32
  server-template-free s9 127.0.0.1:1
backend bt
  balance url_param k
  hash-type consistent djb2
  hash-balance-factor 150
  server a 127.0.0.1:$PORT0 id 3
  server-template web 4 "${HOST}:${PORT1}" weight 5
  server-template t 7-8 127.0.0.1:${PORT2} backup
  server-template v 2-3 127.0.0.1:${PORT3} weight "${NOPE-2}"
  server z 127.0.0.1:$PORT4
'''


def ask_server(port, keys):
    """The server haproxy chose for each key, from its X-Server header."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=cp.TIMEOUT)
    out = []
    for k in keys:
        conn.request("GET", "/?k=" + k)
        r = conn.getresponse()
        r.read()
        out.append(r.getheader("X-Server") if r.status == 200 else None)
    conn.close()
    return out


def env_keys(tmp, rng):
    servers = backends(5)
    ports = [s.server_address[1] for s in servers]
    fport, fport_m, fport_t = cp.free_ports(3)
    env = dict(os.environ, RUNDIR=tmp, PORT0=str(ports[0]), PORT1=str(ports[1]),
               PORT2=str(ports[2]), PORT3=str(ports[3]), PORT4=str(ports[4]), HOST="127.0.0.1",
               FPORT=str(fport), FPORT_M=str(fport_m), FPORT_T=str(fport_t), W0="2", GONE="1", MODE="prod",
               OPTS="weight  5")
    env.pop("NOPE", None)
    cfg_text = HAPROXY_ENV_CFG.replace("  server-template-free s9 127.0.0.1:1\n", "".join(
        "  server m%d 127.0.0.1:$PORT%d weight \"${W%d-1}\"\n" % (i, i, i) for i in range(5)))
    cfg = os.path.join(tmp, "haproxy-env.cfg")
    with open(cfg, "w") as f:
        f.write(cfg_text)
    log = open(os.path.join(tmp, "haproxy-env.log"), "wb")
    hap = subprocess.Popen(["haproxy", "-db", "-f", cfg], stdout=log, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, env=env)
    cp.PROCS.append(hap)
    cp.wait_port(fport, hap, "haproxy")
    cp.wait_port(fport_m, hap, "haproxy")
    cp.wait_port(fport_t, hap, "haproxy")
    keys = cp.http_keys(rng, KEYS)
    # the importing host's own environment differs: the values come from --env-file
    env_file = os.path.join(tmp, "proxy.env")
    with open(env_file, "w") as f:
        f.write("".join("%s=%s\n" % (k, env[k]) for k in ("RUNDIR", "PORT0", "PORT1", "PORT2",
                                                           "PORT3", "PORT4", "HOST", "GONE",
                                                           "MODE", "OPTS", "W0")))
    for backend, port in (("b", fport), ("bm", fport_m)):
        snap = os.path.join(tmp, "env-%s.snap" % backend)
        cp.run_placer(cp.PLACER, ["import-haproxy", cfg, "--backend", backend, "--env-file",
                                  env_file, "-o", snap])
        asked = cp.ask_http(port, keys)
        names = [o for o, _, _ in cp.placer_lookup(cp.PLACER, snap, keys)]
        placed = [int(o[1:]) for o in names]
        cp.compare("import-haproxy, variables, backend %s" % backend, asked, placed)
    # server-template's servers share an address: haproxy names the one it chose
    snap = os.path.join(tmp, "env-bt.snap")
    cp.run_placer(cp.PLACER, ["import-haproxy", cfg, "--backend", "bt", "--env-file", env_file,
                              "-o", snap])
    cp.compare("import-haproxy, server-template, hash-balance-factor", ask_server(fport_t, keys),
               [o for o, _, _ in cp.placer_lookup(cp.PLACER, snap, keys)])
    for s in servers:
        s.shutdown()


NGINX_HOSTS = """127.0.0.1 app0.test
127.0.0.2 app1.test
127.0.0.3 app2.test
127.0.0.11 multi.test
127.0.0.12 multi.test
"""


def nginx_hosts(tmp, rng):
    """Run inside a private mount namespace whose /etc/hosts is NGINX_HOSTS."""
    pm, f1, f2, p0, p1 = cp.free_ports(5)
    backends = [("127.0.0.1", p0), ("127.0.0.2", p1), ("127.0.0.3", 80), ("127.0.0.11", pm),
                ("127.0.0.12", pm)]
    conf = ["worker_processes 1;\ndaemon off;\nerror_log %s/nginx-error.log;\npid %s/nginx.pid;\n"
            "events { worker_connections 256; }\nhttp {\n  access_log off;\n" % (tmp, tmp)]
    for d in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        conf.append("  %s_temp_path %s/%s;\n" % (d, tmp, d))
    for i, (ip, port) in enumerate(backends):
        conf.append("  server { listen %s:%d; location / { return 200 \"%d\"; } }\n" % (ip, port, i))
    conf.append("  upstream u_consistent {\n    hash $arg_k consistent;\n"
                "    server app0.test:%d;\n    server app1.test:%d weight=2;\n    server app2.test;\n"
                "    server multi.test:%d;\n  }\n" % (p0, p1, pm))
    conf.append("  upstream u_hash {\n    hash $arg_k;\n    server multi.test:%d weight=2;\n"
                "    server app0.test:%d;\n    server 127.0.0.2:%d;\n  }\n" % (pm, p0, p1))
    conf.append("  server { listen 127.0.0.1:%d; location / { proxy_pass http://u_consistent; } }\n"
                "  server { listen 127.0.0.1:%d; location / { proxy_pass http://u_hash; } }\n}\n"
                % (f1, f2))
    ncfg = os.path.join(tmp, "nginx-hosts.conf")
    with open(ncfg, "w") as f:
        f.write("".join(conf))
    log = open(os.path.join(tmp, "nginx-hosts.log"), "wb")
    nginx = cp.start(["nginx", "-c", ncfg, "-p", tmp], log)
    for port in (f1, f2, p0):  # the 127.0.0.1 ones; nginx opens all at once
        cp.wait_port(port, nginx, "nginx")
    keys = cp.http_keys(rng, KEYS)
    for upstream, port, by in (("u_consistent", f1, "names"), ("u_hash", f2, "addresses")):
        snap = os.path.join(tmp, upstream + ".snap")
        cp.run_placer(cp.PLACER, ["import-nginx", ncfg, "--upstream", upstream, "--resolve",
                                  "-o", snap])
        if by == "names":  # nodes of the servers' text; a name's first address serves it
            where = {"app0.test:%d" % p0: 0, "app1.test:%d" % p1: 1, "app2.test": 2,
                     "multi.test:%d" % pm: 3}
        else:
            where = {"%s:%d" % b: i for i, b in enumerate(backends)}
        placed = [where.get(a, -2) for _, a, _ in cp.placer_lookup(cp.PLACER, snap, keys)]
        asked = cp.ask_http(port, keys)
        if by == "names":
            # with consistent nginx picks the server by the key, then one of
            # its addresses by weighted turn: multi.test's two are one node
            asked = [3 if x == 4 else x for x in asked]
        cp.compare("import-nginx --resolve, %s (host %s)" % (upstream, by), asked, placed)


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--in-namespace":
        # unshare -m made this mount namespace: /etc/hosts is ours alone here
        cp.PLACER = sys.argv[1]
        subprocess.run(["mount", "--bind", sys.argv[3], "/etc/hosts"], check=True)
        tmp = tempfile.mkdtemp(prefix="placer-compat-hosts-")
        try:
            nginx_hosts(tmp, random.Random(20261205))
        except Exception as e:
            cp.check(False, "%s: %s" % (type(e).__name__, e))
        finally:
            cp.stop_all()
            if not cp.FAILED:
                shutil.rmtree(tmp, ignore_errors=True)
        print("nginx host names: %d passed, %d failed" % (cp.PASSED, cp.FAILED))
        return 1 if cp.FAILED else 0
    if len(sys.argv) == 3 and sys.argv[2] == "--nginx-hosts":
        if not shutil.which("nginx") or not shutil.which("unshare"):
            print("skipped: nginx or unshare is not installed")
            return 77
        if os.geteuid() != 0:
            print("skipped: resolving nginx's host names from a private /etc/hosts needs root "
                  "(unshare -m, mount --bind); the machine's /etc/hosts is never touched")
            return 77
        hosts = tempfile.NamedTemporaryFile("w", prefix="placer-hosts-", delete=False)
        hosts.write(NGINX_HOSTS)
        hosts.close()
        try:
            return subprocess.run(["unshare", "-m", "--propagation", "private", sys.executable,
                                   os.path.abspath(__file__), sys.argv[1], "--in-namespace",
                                   hosts.name], timeout=200).returncode
        finally:
            os.unlink(hosts.name)
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    cp.PLACER = sys.argv[1]
    if not shutil.which("haproxy"):
        print("skipped: haproxy is not installed (scripts/setup.sh installs it)")
        return 77
    rng = random.Random(20261204)
    tmp = tempfile.mkdtemp(prefix="placer-compat-import-")
    return cp.run_checks("compat_import_programs", tmp, lambda: (conditions(tmp), keywords(tmp),
                                                               env_keys(tmp, rng)))


if __name__ == "__main__":
    sys.exit(main())
