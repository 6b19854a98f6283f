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
 * Cost: not a walk of tokens per set, which costs O(T) a set where a rack
 * or datacenter holds one token of many (O(T^2) for the ring: seconds for
 * a hostile 1 MB file), but one backward pass over the slots keeping
 * move-to-front lists of hosts and racks (struct walk below), from which
 * each set is read in O(RF^2): O(T x RF^2) in all, O(n log n) before.
 * Most rings take a sweep instead: replica_sweep.c's (placer's walk,
 * SimpleStrategy, one datacenter of enough racks), or replica_sweep_dcs.c's
 * (datacenters of at least as many racks as their factors, or of one
 * rack); the lists take the rest, a datacenter of 2 racks or more but
 * fewer than its factor.
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

/* Move-to-front lists (doubly linked through prev/next, NIL-ended). */
#define NIL UINT32_MAX

static void to_front(uint32_t *prev, uint32_t *next, uint32_t *head, uint32_t x, int listed)
{
    if (listed) {
        if (*head == x)
            return;
        next[prev[x]] = next[x]; /* not the head: it has a prev */
        if (next[x] != NIL)
            prev[next[x]] = prev[x];
    }
    prev[x] = NIL;
    next[x] = *head;
    if (*head != NIL)
        prev[*head] = x;
    *head = x;
}

/* The walk from a slot, as lists: walking backward over the ring, each
 * slot's owner moves to the front of its datacenter's hosts and of its
 * rack's hosts, and its rack to the front of its datacenter's racks. After
 * a first lap, at slot i every list is in the order of first occurrence
 * in the walk from i (a host, rack or datacenter met only before i keeps
 * the order of the lap before), and pos[h] is the slot where the walk from
 * i first meets host h. A host is decided at its first occurrence: one
 * skipped (its rack met, no repeat left) stays skipped, so the rule reads
 * the lists' heads instead of walking tokens. */
typedef struct walk {
    uint32_t *hprev, *hnext, *rprev, *rnext, *pos; /* per node */
    uint32_t *kprev, *knext, *rack_head;           /* per rack: its hosts' list */
    uint32_t *host_head, *rack_list, *hosts, *racks; /* per datacenter */
    unsigned char *seen, *rack_seen;
} walk;

static void meet(walk *w, const topo *tp, uint32_t o, uint32_t slot)
{
    uint32_t d = tp->dc[o], r = tp->rack[o];
    to_front(w->hprev, w->hnext, &w->host_head[d], o, w->seen[o]);
    to_front(w->rprev, w->rnext, &w->rack_head[r], o, w->seen[o]);
    to_front(w->kprev, w->knext, &w->rack_list[d], r, w->rack_seen[r]);
    w->hosts[d] += !w->seen[o];
    w->racks[d] += !w->rack_seen[r];
    w->seen[o] = w->rack_seen[r] = 1;
    w->pos[o] = slot;
}

/* Datacenter d's replicas from the lists (DatacenterEndpoints's result):
 * want = min(RF, hosts). RF up to the racks: the first host of each of the
 * first `want` racks met. RF above: the first host of every rack, and the
 * first want - racks other hosts met (the repeats, taken as met). */
static uint32_t dc_set(const walk *w, const topo *tp, uint32_t d, uint32_t rf, int nts,
                       uint32_t *out)
{
    uint32_t want = rf < w->hosts[d] ? rf : w->hosts[d], count = 0;
    if (!nts) { /* SimpleStrategy: the first hosts met */
        for (uint32_t x = w->host_head[d]; x != NIL && count < want; x = w->hnext[x])
            out[count++] = x;
        return count;
    }
    for (uint32_t r = w->rack_list[d]; r != NIL && count < want && count < rf; r = w->knext[r])
        out[count++] = w->rack_head[r];
    for (uint32_t x = w->host_head[d]; x != NIL && count < want; x = w->hnext[x])
        if (w->rack_head[tp->rack[x]] != x)
            out[count++] = x;
    return count;
}

/* The datacenters replicated to (a factor above 0; SimpleStrategy: the
 * one datacenter of every node, factor R), at most PLACER_MAX_REPLICAS. */
static uint32_t replicated(const placer_snapshot *s, const topo *tp, uint32_t R, uint32_t *dc,
                           uint32_t *rf)
{
    if (s->rep_rule != PLACER_REPLICATION_NETWORK_TOPOLOGY) {
        dc[0] = 0;
        rf[0] = R;
        return 1;
    }
    uint32_t n = 0;
    for (uint32_t o = 0; o < s->nnodes && n < PLACER_MAX_REPLICAS; o++) {
        uint32_t j = 0;
        while (j < n && dc[j] != tp->dc[o])
            j++;
        if (j == n && s->nodes[o].dc_rf) {
            dc[n] = tp->dc[o];
            rf[n++] = s->nodes[o].dc_rf;
        }
    }
    return n;
}

