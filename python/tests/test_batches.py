"""Batches from every container against single lookups (placer_lookup, one
key at a time: the plain reference), and the packed buffer's refusals."""
import ctypes

import numpy as np
import pytest

import placer

PLACER_CPU_AVX2 = 1 << 2  # placer.h
MEMBERSHIP = {"strategy": "ring", "seed": 3, "epoch": 1, "vnodes": 32,
              "nodes": [{"id": "n%d" % i, "zone": "z%d" % (i % 3)} for i in range(9)]}
STR_KEYS = ["user:%d" % i for i in range(300)] + ["", "caf\u00e9", "\u4e2d\u6587", "\U0001f600x",
                                                    "a\x00b", "\x00lead", "x" * 70]


@pytest.fixture(scope="module")
def snap():
    with placer.build(MEMBERSHIP) as s:
        yield s


def singles(s, keys):
    return [s.node_ids.tolist().index(s.lookup(k)) for k in keys]


def test_list_of_str_ascii_and_not(snap):
    ascii_keys = [k for k in STR_KEYS if k.isascii()]
    assert snap.lookup_batch(ascii_keys).tolist() == singles(snap, ascii_keys)
    assert snap.lookup_batch(STR_KEYS).tolist() == singles(snap, STR_KEYS)


def test_lists_without_nuls_take_the_separator_path(snap):
    keys = [k for k in STR_KEYS if "\x00" not in k]
    assert snap.lookup_batch(keys).tolist() == singles(snap, keys)  # not ASCII
    assert snap.lookup_batch([k.encode() for k in keys]).tolist() == singles(snap, keys)
    for few in (["solo"], [""], ["", ""], ["", "x", ""], [b"", b"y"]):
        assert snap.lookup_batch(few).tolist() == singles(snap, few)
    # a NUL in one key of many: the separator count gives it away
    assert snap.lookup_batch(["a", "b\x00", "c"]).tolist() == singles(snap, ["a", "b\x00", "c"])
    assert snap.lookup_batch([b"a", b"\x00", b"c"]).tolist() == singles(snap, [b"a", b"\x00", b"c"])
    wide = memoryview(np.arange(4, dtype=np.uint16))  # raw bytes, as lookup takes them
    assert snap.lookup_batch([wide, b"z"]).tolist() == singles(snap, [wide.tobytes(), b"z"])


def test_lists_of_keys_of_one_length(snap):
    # the arithmetic pointers: every key of one byte length, no NUL in a key
    for keys in (["k%05d" % i for i in range(1000)], ["\u00e9t\u00e9%03d" % i for i in range(200)],
                 ["a\x00b"], ["", ""], ["same", "size", "keys"]):
        assert snap.lookup_batch(keys).tolist() == singles(snap, keys)
        raw = [k.encode() for k in keys]
        assert snap.lookup_batch(raw).tolist() == singles(snap, raw)
    # totals that fit one length while the keys do not: the NUL count or the
    # separators' places give them away
    for keys in (["ab", "\x00\x00\x00", "e"], ["a\x00", "bc"], ["abc", "d", "ef\x00"],
                 ["\x00", "\x00"], ["ab", "c", "def"], ["\u00e9", "ab"]):
        assert snap.lookup_batch(keys).tolist() == singles(snap, keys), keys
        raw = [k.encode() for k in keys]
        assert snap.lookup_batch(raw).tolist() == singles(snap, raw), keys


def test_list_of_bytes_and_mixed(snap):
    keys = [k.encode() for k in STR_KEYS] + [bytes(range(256))]
    assert snap.lookup_batch(keys).tolist() == singles(snap, keys)
    mixed = ["a", b"b", bytearray(b"c"), memoryview(b"d"), np.bytes_(b"e"), np.str_("f")]
    assert snap.lookup_batch(mixed).tolist() == singles(snap, [b"a", b"b", b"c", b"d", b"e", b"f"])
    assert snap.lookup_batch(iter(["a", "b"])).tolist() == singles(snap, ["a", "b"])
    with pytest.raises(TypeError):
        snap.lookup_batch(["a", 1])
    with pytest.raises(TypeError):
        snap.lookup_batch("not a list")
    with pytest.raises(UnicodeEncodeError):
        snap.lookup_batch(["ok", "\ud800"])


