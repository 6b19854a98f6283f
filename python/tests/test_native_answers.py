"""Every answer of the C extension (placer/_native.c) against the ctypes
path and the C library as the placer command gives it: owners and replica
sets of thousands of keys (empty, ASCII, non-ASCII, bytes with NULs and
high bytes, long), one at a time and in batches of lists, tuples and
packed buffers, on several strategies. Skipped where the extension is not
built (the `python_ctypes` test)."""
import json
import os
import random
import subprocess
import types

import numpy as np
import pytest

import placer
from placer import _native_reader

pytestmark = pytest.mark.skipif(_native_reader.native is None, reason="the C extension is not built")

NODES = [{"id": "n%d" % i, "zone": "z%d" % (i % 3)} for i in range(40)]
MEMBERSHIPS = [
    {"strategy": "ring", "seed": 5, "vnodes": 64, "nodes": NODES},
    {"strategy": "ring", "seed": 6, "vnodes": 16, "nodes": NODES[:7]},  # a ring without a line table
    {"strategy": "jump", "seed": 7, "nodes": NODES},
    {"strategy": "maglev", "seed": 8, "nodes": NODES},
]


def keys():
    rnd = random.Random(43)
    ks = ["", b"", "\x00", b"\x00", b"\xff\xfe", "caf\u00e9", "\u4e2d\u6587\U0001F600", "x" * 100000]
    ks += ["key:%d" % i for i in range(2000)]
    ks += [bytes(rnd.randrange(256) for _ in range(rnd.randrange(40))) for _ in range(2000)]
    ks += ["".join(chr(rnd.choice((rnd.randrange(32, 127), rnd.randrange(160, 0x3000))))
                   for _ in range(rnd.randrange(1, 20))) for _ in range(1000)]
    return ks


KEYS = keys()
RAW = [k.encode() if isinstance(k, str) else k for k in KEYS]


def command_answers(snap, tmp_path, raw):
    """Owner and replica set of each key by `placer lookup` (hex keys)."""
    path = str(tmp_path / "s.snap")
    snap.save(path)
    out = subprocess.run([os.environ["PLACER_CLI"], "lookup", "--hex", "--raw", "--json", "-q",
                          "--replicas", "3", path], input="".join(k.hex() + "\n" for k in raw),
                         stdout=subprocess.PIPE, check=True, text=True).stdout
    rows = [json.loads(line) for line in out.split("\n") if line]  # not splitlines: U+2028 is in keys
    return [r["owner"] for r in rows], [[x["id"] for x in r["replicas"]] for r in rows]


def test_one_libplacer_for_both_paths():
    assert _native_reader.native.library_lookup_address() == _native_reader.lookup_address()


@pytest.mark.parametrize("membership", MEMBERSHIPS, ids=lambda m: m["strategy"] + str(len(m["nodes"])))
def test_extension_equals_ctypes_and_the_command(membership, tmp_path):
    snap = placer.build(membership)
    ctypes_lookup = types.MethodType(placer.Snapshot.lookup, snap)
    ctypes_replicas = types.MethodType(placer.Snapshot.replicas, snap)
    assert type(snap.lookup).__name__ == "builtin_function_or_method"

    want = [ctypes_lookup(k) for k in KEYS]
    assert [snap.lookup(k) for k in KEYS] == want
    sets = [ctypes_replicas(k, 3) for k in KEYS]
    assert [snap.replicas(k, 3) for k in KEYS] == sets

    # The library through the command, on the keys it takes (at most 65,536 bytes).
    short = [i for i, k in enumerate(RAW) if len(k) <= 65536]
    owners, cmd_sets = command_answers(snap, tmp_path, [RAW[i] for i in short])
    assert owners == [want[i] for i in short]
    assert cmd_sets == [sets[i] for i in short]

    ids = snap.node_ids
    offsets = np.zeros(len(RAW) + 1, dtype=np.uint64)
    offsets[1:] = np.cumsum([len(k) for k in RAW])
    buf = b"".join(RAW)
    # lists and tuples, str and bytes, on both sides of the GIL's line (256 keys)
    for batch in (KEYS, tuple(KEYS), RAW, KEYS[:100], KEYS[:1], []):
        assert list(ids[snap.lookup_batch(batch)]) == want[:len(batch)]
    assert list(ids[snap.lookup_batch(buf, offsets=offsets)]) == want
    assert list(ids[snap.lookup_batch(bytearray(buf), offsets=offsets)]) == want
    rows = snap.replicas_batch(KEYS, 3)
    assert [[ids[i] for i in row if i >= 0] for row in rows] == sets
    rows = snap.replicas_batch(memoryview(buf), 3, offsets=offsets)
    assert [[ids[i] for i in row if i >= 0] for row in rows] == sets
    for n in (1, 2, 8):
        rows = snap.replicas_batch(KEYS[:300], n)
        assert [[ids[i] for i in row if i >= 0] for row in rows] == [ctypes_replicas(k, n) for k in KEYS[:300]]


