"""lookup_batch's int64 answer, which the extension writes itself (each
chunk's uint32 owners widened, PLACER_NO_NODE to -1): every batch form of
a snapshot and of a router against single lookups, over several chunks
(a list, a packed buffer and S rows go 4,096 keys a chunk, U rows 256),
on a ring and on a partitions snapshot where some keys have no owner;
and the out buffers the extension refuses."""
import random

import numpy as np
import pytest

import placer
from placer import _native_reader

RING = {"strategy": "ring", "seed": 11, "vnodes": 32,
        "nodes": [{"id": "n%d" % i, "zone": "z%d" % (i % 3)} for i in range(12)]}
# partitions 2 and 3 have no active copy: their keys have no owner
# (placer_lookup's PLACER_ENOLIVE, PLACER_NO_NODE in a batch)
COUCHBASE = (b'{"rev": 7, "vBucketServerMap": {"hashAlgorithm": "CRC", "numReplicas": 1, '
             b'"serverList": ["a:1", "b:1", "c:1"], '
             b'"vBucketMap": [[0,1],[1,2],[2,-1],[-1,-1]]}}')
N = 2 * 4096 + 300  # past two whole chunks of a list, and many of U rows


def make_keys():
    rnd = random.Random(2024)
    keys = []
    for i in range(N):
        if i % 7 == 3:  # non-ASCII: U rows encoded, not narrowed
            keys.append("k\u00e9%d:%s" % (i, "\u4e2d" * rnd.randrange(3)))
        else:
            keys.append("key:%d:%s" % (i, "x" * rnd.randrange(12)))
    return keys


KEYS = make_keys()
RAW = [k.encode() for k in KEYS]


def make(name):
    return placer.build(RING) if name == "ring" else placer.import_couchbase(COUCHBASE)


def indices(ids, answers):
    """Single lookups' ids as node indices, -1 for None."""
    where = {node: i for i, node in enumerate(ids)}
    return [-1 if a is None else where[a] for a in answers]


def forms(keys, raw):
    """(name, keys, offsets) of every batch form lookup_batch takes."""
    offsets = np.zeros(len(raw) + 1, dtype=np.uint64)
    offsets[1:] = np.cumsum([len(k) for k in raw])
    buf = b"".join(raw)
    yield "list of str", keys, None
    yield "tuple of str", tuple(keys), None
    yield "list of bytes", raw, None
    yield "U array", np.array(keys), None
    yield "S array", np.array(raw), None
    yield "object array", np.array(keys, dtype=object), None
    yield "packed, uint64 offsets", buf, offsets
    yield "packed, int64 offsets", bytearray(buf), offsets.astype(np.int64)
    yield "packed, list offsets", buf, offsets.tolist()


@pytest.mark.parametrize("name", ["ring", "partitions"])
def test_snapshot_batches_equal_single_lookups(name):
    snap = make(name)
    want = indices(snap.node_ids, [snap.lookup(k) for k in KEYS])
    assert (-1 in want) == (name == "partitions")
    for form, keys, offsets in forms(KEYS, RAW):
        got = snap.lookup_batch(keys, offsets=offsets)
        assert got.dtype == np.int64 and got.shape == (N,), form
        assert got.tolist() == want, form
        for n in (1, 255, 256, 257, 4097):  # either side of the GIL's line and of a chunk
            part = keys[:n] if offsets is None else keys  # a buffer: its first n keys
            part_offsets = None if offsets is None else offsets[:n + 1]
            assert snap.lookup_batch(part, offsets=part_offsets).tolist() == want[:n], (form, n)
    rows = np.array(KEYS[:4000]).reshape(40, 100)  # the keys' shape kept
    got = snap.lookup_batch(rows)
    assert got.dtype == np.int64 and got.shape == (40, 100)
    assert got.reshape(-1).tolist() == want[:4000]
    assert snap.lookup_batch(np.array(RAW[:4000]).reshape(40, 100)).reshape(-1).tolist() == want[:4000]
    for empty in ([], np.array([], dtype="S4"), np.array([], dtype="U4")):
        got = snap.lookup_batch(empty)
        assert got.dtype == np.int64 and got.shape == (0,)
    snap.close()


