/* baselines.c -- see baselines.h. Plain code on purpose: the baselines are
 * what careful users write, not what placer does. */
#include "baselines.h"

#include <stdlib.h>
#include <string.h>

#include "crc32c.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

#define GROUP 16u

static uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    k *= UINT64_C(0xc4ceb9fe1a85ec53);
    k ^= k >> 33;
    return k;
}

#if HAVE_X86
__attribute__((target("sse4.2"))) static inline uint64_t hash_hw(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t c = 0xFFFFFFFFu;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        c = __builtin_ia32_crc32di(c, w);
    }
    uint32_t c32 = (uint32_t)c;
    for (; i < len; i++)
        c32 = __builtin_ia32_crc32qi(c32, p[i]);
    return fmix64((uint64_t)len << 32 | (uint32_t)~c32);
}
#endif

static inline uint64_t hash_sw(const void *key, size_t len)
{
    return fmix64((uint64_t)len << 32 | plc_crc32c_sw(0, key, len));
}

uint64_t base_hash(int isa, const void *key, size_t len)
{
#if HAVE_X86
    if (isa != BASE_SCALAR)
        return hash_hw(key, len);
#endif
    (void)isa;
    return hash_sw(key, len);
}

#if HAVE_X86
__attribute__((target("sse4.2"))) static void hash_batch_hw(const void *const *keys,
                                                           const size_t *lens, size_t n,
                                                           uint64_t *h)
{
    for (size_t i = 0; i < n; i++)
        h[i] = hash_hw(keys[i], lens[i]);
}
#endif

