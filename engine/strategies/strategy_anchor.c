/*
 * strategy_anchor.c -- AnchorHash (Mendelson, Vargaftik, Barabash, Lorenz,
 * Keslassy, Orda; arXiv 1812.09674) over a fixed capacity of a buckets
 * (bucket_history.c keeps the buckets and the order of removals).
 *
 * The paper's arrays: A[b] = 0 while b works, else the number of working
 * buckets just after b was removed; K[b], the bucket that took b's place
 * (b itself while it works); W and L, the working buckets as a list and
 * each one's place in it, needed only to update. Removing b: N -= 1,
 * A[b] = N, the last listed bucket W[N] moves into b's place and becomes
 * K[b]. Adding takes back the last removed bucket and undoes its removal
 * exactly, so A and K follow from replaying the removals in order on a
 * full array; W and L live only during that replay. A lookup takes
 * b = hash(key) mod a; while b is removed: x = a draw of (key, b) in
 * [0, A[b]); while x was removed before b (A[x] >= A[b]) x = K[x]; b = x.
 * Expected steps: 1 + ln(a / w) for w working buckets.
 *
 * Layout: A and K side by side, one 8-byte record per bucket (anchor_rec),
 * and in a working bucket's record (A = 0, K unused: the walk only follows
 * K of removed buckets) its node instead, so a lookup reads one record per
 * step and the answer in the last one, with no separate owner read.
 *
 * Memory: the records and the bucket -> node table (12 bytes per bucket of
 * capacity), plus the history and the working list (together one u32 per
 * bucket): 16 bytes per bucket of capacity.
 */
#include "alloc.h"
#include "bucket_hash.h"
#include "bucket_history.h"
#include "fastrange.h"

/* One bucket's record: A[b], and K[b] when b is removed, its node when not. */
typedef struct anchor_rec {
    uint32_t a, k;
} anchor_rec;

static size_t anchor_aux_words(uint32_t n, uint32_t nhist)
{
    (void)nhist;
    return 2 * (size_t)n;
}

static const anchor_rec *records(const plc_bhist *h)
{
    return (const anchor_rec *)(const void *)h->aux;
}

static int anchor_aux_fill(const plc_bhist *h, uint32_t *aux, uint32_t *mask)
{
    (void)mask;
    anchor_rec *rec = (anchor_rec *)(void *)aux;
    uint32_t *W = plc_malloc((size_t)h->n * 2 * sizeof *W);
    if (!W)
        return PLACER_ENOMEM;
    uint32_t *L = W + h->n, N = h->n;
    for (uint32_t b = 0; b < h->n; b++) {
        rec[b].a = 0;
        rec[b].k = W[b] = L[b] = b;
    }
    for (uint32_t i = 0; i < h->nhist; i++) {
        uint32_t b = h->hist[i];
        N--;
        rec[b].a = N;
        W[L[b]] = W[N];
        L[W[N]] = L[b];
        rec[b].k = W[N];
    }
    for (uint32_t b = 0; b < h->n; b++)
        if (!rec[b].a)
            rec[b].k = h->own[b];
    plc_free(W);
    return 0;
}

/* One step from removed bucket b (a = A[b] > 0): the paper's inner walk. */
static inline uint32_t anchor_step(const anchor_rec *rec, uint64_t pos, uint32_t b, uint32_t a)
{
    uint32_t x = plc_below(plc_draw(pos, b), a);
    while (rec[x].a >= a)
        x = rec[x].k;
    return x;
}

/* The first step without its walk, taken whether or not the first bucket
 * works (a select, not a branch: it works for about w / a of the keys, a
 * coin toss at the default capacity): the first bucket when it works,
 * else the draw x. *lim: what the walk from there compares A with (no A
 * reaches UINT32_MAX: no walk when the first bucket works). */
static inline uint32_t anchor_select(const anchor_rec *rec, uint32_t n, uint64_t pos,
                                     uint32_t *lim)
{
    uint32_t b = plc_range_slot(pos, n), a = rec[b].a;
    uint32_t x = plc_below(plc_draw(pos, b), a), keep = plc_opaque32((uint32_t)(a != 0) - 1);
    *lim = a | keep;
    return (b & keep) | (x & ~keep);
}

