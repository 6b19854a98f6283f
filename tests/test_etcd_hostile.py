#!/usr/bin/env python3
"""test_etcd_hostile.py PLACER -- `placer watch` and `placer publish` against
servers on 127.0.0.1 that are not well-behaved etcd members
(hostile_http_server.py: trickle, stall, notetcd, chunks):

  * watch --seconds 2 returns within 3 s of its start (S + 1), first read
    included, in every mode; publish --timeout 1000 gives up within 2 s;
  * SIGTERM and SIGINT end watch (its handler, then the follower's stop)
    and publish (the default action) within 1 s;
  * a 404 server: the error names the HTTP status and asks "is this an
    etcd endpoint?";
  * a keyed snapshot is refused for http:// endpoints unless
    --allow-cleartext-secret (the error names the option); TLS files with
    an http:// endpoint are a usage error for publish and watch.

A time bound missed by less than 2 s (a loaded machine: the box these run
on may have 2 cores and a load of 30) is tried once more and fails only if
it is missed again; a miss by 2 s or more fails at once (the hangs this
guards against lasted minutes). The summary counts those retries.

PLACER_HOSTILE_RUNS (default 3) repeats the hang checks in every mode (the
issue's goal is 0 hangs in 200 runs); PLACER_HOSTILE_MODES (comma-separated)
picks the modes. Every child has a hard timeout: a hang fails the check
instead of the whole test hanging. Exit 0, or 1 listing the failures.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_http_server as hostile  # noqa: E402

PLACER = sys.argv[1] if len(sys.argv) > 1 else "placer"
RUNS = int(os.environ.get("PLACER_HOSTILE_RUNS", "3"))
MODES = os.environ.get("PLACER_HOSTILE_MODES", "trickle,stall,notetcd,chunks").split(",")
KEY = "/hostile"
HARD = 30  # seconds before a child counts as hung and is killed

passed = 0
failures = []
retried = []


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr, flush=True)


def run(args, limit=HARD):
    """(exit status or 'hung', seconds, stderr) of PLACER args."""
    t = time.monotonic()
    try:
        p = subprocess.run([PLACER] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=limit)
        return p.returncode, time.monotonic() - t, p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        return "hung", time.monotonic() - t, (e.stderr or b"").decode(errors="replace")


def signalled(args, sig, after):
    """Start PLACER args, send sig after `after` s: (exit status or 'hung',
    seconds from the signal to the exit, stderr)."""
    p = subprocess.Popen([PLACER] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(after)
    t = time.monotonic()
    p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=HARD)
        return p.returncode, time.monotonic() - t, err.decode(errors="replace")
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return "hung", time.monotonic() - t, ""


def timed(args, limit):
    """run(args), once more when it missed limit by less than 2 s."""
    rc, secs, err = run(args)
    if rc != "hung" and limit <= secs < limit + 2:
        retried.append("%s: %.2f s" % (" ".join(args[:1] + args[-2:]), secs))
        rc, secs, err = run(args)
    return rc, secs, err


def timed_signal(args, sig, after):
    """signalled(args, ...), once more when the exit came 1 to 3 s after sig."""
    rc, secs, err = signalled(args, sig, after)
    if rc != "hung" and 1.0 <= secs < 3.0:
        retried.append("%s %s: %.2f s" % (args[0], sig.name, secs))
        rc, secs, err = signalled(args, sig, after)
    return rc, secs, err


def hang_checks(mode, url, i):
    tag = "%s run %d" % (mode, i)
    rc, secs, err = timed(["watch", "--etcd", url, "--key", KEY, "--seconds", "2"], 3.0)
    check(rc != "hung" and secs < 3.0, "%s: watch --seconds 2 took %.2f s (exit %s)" % (tag, secs, rc))
    want = (0, 3) if mode == "chunks" else (3,)
    check(rc in want, "%s: watch exit %s, want %s: %s" % (tag, rc, want, err.strip()[-300:]))
    if mode == "notetcd":
        check("HTTP 404" in err and "is this an etcd endpoint?" in err,
              "%s: watch's error names neither the status nor the hint: %s" % (tag, err.strip()))
    if mode != "chunks":  # (the chunks server accepts a publish)
        for timeout, limit in (("1000", 2.0), ("1", 1.0)):
            rc, secs, err = timed(["publish", "--etcd", url, "--key", KEY, "--timeout", timeout, SNAP], limit)
            check(rc == 3 and secs < limit, "%s: publish --timeout %s: exit %s after %.2f s: %s"
                  % (tag, timeout, rc, secs, err.strip()[-300:]))
            if mode == "notetcd" and timeout != "1":  # (1 ms: no time for an answer)
                check("HTTP 404" in err and "is this an etcd endpoint?" in err,
                      "%s: publish's error names neither the status nor the hint: %s" % (tag, err.strip()))


def signal_checks(mode, url):
    # watch past its first read (--timeout 300 ms), then inside the follower
    for sig in (signal.SIGTERM, signal.SIGINT):
        rc, secs, err = timed_signal(["watch", "--etcd", url, "--key", KEY, "--timeout", "300"], sig, 1.5)
        check(rc != "hung" and secs < 1.0 and isinstance(rc, int) and rc >= 0,
              "%s: watch after %s: exit %s %.2f s later" % (mode, sig.name, rc, secs))
        check("accepted" in err, "%s: watch after %s printed no summary: %s" % (mode, sig.name, err.strip()))
    # watch during its first read (the default action), publish mid-request
    rc, secs, _ = timed_signal(["watch", "--etcd", url, "--key", KEY], signal.SIGTERM, 0.3)
    check(rc != "hung" and secs < 1.0, "%s: watch in its first read: exit %s %.2f s after SIGTERM" % (mode, rc, secs))
    if mode != "chunks":
        rc, secs, _ = timed_signal(["publish", "--etcd", url, "--key", KEY, "--timeout", "60000", SNAP],
                                signal.SIGTERM, 0.5)
        check(rc != "hung" and secs < 1.0, "%s: publish: exit %s %.2f s after SIGTERM" % (mode, rc, secs))


def secret_checks(work, url_ok):
    secret = os.path.join(work, "secret.hex")
    with open(secret, "w") as f:
        f.write("00112233445566778899aabbccddeeff\n")
    os.chmod(secret, 0o600)
    member = os.path.join(work, "m.json")
    with open(member, "w") as f:
        f.write('{"strategy": "ring", "key_hash": "siphash13", "epoch": 3, "vnodes": 8,'
                ' "nodes": [{"id": "a"}, {"id": "b"}]}')
    keyed = os.path.join(work, "k.snap")
    rc, _, err = run(["build", member, "-o", keyed, "--secret-file", secret])
    check(rc == 0, "build keyed: exit %s: %s" % (rc, err))
    # refused before anything is sent (port 9 on loopback: nothing listens)
    for urls in ("http://127.0.0.1:9", "https://127.0.0.1:9,http://127.0.0.1:9"):
        rc, secs, err = run(["publish", "--etcd", urls, "--key", KEY, keyed])
        check(rc == 1 and "--allow-cleartext-secret" in err and "keyed" in err,
              "keyed over %s: exit %s: %s" % (urls, rc, err.strip()))
    # allowed: the chunks server takes the publish
    rc, _, err = run(["publish", "--etcd", url_ok, "--key", "/keyed", "--allow-cleartext-secret", keyed])
    check(rc == 0, "keyed with --allow-cleartext-secret: exit %s: %s" % (rc, err.strip()))
    # an unkeyed snapshot needs no option
    rc, _, err = run(["publish", "--etcd", url_ok, "--key", "/plain", SNAP])
    check(rc == 0, "unkeyed over http://: exit %s: %s" % (rc, err.strip()))
    # TLS files on http:// endpoints: a usage error, publish and watch
    for cmd in (["publish", "--etcd", url_ok, "--key", KEY, "--cacert", "/dev/zero", SNAP],
                ["publish", "--etcd", url_ok, "--key", KEY, "--cert", "/dev/zero",
                 "--cert-key", "/dev/zero", SNAP],
                ["watch", "--etcd", url_ok, "--key", KEY, "--cacert", "/dev/zero", "--seconds", "1"]):
        rc, _, err = run(cmd)
        check(rc == 1 and "https://" in err, "%s with TLS files on http://: exit %s: %s"
              % (cmd[0], rc, err.strip()))


def main():
    global SNAP
    work = tempfile.mkdtemp(prefix="placer-hostile-")
    member = os.path.join(work, "plain.json")
    with open(member, "w") as f:
        f.write('{"strategy": "ring", "epoch": 5, "nodes": [{"id": "a"}, {"id": "b"}]}')
    SNAP = os.path.join(work, "plain.snap")
    rc, _, err = run(["build", member, "-o", SNAP])
    if rc != 0:
        print("cannot build a snapshot:", err, file=sys.stderr)
        return 1
    servers = {m: hostile.start(m, KEY) for m in MODES}
    try:
        url = {m: "http://127.0.0.1:%d" % s.server_address[1] for m, s in servers.items()}
        for i in range(RUNS):
            for m in MODES:
                hang_checks(m, url[m], i)
        for m in MODES:
            signal_checks(m, url[m])
        if "chunks" in servers:
            secret_checks(work, url["chunks"])
    finally:
        for s in servers.values():
            s.shutdown()
            s.server_close()
        for name in os.listdir(work):
            os.unlink(os.path.join(work, name))
        os.rmdir(work)
    for r in retried:
        print("slow once, retried:", r)
    print("etcd_hostile: %d passed, %d failed, %d retried (%d runs of %s)"
          % (passed, len(failures), len(retried), RUNS, ",".join(MODES)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
