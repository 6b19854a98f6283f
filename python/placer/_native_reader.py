"""Snapshot's per-key calls through the C extension placer/_native.c, when
it was built: a Reader that answers lookup() and replicas() holding the GIL
(no lock; Snapshot.close() detaches it first). Without the extension (a pure
Python install, or PLACER_NO_NATIVE=1 set) reader() gives None and the
Snapshot keeps its ctypes methods; both paths give the same answers and
errors (the test-suite runs on each)."""
import ctypes
import importlib.machinery
import importlib.util
import os

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


def _address(fn):
    return ctypes.cast(fn, ctypes.c_void_p).value


def reader(ptr, node_ids, handle):
    """A Reader of the snapshot at ptr (ids: node_ids), or None."""
    if native is None:
        return None

    def closed():
        raise ClosedError(ENULL, handle._gone or "the snapshot is closed")

    return native.Reader(ptr, _address(_lib.lookup), _address(_lib.replicas),
                         tuple(node_ids.tolist()), key_bytes, check, closed)
