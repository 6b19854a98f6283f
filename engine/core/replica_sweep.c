/*
 * replica_sweep.c -- every slot's replica set in one backward sweep over
 * the ring, for the sets whose rule is "the first distinct zones, then the
 * first distinct nodes": placer's walk (replica_walk.c), Cassandra's
 * SimpleStrategy, and its NetworkTopologyStrategy where one datacenter of
 * at least RF racks holds every token (the first RF racks' first hosts).
 * Other NetworkTopologyStrategy rings are declined: replica_rules.c's
 * lists then.
 *
 * The walk from slot i takes, in its first lap, the node at the first
 * slot of each zone not seen yet, ending once Z zones are taken; in its
 * second, the first nodes not taken yet, until `want` or every node. With
 * keys met going clockwise from i (the ring repeated, so wrapping is
 * free), both parts read two lists: the first `want` distinct zones from
 * i, each with the node at its first slot, and the first `want` distinct
 * nodes. Slot i's lists are slot i + 1's with slot i's zone (node) moved
 * to the front, evicting its copy or the last entry. Z is the same for
 * every slot, min(want, zones of the placement, zones owning tokens), so
 * a set is the zone list's first Z nodes, then the node list's entries
 * not taken: with Z = want (zones at least want: 3 zones, sets of 3) the
 * node list is not kept; with Z = 1 (one zone, or SimpleStrategy) the
 * zone list is not kept and the set is the node list.
 *
 * The lists' state after slot 0 (the sweep's start, at slot n == 0) is
 * found by a forward scan from slot 0 until both are full (at most one
 * lap), instead of a whole lap of pushes. Each push is a few compares and
 * conditional moves on a list of constant width, the common widths
 * compiled apart: about 2-4 ns a slot where plc_replicas_walk_all, which
 * keeps both lists for every case, spent 17 ns a slot (of two laps).
 * Scratch: each node's zone, 4 bytes a node.
 */
#include <string.h>

#include "alloc.h"
#include "snapshot_internal.h"

#define EMPTY UINT32_MAX

/* Key k (value v) to the front of key[0..W), dropping its copy, else the
 * last entry (EMPTY while the list is not full). Entry j moves down one
 * when none before it is k. Written with masks, not branches or selects
 * a compiler may turn into branches: whether the key is the list's first,
 * second or new is a coin toss the branch predictor loses. */
static inline __attribute__((always_inline)) void push(uint32_t *key, uint32_t *val,
                                                       const uint32_t W, uint32_t k, uint32_t v)
{
    uint32_t stay[PLACER_MAX_REPLICAS]; /* all ones when k is before entry j */
    uint32_t seen = 0;
    for (uint32_t j = 0; j < W; j++) {
        stay[j] = seen;
        seen |= -(uint32_t)(key[j] == k);
    }
    for (uint32_t j = W - 1; j > 0; j--) {
        key[j] = (key[j] & stay[j]) | (key[j - 1] & ~stay[j]);
        if (val)
            val[j] = (val[j] & stay[j]) | (val[j - 1] & ~stay[j]);
    }
    key[0] = k;
    if (val)
        val[0] = v;
}

typedef enum { ZONES_ONLY, NODES_ONLY, BOTH } sweep_mode;

/* The sweep's scratch and its constant parts. */
typedef struct sweep {
    const plc_stree *t;
    const uint32_t *zone; /* per node */
    uint32_t want, Z;
    uint32_t zk[PLACER_MAX_REPLICAS], zv[PLACER_MAX_REPLICAS]; /* zones, each with its node */
    uint32_t nk[PLACER_MAX_REPLICAS];                          /* nodes */
} sweep;

/* Slot i's set from its lists: the first Z zones' nodes, then the nodes
 * not taken; UINT32_MAX past the nodes there are. */
static void mixed_set(const sweep *w, uint32_t *set)
{
    uint32_t count = 0;
    for (uint32_t j = 0; j < w->Z; j++)
        set[count++] = w->zv[j];
    for (uint32_t j = 0; j < w->want && count < w->want && w->nk[j] != EMPTY; j++) {
        uint32_t taken = 0;
        for (uint32_t m = 0; m < w->Z; m++)
            taken |= w->zv[m] == w->nk[j];
        if (!taken)
            set[count++] = w->nk[j];
    }
    while (count < w->want)
        set[count++] = EMPTY;
}

/* The sweep from the last slot down to slot 0, lists of width W (want, a
 * constant where compiled apart). */
static inline __attribute__((always_inline)) void run(sweep *w, const uint32_t W,
                                                      const sweep_mode mode, uint32_t *sets)
{
    uint32_t zk[PLACER_MAX_REPLICAS], zv[PLACER_MAX_REPLICAS], nk[PLACER_MAX_REPLICAS];
    for (uint32_t j = 0; j < W; j++)
        zk[j] = w->zk[j], zv[j] = w->zv[j], nk[j] = w->nk[j];
    const plc_stree *t = w->t;
    for (uint32_t l = t->nleaves; l-- > 0;) {
        const plc_stree_leaf *leaf = &t->leaves[l];
        uint32_t first = l * PLC_STREE_LEAF;
        uint32_t slots = t->n - first < PLC_STREE_LEAF ? t->n - first : PLC_STREE_LEAF;
        for (uint32_t r = slots; r-- > 0;) {
            uint32_t o = leaf->owner[r], *set = sets + (size_t)(first + r) * W;
            if (mode != NODES_ONLY)
                push(zk, zv, W, w->zone[o], o);
            if (mode != ZONES_ONLY)
                push(nk, NULL, W, o, 0);
            if (mode == ZONES_ONLY) {
                for (uint32_t j = 0; j < W; j++)
                    set[j] = zv[j];
            } else if (mode == NODES_ONLY) {
                for (uint32_t j = 0; j < W; j++)
                    set[j] = nk[j];
            } else {
                for (uint32_t j = 0; j < W; j++)
                    w->zk[j] = zk[j], w->zv[j] = zv[j], w->nk[j] = nk[j];
                mixed_set(w, set);
            }
        }
    }
}

