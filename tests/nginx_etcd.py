#!/usr/bin/env python3
"""nginx_etcd.py -- ngx_http_upstream_placer_module following a snapshot
published under an etcd key (placer_hash ... etcd=URL etcd_key=KEY), with
a real etcd member (tests/etcd_member, on the etcd tests' harness) and
Debian's nginx on loopback (master + 2 workers, fetches in a thread pool
of one thread).

While clients send requests with keys never repeated:
  * good snapshots (new epochs, differing members and weights) are
    published with `placer publish`; the test waits until both workers log
    each epoch in force;
  * hostile values are put under the key with etcd's own API: a snapshot
    cut short, one with a byte changed (its CRC-32C then wrong), one
    re-signed (a header count changed, the CRC made right), then the key
    deleted; each is refused by both workers with its reason and the epoch
    in force kept;
  * the etcd member is killed: requests keep being answered on the last
    epoch; the unreachable member is logged once per worker although every
    check (100 ms) fails; restarted, the next publish is taken.

Then, from the access log, with `placer lookup --raw` on each epoch's file:
every request answered 200 by the owner of its key under the epoch logged
with it; several epochs served; no epoch of a hostile value ever logged;
and the check can fail (the same log against the next epoch's owners finds
misplaced requests). `nginx -t` refuses an unreachable etcd and etcd= with
thread_pool=off, each with its reason, and passes docs/NGINX.md's etcd
configuration, its membership published as the docs say.

Usage: nginx_etcd.py PLACER MODULE.so ETCD_MEMBER
Exit 0, 1 on a failed check, 77 (skipped) without nginx or etcd.
"""
import base64
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nginx_harness as nh  # noqa: E402
import nginx_placer as np_  # noqa: E402  (Snapshots, Clients, resign, check)

KEY = "/placer/test"
GOOD = 5  # epochs published before the hostile values
WAIT = 20.0  # the bound of every wait (never a pass/fail criterion)

FRONT_CONF = nh.front_prologue() + """  log_format placer '$request_uri $placer_epoch "$upstream_addr" $status';
  access_log {tmp}/access.log placer;
""" + nh.temp_paths("f") + """  upstream backends {{
    placer_hash $request_uri etcd={etcd} etcd_key={key} check=100ms etcd_timeout=300ms{pool};
    placer_replicas 1;
{servers}
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{ proxy_pass http://backends; }}
  }}
}}
"""


def etcd_call(url, path, body):
    req = urllib.request.Request(url + path, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)


def b64(data):
    return base64.b64encode(data).decode()


def put_raw(url, value):
    etcd_call(url, "/v3/kv/put", {"key": b64(KEY.encode()), "value": b64(value)})


def delete_key(url):
    etcd_call(url, "/v3/kv/deleterange", {"key": b64(KEY.encode())})


def publish(placer, url, path):
    r = subprocess.run([placer, "publish", "--etcd", url, "--key", KEY, path],
                       capture_output=True, text=True, timeout=WAIT)
    if r.returncode != 0:
        raise SystemExit("placer publish: " + r.stderr)


def log_since(log, offset):
    """The lines of log from byte offset on."""
    with open(log, "rb") as f:
        f.seek(offset)
        return f.read().decode(errors="replace").splitlines()


def workers_saying(log, needle, since=0):
    """The pids of the lines of log (from byte since on) that hold needle."""
    pids = set()
    for line in log_since(log, since):
        if needle in line:
            # "2026/12/05 21:30:00 [notice] 1234#1234: ..."
            pids.add(line.split("]", 1)[1].split("#", 1)[0].strip())
    return pids


def wait_workers(log, needle, front, want=2, since=0):
    """Until want workers logged needle (after byte since); bounded."""
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        if len(workers_saying(log, needle, since)) >= want:
            return True
        if front.poll() is not None:
            return False
        time.sleep(0.02)
    return False


def nginx_t(tmp, name, conf):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(conf)
    return subprocess.run([nh.NGINX, "-t", "-p", tmp, "-c", path, "-e", path + ".err"],
                          capture_output=True, text=True, timeout=WAIT)


