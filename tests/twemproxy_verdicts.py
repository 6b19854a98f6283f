#!/usr/bin/env python3
"""twemproxy_verdicts.py -- `placer import-twemproxy` against `nutcracker -t`.

Every file below is imported by placer and checked by nutcracker 0.5.0
(`nutcracker -t -c FILE`); both must say the same (imported / syntax is
ok, or refused / syntax is invalid), except the deliberate differences,
each listed in docs/COMPAT.md with its reason and checked here to be one
(placer refuses what nutcracker takes, or the one the other way round).
Every directive nutcracker 0.5.0 has appears with a valid and an invalid
value; so do its token and structure rules.

Usage: twemproxy_verdicts.py PATH/TO/placer [more nutcracker.yml files...].
Exit 0 when all agree, 1 otherwise, 77 when nutcracker is not installed.
"""
import os
import shutil
import subprocess
import sys
import tempfile

L = "  listen: 127.0.0.1:22121\n"
S = "  servers:\n   - 127.0.0.1:11211:1\n"


def pool(*lines, listen=L, servers=S, name="p"):
    return name + ":\n" + listen + "".join("  %s\n" % ln for ln in lines) + servers


# (what, yaml, pool). Each valid directive value, then the invalid ones.
CASES = [
    ("the smallest pool", pool(), None),
    ("every directive", pool("hash: md5", "hash_tag: \"{}\"", "distribution: modula",
                             "timeout: 400", "backlog: 1024", "client_connections: 10",
                             "redis: true", "tcpkeepalive: true", "redis_auth: secret",
                             "redis_db: 3", "preconnect: false", "auto_eject_hosts: true",
                             "server_connections: 2", "server_retry_timeout: 30000",
                             "server_failure_limit: 3"), None),
    ("tcpkeepalive false", pool("tcpkeepalive: false"), None),
    ("distribution ketama", pool("distribution: ketama"), None),
    ("quoted scalars", "\"p\":\n  \"listen\": '127.0.0.1:22121'\n  hash: \"md5\"\n"
                       "  servers:\n   - \"127.0.0.1:11211:1\"\n", None),
    ("sequence not indented", "p:\n" + L + "  servers:\n  - 127.0.0.1:11211:1\n"
                              "  - 127.0.0.1:11212:2 b\n", None),
    ("a comment", "# pools\np:\n" + L + "  # the servers\n" + S, None),
    ("named and unnamed, socket", pool(servers="  servers:\n   - 127.0.0.1:11211:1 a\n"
                                               "   - 127.0.0.1:11212:2\n   - /tmp/mc.sock:1\n"
                                               "   - /tmp/mc2.sock:3 sock\n"), None),
    ("a socket listen", pool(listen="  listen: /tmp/nc.sock\n"), None),
    ("a socket listen, permissions", pool(listen="  listen: /tmp/nc.sock 0666\n"), None),
    ("two pools", pool() + pool(listen="  listen: 127.0.0.1:22122\n", name="q"), "q"),
    ("every hash", "".join(pool("hash: " + h, listen="  listen: 127.0.0.1:%d\n" % (22200 + i),
                                name="p%d" % i)
                           for i, h in enumerate(["one_at_a_time", "md5", "crc16", "crc32",
                                                  "crc32a", "fnv1_64", "fnv1a_64", "fnv1_32",
                                                  "fnv1a_32", "hsieh", "murmur", "jenkins"])),
     "p3"),
    # refused by both
    ("reuseport (not in 0.5.0)", pool("reuseport: true"), None),
    ("an unknown directive", pool("colour: blue"), None),
    ("a duplicate directive", pool("hash: md5", "hash: crc32"), None),
    ("a hash nutcracker lacks", pool("hash: sha1"), None),
    ("a distribution nutcracker lacks", pool("distribution: vnode"), None),
    ("a one-character hash_tag", pool("hash_tag: \"{\""), None),
    ("timeout not a number", pool("timeout: 1s"), None),
    ("a negative backlog", pool("backlog: -1"), None),
    ("redis_db not a number", pool("redis_db: x"), None),
    ("client_connections not a number", pool("client_connections: 1.5"), None),
    ("server_connections 0", pool("server_connections: 0"), None),
    ("server_retry_timeout not a number", pool("server_retry_timeout: soon"), None),
    ("server_failure_limit not a number", pool("server_failure_limit: +1"), None),
    ("redis yes", pool("redis: yes"), None),
    ("tcpkeepalive 1", pool("tcpkeepalive: 1"), None),
    ("preconnect True", pool("preconnect: True"), None),
    ("auto_eject_hosts on", pool("auto_eject_hosts: on"), None),
    ("redis_auth without redis", pool("redis_auth: pw"), None),
    ("redis_auth with redis false", pool("redis: false", "redis_auth: pw"), None),
    ("an empty value", pool("timeout:"), None),
    ("an empty quoted value", pool("hash: \"\""), None),
    ("no listen", "p:\n" + S, None),
    ("listen without a port", pool(listen="  listen: 127.0.0.1\n"), None),
    ("listen port 0", pool(listen="  listen: 127.0.0.1:0\n"), None),
    ("listen port 70000", pool(listen="  listen: 127.0.0.1:70000\n"), None),
    ("listen without a host", pool(listen="  listen: :22121\n"), None),
    ("listen permissions above 0777", pool(listen="  listen: /tmp/nc.sock 1777\n"), None),
    ("two pools on one listen", pool() + pool(name="q"), "p"),
    ("a bad pool beside the imported one",
     pool() + pool(listen="  listen: 127.0.0.1:22122\n", servers="  servers:\n   - 1.2.3.4:1:0\n",
                   name="q"), "p"),
    ("no servers", "p:\n" + L, None),
    ("servers a scalar", "p:\n" + L + "  servers: 127.0.0.1:11211:1\n", None),
    ("a flow sequence", "p:\n" + L + "  servers: ['127.0.0.1:11211:1']\n", None),
    ("a flow mapping", "p: {listen: '127.0.0.1:22121'}\n", None),
    ("a document start", "---\n" + pool(), None),
    ("a document end", pool() + "...\n", None),
    ("a YAML directive", "%YAML 1.1\n---\n" + pool(), None),
    ("a tag", pool("hash: !!str md5"), None),
    ("an anchor", pool("hash: &h md5"), None),
    ("two pools of one name", pool() + pool(listen="  listen: 127.0.0.1:22122\n"), "p"),
    ("a zero weight", pool(servers="  servers:\n   - 127.0.0.1:11211:0\n"), None),
    ("a weight not digits", pool(servers="  servers:\n   - 127.0.0.1:11211:x\n"), None),
    ("a server without a weight", pool(servers="  servers:\n   - 127.0.0.1:11211\n"), None),
    ("a server port 0", pool(servers="  servers:\n   - 127.0.0.1:0:1\n"), None),
    ("a name of two words", pool(servers="  servers:\n   - 127.0.0.1:11211:1 a b\n"), None),
    ("a socket path with ':'", pool(servers="  servers:\n   - /tmp/a:b:1\n"), None),
    ("two servers of one name", pool(servers="  servers:\n   - 127.0.0.1:11211:1 a\n"
                                              "   - 127.0.0.1:11212:1 a\n"), None),
    ("a nested mapping", "p:\n" + L + "  hash:\n    a: b\n" + S, None),
    ("a server a sequence", "p:\n" + L + "  servers:\n   - - 127.0.0.1:11211:1\n", None),
    ("an empty file", "", None),
    ("a scalar file", "p\n", None),
    ("a pool a scalar", "p: 1\n", None),
    ("two documents", pool() + "---\n" + pool(name="q"), "p"),
]

