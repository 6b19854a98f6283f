#!/usr/bin/env python3
"""compat_clientlibs.py -- placer's client-library placements against the
libraries themselves, key for key:

  * groupcache (Go, github.com/golang/groupcache/consistenthash): the Go
    program tests/compat_groupcache_place.go, built offline in GOPATH mode
    against Debian's golang-github-golang-groupcache-dev;
  * uhashring 2.1, its default ring and its ketama ring, and pymemcache 3.5's
    HashClient (default RendezvousHash): tests/compat_pylibs_place.py under
    Debian's /usr/bin/python3.

Each configuration (node counts 1 to 40, weights, vnodes, replicas, and
points or scores made to collide) places 2,200+ keys: random ASCII and
non-ASCII texts, the empty key, the libraries' own point names (a key
whose hash is a point), keys whose MD5 shares its top 32 bits with a
uhashring point, and for pymemcache bytes that are not UTF-8. placer's side
is tests/compat_clientlibs_place.c, which also holds every answer to its
plain reference. Before the comparisons, a made-up owner must be reported
as a difference: the check can fail.

The public path is held to the libraries too: each configuration as a
membership file ("compat": "groupcache", "uhashring", "pymemcache"), built by `placer build`,
its keys placed by `placer lookup` (the snapshot encoded, decoded and
searched in batches), key for key; pymemcache's bytes keys (HashClient
formats one as its str() text, "b'...'") as that text given to placer.

Usage: compat_clientlibs.py PATH/TO/compat_clientlibs_place PATH/TO/placer. Exit 0 when
every key matches, 1 on a difference, 77 (skipped) when Go, groupcache's
source or a Python library is not installed (scripts/setup.sh installs them).
"""
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
GOPATH = "/usr/share/gocode"
GROUPCACHE = GOPATH + "/src/github.com/golang/groupcache/consistenthash"
SYSTEM_PYTHON = "/usr/bin/python3"
NKEYS = 2200
TIMEOUT = 120
FAILED = 0
PASSED = 0

# Found by search, checked again below: two groupcache peers whose replica 0
# points are one CRC; keys whose MD5 has the top 32 bits of a point of
# uhashring's default ring of "n0" and "n1" (vnodes 4096), below and above
# the point in its other 96 bits; two pymemcache servers with one score for
# a key.
GC_TWINS = ("http://599430bd25:8000", "http://f7633dd321:8000")
META_TIES = [("k45154", "n0-3107", -1), ("k340162", "n1-1290", -1), ("k1945425", "n0-3352", 1)]
PM_TWINS = [("tie", "10.0.98.96:11211", "10.2.61.245:11211"),
            ("user:42", "10.1.244.112:11211", "10.2.232.68:11211")]


def check(ok, what):
    global PASSED, FAILED
    if ok:
        PASSED += 1
    else:
        FAILED += 1
        print("FAILED: " + what, file=sys.stderr)


def run(cmd, data, env=None, checked_exit=None):
    """cmd's output; checked_exit: the exit that only fails that check."""
    p = subprocess.run(cmd, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=TIMEOUT, env=env)
    if checked_exit is not None and p.returncode == checked_exit:
        check(False, p.stderr.decode()[-800:])
    elif p.returncode:
        raise RuntimeError("%s: exit %d: %s" % (cmd[0], p.returncode, p.stderr.decode()[-800:]))
    return p.stdout


def hexkey(k):
    b = k.encode("utf-8", "surrogateescape")
    return b.hex() if b else "-"


def placer_owners(place, program, nodes, keys, replicas=0, vnodes=0):
    lines = ["program " + program]
    if replicas:
        lines.append("replicas %d" % replicas)
    if vnodes:
        lines.append("vnodes %d" % vnodes)
    for n in nodes:
        lines.append("node %s %d %d" % (n["name"].encode().hex(), n.get("weight", 1),
                                        n.get("vnodes", 0)))
    lines.append("keys")
    lines += [hexkey(k) for k in keys]
    # exit 1: the kernels and the reference differ (its message is the check's)
    out = run([place], ("\n".join(lines) + "\n").encode(), checked_exit=1)
    return [int(x) for x in out.split()]