def docs_config(placer, module, tmp, url):
    """docs/NGINX.md's membership published as its "Following etcd" section
    says, then that section's configuration (the etcd URL this member's,
    paths under tmp) through nginx -t."""
    doc = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                            "NGINX.md")).read()
    parts = [p.partition("\n") for p in doc.split("```")[1::2]]
    membership = next(body for lang, _, body in parts if lang == "json")
    conf = next(body for lang, _, body in parts if lang == "nginx" and " etcd=" in body)
    d = os.path.join(tmp, "docs")
    os.makedirs(d)
    with open(os.path.join(d, "cache.json"), "w") as f:
        f.write(membership)
    snap = os.path.join(d, "cache.snap")
    r = subprocess.run([placer, "build", os.path.join(d, "cache.json"), "--epoch", "1", "-o", snap],
                       capture_output=True, text=True, timeout=WAIT)
    np_.check(r.returncode == 0, "docs/NGINX.md's membership builds: " + r.stderr)
    r = subprocess.run([placer, "publish", "--etcd", url, "--key", "/placer/cache", snap],
                       capture_output=True, text=True, timeout=WAIT)
    np_.check(r.returncode == 0, "docs/NGINX.md's publish: " + r.stderr)
    for k, v in {"http://127.0.0.1:2379": url, "/var/log/nginx/": d + "/",
                 "modules/ngx_http_upstream_placer_module.so": module}.items():
        np_.check(k in conf, "docs/NGINX.md's etcd configuration names %s" % k)
        conf = conf.replace(k, v)
    r = nginx_t(d, "nginx.conf", "pid %s/nginx.pid;\nerror_log %s/error.log;\n" % (d, d) + conf)
    np_.check(r.returncode == 0, "docs/NGINX.md's etcd configuration passes nginx -t: "
              + r.stderr[-300:])


