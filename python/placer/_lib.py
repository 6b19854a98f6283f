"""ctypes bindings: finds libplacer and libplacer-control and declares the C
functions the module calls (include/placer.h, include/placer_control.h).

The libraries are looked up, in order:
  1. in PLACER_LIBRARY_PATH, a list of directories separated by ':' (the
     build tree: "build/engine:build/control");
  2. in the directory `meson install` put them in, when the module was
     installed by meson (_paths.py);
  3. by the dynamic linker, as an installed program finds them
     (libplacer.so.1 and libplacer-control.so.1 on the library path);
  4. in meson's default prefix, /usr/local/lib/<multiarch> and
     /usr/local/lib: a module pip installed in a virtual environment has no
     _paths.py, and the linker's cache may not list a fresh install yet.
Otherwise LibraryNotFound says what it tried and the variable to set.
"""
import ctypes
import os
import sysconfig

_SONAMES = {"placer": "libplacer.so.1", "placer-control": "libplacer-control.so.1"}


class LibraryNotFound(OSError):
    """libplacer or libplacer-control could not be loaded."""


def _search_dirs():
    dirs = [d for d in os.environ.get("PLACER_LIBRARY_PATH", "").split(":") if d]
    try:
        from ._paths import LIBDIR
        dirs.append(LIBDIR)
    except ImportError:  # the source tree: no install directory
        pass
    return dirs


def _load(name):
    soname = _SONAMES[name]
    tried = []
    for d in _search_dirs():
        for file in (soname, "lib%s.so" % name):
            path = os.path.join(d, file)
            if os.path.exists(path):
                # RTLD_GLOBAL: libplacer-control's need for libplacer.so.1 is
                # met by the copy already loaded, wherever it came from.
                return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
            tried.append(path)
    try:
        return ctypes.CDLL(soname, mode=ctypes.RTLD_GLOBAL)
    except OSError as e:
        tried.append(soname)
        arch = sysconfig.get_config_var("MULTIARCH")
        for d in (["/usr/local/lib/" + arch] if arch else []) + ["/usr/local/lib"]:
            path = os.path.join(d, soname)
            if os.path.exists(path):
                return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
            tried.append(path)
        raise LibraryNotFound(
            "cannot load %s (tried %s): install placer (meson install) or set "
            "PLACER_LIBRARY_PATH to the directories holding it" % (soname, ", ".join(tried))
        ) from e


lib = _load("placer")
control = _load("placer-control")

c_u32p = ctypes.POINTER(ctypes.c_uint32)
c_vp = ctypes.c_void_p


class Move(ctypes.Structure):
    _fields_ = [("lo", ctypes.c_uint64), ("hi", ctypes.c_uint64),
                ("from_", ctypes.c_uint32), ("to", ctypes.c_uint32)]


class DiffPair(ctypes.Structure):
    _fields_ = [("from_", ctypes.c_uint32), ("to", ctypes.c_uint32), ("share", ctypes.c_double)]


class DiffReport(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("method", ctypes.c_int), ("moved", ctypes.c_double),
                ("low95", ctypes.c_double), ("high95", ctypes.c_double),
                ("keys", ctypes.c_uint64), ("unplaced", ctypes.c_uint64),
                ("hash_values", ctypes.c_uint64),
                ("gives", ctypes.POINTER(ctypes.c_double)),
                ("receives", ctypes.POINTER(ctypes.c_double)),
                ("pairs", ctypes.POINTER(DiffPair)), ("npairs", ctypes.c_size_t)]


DIFF_RANGES, DIFF_HASHES, DIFF_SAMPLED = 1, 2, 3
DIFF_FORCE_SAMPLE = 0x1


