#!/usr/bin/env python3
"""tests/compat_cassandra_ring.py PLACER -- `placer import-cassandra` of
generated clusters against the DataStax Python driver (python3-cassandra
3.25: Murmur3Token, TokenMap, SimpleStrategy, NetworkTopologyStrategy) and
against a plain reference of Cassandra 4's server rule written here from
SimpleStrategy and NetworkTopologyStrategy.calculateNaturalReplicas.

Clusters of 1 and 2 datacenters, 1-3 racks, 16 and 256 tokens a node, RF
above the racks and {dc1: 3, dc2: 2} over two datacenters of 3 racks, written as nodetool ring prints them (Ring.java's format:
a section per datacenter, the header, the last token alone, one line per
token). 2,000 keys each through `placer lookup --json`: the token equals
the driver's, the replica list equals the reference exactly (set and
order). The driver's list is compared as the docs say:
  - SimpleStrategy: equal, order too;
  - NetworkTopologyStrategy: the same set wherever the driver lists no host
    twice; it lists one twice when a host met again before every rack was
    placed (RF above the racks), and it orders distinct racks first (the
    3.x rule) where the server keeps its one-pass walk's order; over two
    datacenters it lists one datacenter's hosts, then the other's, where
    the server interleaves them as its walk meets them (checked: the
    driver's lists are grouped, placer's interleave). Each is counted, and
    must occur, so the deviations stay documented.
Malformed rings and maps: a line number and a reason, exit status 2.
Off x86-64 the driver's C murmur3 is wrong (it reads bytes as char): skip
(exit 77)."""
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
from bisect import bisect_left

from cli_checks import check, done

if platform.machine() not in ("x86_64", "AMD64"):
    print("SKIP: the driver's C murmur3 is right only on x86-64")
    sys.exit(77)

from cassandra.connection import DefaultEndPoint  # noqa: E402
from cassandra.metadata import (Murmur3Token, NetworkTopologyStrategy,  # noqa: E402
                                SimpleStrategy)
from cassandra.policies import SimpleConvictionPolicy  # noqa: E402
from cassandra.pool import Host  # noqa: E402

placer = sys.argv[1]
rng = random.Random(42)


def ring_text(dcs, hosts):
    """nodetool ring's text (Ring.java's format) of hosts: (addr, dc, rack,
    tokens, status, state)."""
    width = max(len(h[0]) for h in hosts)
    fmt = "%%-%ds  %%-12s%%-7s%%-8s%%-16s%%-20s%%-44s\n" % width
    out = ["\n"]
    for dc in dcs:
        lines = sorted((t, h) for h in hosts if h[1] == dc for t in h[3])
        out.append("Datacenter: %s\n==========\n" % dc)
        out.append(fmt % ("Address", "Rack", "Status", "State", "Load", "Owns", "Token"))
        out.append(fmt % ("", "", "", "", "", "", lines[-1][0]) if len(lines) > 1 else "\n")
        for t, h in lines:
            out.append(fmt % (h[0], h[2], h[4], h[5], rng.choice(["?", "105.32 KiB", "1.2 GiB"]),
                              "33.33%", t))
        out.append("\n")
    out.append('  Warning: "nodetool ring" is used to output all the tokens of a node.\n')
    out.append('  To view status related info of a node use "nodetool status" instead.\n\n')
    out.append("\n  ")
    return "".join(out)


def reference(ring, owner, where, rf_by_dc, simple, token):
    """Cassandra 4's server rule, plainly: walk once round the sorted ring
    from the first token >= token; SimpleStrategy takes each new host until
    RF; NetworkTopologyStrategy, per datacenter, takes hosts of new racks and
    at most RF - racks hosts of racks met, until min(RF, hosts)."""
    start = bisect_left(ring, token) % len(ring)
    walk = [owner[ring[(start + i) % len(ring)]] for i in range(len(ring))]
    out = []
    if simple:
        for h in walk:
            if h not in out and len(out) < rf_by_dc:
                out.append(h)
        return out
    hosts, racks = {}, {}
    for h in owner.values():
        hosts.setdefault(where[h][0], set()).add(h)
        racks.setdefault(where[h][0], set()).add(where[h][1])
    left = {dc: min(rf, len(hosts.get(dc, ()))) for dc, rf in rf_by_dc.items()}
    repeats = {dc: rf - len(racks.get(dc, ())) for dc, rf in rf_by_dc.items()}
    seen = set()
    for h in walk:
        dc, rack = where[h]
        if left.get(dc, 0) <= 0 or h in out:
            continue
        if (dc, rack) not in seen:
            seen.add((dc, rack))
        elif repeats[dc] > 0:
            repeats[dc] -= 1
        else:
            continue
        out.append(h)
        left[dc] -= 1
    return out


