"""Hardening findings in the Python module, each reproduced: files written as the CLI
writes them (0600 when keyed, atomic, no symlink followed), close() racing
lookups in other threads (ctypes drops the GIL), 64-bit fields range-checked.
"""
import os
import stat
import threading

import numpy as np
import pytest

import placer

SECRET = bytes(range(16))
PLAIN = {"strategy": "ring", "epoch": 3, "vnodes": 16,
         "nodes": [{"id": "a", "zone": "z1"}, {"id": "b", "zone": "z2"}, {"id": "c", "zone": "z3"}]}
KEYED = dict(PLAIN, key_hash="siphash13")


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_keyed_snapshots_are_saved_0600(tmp_path):
    old = os.umask(0o022)
    try:
        keyed = placer.build(KEYED, secret=SECRET)
        assert keyed.keyed
        keyed.save(tmp_path / "k.snap")
        assert mode(tmp_path / "k.snap") == 0o600
        # loaded from a 0600 file and saved again: still 0600
        placer.load(tmp_path / "k.snap").save(tmp_path / "again.snap")
        assert mode(tmp_path / "again.snap") == 0o600
        # a build that takes its secret from a keyed previous
        follower = placer.build(dict(PLAIN, epoch=4), previous=keyed)
        assert follower.keyed
        follower.save(tmp_path / "next.snap")
        assert mode(tmp_path / "next.snap") == 0o600
        plain = placer.build(PLAIN)
        plain.save(tmp_path / "p.snap")
        assert mode(tmp_path / "p.snap") == 0o644  # 0666 less the umask, as the CLI
    finally:
        os.umask(old)


