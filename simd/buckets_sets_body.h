/*
 * buckets_sets_body.h -- replica sets read from the line table and the
 * compact line sets beside it (engine/core/replica_lines.c), hashing with
 * placer-v2 in the same pass: included by buckets_body.h, whose rank,
 * hash and block helpers it uses, once per instruction set. Define
 * PLC_BKT_KEY_SET and PLC_BKT_KEY_SETS (the function names) before.
 *
 * Line i's sets are the 16 bytes at sets[16 * i]: for the rank r a hash
 * gets in its line, byte r = a | b << 4 names the lanes of the line whose
 * owners are the set's second and third nodes (or, naming lane r or one
 * lane twice, spilled nodes in the same 16 bytes: plc_bkt_set_write),
 * 0xFF where the line
 * cannot answer; the set is own[r], own[a], own[b], all from the line
 * already read for the rank. A set is answered when the hash does not tie a
 * suffix and the byte is not 0xFF (a crowded line's rank is 0, its byte 0
 * 0xFF; a set led by node 65,535 has 0xFF). The line and the byte are
 * both addressed by the hash, so they are fetched together: no second,
 * dependent miss. The single key leaves every other key to the caller
 * (its count 0), who takes the exact per-slot sets or the walk.
 *
 * The batch is one pass like the lookup batch's: key i + SAHEAD is hashed
 * and its line and byte prefetched while key i is answered, each block's
 * keys checked before it is hashed (into the stack up to SBUFFERED keys).
 * The keys its lines cannot answer take their per-slot sets (job->rep) at
 * a slot found without the tree's descent, SPEND keys at a time
 * (bkt_sets_flush): the line's first-token index and the rank, or in a
 * crowded line of up to PLC_BKT_CROWD_MAX tokens its first-token index and
 * the count of its tokens below the hash, read from the tree's leaves (the
 * line's tokens in a row), only the at most 3 that the suffixes of its
 * every fourth token in its line sets leave (bkt_crowded_span); the tree
 * finds the rest (ties, lines past PLC_BKT_CROWD_MAX tokens, about 1 key
 * in 7,000 at 4,096 x 256).
 */

#ifndef SAHEAD
#define SAHEAD 48u /* keys a block: two lines a key in flight */
#endif

/* The set of line `at`, suffix q into out (w nodes): w, or 0 when the
 * line cannot answer. */
static inline uint32_t bkt_set_answer(const plc_bkt_line *line, const uint8_t *sets, size_t at,
                                      int16_t q, uint32_t w, uint32_t *out)
{
    const plc_bkt_line *l = &line[at];
    const unsigned char *b = (const unsigned char *)l;
    size_t off = bkt_rank_bytes(l, q); /* 2r */
    uint16_t o;
    int16_t sq;
    memcpy(&o, b + offsetof(plc_bkt_line, own) + off, 2);
    memcpy(&sq, b + off, 2);
    const uint8_t *es = sets + at * PLC_BKT_LANES;
    uint32_t e = es[off / 2];
    if (__builtin_expect(sq != q && e != PLC_BKT_SET_NONE, 1)) {
        plc_bkt_set_write(l, es, (uint32_t)(off / 2), o, e, w, out);
        return w;
    }
    return 0;
}

uint32_t PLC_BKT_KEY_SET(const plc_bkt *k, const uint8_t *sets, uint64_t seed, const void *key,
                         size_t len, uint32_t w, uint32_t *out)
{
    uint64_t v = plc_hash64_v2_body(seed, key, len) >> k->sshift;
    size_t at = (size_t)(v >> 16);
    __builtin_prefetch(&sets[at * PLC_BKT_LANES]);
    return bkt_set_answer(k->line, sets, at, (int16_t)(uint16_t)(v ^ 0x8000), w, out);
}

/* A block of up to SAHEAD keys on its way: each key's line and suffix. */
typedef struct bkt_sets_ring {
    uint32_t at[SAHEAD];
    int16_t q[SAHEAD];
} bkt_sets_ring;

