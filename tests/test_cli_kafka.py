#!/usr/bin/env python3
"""test_cli_kafka.py PLACER DATA_DIR -- `placer import-kafka` and `placer
lookup` of its snapshot, as a user runs them on Kafka's --describe text
(tests/data/kafka-describe-3.7.txt):

  - topic "orders": every key's owner is the leader the text gives its
    partition, and its replicas (--replicas 8) are that partition's, the
    leader first; the membership written with --membership-out builds the
    same answers;
  - topic "clicks" (partition 1: Leader: none): a key of partition 1
    prints "-" and exit status 2, the others 0;
  - consistent_random: an empty key is said to be scattered (stderr, and
    "scattered": true in JSON), a non-empty one is not;
  - refusals: no --topic with three topics, an unknown topic, an unknown
    partitioner (also through an abbreviated option), a damaged line (its
    number named), each exit status 2;
  - a partition-count change (4 -> 6 partitions over the same brokers,
    partition p led by broker p % 3 + 1): placer diff --json counts it
    exactly, two thirds of the hash values change leader (a ring would
    move about a third); with --key-file, the keys that move and their
    owners are those `placer lookup` gives on the two snapshots, and
    their share is near two thirds.
"""
import json
import os
import subprocess
import sys
import tempfile

from cli_checks import check, done

placer, data = sys.argv[1], sys.argv[2]
describe = os.path.join(data, "kafka-describe-3.7.txt")
# partition -> (leader, replicas in Kafka's order), from the text
ORDERS = {0: ("1", ["1", "2"]), 1: ("3", ["2", "3", "4"]), 2: ("3", ["3", "1"]), 3: ("2", ["2", "1"])}
KEYS = ["user:%d" % i for i in range(200)]


def run(*args, stdin=None):
    return subprocess.run([placer] + list(args), input=stdin, capture_output=True, text=True)


def lookup(snap, keys, *args):
    r = run("lookup", "--json", "--replicas", "8", snap, *args, "--", *keys)
    return r, [json.loads(line) for line in r.stdout.splitlines()]


with tempfile.TemporaryDirectory() as d:
    snap, member = os.path.join(d, "o.snap"), os.path.join(d, "o.json")
    r = run("import-kafka", describe, "--topic", "orders", "-o", snap, "--membership-out", member)
    check(r.returncode == 0, "import-kafka orders: %s" % r.stderr)
    r, answers = lookup(snap, KEYS)
    check(r.returncode == 0 and len(answers) == len(KEYS), "lookup orders: %s" % r.stderr)
    seen = set()
    for a in answers:
        leader, replicas = ORDERS[a["partition"]]
        seen.add(a["partition"])
        want = [leader] + [x for x in replicas if x != leader]
        check(a["owner"] == leader and [x["id"] for x in a["replicas"]] == want,
              "%s: partition %d, owner %s, replicas %s" % (a["key"], a["partition"], a["owner"],
                                                         a["replicas"]))
        check(a["compat"] == "kafka" and a["scattered"] is False, "%s: compat fields" % a["key"])
    check(seen == set(ORDERS), "200 keys reach every partition: %s" % sorted(seen))
    built = os.path.join(d, "b.snap")
    check(run("build", member, "-o", built).returncode == 0, "build of the membership")
    check(lookup(built, KEYS)[1] == answers, "the membership's snapshot answers the same")

    clicks = os.path.join(d, "c.snap")
    r = run("import-kafka", describe, "--topic", "clicks", "--partitioner", "consistent_random",
            "-o", clicks)
    check(r.returncode == 0, "import-kafka clicks: %s" % r.stderr)
    statuses = {}
    for k in KEYS[:40]:
        r, a = lookup(clicks, [k])
        statuses.setdefault(a[0]["partition"], set()).add((r.returncode, a[0]["owner"]))
    check(statuses.get(1) == {(2, None)}, "Leader: none: exit 2, no owner: %s" % statuses.get(1))
    check(all(s == {(0, o)} for p, s in statuses.items() if p != 1
              for o in [{0: "2", 2: "1"}[p]]), "the led partitions: %s" % statuses)
    r, a = lookup(clicks, [""])
    check("random" in r.stderr and a and a[0]["scattered"] is True, "an empty key scattered")
    r, a = lookup(clicks, ["x"])
    check(r.stderr == "" and a[0]["scattered"] is False, "a key is not")

    for args, says, status in (([], "a second topic", 2), (["--topic", "nope"], 'no topic "nope"', 2),
                               (["--topic", "orders", "--partitioner", "sticky"], "partitioner", 2),
                               (["--topic", "orders", "--parti", "sticky"], "murmur2_random", 2)):
        r = run("import-kafka", describe, *args, "-o", os.path.join(d, "x.snap"))
        check(r.returncode == status and says in r.stderr,
              "%s: %d %s" % (args, r.returncode, r.stderr))
    text = open(describe).read().replace("Replicas: 3,1\t", "Replicas: 3,,1\t")
    r = run("import-kafka", "-", "--topic", "clicks", "-o", os.path.join(d, "x.snap"), stdin=text)
    check(r.returncode == 2 and "line 3: " in r.stderr, "a damaged line: %s" % r.stderr)

    counts = []
    for n in (4, 6):
        m = os.path.join(d, "k%d.json" % n)
        json.dump({"compat": "kafka", "partitioner": "murmur2_random", "partitions": n,
                   "nodes": [{"id": str(i)} for i in range(1, 4)]}, open(m, "w"))
        check(run("build", m, "-o", m + ".snap").returncode == 0, "build %d partitions" % n)
    k4, k6 = os.path.join(d, "k4.json.snap"), os.path.join(d, "k6.json.snap")
    r = run("diff", "--json", k4, k6)
    doc = json.loads(r.stdout) if r.returncode == 0 else {}
    # residues mod 12: r % 4 % 3 and r % 6 % 3 differ for 8 of the 12
    check(doc.get("exact") is True and doc.get("method") == "hashes" and
          abs(doc.get("moved", 0) - 2 / 3) < 1e-6,
          "4 -> 6 partitions: exact, two thirds move: %s %s" % (doc.get("moved"), r.stderr))
    keys = ["order-%d" % i for i in range(3000)]
    with open(os.path.join(d, "keys.txt"), "w") as f:
        f.write("".join(k + "\n" for k in keys))
    moved_out = os.path.join(d, "moved.jsonl")
    r = run("diff", "--json", k4, k6, "--key-file", os.path.join(d, "keys.txt"),
            "--moved-keys", moved_out)
    by_keys = json.loads(r.stdout).get("moved", 0) if r.returncode == 0 else 0
    got = {}
    if os.path.exists(moved_out):
        got = {m["key"]: (m["from"], m["to"]) for m in map(json.loads, open(moved_out))}
    old = {a["key"]: a["owner"] for a in lookup(k4, keys)[1]}
    new = {a["key"]: a["owner"] for a in lookup(k6, keys)[1]}
    want = {k: (old[k], new[k]) for k in keys if old.get(k) != new.get(k)}
    check(got == want and len(want) > 0, "--moved-keys: %d keys, as lookups give %d" %
          (len(got), len(want)))
    check(abs(by_keys - len(want) / len(keys)) < 1e-12 and abs(by_keys - 2 / 3) < 0.05,
          "--key-file: %s of the keys move" % by_keys)

done("cli_kafka")
