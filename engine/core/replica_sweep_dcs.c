/*
 * replica_sweep_dcs.c -- NetworkTopologyStrategy's sets over several
 * datacenters in one backward sweep, where each datacenter replicated to
 * has at least its factor RF of racks owning tokens, or a single rack.
 * With enough racks its replicas from a slot are the first host of each
 * of the first RF racks the walk meets (no host of a rack met repeats);
 * with one rack, the first RF hosts met (every host after the first a
 * repeat of its rack, and RF - 1 repeats allowed), or all of them when
 * fewer. Either way one list a datacenter answers every set: the first
 * keys met (racks, or hosts as racks of their own), each with the host at
 * its first slot and that slot. Slot i's lists are slot i + 1's with slot
 * i's key moved to the front of its datacenter's list, evicting its copy
 * or the last entry, as replica_sweep.c does for one datacenter. A set is
 * the datacenters' lists in replica_rules.c's order, cut at R, sorted by
 * the slot each host is met at: the walk's order, the datacenters' hosts
 * interleaved.
 *
 * The lists are kept as one, in the order their keys are met: the key
 * moved to the front is met first from slot i, so the others keep their
 * order, and the entry it evicts is its copy or its datacenter's last. A
 * set of every listed host (R at least the lists' widths, the build's
 * width) is that list as it stands; a narrower one is cut in the
 * datacenters' order, then sorted. The moves are written with masks: which
 * entry goes is a coin toss a branch predictor loses.
 *
 * replica_rules.c's move-to-front lists give the same sets for any ring,
 * at several times the time (two laps of three list moves a slot, then
 * each set read from the lists and sorted); they take the rings declined
 * here, a datacenter of 2 racks or more but fewer than its factor.
 */
#include "snapshot_internal.h"

#define EMPTY UINT32_MAX

/* The keys listed, the first met first: key[j] (a rack's id, or a host's
 * past them), the host at its first slot host[j], its datacenter's list
 * dc[j] and that slot at[j] (past the ring's end, n + slot, in the lap
 * after it); W entries, each datacenter's width of them. */
typedef struct merged {
    uint32_t key[PLACER_MAX_REPLICAS], host[PLACER_MAX_REPLICAS];
    uint32_t dc[PLACER_MAX_REPLICAS], at[PLACER_MAX_REPLICAS];
} merged;

/* Key r of datacenter list d, first met at slot `at` on host h, to the
 * front: the entries before the one it evicts (its copy, else d's last)
 * move down one. */
static inline __attribute__((always_inline)) void to_front(merged *m, const uint32_t W,
                                                           uint32_t r, uint32_t d, uint32_t h,
                                                           uint32_t at)
{
    uint32_t copy = 0, last = 0; /* bit j: entry j is r; entry j is d's */
    for (uint32_t j = 0; j < W; j++) {
        copy |= (uint32_t)(m->key[j] == r) << j;
        last |= (uint32_t)(m->dc[j] == d) << j;
    }
    /* the evicted entry: the copy (at most one), else d's last */
    uint32_t gone = copy ? copy : (uint32_t)1 << (31 - __builtin_clz(last | 1));
    uint32_t moves = gone - 1; /* bit j: entry j moves down to j + 1 */
    for (uint32_t j = W - 1; j > 0; j--) {
        uint32_t keep = -(((moves >> (j - 1)) & 1) ^ 1); /* all ones: j stays */
        m->key[j] = (m->key[j] & keep) | (m->key[j - 1] & ~keep);
        m->host[j] = (m->host[j] & keep) | (m->host[j - 1] & ~keep);
        m->dc[j] = (m->dc[j] & keep) | (m->dc[j - 1] & ~keep);
        m->at[j] = (m->at[j] & keep) | (m->at[j - 1] & ~keep);
    }
    m->key[0] = r;
    m->host[0] = h;
    m->dc[0] = d;
    m->at[0] = at;
}

