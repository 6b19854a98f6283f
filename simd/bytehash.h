/*
 * bytehash.h -- the programs' byte-serial key hashes (sdbm, djb2, the
 * FNVs, one-at-a-time, wt6) and three word hashes (murmur, lookup3, hsieh) across
 * keys: 16 keys of one length at a time, eight per AVX2 register and two
 * registers in flight. The byte hashes step one byte at a time through a
 * multiply or a shift chain, so a single key is bound by that chain's
 * latency; 16 chains in SIMD lanes turn it into throughput (measured on
 * Zen 3: two registers beat one, and three or four, whose state and words
 * no longer fit the 16 registers). Same bits as engine/compat_hash.c
 * (tests/test_compat_index.c checks every length 16..256).
 */
#ifndef PLC_SIMD_BYTEHASH_H
#define PLC_SIMD_BYTEHASH_H

#include <stddef.h>
#include <stdint.h>

#define PLC_BYTEHASH_LANES 16u
#define PLC_BYTEHASH_MIN_LEN 16u /* a key's first 16 bytes are read as one row */
#define PLC_BYTEHASH_MAX_LEN 256u /* the word hashes keep a key's words on the stack */

/* Which hash (the ids are simd/'s own; the engine maps its key hash ids). */
enum {
    PLC_BH_SDBM = 1,   /* haproxy sdbm: unsigned bytes */
    PLC_BH_DJB2,       /* haproxy djb2: unsigned bytes */
    PLC_BH_FNV1A_32,   /* libhashkit / twemproxy fnv1a_32: signed bytes */
    PLC_BH_FNV1_32,    /* fnv1_32: signed bytes */
    PLC_BH_FNV1A_64_32,/* twemproxy fnv1a_64: 32-bit arithmetic, signed bytes */
    PLC_BH_OAAT,       /* one_at_a_time: signed bytes */
    PLC_BH_MURMUR,     /* libhashkit / twemproxy murmur (MurmurHash2, 4-byte words) */
    PLC_BH_JENKINS,    /* lookup3 hashlittle, initval 13 (12-byte blocks) */
    PLC_BH_FNV1_64,    /* libhashkit / twemproxy fnv1_64 (its low 32 bits): signed bytes */
    PLC_BH_WT6,        /* haproxy wt6: unsigned bytes */
    PLC_BH_HSIEH,      /* libhashkit / twemproxy hsieh (4-byte words) */
};

/* out[i] = hash of keys[i] (len bytes each, PLC_BYTEHASH_MIN_LEN <= len <=
 * PLC_BYTEHASH_MAX_LEN)
 * for i < n <= PLC_BYTEHASH_LANES. */
typedef void (*plc_bytehash_fn)(const void *const *keys, size_t len, size_t n, uint32_t *out);

#if defined(PLC_HAVE_AVX2)
/* The AVX2 kernel of `which`; NULL for an unknown id. */
plc_bytehash_fn plc_bytehash_avx2(int which);
#endif

#if defined(PLC_HAVE_AVX512)
/* The AVX-512 (VL) kernel of `which` where AVX-512 shortens it (wt6);
 * NULL otherwise: the AVX2 kernel is then the one to use. */
plc_bytehash_fn plc_bytehash_avx512(int which);
#endif

#endif