def _fn(library, name, restype, *argtypes):
    f = getattr(library, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


strerror = _fn(lib, "placer_strerror", ctypes.c_char_p, ctypes.c_int)
version_string = _fn(lib, "placer_version_string", ctypes.c_char_p)
builder_free = _fn(lib, "placer_builder_free", None, c_vp)
builder_build = _fn(lib, "placer_builder_build", ctypes.c_int, c_vp, ctypes.c_uint64,
                    ctypes.POINTER(c_vp))
builder_error = _fn(lib, "placer_builder_error", ctypes.c_char_p, c_vp)
builder_set_previous = _fn(lib, "placer_builder_set_previous", ctypes.c_int, c_vp, c_vp)
snapshot_free = _fn(lib, "placer_snapshot_free", None, c_vp)
lookup = _fn(lib, "placer_lookup", ctypes.c_int, c_vp, ctypes.c_char_p, ctypes.c_size_t)
lookup_batch = _fn(lib, "placer_lookup_batch", ctypes.c_int, c_vp, c_vp, c_vp, ctypes.c_size_t, c_vp)
replicas = _fn(lib, "placer_replicas", ctypes.c_int, c_vp, ctypes.c_char_p, ctypes.c_size_t,
               c_u32p, ctypes.c_uint32)
node_count = _fn(lib, "placer_node_count", ctypes.c_uint32, c_vp)
token_count = _fn(lib, "placer_token_count", ctypes.c_uint32, c_vp)
token_at = _fn(lib, "placer_token_at", ctypes.c_int, c_vp, ctypes.c_uint32,
               ctypes.POINTER(ctypes.c_uint64), c_u32p)
node_id = _fn(lib, "placer_node_id", ctypes.c_char_p, c_vp, ctypes.c_uint32)
node_zone = _fn(lib, "placer_node_zone", ctypes.c_char_p, c_vp, ctypes.c_uint32)
node_address = _fn(lib, "placer_node_address", ctypes.c_char_p, c_vp, ctypes.c_uint32)
node_datacenter = _fn(lib, "placer_node_datacenter", ctypes.c_char_p, c_vp, ctypes.c_uint32)
node_replication = _fn(lib, "placer_node_replication", ctypes.c_uint32, c_vp, ctypes.c_uint32)
node_weight = _fn(lib, "placer_node_weight", ctypes.c_double, c_vp, ctypes.c_uint32)
node_state = _fn(lib, "placer_node_state", ctypes.c_int, c_vp, ctypes.c_uint32)
node_tokens = _fn(lib, "placer_node_tokens", ctypes.c_uint32, c_vp, ctypes.c_uint32)
snapshot_epoch = _fn(lib, "placer_snapshot_epoch", ctypes.c_uint64, c_vp)
snapshot_seed = _fn(lib, "placer_snapshot_seed", ctypes.c_uint64, c_vp)
snapshot_strategy = _fn(lib, "placer_snapshot_strategy", ctypes.c_int, c_vp)
snapshot_in_transition = _fn(lib, "placer_snapshot_in_transition", ctypes.c_int, c_vp)
strategy_name = _fn(lib, "placer_strategy_name", ctypes.c_char_p, ctypes.c_int)


class StrategyCount(ctypes.Structure):
    _fields_ = [("min", ctypes.c_uint32), ("max", ctypes.c_uint32), ("def_", ctypes.c_uint32),
                ("prime", ctypes.c_int), ("what", ctypes.c_char_p)]


class StrategyTraits(ctypes.Structure):
    """placer_strategy_traits: what the registry says of a strategy."""
    _fields_ = [("size", ctypes.c_size_t), ("id", ctypes.c_int), ("name", ctypes.c_char_p),
                ("options", ctypes.c_uint), ("traits", ctypes.c_uint),
                ("key_hashes", ctypes.c_uint64), ("partitions", StrategyCount),
                ("capacity", StrategyCount)]


strategy_describe = _fn(lib, "placer_strategy_describe", ctypes.c_int, ctypes.c_int,
                        ctypes.POINTER(StrategyTraits))


def strategy_traits(strategy):
    """The registry's PLACER_TRAIT_* bits of a strategy id (0 for an unknown one)."""
    t = StrategyTraits(size=ctypes.sizeof(StrategyTraits))
    err = strategy_describe(strategy, ctypes.byref(t))
    return 0 if err else t.traits


snapshot_encode = _fn(lib, "placer_snapshot_encode", ctypes.c_int, c_vp, ctypes.POINTER(c_vp),
                      ctypes.POINTER(ctypes.c_size_t))
buffer_free = _fn(lib, "placer_buffer_free", None, c_vp)
snapshot_decode_ex = _fn(lib, "placer_snapshot_decode_ex", ctypes.c_int, ctypes.c_char_p,
                         ctypes.c_size_t, ctypes.POINTER(c_vp), ctypes.c_char_p, ctypes.c_size_t)
diff = _fn(lib, "placer_diff", ctypes.c_int, c_vp, c_vp, ctypes.POINTER(ctypes.POINTER(Move)),
           ctypes.POINTER(ctypes.c_size_t))
moves_free = _fn(lib, "placer_moves_free", None, ctypes.POINTER(Move))
moves_fraction = _fn(lib, "placer_moves_coverage", ctypes.c_double, ctypes.POINTER(Move),
                     ctypes.c_size_t)
moved_fraction = _fn(lib, "placer_moved_fraction", ctypes.c_int, c_vp, c_vp, ctypes.c_uint32,
                     ctypes.POINTER(ctypes.c_double))
diff_measure = _fn(lib, "placer_diff_measure", ctypes.c_int, c_vp, c_vp, ctypes.c_uint64,
                   ctypes.c_uint, ctypes.POINTER(DiffReport))
diff_replicas = _fn(lib, "placer_diff_replicas", ctypes.c_int, c_vp, c_vp, ctypes.c_uint32,
                    ctypes.c_uint64, ctypes.POINTER(DiffReport))
diff_report_release = _fn(lib, "placer_diff_report_release", None, ctypes.POINTER(DiffReport))
lookup_hash_batch = _fn(lib, "placer_lookup_hash_batch", ctypes.c_int, c_vp, c_vp, ctypes.c_size_t,
                        c_vp)
replicas_batch = _fn(lib, "placer_replicas_batch", ctypes.c_int, c_vp, c_vp, c_vp, ctypes.c_size_t,
                     ctypes.c_uint32, c_vp, c_vp)
# Packed batches: keys back to back in one buffer, n + 1 uint64 offsets.
lookup_batch_packed = _fn(lib, "placer_lookup_batch_packed", ctypes.c_int, c_vp, c_vp, c_vp,
                          ctypes.c_size_t, c_vp)
replicas_batch_packed = _fn(lib, "placer_replicas_batch_packed", ctypes.c_int, c_vp, c_vp, c_vp,
                            ctypes.c_size_t, ctypes.c_uint32, c_vp, c_vp)
snapshot_key_hash = _fn(lib, "placer_snapshot_key_hash", ctypes.c_int, c_vp)
# The program's key rule (haproxy's balance): its words, and a request -> key.
snapshot_key_rule = _fn(lib, "placer_snapshot_key_rule", ctypes.c_char_p, c_vp)
key_from_request = _fn(lib, "placer_key_from_request", ctypes.c_int, c_vp, ctypes.c_char_p,
                       ctypes.c_size_t, c_vp, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t))
