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
 * Memory: A, K and the bucket -> node table (12 bytes per bucket of
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

static int anchor_aux_fill(const plc_bhist *h, uint32_t *aux, uint32_t *mask)
{
    (void)mask;
    uint32_t *A = aux, *K = aux + h->n, *W = plc_malloc((size_t)h->n * 2 * sizeof *W);
    if (!W)
        return PLACER_ENOMEM;
    uint32_t *L = W + h->n, N = h->n;
    for (uint32_t b = 0; b < h->n; b++) {
        A[b] = 0;
        K[b] = W[b] = L[b] = b;
    }
    for (uint32_t i = 0; i < h->nhist; i++) {
        uint32_t b = h->hist[i];
        N--;
        A[b] = N;
        W[L[b]] = W[N];
        L[W[N]] = L[b];
        K[b] = W[N];
    }
    plc_free(W);
    return 0;
}

static uint32_t anchor_bucket(const plc_bhist *h, uint64_t pos)
{
    const uint32_t *A = h->aux, *K = h->aux + h->n;
    uint32_t b = plc_range_slot(pos, h->n);
    while (A[b]) {
        uint32_t x = plc_below(plc_draw(pos, b), A[b]);
        while (A[x] >= A[b])
            x = K[x];
        b = x;
    }
    return b;
}

static uint32_t anchor_owner(const placer_snapshot *s, uint64_t h, int target)
{
    const plc_bhist *st = plc_bhist_of(s, target);
    return st->own[anchor_bucket(st, h)];
}

static void anchor_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t n,
                               uint32_t *owners)
{
    const plc_bhist *st = s->bh;
    for (size_t i = 0; i < n; i++)
        owners[i] = st->own[anchor_bucket(st, h[i])];
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
