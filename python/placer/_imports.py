"""Snapshots from other systems' maps (libplacer-control's importers,
docs/COMPAT.md): a twemproxy pool, Redis Cluster's CLUSTER NODES, a
Couchbase bucket configuration. Each takes the text itself or a path."""
import ctypes
import os

from . import _lib
from ._errors import check, unsigned


def _text(source):
    """source as bytes: bytes/bytearray are the document, str or a path
    object a file to read (a str holding the document itself is refused:
    pass bytes)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), "<bytes>"
    path = os.fspath(source)
    with open(path, "rb") as f:
        return f.read(), path


def _snapshot(err, out, why, name):
    from ._snapshot import Snapshot
    detail = why.value.decode("utf-8", "replace") if why is not None else ""
    check(err, "%s: %s" % (name, detail) if detail else name)
    return Snapshot(out.value)


def import_twemproxy(source, pool=None, epoch=0):
    """The pool of a nutcracker.yml (source: its text as bytes, or its path;
    pool: the pool's name, None for a file of one pool) as a snapshot
    placing keys where nutcracker sends them, at epoch (default 0, as the
    command)."""
    text, name = _text(source)
    out, why = ctypes.c_void_p(), ctypes.create_string_buffer(512)
    err = _lib.twemproxy_import(text, len(text), pool.encode() if pool is not None else None,
                                unsigned("epoch", epoch), ctypes.byref(out), why, len(why))
    return _snapshot(err, out, why, name)


def import_redis(source):
    """Redis Cluster's CLUSTER NODES output (bytes, or a path) as a
    partitions snapshot of 16,384 slots, at the largest config-epoch."""
    text, name = _text(source)
    out, why = ctypes.c_void_p(), ctypes.create_string_buffer(512)
    err = _lib.redis_import(text, len(text), ctypes.byref(out), why, len(why))
    return _snapshot(err, out, why, name)


def import_couchbase(source):
    """A Couchbase bucket configuration (/pools/default/buckets/NAME, or
    its terse form; bytes, or a path) as a partitions snapshot mapping keys
    as Couchbase's SDKs do."""
    text, name = _text(source)
    out, why = ctypes.c_void_p(), ctypes.create_string_buffer(512)
    err = _lib.couchbase_import_ex(text, len(text), ctypes.byref(out), why, len(why))
    return _snapshot(err, out, why, name)