def test_batch_refusals_match():
    snap = placer.build(MEMBERSHIPS[0])
    r = snap._reader
    out = np.empty(3, dtype=np.uint32)
    assert r.lookup_batch(["a", bytearray(b"b"), "c"], out) is NotImplemented
    # a mixed list takes the general path: the same answers
    mixed = ["a", bytearray(b"b"), memoryview(b"c"), np.str_("d")]
    assert list(snap.lookup_batch(mixed)) == list(snap.lookup_batch(["a", "b", "c", "d"]))
    with pytest.raises(UnicodeEncodeError):
        snap.lookup_batch(["a", "\ud800"])
    with pytest.raises(ValueError):
        r.lookup_batch(["a", "b"], out)  # out of the wrong size
    with pytest.raises(placer.PlacerError) as e:  # as the ctypes path refuses them
        r.lookup_packed(b"abc", np.array([0, 4], dtype=np.uint64), np.empty(1, dtype=np.uint32))
    assert e.value.name == "PLACER_ERANGE"
    with pytest.raises(placer.PlacerError) as e:
        r.lookup_packed(b"abc", np.array([-1, 2], dtype=np.int64), np.empty(1, dtype=np.uint32))
    assert e.value.name == "PLACER_ERANGE"
    with pytest.raises(TypeError):
        r.lookup_packed(b"abc", np.array([0, 3], dtype=np.int32), np.empty(1, dtype=np.uint32))
    with pytest.raises(placer.PlacerError):  # decreasing offsets: the library's PLACER_EINVAL
        r.lookup_packed(b"abc", np.array([0, 3, 1], dtype=np.uint64), np.empty(2, dtype=np.uint32))
    with pytest.raises(ValueError):
        r.replicas_batch(["a"], 9, np.empty(9, dtype=np.uint32), np.empty(1, dtype=np.uint32))


def test_router_lookup_equals_the_snapshot():
    a = placer.build(dict(MEMBERSHIPS[0]), epoch=1)
    want = [a.lookup(k) for k in KEYS]
    router = placer.Router(a)
    assert type(router.lookup).__name__ == "builtin_function_or_method"
    assert [router.lookup(k) for k in KEYS] == want
    b = placer.build(dict(MEMBERSHIPS[0], nodes=NODES[:20]), epoch=2)
    want_b = [b.lookup(k) for k in KEYS]
    router.publish(b)
    assert [router.lookup(k) for k in KEYS] == want_b
    router.close()
    with pytest.raises(placer.ClosedError):
        router.lookup("a")


def test_router_batches_equal_ctypes_and_the_snapshot():
    """Router.lookup_batch through the extension (lists, tuples, packed
    buffers, on both sides of the GIL's line) against the ctypes path
    (the reader set aside) and placer_lookup on the same snapshot."""
    offsets = np.zeros(len(RAW) + 1, dtype=np.uint64)
    offsets[1:] = np.cumsum([len(k) for k in RAW])
    buf = b"".join(RAW)
    router = None
    for epoch, nodes in ((1, NODES), (2, NODES[:20])):
        snap = placer.build(dict(MEMBERSHIPS[0], nodes=nodes), epoch=epoch)
        want = [types.MethodType(placer.Snapshot.lookup, snap)(k) for k in KEYS]
        node_ids = list(snap.node_ids)
        if router is None:
            router = placer.Router(snap)
        else:
            router.publish(snap)

        def answers(batch, offsets=None):
            owners, ids, at = router.lookup_batch(batch, offsets=offsets)
            assert at == epoch and list(ids) == node_ids
            return [ids[o] if o >= 0 else None for o in owners]

        def both(batch, offsets=None):
            got = answers(batch, offsets)
            reader, router._reader = router._reader, None  # the ctypes path
            try:
                assert answers(batch, offsets) == got
            finally:
                router._reader = reader
            return got

        for batch in (KEYS, tuple(KEYS), RAW, KEYS[:255], KEYS[:256], KEYS[:1], []):
            assert both(batch) == want[:len(batch)]
        assert both(buf, offsets) == want
        assert both(bytearray(buf), offsets) == want
        assert both(memoryview(buf)[:int(offsets[300])], offsets[:301]) == want[:300]
        mixed = ["a", bytearray(b"b"), memoryview(b"c"), np.str_("d")]
        assert answers(mixed) == answers(["a", "b", "c", "d"])

    r = router._reader
    with pytest.raises(ValueError):
        r.lookup_batch(["a", "b"], np.empty(3, dtype=np.uint32))  # out of the wrong size
    assert r.lookup_batch(["a", bytearray(b"b")], np.empty(2, dtype=np.uint32)) is NotImplemented
    with pytest.raises(UnicodeEncodeError):
        router.lookup_batch(["a", "\ud800"])
    for reader in (r, None):
        router._reader = reader
        with pytest.raises(placer.PlacerError):  # decreasing offsets: the library's PLACER_EINVAL
            router.lookup_batch(b"abc", offsets=np.array([0, 3, 1], dtype=np.uint64))
    router._reader = r
    router.close()
    with pytest.raises(placer.ClosedError):
        router.lookup_batch(KEYS)
    with pytest.raises(placer.ClosedError):
        router.lookup_batch(buf, offsets=offsets)


