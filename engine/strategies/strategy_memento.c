/*
 * strategy_memento.c -- MementoHash (Coluzzi, Brocco, Antonucci, Leidi,
 * arXiv 2306.09783): jump hash over n buckets, plus a replacement table
 * of the removed buckets only (bucket_history.c keeps the buckets and the
 * order of removals).
 *
 * The paper's rules. Removing bucket b while w buckets work records
 * (b -> c = w - 1): c is both the working count after the removal and the
 * bucket that takes b's place among positions 0 .. c-1; removals are
 * undone last first; removing the last bucket while nothing else is
 * removed just shrinks jump's range. A lookup takes b = jump(key, n); while
 * b is removed with replacer r: x = a draw of (key, b) in [0, r); while x
 * was removed before b (its replacer d >= r) x = d; then b = x. Each
 * removed bucket's keys go evenly to the buckets working after it, and
 * nothing else moves. Here n - i - 1 is the replacer of the i-th removal
 * (n is fixed while any bucket is removed), so the table is a function of
 * the history.
 *
 * Memory: the bucket -> node table (as jump's) and, for the replacements,
 * an open-addressing table of (bucket + 1, replacer) pairs at most half
 * full: at most 16 bytes per removed bucket, nothing when none is.
 */
#include <string.h>

#include "bucket_hash.h"
#include "bucket_history.h"

#define NONE UINT32_MAX

static size_t table_slots(uint32_t nhist)
{
    size_t m = 2;
    while (m < 2 * (size_t)nhist)
        m *= 2;
    return m;
}

static inline uint32_t slot_of(uint32_t b, uint32_t mask)
{
    return (uint32_t)(((uint64_t)b * PLC_GOLDEN64) >> 32) & mask;
}

static size_t memento_aux_words(uint32_t n, uint32_t nhist)
{
    (void)n;
    return nhist ? 2 * table_slots(nhist) : 0;
}

static int memento_aux_fill(const plc_bhist *h, uint32_t *aux, uint32_t *mask)
{
    if (!h->nhist)
        return 0;
    size_t m = table_slots(h->nhist);
    memset(aux, 0, 2 * m * sizeof *aux);
    *mask = (uint32_t)m - 1;
    for (uint32_t i = 0; i < h->nhist; i++) {
        uint32_t j = slot_of(h->hist[i], *mask);
        while (aux[2 * j])
            j = (j + 1) & *mask;
        aux[2 * j] = h->hist[i] + 1;
        aux[2 * j + 1] = h->n - i - 1;
    }
    return 0;
}

/* Bucket b's replacer, NONE when b works: the owner table says whether
 * it does, so the replacement table is searched only for buckets it
 * holds (no probe sequence ends at an empty slot on the common path). */
static inline uint32_t replacer(const plc_bhist *h, uint32_t b)
{
    if (h->own[b] != PLC_NO_NODE)
        return NONE;
    const uint32_t *t = h->aux;
    for (uint32_t j = slot_of(b, h->mask);; j = (j + 1) & h->mask) {
        if (t[2 * j] == b + 1)
            return t[2 * j + 1];
        if (!t[2 * j])
            return NONE;
    }
}

/* The paper's loop from a removed bucket b (r: its replacer); *steps (when
 * not NULL: the tests' counter, compiled out of the lookups) counts the
 * replacement-table searches. */
static inline uint32_t replace_counted(const plc_bhist *h, uint64_t pos, uint32_t b,
                                       uint64_t *steps)
{
    for (uint32_t r = replacer(h, b); r != NONE;) {
        uint32_t x = plc_below(plc_draw(pos, b), r);
        uint32_t d = replacer(h, x);
        if (steps)
            ++*steps;
        while (d != NONE && d >= r) {
            x = d;
            d = replacer(h, x);
            if (steps)
                ++*steps;
        }
        b = x;
        r = d;
    }
    return b;
}

static uint32_t replace(const plc_bhist *h, uint64_t pos, uint32_t b)
{
    return replace_counted(h, pos, b, NULL);
}