def test_numpy_s_arrays_strip_trailing_nuls(snap):
    keys = [b"user:%d" % i for i in range(300)] + [b"", b"a\x00b", b"\x00lead", b"full" * 4]
    arr = np.array(keys, dtype="S16")
    # NumPy's own view of each value: trailing NULs gone, inner ones kept
    expect = singles(snap, [bytes(v) for v in arr.tolist()])
    assert snap.lookup_batch(arr).tolist() == expect
    full = np.array([b"k%07d" % i for i in range(500)], dtype="S8")  # no padding anywhere
    assert snap.lookup_batch(full).tolist() == singles(snap, full.tolist())
    grid = arr[:6].reshape(2, 3)
    assert snap.lookup_batch(grid).shape == (2, 3)
    strided = arr[::2]  # not contiguous
    assert snap.lookup_batch(strided).tolist() == expect[::2]
    assert snap.lookup_batch(np.array([], dtype="S4")).shape == (0,)
    assert snap.lookup_batch(np.array([b""] * 3)).tolist() == singles(snap, [b""] * 3)


def test_numpy_u_arrays_encode_utf8(snap):
    arr = np.array(STR_KEYS)
    expect = singles(snap, [str(v) for v in arr.tolist()])
    assert snap.lookup_batch(arr).tolist() == expect
    ascii_arr = np.array(["k%d" % i for i in range(100)])
    assert snap.lookup_batch(ascii_arr).tolist() == singles(snap, ascii_arr.tolist())
    assert snap.lookup_batch(np.array(STR_KEYS, dtype=object)).tolist() == singles(snap, STR_KEYS)


@pytest.mark.parametrize("order", ["<", ">", "=", "|"])
@pytest.mark.parametrize("width", [1, 3, 8, 80])
def test_numpy_u_arrays_of_either_byte_order(snap, order, width):
    """A U array's code points in its own byte order ('>' on a little-endian
    host too; '|' is native for U), every width, strided and 2-D views."""
    keys = [k[:width] for k in STR_KEYS]
    arr = np.array(keys, dtype="%sU%d" % (order, width))
    expect = singles(snap, arr.tolist())
    assert arr.tolist() == np.array(keys, dtype="U%d" % width).tolist()  # NumPy's values
    assert snap.lookup_batch(arr).tolist() == expect
    assert snap.lookup_batch(arr[::3]).tolist() == expect[::3]
    square = arr[:300].reshape(30, 10)
    assert snap.lookup_batch(square).tolist() == np.array(expect[:300]).reshape(30, 10).tolist()