def array_cases():
    """NumPy S and U arrays as users hold them: padded and full rows, inner
    and trailing NULs, non-ASCII and astral code points, '>U' on any host,
    2-D and strided views, rows wide enough that a chunk holds fewer."""
    text = [k for k in KEYS if isinstance(k, str) and len(k) < 40]
    raw = [k for k in RAW if len(k) < 40]
    yield "U", np.array(text)
    yield ">U", np.array(text, dtype=">U40")
    yield "U 2-D", np.array(text[:3000]).reshape(100, 30)
    yield "U strided", np.array(text)[::3]
    yield "U astral", np.array(["\U0001F600%d" % i for i in range(500)] + ["a\x00b", "\x00"])
    yield "S", np.array(raw, dtype="S40")
    yield "S full", np.array([b"k%07d" % i for i in range(5000)], dtype="S8")
    yield "S strided", np.array(raw, dtype="S40")[1::2]
    yield "S wide", np.array([b"w%d" % i + b"x" * (i % 3000) for i in range(5000)], dtype="S3000")
    yield "U wide", np.array(["w%d" % i + "\u00e9" * (i % 1200) for i in range(3000)], dtype="U1200")
    yield "S empty", np.array([], dtype="S4")
    yield from random_rows()


def random_rows():
    """Random S and U rows of every width the row scans treat apart (under
    16 bytes, 16 to 64, past 64 with a remainder): empty, full and
    in-between, NULs inside S rows and U rows (only trailing ones dropped),
    U rows ASCII, non-ASCII, astral or one of each, and views at an odd
    byte offset (misaligned rows)."""
    rng = random.Random(2027)
    alphabets = ["abcxyz019", "abc\u00e9\u00fc", "\u4e2d\u6587a", "a\U0001F600", "\x00ab"]
    for width in (1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 70, 129):
        raw = [bytes(rng.choice(b"\x00\x01ab\xff") if rng.random() < 0.2 else rng.choice(b"kx:9")
                     for _ in range(rng.choice([0, width, rng.randrange(width + 1)])))
               for _ in range(600)]
        s = np.array(raw, dtype="S%d" % width)
        yield "S%d random" % width, s
        odd = np.frombuffer(b"\x00" + s.tobytes(), dtype=s.dtype, offset=1)
        yield "S%d at an odd offset" % width, odd
        text = ["".join(rng.choice(rng.choice(alphabets))
                        for _ in range(rng.choice([0, width, rng.randrange(width + 1)])))
                for _ in range(600)]
        u = np.array(text, dtype="U%d" % width)
        yield "U%d random" % width, u
        yield "U%d at an odd offset" % width, np.frombuffer(b"\x00\x00" + u.tobytes(), dtype=u.dtype,
                                                             offset=2)
        yield "U%d ASCII" % width, np.array(["".join(rng.choice("ab\x00c9") for _ in range(
            rng.randrange(width + 1))) for _ in range(600)], dtype="U%d" % width)


@pytest.mark.parametrize("membership", MEMBERSHIPS[:3], ids=lambda m: m["strategy"] + str(len(m["nodes"])))
def test_numpy_arrays_through_the_extension(membership):
    """S and U arrays read row by row in C (lookup_rows, replicas_rows, the
    router's lookup_rows) give the answers of each value looked up alone
    through ctypes (NumPy's value: trailing NULs dropped, U as UTF-8)."""
    snap = placer.build(membership)
    ctypes_lookup = types.MethodType(placer.Snapshot.lookup, snap)
    ctypes_replicas = types.MethodType(placer.Snapshot.replicas, snap)
    router = placer.Router(placer.build(membership))
    ids = snap.node_ids
    for name, arr in array_cases():
        values = arr.reshape(-1).tolist()
        want = [ctypes_lookup(v) for v in values]
        got = snap.lookup_batch(arr)
        assert got.shape == arr.shape, name
        assert list(ids[got.reshape(-1)]) == want, name
        owners, rids, _ = router.lookup_batch(arr)
        assert list(rids[owners.reshape(-1)]) == want, name
        rows = snap.replicas_batch(arr, 3)
        assert rows.shape == arr.shape + (3,), name
        sets = [ctypes_replicas(v, 3) for v in values[:500]]
        assert [[ids[i] for i in row if i >= 0] for row in rows.reshape(-1, 3)[:500]] == sets, name
    router.close()

