/*
 * buckets_body.h -- the lookups of buckets.h, written once and compiled per
 * instruction set. Before including, define PLC_BKT_ONE, PLC_BKT_BATCH,
 * PLC_BKT_KEY_BATCH, PLC_BKT_KEY_ONE, PLC_BKT_INDEX (the function names),
 * PLC_BKT_TREE_ONE, PLC_BKT_TREE_BATCH and PLC_BKT_TREE_INDEX (the same
 * instruction set's S+ tree kernels, for
 * what a line cannot decide), PLC_HASH64_STEP (the crc32c step the fused
 * kernels hash with, as for hash64_v2_body.h), and provide
 *   static inline uint32_t bkt_rank(const plc_bkt_line *l, int16_t q);
 *   static inline size_t bkt_rank_bytes(const plc_bkt_line *l, int16_t q);
 * returning #{suf[j] < q} and twice that (its byte offset in suf[], own[]).
 *
 * Batches of hashes prefetch each line AHEAD hashes before reading it. The
 * key batch is one fused pass in blocks of AHEAD keys (each block's keys
 * checked before it is hashed; see PLC_BKT_KEY_BATCH): while block i is
 * answered from its lines, block i + 1 is hashed and its lines prefetched,
 * slot by slot, so AHEAD misses are in flight, the hash's multiplies and
 * CRCs run beside the lines' compares, and no hash is written and read
 * back (the ring holds each key's line and suffix). When a block's lengths
 * are equal, it takes a copy of the hash with the length constant (32
 * bytes: bkt_hash32, the seed's terms hoisted and the CRC lane on a 64-bit
 * chain). Keys a line cannot decide
 * are gathered and go down the tree together (its lockstep descent), SLOW
 * at a time, hashed again. Optionally define PLC_HASH64_STEP64 (the step
 * on a 64-bit chain, where the hardware's result is already
 * zero-extended).
 */
#include <stddef.h>
#include <string.h>

#include "buckets.h"
#include "hash64_v2_body.h"

#define AHEAD 32u /* keys a block; a line is read about AHEAD keys after its prefetch */
#define SLOW 32u

/* The hash's 16 bits below the line's, biased like the line's suffixes. */
static inline int16_t bkt_suffix(uint64_t h, uint32_t sshift)
{
    return plc_bkt_suffix(h, sshift);
}

/* The line's answer, or PLC_BKT_ASK_TREE when the tree must decide: a
 * crowded line, node 65,535 (buckets.h), or a tie (suf[r], the first suffix >= q, equals q; r <= 15
 * as padding is never below q). No branch. */
static inline uint32_t bkt_line_owner(const plc_bkt_line *l, uint64_t h, uint32_t sshift)
{
    int16_t q = bkt_suffix(h, sshift);
    uint32_t r = bkt_rank(l, q);
    return l->own[r] | ((0u - (uint32_t)(l->suf[r] == q)) & PLC_BKT_ASK_TREE);
}

uint32_t PLC_BKT_ONE(const plc_bkt *k, uint64_t h)
{
    uint32_t o = bkt_line_owner(&k->line[h >> k->shift], h, k->sshift);
    if (__builtin_expect(o != PLC_BKT_ASK_TREE, 1))
        return o;
    return PLC_BKT_TREE_ONE(k->tree, h);
}

uint32_t PLC_BKT_KEY_ONE(const plc_bkt *k, uint64_t seed, const void *key, size_t len)
{
    return PLC_BKT_ONE(k, plc_hash64_v2_body(seed, key, len));
}

/* The token h's lookup stops at: r tokens of the line are below h, so it
 * is the line's base + r (the next line's first token when r is the
 * line's count, past the last token the wrap to 0). What the line cannot
 * decide (a tie, a crowded line, node 65,535's lanes) takes the tree. */
