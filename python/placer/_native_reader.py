"""The C extension placer/_native.c, when it was built: a Reader of a
snapshot (lookup, replicas, and the batches of lists, tuples and packed
buffers, which release the GIL from a few hundred keys) and a RouterReader
(lookups and lookup batches on the router's RCU read side). No lock: a reader owns the
pointer's freeing (retire), which waits for no one-key call (they hold the
GIL) and leaves the free to a batch still running without it. Without the
extension (a pure Python install, or PLACER_NO_NATIVE=1 set) reader() and
router_reader() give None and the objects keep their ctypes methods; both
paths give the same answers and errors (the test-suite runs on each)."""
import ctypes
import importlib.machinery
import importlib.util
import os
import weakref

from . import _lib
from ._errors import ENULL, check
from ._handle import ClosedError
from ._keys import key_bytes


def _find():
    if os.environ.get("PLACER_NO_NATIVE"):
        return None
    try:
        from . import _native  # installed beside the module (meson install)
        return _native
    except ImportError:
        pass
    where = os.environ.get("PLACER_EXTENSION_PATH")  # a build tree: build/python
    for suffix in importlib.machinery.EXTENSION_SUFFIXES if where else ():
        path = os.path.join(where, "_native" + suffix)
        if os.path.exists(path):
            spec = importlib.util.spec_from_file_location("placer._native", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    return None


native = _find()


def _closed(handle, what):
    ref = weakref.ref(handle)  # the handle holds the reader (attach): no cycle

    def closed():
        h = ref()
        raise ClosedError(ENULL, (h and h._gone) or "the %s is closed" % what)
    return closed


def attach(handle, reader):
    """handle frees its pointer through reader: at once, or when the last
    batch running without the GIL ends."""
    handle._free = lambda ptr: reader.retire(True)


def reader(ptr, node_ids, handle):
    """A Reader of the snapshot at ptr (ids: node_ids), or None."""
    if native is None:
        return None
    return native.Reader(ptr, tuple(node_ids.tolist()), key_bytes, check,
                         _closed(handle, "snapshot"))


def router_reader(ptr, handle):
    """A RouterReader of the router at ptr, or None."""
    if native is None:
        return None
    return native.RouterReader(ptr, key_bytes, check, _closed(handle, "router"))


def lookup_address():
    """placer_lookup's address as ctypes found it."""
    return ctypes.cast(_lib.lookup, ctypes.c_void_p).value
