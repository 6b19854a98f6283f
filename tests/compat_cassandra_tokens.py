#!/usr/bin/env python3
"""tests/compat_cassandra_tokens.py LIBPLACER -- placer_cassandra_token
against the DataStax Python driver (Debian's python3-cassandra), key for
key: random bytes of every tail length, UTF-8 text, ints, bigints and
uuids serialized by the driver's own types, and composite keys packed by
the driver's routing-key code (placer_cassandra_key_compose). The empty
key: CQL refuses it and placer says so; the partitioner's MINIMUM token
(Long.MIN_VALUE) is what placer_cassandra_partitioner_token gives, where
the driver gives 0 (docs/COMPAT.md). The driver's C murmur3 reads bytes as
`char`, right only where char is signed (x86-64): elsewhere this test
skips (exit 77) and tests/test_cassandra_token.c's recorded vectors stand."""
import ctypes
import platform
import random
import sys
import uuid

from cli_checks import check, done  # the tests' shared counting check

if platform.machine() not in ("x86_64", "AMD64"):
    print("SKIP: the driver's C murmur3 is right only on x86-64")
    sys.exit(77)

from cassandra import cqltypes  # noqa: E402  (python3-cassandra: scripts/setup.sh)
from cassandra.metadata import Murmur3Token  # noqa: E402
from cassandra.query import SimpleStatement  # noqa: E402

lib = ctypes.CDLL(sys.argv[1])
lib.placer_cassandra_token.restype = ctypes.c_int
lib.placer_cassandra_token.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int64)]
lib.placer_cassandra_partitioner_token.restype = ctypes.c_int64
lib.placer_cassandra_partitioner_token.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
lib.placer_cassandra_key_compose.restype = ctypes.c_int
lib.placer_cassandra_key_compose.argtypes = [
    ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_size_t), ctypes.c_size_t,
    ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]
EINVAL = -10


def token(key):
    out = ctypes.c_int64()
    err = lib.placer_cassandra_token(key, len(key), ctypes.byref(out))
    return err, out.value


def compose(parts):
    n = len(parts)
    arr = (ctypes.c_char_p * n)(*parts)
    lens = (ctypes.c_size_t * n)(*[len(p) for p in parts])
    need = ctypes.c_size_t()
    err = lib.placer_cassandra_key_compose(arr, lens, n, None, 0, ctypes.byref(need))
    check(err == EINVAL or need.value == 0, f"compose {parts!r}: no room must be EINVAL")
    buf = ctypes.create_string_buffer(max(need.value, 1))
    err = lib.placer_cassandra_key_compose(arr, lens, n, buf, need.value, ctypes.byref(need))
    return err, buf.raw[:need.value]


rng = random.Random(2026)
keys = []
for i in range(2200):  # every tail length (len % 16) many times, high bytes included
    keys.append(bytes(rng.randrange(256) for _ in range(1 + i % 70)))
keys += [text.encode() for text in ["ключ", "鍵", "user:42"] + ["clé-%d" % i for i in range(200)]]
keys += [cqltypes.Int32Type.serialize(v, 4) for v in (0, 1, -1, 2**31 - 1, -2**31, 42)]
keys += [cqltypes.LongType.serialize(v, 4) for v in (0, 1, -1, 2**63 - 1, -2**63, 10**12)]
keys += [cqltypes.UUIDType.serialize(uuid.UUID(int=rng.getrandbits(128)), 4) for _ in range(100)]
for k in keys:
    err, t = token(k)
    want = Murmur3Token.from_key(k).value
    check(err == 0 and t == want, f"token of {k!r}: {err} {t}, driver {want}")
    check(lib.placer_cassandra_partitioner_token(k, len(k)) == want, f"partitioner token of {k!r}")

# composite partition keys: the driver's routing key (Statement._key_parts_packed)
for i in range(300):
    parts = [bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40))) for _ in range(2 + i % 3)]
    st = SimpleStatement("SELECT 1")
    st.routing_key = parts
    err, key = compose(parts)
    check(err == 0 and key == st.routing_key, f"composite {parts!r}")
    check(token(key)[1] == Murmur3Token.from_key(st.routing_key).value, f"composite token {parts!r}")
err, key = compose([b"only"])
check(err == 0 and key == b"only", "one column is its bytes as they are")
err, _ = compose([b"x" * 65536, b"y"])
check(err == EINVAL, "a composite column past 65,535 bytes is refused")

# the empty key
check(token(b"")[0] == EINVAL, "an empty partition key is refused")
check(lib.placer_cassandra_partitioner_token(b"", 0) == -2**63, "the empty key's token is MINIMUM")
check(Murmur3Token.from_key(b"").value == 0, "the driver's token of the empty key (documented) is 0")

done("compat_cassandra_tokens", "%d keys, 300 composite keys: " % len(keys))