def run(args, stdin=None):
    return subprocess.run([placer] + args, input=stdin, capture_output=True, text=True)


keys = ["user:%d:%d" % (i, rng.randrange(10**6)) for i in range(2000)]
dup_seen = order_differs = driver_equal = configs = dc_interleaved = both_dcs = 0

with tempfile.TemporaryDirectory() as d:
    ring_path, snap = os.path.join(d, "ring.txt"), os.path.join(d, "c.snap")
    for tokens in (16, 256):
        for ndc in (1, 2):
            for racks in (1, 2, 3):
                for simple in (True, False):
                    dcs = ["dc%d" % i for i in range(1, ndc + 1)]
                    hosts = []
                    for dc in dcs:
                        for i in range(2 * racks + 1):
                            rack = "rack%d" % (i % racks + 1)
                            addr = "10.%d.%d.%d" % (dcs.index(dc), i % racks, i)
                            toks = [rng.randrange(-2**63 + 1, 2**63) for _ in range(tokens)]
                            hosts.append((addr, dc, rack, toks, rng.choice(["Up", "Up", "Down"]),
                                          "Normal"))
                    rf = 3 if simple else racks + 2  # NTS: RF above the racks
                    rfs = {"dc1": rf}
                    if ndc == 2 and not simple:  # {dc1: 3, dc2: 2} over 3 racks each
                        rfs = {"dc1": rf if racks < 3 else 3, "dc2": 2}
                    if simple:
                        rmap = "{'class': 'SimpleStrategy', 'replication_factor': '%d'}" % rf
                    else:
                        rmap = ("{'class': 'org.apache.cassandra.locator.NetworkTopologyStrategy', "
                                + ", ".join("'%s': '%d'" % kv for kv in sorted(rfs.items())) + "}")
                    with open(ring_path, "w") as f:
                        f.write(ring_text(dcs, hosts))
                    r = run(["import-cassandra", ring_path, "--replication", rmap, "-o", snap])
                    check(r.returncode == 0, "import %s: %s" % (rmap, r.stderr))
                    if r.returncode:
                        continue
                    configs += 1
                    lk = run(["lookup", "--json", "--replicas", "8", snap], "\n".join(keys) + "\n")
                    check(lk.returncode == 0, "lookup: " + lk.stderr)
                    answers = [json.loads(line) for line in lk.stdout.splitlines()]
                    check(len(answers) == len(keys), "one answer a key")
                    # the driver's view of the same cluster
                    hobj = {h[0]: Host(DefaultEndPoint(h[0]), SimpleConvictionPolicy, h[1], h[2])
                            for h in hosts}
                    owner = {t: h[0] for h in hosts for t in h[3]}
                    ring = sorted(owner)
                    where = {h[0]: (h[1], h[2]) for h in hosts}
                    mt = {Murmur3Token(t): hobj[a] for t, a in owner.items()}
                    mring = sorted(mt)
                    strat = (SimpleStrategy({"replication_factor": str(rf)}) if simple
                             else NetworkTopologyStrategy({k: str(v) for k, v in rfs.items()}))
                    dmap = strat.make_token_replica_map(mt, mring)
                    rfs = rf if simple else rfs
                    bad = 0
                    for k, a in zip(keys, answers):
                        t = Murmur3Token.from_key(k.encode()).value
                        bad += a.get("token") != t
                        got = [x["id"] for x in a["replicas"]]
                        want = reference(ring, owner, where, rfs, simple, t)
                        bad += got != want
                        p = bisect_left(mring, Murmur3Token(t))
                        drv = [h.endpoint.address for h in dmap[mring[p % len(mring)]]]
                        if len(set(drv)) != len(drv):
                            dup_seen += 1
                            bad += not set(drv) <= set(got)
                            continue
                        bad += set(drv) != set(got)
                        if simple:
                            bad += drv != got
                        order_differs += drv != got
                        driver_equal += 1
                        if not simple and len(rfs) == 2:
                            # the driver lists one datacenter, then the other; the
                            # server interleaves them as its walk meets them
                            runs = lambda hs: sum(1 for i, h in enumerate(hs)
                                                  if i and where[h][0] != where[hs[i - 1]][0])
                            bad += runs(drv) != 1 or len(got) != sum(rfs.values())
                            dc_interleaved += runs(got) > 1
                            both_dcs += 1
                    check(bad == 0, "%d datacenter(s), %d racks, %d tokens, %s: %d keys wrong"
                          % (ndc, racks, tokens, rmap, bad))

    # the driver's known deviations occurred (docs/COMPAT.md), so they stay documented
    check(dup_seen > 0, "the driver listed no host twice: the documented deviation is gone")
    check(order_differs > 0, "the driver's NetworkTopologyStrategy order never differed")
    check(driver_equal > 20000, "sets compared with the driver: %d" % driver_equal)
    check(both_dcs > 5000 and dc_interleaved > 0,
          "two datacenters: %d sets, %d interleaved" % (both_dcs, dc_interleaved))

    # hostile input: a line and a reason, exit status 2
    good = ring_text(["dc1"], [("10.0.0.1", "dc1", "r1", [5, -7], "Up", "Normal"),
                               ("10.0.0.2", "dc1", "r2", [100], "Up", "Joining")])
    nts = "{'class': 'NetworkTopologyStrategy', 'dc1': '2'}"
    two_dcs = ring_text(["dc1", "dc2"], [("10.0.0.1", "dc1", "r1", [5, -7], "Up", "Normal"),
                                         ("10.1.0.1", "dc2", "r1", [100], "Up", "Normal"),
                                         ("10.1.0.2", "dc2", "r2", [-100], "Up", "Normal")])
    cases = [
        (good.replace("Normal", "Sleeping", 1), nts, "line 6: state"),
        ("1x0".join(good.rsplit("100", 1)), nts, "line 8: token"),
        (good.replace("Datacenter: dc1", "Datacentre: dc1"), nts, "line 2: expected"),
        (good.replace("==========", "----"), nts, "line 3: expected the rule"),
        (good.replace("33.33%              5 ", "33.33%              9223372036854775808 "), nts,
         "line 7: token"),
        (good.replace("Owns", "Own"), nts, "line 4: expected the header"),
        (good, "{'class': 'NetworkTopologyStrategy', 'dc1': '3/1'}", "transient"),
        (good, "{'class': 'SimpleStrategy'}", "replication_factor"),
        (good, "{'class': 'LocalStrategy'}", "class 'LocalStrategy'"),
        (good, "{'class': 'SimpleStrategy', 'replication_factor': '9'}", "factor 9"),
        (good, "{'class': 'NetworkTopologyStrategy', 'dc2': '3'}", "no datacenter"),
        (two_dcs, "{'class': 'NetworkTopologyStrategy', 'dc1': '5', 'dc2': '4'}", "sum to 9"),
        (two_dcs, "{'class': 'NetworkTopologyStrategy', 'replication_factor': '5'}", "sum to 10"),
        (good, "{'class': 'SimpleStrategy', 'replication_factor': '3'", "',' or '}'"),
        ("", nts, "ends before"),
        (good.replace("Normal", "Joining"), nts, "every node of dc1 is Joining"),
        (good.replace("Normal", "Leaving").replace("Joining", "Leaving"), nts,
         "every node of dc1 is Leaving"),
        (good.replace("Normal", "Leaving").replace("Joining", "Leaving"),
         "{'class': 'SimpleStrategy', 'replication_factor': '2'}", "every node of dc1 is Leaving"),
    ]
    for text, rmap, reason in cases:
        with open(ring_path, "w") as f:
            f.write(text)
        r = run(["import-cassandra", ring_path, "--replication", rmap, "-o", snap])
        check(r.returncode == 2 and reason in r.stderr,
              "refused with %r: exit %d, %r" % (reason, r.returncode, r.stderr))
    # the good one: the joining node holds no replica; import = build of its membership
    with open(ring_path, "w") as f:
        f.write(good)
    mem = os.path.join(d, "m.json")
    r = run(["import-cassandra", ring_path, "--replication", nts, "-o", snap,
             "--membership-out", mem])
    check(r.returncode == 0, "the good ring: " + r.stderr)
    r2 = run(["build", mem, "-o", snap + "2"])
    check(r2.returncode == 0 and open(snap, "rb").read() == open(snap + "2", "rb").read(),
          "import and build of its membership give the same bytes")
    lk = run(["lookup", "--json", "--replicas", "3", snap, "k"])
    check(lk.returncode == 0 and [x["id"] for x in json.loads(lk.stdout)["replicas"]] == ["10.0.0.1"],
          "a joining node holds no replica: " + lk.stdout)
    # a membership file's "replication" needs "replicas", and only a ring takes it
    for doc, reason in ((dict(json.load(open(mem)), replicas=0), 'needs "replicas"'),
                        (dict(json.load(open(mem)), replication="paxos"), "replication"),
                        ({"strategy": "jump", "replication": "simple", "nodes": [{"id": "a"}]},
                         'replication: does not apply to strategy "jump"')):
        with open(mem, "w") as f:
            json.dump(doc, f)
        r = run(["build", mem, "-o", snap + "3"])
        check(r.returncode == 2 and reason in r.stderr, "membership refused: %r" % r.stderr)
    # two datacenters: each node's datacenter and the factors in the membership; the build of
    # it gives the import's bytes; the interleaved set of the walk
    with open(ring_path, "w") as f:
        f.write(two_dcs)
    r = run(["import-cassandra", ring_path, "--replication",
             "{'class': 'NetworkTopologyStrategy', 'dc1': '1', 'dc2': '2'}", "-o", snap,
             "--membership-out", mem])
    m = json.load(open(mem)) if r.returncode == 0 else {}
    check(m.get("datacenter_replicas") == {"dc1": 1, "dc2": 2} and
          [n.get("datacenter") for n in m.get("nodes", [])] == ["dc1", "dc2", "dc2"],
          "two datacenters in the membership: %r %s" % (m, r.stderr))
    r2 = run(["build", mem, "-o", snap + "2"])
    check(r2.returncode == 0 and open(snap, "rb").read() == open(snap + "2", "rb").read(),
          "import and build of a two-datacenter membership give the same bytes")
    st = run(["stats", "--json", snap])
    sd = json.loads(st.stdout) if st.returncode == 0 else {}
    check([(x["datacenter"], x["nodes"], x["racks"], x["replication"])
           for x in sd.get("datacenters", [])] == [("dc1", 1, 1, 1), ("dc2", 2, 2, 2)] and
          [x.get("datacenter") for x in sd["nodes"]] == ["dc1", "dc2", "dc2"],
          "stats of two datacenters: %s %s" % (st.stdout, st.stderr))
    sim = run(["simulate", mem, "--keys", "2000", "--no-timing", "--json", "--strategies", "ring",
               "--vnodes", "16"])
    check(sim.returncode == 0 and json.loads(sim.stdout).get("datacenters") == 2,
          "simulate counts the datacenters: %s %s" % (sim.stdout[:200], sim.stderr))
    lk = run(["lookup", "--json", "--replicas", "8", snap, "k"])
    t = Murmur3Token.from_key(b"k").value
    want = reference([-100, -7, 5, 100], {5: "10.0.0.1", -7: "10.0.0.1", 100: "10.1.0.1",
                                          -100: "10.1.0.2"},
                     {"10.0.0.1": ("dc1", "r1"), "10.1.0.1": ("dc2", "r1"),
                      "10.1.0.2": ("dc2", "r2")}, {"dc1": 1, "dc2": 2}, False, t)
    check(lk.returncode == 0 and [x["id"] for x in json.loads(lk.stdout)["replicas"]] == want,
          "two datacenters, key k: %s against %r" % (lk.stdout, want))
    # factors that place nothing (a datacenter with no node in the ring, and
    # 'replication_factor' when the map names every datacenter of the ring) are
    # left out, whatever their size: the import's sets and its membership's build agree
    for rmap, want_dcs, want_rf, same in (
            ("{'class': 'NetworkTopologyStrategy', 'dc1': '1', 'dc2': '2', 'dc3': '10'}",
             {"dc1": 1, "dc2": 2}, None, True),
            ("{'class': 'NetworkTopologyStrategy', 'replication_factor': '10', 'dc1': '1', "
             "'dc2': '2'}", {"dc1": 1, "dc2": 2}, None, True),
            ("{'class': 'NetworkTopologyStrategy', 'replication_factor': '2', 'dc3': '9', "
             "'dc1': '1'}", {"dc1": 1}, 2, False)):
        r = run(["import-cassandra", ring_path, "--replication", rmap, "-o", snap + "4",
                 "--membership-out", mem])
        m = json.load(open(mem)) if r.returncode == 0 else {}
        check(m.get("datacenter_replicas") == want_dcs and m.get("replicas") == want_rf,
              "factors that place nothing left out, %s: %r %s" % (rmap, m, r.stderr))
        r2 = run(["build", mem, "-o", snap + "5"])
        check(r2.returncode == 0 and r.returncode == 0 and
              open(snap + "4", "rb").read() == open(snap + "5", "rb").read(),
              "factors left out, %s: import and build agree: %s" % (rmap, r2.stderr))
        check(not same or open(snap + "4", "rb").read() == open(snap, "rb").read(),
              "factors that place nothing change no byte of the snapshot: %s" % rmap)
    # a node added to dc1 with 16 random tokens (Cassandra's allocation without
    # allocate_tokens_for_local_replication_factor): `placer diff --replicas` per node
    # equals the server rule's sets before and after, key for key over its sample
    grow = [("10.%d.%d.%d" % (d, i % 3, i), "dc%d" % (d + 1), "rack%d" % (i % 3),
             [rng.randrange(-2**63 + 1, 2**63) for _ in range(16)], "Up", "Normal")
            for d in range(2) for i in range(7)]
    rfs = {"dc1": 3, "dc2": 2}
    nts2 = "{'class': 'NetworkTopologyStrategy', 'dc1': '3', 'dc2': '2'}"
    with open(ring_path, "w") as f:
        f.write(ring_text(["dc1", "dc2"], grow))
    r = run(["import-cassandra", ring_path, "--replication", nts2, "-o", snap,
             "--membership-out", mem])
    check(r.returncode == 0, "the ring to grow: " + r.stderr)
    m = json.load(open(mem))
    new_tokens = [rng.randrange(-2**63 + 1, 2**63) for _ in range(16)]
    m["nodes"].append({"id": "10.0.9.9", "zone": "rack1", "datacenter": "dc1",
                       "tokens": [str((t % 2**64) ^ (1 << 63)) for t in new_tokens]})
    with open(mem, "w") as f:
        json.dump(m, f)
    r = run(["build", mem, "-o", snap + "2"])
    check(r.returncode == 0, "the grown ring: " + r.stderr)
    sample = 3000
    df = run(["diff", "--replicas", "8", "--sample", str(sample), "--json", snap, snap + "2"])
    rep = json.loads(df.stdout)["replicas"] if df.returncode == 0 else {}
    check(rep.get("sample_size") == sample, "diff --replicas: %s %s" % (df.stdout[:300], df.stderr))
    before = {t: h[0] for h in grow for t in h[3]}
    after = dict(before)
    after.update({t: "10.0.9.9" for t in new_tokens})
    where = {h[0]: (h[1], h[2]) for h in grow}
    where["10.0.9.9"] = ("dc1", "rack1")
    ring_b, ring_a = sorted(before), sorted(after)
    loses, gains, changed, state = {}, {}, 0, 0
    for _ in range(sample):  # the diff's keys: "key:" and splitmix64 from 0, 16 hex digits
        state = (state + 0x9e3779b97f4a7c15) % 2**64
        z = state
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) % 2**64
        key = b"key:%016x" % (z ^ (z >> 31))
        t = Murmur3Token.from_key(key).value
        old = set(reference(ring_b, before, where, rfs, False, t))
        new = set(reference(ring_a, after, where, rfs, False, t))
        changed += old != new
        for h in old - new:
            loses[h] = loses.get(h, 0) + 1
        for h in new - old:
            gains[h] = gains.get(h, 0) + 1
    got = {n["id"]: (n["loses"], n["receives"]) for n in rep.get("nodes", [])}
    want = {h: (loses.get(h, 0) / sample, gains.get(h, 0) / sample) for h in list(where)}
    check(abs(rep.get("changed", -1) - changed / sample) < 1e-12 and
          all(abs(got.get(h, (-1, -1))[0] - w[0]) < 1e-12 and
              abs(got.get(h, (-1, -1))[1] - w[1]) < 1e-12 for h, w in want.items()),
          "diff --replicas against the server rule: %r against %r" % (rep, want))
    check(0 < gains.get("10.0.9.9", 0) < sample and
          all(where[h][0] == "dc1" for h in loses),
          "the new dc1 node receives, only dc1 nodes lose: %r %r" % (gains, loses))
    lk = run(["lookup", snap], "\n")
    check(lk.returncode == 2 and "empty partition key" in lk.stderr, "the empty key is refused")

done("compat_cassandra_ring", "%d clusters x %d keys, %d driver sets with a host twice, "
     "%d in another order, %d over two datacenters (%d interleaved): "
     % (configs, len(keys), dup_seen, order_differs, both_dcs, dc_interleaved))
