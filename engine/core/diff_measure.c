/*
 * diff_measure.c -- placer_diff_measure: what moves between any two
 * snapshots, per node and per from -> to pair, and how that is known
 * (placer.h). Exact where the placement allows it, by one of:
 *   - every value of the programs' key hash when it has at most 16 bits;
 *   - residues of two hash % n tables (diff_residues.c): twemproxy
 *     modula, haproxy map-based, and Kafka's topics of one partitioner
 *     whatever their partition counts;
 *   - placer_diff's ranges (diff.c);
 * else by generated keys looked up in both snapshots, as each hashes
 * them. Moving pairs are summed in a small open-addressing table, then
 * sorted largest first; per node shares are the pairs' sums.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "compat_snapshot.h"
#include "diff_internal.h"
#include "validate.h"


/* ---- moving pairs, summed ---------------------------------------------- */

typedef struct pair_sum {
    placer_diff_pair *p; /* share < 0: an empty slot */
    size_t cap, n;
} pair_sum;

static size_t slot_of(const pair_sum *t, uint32_t from, uint32_t to)
{
    uint64_t h = ((uint64_t)from << 32 | to) * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h >> 20) & (t->cap - 1);
    while (t->p[i].share >= 0 && (t->p[i].from != from || t->p[i].to != to))
        i = (i + 1) & (t->cap - 1);
    return i;
}

static int grow(pair_sum *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    placer_diff_pair *p = plc_malloc(cap * sizeof *p), *old = t->p;
    if (!p)
        return PLACER_ENOMEM;
    for (size_t i = 0; i < cap; i++)
        p[i].share = -1;
    size_t oldcap = t->cap;
    t->p = p;
    t->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].share >= 0)
            t->p[slot_of(t, old[i].from, old[i].to)] = old[i];
    plc_free(old);
    return 0;
}

static int add_share(pair_sum *t, uint32_t from, uint32_t to, double share)
{
    if (2 * (t->n + 1) > t->cap && grow(t))
        return PLACER_ENOMEM;
    size_t i = slot_of(t, from, to);
    if (t->p[i].share < 0) {
        t->p[i] = (placer_diff_pair){from, to, 0};
        t->n++;
    }
    t->p[i].share += share;
    return 0;
}

static int add_count(void *ctx, uint32_t from, uint32_t to, uint64_t count)
{
    return add_share(ctx, from, to, (double)count);
}

static int by_share(const void *x, const void *y)
{
    const placer_diff_pair *a = x, *b = y;
    if (a->share != b->share)
        return a->share > b->share ? -1 : 1;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return (a->to > b->to) - (a->to < b->to);
}

/* ---- the exact counts -------------------------------------------------- */

static uint32_t owner_of_hash(const placer_snapshot *s, const plc_diff_view *v, uint32_t h)
{
    if (v->mod_own)
        return v->mod_own[(size_t)(h % v->mod_n) * v->mod_stride];
    return s->ops->owner(s, h, 0); /* a program's ring: the hash is the position */
}

static uint32_t mapped(const uint32_t *map, uint32_t node)
{
    return node == PLC_NO_NODE ? PLC_NO_NODE : map[node];
}

/* Every value of a key hash of at most 16 bits. */
static int count_hashes(const placer_snapshot *a, const plc_diff_view *va, const placer_snapshot *b,
                        const plc_diff_view *vb, const uint32_t *map, pair_sum *t)
{
    uint32_t values = 1u << va->hash_bits;
    for (uint32_t h = 0; h < values; h++) {
        uint32_t oa = owner_of_hash(a, va, h), ob = owner_of_hash(b, vb, h);
        if (mapped(map, oa) != ob && add_share(t, oa, ob, 1))
            return PLACER_ENOMEM;
    }
    return 0;
}

static int count_ranges(const plc_diff_view *va, const plc_diff_view *vb, const uint32_t *map,
                        pair_sum *t)
{
    placer_move *m = NULL;
    size_t count = 0;
    int err = plc_diff_views(va, vb, map, &m, &count);
    for (size_t i = 0; !err && i < count; i++)
        err = add_share(t, m[i].from, m[i].to, placer_moves_coverage(&m[i], 1));
    placer_moves_free(m);
    return err;
}

/* ---- sampled by keys --------------------------------------------------- */

static int sample_keys(const placer_snapshot *a, const placer_snapshot *b, const uint32_t *map,
                       uint64_t want, pair_sum *t, placer_diff_report *r)
{
    plc_diff_keys k = {0};
    uint32_t oa[PLC_DIFF_CHUNK], ob[PLC_DIFF_CHUNK];
    uint64_t moved = 0;
    for (uint64_t done = 0; done < want;) {
        size_t n = plc_diff_next_keys(&k, want - done);
        const void *const *keys = k.keys;
        const size_t *lens = k.lens;
        int err = placer_lookup_batch(a, keys, lens, n, oa);
        if (!err)
            err = placer_lookup_batch(b, keys, lens, n, ob);
        if (err)
            return err;
        for (size_t i = 0; i < n; i++) {
            if (oa[i] == PLC_NO_NODE || ob[i] == PLC_NO_NODE) {
                r->unplaced++; /* an imported map's missing owner, in either */
                continue;
            }
            r->keys++;
            if (map[oa[i]] != ob[i]) {
                moved++;
                if (add_share(t, oa[i], ob[i], 1))
                    return PLACER_ENOMEM;
            }
        }
        done += n;
    }
    plc_diff_wilson95(moved, r->keys, &r->low95, &r->high95);
    return 0;
}

/* ---- the report -------------------------------------------------------- */

/* Do a and b reach their placements through the same program hash of
 * hash_bits bits (Couchbase's, whatever the vBucket counts; a Kafka
 * partitioner's, named by the key hash id alone: spans, whatever the
 * partition counts)? */