void base_hash_batch(int isa, const void *const *keys, const size_t *lens, size_t n, uint64_t *h)
{
#if HAVE_X86
    if (isa != BASE_SCALAR) {
        hash_batch_hw(keys, lens, n, h);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        h[i] = hash_sw(keys[i], lens[i]);
}

#if HAVE_X86
__attribute__((target("sse4.2"))) static inline uint64_t hash32_hw(const void *key)
{
    const unsigned char *p = key;
    uint64_t c = 0xFFFFFFFFu, w[4];
    memcpy(w, p, 32);
    for (int i = 0; i < 4; i++)
        c = __builtin_ia32_crc32di(c, w[i]);
    return fmix64((uint64_t)32 << 32 | (uint32_t)~c);
}

__attribute__((target("sse4.2"))) static void hash32_batch_hw(const void *const *keys, size_t n,
                                                             uint64_t *h)
{
    for (size_t i = 0; i < n; i++)
        h[i] = hash32_hw(keys[i]);
}

__attribute__((target("sse4.2"))) static void floor32_hw(const uint32_t *table, uint32_t bits,
                                                        const void *const *keys, size_t n,
                                                        uint32_t *owners)
{
    for (size_t i = 0; i < n; i++)
        owners[i] = table[hash32_hw(keys[i]) >> (64 - bits)];
}
#endif

void base_hash32_batch(int isa, const void *const *keys, size_t n, uint64_t *h)
{
#if HAVE_X86
    if (isa != BASE_SCALAR) {
        hash32_batch_hw(keys, n, h);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        h[i] = hash_sw(keys[i], 32);
}

void base_floor32_batch(int isa, const uint32_t *table, uint32_t bits, const void *const *keys,
                        size_t n, uint32_t *owners)
{
#if HAVE_X86
    if (isa != BASE_SCALAR) {
        floor32_hw(table, bits, keys, n, owners);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        owners[i] = table[hash_sw(keys[i], 32) >> (64 - bits)];
}

uint64_t base_hash32(int isa, const void *key)
{
#if HAVE_X86
    if (isa != BASE_SCALAR)
        return hash32_hw(key);
#endif
    (void)isa;
    return hash_sw(key, 32);
}

uint32_t base_floor32_one(int isa, const uint32_t *table, uint32_t bits, const void *key)
{
    return table[base_hash32(isa, key) >> (64 - bits)];
}

/* ---- the reference S+ tree ---------------------------------------------- */

static int64_t flip(uint64_t v)
{
    return (int64_t)(v ^ UINT64_C(0x8000000000000000));
}

void ref_stree_build(ref_stree *t, const uint64_t *tokens, const uint32_t *owners, uint32_t n)
{
    uint32_t count[REF_MAX_LEVELS], levels = 1;
    count[0] = (n + 7) / 8;
    while (count[levels - 1] > 1) {
        count[levels] = (count[levels - 1] + 8) / 9;
        levels++;
    }
    memset(t, 0, sizeof *t);
    t->n = n;
    t->owners = owners;
    t->nlevels = levels;
    /* count[0] is the leaves; t->level[0] the root. */
    int64_t *below_max = malloc((size_t)count[0] * sizeof *below_max);
    int64_t *leaves = aligned_alloc(64, (size_t)count[0] * 64);
    for (uint32_t j = 0; j < count[0]; j++) {
        for (uint32_t i = 0; i < 8; i++)
            leaves[8 * j + i] = 8 * j + i < n ? flip(tokens[8 * j + i]) : INT64_MAX;
        below_max[j] = flip(tokens[8 * j + 7 < n ? 8 * j + 7 : n - 1]);
    }
    t->level[levels - 1] = leaves;
    for (uint32_t l = 1; l < levels; l++) {
        uint32_t nodes = count[l], children = count[l - 1];
        int64_t *lev = aligned_alloc(64, (size_t)nodes * 64);
        int64_t *max = malloc((size_t)nodes * sizeof *max);
        for (uint32_t j = 0; j < nodes; j++) {
            for (uint32_t i = 0; i < 8; i++) {
                uint32_t c = 9 * j + i;
                lev[8 * j + i] = c + 1 < children ? below_max[c] : INT64_MAX;
            }
            uint32_t last = 9 * j + 8 < children ? 9 * j + 8 : children - 1;
            max[j] = below_max[last];
        }
        free(below_max);
        below_max = max;
        t->level[levels - 1 - l] = lev;
    }
    free(below_max);
}

static inline uint32_t rank8_scalar(const int64_t *k, int64_t x)
{
    uint32_t r = 0;
    for (int i = 0; i < 8; i++)
        r += k[i] < x;
    return r;
}

#if HAVE_X86
__attribute__((target("avx2"))) static inline uint32_t rank8_avx2(const int64_t *k, int64_t x)
{
    __m256i xv = _mm256_set1_epi64x(x);
    __m256i a = _mm256_cmpgt_epi64(xv, _mm256_load_si256((const __m256i *)k));
    __m256i b = _mm256_cmpgt_epi64(xv, _mm256_load_si256((const __m256i *)(k + 4)));
    uint32_t m = (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(a)) |
                 (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(b)) << 4;
    return (uint32_t)__builtin_popcount(m);
}
#endif

/* 16 queries down the tree in lockstep, prefetching each one's next node. */
#define REF_GROUP_BODY(RANK)                                                     \
    int64_t x[GROUP];                                                            \
    uint32_t k[GROUP];                                                           \
    for (uint32_t q = 0; q < g; q++) {                                           \
        x[q] = flip(h[q]);                                                       \
        k[q] = 0;                                                                \
    }                                                                            \
    for (uint32_t d = 0; d + 1 < t->nlevels; d++) {                              \
        const int64_t *lev = t->level[d], *next = t->level[d + 1];               \
        for (uint32_t q = 0; q < g; q++) {                                       \
            k[q] = k[q] * 9 + RANK(lev + 8 * (size_t)k[q], x[q]);                \
            __builtin_prefetch(next + 8 * (size_t)k[q]);                         \
        }                                                                        \
    }                                                                            \
    const int64_t *leaves = t->level[t->nlevels - 1];                            \
    for (uint32_t q = 0; q < g; q++) {                                           \
        uint32_t i = k[q] * 8 + RANK(leaves + 8 * (size_t)k[q], x[q]);           \
        owners[q] = t->owners[i < t->n ? i : 0];                                 \
    }

static void group_scalar(const ref_stree *t, const uint64_t *h, uint32_t g, uint32_t *owners)
{
    REF_GROUP_BODY(rank8_scalar)
}

#if HAVE_X86
__attribute__((target("avx2"))) static void group_avx2(const ref_stree *t, const uint64_t *h,
                                                      uint32_t g, uint32_t *owners)
{
    REF_GROUP_BODY(rank8_avx2)
}
#endif

void ref_stree_batch(int isa, const ref_stree *t, const uint64_t *h, size_t n, uint32_t *owners)
{
    for (size_t at = 0; at < n; at += GROUP) {
        uint32_t g = n - at < GROUP ? (uint32_t)(n - at) : GROUP;
#if HAVE_X86
        if (isa == BASE_AVX2) {
            group_avx2(t, h + at, g, owners + at);
            continue;
        }
#endif
        (void)isa;
        group_scalar(t, h + at, g, owners + at);
    }
}

void base_floor_batch(const uint32_t *table, uint32_t size, const uint64_t *h, size_t n,
                      uint32_t *owners)
{
    for (size_t i = 0; i < n; i++)
        owners[i] = table[(size_t)(((unsigned __int128)h[i] * size) >> 64)];
}