/* Stage hash h into slot t and prefetch its line and its sets. */
static inline void bkt_sets_stage(const plc_bkt_line *line, const uint8_t *sets, uint32_t sshift,
                                  uint64_t h, bkt_sets_ring *r, size_t t)
{
    uint64_t v = h >> sshift;
    uint32_t at = (uint32_t)(v >> 16);
    r->q[t] = (int16_t)(uint16_t)(v ^ 0x8000);
    r->at[t] = at;
    __builtin_prefetch(&line[at]);
    __builtin_prefetch(&sets[(size_t)at * PLC_BKT_LANES]);
}

/* Keys the lines left, gathered SPEND at a time and answered together in
 * passes whose loads are independent, so that they overlap: the slots
 * (the lines' first-token indexes; the per-slot sets and a crowded line's
 * tokens prefetched), then a crowded line's slot from its tokens, then
 * the per-slot sets. A key's line is in L1 when it is found: its rank and
 * tie are kept. A prefetch as each key is found stalled the batch's pass
 * (its misses in flight are its limit: perf, 4,096 x 256 on Zen 5). At
 * 4,096 x 256 one key in 65 is left by the lines. */
#define SPEND 64u
typedef struct bkt_sets_pend {
    size_t i;                    /* the key */
    uint32_t at, r, tie;         /* its line, rank, and a tie on its suffix */
    uint32_t slot, first, count; /* slot UINT32_MAX: a crowded line's, from its tokens */
    uint32_t lo, hi;             /* a crowded line's tokens to read */
    int16_t q;                   /* its suffix */
} bkt_sets_pend;
typedef struct bkt_sets_call {
    const plc_bkt *k;
    const void *const *keys;
    const size_t *lens;
    const uint8_t *sets;
    const uint32_t *rep;
    uint32_t *out, *counts;
    uint64_t seed;
    uint32_t w, want, rep_r;
    uint32_t npend;
    bkt_sets_pend pend[SPEND];
} bkt_sets_call;

/* The slot of hash h in a crowded line of `count` (16..PLC_BKT_CROWD_MAX)
 * tokens from slot `first`: first plus its tokens below h, read from the
 * tree's leaves (full tokens: no tie), past the last token the wrap. */
static inline uint32_t bkt_crowded_slot(const plc_stree *t, uint32_t first, uint32_t count,
                                        uint64_t h)
{
    uint32_t r = 0;
    for (uint32_t j = 0; j < count; j++)
        r += plc_stree_token(t, first + j) < h;
    uint32_t slot = first + r;
    return slot == t->n ? 0 : slot;
}

/* The tokens [*lo, *hi) of a crowded line (16 bytes of line sets at es,
 * count tokens) a hash of suffix q must be ranked against: those below
 * *lo are below it, those from *hi on above it, by the suffixes of its
 * tokens 3, 7, 11, ... there; all of them when q ties one. */
static inline void bkt_crowded_span(const uint8_t *es, uint32_t count, int16_t q, uint32_t *lo,
                                    uint32_t *hi)
{
    uint32_t g = 0, tie = 0;
    for (uint32_t j = 0; j < PLC_BKT_CROWD_PIVOTS; j++) {
        int16_t v;
        memcpy(&v, es + 2 + 2 * j, sizeof v);
        g += v < q;
        tie |= v == q;
    }
    *lo = tie ? 0 : 4 * g;
    *hi = tie || g == PLC_BKT_CROWD_PIVOTS || 4 * g + 3 > count ? count : 4 * g + 3;
}

