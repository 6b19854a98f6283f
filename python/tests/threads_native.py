"""The C extension's lifetimes under threads (meson's `threads` suite runs
this file alone): a router's one-key lookups and lookup batches while
another thread swaps its snapshots (each answer must be the owner under
one of the published memberships, a batch's all under the epoch it
reports), and batches that run without the GIL while another thread
closes their snapshot or router, or hands the snapshot to a router (each batch completes with
the right owners or raises ClosedError; none reads freed memory: the
tests run with MALLOC_MMAP_THRESHOLD_=4096, so a freed snapshot is
unmapped and a use after free crashes). The closing thread waits until a
batch is inside C; nothing depends on timing: every interleaving must
pass."""
import threading
import time

import numpy as np
import pytest

import placer
from placer import _lib, _native_reader

pytestmark = pytest.mark.skipif(_native_reader.native is None, reason="the C extension is not built")

NODES = [{"id": "n%d" % i, "zone": "z%d" % (i % 3)} for i in range(24)]
KEYS = ["key:%d" % i for i in range(20000)] + ["", "caf\u00e9", "\u4e2d"]


def build(nodes, epoch):
    return placer.build({"strategy": "ring", "seed": 9, "vnodes": 256, "nodes": nodes}, epoch=epoch)


def run(threads):
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_router_lookups_while_snapshots_swap():
    ring_a, ring_b = build(NODES, 1), build(NODES[::2], 1)
    want = [{ring_a.lookup(k), ring_b.lookup(k)} for k in KEYS]
    ring_a.close()
    ring_b.close()
    router = placer.Router(build(NODES, 1))
    assert type(router.lookup).__name__ == "builtin_function_or_method"
    done = threading.Event()
    bad = []

    def reader():
        rounds = 0
        while not done.is_set() or rounds < 2:
            for i in range(0, len(KEYS), 7):
                got = router.lookup(KEYS[i])
                if got not in want[i]:
                    bad.append((KEYS[i], got))
            rounds += 1

    def writer():
        try:
            for epoch in range(2, 300):
                router.publish(build(NODES if epoch % 2 else NODES[::2], epoch))
        finally:
            done.set()

    run([threading.Thread(target=reader) for _ in range(3)] + [threading.Thread(target=writer)])
    assert not bad
    assert router.epoch == 299
    router.close()


@pytest.mark.parametrize("form", ["list", "packed"])
def test_router_batches_while_snapshots_swap(form):
    """Router.lookup_batch while another thread publishes: every batch, of
    a few keys (the GIL kept) or of thousands (released), has all its
    answers from the one epoch it reports."""
    ring_a, ring_b = build(NODES, 1), build(NODES[::2], 1)
    want = {1: list(ring_a.node_ids[ring_a.lookup_batch(KEYS)]),
            0: list(ring_b.node_ids[ring_b.lookup_batch(KEYS)])}
    ring_a.close()
    ring_b.close()
    raw = [k.encode() for k in KEYS]
    offsets = np.zeros(len(raw) + 1, dtype=np.uint64)
    offsets[1:] = np.cumsum([len(k) for k in raw])
    buf = b"".join(raw)
    router = placer.Router(build(NODES, 1))
    done = threading.Event()
    bad, epochs = [], set()

    def batch(n):
        if form == "list":
            return router.lookup_batch(KEYS[:n])
        return router.lookup_batch(buf[:int(offsets[n])], offsets=offsets[:n + 1])

    def reader():
        rounds = 0
        while not done.is_set() or rounds < 2:
            for n in (100, len(KEYS)):
                owners, ids, epoch = batch(n)
                epochs.add(epoch)
                if list(ids[owners]) != want[epoch % 2][:n]:
                    bad.append(epoch)
            rounds += 1

    def writer():
        try:
            for epoch in range(2, 200):
                router.publish(build(NODES if epoch % 2 else NODES[::2], epoch))
        finally:
            done.set()

    run([threading.Thread(target=reader) for _ in range(3)] + [threading.Thread(target=writer)])
    assert not bad
    assert len(epochs) > 1 and router._reader.busy == 0
    router.close()


def test_router_batches_while_the_router_closes():
    """Batches without the GIL while another thread closes the router:
    each completes with the right owners or raises ClosedError; the router
    is freed by the last batch (a use after free crashes here)."""
    for attempt in range(10):
        router = placer.Router(build(NODES, 1))
        reader = router._reader
        owners, ids, _ = router.lookup_batch(KEYS)
        want = list(ids[owners])
        results = []
        started = threading.Barrier(4)

        def worker():
            started.wait()
            while True:
                try:
                    owners, ids, epoch = router.lookup_batch(KEYS)
                except placer.ClosedError:
                    results.append("closed")
                    return
                results.append(epoch == 1 and list(ids[owners]) == want)

        def closer():
            started.wait()
            while not reader.busy:  # a batch is inside C without the GIL
                time.sleep(0)
            router.close()

        run([threading.Thread(target=worker) for _ in range(3)] + [threading.Thread(target=closer)])
        assert results.count("closed") == 3
        assert all(r is True for r in results if r != "closed")
        assert reader.busy == 0


