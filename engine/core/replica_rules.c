/*
 * replica_rules.c -- the rule a ring's precomputed replica sets follow
 * (s->rep_rule): placer's own walk (replica_walk.c), or the replication
 * strategies of Apache Cassandra's server, computed per token at build
 * time so that placer_replicas, its batch and the router answer them with
 * one read. The builds and the decoder's check ask this file only.
 *
 * Cassandra 4's rules, written from SimpleStrategy.calculateNaturalReplicas
 * and NetworkTopologyStrategy.calculateNaturalReplicas:
 *   - SimpleStrategy: walk the ring from the range's token (the first
 *     token >= the key's), taking each host not taken yet, until RF hosts
 *     (or every host).
 *   - NetworkTopologyStrategy: two levels, a datacenter of racks (the
 *     nodes' datacenter and zone; a rack is the pair, so equal rack names
 *     in two datacenters are two racks). Each datacenter with a factor
 *     above 0 and a host is filled on its own (DatacenterEndpoints): the
 *     same one walk, a host of its datacenter is taken when its rack is
 *     new; a host of a rack seen already only while fewer than RF - racks
 *     such repeats were taken (RF above the racks: the first hosts met fill
 *     the difference); until min(RF, hosts of the datacenter). The walk
 *     stops when every datacenter is full, or after one lap.
 * Hosts and racks are counted over the ring's current placement. The order
 * is the walk's (the range's owner first when its datacenter replicates),
 * the datacenters' hosts interleaved as met: the server's one builder.
 *
 * Cost: each set is a walk from its token, at most one lap of the ring:
 * O(T) a set, O(T x RF) for rings whose racks each hold a share of the
 * tokens, O(T^2) at worst (a rack or datacenter owning one token of many).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "builder_internal.h"
#include "snapshot_internal.h"

static int has_dc(const plc_bnode *n)
{
    return n->dc_len > 0;
}

int plc_replication_resolve(placer_builder *b)
{
    int nts = b->rep_rule == PLACER_REPLICATION_NETWORK_TOPOLOGY;
    for (uint32_t i = 0; i < b->nnodes; i++) {
        plc_bnode *n = &b->nodes[i];
        n->dc_rf = 0;
        if (!nts)
            continue;
        n->dc_rf = b->rep_all;
        for (uint32_t d = 0; d < b->dc_map_n; d++)
            if (!strcmp(b->dc_map[d], has_dc(n) ? n->dc : ""))
                n->dc_rf = b->dc_map_rf[d];
    }
    if (!nts)
        return 0;
    /* The width: each replicated datacenter's factor once. Past
     * PLACER_MAX_REPLICAS of them the sum is too large already, so the
     * names kept to compare with stay few: O(nodes x PLACER_MAX_REPLICAS). */
    const char *named[PLACER_MAX_REPLICAS + 1];
    uint32_t width = 0, nnamed = 0;
    for (uint32_t i = 0; i < b->nnodes && width <= PLACER_MAX_REPLICAS; i++) {
        const plc_bnode *n = &b->nodes[i];
        const char *dc = has_dc(n) ? n->dc : "";
        uint32_t j = 0;
        while (j < nnamed && strcmp(named[j], dc))
            j++;
        if (!n->dc_rf || j < nnamed)
            continue;
        named[nnamed++] = dc;
        width += n->dc_rf;
    }
    if (!width)
        return plc_builder_refuse(b, "NetworkTopologyStrategy replicates to no datacenter of the "
                                     "ring (no factor above 0 for the nodes' datacenters)");
    if (width > PLACER_MAX_REPLICAS)
        return plc_builder_refuse(b, "NetworkTopologyStrategy's factors sum past "
                                     "PLACER_MAX_REPLICAS (%u) over the ring's datacenters",
                                  PLACER_MAX_REPLICAS);
    b->replicas = width;
    return 0;
}

/* The two levels of the nodes, as small ids: dc[n] a datacenter, rack[n]
 * a (datacenter, zone) pair. */
typedef struct topo {
    uint32_t *dc, *rack;
    uint32_t ndc, nrack;
} topo;

typedef struct place {
    const char *dc, *zone;
    uint32_t node;
} place;

static int by_dc_zone(const void *a, const void *b)
{
    const place *x = a, *y = b;
    int c = strcmp(x->dc, y->dc);
    return c ? c : strcmp(x->zone, y->zone);
}