@pytest.mark.parametrize("name", ["ring", "partitions"])
def test_router_batches_equal_single_lookups(name):
    router = placer.Router(make(name))
    epoch = router.epoch
    singles = [router.lookup(k) for k in KEYS]
    for form, keys, offsets in forms(KEYS, RAW):
        owners, ids, at = router.lookup_batch(keys, offsets=offsets)
        assert at == epoch and owners.dtype == np.int64 and owners.shape == (N,), form
        assert owners.tolist() == indices(ids, singles), form
    owners, ids, _ = router.lookup_batch(np.array(KEYS[:4000]).reshape(40, 100))
    assert owners.shape == (40, 100)
    assert owners.reshape(-1).tolist() == indices(ids, singles[:4000])
    router.close()


native = pytest.mark.skipif(_native_reader.native is None, reason="the C extension is not built")


@native
@pytest.mark.parametrize("name", ["ring", "partitions"])
def test_int64_out_is_the_uint32_out_sign_extended(name):
    """The extension's calls with either out: int64 is the int32 view of
    the uint32 answer, PLACER_NO_NODE (0xFFFFFFFF) as -1."""
    offsets = np.zeros(N + 1, dtype=np.uint64)
    offsets[1:] = np.cumsum([len(k) for k in RAW])
    buf = b"".join(RAW)
    u = np.array(KEYS)
    calls = {
        "lookup_batch": lambda r, out: r.lookup_batch(KEYS, out),
        "lookup_packed": lambda r, out: r.lookup_packed(buf, offsets, out),
        "lookup_rows": lambda r, out: r.lookup_rows(u, u.dtype.itemsize, True, out),
    }
    snap, router = make(name), placer.Router(make(name))
    for reader in (snap._reader, router._reader):
        for call, run in calls.items():
            narrow = np.empty(N, dtype=np.uint32)
            wide = np.full(N, 12345, dtype=np.int64)
            run(reader, narrow)
            run(reader, wide)
            assert (wide == narrow.view(np.int32)).all(), call
            none = narrow == 0xFFFFFFFF
            assert none.any() == (name == "partitions"), call
            assert (wide[none] == -1).all() and (wide[~none] >= 0).all(), call
    snap.close()
    router.close()


@native
def test_out_buffers_refused():
    snap = placer.build(RING)
    router = placer.Router(placer.build(RING))
    keys = ["a", "b", "c"]
    buf, offsets = b"abc", np.array([0, 1, 2, 3], dtype=np.uint64)
    rows = np.array(keys)
    wrong = [np.empty(2, dtype=np.int64), np.empty(4, dtype=np.int64),  # lengths
             np.empty(2, dtype=np.uint32), np.empty(4, dtype=np.uint32),
             np.empty(3, dtype=np.int16), np.empty(3, dtype=np.uint8),  # item sizes
             np.empty(3, dtype=np.float64), np.empty(3, dtype=np.uint64),  # 8 bytes, not int64
             np.empty(6, dtype=np.int64)[::2]]  # not contiguous
    for r in (snap._reader, router._reader):
        for out in wrong:
            for run in (lambda: r.lookup_batch(keys, out), lambda: r.lookup_packed(buf, offsets, out),
                        lambda: r.lookup_rows(rows, rows.dtype.itemsize, True, out)):
                with pytest.raises((ValueError, BufferError)) as e:
                    run()
                if out.flags.c_contiguous:
                    assert e.type is ValueError and "3 uint32 or int64 values wanted" in str(e.value)
    # the replica batches take uint32 only
    with pytest.raises(ValueError, match="uint32 values wanted"):
        snap._reader.replicas_batch(keys, 2, np.empty(6, dtype=np.int64), np.empty(3, dtype=np.uint32))
    with pytest.raises(ValueError, match="uint32 values wanted"):
        snap._reader.replicas_batch(keys, 2, np.empty(6, dtype=np.uint32), np.empty(3, dtype=np.int64))
    snap.close()
    router.close()
