"""Snapshot: one immutable placement, its lookups (single, batched from any
container _keys.pack takes), replica sets, encoding, files and stats."""
import ctypes
import json
import os
import subprocess
import tempfile

import numpy as np

from . import _lib
from ._diff import diff_snapshots
from ._errors import PlacerError, check
from ._files import write_file
from ._handle import Handle
from ._keys import array_rows, key_bytes, native_offsets, pack
from ._native_reader import attach, reader

STATES = ("active", "joining", "draining", "down")


def _name(p):
    return p.decode("utf-8", "replace") if p is not None else None


def owners_array(owners, shape):
    """uint32 owners as int64 node indices, -1 for PLACER_NO_NODE."""
    # node indices stay below 2^31 (PLACER_MAX_NODES): as int32, PLACER_NO_NODE is -1
    return owners.view(np.int32).astype(np.int64).reshape(shape)


def node_ids_of(ptr):
    n = _lib.node_count(ptr)
    return np.array([_name(_lib.node_id(ptr, i)) for i in range(n)], dtype=object)


class Snapshot:
    """An immutable placement: the owner of every key, node ids and states.

    Make one with build(), load(), decode() or an import; free it with
    close() (or a with block; it is also freed when garbage-collected).
    Any number of threads may use one at once; close() waits for the calls
    in flight. Router(snap) or router.publish(snap) hands it to the router:
    from then on using it raises PlacerError."""

    def __init__(self, handle):
        self._h = Handle(handle, _lib.snapshot_free, "snapshot")
        self.node_ids = node_ids_of(handle)
        self._reader = reader(handle, self.node_ids, self._h)
        if self._reader is not None:  # the C extension's per-key calls
            attach(self._h, self._reader)  # it frees the pointer (after its batches)
            self.lookup = self._reader.lookup
            self.replicas = self._reader.replicas

    def close(self):
        self._h.close()

    @property
    def closed(self):
        return self._h.closed

    def __del__(self):
        h = getattr(self, "_h", None)
        if h is not None:
            h.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _call(self, fn, *args):
        ptr = self._h.acquire()
        try:
            return fn(ptr, *args)
        finally:
            self._h.release()

    def __len__(self):
        return len(self.node_ids)

    def __repr__(self):
        if self.closed:
            return "<placer.Snapshot (closed)>"
        return "<placer.Snapshot %s epoch %d, %d nodes>" % (self.strategy, self.epoch, len(self))

    @property
    def epoch(self):
        return self._call(_lib.snapshot_epoch)

    @property
    def seed(self):
        return self._call(_lib.snapshot_seed)

    @property
    def strategy(self):
        """The strategy's registry name ("ring", "partitions", "maglev", "compat", ...:
        placer_strategy_name)."""
        return _name(_lib.strategy_name(self._call(_lib.snapshot_strategy)))

    @property
    def key_hash(self):
        return _name(_lib.key_hash_name(self._call(_lib.snapshot_key_hash)))

    @property
    def keyed(self):
        """True when keys are placed by SipHash-1-3 under a secret."""
        return self._call(_lib.snapshot_key_hash) == _lib.HASH_SIPHASH13

    @property
    def tokens(self):
        return self._call(_lib.token_count)

    @property
    def in_transition(self):
        return bool(self._call(_lib.snapshot_in_transition))

    @property
    def nodes(self):
        """Each node as a dict: id, zone, datacenter ("" for none), address,
        weight, state, tokens, and replication (its datacenter's
        NetworkTopologyStrategy factor; 0 under any other rule)."""
        def read(h):
            return [{"id": self.node_ids[i], "zone": _name(_lib.node_zone(h, i)),
                     "datacenter": _name(_lib.node_datacenter(h, i)),
                     "address": _name(_lib.node_address(h, i)), "weight": _lib.node_weight(h, i),
                     "state": STATES[_lib.node_state(h, i)], "tokens": _lib.node_tokens(h, i),
                     "replication": _lib.node_replication(h, i)}
                    for i in range(len(self))]
        return self._call(read)

    def lookup(self, key):
        """The id of the node that owns key (str or bytes), or None when the
        placement has no node for it (an imported map's -1)."""
        k = key_bytes(key)
        owner = self._call(_lib.lookup, k, len(k))
        if owner == _lib.ENOLIVE:
            return None
        return self.node_ids[check(owner)]

    @property
    def key_rule(self):
        """How the program turns a request into the bytes it hashes, in
        haproxy's balance words ("uri depth 2", "source", "url_param k",
        "hdr(Host) use_domain_only"), or "" when the snapshot has none
        (placer_snapshot_key_rule; docs/COMPAT.md)."""
        return _name(self._call(_lib.snapshot_key_rule))

    def key_from_request(self, request):
        """The bytes the program hashes for a request value as a user sees it
        (an address, a request target such as "/a/b?x=1", a header's value),
        by the snapshot's key rule; unchanged without one. PlacerError
        (PLACER_EINVAL) when the request has no key under the rule: haproxy
        sends it round robin (placer_key_from_request)."""
        r = key_bytes(request)
        out = ctypes.create_string_buffer(len(r) + 16)
        n = ctypes.c_size_t(0)
        err = self._call(_lib.key_from_request, r, len(r), out, len(r) + 16, ctypes.byref(n))
        check(err, "no key in %r under the key rule %r" % (request, self.key_rule) if err else "")
        return out.raw[:n.value]

    def lookup_request(self, request):
        """lookup() of key_from_request(request): where the program sends the
        request (what `placer lookup` does with a typed key)."""
        return self.lookup(self.key_from_request(request))

    def lookup_batch(self, keys, offsets=None):
        """Owners of many keys in one C call: a NumPy int64 array of node
        indices (the shape of keys), -1 where there is no owner;
        self.node_ids[result] gives the ids. keys: a NumPy S or U array
        (trailing NULs dropped, as NumPy does), a list of str or bytes, a
        pyarrow string or binary array, an object array; or a buffer
        (bytes, bytearray, memoryview, uint8 array) with offsets, n + 1
        non-decreasing integers: key i is keys[offsets[i]:offsets[i + 1]]."""
        r = self._reader
        if r is not None and offsets is None and type(keys) in (list, tuple):
            owners = np.empty(len(keys), dtype=np.uint32)  # str and bytes: the extension's
            if r.lookup_batch(keys, owners) is not NotImplemented:
                return owners_array(owners, (len(keys),))
        rows = array_rows(keys) if r is not None and offsets is None else None
        if rows is not None:  # NumPy S and U: the extension reads the rows
            owners = np.empty(len(rows[0]), dtype=np.uint32)
            r.lookup_rows(rows[0], rows[1], rows[2], owners)
            return owners_array(owners, keys.shape)
        off = native_offsets(offsets) if r is not None else None
        if off is not None:  # the extension checks the offsets, no copy here
            owners = np.empty(off.size - 1, dtype=np.uint32)
            r.lookup_packed(keys, off, owners)
            return owners_array(owners, (off.size - 1,))
        p = pack(keys, offsets)
        owners = np.empty(p.n, dtype=np.uint32)
        if p.n and r is not None and p.offsets is not None:
            r.lookup_packed(p.buf, p.offsets, owners)
        elif p.n:
            self._call(lambda h: check(p.lookup(h, owners)))
        return owners_array(owners, p.shape)

    def replicas(self, key, n=3):
        """The replica set of key: its owner first, then n - 1 more distinct
        nodes, in distinct zones while zones remain (ids, at most n)."""
        if n < 1 or n > 8:
            raise ValueError("n is from 1 to 8")
        k = key_bytes(key)
        out = (ctypes.c_uint32 * n)()
        got = check(self._call(_lib.replicas, k, len(k), out, n))
        return [self.node_ids[out[i]] for i in range(got)]

    def replicas_batch(self, keys, n=3, offsets=None):
        """Replica sets of many keys in one C call (keys as lookup_batch
        takes them): an int64 array of shape keys.shape + (n,), each row the
        key's set of node indices, owner first, padded with -1 where the
        placement has fewer nodes to give."""
        if n < 1 or n > 8:
            raise ValueError("n is from 1 to 8")
        r = self._reader
        if r is not None and offsets is None and type(keys) in (list, tuple):
            out = np.full(len(keys) * n, _lib.NO_NODE, dtype=np.uint32)
            counts = np.empty(len(keys), dtype=np.uint32)
            if r.replicas_batch(keys, n, out, counts) is not NotImplemented:
                return owners_array(out, (len(keys), n))
        rows = array_rows(keys) if r is not None and offsets is None else None
        if rows is not None:
            out = np.full(len(rows[0]) * n, _lib.NO_NODE, dtype=np.uint32)
            counts = np.empty(len(rows[0]), dtype=np.uint32)
            r.replicas_rows(rows[0], rows[1], rows[2], n, out, counts)
            return owners_array(out, keys.shape + (n,))
        off = native_offsets(offsets) if r is not None else None
        if off is not None:
            out = np.full((off.size - 1) * n, _lib.NO_NODE, dtype=np.uint32)
            counts = np.empty(off.size - 1, dtype=np.uint32)
            r.replicas_packed(keys, off, n, out, counts)
            return owners_array(out, (off.size - 1, n))
        p = pack(keys, offsets)
        out = np.full(p.n * n, _lib.NO_NODE, dtype=np.uint32)
        counts = np.empty(p.n, dtype=np.uint32)
        if p.n and r is not None and p.offsets is not None:
            r.replicas_packed(p.buf, p.offsets, n, out, counts)
        elif p.n:
            self._call(lambda h: check(p.replicas(h, n, out, counts)))
        return owners_array(out, p.shape + (n,))

    def encode(self):
        """The snapshot in format v2 (docs/FORMAT.md), as bytes."""
        def enc(h):
            buf, length = ctypes.c_void_p(), ctypes.c_size_t()
            check(_lib.snapshot_encode(h, ctypes.byref(buf), ctypes.byref(length)))
            try:
                return ctypes.string_at(buf, length.value)
            finally:
                _lib.buffer_free(buf)
        return self._call(enc)

    def save(self, path):
        """Write the encoded snapshot to path as the placer command writes
        it: a temporary file beside it renamed over it (a reader never sees
        half of it; a symlink at path is replaced, never followed), mode
        0600 for a keyed snapshot (the file holds the secret), else 0666
        less the umask."""
        write_file(path, self.encode(), 0o600 if self.keyed else 0o666)

    def diff(self, other, samples=None, replicas=None):
        """What moves from self to other (nodes matched by id): a Diff with
        what `placer diff --json` prints, from the same library call
        (placer_diff_measure). samples: as `placer diff --sample N`, sample
        that many generated keys even where the diff could count exactly
        (default: exact where it can, else the command's sample).
        replicas: as `placer diff --replicas R`, what each node must
        receive for its new replica sets of that size (Diff.replicas)."""
        a = self._h.acquire()
        try:
            b = other._h.acquire()
            try:
                return diff_snapshots(a, b, self.node_ids, other.node_ids, samples, replicas)
            finally:
                other._h.release()
        finally:
            self._h.release()

    def stats(self):
        """How evenly the snapshot spreads keys: the dict `placer stats
        --json` prints (docs/JSON.md): shares and targets per node and zone,
        max_over_target, cv, the search layout... Runs the placer command
        (PLACER_CLI or PATH) on a private temporary copy."""
        from . import _cli  # the command finder, shared with simulate()
        with tempfile.TemporaryDirectory(prefix="placer-stats-") as d:
            path = os.path.join(d, "s.snap")
            write_file(path, self.encode(), 0o600)
            r = subprocess.run([_cli.command(), "stats", "--json", path],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise PlacerError(_lib.EFORMAT, r.stderr.decode("utf-8", "replace").strip())
        return json.loads(r.stdout)

    def _give_to(self, owner):
        """The C pointer, for a router that owns it from now on: once no
        call, ctypes' or a batch of the extension's, uses it."""
        ptr = self._h.take(owner)
        if self._reader is not None:
            self._reader.retire(False)
        return ptr