builder_seed = _fn(lib, "placer_builder_seed", ctypes.c_uint64, c_vp)
builder_set_seed = _fn(lib, "placer_builder_set_seed", ctypes.c_int, c_vp, ctypes.c_uint64)
key_hash_name = _fn(lib, "placer_key_hash_name", ctypes.c_char_p, ctypes.c_int)
builder_set_secret = _fn(lib, "placer_builder_set_secret", ctypes.c_int, c_vp, ctypes.c_char_p)
moves_shares = _fn(lib, "placer_moves_shares", ctypes.c_int, c_vp, c_vp, ctypes.POINTER(Move),
                   ctypes.c_size_t, c_vp, c_vp)
router_new = _fn(lib, "placer_router_new", c_vp, c_vp)
router_free = _fn(lib, "placer_router_free", None, c_vp)
router_publish = _fn(lib, "placer_router_publish", ctypes.c_int, c_vp, c_vp)
router_epoch = _fn(lib, "placer_router_epoch", ctypes.c_uint64, c_vp)
router_acquire = _fn(lib, "placer_router_acquire", c_vp, c_vp)
router_release = _fn(lib, "placer_router_release", None, c_vp, c_vp)
router_lookup_batch_packed = _fn(lib, "placer_router_lookup_batch_packed", ctypes.c_int, c_vp,
                                 c_vp, c_vp, ctypes.c_size_t, c_vp, ctypes.POINTER(ctypes.c_uint64))