def u_rows_mix(width, n, seed):
    """n keys for a U array `width` code points wide: ASCII of every length
    (0, full width with no NUL left, trailing and inner NULs), and keys past
    ASCII (2, 3 and 4 UTF-8 bytes) scattered, some at the batch's chunk
    edges (the extension narrows 256 rows at a time and looks them up 128
    at a time)."""
    rng = np.random.default_rng(seed)
    alphabet = "abcxyz019:-\x00"
    keys = []
    for i in range(n):
        length = [0, width, width - 1, int(rng.integers(0, width + 1))][i % 4]
        keys.append("".join(alphabet[j] for j in rng.integers(0, len(alphabet), size=length)))
    for at in (0, 127, 128, 129, 255, 256, 257, 383, 384, 511, 512, n // 2, n - 1):
        if width and at < n:
            wide = ("\u00e9", "\u4e2d", "\U0001f600", "\x7f")[at % 4]
            keys[at] = (keys[at][:width - 1] + wide)[-width:]
    return keys


@pytest.mark.parametrize("avx2", [True, False])
@pytest.mark.parametrize("width", [1, 7, 15, 16, 17, 31, 32, 33, 48, 64, 100])
def test_numpy_u_rows_across_chunks(snap, width, avx2):
    """Batches of U rows longer than a chunk (and than the GIL threshold),
    with each narrowing kernel (AVX2 hidden by the CPU mask: the SSE2 one):
    every key as placer_lookup gives it for the str NumPy holds."""
    keys = u_rows_mix(width, 1100, width)
    arr = np.array(keys, dtype="U%d" % width)
    expect = singles(snap, arr.tolist())
    lib = placer._lib.lib
    if not avx2:
        lib.placer_set_cpu_mask(ctypes.c_uint(~PLACER_CPU_AVX2 & 0xFFFFFFFF))
    try:
        assert snap.lookup_batch(arr).tolist() == expect
        assert snap.lookup_batch(arr.astype(">U%d" % width)).tolist() == expect
        assert snap.lookup_batch(arr[:300]).tolist() == expect[:300]  # under the GIL threshold
    finally:
        lib.placer_set_cpu_mask(ctypes.c_uint(0xFFFFFFFF))


def test_numpy_u_refusals_in_a_later_chunk(snap):
    """A refused code point in the middle of a batch that runs without the
    GIL: the same errors, and the snapshot answers afterwards."""
    keys = np.array(["key:%d" % i for i in range(2000)])
    bad = keys.copy()
    bad[1500] = "x\ud800y"
    with pytest.raises(UnicodeEncodeError) as e:
        snap.lookup_batch(bad)
    assert e.value.object[e.value.start] == "\ud800"
    codes = keys.copy().view(np.uint32).reshape(len(keys), -1)
    codes[700, 2] = 0x110000
    with pytest.raises(ValueError, match="past U\\+10FFFF"):
        snap.lookup_batch(codes.reshape(-1).view(keys.dtype))
    with pytest.raises(UnicodeEncodeError):
        snap.replicas_batch(bad, 2)
    assert snap.lookup_batch(keys).tolist() == singles(snap, keys.tolist())


def test_router_numpy_u_rows():
    """A router's batch of U and S rows (read a chunk at a time inside its
    read side) against its one-key lookups; a refused code point in a later
    chunk raises as a snapshot's batch does."""
    arr = np.array(u_rows_mix(32, 1100, 5), dtype="U32")
    router = placer.Router(placer.build(MEMBERSHIP))
    try:
        for keys in (arr, arr[:100], np.array([k.encode() for k in arr.tolist()], dtype="S128")):
            owners, node_ids, _ = router.lookup_batch(keys)
            assert [node_ids[o] for o in owners] == [router.lookup(k) for k in keys.tolist()]
        bad = arr.copy()
        bad[900] = "\udfff"
        with pytest.raises(UnicodeEncodeError):
            router.lookup_batch(bad)
        assert router.lookup_batch(arr[:3])[0].shape == (3,)
    finally:
        router.close()


def test_numpy_u_big_endian_abc(snap):
    arr = np.array(["abc", "caf\u00e9"], dtype=">U3")
    assert snap.lookup_batch(arr).tolist() == singles(snap, ["abc", "caf"])


def test_numpy_other_dtypes(snap):
    """Bytes of either (meaningless) order, objects, empty widths; numbers
    refused with the dtype named."""
    b = [k.encode() for k in STR_KEYS]
    for dt in ("S80", "|S80", "<S80", ">S80"):
        assert snap.lookup_batch(np.array(b, dtype=dt)).tolist() == singles(snap, b)
    assert snap.lookup_batch(np.array(STR_KEYS, dtype=object)).tolist() == singles(snap, STR_KEYS)
    for dt in ("U0", ">U0", "S0"):
        empty = np.zeros(3, dtype=dt)
        assert snap.lookup_batch(empty).tolist() == singles(snap, [""] * 3)
    for dt in ("<i4", ">i4", "f8", "c16", "?", "V4", ">u8", "M8[s]"):
        with pytest.raises(TypeError, match="array of str, bytes or objects"):
            snap.lookup_batch(np.zeros(3, dtype=dt))


def test_buffer_with_offsets(snap):
    keys = [k.encode() for k in STR_KEYS]
    data = b"PREFIX" + b"".join(keys)
    offsets = np.concatenate([[0], np.cumsum([len(k) for k in keys])]) + 6
    expect = singles(snap, keys)
    for buf in (data, bytearray(data), memoryview(data), np.frombuffer(data, np.uint8)):
        assert snap.lookup_batch(buf, offsets=offsets).tolist() == expect
        assert snap.lookup_batch(buf, offsets=list(map(int, offsets))).tolist() == expect
    assert snap.lookup_batch(b"", offsets=[0]).shape == (0,)


def test_buffer_offsets_refused(snap):
    with pytest.raises(placer.PlacerError) as e:
        snap.lookup_batch(b"abcdef", offsets=[0, 4, 2, 6])  # decreasing: the C call refuses
    assert e.value.name == "PLACER_EINVAL"
    with pytest.raises(placer.PlacerError) as e:
        snap.lookup_batch(b"abc", offsets=[0, 4])
    assert e.value.name == "PLACER_ERANGE"
    with pytest.raises(placer.PlacerError) as e:
        snap.lookup_batch(b"abc", offsets=[-1, 2])
    assert e.value.name == "PLACER_ERANGE"
    with pytest.raises(TypeError):
        snap.lookup_batch(b"abc", offsets=[0.0, 1.0])
    with pytest.raises(ValueError):
        snap.lookup_batch(memoryview(b"abcdef")[::2], offsets=[0, 1])


def test_pyarrow_arrays(snap):
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed here (no Debian 12 package)")
    keys = STR_KEYS
    expect = singles(snap, keys)
    for t in (pa.string(), pa.large_string()):
        assert snap.lookup_batch(pa.array(keys, type=t)).tolist() == expect
        assert snap.lookup_batch(pa.array(keys, type=t)[5:]).tolist() == expect[5:]
    assert snap.lookup_batch(pa.chunked_array([keys[:10], keys[10:]])).tolist() == expect
    with pytest.raises(ValueError):
        snap.lookup_batch(pa.array(["a", None]))


def test_replicas_batch(snap):
    arr = np.array([k.encode() for k in STR_KEYS], dtype="S80")
    for n in (1, 3, 8):
        got = snap.replicas_batch(arr, n)
        assert got.shape == (len(STR_KEYS), n) and got.dtype == np.int64
        for i, k in enumerate(arr.tolist()):
            ids = snap.replicas(k, n)
            row = got[i][got[i] >= 0]
            assert list(snap.node_ids[row]) == ids
    assert snap.replicas_batch(STR_KEYS, 3).tolist() == snap.replicas_batch(arr, 3).tolist()
    tiny = placer.build({"strategy": "ring", "nodes": [{"id": "a"}, {"id": "b"}]})
    two = tiny.replicas_batch(["x", "y"], 3)
    assert (two[:, 2] == -1).all() and (two[:, :2] >= 0).all()
    with pytest.raises(ValueError):
        snap.replicas_batch(["x"], 0)
    assert snap.replicas_batch([], 2).shape == (0, 2)


@pytest.mark.parametrize("strategy", ["partitions", "jump", "rendezvous", "maglev"])
def test_every_strategy(strategy):
    m = {k: v for k, v in MEMBERSHIP.items() if k != "vnodes"}
    m["strategy"] = strategy
    s = placer.build(m)
    keys = STR_KEYS
    assert s.lookup_batch(keys).tolist() == singles(s, keys)
    assert s.lookup_batch(np.array(keys)).tolist() == singles(s, keys)


@pytest.mark.parametrize("make", [list, np.array, lambda k: np.array(k, dtype=">U8"),
                                  lambda k: [b"bytes"] + k],
                         ids=["list", "U array", "big-endian U array", "mixed list"])
def test_refused_key_is_named(snap, make):
    """The UnicodeEncodeError of a key str.encode refuses is that key's own
    (its object the key, its start and end in the key), with the extension
    and through ctypes alike, for a snapshot and a router, as a single
    lookup's is."""
    bad = "ab\udc80c"
    keys = make(["ok:%d" % i for i in range(300)] + [bad, "zz"])
    with pytest.raises(UnicodeEncodeError) as single:
        snap.lookup(bad)
    assert (single.value.object, single.value.start, single.value.end) == (bad, 2, 3)
    router = placer.Router(placer.build(MEMBERSHIP))
    try:
        for call in (snap.lookup_batch, lambda k: snap.replicas_batch(k, 2),
                     router.lookup_batch):
            with pytest.raises(UnicodeEncodeError) as e:
                call(keys)
            assert (e.value.object, e.value.start, e.value.end) == (bad, 2, 3)
    finally:
        router.close()


def test_numpy_u_array_refusals(snap):
    """A U array's code points that str.encode refuses, on both paths:
    UnicodeEncodeError for a surrogate (as a list's str), ValueError past
    U+10FFFF."""
    bad = np.array(["ok"] * 300 + ["\ud800"])
    with pytest.raises(UnicodeEncodeError):
        snap.lookup_batch(bad)
    with pytest.raises(UnicodeEncodeError):
        snap.replicas_batch(bad, 2)
    huge = np.array(["ab"] * 3).view(np.uint32)
    huge[4] = 0x110000
    with pytest.raises(ValueError):
        snap.lookup_batch(huge.view("U2"))
