"""placer from Python: which node owns a key, for exploring placements in a
notebook. A thin layer over the C library (ctypes, no compiler needed):

    import placer
    snap = placer.build({"strategy": "ring", "vnodes": 256,
                         "nodes": [{"id": "a"}, {"id": "b", "weight": 2}]})
    snap.lookup("user:42")                 # 'b'
    owners = snap.lookup_batch(keys)       # NumPy array of node indices
    snap.node_ids[owners]                  # ... as ids
    placer.simulate(nodes=120, keys=100000, vnodes=[1, 16, 256])

Errors raise placer.PlacerError, whose .name is the C library's PLACER_E*
code name (PLACER_EFORMAT, ...). Snapshots are immutable; one may be used
from any number of threads.
"""
import ctypes
import json
import os
import shutil
import subprocess

import numpy as np

from . import _lib

__all__ = ["PlacerError", "Snapshot", "Diff", "build", "load", "decode", "simulate", "version"]

STRATEGIES = {1: "ring", 2: "partitions", 3: "jump", 4: "rendezvous", 5: "maglev"}
STATES = ("active", "joining", "draining", "down")


class PlacerError(Exception):
    """A placer call failed. .code is the negative PLACER_E* value, .name its
    name ("PLACER_EFORMAT"), str() the library's message and any detail."""

    def __init__(self, code, detail=""):
        text = _lib.strerror(code).decode("utf-8", "replace")
        self.code = code
        self.name = text.split(":", 1)[0]
        self.detail = detail
        super().__init__(text + (": " + detail if detail else ""))


def _check(err, detail=""):
    if err < 0:
        raise PlacerError(err, detail)
    return err


def version():
    """The C library's version, "MAJOR.MINOR.PATCH"."""
    return _lib.version_string().decode()


def _key_bytes(key):
    if isinstance(key, (bytes, bytearray, memoryview)):
        return bytes(key)
    if isinstance(key, str):
        return key.encode("utf-8")
    if isinstance(key, np.generic):
        return _key_bytes(key.item())
    raise TypeError("a key is str or bytes, not %s" % type(key).__name__)


def _name(p):
    return p.decode("utf-8", "replace") if p is not None else None