def batches_until_closed(snap, want, results):
    """lookup_batch and replicas_batch of KEYS until the snapshot refuses."""
    while True:
        try:
            owners = snap.lookup_batch(KEYS)
            sets = snap.replicas_batch(KEYS, 2)
        except placer.ClosedError:
            results.append("closed")
            return
        ok = list(snap.node_ids[owners]) == want and list(snap.node_ids[sets[:, 0]]) == want
        results.append(ok)


@pytest.mark.parametrize("how", ["close", "router"])
def test_batches_while_the_snapshot_goes(how):
    for attempt in range(10):
        snap = build(NODES, 1)
        want = [snap.lookup(k) for k in KEYS]
        reader = snap._reader
        results = []
        started = threading.Barrier(4)

        def worker():
            started.wait()
            batches_until_closed(snap, want, results)

        def closer():
            started.wait()
            while not reader.busy:  # a batch is inside C without the GIL
                time.sleep(0)
            if how == "close":
                snap.close()
                return
            router = placer.Router(snap)  # waits for the batches on it, then owns it
            router.publish(build(NODES[1:], 2))  # the first snapshot is reclaimed
            placer_barrier()
            assert router.lookup("x") in {n["id"] for n in NODES[1:]}
            router.close()

        run([threading.Thread(target=worker) for _ in range(3)] + [threading.Thread(target=closer)])
        assert results.count("closed") == 3
        assert all(r is True for r in results if r != "closed")
        assert reader.busy == 0
        with pytest.raises(placer.ClosedError):
            snap.lookup_batch(KEYS)


@pytest.mark.parametrize("form", ["list", "packed"])
def test_a_long_batch_lets_another_thread_run(form):
    """A batch of 256 keys or more releases the GIL: a thread that counts
    only while some batch is inside C (reader.busy, changed under the GIL
    next to the release and the reacquisition, so never seen set unless the
    GIL was given up between them) gets to count. The batches repeat until
    it has (a bound of 2,000 only ends a failing run); a batch of 255
    keys, which keeps the GIL, is never seen."""
    snap = build(NODES, 1)
    reader = snap._reader
    keys = KEYS[:4096]
    raw = [k.encode() for k in keys]
    buf = b"".join(raw)
    offsets = np.zeros(len(raw) + 1, dtype=np.uint64)
    offsets[1:] = np.cumsum([len(k) for k in raw])
    want = snap.lookup_batch(keys)
    seen = []
    stop = threading.Event()

    def counter():
        while not stop.is_set():
            if reader.busy:
                seen.append(reader.busy)

    def batches(call, owners, bound):
        t = threading.Thread(target=counter)
        t.start()
        try:
            for _ in range(bound):
                assert np.array_equal(call(), owners)
                if seen:
                    break
        finally:
            stop.set()
            t.join()

    if form == "list":
        batches(lambda: snap.lookup_batch(keys), want, 2000)
    else:
        batches(lambda: snap.lookup_batch(buf, offsets=offsets), want, 2000)
    assert seen and reader.busy == 0

    # Below the line the GIL is kept: the counter never sees a batch.
    seen.clear()
    stop.clear()
    batches(lambda: snap.lookup_batch(keys[:255]), want[:255], 200)
    assert not seen
    snap.close()


def placer_barrier():
    """Wait for the router's reclamation (placer_router_barrier)."""
    fn = _lib.lib.placer_router_barrier
    fn.restype = None
    fn()


def test_offsets_written_during_a_batch():
    """A packed batch runs without the GIL, so another thread may write the
    caller's offsets while it is inside C: the batch works on its own copy,
    checked once, so every call returns the owners of the offsets it was
    given or refuses them (PlacerError), and none reads past the buffer
    (a forged offset is 2**62: read through, it crashes the test)."""
    snap = build(NODES, 1)
    reader = snap._reader
    raw = [k.encode() for k in KEYS[:8192]]
    buf = b"".join(raw)
    offsets = np.zeros(len(raw) + 1, dtype=np.uint64)
    offsets[1:] = np.cumsum([len(k) for k in raw])
    good = offsets.copy()
    want = np.array(snap.lookup_batch(buf, offsets=good), dtype=np.uint32)
    stop = threading.Event()
    refused = []

    def forger():
        mid = len(raw) // 2
        while not stop.is_set():
            offsets[mid] = 1 << 62
            offsets[mid] = good[mid]

    t = threading.Thread(target=forger)
    t.start()
    try:
        for _ in range(800):
            owners = np.zeros(len(raw), dtype=np.uint32)
            try:
                reader.lookup_packed(buf, offsets, owners)
            except placer.PlacerError:
                refused.append(1)
                continue
            assert np.array_equal(owners, want)
    finally:
        stop.set()
        t.join()
    snap.close()
