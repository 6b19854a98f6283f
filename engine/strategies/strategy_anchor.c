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
 * Layout: A and K side by side, one 8-byte record per bucket, and in a
 * working bucket's record (A = 0, K unused: the walk only follows K of
 * removed buckets) its node instead, so a lookup reads one record per
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

static size_t anchor_aux_words(uint32_t n, uint32_t nhist)
{
    (void)nhist;
    return 2 * (size_t)n;
}

/* rec[2b] = A[b], rec[2b + 1] = K[b] when b is removed, its node when not. */
static int anchor_aux_fill(const plc_bhist *h, uint32_t *rec, uint32_t *mask)
{
    (void)mask;
    uint32_t *W = plc_malloc((size_t)h->n * 2 * sizeof *W);
    if (!W)
        return PLACER_ENOMEM;
    uint32_t *L = W + h->n, N = h->n;
    for (uint32_t b = 0; b < h->n; b++) {
        rec[2 * b] = 0;
        rec[2 * b + 1] = W[b] = L[b] = b;
    }
    for (uint32_t i = 0; i < h->nhist; i++) {
        uint32_t b = h->hist[i];
        N--;
        rec[2 * b] = N;
        W[L[b]] = W[N];
        L[W[N]] = L[b];
        rec[2 * b + 1] = W[N];
    }
    for (uint32_t b = 0; b < h->n; b++)
        if (!rec[2 * b])
            rec[2 * b + 1] = h->own[b];
    plc_free(W);
    return 0;
}

/* One step from removed bucket b (a = A[b] > 0): the paper's inner walk. */
static inline uint32_t anchor_step(const uint32_t *rec, uint64_t pos, uint32_t b, uint32_t a)
{
    uint32_t x = plc_below(plc_draw(pos, b), a);
    while (rec[2 * x] >= a)
        x = rec[2 * x + 1];
    return x;
}

/* The first step, taken whether or not the first bucket works (a select,
 * not a branch: it works for about w / a of the keys, a coin toss at the
 * default capacity); then the walk, which only keys whose second bucket
 * is removed too reach (rare), the bucket returned. */
static inline uint32_t anchor_first(const uint32_t *rec, uint32_t n, uint64_t pos)
{
    uint32_t b = plc_range_slot(pos, n), a = rec[2 * b];
    uint32_t x = plc_below(plc_draw(pos, b), a), keep = plc_opaque32((uint32_t)(a != 0) - 1);
    uint32_t lim = a | keep; /* no A reaches UINT32_MAX: no walk when b works */
    b = (b & keep) | (x & ~keep); /* b still when it works, else x */
    while (__builtin_expect(rec[2 * b] >= lim, 0))
        b = rec[2 * b + 1];
    return b;
}

static uint32_t anchor_bucket(const plc_bhist *h, uint64_t pos)
{
    const uint32_t *rec = h->aux;
    uint32_t b = anchor_first(rec, h->n, pos);
    for (uint32_t a; (a = rec[2 * b]);)
        b = anchor_step(rec, pos, b, a);
    return b;
}

static uint32_t anchor_owner(const placer_snapshot *s, uint64_t h, int target)
{
    const plc_bhist *st = plc_bhist_of(s, target);
    return st->aux[2 * anchor_bucket(st, h) + 1];
}

/* The keys in waves: every key's first step (anchor_first, no branch),
 * then one step for each key still on a removed bucket, again and again,
 * the survivors of a wave compacted without a branch, so the keys' draws
 * and loads overlap and only the rare inner walk branches. */
static void anchor_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t n,
                               uint32_t *owners)
{
    const plc_bhist *st = s->bh;
    const uint32_t *rec = st->aux;
    uint32_t b[64], a[64];
    uint8_t live[64];
    for (size_t at = 0; at < n; at += 64) {
        uint32_t m = n - at < 64 ? (uint32_t)(n - at) : 64, k = 0;
        const uint64_t *pos = h + at;
        for (uint32_t j = 0; j < m; j++) {
            b[j] = anchor_first(rec, st->n, pos[j]);
            a[j] = rec[2 * b[j]];
            live[k] = (uint8_t)j;
            k += a[j] != 0;
        }
        while (k) {
            uint32_t left = 0;
            for (uint32_t t = 0; t < k; t++) {
                uint32_t j = live[t];
                b[j] = anchor_step(rec, pos[j], b[j], a[j]);
                a[j] = rec[2 * b[j]];
                live[left] = (uint8_t)j;
                left += a[j] != 0;
            }
            k = left;
        }
        for (uint32_t j = 0; j < m; j++)
            owners[at + j] = rec[2 * b[j] + 1];
    }
}

static const plc_bhist_rules rules = {
    .strategy = PLACER_ANCHOR,
    .fixed = 1,
    .aux_words = anchor_aux_words,
    .aux_fill = anchor_aux_fill,
    .bucket = anchor_bucket,
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
    .lookup = plc_lookup_by_hash,
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
