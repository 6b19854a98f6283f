"""What the command has and the module now has too, each checked against
the command on the same files: importers, stats, diff, version."""
import json
import os
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
    doc = json.loads(cli("diff", "--json", "--ranges", "5", tmp_path / "a.snap", tmp_path / "b.snap"))
    d = a.diff(b)
    mine = d.as_dict(first_ranges=5)
    assert set(mine) == set(doc)
    for k in ("moved", "ideal", "confidence95"):
        if k in doc:
            assert mine[k] == pytest.approx(doc[k], abs=1e-12)
    assert (mine["exact"], mine["ranges"], mine["first_ranges"]) == (
        doc["exact"], doc["ranges"], doc["first_ranges"])
    assert mine.get("sample_size") == doc.get("sample_size")
    assert [n["id"] for n in mine["nodes"]] == [n["id"] for n in doc["nodes"]]
    for x, y in zip(mine["nodes"], doc["nodes"]):
        assert x["gives"] == pytest.approx(y["gives"], abs=1e-12)
        assert x["receives"] == pytest.approx(y["receives"], abs=1e-12)
    assert ("buckets" in doc) == (strategy in ("jump", "memento"))
    if "buckets" in doc:
        assert mine["buckets"] == pytest.approx(doc["buckets"], abs=1e-12)
    assert d.exact == (strategy in ("ring", "maglev"))


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