static int same_program_hash(const placer_snapshot *a, const plc_diff_view *va,
                             const placer_snapshot *b, const plc_diff_view *vb)
{
    if (!va->hash_bits || va->hash_bits != vb->hash_bits)
        return 0;
    return plc_diff_same_positions(a, b) ||
           (a->key_hash == PLACER_HASH_COUCHBASE && b->key_hash == PLACER_HASH_COUCHBASE) ||
           (va->spans && vb->spans && a->key_hash == b->key_hash);
}

/* Choose the exact method, or PLACER_ENOTSUP: sample. */
static int count_exactly(const placer_snapshot *a, const placer_snapshot *b, const uint32_t *map,
                         pair_sum *t, placer_diff_report *r, double *total)
{
    plc_diff_view va, vb;
    int ranges = !plc_diff_view_of(a, 0, &va) & !plc_diff_view_of(b, 0, &vb);
    if (same_program_hash(a, &va, b, &vb)) {
        if (va.hash_bits <= 16) {
            r->method = PLACER_DIFF_HASHES;
            r->hash_values = *total = (double)(1u << va.hash_bits);
            return count_hashes(a, &va, b, &vb, map, t);
        }
        if (va.mod_own && vb.mod_own && (va.spans || (!va.table && !vb.table))) {
            static const plc_hash_span all = {0, (uint64_t)1 << 32, 1};
            int err = plc_diff_residues(&va, &vb, map, va.spans ? va.spans : &all,
                                        va.spans ? va.nspans : 1, add_count, t);
            if (err != PLACER_ENOTSUP) {
                r->method = PLACER_DIFF_HASHES;
                r->hash_values = (uint64_t)1 << 32;
                *total = 4294967296.0;
            }
            return err;
        }
    }
    if (ranges && plc_diff_same_positions(a, b) && (!va.hash_bits || va.hash_bits == 32)) {
        r->method = PLACER_DIFF_RANGES;
        *total = 1;
        return count_ranges(&va, &vb, map, t);
    }
    return PLACER_ENOTSUP;
}

static void empty(pair_sum *t)
{
    plc_free(t->p);
    *t = (pair_sum){NULL, 0, 0};
}

/* The pairs, largest first, as shares of total; per node sums. */
static int finish(const placer_snapshot *a, const placer_snapshot *b, pair_sum *t, double total,
                  placer_diff_report *r)
{
    r->gives = plc_calloc((size_t)a->nnodes + 1, sizeof *r->gives);
    r->receives = plc_calloc((size_t)b->nnodes + 1, sizeof *r->receives);
    if (!r->gives || !r->receives)
        return PLACER_ENOMEM;
    size_t k = 0;
    double moved = 0;
    for (size_t i = 0; i < t->cap; i++)
        if (t->p[i].share >= 0)
            t->p[k++] = t->p[i];
    for (size_t i = 0; i < k; i++)
        moved += t->p[i].share; /* counts: exact sums below 2^53 */
    for (size_t i = 0; i < k; i++) {
        t->p[i].share /= total;
        if (t->p[i].from != PLC_NO_NODE)
            r->gives[t->p[i].from] += t->p[i].share;
        if (t->p[i].to != PLC_NO_NODE)
            r->receives[t->p[i].to] += t->p[i].share;
    }
    if (k)
        qsort(t->p, k, sizeof *t->p, by_share);
    r->moved = moved / total;
    if (r->method != PLACER_DIFF_SAMPLED)
        r->low95 = r->high95 = r->moved;
    r->pairs = k ? t->p : NULL;
    r->npairs = k;
    if (!k)
        plc_free(t->p);
    t->p = NULL;
    return 0;
}

int placer_diff_measure(const placer_snapshot *a, const placer_snapshot *b, uint64_t keys,
                        unsigned flags, placer_diff_report *r)
{
    PLC_VALIDATE_OR_RET(a && b && r, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(r->size >= sizeof *r, PLACER_EINVAL);
    size_t size = r->size;
    memset(r, 0, sizeof *r);
    r->size = size;
    uint32_t *map = plc_diff_map_nodes(a, b);
    if (!map)
        return PLACER_ENOMEM;
    pair_sum t = {NULL, 0, 0};
    double total = 1;
    int err = flags & PLACER_DIFF_FORCE_SAMPLE ? PLACER_ENOTSUP
                                                : count_exactly(a, b, map, &t, r, &total);
    if (err == PLACER_ENOTSUP) {
        empty(&t);
        *r = (placer_diff_report){.size = size, .method = PLACER_DIFF_SAMPLED};
        err = sample_keys(a, b, map, keys ? keys : plc_diff_default_keys(a, b), &t, r);
        total = r->keys ? (double)r->keys : 1;
    }
    if (!err)
        err = finish(a, b, &t, total, r);
    plc_free(map);
    empty(&t);
    if (err)
        placer_diff_report_release(r);
    return err;
}

void placer_diff_report_release(placer_diff_report *r)
{
    if (!r)
        return;
    plc_free(r->gives);
    plc_free(r->receives);
    plc_free(r->pairs);
    r->gives = r->receives = NULL;
    r->pairs = NULL;
    r->npairs = 0;
}

int placer_moved_fraction(const placer_snapshot *a, const placer_snapshot *b, uint32_t samples,
                          double *fraction)
{
    PLC_VALIDATE_OR_RET(a && b && fraction, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(samples > 0, PLACER_EINVAL);
    placer_diff_report r = {.size = sizeof r};
    int err = placer_diff_measure(a, b, samples, 0, &r);
    if (!err)
        *fraction = r.moved;
    placer_diff_report_release(&r);
    return err;
}
