"""Keys of a batch as one packed buffer and n + 1 uint64 offsets (key i is
buf[offsets[i]:offsets[i + 1]]), the layout placer_lookup_batch_packed
takes, built without per-key Python work where the container allows:

  NumPy S arrays     the array's own bytes when no value has trailing NULs;
                     otherwise the lengths (NumPy strips trailing NULs) from
                     the last nonzero byte of each row, found on a uint8
                     matrix, and pointers into the rows (the unpacked calls)
  NumPy U arrays     code points as a uint32 matrix, the same lengths, then
                     the kept code points encoded to UTF-8 in one call and
                     the UTF-8 lengths from the code points' ranges
  buffer + offsets   bytes, bytearray, memoryview or a NumPy uint8 array with
                     the caller's offsets, not copied
  pyarrow arrays     string, binary and their large forms: the column's own
                     offsets and data buffers (when pyarrow is installed)
  lists of str       one join (a NUL between keys) and one encode: CPython's
                     own UTF-8 form of the joined str, which for ASCII text is
                     the str's bytes themselves (no copy); the keys are passed
                     where they lie (pointers: the unpacked calls). When every
                     key has the same length (the total says which, a count
                     of the NULs and a strided read of where the separators
                     must be prove it) the pointers are an arithmetic
                     sequence; otherwise the key boundaries are the NULs,
                     found on the bytes. When a key holds a NUL itself,
                     packed with byte offsets from the keys' lengths instead
  lists of bytes     the same, without the encode
Anything else (mixed lists, object arrays of bytes and str) goes key by key.
"""
import ctypes

import numpy as np

from . import _lib
from ._errors import PlacerError, ERANGE, EINVAL


class Packed:
    """A batch for the C calls: buf (the keys' bytes, kept alive), its
    address, the uint64 offsets, n, and the shape to give the answers.
    Keys with gaps between them (a padded fixed-width array, a list joined
    with NUL separators) go as they lie instead: ptrs and lens set, offsets
    None, for the unpacked batch calls; gathering them into a new packed
    buffer would cost a pass over every byte for nothing."""

    __slots__ = ("buf", "address", "offsets", "n", "shape", "ptrs", "lens", "owner")

    def __init__(self, buf, offsets, shape, lens=None, stride=0, starts=None, ptrs=None,
                 owner=None):
        self.buf = np.frombuffer(buf, dtype=np.uint8) if not isinstance(buf, np.ndarray) else buf
        self.owner = owner  # what holds buf's memory when buf does not (a str)
        self.address = self.buf.ctypes.data if self.buf.size else 0
        self.shape = shape
        self.ptrs = self.lens = None
        if offsets is None:  # key i: lens[i] bytes from starts[i] (or row i of `stride` bytes)
            self.offsets = None
            self.n = len(lens)
            self.lens = lens.astype(np.uintp, copy=False)
            if ptrs is None:
                if starts is None:
                    starts = np.arange(self.n, dtype=np.uintp) * np.uintp(stride)
                starts += np.uintp(self.address)  # starts is ours: made for this batch
                ptrs = starts
            self.ptrs = ptrs
        else:
            self.offsets = offsets
            self.n = len(offsets) - 1

    def lookup(self, h, owners):
        """placer_lookup_batch(_packed) on snapshot pointer h into owners."""
        if not self.n:
            return 0
        if self.offsets is None:
            return _lib.lookup_batch(h, self.ptrs.ctypes.data, self.lens.ctypes.data, self.n,
                                     owners.ctypes.data)
        return _lib.lookup_batch_packed(h, self.address, self.offsets.ctypes.data, self.n,
                                        owners.ctypes.data)

    def replicas(self, h, want, out, counts):
        if not self.n:
            return 0
        if self.offsets is None:
            return _lib.replicas_batch(h, self.ptrs.ctypes.data, self.lens.ctypes.data, self.n,
                                       want, out.ctypes.data, counts.ctypes.data)
        return _lib.replicas_batch_packed(h, self.address, self.offsets.ctypes.data, self.n, want,
                                          out.ctypes.data, counts.ctypes.data)


def _from_lengths(lens):
    offsets = np.zeros(len(lens) + 1, dtype=np.uint64)
    np.cumsum(lens, out=offsets[1:])
    return offsets