uint32_t PLC_BKT_INDEX(const plc_bkt *k, uint64_t h)
{
    uint64_t at = h >> k->shift;
    const plc_bkt_line *l = &k->line[at];
    int16_t q = bkt_suffix(h, k->sshift);
    uint32_t r = bkt_rank(l, q);
    if (__builtin_expect(l->suf[r] != q && l->own[r] != PLC_BKT_ASK_TREE, 1)) {
        uint32_t i = k->base[at] + r;
        return i == k->tree->n ? 0 : i;
    }
    return PLC_BKT_TREE_INDEX(k->tree, h);
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
    if (__builtin_expect(l->suf[r] != q && o != PLC_BKT_ASK_TREE, 1)) {
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

/* The fused batch's constants: the lines, and placer-v2's seed terms for a
 * 32-byte key hoisted: b0 the multiply lane's start (seed ^ K0 ^ 32), sm
 * the multiplier seed, and sk32 = sm ^ K1 ^ crc4(a0): the CRC lane is
 * linear (no pre- or post-inversion: crc(x ^ y, v ^ w) = crc(x, v) ^
 * crc(y, w)), so the lane starts from 0 and its start a0's part, four
 * steps of zero words from a0, is folded into the final term once a
 * batch. One register less in the loop, the same bits. */
typedef struct bkt_ctx {
    const plc_bkt_line *line;
    uint64_t seed, b0, sm, sk32;
    uint32_t sshift; /* 48 - b, as the lines keep it */
} bkt_ctx;

/* placer-v2 of a 32-byte key (plc_hash64_v2_body with len 32, the same
 * words, pairs and result), with the seed's terms as bkt_ctx holds them. */
static inline uint64_t bkt_hash32(const void *key, uint64_t b0, uint64_t sm, uint64_t sk32)
{
    const unsigned char *p = key;
    uint64_t w0 = plc_load64le(p), w1 = plc_load64le(p + 8);
    uint64_t w2 = plc_load64le(p + 16), w3 = plc_load64le(p + 24);
    uint64_t a = PLC_HASH64_STEP64(PLC_HASH64_STEP64(0, w0), w1);
    uint64_t x = w0 ^ b0, b = plc_mum_fold(x, w1 ^ sm) + x;
    a = PLC_HASH64_STEP64(PLC_HASH64_STEP64(a, w2), w3);
    x = w2 ^ b;
    b = plc_mum_fold(x, w3 ^ sm) + x;
    return plc_mum_fold(b, a ^ sk32);
}

/* A block of up to AHEAD keys on its way: each key's line (prefetched when
 * the key was hashed) and suffix. No hash is kept: the few keys a line
 * cannot decide are hashed again for the tree. */
typedef struct bkt_ring {
    const plc_bkt_line *l[AHEAD];
    int16_t q[AHEAD];
} bkt_ring;

/* The lines and the shift of a block's staging, in registers: the
 * project builds with -fno-strict-aliasing, so every field read through a
 * pointer would be read again after each store to the ring. */
typedef struct bkt_where {
    const plc_bkt_line *line;
    uint32_t sshift; /* 48 - b */
} bkt_where;

/* Where hash h goes: its line (h >> (64 - b)) and suffix, into slot t, and
 * the line prefetched. One variable shift gives both, the line bits above
 * the suffix's 16 (shrx with BMI2, a shift by cl otherwise): no mask and
 * no second variable shift. */
static inline void bkt_stage(bkt_where w, uint64_t h, bkt_ring *r, size_t t)
{
    uint64_t v = h >> w.sshift;
    const plc_bkt_line *l = w.line + (v >> 16);
    r->q[t] = (int16_t)(uint16_t)(v ^ 0x8000);
    r->l[t] = l;
    __builtin_prefetch(l);
}

static inline bkt_where bkt_where_of(const bkt_ctx *c)
{
    bkt_where w = {c->line, c->sshift};
    return w;
}

/* One batch call: what the slow path needs, and the keys it queued. */
typedef struct bkt_job {
    const plc_bkt *k;
    const void *const *keys;
    const size_t *lens;
    uint32_t *owners;
    uint64_t seed;
    uint32_t nslow;
    size_t slow[SLOW]; /* keys the lines could not decide, by place */
} bkt_job;

/* The queued keys down the tree together (its lockstep descent), hashed
 * again. */
static void bkt_slow_flush_keys(bkt_job *j)
{
    uint64_t h[SLOW];
    uint32_t o[SLOW];
    for (uint32_t i = 0; i < j->nslow; i++)
        h[i] = plc_hash64_v2_body(j->seed, j->keys[j->slow[i]], j->lens[j->slow[i]]);
    PLC_BKT_TREE_BATCH(j->k->tree, h, j->nslow, o);
    for (uint32_t i = 0; i < j->nslow; i++)
        j->owners[j->slow[i]] = o[i];
    j->nslow = 0;
}

/* Out of line: the fused loops keep their registers for the common case. */
__attribute__((noinline)) static void bkt_slow_push(bkt_job *j, size_t i)
{
    j->slow[j->nslow] = i;
    if (++j->nslow == SLOW)
        bkt_slow_flush_keys(j);
}

/* Answer key i (out: its owner) of suffix q from its line l, or queue it
 * for the tree: a tie or a crowded line (under 1% of keys: predicted
 * branches). The rank comes as a byte offset (bkt_rank_bytes: 2r), and the
 * owner and the tie's suffix are read at it. */
static inline void bkt_answer_one(bkt_job *j, const plc_bkt_line *l, int16_t q, size_t i,
                                  uint32_t *out)
{
    const unsigned char *b = (const unsigned char *)l;
    size_t off = bkt_rank_bytes(l, q);
    uint16_t o;
    int16_t sq;
    memcpy(&o, b + offsetof(plc_bkt_line, own) + off, 2);
    memcpy(&sq, b + off, 2);
    if (__builtin_expect(sq != q && o != PLC_BKT_ASK_TREE, 1))
        *out = o;
    else
        bkt_slow_push(j, i);
}

/* One step of the fused loop: answer the m keys at `at` from r, slot by
 * slot, and hash the nm <= m keys of the next block (at + AHEAD) into the
 * slots as they free, prefetching their lines: each line is read about
 * AHEAD keys after its prefetch, and the hash's multiplies and CRCs run
 * beside the line's compare. HASH is the hash of hk[t], key t of the next
 * block. */
#if defined(__clang__)
#define BKT_UNROLL2 _Pragma("clang loop unroll_count(2)")
#else
#define BKT_UNROLL2 _Pragma("GCC unroll 2")
#endif
/* Slot t: its line and suffix out, key t of the next block staged in. */
#define BKT_SLOT(HASH)                                                               \
    do {                                                                             \
        const plc_bkt_line *l_ = r->l[t];                                            \
        int16_t q_ = r->q[t];                                                        \
        bkt_stage(w, (HASH), r, t);                                                  \
        bkt_answer_one(j, l_, q_, at + t, out + t);                                  \
    } while (0)
#define BKT_STEP(HASH)                                                               \
    do {                                                                             \
        const void *const *hk = j->keys + at + AHEAD;                                \
        uint32_t *out = j->owners + at;                                              \
        size_t t = 0;                                                                \
        BKT_UNROLL2                                                                  \
        for (; t < nm; t++)                                                          \
            BKT_SLOT(HASH);                                                          \
        for (; t < m; t++)                                                           \
            bkt_answer_one(j, r->l[t], r->q[t], at + t, out + t);                    \
    } while (0)
/* Both blocks full: two slots an iteration (GCC does not unroll a loop
 * of constant trip count here). */
#define BKT_STEP_FULL(HASH)                                                          \
    do {                                                                             \
        const void *const *hk = j->keys + at + AHEAD;                                \
        uint32_t *out = j->owners + at;                                              \
        for (size_t t2 = 0; t2 < AHEAD; t2 += 2) {                                   \
            {                                                                        \
                size_t t = t2;                                                       \
                BKT_SLOT(HASH);                                                      \
            }                                                                        \
            {                                                                        \
                size_t t = t2 + 1;                                                   \
                BKT_SLOT(HASH);                                                      \
            }                                                                        \
        }                                                                            \
    } while (0)

/* The m keys at `at`: BKT_NULL_KEY if one is NULL with a length (the
 * batch fails), else every one's length if they are equal, else SIZE_MAX.
 * Branch-free over the block, so it vectorises; the lengths of NULL keys
 * are looked at only when there is one. */
#define BKT_NULL_KEY (SIZE_MAX - 1)
static int bkt_null_key(const void *const *keys, const size_t *lens, size_t at, size_t m)
{
    for (size_t i = at; i < at + m; i++)
        if (!keys[i] && lens[i])
            return 1;
    return 0;
}

static size_t bkt_block_len(const void *const *keys, const size_t *lens, size_t at, size_t m)
{
    size_t len = lens[at], d = 0;
    uintptr_t null = 0;
    for (size_t i = at; i < at + m; i++) {
        d |= lens[i] ^ len;
        null |= (uintptr_t)keys[i] == 0;
    }
    if (__builtin_expect(null != 0, 0) && bkt_null_key(keys, lens, at, m))
        return BKT_NULL_KEY;
    return d ? SIZE_MAX : len;
}

/* Steps while the block at `at` and the next one are full and the next
 * one's keys all have 32 bytes (the caller checked the first pair), and
 * returns the first block it did not step (still to answer). Out of line:
 * its own registers for the loop invariants and the hash's temporaries,
 * none taken by the batch's set-up around it, and one call for the run of
 * blocks instead of one a block (with both blocks full, the trip count is
 * a constant: 0.05-0.1x the floor less than a call a block on Zen 5). */
__attribute__((noinline)) static size_t bkt_run_32(bkt_job *j, const bkt_ctx *c, bkt_ring *r,
                                                   size_t at, size_t n)
{
    const bkt_where w = bkt_where_of(c);
    const uint64_t b0 = c->b0, sm = c->sm, sk32 = c->sk32;
    for (;;) {
        BKT_STEP_FULL(bkt_hash32(hk[t], b0, sm, sk32));
        at += AHEAD;
        if (at + 2 * AHEAD > n || bkt_block_len(j->keys, j->lens, at + AHEAD, AHEAD) != 32)
            return at;
    }
}

static void bkt_step_len(bkt_job *j, const bkt_ctx *c, bkt_ring *r, size_t at, size_t m,
                         size_t nm, size_t len)
{
    const bkt_where w = bkt_where_of(c);
    const uint64_t seed = c->seed;
    const size_t *hl = j->lens + at + AHEAD;
    if (len == 32)
        BKT_STEP(bkt_hash32(hk[t], c->b0, c->sm, c->sk32));
    else if (len == 16)
        BKT_STEP(plc_hash64_v2_body(seed, hk[t], 16));
    else if (len == 64)
        BKT_STEP(plc_hash64_v2_body(seed, hk[t], 64));
    else
        BKT_STEP(plc_hash64_v2_body(seed, hk[t], hl[t]));
}

/* One fused pass, in blocks of AHEAD keys: while block i is answered from
 * its lines, block i + 1 is hashed and its lines prefetched (the first
 * block is hashed alone, the last answered alone). Each block's lengths
 * and pointers are read once, before its keys are hashed: a NULL key with
 * a length fails the batch, and when the lengths are equal (fixed-size
 * keys, the usual case) the block takes the copy of the hash with that
 * length constant (32 bytes: bkt_hash32).
 *
 * A failed batch writes no owner. A batch of up to BKT_BUFFERED keys is
 * answered into the stack and copied out once all its keys are checked,
 * so the checks ride in the pass; a larger one checks its pointers first,
 * in a pass of their own (vectorised, but a stream of keys past the caches
 * has nothing to overlap it with: 0.1-0.15x the floor at 120 x 256 on
 * Zen 5, bench/RESULTS.md's table of 2026-12-02). */
#define BKT_BUFFERED 1024u
int PLC_BKT_KEY_BATCH(const plc_bkt *k, uint64_t seed, const void *const *keys,
                      const size_t *lens, size_t n, uint32_t *owners)
{
    if (!n)
        return 0;
    uint32_t buffer[BKT_BUFFERED];
    uint32_t *dst = buffer;
    if (n > BKT_BUFFERED) {
        uintptr_t null = 0;
        for (size_t i = 0; i < n; i++)
            null |= (uintptr_t)keys[i] == 0;
        if (null && bkt_null_key(keys, lens, 0, n))
            return -1;
        dst = owners;
    }
    bkt_ctx c;
    c.line = k->line;
    c.sshift = k->sshift;
    c.seed = seed;
    c.sm = plc_hash64_v2_mult_seed(seed);
    uint64_t a0 = (uint32_t)seed ^ (uint32_t)(seed >> 32);
    for (int i = 0; i < 4; i++)
        a0 = PLC_HASH64_STEP64(a0, 0);
    c.sk32 = c.sm ^ PLC_H64_K1 ^ a0;
    c.b0 = seed ^ PLC_H64_K0 ^ 32;
    bkt_job j;
    j.k = k;
    j.keys = keys;
    j.lens = lens;
    j.owners = dst;
    j.seed = seed;
    j.nslow = 0;
    bkt_ring ring;
    {
        size_t m = n < AHEAD ? n : AHEAD, bl = bkt_block_len(keys, lens, 0, m);
        if (bl == BKT_NULL_KEY)
            return -1;
        const bkt_where w = bkt_where_of(&c);
        for (size_t t = 0; t < m; t++)
            bkt_stage(w, plc_hash64_v2_body(seed, keys[t], bl == SIZE_MAX ? lens[t] : bl), &ring,
                      t);
    }
    for (size_t at = 0; at < n;) {
        size_t m = n - at < AHEAD ? n - at : AHEAD, next = at + AHEAD;
        size_t nm = next < n ? (n - next < AHEAD ? n - next : AHEAD) : 0;
        size_t bl = nm ? bkt_block_len(keys, lens, next, nm) : SIZE_MAX;
        if (bl == BKT_NULL_KEY)
            return -1; /* before any owner is out of the buffer */
        if (bl == 32 && m == AHEAD && nm == AHEAD) {
            at = bkt_run_32(&j, &c, &ring, at, n);
            continue;
        }
        bkt_step_len(&j, &c, &ring, at, m, nm, bl);
        at = next;
    }
    if (j.nslow)
        bkt_slow_flush_keys(&j);
    if (dst != owners)
        memcpy(owners, dst, n * sizeof *owners);
    return 0;
}

#include "buckets_sets_body.h"

#undef BKT_BUFFERED
#undef BKT_NULL_KEY
#undef PLC_HASH64_STEP64
#undef AHEAD
#undef SLOW
#undef PLC_BKT_ONE
#undef PLC_BKT_BATCH
#undef PLC_BKT_KEY_BATCH
#undef PLC_BKT_KEY_ONE
#undef PLC_BKT_INDEX
#undef PLC_BKT_TREE_ONE
#undef PLC_BKT_TREE_BATCH
#undef PLC_BKT_TREE_INDEX
