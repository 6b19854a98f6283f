/*
 * partitions_build.c -- the map of fixed logical partitions (vBuckets):
 * for each of P partitions its active node, then its replicas.
 *
 * A map is built by rebalancing a starting map towards a membership:
 *   - the start is empty, the previous snapshot's map
 *     (placer_builder_set_previous, nodes matched by id), or for the target
 *     placement of a transition, the current map just built;
 *   - quotas: node i's share of the P active copies is P * w_i / W; it gets
 *     floor of that, and the remaining copies go to the largest fractional
 *     parts, so every count is within 1 of its share (the replica copies
 *     are shared out the same way);
 *   - a copy stays where it is when its node is still in the placement and
 *     under quota; an active copy whose node left is first given to one of
 *     its replicas (promotion: the data is already there), then to the
 *     nodes still under quota, in turn; replicas are filled the same way
 *     from a rotating order that alternates zones.
 * So a join or a leave moves only the copies that must move: those of the
 * nodes that left and the surplus of nodes above their new share.
 * Replicas are distinct nodes, in distinct zones while the placement has
 * zones enough; where nodes run out a slot stays PLC_NO_NODE (reported as
 * under-replication, never padded). Deterministic.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "builder_internal.h"
#include "partitions_build.h"

#define DEFAULT_COPIES 3u

typedef struct rebalance {
    const placer_builder *b;
    uint32_t parts, copies;
    uint8_t *in;        /* node is in the placement */
    uint32_t *quota;    /* active copies per node */
    uint32_t *rquota;   /* replica copies per node */
    uint32_t *count, *rcount;
    uint32_t *ring;     /* placement nodes, zones alternating */
    uint32_t nring, zones;
} rebalance;

typedef struct frac {
    double f;
    uint32_t node;
} frac;

static int cmp_frac(const void *x, const void *y)
{
    const frac *a = x, *b = y;
    if (a->f != b->f)
        return a->f > b->f ? -1 : 1;
    return a->node < b->node ? -1 : a->node > b->node;
}

/* Largest-remainder shares of `total` copies by weight into q. */
static int share_out(const rebalance *r, uint64_t total, uint32_t *q)
{
    const placer_builder *b = r->b;
    double w = 0;
    for (uint32_t n = 0; n < b->nnodes; n++)
        w += r->in[n] ? b->nodes[n].weight : 0;
    frac *fr = plc_malloc((size_t)b->nnodes * sizeof *fr);
    if (!fr)
        return PLACER_ENOMEM;
    uint64_t given = 0;
    uint32_t m = 0;
    for (uint32_t n = 0; n < b->nnodes; n++) {
        q[n] = 0;
        if (!r->in[n])
            continue;
        double share = (double)total * b->nodes[n].weight / w;
        q[n] = (uint32_t)floor(share);
        given += q[n];
        fr[m++] = (frac){share - floor(share), n};
    }
    qsort(fr, m, sizeof *fr, cmp_frac);
    for (uint32_t i = 0; given < total && m; i = (i + 1) % m, given++)
        q[fr[i].node]++;
    plc_free(fr);
    return 0;
}

typedef struct zoned {
    const char *zone, *id;
    uint32_t node;
} zoned;

static int cmp_zoned(const void *x, const void *y)
{
    const zoned *a = x, *b = y;
    int c = strcmp(a->zone, b->zone);
    return c ? c : strcmp(a->id, b->id);
}

/* The placement's nodes ordered so that consecutive ones are in different
 * zones where possible: zones in name order, taking one node of each in
 * turn (nodes of a zone in id order). */
static int zone_ring(rebalance *r)
{
    const placer_builder *b = r->b;
    zoned *z = plc_malloc((size_t)b->nnodes * sizeof *z);
    uint32_t *start = plc_malloc(((size_t)b->nnodes + 1) * sizeof *start);
    uint32_t *taken = plc_calloc((size_t)b->nnodes + 1, sizeof *taken);
    if (!z || !start || !taken) {
        plc_free(z);
        plc_free(start);
        plc_free(taken);
        return PLACER_ENOMEM;
    }
    uint32_t m = 0, nz = 0;
    for (uint32_t n = 0; n < b->nnodes; n++)
        if (r->in[n])
            z[m++] = (zoned){b->nodes[n].zone, b->nodes[n].id, n};
    qsort(z, m, sizeof *z, cmp_zoned);
    for (uint32_t i = 0; i < m; i++)
        if (!i || strcmp(z[i].zone, z[i - 1].zone) != 0)
            start[nz++] = i;
    start[nz] = m;
    for (uint32_t k = 0; k < m;)
        for (uint32_t zi = 0; zi < nz; zi++)
            if (start[zi] + taken[zi] < start[zi + 1])
                r->ring[k++] = z[start[zi] + taken[zi]++].node;
    r->nring = m;
    r->zones = nz;
    plc_free(z);
    plc_free(start);
    plc_free(taken);
    return 0;
}

