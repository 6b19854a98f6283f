"""What the command has and the module now has too, each checked against
the command on the same files: importers, stats, diff, version."""
import json
import os
import random
import subprocess

import numpy as np
import pytest

import placer

CLI = os.environ.get("PLACER_CLI", "placer")
DATA = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data")
BASE = {"strategy": "ring", "seed": 7, "epoch": 12, "vnodes": 64,
        "nodes": [{"id": "a", "zone": "z1"}, {"id": "b", "zone": "z2"},
                  {"id": "c", "zone": "z3", "weight": 2, "state": "joining"}]}
NEXT = {"strategy": "ring", "seed": 7, "epoch": 13, "vnodes": 64,
        "nodes": [{"id": "a", "zone": "z1"}, {"id": "c", "zone": "z3", "weight": 2},
                  {"id": "d", "zone": "z2"}]}


def cli(*args):
    r = subprocess.run([CLI, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode == 0, r.stderr
    return r.stdout


def data(name):
    path = os.path.join(DATA, name)
    if not os.path.exists(path):
        pytest.skip("%s is not in this tree" % path)
    return path


def test_version():
    assert placer.__version__ == placer.version()
    assert placer.__version__ in cli("version").decode()


def test_import_twemproxy_matches_the_command(tmp_path):
    yml = data("nutcracker.yml")
    out = tmp_path / "t.snap"
    cli("import-twemproxy", yml, "--pool", "alpha", "-o", out)
    s = placer.import_twemproxy(yml, pool="alpha")
    assert s.encode() == out.read_bytes()
    with open(yml, "rb") as f:
        assert placer.import_twemproxy(f.read(), pool="alpha", epoch=5).epoch == 5
    with pytest.raises(placer.PlacerError) as e:
        placer.import_twemproxy(yml, pool="no-such-pool")
    assert e.value.name == "PLACER_EFORMAT" and "no-such-pool" in str(e.value)


def test_import_kafka_matches_the_command(tmp_path):
    text = data("kafka-describe-3.7.txt")
    out = tmp_path / "k.snap"
    cli("import-kafka", text, "--topic", "orders", "--partitioner", "fnv1a", "-o", out)
    s = placer.import_kafka(text, topic="orders", partitioner="fnv1a")
    assert s.encode() == out.read_bytes()
    with pytest.raises(placer.PlacerError) as e:
        placer.import_kafka(text)  # three topics, none named
    assert "a second topic" in str(e.value)


def test_import_redis_matches_the_command(tmp_path):
    nodes = data("redis-cluster-nodes.txt")
    out = tmp_path / "r.snap"
    cli("import-redis", nodes, "-o", out)
    assert placer.import_redis(nodes).encode() == out.read_bytes()
    with pytest.raises(placer.PlacerError) as e:
        placer.import_redis(b"this is not CLUSTER NODES\n")
    assert e.value.name == "PLACER_EFORMAT" and "line 1" in str(e.value)


def test_import_couchbase_matches_the_command(tmp_path):
    cfg = data("couchbase-bucket-config-3nodes.json")
    out = tmp_path / "c.snap"
    cli("import-couchbase", cfg, "-o", out)
    s = placer.import_couchbase(cfg)
    assert s.encode() == out.read_bytes() and s.strategy == "partitions"
    with pytest.raises(placer.PlacerError) as e:
        placer.import_couchbase(b"{}")
    assert e.value.name == "PLACER_EFORMAT"


def test_stats_is_the_commands(tmp_path):
    s = placer.build(BASE)
    s.save(tmp_path / "s.snap")
    assert s.stats() == json.loads(cli("stats", "--json", tmp_path / "s.snap"))
    assert {"max_over_target", "cv", "nodes", "zones", "layout"} <= set(s.stats())


@pytest.mark.parametrize("strategy", ["ring", "jump", "rendezvous", "maglev", "memento"])
def test_diff_has_everything_the_command_has(tmp_path, strategy):
    def shape(m):
        m = dict(m, strategy=strategy)
        if strategy != "ring":
            m.pop("vnodes")
            m["nodes"] = [dict(n, state="active") for n in m["nodes"]]
        return m
    a, b = placer.build(shape(BASE)), placer.build(shape(NEXT))
    a.save(tmp_path / "a.snap")
    b.save(tmp_path / "b.snap")
    doc = json.loads(cli("diff", "--json", "--ranges", "5", "--pairs", "3",
                         tmp_path / "a.snap", tmp_path / "b.snap"))
    d = a.diff(b)
    mine = d.as_dict(first_ranges=5, first_pairs=3)
    assert list(mine) == list(doc)
    # one implementation: the library's figures, to the last bit
    for k in ("moved", "ideal", "interval95", "sample_size", "hash_values", "unplaced",
              "exact", "method", "ranges", "first_ranges", "pair_count", "pairs", "nodes"):
        assert mine.get(k) == doc.get(k), k
    assert ("buckets" in doc) == (strategy in ("jump", "memento"))
    if "buckets" in doc:
        assert mine["buckets"] == pytest.approx(doc["buckets"], abs=1e-12)
    assert d.exact == (strategy in ("ring", "maglev"))
    assert d.method == ("ranges" if d.exact else "sampled")
    doc = json.loads(cli("diff", "--json", "--replicas", "2", tmp_path / "a.snap", tmp_path / "b.snap"))
    assert a.diff(b, replicas=2).as_dict() == doc and doc["replicas"]["size"] == 2


@pytest.mark.parametrize("mode,distribution", [("twemproxy", "modula"), ("haproxy", "map-based"),
                                               ("nginx", "hash")])
def test_diff_counts_modulo_tables(tmp_path, mode, distribution):
    nodes = [{"id": "s%d" % i, "address": "10.0.0.%d:80" % i} for i in range(3)]
    a = placer.build({"compat": mode, "distribution": distribution, "nodes": nodes[:2]})
    b = placer.build({"compat": mode, "distribution": distribution, "nodes": nodes})
    a.save(tmp_path / "a.snap")
    b.save(tmp_path / "b.snap")
    d = a.diff(b)
    doc = json.loads(cli("diff", "--json", tmp_path / "a.snap", tmp_path / "b.snap"))
    assert d.method == "hashes" and d.moved == doc["moved"] and d.as_dict() == doc
    assert d.moved == pytest.approx(2 / 3, abs=1e-4)
    # keys of random bytes: twemproxy's fnv1a_64 spreads sequential short keys
    # ("k1", "k2", ...) unevenly, as twemproxy itself does (docs/JSON.md)
    rng = random.Random(5)
    keys = ["%016x" % rng.getrandbits(64) for _ in range(20000)]
    by_keys = sum(a.lookup(k) != b.lookup(k) for k in keys) / len(keys)
    assert abs(by_keys - d.moved) < 0.01
    sampled = a.diff(b, samples=20000)
    assert sampled.method == "sampled" and sampled.sample_size == 20000
    lo, hi = sampled.interval95
    assert lo <= sampled.moved <= hi and abs(sampled.moved - d.moved) < 0.02


def test_strategy_names_come_from_the_library():
    assert placer.build(BASE).strategy == "ring"
    assert placer.import_twemproxy(data("nutcracker.yml"), pool="alpha").strategy == "compat"


def test_encode_docstring_says_v2():
    assert "format v2" in placer.Snapshot.encode.__doc__


def test_replicas_batch_from_numpy_u():
    s = placer.build(dict(NEXT, vnodes=32))
    keys = np.array(["k%d" % i for i in range(50)])
    got = s.replicas_batch(keys, 2)
    assert [list(s.node_ids[r]) for r in got] == [s.replicas(k, 2) for k in keys.tolist()]
