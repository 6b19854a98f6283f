"""Snapshot.lookup and replicas, the per-key calls: through the C extension
(placer/_native.c) in the `python` test and through ctypes in
`python_ctypes` (PLACER_NO_NATIVE=1); both must give the batch calls'
answers and the same errors, and a closed snapshot must refuse them
(closing while threads look up: test_hardening.py)."""
import os

import numpy as np
import pytest

import placer
from placer import _native_reader

MEMBERSHIP = {
    "strategy": "ring", "seed": 3, "vnodes": 32,
    "nodes": [{"id": "n%d" % i, "zone": "z%d" % (i % 3)} for i in range(12)],
}
KEYS = ["key:%d" % i for i in range(3000)] + ["", "caf\u00e9", "\u4e2d\u6587"]


def test_the_extension_is_used_where_built():
    want = bool(os.environ.get("PLACER_EXTENSION_PATH")) and not os.environ.get("PLACER_NO_NATIVE")
    assert (_native_reader.native is not None) == want
    snap = placer.build(MEMBERSHIP)
    assert (type(snap.lookup).__name__ == "builtin_function_or_method") == want


def test_single_keys_equal_the_batch():
    with placer.build(MEMBERSHIP) as snap:
        owners = snap.node_ids[snap.lookup_batch(KEYS)]
        assert [snap.lookup(k) for k in KEYS] == list(owners)
        assert [snap.lookup(k.encode()) for k in KEYS] == list(owners)
        sets = snap.replicas_batch(KEYS, 3)
        for k, row in zip(KEYS[:500], sets[:500]):
            assert snap.replicas(k) == [snap.node_ids[i] for i in row if i >= 0]
            assert snap.replicas(k, n=2) == snap.replicas(k, 3)[:2]


def test_key_types():
    with placer.build(MEMBERSHIP) as snap:
        want = snap.lookup("abc")
        for k in (b"abc", bytearray(b"abc"), memoryview(b"xabc")[1:], np.str_("abc"),
                  np.bytes_(b"abc")):
            assert snap.lookup(k) == want
            assert snap.replicas(k, 2)[0] == want
        for bad in (42, None, 1.5, ["abc"]):
            with pytest.raises(TypeError):
                snap.lookup(bad)
            with pytest.raises(TypeError):
                snap.replicas(bad)
        with pytest.raises(UnicodeEncodeError):
            snap.lookup("\ud800")
        for n in (0, 9, -1):
            with pytest.raises(ValueError):
                snap.replicas("abc", n)
        assert snap.lookup("x" * 1_000_000) in set(snap.node_ids)


def test_closed_snapshot_refuses_kept_methods():
    snap = placer.build(MEMBERSHIP)
    lookup, replicas = snap.lookup, snap.replicas
    snap.close()
    for call in (lambda: lookup("a"), lambda: replicas("a"), lambda: snap.lookup("a")):
        with pytest.raises(placer.ClosedError):
            call()

