"""follow(): the snapshots published under an etcd key, as they come,
through libplacer-control's follower (placer_follower_start_ex: a C thread
that reads, watches, fetches, verifies and keeps the last good snapshot in
a router). The Python side polls the follower's status, and for every new
epoch copies the router's current snapshot (encode and decode, under
placer_router_acquire) into a Snapshot of its own: the C thread never calls
into Python."""
import ctypes
import time

from . import _lib
from ._errors import PlacerError, check, ENOMEM
from ._handle import Handle


class Follower:
    """An iterator of Snapshots, one per new epoch seen (a burst of
    publishes between two polls yields the newest only). Stops after
    `seconds` (None: never) or at close(); also a with block. status() is
    the follower's placer_follower_status as a dict."""

    def __init__(self, endpoints, key, seconds=None, poll=0.05, timeout_ms=5000, cacert=None,
                 cert=None, cert_key=None, user=None, password=None):
        if not isinstance(key, (str, bytes)):
            raise TypeError("key: str or bytes")
        self._poll = float(poll)
        if not self._poll > 0:
            raise ValueError("poll must be > 0 seconds")
        self._deadline = None if seconds is None else time.monotonic() + float(seconds)
        self._last = None
        self._f = None
        cfg = ctypes.c_void_p()
        check(_lib.etcd_config_new(_b(endpoints), int(timeout_ms), ctypes.byref(cfg)),
              "endpoints %r" % (endpoints,))
        try:
            why = ctypes.create_string_buffer(512)
            if cacert or cert or cert_key:
                check(_lib.etcd_config_set_tls(cfg, _b(cacert), _b(cert), _b(cert_key), why,
                                               len(why)), why.value.decode("utf-8", "replace"))
            if user is not None or password is not None:
                check(_lib.etcd_config_set_user(cfg, _b(user or ""), _b(password or "")))
            f = ctypes.c_void_p()
            check(_lib.follower_start_ex(cfg, _b(key), None, None, None, ctypes.byref(f)))
            self._f = Handle(f.value, _lib.follower_stop, "follower")
        finally:
            _lib.etcd_config_free(cfg)

    def status(self):
        st = _lib.FollowerStatus()
        st.size = ctypes.sizeof(st)
        f = self._f.acquire()  # close() in another thread waits for us
        try:
            check(_lib.follower_status_get(f, ctypes.byref(st)))
        finally:
            self._f.release()
        return {"epoch": st.epoch, "age_seconds": st.age_seconds, "accepted": st.accepted,
                "rejected": st.rejected, "resyncs": st.resyncs, "watching": bool(st.watching),
                "last_error": st.last_error.decode("utf-8", "replace")}

    def _copy_current(self):
        """The router's current snapshot, as a Snapshot of our own."""
        from ._snapshot import Snapshot
        f = self._f.acquire()
        try:
            r = _lib.follower_router(f)
            if not r:
                return None
            s = _lib.router_acquire(r)
            try:
                buf, length = ctypes.c_void_p(), ctypes.c_size_t()
                check(_lib.snapshot_encode(s, ctypes.byref(buf), ctypes.byref(length)))
            finally:
                _lib.router_release(r, s)
        finally:
            self._f.release()
        try:
            out = ctypes.c_void_p()
            why = ctypes.create_string_buffer(256)
            check(_lib.snapshot_decode_ex(ctypes.string_at(buf, length.value), length.value,
                                          ctypes.byref(out), why, len(why)),
                  why.value.decode("utf-8", "replace"))
        finally:
            _lib.buffer_free(buf)
        if not out.value:
            raise PlacerError(ENOMEM)
        return Snapshot(out.value)

    def __iter__(self):
        return self

    def __next__(self):
        while self._f is not None and not self._f.closed:
            epoch = self.status()["epoch"]
            if epoch and epoch != self._last:
                snap = self._copy_current()
                if snap is not None and snap.epoch != self._last:
                    self._last = snap.epoch
                    return snap
            if self._deadline is not None:
                left = self._deadline - time.monotonic()
                if left <= 0:
                    break
                time.sleep(min(self._poll, left))
            else:
                time.sleep(self._poll)
        self.close()
        raise StopIteration

    def close(self):
        if self._f is not None:
            self._f.close()

    def __del__(self):
        if getattr(self, "_f", None) is not None:
            self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _b(s):
    if s is None:
        return None
    return s.encode("utf-8") if isinstance(s, str) else bytes(s)


def follow(endpoints, key, seconds=None, **options):
    """The snapshots published under key on the etcd members at endpoints
    (comma-separated http:// or https:// URLs), one per new epoch, each
    decoded and verified: a Follower, an iterator. seconds bounds the
    iteration (None: until close()); options: poll (seconds between status
    checks, 0.05), timeout_ms (per etcd call, 5000), cacert, cert,
    cert_key (TLS), user, password (etcd authentication)."""
    return Follower(endpoints, key, seconds=seconds, **options)