def _kept_lengths(matrix):
    """Per row, 1 + the index of its last nonzero element (0 for a row of
    zeros): NumPy's rule for fixed-width values; None when every row is
    full. Rows whose last element is nonzero are full; only the others are
    searched."""
    rows, width = matrix.shape
    if width == 0:
        return np.zeros(rows, dtype=np.uint64) if rows else None
    short = np.flatnonzero(matrix[:, -1] == 0)
    if not short.size:
        return None
    lens = np.full(rows, width, dtype=np.uint64)
    nz = matrix[short] != 0
    last = width - np.argmax(nz[:, ::-1], axis=1)
    last[~nz.any(axis=1)] = 0
    lens[short] = last
    return lens


def _kept(matrix, lens):
    """The kept elements of each row, row after row, as one 1-D array."""
    if lens is None:
        return matrix.reshape(-1)
    mask = np.arange(matrix.shape[1], dtype=np.uint64)[None, :] < lens[:, None]
    return matrix[mask]


def _full_rows(rows, width):
    return np.arange(rows + 1, dtype=np.uint64) * np.uint64(width)


def _pack_s(keys):
    flat = np.ascontiguousarray(keys.reshape(-1))
    width = flat.dtype.itemsize
    matrix = flat.view(np.uint8).reshape(len(flat), width)
    lens = _kept_lengths(matrix)
    if lens is None:  # no padding: the array is a packed buffer already
        return Packed(matrix.reshape(-1), _full_rows(len(flat), width), keys.shape)
    return Packed(matrix.reshape(-1), None, keys.shape, lens=lens, stride=width)


def _utf8_widths(cps):
    """The UTF-8 length of each code point (1 to 4 bytes)."""
    return (1 + (cps >= 0x80).astype(np.uint8) + (cps >= 0x800) + (cps >= 0x10000)).astype(np.uint8)


def _pack_u(keys):
    # code points in the host's order: a '>U' array is converted, not misread
    flat = np.ascontiguousarray(keys.reshape(-1), dtype=keys.dtype.newbyteorder("="))
    width = flat.dtype.itemsize // 4
    matrix = flat.view(np.uint32).reshape(len(flat), width)
    lens = _kept_lengths(matrix)
    cps = _kept(matrix, lens)
    if lens is None:
        lens = np.full(len(flat), width, dtype=np.uint64)
    if cps.size == 0 or int(cps.max()) < 0x80:  # ASCII: one byte per code point
        return Packed(cps.astype(np.uint8), _from_lengths(lens), keys.shape)
    # code points str.encode refuses, refused as the extension refuses them
    bad = np.flatnonzero(((cps >= 0xD800) & (cps <= 0xDFFF)) | (cps > 0x10FFFF))
    if bad.size:
        c = int(cps[bad[0]])
        if c > 0x10FFFF:
            raise ValueError("code point 0x%x is past U+10FFFF" % c)
        # the row's own str.encode: its error names the row, as the extension's does
        row = int(np.searchsorted(np.cumsum(lens), bad[0], side="right"))
        flat[row].item().encode("utf-8")
    data = cps.astype("<u4").tobytes().decode("utf-32-le").encode("utf-8")
    widths = np.zeros(len(cps) + 1, dtype=np.uint64)  # UTF-8 bytes before each code point
    np.cumsum(_utf8_widths(cps), out=widths[1:])
    return Packed(data, widths[_from_lengths(lens).astype(np.intp)], keys.shape)


def _utf8_function():
    """CPython's PyUnicode_AsUTF8AndSize (public C API), or None elsewhere."""
    try:
        f = ctypes.pythonapi.PyUnicode_AsUTF8AndSize
    except (AttributeError, OSError):
        return None
    f.restype = ctypes.c_void_p
    f.argtypes = [ctypes.py_object, ctypes.POINTER(ctypes.c_ssize_t)]
    return f


_AS_UTF8 = _utf8_function()


def _utf8(text):
    """The UTF-8 bytes of text as a uint8 array, and the object that holds
    them (keep it alive while the array is used). Through CPython's own
    UTF-8 form of the str: for ASCII text, the str's bytes themselves, no
    copy; otherwise encoded once and kept in the str. A lone surrogate
    raises UnicodeEncodeError, as str.encode does."""
    if _AS_UTF8 is None:
        data = text.encode("utf-8")
        return np.frombuffer(data, dtype=np.uint8), data
    size = ctypes.c_ssize_t()
    address = _AS_UTF8(text, ctypes.byref(size))  # raises what CPython raised
    if not size.value:
        return np.zeros(0, dtype=np.uint8), text
    view = (ctypes.c_char * size.value).from_address(address)
    return np.frombuffer(view, dtype=np.uint8), text