/* The inner walk from anchor_select's bucket b, which only keys whose
 * second bucket is removed too reach (rare). */
static inline uint32_t anchor_inner(const anchor_rec *rec, uint32_t b, uint32_t lim)
{
    while (__builtin_expect(rec[b].a >= lim, 0))
        b = rec[b].k;
    return b;
}

/* From anchor_select's bucket b on: the inner walk, then the remaining
 * steps. */
static inline uint32_t anchor_walk(const anchor_rec *rec, uint64_t pos, uint32_t b, uint32_t lim)
{
    b = anchor_inner(rec, b, lim);
    for (uint32_t a; (a = rec[b].a);)
        b = anchor_step(rec, pos, b, a);
    return b;
}

static uint32_t anchor_bucket(const plc_bhist *h, uint64_t pos)
{
    uint32_t lim, b = anchor_select(records(h), h->n, pos, &lim);
    return anchor_walk(records(h), pos, b, lim);
}

static uint32_t anchor_owner(const placer_snapshot *s, uint64_t h, int target)
{
    const plc_bhist *st = plc_bhist_of(s, target);
    return records(st)[anchor_bucket(st, h)].k;
}

/* The single lookups' rare path: the walk from the selected bucket b, and
 * its node. Out of line and called last, so the common path stays short. */
static __attribute__((noinline)) int anchor_walk_owner(const anchor_rec *rec, uint64_t pos,
                                                       uint32_t b, uint32_t lim)
{
    return (int)rec[anchor_walk(rec, pos, b, lim)].k;
}

/* anchor_select for one key's latency: the same answer and *lim, the
 * bucket chosen by a conditional move, one step after the draw where the
 * mask select takes three. */
static inline uint32_t anchor_select_single(const anchor_rec *rec, uint32_t n, uint64_t pos,
                                            uint32_t *lim)
{
    uint32_t b = plc_range_slot(pos, n), a = rec[b].a;
    uint32_t x = plc_below(plc_draw(pos, b), a);
    *lim = a | plc_opaque32((uint32_t)(a != 0) - 1);
    return plc_select32(a, x, b);
}

/* placer_lookup_hash: the select, then for most keys (the selected bucket
 * works) its node from the record just read. The answer is always a node:
 * the walk ends on a working bucket, every snapshot has one (builds refuse
 * a placement without, PLACER_ENONODES; the decoder a table without), and a
 * working bucket's record holds its node (anchor_aux_fill), so no
 * PLACER_ENOLIVE test. */
static int anchor_lookup_hash(const placer_snapshot *s, uint64_t pos)
{
    const plc_bhist *st = s->bh;
    const anchor_rec *rec = records(st);
    uint32_t lim, b = anchor_select_single(rec, st->n, pos, &lim);
    anchor_rec r = rec[b];
    if (__builtin_expect(r.a != 0, 0))
        return anchor_walk_owner(rec, pos, b, lim);
    return (int)r.k;
}

static int anchor_lookup(const placer_snapshot *s, const void *key, size_t len)
{
    return anchor_lookup_hash(s, s->hash(&s->hkey, key, len));
}

/* The keys in waves: every key's first step (anchor_select and its rare
 * inner walk, no other branch) and the node of the bucket it reaches,
 * which is the answer for most; then one step (anchor_step) for each key
 * still on a removed bucket, again and again, the survivors of a wave
 * (their bucket and its A) compacted by a count rather than a branch, so
 * the keys' draws and loads overlap. A survivor's node is written again
 * when it is done. (Drawing only for the keys whose first bucket is
 * removed, the branch-free select left out, makes half the keys
 * survivors and was 1.2x slower.) */
