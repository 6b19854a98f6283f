"""Router: the current snapshot of a cluster, swapped for newer ones while
any number of threads look up (placer.h's router: RCU, readers never
block). A snapshot handed to it (Router(snap), publish(snap)) is the
router's from then on: the Snapshot object refuses every use."""

import threading

import numpy as np

from . import _lib
from ._errors import PlacerError, check, ENOMEM
from ._handle import Handle
from ._keys import array_rows, key_bytes, native_offsets, pack
from ._native_reader import attach, router_reader
from ._snapshot import node_ids_of, owners_array


# Frees of routers asked for while this thread is between
# placer_router_acquire and _release (a garbage collection in the section
# may run another router's finalizer): freeing waits for a grace period,
# which this thread's own open section would never end, so they wait for
# the section's end.
_section = threading.local()


def _free_outside_section(free, ptr):
    pending = getattr(_section, "pending", None)
    if pending is not None:
        pending.append((free, ptr))
    else:
        free(ptr)


class Router:
    """Router(snapshot): serves snapshot (now the router's); publish()
    swaps in newer epochs. lookup and lookup_batch answer from one epoch
    each. close() (or a with block) waits for calls in flight, then frees
    the router and its snapshot."""

    def __init__(self, initial):
        ptr = initial._give_to("a router")
        r = _lib.router_new(ptr)  # owns ptr, also on failure
        if not r:
            raise PlacerError(ENOMEM, "placer_router_new")
        self._h = Handle(r, _lib.router_free, "router")
        self._ids = {}  # epoch -> node ids (epochs only move forward)
        self._reader = router_reader(r, self._h)
        if self._reader is not None:  # lookups through the C extension (and batches below)
            attach(self._h, self._reader)
            self.lookup = self._reader.lookup
        free = self._h._free
        self._h._free = lambda ptr: _free_outside_section(free, ptr)

    def close(self):
        self._h.close()

    def __del__(self):
        h = getattr(self, "_h", None)
        if h is not None:
            h.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def publish(self, snapshot):
        """Make snapshot current (it is the router's from now on, even when
        refused). PlacerError PLACER_ESTALE when its epoch is not newer."""
        r = self._h.acquire()
        try:
            check(_lib.router_publish(r, snapshot._give_to("a router")),
                  "the router is at epoch %d" % _lib.router_epoch(r))
        finally:
            self._h.release()

    @property
    def epoch(self):
        r = self._h.acquire()
        try:
            return _lib.router_epoch(r)
        finally:
            self._h.release()

    def _on_current(self, fn):
        """fn(snapshot pointer, its node ids) on one epoch, held."""
        r = self._h.acquire()
        outer = getattr(_section, "pending", None) is None
        if outer:
            _section.pending = []
        try:
            s = _lib.router_acquire(r)
            try:
                epoch = _lib.snapshot_epoch(s)
                ids = self._ids.get(epoch)
                if ids is None:
                    ids = node_ids_of(s)
                    self._ids = {epoch: ids}
                return fn(s, ids, epoch)
            finally:
                _lib.router_release(r, s)
        finally:
            if outer:
                pending, _section.pending = _section.pending, None
                for free, ptr in pending:
                    free(ptr)
            self._h.release()

    def lookup(self, key):
        """The id of the node that owns key now (None: no owner)."""
        k = key_bytes(key)

        def one(s, ids, epoch):
            owner = _lib.lookup(s, k, len(k))
            if owner == _lib.ENOLIVE:
                return None
            return ids[check(owner)]
        return self._on_current(one)

    def lookup_batch(self, keys, offsets=None):
        """Owners of many keys (as Snapshot.lookup_batch takes them), all
        from one epoch: (owners, node_ids, epoch), owners int64 indices into
        that epoch's node_ids (-1: no owner)."""
        r = self._reader
        if r is not None and offsets is None and type(keys) in (list, tuple):
            owners = np.empty(len(keys), dtype=np.uint32)  # str and bytes: the extension's
            got = r.lookup_batch(keys, owners)
            if got is not NotImplemented:
                return self._answer(owners, (len(keys),), got)
        rows = array_rows(keys) if r is not None and offsets is None else None
        if rows is not None:  # NumPy S and U: the extension reads the rows
            owners = np.empty(len(rows[0]), dtype=np.uint32)
            return self._answer(owners, keys.shape, r.lookup_rows(rows[0], rows[1], rows[2], owners))
        off = native_offsets(offsets) if r is not None else None
        if off is not None:  # the extension checks the offsets, no copy here
            owners = np.empty(off.size - 1, dtype=np.uint32)
            return self._answer(owners, (off.size - 1,), r.lookup_packed(keys, off, owners))
        p = pack(keys, offsets)
        owners = np.empty(p.n, dtype=np.uint32)
        if r is not None and p.offsets is not None:
            return self._answer(owners, p.shape, r.lookup_packed(p.buf, p.offsets, owners))

        def batch(s, ids, epoch):
            check(p.lookup(s, owners))
            return owners_array(owners, p.shape), ids, epoch
        return self._on_current(batch)

    def _answer(self, owners, shape, got):
        """lookup_batch's answer from the extension's (node ids, epoch)."""
        ids, epoch = got
        cached = self._ids.get(epoch)
        if cached is None:
            cached = np.array(ids, dtype=object)
            self._ids = {epoch: cached}
        return owners_array(owners, shape), cached, epoch

    def __repr__(self):
        if self._h.closed:
            return "<placer.Router (closed)>"
        return "<placer.Router epoch %d>" % self.epoch


