#!/usr/bin/env python3
"""test_cli_stats_redis.py PLACER -- `placer stats` of a Redis Cluster
snapshot measures what the masters own: a replica holds slots only as a
later copy, so it is listed apart (JSON "role") and left out of max/mean,
the coefficient of variation and share/target.

  - three masters of 5,461/5,461/5,462 slots, each with a replica:
    max/mean and share/target within 0.0002 of 1, cv under 0.0002, three
    replicas with role "replica" and share 0, three masters;
  - uneven masters (8,192/4,096/4,096 slots) with replicas: max/mean 1.5
    (half the slots against a third), so the figures are measured, not
    set to 1 when replicas are present;
  - the text output says "over 3 masters" and lists the replicas after
    their heading.
"""
import json
import os
import subprocess
import sys
import tempfile

from cli_checks import check, done

placer = sys.argv[1]


def stats(slots, *args):
    nodes = [{"id": n, "zone": "z"} for n in ("m1", "m2", "m3", "r1", "r2", "r3")]
    with tempfile.TemporaryDirectory() as d:
        member = os.path.join(d, "m.json")
        snap = os.path.join(d, "m.snap")
        with open(member, "w") as f:
            json.dump({"compat": "redis", "nodes": nodes, "slots": slots}, f)
        subprocess.run([placer, "build", member, "-o", snap], check=True, capture_output=True)
        return subprocess.run([placer, "stats", snap] + list(args), check=True,
                              capture_output=True, text=True).stdout


even = [[0, 5460, "m1", "r1"], [5461, 10921, "m2", "r2"], [10922, 16383, "m3", "r3"]]
doc = json.loads(stats(even, "--json"))
check(abs(doc["max_over_mean"] - 1) < 2e-4, "even masters: max/mean %r" % doc["max_over_mean"])
check(abs(doc["max_over_target"] - 1) < 2e-4, "even masters: max share/target %r"
      % doc["max_over_target"])
check(doc["cv"] < 2e-4, "even masters: cv %r" % doc["cv"])
check(doc["masters"] == 3 and doc["replicas"] == 3, "counts %r/%r" % (doc["masters"], doc["replicas"]))
roles = {n["id"]: n["role"] for n in doc["nodes"]}
check(roles == {"m1": "master", "m2": "master", "m3": "master",
                "r1": "replica", "r2": "replica", "r3": "replica"}, "roles %r" % roles)
check(all(n["share"] == 0 for n in doc["nodes"] if n["role"] == "replica"), "replicas own nothing")

uneven = [[0, 8191, "m1", "r1"], [8192, 12287, "m2", "r2"], [12288, 16383, "m3", "r3"]]
doc = json.loads(stats(uneven, "--json"))
check(abs(doc["max_over_mean"] - 1.5) < 1e-9, "uneven masters: max/mean %r" % doc["max_over_mean"])
check(doc["worst_node"] == "m1", "uneven masters: worst %r" % doc["worst_node"])

text = stats(even)
check("over 3 masters" in text, "text names the masters:\n" + text)
head = text.find("replicas (a master's copies")
check(head > 0 and all(text.find(r, head) > head for r in ("r1", "r2", "r3")),
      "replicas listed apart:\n" + text)
check(all(0 < text.find(m) < head for m in ("m1 ", "m2 ", "m3 ")), "masters first:\n" + text)

done("test_cli_stats_redis", "")