class Snapshot:
    """An immutable placement: the owner of every key, node ids and states.

    Make one with build(), load() or decode(); free it with close() (or a
    with block; it is also freed when garbage-collected)."""

    def __init__(self, handle):
        self._h = ctypes.c_void_p(handle)
        n = _lib.node_count(self._h)
        self.node_ids = np.array([_name(_lib.node_id(self._h, i)) for i in range(n)], dtype=object)

    def close(self):
        if self._h:
            _lib.snapshot_free(self._h)
            self._h = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if not self._h:
            raise ValueError("the snapshot is closed")
        return self._h

    def __len__(self):
        return len(self.node_ids)

    def __repr__(self):
        return "<placer.Snapshot %s epoch %d, %d nodes>" % (self.strategy, self.epoch, len(self))

    @property
    def epoch(self):
        return _lib.snapshot_epoch(self._handle())

    @property
    def seed(self):
        return _lib.snapshot_seed(self._handle())

    @property
    def strategy(self):
        return STRATEGIES.get(_lib.snapshot_strategy(self._handle()), "unknown")

    @property
    def tokens(self):
        return _lib.token_count(self._handle())

    @property
    def in_transition(self):
        return bool(_lib.snapshot_in_transition(self._handle()))

    @property
    def nodes(self):
        """Each node as a dict: id, zone, address, weight, state, tokens."""
        h = self._handle()
        return [{"id": self.node_ids[i], "zone": _name(_lib.node_zone(h, i)),
                 "address": _name(_lib.node_address(h, i)), "weight": _lib.node_weight(h, i),
                 "state": STATES[_lib.node_state(h, i)], "tokens": _lib.node_tokens(h, i)}
                for i in range(len(self))]

    def lookup(self, key):
        """The id of the node that owns key (str or bytes), or None when the
        placement has no node for it (an imported map's -1)."""
        k = _key_bytes(key)
        owner = _lib.lookup(self._handle(), k, len(k))
        if owner == _lib.ENOLIVE:
            return None
        return self.node_ids[_check(owner)]

    def lookup_batch(self, keys):
        """Owners of many keys at once (a list, or a NumPy array of str,
        bytes or objects): a NumPy int64 array of node indices, -1 where
        there is no owner. self.node_ids[result] gives the ids."""
        if isinstance(keys, np.ndarray) and keys.dtype.kind == "S":
            # fixed-width bytes: NumPy drops trailing NULs from each value
            flat = np.ascontiguousarray(keys.ravel())
            lens = np.char.str_len(flat).astype(np.uintp)
            buf = flat.tobytes()
            offsets = np.arange(len(flat), dtype=np.uintp) * np.uintp(flat.dtype.itemsize)
        else:
            seq = keys.ravel().tolist() if isinstance(keys, np.ndarray) else list(keys)
            parts = [_key_bytes(k) for k in seq]
            lens = np.fromiter(map(len, parts), dtype=np.uintp, count=len(parts))
            buf = b"".join(parts)
            offsets = np.zeros(len(parts), dtype=np.uintp)
            if len(parts) > 1:
                np.cumsum(lens[:-1], out=offsets[1:])
        n = len(lens)
        owners = np.empty(n, dtype=np.uint32)
        if n:
            base = ctypes.cast(ctypes.c_char_p(buf), ctypes.c_void_p).value or 0
            ptrs = offsets + np.uintp(base)
            _check(_lib.lookup_batch(self._handle(), ptrs.ctypes.data, lens.ctypes.data, n,
                                     owners.ctypes.data))
        out = owners.astype(np.int64)
        out[owners == _lib.NO_NODE] = -1
        if isinstance(keys, np.ndarray):
            out = out.reshape(keys.shape)
        return out

    def replicas(self, key, n=3):
        """The replica set of key: its owner first, then n - 1 more distinct
        nodes, in distinct zones while zones remain (ids, at most n)."""
        if n < 1 or n > 8:
            raise ValueError("n is from 1 to 8")
        k = _key_bytes(key)
        out = (ctypes.c_uint32 * n)()
        got = _check(_lib.replicas(self._handle(), k, len(k), out, n))
        return [self.node_ids[out[i]] for i in range(got)]

    def encode(self):
        """The snapshot in format v1 (docs/FORMAT.md), as bytes."""
        buf, length = ctypes.c_void_p(), ctypes.c_size_t()
        _check(_lib.snapshot_encode(self._handle(), ctypes.byref(buf), ctypes.byref(length)))
        try:
            return ctypes.string_at(buf, length.value)
        finally:
            _lib.buffer_free(buf)

    def save(self, path):
        """Write the encoded snapshot to path (through a temporary file and a
        rename, so a reader never sees half of it)."""
        data = self.encode()
        tmp = "%s.tmp.%d" % (os.fspath(path), os.getpid())
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def diff(self, other, samples=1 << 20):
        """What moves from self to other (nodes matched by id): a Diff."""
        moves = ctypes.POINTER(_lib.Move)()
        count = ctypes.c_size_t()
        err = _lib.diff(self._handle(), other._handle(), ctypes.byref(moves), ctypes.byref(count))
        if err == _lib.ENOTSUP:  # jump and rendezvous have no ranges: measured
            frac = ctypes.c_double()
            _check(_lib.moved_fraction(self._handle(), other._handle(), samples, ctypes.byref(frac)))
            return Diff(frac.value, False, [])
        _check(err)
        try:
            frac = _lib.moves_fraction(moves, count.value)
            ranges = [(m.lo, m.hi,
                       None if m.from_ == _lib.NO_NODE else self.node_ids[m.from_],
                       None if m.to == _lib.NO_NODE else other.node_ids[m.to])
                      for m in (moves[i] for i in range(count.value))]
        finally:
            _lib.moves_free(moves)
        return Diff(frac, True, ranges)


