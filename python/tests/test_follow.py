"""placer.follow against a real etcd member (etcd-server, started on free
loopback ports in a temporary directory, as tests/etcd_harness.c does),
snapshots published by the placer command; and its error paths."""
import os
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

import placer

CLI = os.environ.get("PLACER_CLI", "placer")
BASE = {"strategy": "ring", "vnodes": 16, "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def etcd(tmp_path_factory):
    if not shutil.which("etcd"):
        pytest.skip("etcd is not installed (scripts/setup.sh installs etcd-server)")
    d = tmp_path_factory.mktemp("etcd")
    client, peer = free_port(), free_port()
    url, purl = "http://127.0.0.1:%d" % client, "http://127.0.0.1:%d" % peer
    log = open(d / "etcd.log", "wb")
    proc = subprocess.Popen(
        ["etcd", "--name", "m0", "--data-dir", str(d / "data"), "--listen-client-urls", url,
         "--advertise-client-urls", url, "--listen-peer-urls", purl,
         "--initial-advertise-peer-urls", purl, "--initial-cluster", "m0=" + purl,
         "--initial-cluster-state", "new", "--heartbeat-interval", "50",
         "--election-timeout", "500"], stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        for _ in range(200):  # up to 20 s
            try:
                with urllib.request.urlopen(url + "/health", timeout=1) as r:
                    if b'"true"' in r.read():
                        break
            except OSError:
                pass
            if proc.poll() is not None:
                pytest.fail("etcd exited: see %s" % (d / "etcd.log"))
            time.sleep(0.1)
        else:
            pytest.fail("etcd did not become healthy")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def publish(tmp_path, url, key, epoch):
    path = tmp_path / ("s%d.snap" % epoch)
    snap = placer.build(BASE, epoch=epoch)
    snap.save(path)
    r = subprocess.run([CLI, "publish", "--etcd", url, "--key", key, str(path)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode == 0, r.stderr
    return snap.encode()


def test_follow_yields_each_new_epoch(etcd, tmp_path):
    first = publish(tmp_path, etcd, "/placer/py", 1)
    with placer.follow(etcd, "/placer/py", seconds=20) as f:
        s = next(f)
        assert s.epoch == 1 and s.encode() == first
        second = publish(tmp_path, etcd, "/placer/py", 2)
        s2 = next(f)
        assert s2.epoch == 2 and s2.encode() == second
        st = f.status()
        assert st["epoch"] == 2 and st["accepted"] >= 2
        assert s.lookup("user:1") in ("a", "b", "c")  # ours: alive after the router moved on
    with pytest.raises(placer.PlacerError):
        f.status()  # closed


def test_follow_stops_after_seconds_when_nothing_comes(etcd):
    f = placer.follow(etcd, "/placer/nothing-here", seconds=0.5)
    assert list(f) == []  # ends by itself (meson's timeout catches a hang)
    assert f._f.closed


def test_follow_refuses_bad_endpoints():
    with pytest.raises(placer.PlacerError) as e:
        placer.follow("ftp://127.0.0.1:1", "/k")
    assert e.value.name == "PLACER_EINVAL"
    with pytest.raises(placer.PlacerError):
        placer.follow("", "/k")
    with pytest.raises(ValueError):
        placer.follow("http://127.0.0.1:1", "/k", poll=0)


def test_follow_an_unreachable_member_reports_it():
    port = free_port()  # nothing listens there
    with placer.follow("http://127.0.0.1:%d" % port, "/k", seconds=1.0, timeout_ms=200) as f:
        assert list(f) == []
    # the follower is closed by the end of iteration
    assert f._f.closed