couchbase_import_ex = _fn(control, "placer_couchbase_import_ex", ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_size_t, ctypes.POINTER(c_vp), ctypes.c_char_p, ctypes.c_size_t)
twemproxy_import = _fn(control, "placer_twemproxy_import", ctypes.c_int, ctypes.c_char_p,
                       ctypes.c_size_t, ctypes.c_char_p, ctypes.c_uint64, ctypes.POINTER(c_vp),
                       ctypes.c_char_p, ctypes.c_size_t)
haproxy_import = _fn(control, "placer_haproxy_import", ctypes.c_int, ctypes.c_char_p,
                     ctypes.c_size_t, ctypes.c_char_p, ctypes.c_uint64, ctypes.POINTER(c_vp),
                     ctypes.c_char_p, ctypes.c_size_t)
nginx_import = _fn(control, "placer_nginx_import", ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p,
                   ctypes.c_uint64, ctypes.POINTER(c_vp), ctypes.c_char_p, ctypes.c_size_t)
kafka_import = _fn(control, "placer_kafka_import", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                   ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint64, ctypes.POINTER(c_vp),
                   ctypes.c_char_p, ctypes.c_size_t)
redis_import = _fn(control, "placer_redis_import", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                   ctypes.POINTER(c_vp), ctypes.c_char_p, ctypes.c_size_t)
etcd_config_new = _fn(control, "placer_etcd_config_new", ctypes.c_int, ctypes.c_char_p,
                      ctypes.c_long, ctypes.POINTER(c_vp))
etcd_config_free = _fn(control, "placer_etcd_config_free", None, c_vp)
etcd_config_set_tls = _fn(control, "placer_etcd_config_set_tls", ctypes.c_int, c_vp,
                          ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                          ctypes.c_size_t)
etcd_config_set_user = _fn(control, "placer_etcd_config_set_user", ctypes.c_int, c_vp,
                           ctypes.c_char_p, ctypes.c_char_p)
follower_start_ex = _fn(control, "placer_follower_start_ex", ctypes.c_int, c_vp, ctypes.c_char_p,
                        c_vp, c_vp, c_vp, ctypes.POINTER(c_vp))
follower_stop = _fn(control, "placer_follower_stop", None, c_vp)
follower_router = _fn(control, "placer_follower_router", c_vp, c_vp)


class FollowerStatus(ctypes.Structure):
    # size-prefixed (placer_control.h): set size to ctypes.sizeof before the call
    _fields_ = [("size", ctypes.c_size_t), ("epoch", ctypes.c_uint64), ("age_seconds", ctypes.c_double),
                ("accepted", ctypes.c_uint64), ("rejected", ctypes.c_uint64),
                ("resyncs", ctypes.c_uint64), ("watching", ctypes.c_int),
                ("last_error", ctypes.c_char * 256)]


follower_status_get = _fn(control, "placer_follower_status_get", ctypes.c_int, c_vp,
                          ctypes.POINTER(FollowerStatus))
membership_parse = _fn(control, "placer_membership_parse", ctypes.c_int, ctypes.c_char_p,
                       ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(c_vp),
                       ctypes.POINTER(ctypes.c_uint64), ctypes.c_char_p, ctypes.c_size_t)

NO_NODE = 0xFFFFFFFF
ENULL = -1
ENOMEM = -2
ERANGE = -9
EINVAL = -10
ENOTSUP = -11
ENOLIVE = -14
EFORMAT = -15
HASH_SIPHASH13 = 4
NODE_JOINING = 1
TRAIT_BUCKETS = 0x04  # tokens are bucket numbers of equal share (jump, memento, ...)
TRAIT_SCANS_NODES = 0x80  # a lookup scores every node (rendezvous)