# Deliberate differences (docs/COMPAT.md): placer refuses what nutcracker
# takes ("refuses"), or takes what nutcracker refuses ("takes").
DELIBERATE = [
    ("distribution random: no placement can follow it", pool("distribution: random"), None,
     "refuses"),
    ("a server without a host: placer's ids are not empty",
     pool(servers="  servers:\n   - :11211:1\n"), None, "refuses"),
    ("an empty server name: placer's ids are not empty",
     pool(servers="  servers:\n   - '127.0.0.1:11211:1 '\n"), None, "refuses"),
    ("a weight past 2147483647: nutcracker's int overflows",
     pool(servers="  servers:\n   - 127.0.0.1:11211:4294967297\n"), None, "refuses"),
    ("a listen host that does not resolve: placer looks no names up",
     pool(listen="  listen: no-such-host.invalid:22121\n"), None, "takes"),
]


def verdicts(placer, tmp, i, text, pool_name):
    path = os.path.join(tmp, "case-%d.yml" % i)
    with open(path, "w") as f:
        f.write(text)
    args = [placer, "import-twemproxy", path, "--membership-out", os.path.join(tmp, "m.json")]
    if pool_name:
        args += ["--pool", pool_name]
    p = subprocess.run(args, capture_output=True, timeout=60)
    n = subprocess.run(["nutcracker", "-t", "-c", path], capture_output=True, timeout=60)
    return p.returncode == 0, n.returncode == 0, p.stderr.decode(errors="replace").strip()


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    if not shutil.which("nutcracker"):
        print("skipped: nutcracker is not installed (scripts/setup.sh installs it)")
        return 77
    placer = sys.argv[1]
    cases = list(CASES)
    for extra in sys.argv[2:]:  # real files: every pool of each
        with open(extra) as f:
            text = f.read()
        names = [ln.split(":")[0] for ln in text.splitlines()
                 if ln and not ln[0].isspace() and not ln.startswith("#")]
        cases += [("%s --pool %s" % (os.path.basename(extra), n), text, n) for n in names]
    failed = passed = 0
    with tempfile.TemporaryDirectory(prefix="placer-tw-") as tmp:
        for i, (what, text, pool_name) in enumerate(cases):
            placed, ok, why = verdicts(placer, tmp, i, text, pool_name)
            if placed == ok:
                passed += 1
                print("ok   %-40s %s by both" % (what, "taken" if ok else "refused"))
            else:
                failed += 1
                print("FAILED: %s: placer %s, nutcracker %s (%s)" %
                      (what, "takes it" if placed else "refuses it",
                       "takes it" if ok else "refuses it", why), file=sys.stderr)
        for i, (what, text, pool_name, way) in enumerate(DELIBERATE):
            placed, ok, why = verdicts(placer, tmp, 1000 + i, text, pool_name)
            want = (False, True) if way == "refuses" else (True, False)
            if (placed, ok) == want:
                passed += 1
                print("ok   deliberate: %s" % what)
            else:
                failed += 1
                print("FAILED: deliberate difference gone: %s (placer %s, nutcracker %s)" %
                      (what, placed, ok), file=sys.stderr)
    print("twemproxy_verdicts: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
