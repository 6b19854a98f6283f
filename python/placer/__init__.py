"""placer from Python: which node owns a key, for exploring placements in a
notebook and for serving them. A thin layer over the C library (ctypes, no
compiler needed):

    import placer
    snap = placer.build({"strategy": "ring", "vnodes": 256,
                         "nodes": [{"id": "a"}, {"id": "b", "weight": 2}]})
    snap.lookup("user:42")                 # 'b'
    owners = snap.lookup_batch(keys)       # NumPy array of node indices
    snap.node_ids[owners]                  # ... as ids
    placer.simulate(nodes=120, keys=100000, vnodes=[1, 16, 256])

Errors raise placer.PlacerError, whose .name is the C library's PLACER_E*
code name (PLACER_EFORMAT, ...). Snapshots are immutable; one may be used
from any number of threads (close() waits for the calls in flight).
"""
import ctypes
import json
import os
import subprocess

from . import _lib
from ._cli import command as _placer_command
from ._diff import Diff
from ._errors import PlacerError, check as _check, unsigned as _unsigned
from ._follow import Follower, follow
from ._handle import ClosedError
from ._imports import (import_couchbase, import_haproxy, import_kafka, import_nginx,
                       import_redis, import_twemproxy)
from ._router import Router
from ._snapshot import Snapshot

__all__ = ["PlacerError", "ClosedError", "Snapshot", "Diff", "Router", "Follower", "build", "load",
           "decode", "simulate", "follow", "import_twemproxy", "import_haproxy", "import_nginx",
           "import_redis", "import_kafka", "import_couchbase",
           "version", "__version__"]


def version():
    """The C library's version, "MAJOR.MINOR.PATCH"."""
    return _lib.version_string().decode()


__version__ = version()


def _membership_text(membership):
    if isinstance(membership, dict):
        return json.dumps(membership).encode(), "<dict>"
    if isinstance(membership, (bytes, bytearray)):
        return bytes(membership), "<bytes>"
    path = os.fspath(membership)
    with open(path, "rb") as f:
        return f.read(), path


def _previous_seed(b, prev, text):
    """The seed places every key: a build that follows prev hashes with
    prev's seed (cli/previous_seed.c does the same for the command). Keyed
    snapshots hash with their secret, so their seed is left alone."""
    if _lib.snapshot_key_hash(prev) == _lib.HASH_SIPHASH13:
        return
    was, now = _lib.snapshot_seed(prev), _lib.builder_seed(b)
    if "seed" not in json.loads(text):
        _check(_lib.builder_set_seed(b, was), "previous's seed")
    elif now != was:
        raise PlacerError(_lib.EINVAL, "seed %d differs from previous's seed %d: every key would "
                          "move (the seed places keys); leave \"seed\" out to keep %d"
                          % (now, was, was))


def build(membership, epoch=None, previous=None, secret=None):
    """A snapshot from a membership: a dict (as the JSON file would hold),
    JSON bytes, or the path of a membership file (README.md). epoch
    overrides the membership's (0 to 2^64 - 1, else PlacerError
    PLACER_ERANGE); previous is the snapshot this one follows (partitions
    and jump keep their assignments; its key hash, secret and seed carry
    over: a membership without "seed" takes previous's, one naming another
    seed is refused, PlacerError PLACER_EINVAL, as `placer build
    --previous` does, since every key would move);
    secret: the 16 bytes of a "siphash13" membership's key."""
    if epoch is not None:
        epoch = _unsigned("epoch", epoch)
    if secret is not None:
        secret = bytes(secret)
        if len(secret) != 16:
            raise PlacerError(_lib.EINVAL, "secret: 16 bytes, not %d" % len(secret))
    text, name = _membership_text(membership)
    b = ctypes.c_void_p()
    file_epoch = ctypes.c_uint64()
    why = ctypes.create_string_buffer(512)
    got = _lib.membership_parse(text, len(text), name.encode(), ctypes.byref(b),
                                ctypes.byref(file_epoch), why, len(why))
    _check(got, why.value.decode("utf-8", "replace"))
    try:
        out = ctypes.c_void_p()
        if previous is not None:
            prev = previous._h.acquire()
            try:
                _check(_lib.builder_set_previous(b, prev))
                _previous_seed(b, prev, text)
            finally:
                previous._h.release()
        if secret is not None:
            _check(_lib.builder_set_secret(b, secret), "secret")
        rc = _lib.builder_build(b, file_epoch.value if epoch is None else epoch, ctypes.byref(out))
        if rc:  # the builder's reason (a refusal at build: its words, not only the code)
            why = _lib.builder_error(b)
            _check(rc, why.decode("utf-8", "replace") if why else "")
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
