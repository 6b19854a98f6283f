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
 * with the length constant. Hashes a line cannot decide are gathered and
 * go down the tree together (its lockstep descent), SLOW at a time.
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

/* Answer hash h of query i from its line, or queue it for the tree. */
static inline void bkt_resolve(const plc_bkt *k, const plc_bkt_line *line, uint32_t shift,
                               uint32_t sshift, uint64_t h, size_t i, uint32_t *owners,
                               bkt_slow *s)
{
    uint32_t o = bkt_line_owner(&line[h >> shift], h, sshift);
    owners[i] = o;
    if (__builtin_expect(o == PLC_BKT_CROWDED, 0)) { /* under 1% of keys: predicted */
        s->h[s->n] = h;
        s->at[s->n] = i;
        if (++s->n == SLOW)
            bkt_slow_flush(k, s, owners);
    }
}

void PLC_BKT_BATCH(const plc_bkt *k, const uint64_t *h, size_t n, uint32_t *owners)
{
    const plc_bkt_line *line = k->line;
    const uint32_t shift = k->shift, sshift = k->sshift;
    bkt_slow s;
    s.n = 0;
    for (size_t i = 0; i < n && i < AHEAD; i++)
        __builtin_prefetch(&line[h[i] >> shift]);
    for (size_t i = 0; i < n; i++) {
        if (i + AHEAD < n)
            __builtin_prefetch(&line[h[i + AHEAD] >> shift]);
        bkt_resolve(k, line, shift, sshift, h[i], i, owners, &s);
    }
    if (s.n)
        bkt_slow_flush(k, &s, owners);
}

/* Keys j .. e-1, each hashed with length LEN: hash key j, answer key
 * j - AHEAD (hashed AHEAD steps ago, its line prefetched then). */
#define BKT_RUN(LEN)                                                                 \
    for (; j < e; j++) {                                                             \
        uint64_t x = plc_hash64_v2_body(seed, keys[j], (LEN));                       \
        if (j >= AHEAD)                                                              \
            bkt_resolve(k, line, shift, sshift, ring[j % AHEAD], j - AHEAD, owners, &s); \
        ring[j % AHEAD] = x;                                                         \
        __builtin_prefetch(&line[x >> shift]);                                       \
    }

void PLC_BKT_KEY_BATCH(const plc_bkt *k, uint64_t seed, const void *const *keys,
                       const size_t *lens, size_t n, uint32_t *owners)
{
    const plc_bkt_line *line = k->line;
    const uint32_t shift = k->shift, sshift = k->sshift;
    uint64_t ring[AHEAD];
    bkt_slow s;
    s.n = 0;
    for (size_t j = 0; j < n;) {
        size_t e = n - j < RUN ? n : j + RUN;
        size_t len0 = lens[j], diff = 0;
        for (size_t q = j; q < e; q++)
            diff |= lens[q] ^ len0;
        if (!diff && len0 == 32) {
            BKT_RUN(32)
        } else if (!diff && len0 == 16) {
            BKT_RUN(16)
        } else if (!diff && len0 == 64) {
            BKT_RUN(64)
        } else {
            BKT_RUN(lens[j])
        }
    }
    for (size_t i = n > AHEAD ? n - AHEAD : 0; i < n; i++)
        bkt_resolve(k, line, shift, sshift, ring[i % AHEAD], i, owners, &s);
    if (s.n)
        bkt_slow_flush(k, &s, owners);
}

#undef BKT_RUN
#undef AHEAD
#undef RUN
#undef SLOW
#undef PLC_BKT_ONE
#undef PLC_BKT_BATCH
#undef PLC_BKT_KEY_BATCH
#undef PLC_BKT_KEY_ONE
#undef PLC_BKT_TREE_ONE
#undef PLC_BKT_TREE_BATCH