def membership_owners(placer, tmp, membership, keys):
    """The node index of each key: the membership file built by `placer
    build`, the keys placed by `placer lookup` (in batches)."""
    path = os.path.join(tmp, "membership.json")
    with open(path, "w") as f:
        json.dump(membership, f)
    snap = os.path.join(tmp, "membership.snap")
    run([placer, "build", path, "-o", snap], b"")
    data = "".join(k.encode("utf-8", "surrogateescape").hex() + "\n" for k in keys).encode()
    out = run([placer, "lookup", snap, "--hex", "--json"], data).decode().splitlines()
    ids = [n["id"] for n in membership["nodes"]]
    return [ids.index(json.loads(line)["owner"]) for line in out]


def go_owners(binary, nodes, keys, replicas):
    lines = ["replicas %d" % replicas] + ["node " + n["name"].encode().hex() for n in nodes]
    lines += ["keys"] + [hexkey(k) for k in keys]
    return [int(x) for x in run([binary], ("\n".join(lines) + "\n").encode()).split()]


def py_owners(lib, nodes, keys, replicas=0, vnodes=0, bytes_keys=()):
    doc = {"lib": lib, "nodes": [{"name": n["name"], "weight": n.get("weight", 1),
                                  "vnodes": n.get("vnodes", 0)} for n in nodes],
           "replicas": replicas, "vnodes": vnodes, "keys": keys,
           "bytes_keys": [b.hex() for b in bytes_keys]}
    out = json.loads(run([SYSTEM_PYTHON, os.path.join(HERE, "compat_pylibs_place.py")],
                         json.dumps(doc).encode()))
    if bytes_keys:
        return out["owners"], out["client"], out["bytes_owners"]
    return out["owners"], out["client"]


def difference(what, got, want, keys):
    """None when every key has one owner on both sides, else what differs."""
    if len(got) != len(want):
        return "%s: %d owners from placer, %d from the library" % (what, len(got), len(want))
    diff = [i for i in range(len(keys)) if got[i] != want[i]]
    if not diff:
        return None
    i = diff[0]
    return "%s: %d of %d keys differ, first %r: placer %d, library %d" % (
        what, len(diff), len(keys), keys[i], got[i], want[i])


def compare(what, got, want, keys):
    d = difference(what, got, want, keys)
    check(d is None, d or what)


def random_keys(rng, n, non_ascii=True):
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_-./{}"
    wide = "éü€中文𝄞ßøΩ"
    keys = []
    for i in range(n):
        r = rng.random()
        if r < 0.1:
            keys.append("user:%d" % rng.randrange(10 ** 9))
        elif r < 0.2 and non_ascii:
            keys.append("".join(rng.choice(alphabet + wide * 3) for _ in range(rng.randrange(1, 20))))
        else:
            keys.append("".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 48))))
    return keys + [""]


def build_go(tmp):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "GOPATH": GOPATH,
           "GO111MODULE": "off", "GOFLAGS": "", "GOPROXY": "off",
           "GOCACHE": os.path.join(tmp, "gocache")}
    binary = os.path.join(tmp, "groupcache_place")
    run(["go", "build", "-o", binary, os.path.join(HERE, "compat_groupcache_place.go")], b"",
        env=env)
    return binary