static void anchor_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t n,
                               uint32_t *owners)
{
    const plc_bhist *st = s->bh;
    const anchor_rec *rec = records(st);
    const uint32_t nb = st->n; /* not reread after each store to owners */
    uint32_t b[64], a[64];
    uint8_t live[64];
    for (size_t at = 0; at < n; at += 64) {
        uint32_t m = n - at < 64 ? (uint32_t)(n - at) : 64, k = 0;
        const uint64_t *pos = h + at;
        uint32_t *out = owners + at;
        for (uint32_t j = 0; j < m; j++) {
            uint32_t lim, x = anchor_select(rec, nb, pos[j], &lim);
            x = anchor_inner(rec, x, lim);
            anchor_rec r = rec[x];
            out[j] = r.k;
            live[k] = (uint8_t)j;
            b[k] = x;
            a[k] = r.a;
            k += r.a != 0;
        }
        while (k) {
            uint32_t left = 0;
            for (uint32_t t = 0; t < k; t++) {
                uint32_t j = live[t];
                uint32_t x = anchor_step(rec, pos[j], b[t], a[t]);
                anchor_rec r = rec[x];
                out[j] = r.k;
                live[left] = (uint8_t)j;
                b[left] = x;
                a[left] = r.a;
                left += r.a != 0;
            }
            k = left;
        }
    }
}

/* The steps of the paper's walk for pos (records read), for tests. */
static uint64_t anchor_steps(const plc_bhist *h, uint64_t pos)
{
    const anchor_rec *rec = records(h);
    uint64_t steps = 1;
    uint32_t b = plc_range_slot(pos, h->n);
    for (uint32_t a; (a = rec[b].a);) {
        uint32_t x = plc_below(plc_draw(pos, b), a);
        for (steps++; rec[x].a >= a; steps++)
            x = rec[x].k;
        b = x;
    }
    return steps;
}

/* The longest K chain: from a removed x the inner walk follows x -> K[x]
 * while A stays at least the bound; K[x] was working when x left, so it
 * left later (smaller A) or works: depths in reverse removal order. K as
 * anchor_aux_fill replays it. */
static uint64_t anchor_walk_bound(const plc_bhist *h, uint32_t *scratch)
{
    uint32_t n = h->n, *W = scratch, *L = W + n, *K = L + n, *depth = K + n, N = n;
    for (uint32_t b = 0; b < n; b++)
        W[b] = L[b] = K[b] = b, depth[b] = 0;
    for (uint32_t i = 0; i < h->nhist; i++) {
        uint32_t b = h->hist[i];
        N--;
        W[L[b]] = W[N];
        L[W[N]] = L[b];
        K[b] = W[N];
    }
    uint64_t worst = 0;
    for (uint32_t i = h->nhist; i-- > 0;) {
        uint32_t b = h->hist[i];
        depth[b] = 1 + (K[b] != b ? depth[K[b]] : 0);
        worst = depth[b] > worst ? depth[b] : worst;
    }
    return worst + 1;
}

static const plc_bhist_rules rules = {
    .strategy = PLACER_ANCHOR,
    .fixed = 1,
    .aux_words = anchor_aux_words,
    .aux_fill = anchor_aux_fill,
    .bucket = anchor_bucket,
    .walk = anchor_walk_bound,
    .steps = anchor_steps,
};

const plc_strategy_ops plc_anchor_ops = {
    .id = PLACER_ANCHOR,
    .name = "anchor",
    .key_hashes = PLC_PLACER_HASHES,
    .options = PLACER_OPTION_TOKENS | PLACER_OPTION_PREVIOUS | PLACER_OPTION_CAPACITY,
    .traits = PLACER_TRAIT_BUCKETS | PLACER_TRAIT_HISTORY,
    /* def 0: twice the first build's buckets, at least 64 (placer.h) */
    .capacity = {1, PLACER_MAX_TOKENS, 0, 0, "capacity"},
    .build = plc_bhist_build,
    .lookup = anchor_lookup,
    .lookup_hash = anchor_lookup_hash,
    .lookup_batch = plc_lookup_batch_by_hash,
    .owner = anchor_owner,
    .owner_batch = anchor_owner_batch,
    .replicas = plc_bhist_replicas,
    .encode_sections = plc_bhist_encode_sections,
    .encode_section = plc_bhist_encode_section,
    .decode_sections = plc_bhist_decode_sections,
    .decode_check = plc_bhist_decode_check,
    .decode_build = plc_bhist_decode_build,
    .token_count = plc_bhist_token_count,
    .token_at = plc_bhist_token_at,
    .module = &rules,
};