class Diff:
    """moved: the fraction of keys whose owner changes; exact: True when
    computed from ranges (ring, partitions, Maglev), False when measured at
    sample positions (jump, rendezvous); ranges: (lo, hi, from_id, to_id)
    for each moved range of the hash space, lo < hash <= hi."""

    def __init__(self, moved, exact, ranges):
        self.moved, self.exact, self.ranges = moved, exact, ranges

    def __repr__(self):
        return "<placer.Diff moved %.6f (%s), %d ranges>" % (
            self.moved, "exact" if self.exact else "measured", len(self.ranges))


def _membership_text(membership):
    if isinstance(membership, dict):
        return json.dumps(membership).encode(), "<dict>"
    if isinstance(membership, (bytes, bytearray)):
        return bytes(membership), "<bytes>"
    path = os.fspath(membership)
    with open(path, "rb") as f:
        return f.read(), path


def build(membership, epoch=None, previous=None):
    """A snapshot from a membership: a dict (as the JSON file would hold),
    JSON bytes, or the path of a membership file (README.md). epoch
    overrides the membership's; previous is the snapshot this one follows
    (partitions and jump keep their assignments)."""
    text, name = _membership_text(membership)
    b = ctypes.c_void_p()
    file_epoch = ctypes.c_uint64()
    why = ctypes.create_string_buffer(512)
    got = _lib.membership_parse(text, len(text), name.encode(), ctypes.byref(b),
                                ctypes.byref(file_epoch), why, len(why))
    _check(got, why.value.decode("utf-8", "replace"))
    try:
        if previous is not None:
            _check(_lib.builder_set_previous(b, previous._handle()))
        out = ctypes.c_void_p()
        _check(_lib.builder_build(b, file_epoch.value if epoch is None else epoch, ctypes.byref(out)))
    finally:
        _lib.builder_free(b)
    return Snapshot(out.value)


def decode(data):
    """A snapshot from its encoded bytes (every check a router makes)."""
    data = bytes(data)
    out = ctypes.c_void_p()
    why = ctypes.create_string_buffer(256)
    _check(_lib.snapshot_decode_ex(data, len(data), ctypes.byref(out), why, len(why)),
           why.value.decode("utf-8", "replace"))
    return Snapshot(out.value)


def load(path):
    """A snapshot from a file (placer build -o, Snapshot.save)."""
    with open(path, "rb") as f:
        return decode(f.read())


def _placer_command():
    cli = os.environ.get("PLACER_CLI") or shutil.which("placer")
    if not cli:
        raise FileNotFoundError("the placer command is not on PATH (or set PLACER_CLI)")
    return cli


def simulate(membership=None, **options):
    """Run `placer simulate --json` and return its document (docs/JSON.md):
    keys, nodes, zones, and a row per strategy and tokens-per-node value.

    membership: None (generated from nodes=, zones=, weights=), a dict, or a
    membership file's path. Options are the command's, with '_' for '-':
    nodes=120, zones=3, weights=[1, 2], keys=1000000, key_dist="uniform",
    qps="zipf:1.0", value_size="fixed:1024", seed=1,
    strategies=["ring", "jump"], vnodes=[1, 16, 256], replicas=3,
    replica_keys=100000, timing=False (leaves out lookup_ns), plot="f.svg".
    A failure raises PlacerError(EFORMAT) with the command's message (or
    ValueError for a usage error)."""
    args = [_placer_command(), "simulate", "--json", "--quiet"]
    tmp = None
    if isinstance(membership, dict):
        import tempfile
        fd, tmp = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(membership, f)
        args.append(tmp)
    elif membership is not None:
        args.append(os.fspath(membership))
    for k, v in options.items():
        if k == "timing":
            if not v:
                args.append("--no-timing")
            continue
        if isinstance(v, (list, tuple)):
            v = ",".join(str(x) for x in v)
        args.append("--%s=%s" % (k.replace("_", "-"), v))
    try:
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        if tmp:
            os.unlink(tmp)
    message = r.stderr.decode("utf-8", "replace").strip()
    if r.returncode == 1:
        raise ValueError(message)
    if r.returncode == 3:
        raise PlacerError(_lib.ENOMEM, message)
    if r.returncode != 0:
        raise PlacerError(_lib.EFORMAT, message)
    return json.loads(r.stdout)