def groupcache(place, placer, tmp, go, rng):
    twins = [{"name": n} for n in GC_TWINS]
    check(zlib.crc32(b"0" + GC_TWINS[0].encode()) == zlib.crc32(b"0" + GC_TWINS[1].encode()),
          "groupcache: the twin peers' first points are one CRC")
    configs = [(1, 50), (3, 1), (3, 50), (10, 3), (40, 50), (7, 200)]
    cases = [("groupcache %d peers x %d" % (n, r),
              [{"name": "http://10.0.%d.%d:8000" % (i // 256, i % 256)} for i in range(n)], r)
             for n, r in configs]
    cases.append(("groupcache twin points", twins, 2))
    cases.append(("groupcache twin points, reversed", twins[::-1], 2))
    cases.append(("groupcache twin points among others",
                  [{"name": "http://10.9.0.%d:8000" % i} for i in range(4)] + twins, 5))
    for what, nodes, replicas in cases:
        keys = random_keys(rng, NKEYS)
        keys += ["%d%s" % (r, n["name"]) for n in nodes[:8] for r in range(min(replicas, 3))]
        want = go_owners(go, nodes, keys, replicas)
        compare(what, placer_owners(place, "groupcache", nodes, keys, replicas=replicas), want, keys)
        doc = {"compat": "groupcache", "replicas": replicas,
               "nodes": [{"id": "n%d" % i, "address": n["name"]} for i, n in enumerate(nodes)]}
        compare(what + ", membership file", membership_owners(placer, tmp, doc, keys), want, keys)


def uhashring(place, placer, tmp, rng):
    for k, point, side in META_TIES:
        dk, dp = hashlib.md5(k.encode()).digest(), hashlib.md5(point.encode()).digest()
        check(dk[:4] == dp[:4] and (dk < dp) == (side < 0),
              "uhashring: %s shares %s's top 32 bits, on the stated side" % (k, point))
    cases = []
    for lib in ("uhashring", "uhashring-ketama"):
        for n, weights, vnodes, per_node in ((1, None, 0, None), (2, None, 0, None),
                                             (5, [1, 2, 3, 1, 5], 0, None),
                                             (16, None, 10, None),
                                             (6, [2, 1, 1, 3, 1, 1], 0, [0, 7, 0, 50, 1, 0])):
            nodes = []
            for i in range(n):
                nd = {"name": "cache%d.example:11211" % i, "weight": weights[i] if weights else 1}
                if per_node:
                    nd["vnodes"] = per_node[i]
                nodes.append(nd)
            cases.append((lib, "%s %d nodes, weights %s, vnodes %s/%s" % (lib, n, weights, vnodes,
                                                                       per_node),
                          nodes, vnodes, 0))
        # point names that collide: "a" vnode 11 and "a-1" vnode 1 are both "a-11"
        cases.append((lib, lib + " colliding point names",
                      [{"name": "a", "weight": 1}, {"name": "a-1", "weight": 1},
                       {"name": "b", "weight": 2}], 0, 0))
    cases.append(("uhashring-ketama", "uhashring-ketama replicas 2",
                  [{"name": "m%d" % i, "weight": 1 + i % 3} for i in range(4)], 0, 2))
    cases.append(("uhashring", "uhashring keys sharing a point's top 32 bits",
                  [{"name": "n0", "vnodes": 4096}, {"name": "n1", "vnodes": 4096}], 0, 0))
    for lib, what, nodes, vnodes, replicas in cases:
        keys = random_keys(rng, NKEYS)
        keys += ["%s-%d" % (n["name"], w) for n in nodes[:6] for w in range(12)]
        keys += [k for k, _, _ in META_TIES]
        want, _ = py_owners(lib, nodes, keys, replicas=replicas, vnodes=vnodes)
        compare(what, placer_owners(place, lib, nodes, keys, replicas=replicas, vnodes=vnodes),
                want, keys)
        doc = {"compat": "uhashring",
               "nodes": [{"id": n["name"], "weight": n.get("weight", 1)} for n in nodes]}
        for nd, n in zip(doc["nodes"], nodes):
            if n.get("vnodes"):  # HashRing({name: {"vnodes": v}}): the node's own
                nd["vnodes"] = n["vnodes"]
        if lib == "uhashring-ketama":
            doc["distribution"] = "ketama"
        if vnodes:
            doc["vnodes"] = vnodes
        if replicas:
            doc["replicas"] = replicas
        compare(what + ", membership file", membership_owners(placer, tmp, doc, keys), want, keys)


def pymemcache(place, placer, tmp, rng):
    cases = [("pymemcache %d servers" % n,
              [{"name": "10.0.%d.%d:11211" % (i // 200, 1 + i % 200)} for i in range(n)])
             for n in (1, 2, 5, 20)]
    cases.append(("pymemcache other ports and names",
                  [{"name": "cache-a.internal:11211"}, {"name": "cache-b.internal:11212"},
                   {"name": "::1:11213"}, {"name": "cache-é.internal:11211"}]))
    for key, a, b in PM_TWINS:
        cases.append(("pymemcache equal scores for %r" % key, [{"name": a}, {"name": b}]))
        cases.append(("pymemcache equal scores for %r, reversed" % key, [{"name": b}, {"name": a}]))
    for what, nodes in cases:
        keys = random_keys(rng, NKEYS)
        keys += [key for key, _, _ in PM_TWINS]
        # bytes that are not UTF-8, as Python's surrogateescape holds them
        keys += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12))).decode(
            "utf-8", "surrogateescape") for _ in range(100)]
        # bytes keys, which HashClient accepts too: RendezvousHash formats
        # one as its str() text ("b'user:1'"), which placer is given
        blobs = [("user:%d" % rng.randrange(10 ** 6)).encode() for _ in range(200)]
        blobs += [bytes(rng.randrange(33, 127) for _ in range(rng.randrange(1, 20)))
                  for _ in range(100)]
        want, through_client, want_bytes = py_owners("pymemcache", nodes, keys, bytes_keys=blobs)
        check(through_client > NKEYS // 2, "%s: most keys through HashClient itself" % what)
        compare(what, placer_owners(place, "pymemcache", nodes, keys), want, keys)
        doc = {"compat": "pymemcache",
               "nodes": [{"id": "n%d" % i, "address": n["name"]} for i, n in enumerate(nodes)]}
        compare(what + ", membership file", membership_owners(placer, tmp, doc, keys), want, keys)
        texts = [str(b) for b in blobs]
        compare(what + ", bytes keys as their str() text",
                membership_owners(placer, tmp, doc, texts), want_bytes, texts)


def pymemcache_refusals(placer, tmp):
    """Membership files pymemcache could not be given: each refused by
    `placer build` with its reason."""
    a = {"id": "a", "address": "10.0.0.1:11211"}
    cases = [([a, {"id": "b"}], None, "nodes[1].address: missing: pymemcache hashes"),
             ([a, {"id": "b", "address": "10.0.0.1:11211"}], None, "nodes a and b have one address"),
             ([a, {"id": "b", "address_base64": "MTAuMC4wLjI6/w=="}], None, "is not UTF-8"),
             ([dict(a, weight=2)], None, "nodes[0].weight: pymemcache has no weights"),
             ([a], ("distribution", "consistent"), "its own: \"rendezvous\""),
             ([a], ("key_hash", "md5"), "its own: \"murmur3\""),
             ([a], ("vnodes", 10), "does not apply")]
    for nodes, field, why in cases:
        doc = {"compat": "pymemcache", "nodes": nodes}
        if field:
            doc[field[0]] = field[1]
        refused(placer, tmp, doc, why)


def refused(placer, tmp, doc, why):
    """`placer build` of doc fails, saying why."""
    path = os.path.join(tmp, "refused.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    p = subprocess.run([placer, "build", path, "-o", os.path.join(tmp, "refused.snap")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    check(p.returncode != 0 and why in p.stderr.decode(),
          "%s refuses %s: %r" % (doc.get("compat"), json.dumps(doc), p.stderr.decode()[-300:]))


def node_vnodes_refusals(placer, tmp):
    """A node's own "vnodes" outside uhashring's range, or in a program
    without them: refused with the reason."""
    for v, why in ((0, "expected an integer from 1 to 65535"),
                   (65536, "expected an integer from 1 to 65535"),
                   ("7", "expected an integer from 1 to 65535"),
                   (2.5, "expected an integer from 1 to 65535")):
        refused(placer, tmp, {"compat": "uhashring", "nodes": [{"id": "a", "vnodes": v}]}, why)
    refused(placer, tmp, {"compat": "groupcache", "nodes": [{"id": "a", "vnodes": 3}]},
            "does not apply to \"groupcache\" (only to \"uhashring\"")
    refused(placer, tmp, {"nodes": [{"id": "a", "vnodes": 3}]},
            "applies only with \"compat\": \"uhashring\"")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    place, placer = sys.argv[1], sys.argv[2]
    if not shutil.which("go") or not os.path.isdir(GROUPCACHE) or not os.access(SYSTEM_PYTHON,
                                                                                 os.X_OK):
        print("SKIP: go, groupcache's source or %s missing" % SYSTEM_PYTHON)
        return 77
    if subprocess.run([SYSTEM_PYTHON, "-c", "import uhashring, pymemcache"],
                      stderr=subprocess.DEVNULL).returncode:
        print("SKIP: python3-uhashring or python3-pymemcache missing")
        return 77
    check(difference("made-up owner", [0, 1], [0, 0], ["a", "b"]) is not None and
          difference("made-up count", [0], [0, 0], ["a", "b"]) is not None,
          "a made-up difference is reported")
    rng = random.Random(20261205)
    with tempfile.TemporaryDirectory() as tmp:
        go = build_go(tmp)
        groupcache(place, placer, tmp, go, rng)
        uhashring(place, placer, tmp, rng)
        pymemcache(place, placer, tmp, rng)
        pymemcache_refusals(placer, tmp)
        node_vnodes_refusals(placer, tmp)
    print("compat_clientlibs: %d checks passed, %d failed" % (PASSED, FAILED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