def test_save_replaces_a_symlink_instead_of_following_it(tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    link = tmp_path / "out.snap"
    os.symlink(victim, link)
    snap = placer.build(PLAIN)
    snap.save(link)
    assert victim.read_bytes() == b"precious"
    assert not os.path.islink(link) and placer.load(link).encode() == snap.encode()
    assert sorted(os.listdir(tmp_path)) == ["out.snap", "victim"]  # no temporary file left


def test_save_failure_keeps_the_old_file(tmp_path):
    target = tmp_path / "d"
    target.mkdir()  # rename over a directory fails
    with pytest.raises(OSError):
        placer.build(PLAIN).save(target)
    assert os.listdir(tmp_path) == ["d"] and os.listdir(target) == []


def test_epoch_is_range_checked():
    for bad in (-1, 2 ** 64, 2 ** 70):
        with pytest.raises(placer.PlacerError) as e:
            placer.build(PLAIN, epoch=bad)
        assert e.value.name == "PLACER_ERANGE" and "epoch" in str(e.value)
    assert placer.build(PLAIN, epoch=2 ** 64 - 1).epoch == 2 ** 64 - 1
    assert placer.build(PLAIN, epoch=0).epoch == 0
    with pytest.raises(TypeError):
        placer.build(PLAIN, epoch=1.5)
    with pytest.raises(placer.PlacerError):
        placer.import_twemproxy(b"p:\n  servers:\n   - 127.0.0.1:11211:1\n", epoch=-1)


def test_secret_is_checked():
    with pytest.raises(placer.PlacerError):
        placer.build(KEYED)  # keyed without a secret
    with pytest.raises(placer.PlacerError):
        placer.build(KEYED, secret=b"short")


def test_close_waits_for_lookups_in_flight():
    """Threads batch-look-up 500,000 packed keys in a loop while the main
    thread closes the snapshot at a moment a call is inside C: every call
    either answers in full (the same answer each time) or raises
    ClosedError; none reads freed memory (before: SIGSEGV with glibc's mmap
    threshold lowered, wrong owners otherwise)."""
    n = 500000
    data = b"".join(b"key:%08d" % i for i in range(n))
    offsets = np.arange(n + 1, dtype=np.uint64) * 12
    for _ in range(5):
        snap = placer.build(dict(PLAIN, vnodes=256))
        expect = snap.lookup_batch(data, offsets=offsets)
        results, errors = [], []

        def reader():
            while True:
                try:
                    results.append(bool((snap.lookup_batch(data, offsets=offsets) == expect).all()))
                    snap.lookup("k")
                    snap.replicas("k", 2)
                    # a key converted by Python code (key_bytes): threads may
                    # switch there, inside the C extension's one-key call
                    snap.lookup(np.bytes_(b"k"))
                except placer.ClosedError:
                    return
                except Exception as e:  # anything else is a failure
                    errors.append(e)
                    return

        threads = [threading.Thread(target=reader) for _ in range(4)]
        for t in threads:
            t.start()
        while len(results) < 4 and not errors:
            threading.Event().wait(0.001)
        # close while a call is in flight: ctypes' (counted by the handle)
        # or a batch of the C extension's without the GIL (its reader's busy)
        reader = snap._reader
        while not (snap._h._users or (reader is not None and reader.busy)) and not errors:
            pass
        snap.close()
        for t in threads:
            t.join(30)
        assert not any(t.is_alive() for t in threads)
        assert not errors and all(results)
        with pytest.raises(placer.PlacerError):
            snap.lookup("k")
        snap.close()  # twice is fine


def test_router_owns_published_snapshots():
    first = placer.build(PLAIN)
    expect = first.lookup("user:1")
    router = placer.Router(first)
    for use in (lambda: first.lookup("x"), lambda: first.encode(), lambda: first.epoch,
                lambda: placer.Router(first), lambda: router.publish(first)):
        with pytest.raises(placer.PlacerError) as e:
            use()
        assert "router" in str(e.value)
    assert router.lookup("user:1") == expect and router.epoch == 3
    stale = placer.build(PLAIN, epoch=2)
    with pytest.raises(placer.PlacerError) as e:
        router.publish(stale)  # refused, and the router freed it all the same
    assert e.value.name == "PLACER_ESTALE"
    with pytest.raises(placer.PlacerError):
        stale.lookup("x")
    router.close()


def test_router_lookups_while_publishing():
    """Readers batch through the router while a writer publishes 50 epochs:
    every batch comes from one epoch and matches that epoch's snapshot."""
    keys = ["user:%d" % i for i in range(2000)]
    nodes = [{"id": "n%d" % i, "zone": "z%d" % (i % 3)} for i in range(12)]
    expected = {}
    for epoch in range(1, 51):
        m = {"strategy": "ring", "vnodes": 16, "nodes": nodes[:4 + epoch % 8]}
        s = placer.build(m, epoch=epoch)
        expected[epoch] = (s.lookup_batch(keys), s)
    router = placer.Router(placer.build({"strategy": "ring", "vnodes": 16, "nodes": nodes[:4 + 1 % 8]},
                                        epoch=1))
    expected_ids = {e: list(s.node_ids) for e, (_, s) in expected.items()}
    bad, seen = [], set()
    done = threading.Event()

    def reader():
        while not done.is_set():
            owners, ids, epoch = router.lookup_batch(keys)
            seen.add(epoch)
            if list(ids) != expected_ids[epoch] or not (owners == expected[epoch][0]).all():
                bad.append(epoch)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for epoch in range(2, 51):
        router.publish(expected[epoch][1])
    done.set()
    for t in threads:
        t.join(30)
    assert not bad and router.epoch == 50 and len(seen) >= 1
    router.close()
    with pytest.raises(placer.PlacerError):
        router.epoch


def test_previous_carries_the_seed_as_the_command_does():
    old = placer.build(dict(PLAIN, seed=99))
    # no "seed": the previous one's, so every key stays where it was
    same = placer.build(dict(PLAIN, epoch=4), previous=old)
    assert same.seed == 99
    keys = ["key-%d" % i for i in range(2000)]
    assert [same.lookup(k) for k in keys] == [old.lookup(k) for k in keys]
    # the same seed named: fine; another one: refused with the reason
    assert placer.build(dict(PLAIN, epoch=4, seed=99), previous=old).seed == 99
    with pytest.raises(placer.PlacerError) as e:
        placer.build(dict(PLAIN, epoch=4, seed=7), previous=old)
    assert e.value.name == "PLACER_EINVAL" and "seed 7 differs from previous's seed 99" in str(e.value)
    # without previous the membership's own default seed places keys elsewhere
    assert placer.build(dict(PLAIN, epoch=4)).seed != 99


FREE_IN_SECTION = r"""
import placer
import placer._router as router_module

def router(epoch):
    return placer.Router(placer.build({"strategy": "ring", "epoch": epoch, "vnodes": 16,
                                       "nodes": [{"id": "a"}, {"id": "b"}]}))

reader = router(1)
doomed = [router(2)]
node_ids_of = router_module.node_ids_of

def dropping(s):
    doomed.clear()  # as a collection would: the finalizer runs inside the section
    return node_ids_of(s)

router_module.node_ids_of = dropping  # called inside the section on an epoch's first use
reader._reader = None  # the ctypes path (the extension's runs no Python code in the section)
owners, ids, epoch = reader.lookup_batch(["k1", "k2", "k3"])
assert epoch == 1 and len(owners) == 3 and not doomed
print("freed")
"""


def test_a_router_freed_by_the_collector_inside_a_read_section():
    """A collection between placer_router_acquire and _release may run
    another router's finalizer; freeing that router waits for a grace
    period this thread's own section would never end: it must wait for the
    section's end instead of deadlocking."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", FREE_IN_SECTION], capture_output=True,
                          text=True, timeout=30, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "freed"