/* Fills the lists for the sweep's start: the first distinct zones and
 * nodes clockwise from slot 0, until both lists hold all they can (the
 * zones and nodes owning tokens, counted from the nodes' ntokens, at most
 * W each): a few slots, at most one lap. Returns the zones listed. */
static uint32_t start_lists(sweep *w, const placer_snapshot *s)
{
    uint32_t W = w->want, owning = 0, zones = 0;
    for (uint32_t j = 0; j < W; j++)
        w->zk[j] = w->zv[j] = w->nk[j] = EMPTY;
    for (uint32_t o = 0; o < s->nnodes && (owning < W || zones < W); o++) {
        if (!s->nodes[o].ntokens)
            continue;
        owning++;
        uint32_t j = 0;
        while (j < zones && w->zk[j] != w->zone[o])
            j++;
        if (j == zones && zones < W) /* counted here, listed in slot order below */
            w->zk[zones++] = w->zone[o];
    }
    uint32_t nz = 0, nn = 0, zmax = zones, nmax = owning < W ? owning : W;
    for (uint32_t j = 0; j < W; j++)
        w->zk[j] = EMPTY;
    for (uint32_t i = 0; i < w->t->n && (nz < zmax || nn < nmax); i++) {
        uint32_t o = plc_stree_owner_at(w->t, i), z = w->zone[o], j;
        for (j = 0; j < nz && w->zk[j] != z; j++)
            ;
        if (j == nz && nz < W)
            w->zk[nz] = z, w->zv[nz++] = o;
        for (j = 0; j < nn && w->nk[j] != o; j++)
            ;
        if (j == nn && nn < W)
            w->nk[nn++] = o;
    }
    return nz;
}

/* The sweep at width W in one mode, W a constant per case. */
#define WIDTHS(mode)                                                                               \
    switch (w->want) {                                                                             \
    case 1: run(w, 1, mode, sets); break;                                                          \
    case 2: run(w, 2, mode, sets); break;                                                          \
    case 3: run(w, 3, mode, sets); break;                                                          \
    case 4: run(w, 4, mode, sets); break;                                                          \
    case 5: run(w, 5, mode, sets); break;                                                          \
    case 6: run(w, 6, mode, sets); break;                                                          \
    case 7: run(w, 7, mode, sets); break;                                                          \
    default: run(w, PLACER_MAX_REPLICAS, mode, sets); break;                                       \
    }

/* NetworkTopologyStrategy whose sets are placer's first lap: every node
 * owning tokens in one datacenter replicated `want` times (a rack is then
 * a zone), and (checked after the lists) racks at least `want`. */
static int one_datacenter(const placer_snapshot *s, uint32_t want)
{
    const char *dc = NULL;
    for (uint32_t o = 0; o < s->nnodes; o++) {
        if (!s->nodes[o].ntokens)
            continue;
        if (s->nodes[o].dc_rf != want || (dc && strcmp(dc, s->nodes[o].datacenter)))
            return 0;
        dc = s->nodes[o].datacenter;
    }
    return dc != NULL;
}

int plc_replica_sweep(const placer_snapshot *s, uint32_t want, uint32_t *sets)
{
    const plc_stree *t = &s->tree;
    int rule = s->rep_rule;
    if (!want || !t->n)
        return 0;
    if (want > PLACER_MAX_REPLICAS) /* no list that wide */
        return rule == PLACER_REPLICATION_PLACER ? plc_replicas_walk_all(s, want, sets)
                                                 : PLC_SWEEP_DECLINED;
    if (rule == PLACER_REPLICATION_NETWORK_TOPOLOGY && !one_datacenter(s, want))
        return PLC_SWEEP_DECLINED;
    uint32_t *zone = plc_malloc(sizeof *zone * (s->nnodes ? s->nnodes : 1));
    if (!zone)
        return PLACER_ENOMEM;
    int zones = rule != PLACER_REPLICATION_SIMPLE; /* SimpleStrategy: one zone */
    for (uint32_t o = 0; o < s->nnodes; o++)
        zone[o] = zones ? s->nodes[o].zone_id : 0;
    sweep sw = {t, zone, want, 0, {0}, {0}, {0}}, *w = &sw;
    uint32_t present = start_lists(w, s), lap1 = zones && s->nzones < want ? s->nzones : want;
    w->Z = lap1 < present ? lap1 : present;
    if (w->Z < 1)
        w->Z = 1;
    if (rule == PLACER_REPLICATION_NETWORK_TOPOLOGY && w->Z < want) {
        plc_free(zone); /* fewer racks than the factor: hosts of racks met repeat */
        return PLC_SWEEP_DECLINED;
    }
    if (w->Z == want)
        WIDTHS(ZONES_ONLY)
    else if (w->Z == 1) /* the owner, then the first distinct nodes */
        WIDTHS(NODES_ONLY)
    else
        WIDTHS(BOTH)
    plc_free(zone);
    return 0;
}