/* Every slot's set from the move-to-front lists (struct walk): any ring
 * and rule, O(T x RF^2). */
static int lists_sets(const placer_snapshot *s, const topo *tpp, uint32_t R, uint32_t *sets)
{
    const plc_stree *t = &s->tree;
    int nts = s->rep_rule == PLACER_REPLICATION_NETWORK_TOPOLOGY, err = 0;
    topo tp = *tpp;
    size_t n = s->nnodes, k = tp.nrack, d = tp.ndc;
    uint32_t *mem = plc_malloc((5 * n + 3 * k + 4 * d) * sizeof *mem);
    unsigned char *flags = plc_calloc(n + k + 1, 1);
    if (!mem || !flags)
        err = PLACER_ENOMEM;
    if (!err) {
        walk w = {mem, mem + n, mem + 2 * n, mem + 3 * n, mem + 4 * n,
                  mem + 5 * n, mem + 5 * n + k, mem + 5 * n + 2 * k,
                  mem + 5 * n + 3 * k, mem + 5 * n + 3 * k + d, mem + 5 * n + 3 * k + 2 * d,
                  mem + 5 * n + 3 * k + 3 * d, flags, flags + n};
        for (size_t x = 0; x < k; x++)
            w.rack_head[x] = NIL;
        for (size_t x = 0; x < d; x++)
            w.host_head[x] = w.rack_list[x] = NIL, w.hosts[x] = w.racks[x] = 0;
        for (uint32_t i = t->n; i-- > 0;) /* the lap before: every list filled */
            meet(&w, &tp, plc_stree_owner_at(t, i), i);
        uint32_t dcs[PLACER_MAX_REPLICAS], rfs[PLACER_MAX_REPLICAS];
        uint32_t nd = replicated(s, &tp, R, dcs, rfs);
        for (uint32_t i = t->n; i-- > 0;) {
            meet(&w, &tp, plc_stree_owner_at(t, i), i);
            uint32_t *out = sets + (size_t)i * R, count = 0, got[PLACER_MAX_REPLICAS];
            for (uint32_t j = 0; j < nd; j++) {
                uint32_t c = dc_set(&w, &tp, dcs[j], rfs[j], nts, got);
                for (uint32_t m = 0; m < c && count < R; m++)
                    out[count++] = got[m];
            }
            /* the walk's order: by the slot where the walk from i meets each */
            for (uint32_t a = 1; a < count; a++)
                for (uint32_t b = a; b > 0; b--) {
                    uint32_t x = out[b - 1], y = out[b];
                    uint32_t dx = w.pos[x] - i + (w.pos[x] < i ? t->n : 0);
                    uint32_t dy = w.pos[y] - i + (w.pos[y] < i ? t->n : 0);
                    if (dx <= dy)
                        break;
                    out[b - 1] = y;
                    out[b] = x;
                }
            for (uint32_t j = count; j < R; j++)
                out[j] = UINT32_MAX;
        }
    }
    plc_free(mem);
    plc_free(flags);
    return err;
}

/* NetworkTopologyStrategy's sets by replica_sweep_dcs.c's sweep, where
 * each datacenter replicated to takes one list: racks (keys the racks'
 * ids) when it has at least its factor of racks owning tokens, the first
 * hosts met (keys past the racks' ids: every host a rack of its own) when
 * it has one rack, as many as it has hosts up to its factor. 0,
 * PLACER_ENOMEM, or PLC_SWEEP_DECLINED (a datacenter of 2 racks or more
 * but fewer than its factor: the lists). */
