/*
 * buckets_body.h -- the lookups of buckets.h, written once and compiled per
 * instruction set. Before including, define PLC_BKT_ONE, PLC_BKT_BATCH,
 * PLC_BKT_KEY_BATCH, PLC_BKT_KEY_ONE (the function names), PLC_BKT_TREE_ONE
 * and PLC_BKT_TREE_BATCH (the same instruction set's S+ tree kernels, for
 * what a line cannot decide), PLC_HASH64_STEP (the crc32c step the fused
 * kernels hash with, as for hash64_v2_body.h), and provide
 *   static inline uint32_t bkt_rank(const plc_bkt_line *l, int16_t q);
 * returning #{suf[j] < q}.
 *
 * Batches are one pass: key i + AHEAD is hashed and its line prefetched
 * while key i is answered from its line, so AHEAD misses are in flight and
 * no h[] array is written and read back. Lengths are checked once per run
 * of RUN keys: a run of 16-, 32- or 64-byte keys takes a copy of the hash
 * with the length constant (32 bytes: bkt_hash32, the seed's terms hoisted
 * and the CRC lane on a 64-bit chain). Hashes a line cannot decide are
 * gathered and go down the tree together (its lockstep descent), SLOW at a
 * time. Optionally define PLC_HASH64_STEP64 (the step on a 64-bit chain,
 * where the hardware's result is already zero-extended).
 */
#include "buckets.h"
#include "hash64_v2_body.h"

#define AHEAD 32u /* a power of two: ring[i % AHEAD] */
#define RUN 64u
#define SLOW 32u

/* The hash's 16 bits below the line's, biased like the line's suffixes. */
static inline int16_t bkt_suffix(uint64_t h, uint32_t sshift)
{
    return (int16_t)((int32_t)((h >> sshift) & 0xFFFFu) - 0x8000);
}

/* The line's answer, or PLC_BKT_CROWDED when the tree must decide: a
 * crowded line, or a tie (suf[r], the first suffix >= q, equals q; r <= 15
 * as padding is never below q). No branch. */
static inline uint32_t bkt_line_owner(const plc_bkt_line *l, uint64_t h, uint32_t sshift)
{
    int16_t q = bkt_suffix(h, sshift);
    uint32_t r = bkt_rank(l, q);
    return l->own[r] | ((0u - (uint32_t)(l->suf[r] == q)) & PLC_BKT_CROWDED);
}

uint32_t PLC_BKT_ONE(const plc_bkt *k, uint64_t h)
{
    uint32_t o = bkt_line_owner(&k->line[h >> k->shift], h, k->sshift);
    if (__builtin_expect(o != PLC_BKT_CROWDED, 1))
        return o;
    return PLC_BKT_TREE_ONE(k->tree, h);
}

uint32_t PLC_BKT_KEY_ONE(const plc_bkt *k, uint64_t seed, const void *key, size_t len)
{
    return PLC_BKT_ONE(k, plc_hash64_v2_body(seed, key, len));
}

/* The hashes lines could not decide, and where their owners go. */
typedef struct bkt_slow {
    uint64_t h[SLOW];
    size_t at[SLOW];
    uint32_t n;
} bkt_slow;

static void bkt_slow_flush(const plc_bkt *k, bkt_slow *s, uint32_t *owners)
{
    uint32_t o[SLOW];
    PLC_BKT_TREE_BATCH(k->tree, s->h, s->n, o);
    for (uint32_t i = 0; i < s->n; i++)
        owners[s->at[i]] = o[i];
    s->n = 0;
}

/* The batches carry each hash rotated left by the line bits b: the line is
 * its low b bits and the suffix its top 16, so one variable shift (the
 * rotate) serves both, and the suffix is a constant shift. */
static inline uint64_t bkt_rot(uint64_t h, uint32_t bits)
{
    return h << bits | h >> (-bits & 63);
}

/* Answer query i, of rotated hash rot, from its line, or queue it for the
 * tree: a tie or a crowded line (under 1% of keys: predicted branches). */
static inline void bkt_resolve(const plc_bkt *k, const plc_bkt_line *line, uint64_t mask,
                               uint64_t rot, size_t i, uint32_t *owners, bkt_slow *s)
{
    const plc_bkt_line *l = &line[rot & mask];
    int16_t q = (int16_t)((int32_t)(rot >> 48) - 0x8000);
    uint32_t r = bkt_rank(l, q);
    uint32_t o = l->own[r];
    if (__builtin_expect(l->suf[r] != q && o != PLC_BKT_CROWDED, 1)) {
        owners[i] = o;
        return;
    }
    s->h[s->n] = rot >> k->bits | rot << (-k->bits & 63); /* the hash again */
    s->at[s->n] = i;
    if (++s->n == SLOW)
        bkt_slow_flush(k, s, owners);
}

void PLC_BKT_BATCH(const plc_bkt *k, const uint64_t *h, size_t n, uint32_t *owners)
{
    const plc_bkt_line *line = k->line;
    const uint32_t bits = k->bits, shift = k->shift;
    const uint64_t mask = ((uint64_t)1 << bits) - 1;
    bkt_slow s;
    s.n = 0;
    for (size_t i = 0; i < n && i < AHEAD; i++)
        __builtin_prefetch(&line[h[i] >> shift]);
    for (size_t i = 0; i < n; i++) {
        if (i + AHEAD < n)
            __builtin_prefetch(&line[h[i + AHEAD] >> shift]);
        bkt_resolve(k, line, mask, bkt_rot(h[i], bits), i, owners, &s);
    }
    if (s.n)
        bkt_slow_flush(k, &s, owners);
}