static int number_topology(const placer_snapshot *s, topo *t)
{
    uint32_t n = s->nnodes;
    place *order = plc_malloc((size_t)n * sizeof *order);
    t->dc = plc_malloc((size_t)n * sizeof *t->dc);
    t->rack = plc_malloc((size_t)n * sizeof *t->rack);
    if (!order || !t->dc || !t->rack) {
        plc_free(order);
        return PLACER_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = (place){s->nodes[i].datacenter, s->nodes[i].zone, i};
    qsort(order, n, sizeof *order, by_dc_zone);
    t->ndc = t->nrack = 0;
    for (uint32_t r = 0; r < n; r++) {
        int new_dc = !r || strcmp(order[r].dc, order[r - 1].dc);
        t->ndc += new_dc;
        t->nrack += new_dc || strcmp(order[r].zone, order[r - 1].zone);
        t->dc[order[r].node] = t->ndc - 1;
        t->rack[order[r].node] = t->nrack - 1;
    }
    plc_free(order);
    return 0;
}

/* A datacenter being filled (DatacenterEndpoints): hosts still to take,
 * rack repeats still allowed. */
typedef struct fill {
    int64_t left, repeats;
} fill;

/* The datacenters replicated to (factor above 0, a host in the current
 * placement), at most PLACER_MAX_REPLICAS of them: slot[dc] their index,
 * -1 for the others; init their fills. */
typedef struct plan {
    int32_t *slot;
    fill init[PLACER_MAX_REPLICAS];
    uint32_t n;
} plan;

/* One Cassandra set from slot `start`: writes at most R nodes, pads with
 * UINT32_MAX. seen/rack_seen are per-node and per-rack marks, cleared after. */
static void cassandra_set(const placer_snapshot *s, const topo *tp, const plan *pl, uint32_t start,
                          uint32_t R, unsigned char *seen, unsigned char *rack_seen, uint32_t *out)
{
    const plc_stree *t = &s->tree;
    int nts = s->rep_rule == PLACER_REPLICATION_NETWORK_TOPOLOGY;
    fill f[PLACER_MAX_REPLICAS];
    memcpy(f, pl->init, sizeof f);
    uint32_t todo = pl->n, count = 0;
    for (uint32_t step = 0; step < t->n && todo && count < R; step++) {
        uint32_t i = start + step >= t->n ? start + step - t->n : start + step;
        uint32_t o = plc_stree_owner_at(t, i);
        int32_t k = pl->slot[tp->dc[o]];
        if (k < 0 || !f[k].left || seen[o])
            continue; /* not replicated there, its datacenter full, or "Cannot repeat a node." */
        uint32_t r = tp->rack[o];
        if (nts && rack_seen[r]) {
            if (f[k].repeats <= 0)
                continue; /* rfLeft distinct racks remain to be met */
            f[k].repeats--;
        }
        rack_seen[r] = 1;
        seen[o] = 1;
        out[count++] = o;
        todo -= --f[k].left == 0;
    }
    for (uint32_t j = 0; j < count; j++) {
        seen[out[j]] = 0;
        rack_seen[tp->rack[out[j]]] = 0;
    }
    for (uint32_t j = count; j < R; j++)
        out[j] = UINT32_MAX;
}

/* The fills of the datacenters replicated to, from the hosts and racks
 * of the current placement. SimpleStrategy: one datacenter of everything. */
static int make_plan(const placer_snapshot *s, const topo *tp, uint32_t R, plan *pl)
{
    const plc_stree *t = &s->tree;
    int nts = s->rep_rule == PLACER_REPLICATION_NETWORK_TOPOLOGY;
    uint32_t *hosts = plc_calloc((size_t)tp->ndc * 2 + 1, sizeof *hosts);
    unsigned char *mark = plc_calloc((size_t)s->nnodes + tp->nrack + 1, 1);
    pl->slot = plc_malloc(((size_t)tp->ndc + 1) * sizeof *pl->slot);
    if (!hosts || !mark || !pl->slot) {
        plc_free(hosts);
        plc_free(mark);
        return PLACER_ENOMEM;
    }
    uint32_t *racks = hosts + tp->ndc;
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t o = plc_stree_owner_at(t, i), d = tp->dc[o], r = tp->rack[o];
        hosts[d] += !mark[o];
        racks[d] += !mark[s->nnodes + r];
        mark[o] = mark[s->nnodes + r] = 1;
    }
    pl->n = 0;
    for (uint32_t d = 0; d < tp->ndc; d++)
        pl->slot[d] = -1;
    for (uint32_t o = 0; o < s->nnodes; o++) {
        uint32_t d = tp->dc[o];
        if (!nts) { /* SimpleStrategy: one datacenter, no racks */
            if (pl->slot[d] < 0)
                pl->slot[d] = 0;
            continue;
        }
        if (pl->slot[d] >= 0 || !s->nodes[o].dc_rf || !hosts[d] || pl->n == PLACER_MAX_REPLICAS)
            continue;
        uint32_t rf = s->nodes[o].dc_rf;
        pl->init[pl->n] = (fill){rf < hosts[d] ? rf : hosts[d], (int64_t)rf - racks[d]};
        pl->slot[d] = (int32_t)pl->n++;
    }
    if (!nts) {
        uint32_t all = 0;
        for (uint32_t d = 0; d < tp->ndc; d++)
            all += hosts[d];
        pl->init[0] = (fill){R < all ? R : all, 0};
        pl->n = 1;
    }
    plc_free(hosts);
    plc_free(mark);
    return 0;
}

int plc_replica_sets(const placer_snapshot *s, uint32_t R, uint32_t *sets)
{
    if (!s->rep_rule)
        return plc_replicas_walk_all(s, R, sets);
    topo tp = {0};
    plan pl = {0};
    int err = number_topology(s, &tp);
    if (!err)
        err = make_plan(s, &tp, R, &pl);
    unsigned char *seen = err ? NULL : plc_calloc((size_t)s->nnodes + tp.nrack + 1, 1);
    if (!err && !seen)
        err = PLACER_ENOMEM;
    for (uint32_t i = 0; !err && i < s->tree.n; i++)
        cassandra_set(s, &tp, &pl, i, R, seen, seen + s->nnodes, sets + (size_t)i * R);
    plc_free(seen);
    plc_free(pl.slot);
    plc_free(tp.dc);
    plc_free(tp.rack);
    return err;
}