static uint64_t memento_steps(const plc_bhist *h, uint64_t pos)
{
    uint64_t steps = 1; /* jump, and the first bucket's replacer */
    uint32_t b = (uint32_t)h->jump(pos, (int32_t)h->n);
    if (h->own[b] == PLC_NO_NODE)
        replace_counted(h, pos, b, &steps);
    return steps;
}

/* The longest replacement chain: a draw x whose replacer is at least the
 * bound r follows x -> replacer(x) -> ... while they are removed (the
 * removal i's replacer is bucket n - i - 1). That map is one-to-one, so
 * its paths are disjoint chains and cycles: each walked once, from the
 * buckets no removed bucket maps to (those below n - nhist), then what is
 * left (cycles, which only forged histories have). */
static uint64_t memento_walk(const plc_bhist *h, uint32_t *scratch)
{
    uint32_t n = h->n, *pos = scratch, *seen = scratch + n;
    for (uint32_t i = 0; i < n; i++)
        pos[i] = NONE, seen[i] = 0;
    for (uint32_t i = 0; i < h->nhist; i++)
        pos[h->hist[i]] = i;
    uint64_t worst = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < h->nhist; i++) {
            uint32_t x = h->hist[i];
            if (seen[x] || (pass == 0 && x >= n - h->nhist))
                continue;
            uint64_t len = 0;
            for (; pos[x] != NONE && !seen[x]; x = n - pos[x] - 1, len++)
                seen[x] = 1;
            worst = len > worst ? len : worst;
        }
    return worst + 1;
}

static uint32_t memento_bucket(const plc_bhist *h, uint64_t pos)
{
    uint32_t b = (uint32_t)h->jump(pos, (int32_t)h->n);
    return h->own[b] != PLC_NO_NODE ? b : replace(h, pos, b);
}

static uint32_t memento_owner(const placer_snapshot *s, uint64_t h, int target)
{
    const plc_bhist *st = plc_bhist_of(s, target);
    return st->own[memento_bucket(st, h)];
}

/* placer_lookup_hash and placer_lookup: the module's own ops, one
 * indirect call to the op and one to the jump kernel, not the owner op's
 * too. */
static int memento_lookup_hash(const placer_snapshot *s, uint64_t h)
{
    uint32_t o = memento_owner(s, h, 0);
    return o == PLC_NO_NODE ? PLACER_ENOLIVE : (int)o;
}

static int memento_lookup(const placer_snapshot *s, const void *key, size_t len)
{
    return memento_lookup_hash(s, s->hash(&s->hkey, key, len));
}

/* Jump's loops of the whole batch in flight (the dispatched kernel: AVX2
 * lanes, or four scalar ones), then the replacements of the keys whose
 * bucket was removed. */
static void memento_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t n,
                                uint32_t *owners)
{
    const plc_bhist *st = s->bh;
    st->jump_batch(h, n, (int32_t)st->n, owners);
    for (size_t i = 0; i < n; i++) {
        uint32_t b = owners[i];
        owners[i] = st->own[st->own[b] != PLC_NO_NODE ? b : replace(st, h[i], b)];
    }
}

static const plc_bhist_rules rules = {
    .strategy = PLACER_MEMENTO,
    .aux_words = memento_aux_words,
    .aux_fill = memento_aux_fill,
    .bucket = memento_bucket,
    .walk = memento_walk,
    .max_ratio = PLC_BHIST_MAX_RATIO,
    .steps = memento_steps,
};

const plc_strategy_ops plc_memento_ops = {
    .id = PLACER_MEMENTO,
    .name = "memento",
    .key_hashes = PLC_PLACER_HASHES,
    .options = PLACER_OPTION_TOKENS | PLACER_OPTION_PREVIOUS,
    .traits = PLACER_TRAIT_BUCKETS | PLACER_TRAIT_HISTORY,
    .build = plc_bhist_build,
    .lookup = memento_lookup,
    .lookup_hash = memento_lookup_hash,
    .lookup_batch = plc_lookup_batch_by_hash,
    .owner = memento_owner,
    .owner_batch = memento_owner_batch,
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