static int in_set(const uint32_t *set, uint32_t k, uint32_t node)
{
    for (uint32_t i = 0; i < k; i++)
        if (set[i] == node)
            return 1;
    return 0;
}

static int zone_used(const rebalance *r, const uint32_t *set, uint32_t k, uint32_t node)
{
    for (uint32_t i = 0; i < k; i++)
        if (strcmp(r->b->nodes[set[i]].zone, r->b->nodes[node].zone) == 0)
            return 1;
    return 0;
}

static uint32_t zones_in(const rebalance *r, const uint32_t *set, uint32_t k)
{
    uint32_t d = 0;
    for (uint32_t i = 0; i < k; i++)
        d += !zone_used(r, set, i, set[i]);
    return d;
}

/* May `node` join the set set[0..k) as a replica? Distinct node; a zone
 * already used only when the remaining slots can still reach min(copies,
 * zones) distinct zones. */
static int acceptable(const rebalance *r, const uint32_t *set, uint32_t k, uint32_t node)
{
    if (in_set(set, k, node))
        return 0;
    if (!zone_used(r, set, k, node))
        return 1;
    uint32_t want = r->copies < r->zones ? r->copies : r->zones;
    return zones_in(r, set, k) + (r->copies - k - 1) >= want;
}

/* Rebalance start (parts x copies) into out for the nodes in r->in. */
static int rebalance_map(rebalance *r, const uint32_t *start, uint32_t *out)
{
    const placer_builder *b = r->b;
    uint32_t P = r->parts, C = r->copies;
    uint64_t replica_total = (uint64_t)P * (r->nring > C ? C - 1 : r->nring - 1);
    int err;
    if ((err = share_out(r, P, r->quota)) || (err = share_out(r, replica_total, r->rquota)))
        return err;
    memset(r->count, 0, (size_t)b->nnodes * sizeof *r->count);
    memset(r->rcount, 0, (size_t)b->nnodes * sizeof *r->rcount);
    for (size_t i = 0; i < (size_t)P * C; i++)
        out[i] = PLC_NO_NODE;
    /* Actives that stay. */
    for (uint32_t p = 0; p < P; p++) {
        uint32_t a = start ? start[(size_t)p * C] : PLC_NO_NODE;
        if (a != PLC_NO_NODE && r->in[a] && r->count[a] < r->quota[a]) {
            out[(size_t)p * C] = a;
            r->count[a]++;
        }
    }
    /* Promotions: a replica of the partition under quota takes it. */
    for (uint32_t p = 0; p < P && start; p++) {
        for (uint32_t c = 1; c < C && out[(size_t)p * C] == PLC_NO_NODE; c++) {
            uint32_t n = start[(size_t)p * C + c];
            if (n != PLC_NO_NODE && r->in[n] && r->count[n] < r->quota[n]) {
                out[(size_t)p * C] = n;
                r->count[n]++;
            }
        }
    }
    /* The rest, in turn to the nodes under quota. */
    uint32_t at = 0;
    for (uint32_t p = 0; p < P; p++) {
        if (out[(size_t)p * C] != PLC_NO_NODE)
            continue;
        for (uint32_t tries = 0; tries < r->nring; tries++, at = (at + 1) % r->nring) {
            uint32_t n = r->ring[at];
            if (r->count[n] < r->quota[n]) {
                out[(size_t)p * C] = n;
                r->count[n]++;
                at = (at + 1) % r->nring;
                break;
            }
        }
    }
    /* Replicas: keep what can stay (the old active too: it has the data). */
    for (uint32_t p = 0; p < P && start && C > 1; p++) {
        uint32_t *set = out + (size_t)p * C, k = 1;
        for (uint32_t c = 0; c < C && k < C; c++) {
            uint32_t n = start[(size_t)p * C + c];
            if (n != PLC_NO_NODE && r->in[n] && r->rcount[n] < r->rquota[n] &&
                acceptable(r, set, k, n)) {
                set[k++] = n;
                r->rcount[n]++;
            }
        }
    }
    /* Fill: under quota first, then anyone acceptable. */
    at = 0;
    for (uint32_t p = 0; p < P && C > 1; p++) {
        uint32_t *set = out + (size_t)p * C;
        uint32_t k = 1;
        while (k < C && set[k] != PLC_NO_NODE)
            k++;
        for (int pass = 0; pass < 2 && k < C; pass++) {
            for (uint32_t tries = 0; tries < r->nring && k < C; tries++) {
                uint32_t n = r->ring[at];
                at = (at + 1) % r->nring;
                if ((pass || r->rcount[n] < r->rquota[n]) && acceptable(r, set, k, n)) {
                    set[k++] = n;
                    r->rcount[n]++;
                }
            }
        }
    }
    return 0;
}

