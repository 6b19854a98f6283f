"""Snapshots from other systems' maps (libplacer-control's importers,
docs/COMPAT.md): a twemproxy pool, a haproxy backend, an nginx upstream,
Redis Cluster's CLUSTER NODES, a Couchbase bucket configuration. Each takes
the text itself or a path, but nginx's, which takes a path (its includes
are relative to the file)."""
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
    """The imported snapshot, with the importer's notes (what was left out
    or ignored, what the key is; "" when none) as .import_notes; or
    PlacerError with name (None: the message names its file itself) and
    why."""
    from ._snapshot import Snapshot
    detail = why.value.decode("utf-8", "replace") if why is not None else ""
    if err:
        check(err, detail if name is None and detail else
              "%s: %s" % (name, detail) if detail else name)
    snap = Snapshot(out.value)
    snap.import_notes = detail
    return snap


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


def import_haproxy(source, backend, epoch=0):
    """One backend (or listen section) of a haproxy.cfg (source: its text
    as bytes, or its path) as a snapshot placing keys where haproxy 2.6
    sends them, at epoch (default 0, as `placer import-haproxy`). What was
    left out (backup, disabled, weight 0 servers) and what the key is are
    in the snapshot's .import_notes; a refusal raises PlacerError
    (PLACER_EFORMAT, "FILE: line N: ...")."""
    text, name = _text(source)
    out, why = ctypes.c_void_p(), ctypes.create_string_buffer(1024)
    err = _lib.haproxy_import(text, len(text), _name_arg("backend", backend),
                              unsigned("epoch", epoch), ctypes.byref(out), why, len(why))
    return _snapshot(err, out, why, name)


def import_nginx(path, upstream, epoch=0):
    """One upstream (in http {} or stream {}) of an nginx configuration, the
    file at path (never its text: nginx's includes are relative to the
    file) with its includes, as a snapshot placing keys where nginx
    1.22 sends them, at epoch (default 0, as `placer import-nginx`). Notes
    as import_haproxy's; a refusal raises PlacerError (PLACER_EFORMAT,
    "FILE:LINE: ...")."""
    path = os.fsencode(path)  # str, bytes or a path object; TypeError for anything else
    out, why = ctypes.c_void_p(), ctypes.create_string_buffer(1024)
    err = _lib.nginx_import(path, _name_arg("upstream", upstream), unsigned("epoch", epoch),
                            ctypes.byref(out), why, len(why))
    return _snapshot(err, out, why, None if why.value else os.fsdecode(path))


def _name_arg(what, name):
    if not isinstance(name, str):
        raise TypeError("%s: a str, not %s" % (what, type(name).__name__))
    if "\0" in name:
        raise ValueError("%s: a name without NUL characters" % what)
    return name.encode()


def import_redis(source):
    """Redis Cluster's CLUSTER NODES output (bytes, or a path) as a
    partitions snapshot of 16,384 slots, at the largest config-epoch."""
    text, name = _text(source)
    out, why = ctypes.c_void_p(), ctypes.create_string_buffer(512)
    err = _lib.redis_import(text, len(text), ctypes.byref(out), why, len(why))
    return _snapshot(err, out, why, name)


def import_kafka(source, topic=None, partitioner="murmur2_random", epoch=0):
    """One topic of Kafka's `kafka-topics.sh --describe` text (bytes, or a
    path; topic None: the only one it describes) as a partitions snapshot
    whose keys go where librdkafka's partitioner (murmur2_random, the
    default, murmur2, consistent_random, consistent, fnv1a_random, fnv1a)
    sends them; a partition's owner is its leader. As `placer
    import-kafka`; a refusal raises PlacerError (PLACER_EFORMAT, "line N:
    ...")."""
    text, name = _text(source)
    out, why = ctypes.c_void_p(), ctypes.create_string_buffer(512)
    err = _lib.kafka_import(text, len(text), None if topic is None else _name_arg("topic", topic),
                            _name_arg("partitioner", partitioner), unsigned("epoch", epoch),
                            ctypes.byref(out), why, len(why))
    return _snapshot(err, out, why, name)


def import_couchbase(source):
    """A Couchbase bucket configuration (/pools/default/buckets/NAME, or
    its terse form; bytes, or a path) as a partitions snapshot mapping keys
    as Couchbase's SDKs do."""
    text, name = _text(source)
    out, why = ctypes.c_void_p(), ctypes.create_string_buffer(512)
    err = _lib.couchbase_import_ex(text, len(text), ctypes.byref(out), why, len(why))
    return _snapshot(err, out, why, name)
