/*
 * replica_rules.c -- the rule a ring's precomputed replica sets follow
 * (s->rep_rule): placer's own walk (replica_walk.c), or the replication
 * strategies of Apache Cassandra's server, computed per token at build
 * time so that placer_replicas, its batch and the router answer them with
 * one read. The builds and the decoder's check ask this file only.
 *
 * Cassandra 4's rules, written from SimpleStrategy.calculateNaturalReplicas
 * and NetworkTopologyStrategy.calculateNaturalReplicas (one datacenter:
 * the ring's zones are its racks):
 *   - SimpleStrategy: walk the ring from the range's token (the first
 *     token >= the key's), taking each host not taken yet, until RF hosts
 *     (or every host).
 *   - NetworkTopologyStrategy: the same walk; a host of a rack not seen yet
 *     is taken; a host of a rack seen already is taken only while fewer
 *     than RF - racks such repeats were taken (RF above the racks: the
 *     first hosts met fill the difference); until min(RF, hosts).
 * The order is the walk's (the range's owner first), as the server lists
 * them; the set differs from placer's walk in order only.
 *
 * Cost: each set is a walk from its token, which ends after RF hosts are
 * met, bounded by two laps of the ring.
 */
#include <string.h>

#include "alloc.h"
#include "snapshot_internal.h"

/* One Cassandra set from slot `start`: writes at most R nodes, pads with
 * UINT32_MAX. seen/racks are per-node and per-zone marks, cleared after. */
static void cassandra_set(const placer_snapshot *s, int rule, uint32_t start, uint32_t R,
                          uint32_t hosts, uint32_t racks, unsigned char *seen,
                          unsigned char *rack_seen, uint32_t *out)
{
    const plc_stree *t = &s->tree;
    uint32_t want = R < hosts ? R : hosts, count = 0;
    int64_t repeats = (int64_t)R - (int64_t)racks;
    for (uint32_t step = 0; step < t->n && count < want; step++) {
        uint32_t i = start + step >= t->n ? start + step - t->n : start + step;
        uint32_t o = plc_stree_owner_at(t, i);
        if (seen[o])
            continue; /* "Cannot repeat a node." */
        uint32_t z = s->nodes[o].zone_id;
        if (rule == PLACER_REPLICATION_NETWORK_TOPOLOGY && rack_seen[z]) {
            if (repeats <= 0)
                continue; /* rfLeft distinct racks remain to be met */
            repeats--;
        }
        rack_seen[z] = 1;
        seen[o] = 1;
        out[count++] = o;
    }
    for (uint32_t j = 0; j < count; j++) {
        seen[out[j]] = 0;
        rack_seen[s->nodes[out[j]].zone_id] = 0;
    }
    for (uint32_t j = count; j < R; j++)
        out[j] = UINT32_MAX;
}

int plc_replica_sets(const placer_snapshot *s, uint32_t R, uint32_t *sets)
{
    if (!s->rep_rule)
        return plc_replicas_walk_all(s, R, sets);
    const plc_stree *t = &s->tree;
    unsigned char *seen = plc_calloc((size_t)s->nnodes + s->zone_ids + 2, 1);
    if (!seen)
        return PLACER_ENOMEM;
    unsigned char *rack_seen = seen + s->nnodes + 1;
    uint32_t hosts = 0, racks = 0; /* of the ring's current placement */
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t o = plc_stree_owner_at(t, i), z = s->nodes[o].zone_id;
        hosts += !seen[o];
        racks += !rack_seen[z];
        seen[o] = rack_seen[z] = 1;
    }
    memset(seen, 0, (size_t)s->nnodes + s->zone_ids + 2);
    for (uint32_t i = 0; i < t->n; i++)
        cassandra_set(s, s->rep_rule, i, R, hosts, racks, seen, rack_seen, sets + (size_t)i * R);
    plc_free(seen);
    return 0;
}