def _same_length(raw, n):
    """The byte length of every key when raw is n keys of one length
    joined by NULs and no key holds a NUL, else None. The total gives the
    only possible length L; exactly n - 1 NULs, each where a separator of
    L-byte keys must be (every L + 1 bytes), prove it."""
    width, rest = divmod(len(raw) + 1, n)
    if rest or width == 0:
        return None
    key_len = width - 1
    if n > 1 and (np.count_nonzero(raw) != len(raw) - (n - 1) or raw[key_len::width].any()):
        return None
    return key_len


def _split_at_nuls(raw, n, owner=None):
    """raw (uint8) is n keys joined by NUL bytes: a batch of pointers to
    the keys where they lie in raw (no copy), or None when some key holds a
    NUL itself (more NULs than separators)."""
    key_len = _same_length(raw, n)
    if key_len is not None:
        base = raw.ctypes.data if raw.size else 0
        ptrs = np.arange(base, base + n * (key_len + 1), key_len + 1, dtype=np.uintp)
        return Packed(raw, None, (n,), lens=np.full(n, key_len, dtype=np.uintp), ptrs=ptrs,
                      owner=owner)
    seps = np.flatnonzero(raw == 0)
    if len(seps) != n - 1:
        return None
    starts = np.empty(n, dtype=np.uintp)
    starts[0] = 0
    np.add(seps, 1, out=starts[1:], casting="unsafe")
    lens = np.empty(n, dtype=np.uintp)  # ends, then less the starts
    lens[:-1] = seps
    lens[-1] = len(raw)
    lens -= starts
    return Packed(raw, None, (n,), lens=lens, starts=starts, owner=owner)


def _refused_key(keys):
    """The UnicodeEncodeError of the first key str.encode refuses (its
    object the key, its start in the key, as the extension raises it), in
    place of the joined keys' error."""
    for key in keys:
        key.encode("utf-8")


def _pack_str_list(keys):
    joined = "\0".join(keys)  # TypeError when an item is not a str
    try:
        raw, owner = _utf8(joined)
    except UnicodeEncodeError:
        _refused_key(keys)
        raise
    p = _split_at_nuls(raw, len(keys), owner)
    if p is not None:
        return p
    del raw, owner
    joined = "".join(keys)
    data = joined.encode("utf-8")
    counts = np.fromiter(map(len, keys), dtype=np.uint64, count=len(keys))
    if len(data) == len(joined):  # ASCII: code points are bytes
        return Packed(data, _from_lengths(counts), (len(keys),))
    cps = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    widths = np.zeros(len(cps) + 1, dtype=np.uint64)
    np.cumsum(_utf8_widths(cps), out=widths[1:])
    return Packed(data, widths[_from_lengths(counts).astype(np.intp)], (len(keys),))


def _pack_bytes_list(keys):
    joined = b"\0".join(keys)  # TypeError when an item is not bytes-like
    p = _split_at_nuls(np.frombuffer(joined, dtype=np.uint8), len(keys))
    if p is not None:
        return p
    data = b"".join(keys)  # TypeError when an item is not bytes-like
    lens = np.fromiter(map(len, keys), dtype=np.uint64, count=len(keys))
    if len(data) != int(lens.sum()):  # a memoryview of items wider than bytes
        raise TypeError("a key buffer must be of bytes")
    return Packed(data, _from_lengths(lens), (len(keys),))


def key_bytes(key):
    if isinstance(key, (bytes, bytearray)):
        return bytes(key)
    if isinstance(key, memoryview):
        return key.tobytes()
    if isinstance(key, str):
        return key.encode("utf-8")
    if isinstance(key, np.generic):
        return key_bytes(key.item())
    raise TypeError("a key is str or bytes, not %s" % type(key).__name__)


def _pack_any_list(keys):
    parts = [key_bytes(k) for k in keys]
    return _pack_bytes_list(parts)


