"""nginx_harness.py -- what the nginx tests and benchmarks share: Debian's
nginx on loopback with backends that answer their name, free ports, bounded
waits for a port, the `hash $request_uri consistent` upstream and its
`placer import-nginx` snapshot, and stopping every process by its pid.

Used by tests/nginx_placer.py, bench/nginx_balancers.py,
bench/nginx_balancer_icount.py and bench/nginx_swap_cost.py.
"""
import os
import signal
import socket
import subprocess
import time

NGINX = "/usr/sbin/nginx"


def temp_paths(prefix):
    """nginx's temporary folders inside the run's {tmp}, named prefix_*: a
    configuration template's lines (still to be formatted with tmp)."""
    return ("  client_body_temp_path {tmp}/%s_body; proxy_temp_path {tmp}/%s_proxy;\n"
            "  fastcgi_temp_path {tmp}/%s_fcgi; uwsgi_temp_path {tmp}/%s_uwsgi; "
            "scgi_temp_path {tmp}/%s_scgi;\n" % ((prefix,) * 5))


def front_prologue(workers=2, connections=512):
    """The start of a front's configuration template (still to be
    formatted with module and tmp): the module loaded, a master and
    `workers` workers, the thread pool `placer`, the error log and pid in
    {tmp}, and `http {` opened; the caller adds its logs, temp_paths and
    upstream."""
    return ("load_module {module};\n"
            "daemon off; master_process on; worker_processes %d;\n"
            "thread_pool placer threads=1;\n"
            "error_log {tmp}/front.err notice; pid {tmp}/front.pid;\n"
            "events {{ worker_connections %d; }}\n"
            "http {{\n" % (workers, connections))


# One nginx process (no master) serving every backend: {servers} holds
# their server blocks (backend_servers).
BACKENDS = """
daemon off; master_process off; worker_processes 1;
error_log {tmp}/backends.err warn; pid {tmp}/backends.pid;
events {{ worker_connections {connections}; }}
http {{
  access_log off;
""" + temp_paths("b") + """{servers}
}}
"""


def free_ports(n):
    """n distinct free loopback ports (held open together, then released)."""
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def wait_port(port, proc, bound=30.0):
    """Until 127.0.0.1:port accepts; SystemExit when proc exits or after bound seconds."""
    end = time.monotonic() + bound
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit("nginx exited early (status %d)" % proc.returncode)
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("port %d never opened" % port)


def start(tmp, conf, argv_prefix=()):
    """nginx -p tmp -c tmp/conf, its error log tmp/NAME.err (conf NAME.conf)."""
    return subprocess.Popen(list(argv_prefix) + [NGINX, "-p", tmp, "-c", os.path.join(tmp, conf),
                                                 "-e", os.path.join(tmp, conf[:-5] + ".err")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_backends(tmp, addrs, connections=1024, argv_prefix=()):
    """addrs: name -> "127.0.0.1:PORT"; each answers 200 with its name. The
    process (started after argv_prefix, e.g. taskset), once every port
    accepts."""
    servers = "".join("  server { listen %s; location / { return 200 \"%s\\n\"; } }\n" % (a, n)
                      for n, a in addrs.items())
    with open(os.path.join(tmp, "backends.conf"), "w") as f:
        f.write(BACKENDS.format(tmp=tmp, servers=servers, connections=connections))
    proc = start(tmp, "backends.conf", argv_prefix)
    for a in addrs.values():
        wait_port(int(a.rsplit(":", 1)[1]), proc)
    return proc


def import_chash(placer, tmp, addrs, epoch=1):
    """tmp/chash_upstream.conf: upstream chash (`hash $request_uri
    consistent` over addrs, in order); returns the path of its snapshot
    made by `placer import-nginx` (so the module places keys as it does)."""
    servers = "".join("    server %s;\n" % a for a in addrs)
    with open(os.path.join(tmp, "chash_upstream.conf"), "w") as f:
        f.write("upstream chash {\n    hash $request_uri consistent;\n%s}\n" % servers)
    with open(os.path.join(tmp, "import.conf"), "w") as f:
        f.write("events {}\nhttp {\n  include %s/chash_upstream.conf;\n}\n" % tmp)
    snap = os.path.join(tmp, "imported.snap")
    r = subprocess.run([placer, "import-nginx", os.path.join(tmp, "import.conf"),
                        "--upstream", "chash", "-o", snap, "--epoch", str(epoch)],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise SystemExit("placer import-nginx: " + r.stderr)
    return snap


def stop(procs, bound=30.0):
    """SIGTERM to each process still running, by its pid; kill after bound."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(bound)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