/* The gathered keys' sets, in three passes (above). */
__attribute__((noinline)) static void bkt_sets_flush(bkt_sets_call *c)
{
    const plc_bkt *k = c->k;
    const plc_stree *t = k->tree;
    const uint32_t n = t->n, m = c->npend;
    uint32_t later = 0; /* keys whose slot takes the second pass */
    for (uint32_t p = 0; p < m; p++)
        __builtin_prefetch(&k->base[c->pend[p].at]);
    for (uint32_t p = 0; p < m; p++) {
        bkt_sets_pend *e = &c->pend[p];
        uint32_t first = k->base[e->at];
        uint32_t end = e->at + 1 < (1u << k->bits) ? k->base[e->at + 1] : n;
        e->first = first;
        e->count = end - first;
        e->slot = first + e->r == n ? 0 : first + e->r; /* the line decides the slot */
        if (e->count >= PLC_BKT_LANES || e->tie) {
            e->slot = UINT32_MAX;
            later++;
            if (e->count >= PLC_BKT_LANES && e->count <= PLC_BKT_CROWD_MAX) { /* its tokens */
                bkt_crowded_span(c->sets + (size_t)e->at * PLC_BKT_LANES, e->count, e->q, &e->lo,
                                 &e->hi);
                for (uint32_t x = (first + e->lo) / PLC_STREE_LEAF;
                     e->hi > e->lo && x <= (first + e->hi - 1) / PLC_STREE_LEAF; x++)
                    __builtin_prefetch(&t->leaves[x]);
            }
        } else {
            __builtin_prefetch(c->rep + (size_t)e->slot * c->rep_r);
        }
    }
    for (uint32_t p = 0; p < m && later; p++) {
        bkt_sets_pend *e = &c->pend[p];
        if (e->slot != UINT32_MAX)
            continue;
        uint64_t h = plc_hash64_v2_body(c->seed, c->keys[e->i], c->lens[e->i]);
        if (e->count >= PLC_BKT_LANES && e->count <= PLC_BKT_CROWD_MAX)
            e->slot = bkt_crowded_slot(t, e->first + e->lo, e->hi - e->lo, h);
        else /* ties, lines past PLC_BKT_CROWD_MAX tokens: rare */
            e->slot = PLC_BKT_TREE_INDEX(t, h);
        __builtin_prefetch(c->rep + (size_t)e->slot * c->rep_r);
    }
    for (uint32_t p = 0; p < m; p++) {
        const bkt_sets_pend *e = &c->pend[p];
        const uint32_t *set = c->rep + (size_t)e->slot * c->rep_r;
        uint32_t *o = c->out + e->i * c->want, x = 0;
        for (; x < c->w && set[x] != UINT32_MAX; x++)
            o[x] = set[x];
        c->counts[e->i] = x;
    }
    c->npend = 0;
}

/* Key i, of line `at` and suffix q, which its lines could not answer:
 * gathered, and the gathered answered when SPEND are. Out of line: the
 * loop keeps its registers. */
__attribute__((noinline)) static void bkt_sets_slow(bkt_sets_call *c, uint32_t at, int16_t q,
                                                    size_t i)
{
    const plc_bkt_line *l = &c->k->line[at];
    uint32_t r = bkt_rank(l, q);
    c->pend[c->npend++] = (bkt_sets_pend){.i = i, .at = at, .r = r, .tie = l->suf[r] == q, .q = q};
    if (c->npend == SPEND)
        bkt_sets_flush(c);
}

/* The keys still gathered, at the batch's end. */
static void bkt_sets_drain(bkt_sets_call *c)
{
    if (c->npend)
        bkt_sets_flush(c);
}

static inline void bkt_sets_one(bkt_sets_call *c, const plc_bkt_line *line, const uint8_t *sets,
                                uint32_t at, int16_t q, uint32_t w, size_t i, uint32_t *out,
                                uint32_t *counts)
{
    uint32_t n = bkt_set_answer(line, sets, at, q, w, out);
    if (__builtin_expect(n != 0, 1))
        counts[i] = n;
    else
        bkt_sets_slow(c, at, q, i);
}

/* Answer the M keys of the block at `at` from r, and stage the NM <= M
 * keys of the next block as their slots free (HASH: the hash of hk[t]).
 * Both blocks full (the usual case), the trip counts are constants:
 * about 3% less time at 4,096 x 256 on Zen 5 (paired runs, loaded). */
#define BKT_SETS_STEP(HASH, W, WANT, M, NM)                                            \
    do {                                                                               \
        const void *const *hk = keys + at + SAHEAD;                                    \
        size_t t = 0;                                                                  \
        for (; t < (NM); t++) {                                                        \
            uint32_t a_ = r.at[t];                                                     \
            int16_t q_ = r.q[t];                                                       \
            bkt_sets_stage(line, sets, sshift, (HASH), &r, t);                         \
            bkt_sets_one(&call, line, sets, a_, q_, (W), at + t, out + (at + t) * (WANT), \
                         counts);                                                      \
        }                                                                              \
        for (; t < (M); t++)                                                           \
            bkt_sets_one(&call, line, sets, r.at[t], r.q[t], (W), at + t,              \
                         out + (at + t) * (WANT), counts);                             \
    } while (0)