/* A set narrower than the list: the datacenters' entries in their order,
 * cut at R, then by slot met (the list's order). */
static void cut_set(const merged *m, uint32_t W, uint32_t nd, uint32_t R, uint32_t *set)
{
    uint32_t taken = 0, count = 0;
    for (uint32_t d = 0; d < nd; d++)
        for (uint32_t j = 0; j < W && count < R; j++)
            if (m->dc[j] == d)
                taken |= (uint32_t)1 << j, count++;
    count = 0;
    for (uint32_t j = 0; j < W; j++)
        if (taken >> j & 1)
            set[count++] = m->host[j];
}

/* The sweep at width W (a constant where compiled apart). */
static inline __attribute__((always_inline)) void run(const placer_snapshot *s, merged *m,
                                                      const uint32_t W, const uint32_t *place,
                                                      const uint32_t *key_of, uint32_t nd,
                                                      uint32_t R, uint32_t *sets)
{
    const plc_stree *t = &s->tree;
    for (uint32_t l = t->nleaves; l-- > 0;) {
        const plc_stree_leaf *leaf = &t->leaves[l];
        uint32_t first = l * PLC_STREE_LEAF;
        uint32_t slots = t->n - first < PLC_STREE_LEAF ? t->n - first : PLC_STREE_LEAF;
        for (uint32_t x = slots; x-- > 0;) {
            uint32_t o = leaf->owner[x], d = place[o], *set = sets + (size_t)(first + x) * R;
            if (d != EMPTY)
                to_front(m, W, key_of[o], d, o, first + x);
            if (R >= W) {
                for (uint32_t j = 0; j < W; j++)
                    set[j] = m->host[j];
                for (uint32_t j = W; j < R; j++)
                    set[j] = EMPTY;
            } else {
                cut_set(m, W, nd, R, set);
            }
        }
    }
}

int plc_replica_sweep_dcs(const placer_snapshot *s, uint32_t R, const uint32_t *key_of,
                          const uint32_t *place, const uint32_t *widths, uint32_t nd, uint32_t *sets)
{
    const plc_stree *t = &s->tree;
    const uint32_t n = t->n;
    uint32_t want[PLACER_MAX_REPLICAS], W = 0;
    if (!nd || nd > PLACER_MAX_REPLICAS)
        return PLC_SWEEP_DECLINED;
    for (uint32_t d = 0; d < nd; d++) {
        if (!widths[d] || widths[d] > PLACER_MAX_REPLICAS - W)
            return PLC_SWEEP_DECLINED;
        want[d] = widths[d];
        W += widths[d];
    }
    /* The list from slot 0, the start of the lap after the sweep's first
     * slot: forward until each datacenter has its width of keys. One
     * short of them after a lap is declined. */
    merged m;
    uint32_t full = 0;
    for (uint32_t i = 0; i < n && full < W; i++) {
        uint32_t o = plc_stree_owner_at(t, i), d = place[o], j = 0;
        if (d == EMPTY || !want[d])
            continue; /* not replicated to, or its keys found */
        while (j < full && m.key[j] != key_of[o])
            j++;
        if (j < full)
            continue;
        m.key[full] = key_of[o];
        m.host[full] = o;
        m.dc[full] = d;
        m.at[full++] = n + i;
        want[d]--;
    }
    if (full < W)
        return PLC_SWEEP_DECLINED;
    switch (W) {
    case 2: run(s, &m, 2, place, key_of, nd, R, sets); break;
    case 3: run(s, &m, 3, place, key_of, nd, R, sets); break;
    case 4: run(s, &m, 4, place, key_of, nd, R, sets); break;
    case 5: run(s, &m, 5, place, key_of, nd, R, sets); break;
    case 6: run(s, &m, 6, place, key_of, nd, R, sets); break;
    default: run(s, &m, W, place, key_of, nd, R, sets); break;
    }
    return 0;
}