static int swept_dcs(const placer_snapshot *s, const topo *tp, uint32_t R, uint32_t *sets)
{
    uint32_t dcs[PLACER_MAX_REPLICAS], rfs[PLACER_MAX_REPLICAS], width[PLACER_MAX_REPLICAS];
    uint32_t nd = replicated(s, tp, R, dcs, rfs), n = s->nnodes, kept = 0;
    /* per datacenter: hosts and racks owning tokens; per node: its list
     * (UINT32_MAX: none) and key */
    uint32_t *hosts = plc_calloc((size_t)tp->ndc + 1, sizeof *hosts);
    uint32_t *racks = plc_calloc((size_t)tp->ndc + 1, sizeof *racks);
    uint32_t *list = plc_malloc(sizeof *list * ((size_t)n + 1));
    uint32_t *key = plc_malloc(sizeof *key * ((size_t)n + 1));
    unsigned char *seen = plc_calloc((size_t)n + 1, 1), *rack_seen = plc_calloc(tp->nrack + 1, 1);
    uint32_t list_of_dc[PLACER_MAX_REPLICAS], by_hosts[PLACER_MAX_REPLICAS];
    int rc = 0;
    if (!hosts || !racks || !list || !key || !seen || !rack_seen)
        rc = PLACER_ENOMEM;
    for (uint32_t i = 0; !rc && i < s->tree.n; i++) {
        uint32_t o = plc_stree_owner_at(&s->tree, i);
        hosts[tp->dc[o]] += !seen[o];
        racks[tp->dc[o]] += !rack_seen[tp->rack[o]];
        seen[o] = rack_seen[tp->rack[o]] = 1;
    }
    for (uint32_t j = 0; !rc && j < nd; j++) {
        uint32_t d = dcs[j], rf = rfs[j];
        list_of_dc[j] = UINT32_MAX;
        by_hosts[j] = racks[d] < rf;
        if (by_hosts[j] && racks[d] > 1)
            rc = PLC_SWEEP_DECLINED; /* hosts of racks met repeat: the lists */
        width[kept] = by_hosts[j] && hosts[d] < rf ? hosts[d] : rf;
        if (!rc && width[kept]) /* a datacenter owning no token adds nothing */
            list_of_dc[j] = kept++;
    }
    for (uint32_t o = 0; !rc && o < n; o++) {
        uint32_t j = 0;
        while (j < nd && dcs[j] != tp->dc[o])
            j++;
        list[o] = j < nd ? list_of_dc[j] : UINT32_MAX;
        key[o] = j < nd && by_hosts[j] ? tp->nrack + o : tp->rack[o];
    }
    if (!rc) /* no list kept (no datacenter to fill): declined, the lists' empty sets */
        rc = plc_replica_sweep_dcs(s, R, key, list, width, kept, sets);
    plc_free(hosts);
    plc_free(racks);
    plc_free(list);
    plc_free(key);
    plc_free(seen);
    plc_free(rack_seen);
    return rc;
}

/* The topology's ids (SimpleStrategy: one datacenter of everything). */
static int topology(const placer_snapshot *s, topo *tp)
{
    int err = number_topology(s, tp);
    if (!err && s->rep_rule != PLACER_REPLICATION_NETWORK_TOPOLOGY)
        for (uint32_t o = 0; o < s->nnodes; o++)
            tp->dc[o] = 0;
    return err;
}

static void topology_free(topo *tp)
{
    plc_free(tp->dc);
    plc_free(tp->rack);
}

int plc_replica_sets(const placer_snapshot *s, uint32_t R, uint32_t *sets)
{
    int swept = plc_replica_sweep(s, R, sets); /* all but NetworkTopologyStrategy's harder rings */
    if (swept != PLC_SWEEP_DECLINED)
        return swept;
    topo tp = {0};
    int err = topology(s, &tp);
    if (!err && s->rep_rule == PLACER_REPLICATION_NETWORK_TOPOLOGY)
        err = swept_dcs(s, &tp, R, sets); /* datacenters of enough racks, or of one */
    if (err == PLC_SWEEP_DECLINED || (!err && s->rep_rule != PLACER_REPLICATION_NETWORK_TOPOLOGY))
        err = lists_sets(s, &tp, R, sets);
    topology_free(&tp);
    return err;
}

/* One way alone, inside the topology's ids. */
static int with_topology(const placer_snapshot *s, uint32_t R, uint32_t *sets,
                         int (*way)(const placer_snapshot *, const topo *, uint32_t, uint32_t *))
{
    topo tp = {0};
    int err = topology(s, &tp);
    if (!err)
        err = way(s, &tp, R, sets);
    topology_free(&tp);
    return err;
}

int plc_replica_sets_by_lists(const placer_snapshot *s, uint32_t R, uint32_t *sets)
{
    return with_topology(s, R, sets, lists_sets);
}

int plc_replica_sets_by_dc_sweep(const placer_snapshot *s, uint32_t R, uint32_t *sets)
{
    if (s->rep_rule != PLACER_REPLICATION_NETWORK_TOPOLOGY)
        return PLC_SWEEP_DECLINED;
    return with_topology(s, R, sets, swept_dcs);
}