/* A batch of up to SBUFFERED keys (of sets of up to 3) is answered into
 * the stack and copied out once all its keys are checked, so the checks
 * ride in the pass, as the lookup batch's do; a larger one checks its
 * pointers first, in a pass of their own (whose misses have nothing to
 * overlap: 5-8% of the batch at 4,096 x 256 on Zen 5). 16 KiB of stack. */
#define SBUFFERED 1024u
int PLC_BKT_KEY_SETS(const plc_bkt *k, const plc_bkt_sets_job *j, const void *const *keys,
                     const size_t *lens, size_t n)
{
    if (!n)
        return 0;
    uint32_t bout[SBUFFERED * 3], bcounts[SBUFFERED];
    uint32_t *out = bout, *counts = bcounts;
    const uint32_t w = j->w, want = j->want;
    if (n > SBUFFERED || want > 3) {
        uintptr_t null = 0; /* every key checked first, branch-free: it vectorises */
        for (size_t i = 0; i < n; i++)
            null |= (uintptr_t)keys[i] == 0;
        if (null && bkt_null_key(keys, lens, 0, n))
            return -1;
        out = j->out;
        counts = j->counts;
    }
    const plc_bkt_line *line = k->line;
    const uint8_t *sets = j->sets;
    const uint32_t sshift = k->sshift;
    const uint64_t seed = j->seed;
    const uint64_t sm = plc_hash64_v2_mult_seed(seed), b0 = seed ^ PLC_H64_K0 ^ 32;
    uint64_t a0 = (uint32_t)seed ^ (uint32_t)(seed >> 32);
    for (int i = 0; i < 4; i++)
        a0 = PLC_HASH64_STEP64(a0, 0);
    const uint64_t sk32 = sm ^ PLC_H64_K1 ^ a0;
    bkt_sets_call call = {.k = k,
                          .keys = keys,
                          .lens = lens,
                          .sets = j->sets,
                          .rep = j->rep,
                          .out = out,
                          .counts = counts,
                          .seed = seed,
                          .w = w,
                          .want = want,
                          .rep_r = j->rep_r,
                          .npend = 0};
    bkt_sets_ring r;
    {
        size_t m = n < SAHEAD ? n : SAHEAD;
        if (bkt_block_len(keys, lens, 0, m) == BKT_NULL_KEY)
            return -1;
        for (size_t t = 0; t < m; t++)
            bkt_sets_stage(line, sets, sshift, plc_hash64_v2_body(seed, keys[t], lens[t]), &r, t);
    }
    for (size_t at = 0; at < n; at += SAHEAD) {
        size_t m = n - at < SAHEAD ? n - at : SAHEAD, next = at + SAHEAD;
        size_t nm = next < n ? (n - next < SAHEAD ? n - next : SAHEAD) : 0;
        size_t bl = nm ? bkt_block_len(keys, lens, next, nm) : SIZE_MAX;
        if (bl == BKT_NULL_KEY)
            return -1; /* before any set is out of the buffer */
        if (bl == 32 && w == 3 && want == 3 && nm == SAHEAD) /* the usual case */
            BKT_SETS_STEP(bkt_hash32(hk[t], b0, sm, sk32), 3, 3, SAHEAD, SAHEAD);
        else if (bl == 32)
            BKT_SETS_STEP(bkt_hash32(hk[t], b0, sm, sk32), w, want, m, nm);
        else
            BKT_SETS_STEP(plc_hash64_v2_body(seed, hk[t], lens[next + t]), w, want, m, nm);
    }
    bkt_sets_drain(&call);
    if (out != j->out) {
        memcpy(j->out, out, n * want * sizeof *out);
        memcpy(j->counts, counts, n * sizeof *counts);
    }
    return 0;
}

#undef BKT_SETS_STEP
#undef SAHEAD
#undef SPEND
#undef SBUFFERED
#undef PLC_BKT_KEY_SET
#undef PLC_BKT_KEY_SETS