/* The crc32c step on a 64-bit chain: the hardware instruction's result is
 * already zero-extended, so no move truncates it between steps. */
#ifndef PLC_HASH64_STEP64
#define PLC_HASH64_STEP64(c, w) ((uint64_t)PLC_HASH64_STEP((uint32_t)(c), (w)))
#endif

/* placer-v2 of a 32-byte key (plc_hash64_v2_body with len 32, the same
 * words, pairs and result) with the seed's terms hoisted: a0 the CRC lane's
 * start, b0 the multiply lane's (seed ^ K0 ^ 32), sm the multiplier seed,
 * sk = sm ^ K1. */
static inline uint64_t bkt_hash32(const void *key, uint64_t a0, uint64_t b0, uint64_t sm,
                                  uint64_t sk)
{
    const unsigned char *p = key;
    uint64_t w0 = plc_load64le(p), w1 = plc_load64le(p + 8);
    uint64_t w2 = plc_load64le(p + 16), w3 = plc_load64le(p + 24);
    uint64_t a = PLC_HASH64_STEP64(PLC_HASH64_STEP64(a0, w0), w1);
    uint64_t x = w0 ^ b0, b = plc_mum_fold(x, w1 ^ sm) + x;
    a = PLC_HASH64_STEP64(PLC_HASH64_STEP64(a, w2), w3);
    x = w2 ^ b;
    b = plc_mum_fold(x, w3 ^ sm) + x;
    return plc_mum_fold(b, a ^ sk);
}

/* Keys j .. e-1, each hashed by HASH (of keys[j]): hash key j and prefetch
 * its line, answer key j - AHEAD (hashed AHEAD steps ago). The first AHEAD
 * keys of the batch only hash, in a loop of their own. */
#define BKT_RUN(HASH)                                                                \
    for (; j < e && j < AHEAD; j++) {                                                \
        uint64_t x = bkt_rot((HASH), bits);                                          \
        ring[j % AHEAD] = x;                                                         \
        __builtin_prefetch(&line[x & mask]);                                         \
    }                                                                                \
    for (; j < e; j++) {                                                             \
        uint64_t x = bkt_rot((HASH), bits);                                          \
        bkt_resolve(k, line, mask, ring[j % AHEAD], j - AHEAD, owners, &s);          \
        ring[j % AHEAD] = x;                                                         \
        __builtin_prefetch(&line[x & mask]);                                         \
    }

/* Keys j .. n-1 in runs of RUN keys, each run's lengths checked once: a run
 * of 16-, 32- or 64-byte keys takes a copy of the hash with the length
 * constant. */
#define BKT_RUNS(LOOP)                                                               \
    for (size_t j = 0; j < n;) {                                                     \
        size_t e = n - j < RUN ? n : j + RUN;                                        \
        size_t len0 = lens[j], diff = 0;                                             \
        for (size_t q = j; q < e; q++)                                               \
            diff |= lens[q] ^ len0;                                                  \
        if (!diff && len0 == 32) {                                                   \
            LOOP(bkt_hash32(keys[j], a0, b0, sm, sk))                                \
        } else if (!diff && len0 == 16) {                                            \
            LOOP(plc_hash64_v2_body(seed, keys[j], 16))                              \
        } else if (!diff && len0 == 64) {                                            \
            LOOP(plc_hash64_v2_body(seed, keys[j], 64))                              \
        } else {                                                                     \
            LOOP(plc_hash64_v2_body(seed, keys[j], lens[j]))                         \
        }                                                                            \
    }

void PLC_BKT_KEY_BATCH(const plc_bkt *k, uint64_t seed, const void *const *keys,
                       const size_t *lens, size_t n, uint32_t *owners)
{
    const plc_bkt_line *line = k->line;
    const uint32_t bits = k->bits;
    const uint64_t mask = ((uint64_t)1 << bits) - 1;
    const uint64_t sm = plc_hash64_v2_mult_seed(seed), sk = sm ^ PLC_H64_K1;
    const uint64_t a0 = (uint32_t)seed ^ (uint32_t)(seed >> 32), b0 = seed ^ PLC_H64_K0 ^ 32;
    bkt_slow s;
    s.n = 0;
    uint64_t ring[AHEAD];
    BKT_RUNS(BKT_RUN)
    for (size_t i = n > AHEAD ? n - AHEAD : 0; i < n; i++)
        bkt_resolve(k, line, mask, ring[i % AHEAD], i, owners, &s);
    if (s.n)
        bkt_slow_flush(k, &s, owners);
}

#undef BKT_RUN
#undef BKT_RUNS
#undef PLC_HASH64_STEP64
#undef AHEAD
#undef RUN
#undef SLOW
#undef PLC_BKT_ONE
#undef PLC_BKT_BATCH
#undef PLC_BKT_KEY_BATCH
#undef PLC_BKT_KEY_ONE
#undef PLC_BKT_TREE_ONE
#undef PLC_BKT_TREE_BATCH