/* The start map from the previous snapshot, in this builder's indices. */
static int start_from_previous(const placer_builder *b, uint32_t P, uint32_t C, uint32_t *start)
{
    const placer_snapshot *prev = b->previous;
    if (prev->strategy != PLACER_PARTITIONS || prev->table.n != P ||
        prev->key_hash != b->eff_hash)
        return PLACER_EINVAL;
    const plc_table *t = prev->has_target ? &prev->ttable : &prev->table;
    for (uint32_t p = 0; p < P; p++)
        for (uint32_t c = 0; c < C; c++) {
            uint32_t n = c < t->width ? t->own[(size_t)p * t->width + c] : PLC_NO_NODE;
            int mine = n == PLC_NO_NODE ? -1 : plc_builder_find(b, prev->nodes[n].id);
            start[(size_t)p * C + c] = mine < 0 ? PLC_NO_NODE : (uint32_t)mine;
        }
    return 0;
}

static int set_placement(rebalance *r, int target)
{
    uint32_t m = 0;
    for (uint32_t n = 0; n < r->b->nnodes; n++) {
        r->in[n] = (uint8_t)plc_in_placement(r->b->nodes[n].state, target);
        m += r->in[n];
    }
    return m ? zone_ring(r) : PLACER_ENONODES;
}

int plc_partitions_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    if (b->map) /* imported: served as given */
        return plc_table_snapshot(b, epoch, b->map_copies, b->map, b->map_parts, b->fwd,
                                  b->map_parts, out);
    uint32_t P = b->table_size ? b->table_size : PLACER_DEFAULT_PARTITIONS;
    uint32_t C = b->replicas ? b->replicas : DEFAULT_COPIES;
    size_t cells = (size_t)P * C, nn = b->nnodes;
    int transition = plc_builder_in_transition(b);
    rebalance r = {b, P, C, plc_malloc(nn), plc_malloc(nn * 4), plc_malloc(nn * 4),
                   plc_malloc(nn * 4), plc_malloc(nn * 4), plc_malloc(nn * 4), 0, 0};
    uint32_t *start = b->previous ? plc_malloc(cells * 4) : NULL;
    uint32_t *cur = plc_malloc(cells * 4);
    uint32_t *tgt = transition ? plc_malloc(cells * 4) : NULL;
    int err = PLACER_ENOMEM;
    if (r.in && r.quota && r.rquota && r.count && r.rcount && r.ring && cur &&
        (!b->previous || start) && (!transition || tgt)) {
        err = start ? start_from_previous(b, P, C, start) : 0;
        if (!err)
            err = set_placement(&r, 0);
        if (!err)
            err = rebalance_map(&r, start, cur);
        if (!err && transition && !(err = set_placement(&r, 1)))
            err = rebalance_map(&r, cur, tgt);
        if (!err)
            err = plc_table_snapshot(b, epoch, C, cur, P, tgt, P, out);
    }
    plc_free(r.in);
    plc_free(r.quota);
    plc_free(r.rquota);
    plc_free(r.count);
    plc_free(r.rcount);
    plc_free(r.ring);
    plc_free(start);
    plc_free(cur);
    plc_free(tgt);
    return err;
}
