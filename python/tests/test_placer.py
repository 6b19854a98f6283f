"""The placer module against the C library and the placer command: every
answer is checked against `placer` run on the same files (lookup, build,
diff), not against itself. Run by meson test (tests/meson.build) with
PLACER_LIBRARY_PATH pointing at the build tree and PLACER_CLI at its placer."""
import json
import os
import subprocess

import numpy as np
import pytest

import placer

CLI = os.environ.get("PLACER_CLI", "placer")

MEMBERSHIP = {
    "strategy": "ring", "seed": 7, "epoch": 12, "vnodes": 64,
    "nodes": [
        {"id": "cache-a", "zone": "z1", "weight": 1, "address": "10.0.0.1:11211"},
        {"id": "cache-b", "zone": "z2", "weight": 1},
        {"id": "cache-c", "zone": "z3", "weight": 2},
    ],
}
KEYS = ["user:%d" % i for i in range(200)] + ["", "caf\u00e9", "\u4e2d\u6587"]


def cli(*args, stdin=None):
    r = subprocess.run([CLI, *args], input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout, r.stderr


@pytest.fixture
def files(tmp_path):
    m = tmp_path / "m.json"
    m.write_text(json.dumps(MEMBERSHIP))
    snap = tmp_path / "m.snap"
    assert cli("build", str(m), "-o", str(snap))[0] == 0
    return m, snap


def cli_owners(snap, keys):
    rc, out, _ = cli("lookup", str(snap), "--json", stdin="".join(k + "\n" for k in keys).encode())
    assert rc == 0
    return [json.loads(line)["owner"] for line in out.decode().splitlines()]


def test_version():
    assert placer.version().count(".") == 2


def test_build_from_dict_matches_the_command(files):
    m, snap = files
    s = placer.build(MEMBERSHIP)
    assert s.encode() == snap.read_bytes()  # canonical encoding: the same snapshot
    assert (s.strategy, s.epoch, s.seed, len(s)) == ("ring", 12, 7, 3)
    assert list(s.node_ids) == ["cache-a", "cache-b", "cache-c"]
    assert s.nodes[0]["address"] == "10.0.0.1:11211" and s.nodes[2]["weight"] == 2.0


def test_build_from_file_and_epoch(files):
    m, snap = files
    s = placer.build(m, epoch=99)
    assert s.epoch == 99
    assert placer.build(str(m)).encode() == snap.read_bytes()


def test_lookup_matches_the_command(files):
    m, snap = files
    s = placer.load(snap)
    expected = cli_owners(snap, KEYS)
    assert [s.lookup(k) for k in KEYS] == expected
    assert [s.lookup(k.encode()) for k in KEYS] == expected


def test_key_rule_as_the_command(tmp_path):
    """A haproxy snapshot's key rule: the request as typed becomes the bytes
    haproxy hashes, as `placer lookup` makes them (tests/compat_haproxy_keys.py
    proves the command against haproxy itself)."""
    m = {"compat": "haproxy", "key_rule": "uri depth 2",
         "nodes": [{"id": "w%d" % i, "weight": 1 + i % 2} for i in range(5)]}
    (tmp_path / "m.json").write_text(json.dumps(m))
    snap = tmp_path / "m.snap"
    assert cli("build", str(tmp_path / "m.json"), "-o", str(snap))[0] == 0
    s = placer.load(snap)
    assert s.key_rule == "uri depth 2"
    assert s.key_from_request("/a/b/c?x=1") == b"/a/b"
    targets = ["/%d/%d/z?q=%d" % (i, i * 7, i) for i in range(300)]
    assert [s.lookup_request(t) for t in targets] == cli_owners(snap, targets)
    assert [s.lookup(s.key_from_request(t)) for t in targets] == cli_owners(snap, targets)
    src = placer.build(dict(m, key_rule="source", key_hash="source", avalanche=True))
    assert src.key_from_request("10.1.2.3") == bytes([10, 1, 2, 3])
    assert len(src.key_from_request("2001:db8::1")) == 16
    with pytest.raises(placer.PlacerError) as e:
        src.key_from_request("not-an-address")
    assert e.value.name == "PLACER_EINVAL"
    plain = placer.build(MEMBERSHIP)
    assert plain.key_rule == "" and plain.key_from_request("/a?b") == b"/a?b"


def test_lookup_batch_list_and_numpy(files):
    m, snap = files
    s = placer.load(snap)
    expected = cli_owners(snap, KEYS)
    idx = s.lookup_batch(KEYS)
    assert isinstance(idx, np.ndarray) and idx.dtype == np.int64
    assert list(s.node_ids[idx]) == expected
    assert list(s.node_ids[s.lookup_batch(np.array(KEYS, dtype=object))]) == expected
    assert list(s.node_ids[s.lookup_batch(np.array(KEYS))]) == expected  # unicode dtype
    ascii_keys = [k for k in KEYS if k.isascii() and k]
    fixed = np.array([k.encode() for k in ascii_keys], dtype="S")
    assert list(s.node_ids[s.lookup_batch(fixed)]) == cli_owners(snap, ascii_keys)
    grid = np.array(KEYS[:6], dtype=object).reshape(2, 3)
    assert s.lookup_batch(grid).shape == (2, 3)
    assert s.lookup_batch([]).shape == (0,)


def test_binary_keys_match_the_command_hex(files):
    m, snap = files
    s = placer.load(snap)
    for key in (b"\x00\xff", b"a\x00b", bytes(range(40))):
        rc, out, _ = cli("lookup", str(snap), "--hex", key.hex())
        assert rc == 0
        assert s.lookup(key) == out.split(b"\t")[1].decode()
        assert s.node_ids[s.lookup_batch([key])[0]] == s.lookup(key)


def test_replicas(files):
    m, snap = files
    s = placer.load(snap)
    for k in KEYS[:20]:
        rc, out, _ = cli("lookup", str(snap), "--replicas", "3", "--", k)
        assert s.replicas(k, 3) == out.decode().split("\t")[3].split(",")
        assert s.replicas(k, 1) == [s.lookup(k)]
    with pytest.raises(ValueError):
        s.replicas("k", 0)


def test_diff_matches_the_command(tmp_path, files):
    m, snap = files
    changed = dict(MEMBERSHIP, epoch=13, nodes=MEMBERSHIP["nodes"] + [{"id": "cache-d", "zone": "z1"}])
    m2 = tmp_path / "m2.json"
    m2.write_text(json.dumps(changed))
    snap2 = tmp_path / "m2.snap"
    assert cli("build", str(m2), "-o", str(snap2))[0] == 0
    a, b = placer.load(snap), placer.build(changed)
    d = a.diff(b)
    rc, out, _ = cli("diff", str(snap), str(snap2), "--json")
    doc = json.loads(out)
    assert d.exact and abs(d.moved - doc["moved"]) < 1e-12
    assert d.ranges and all(to == "cache-d" for (_, _, _, to) in d.ranges)
    assert a.diff(a).moved == 0.0
    jump = [placer.build({k: v for k, v in dict(x, strategy="jump").items() if k != "vnodes"})
            for x in (MEMBERSHIP, changed)]
    dj = jump[0].diff(jump[1])
    assert not dj.exact and 0.15 < dj.moved < 0.35  # one node in four: about 1/4 moves
    assert dj.method == "sampled" and dj.sample_size == 100000


def test_diff_of_a_kafka_partition_count_change(tmp_path):
    # 12 -> 16 partitions, partition p led by broker p % 3: counted exactly,
    # two thirds of the keys change leader (a ring would move far fewer),
    # as the command says and as lookups on both snapshots give it
    topics, snaps = [], []
    for n in (12, 16):
        m = {"compat": "kafka", "partitioner": "murmur2_random", "partitions": n,
             "nodes": [{"id": str(i)} for i in range(1, 4)]}
        path = tmp_path / ("k%d.json" % n)
        path.write_text(json.dumps(m))
        snaps.append(tmp_path / ("k%d.snap" % n))
        assert cli("build", str(path), "-o", str(snaps[-1]))[0] == 0
        topics.append(placer.build(m))
    d = topics[0].diff(topics[1])
    doc = json.loads(cli("diff", str(snaps[0]), str(snaps[1]), "--json")[1])
    assert d.exact and d.method == "hashes" and d.moved == doc["moved"]
    assert abs(d.moved - 2 / 3) < 1e-6
    keys = ["order-%d" % i for i in range(20000)]
    a, b = topics[0].lookup_batch(keys), topics[1].lookup_batch(keys)
    assert abs(sum(x != y for x, y in zip(a, b)) / len(keys) - d.moved) < 0.02


def test_encode_decode_roundtrip(tmp_path, files):
    m, snap = files
    s = placer.load(snap)
    again = placer.decode(s.encode())
    assert again.encode() == s.encode()
    out = tmp_path / "saved.snap"
    s.save(out)
    assert cli("verify", str(out))[0] == 0


def test_errors_carry_the_code_name(tmp_path):
    with pytest.raises(placer.PlacerError) as e:
        placer.build({"nodes": [{"id": "a", "weight": -1}]})
    assert e.value.name == "PLACER_EFORMAT" and "nodes[0].weight" in str(e.value)
    with pytest.raises(placer.PlacerError) as e:
        placer.decode(b"not a snapshot")
    assert e.value.name in ("PLACER_EFORMAT", "PLACER_ETRUNC")
    good = placer.build(MEMBERSHIP).encode()
    flipped = bytearray(good)
    flipped[len(flipped) // 2] ^= 0x55
    with pytest.raises(placer.PlacerError) as e:
        placer.decode(bytes(flipped))
    assert e.value.name == "PLACER_ECHECKSUM" and e.value.code < 0
    with pytest.raises(TypeError):
        placer.build(MEMBERSHIP).lookup(42)


def test_simulate_runs_the_command():
    doc = placer.simulate(nodes=12, zones=3, keys=5000, vnodes=[1, 16], strategies=["ring", "jump"],
                          timing=False)
    assert doc["format"] == 1 and doc["nodes"] == 12 and doc["keys"] == 5000
    assert {r["strategy"] for r in doc["rows"]} == {"ring", "jump"}
    assert all("lookup_ns" not in r for r in doc["rows"])
    again = placer.simulate(nodes=12, zones=3, keys=5000, vnodes=[1, 16], strategies=["ring", "jump"],
                            timing=False)
    assert again == doc  # fixed seeds
    doc = placer.simulate(MEMBERSHIP, keys=2000, vnodes=[4], timing=False)
    assert doc["nodes"] == 3
    with pytest.raises(ValueError):
        placer.simulate(vnodes=[0])


def test_datacenters_and_their_replication(tmp_path):
    """Two datacenters of three racks under NetworkTopologyStrategy {dc1: 3,
    dc2: 2}: nodes carry their datacenter and factor, replica sets are the
    command's (the same library), each with 3 + 2 nodes, and stats lists
    the datacenters."""
    nodes = [{"id": "%s-n%d" % (dc, i), "zone": "rack%d" % (i % 3), "datacenter": dc}
             for dc in ("dc1", "dc2") for i in range(6)]
    m = {"strategy": "ring", "vnodes": 16, "replication": "network_topology",
         "datacenter_replicas": {"dc1": 3, "dc2": 2}, "nodes": nodes}
    s = placer.build(m)
    assert [(n["datacenter"], n["replication"]) for n in s.nodes] == \
        [("dc1", 3)] * 6 + [("dc2", 2)] * 6
    keys = ["user:%d" % i for i in range(200)]
    snap = tmp_path / "dc.snap"
    s.save(snap)
    rc, out, _ = cli("lookup", str(snap), "--json", "--replicas", "8",
                     stdin="".join(k + "\n" for k in keys).encode())
    assert rc == 0
    want = [[r["id"] for r in json.loads(line)["replicas"]] for line in out.decode().splitlines()]
    got = [s.replicas(k, 8) for k in keys]
    assert got == want
    assert all(sorted(x.split("-")[0] for x in g) == ["dc1"] * 3 + ["dc2"] * 2 for g in got)
    assert [d["datacenter"] for d in s.stats()["datacenters"]] == ["dc1", "dc2"]
    # no datacenter named: one datacenter, "replicas" its factor, as before
    one = placer.build({"strategy": "ring", "vnodes": 16, "replication": "network_topology",
                        "replicas": 3, "nodes": [dict(n, datacenter="") for n in nodes]})
    assert one.nodes[0]["datacenter"] == "" and one.nodes[0]["replication"] == 3
    with pytest.raises(placer.PlacerError, match="no datacenter"):
        placer.build(dict(m, nodes=[dict(n, datacenter="") for n in nodes]))