def _pack_buffer(buf, offsets):
    view = memoryview(buf)
    if not view.c_contiguous:
        raise ValueError("the key buffer must be contiguous")
    size = view.nbytes
    off = np.asarray(offsets)
    if off.ndim != 1 or off.size < 1:
        raise ValueError("offsets: n + 1 integers (key i is buf[offsets[i]:offsets[i + 1]])")
    if off.dtype.kind not in "iu":
        raise TypeError("offsets must be integers, not %s" % off.dtype)
    if off.dtype.kind == "i" and off.size and int(off.min()) < 0:
        raise PlacerError(ERANGE, "offsets: negative")
    # a copy, never the caller's array: the batch runs without the GIL and
    # another thread writing the offsets after this check would send the
    # library past the end of the buffer
    off = np.array(off, dtype=np.uint64, order="C", copy=True)
    if off.size and int(off.max()) > size:
        raise PlacerError(ERANGE, "offsets: past the end of the %d-byte buffer" % size)
    # (decreasing offsets are the C call's to refuse: PLACER_EINVAL)
    data = np.frombuffer(view.cast("B") if view.format != "B" else view, dtype=np.uint8)
    return Packed(data, off, (off.size - 1,))


def _pack_arrow(arr):
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = pa.concat_arrays(arr.chunks) if arr.num_chunks != 1 else arr.chunk(0)
    t = arr.type
    if pa.types.is_string(t) or pa.types.is_binary(t):
        width = np.int32
    elif pa.types.is_large_string(t) or pa.types.is_large_binary(t):
        width = np.int64
    else:
        raise TypeError("a pyarrow array of strings or binaries, not %s" % t)
    if arr.null_count:
        raise ValueError("the pyarrow array has %d nulls: a key cannot be null" % arr.null_count)
    n = len(arr)
    _, off_buf, data_buf = arr.buffers()
    if off_buf is None:
        return Packed(b"", np.zeros(n + 1, dtype=np.uint64), (n,))
    offsets = np.frombuffer(off_buf, dtype=width)[arr.offset:arr.offset + n + 1].astype(np.uint64)
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    return Packed(data, offsets, (n,))


def _is_arrow(keys):
    mod = type(keys).__module__ or ""
    return mod.startswith("pyarrow")


def array_rows(keys):
    """A NumPy S or U array as the extension's rows: (a C-contiguous 1-D
    array, bytes a row, whether rows are code points), a U array's code
    points in the host's order; None for anything else."""
    if not isinstance(keys, np.ndarray) or keys.dtype.kind not in "SU" or not keys.dtype.itemsize:
        return None
    dtype = keys.dtype.newbyteorder("=") if keys.dtype.kind == "U" else keys.dtype
    flat = np.ascontiguousarray(keys.reshape(-1), dtype=dtype)
    return flat, dtype.itemsize, keys.dtype.kind == "U"


def native_offsets(offsets):
    """offsets when the extension reads them as they are (it checks them
    itself, a chunk at a time on its own copy): a 1-D C-contiguous uint64 or
    int64 NumPy array in the host's order; None for anything else, which
    _pack_buffer converts (a copy)."""
    if (isinstance(offsets, np.ndarray) and offsets.ndim == 1 and offsets.size
            and offsets.dtype in _NATIVE_OFFSETS and offsets.flags.c_contiguous):
        return offsets
    return None


_NATIVE_OFFSETS = (np.dtype(np.uint64), np.dtype(np.int64))


def pack(keys, offsets=None):
    """keys (and, for a buffer, offsets) as a Packed batch."""
    if offsets is not None:
        return _pack_buffer(keys, offsets)
    if isinstance(keys, np.ndarray):
        if keys.dtype.kind == "S":
            return _pack_s(keys)
        if keys.dtype.kind == "U":
            return _pack_u(keys)
        if keys.dtype.kind == "O":
            p = pack(keys.reshape(-1).tolist())
            p.shape = keys.shape
            return p
        raise TypeError("keys: an array of str, bytes or objects, not %s" % keys.dtype)
    if isinstance(keys, (bytes, bytearray, memoryview, str)):
        raise TypeError("keys: a list of keys, or a buffer with offsets= (for one key, lookup)")
    if _is_arrow(keys):
        return _pack_arrow(keys)
    if not isinstance(keys, list):
        keys = list(keys)
    if not keys:
        return Packed(b"", np.zeros(1, dtype=np.uint64), (0,))
    first = type(keys[0])
    try:
        if first is str:
            return _pack_str_list(keys)
        if first is bytes:
            return _pack_bytes_list(keys)
    except (TypeError, BufferError):
        pass  # mixed: key by key below
    return _pack_any_list(keys)


__all__ = ["Packed", "pack", "array_rows", "native_offsets", "key_bytes", "EINVAL"]