def scenario(placer, module, member, tmp, procs):
    check = np_.check
    os.chmod(tmp, 0o755)
    rng = random.Random(45)
    ports = nh.free_ports(6)
    addrs = {"b%d" % i: "127.0.0.1:%d" % ports[i] for i in range(5)}
    procs.append(nh.start_backends(tmp, addrs))
    etcd = subprocess.Popen([member], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    procs.append(etcd)
    url = etcd.stdout.readline().strip()
    if etcd.poll() == 77 or not url:
        return 77 if etcd.wait() == 77 else 1

    def member_do(what):
        etcd.stdin.write(what + "\n")
        etcd.stdin.flush()
        return etcd.stdout.readline().strip() == "ok"

    snaps = np_.Snapshots(placer, tmp, addrs, "127.0.0.1:1")

    def good(epoch):
        members = rng.sample(sorted(addrs), rng.randint(2, 5))
        return snaps.build(epoch, [{"id": n, "address": addrs[n], "weight": rng.randint(1, 3)}
                                   for n in members])

    good(1)
    publish(placer, url, snaps.files[1])
    servers = "".join("    server %s;\n" % a for a in addrs.values())
    conf = FRONT_CONF.format(module=module, tmp=tmp, etcd=url, key=KEY, port=ports[5],
                             servers=servers, pool=" thread_pool=placer")

    # nginx -t: an unreachable etcd, and a fetch that would block the worker
    r = nginx_t(tmp, "t1.conf", conf.replace(url, "http://127.0.0.1:1"))
    check(r.returncode != 0 and "PLACER_EUNAVAIL" in r.stderr and "127.0.0.1:1" in r.stderr,
          "nginx -t refuses an unreachable etcd with its reason: %r" % r.stderr[-300:])
    r = nginx_t(tmp, "t2.conf", conf.replace("thread_pool=placer;", "thread_pool=off;"))
    check(r.returncode != 0 and "thread_pool=off" in r.stderr,
          "nginx -t refuses etcd= with thread_pool=off: %r" % r.stderr[-300:])

    docs_config(placer, module, tmp, url)

    with open(os.path.join(tmp, "front.conf"), "w") as f:
        f.write(conf)
    front = nh.start(tmp, "front.conf")
    procs.append(front)
    nh.wait_port(ports[5], front)
    err = os.path.join(tmp, "front.err")
    clients = np_.Clients(ports[5])
    for t in clients.threads:
        t.start()
    try:
        for epoch in range(2, GOOD + 1):
            good(epoch)
            publish(placer, url, snaps.files[epoch])
            check(wait_workers(err, "epoch %d in force" % epoch, front),
                  "both workers take epoch %d from etcd" % epoch)

        # hostile values, each refused by both workers with its reason
        bad = good(GOOD + 1)
        hostile = [("cut short", bad[:len(bad) // 2], "PLACER_ETRUNC"),
                   ("with a byte changed", bad[:-9] + bytes([bad[-9] ^ 0x40]) + bad[-8:],
                    "PLACER_ECHECKSUM"),
                   ("re-signed with a count changed",
                    np_.resign(bad[:44] + struct.pack("<I", 0xFFFFFF) + bad[48:]),
                    " refused: PLACER_E")]
        for what, value, reason in hostile:
            at = os.path.getsize(err)
            put_raw(url, value)
            check(wait_workers(err, reason, front, since=at),
                  "both workers refuse a snapshot %s, saying %s: %r"
                  % (what, reason, log_since(err, at)[-3:]))
        at = os.path.getsize(err)
        delete_key(url)
        check(wait_workers(err, "PLACER_EMISSING", front, since=at),
              "both workers keep their epoch when the key is deleted")

        # etcd gone: requests still answered on the epoch in force
        at = os.path.getsize(err)
        served = os.path.getsize(os.path.join(tmp, "access.log"))
        check(member_do("kill"), "etcd member killed")
        time.sleep(2.0)
        check(os.path.getsize(os.path.join(tmp, "access.log")) > served + 1000,
              "requests answered while etcd is down")
        down = [ln for ln in log_since(err, at) if "PLACER_EUNAVAIL" in ln]
        check(len(down) == 2 and len(workers_saying(err, "PLACER_EUNAVAIL", at)) == 2,
              "etcd down logged once per worker in 2 s of 100 ms checks, not %d times: %r"
              % (len(down), down[:3]))
        check(member_do("restart"), "etcd member restarted")
        epoch = GOOD + 2
        good(epoch)
        publish(placer, url, snaps.files[epoch])
        check(wait_workers(err, "epoch %d in force" % epoch, front),
              "both workers take epoch %d once etcd is back" % epoch)
    finally:
        clients.stop = True
        for t in clients.threads:
            t.join(WAIT)

    check(not clients.failures, "every request answered: %r" % clients.failures[:3])
    nh.stop([front])
    rows = []
    with open(os.path.join(tmp, "access.log")) as f:
        for line in f:
            uri, epoch, upstream, status = line.split()
            rows.append((uri, int(epoch), upstream.strip('"'), status))
    epochs = sorted({e for _, e, _, _ in rows})
    check(len(rows) >= 500 and len(epochs) >= GOOD,
          "%d requests over epochs %s: want 500 and %d epochs" % (len(rows), epochs, GOOD))
    check(GOOD + 1 not in epochs, "no request served on the hostile epoch")

    def misplaced(shift):
        owners = {}
        wrong = 0
        for e in epochs:
            target = e + shift if e + shift in snaps.files else e
            if shift and target == e:
                continue
            keys = [u for u, ee, _, _ in rows if ee == e]
            sets = snaps.replica_sets(target, keys)
            for u in keys:
                owners[u] = sets[u][0]
        for uri, e, upstream, status in rows:
            if uri in owners and (status != "200" or upstream != owners[uri]):
                wrong += 1
        return wrong

    bad_rows = misplaced(0)
    check(bad_rows == 0, "%d of %d requests not answered by their key's owner under the "
          "epoch logged with them" % (bad_rows, len(rows)))
    check(misplaced(1) > 0, "the check can fail: owners under the next epoch differ")
    print("%d requests, epochs %s, %d checks failed" % (len(rows), epochs, len(np_.FAILED)))
    return 1 if np_.FAILED else 0


def main():
    if len(sys.argv) != 4:
        raise SystemExit("usage: nginx_etcd.py PLACER MODULE.so ETCD_MEMBER")
    placer, module, member = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    if not os.access(nh.NGINX, os.X_OK):
        print("SKIP: %s not installed (scripts/setup.sh)" % nh.NGINX)
        return 77
    procs = []
    with tempfile.TemporaryDirectory(prefix="placer-nginx-etcd-") as tmp:
        if os.environ.get("PLACER_NGINX_KEEP"):
            tmp = tempfile.mkdtemp(prefix="placer-nginx-etcd-kept-")
            print("kept: " + tmp)
        try:
            return scenario(placer, module, member, tmp, procs)
        finally:
            for p in procs:
                if p.stdin is not None:
                    p.stdin.close()  # the etcd member stops and cleans up
            nh.stop(procs, WAIT)


if __name__ == "__main__":
    sys.exit(main())
