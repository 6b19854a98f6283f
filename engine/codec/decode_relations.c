/*
 * decode_relations.c -- what a decoded snapshot must satisfy across its
 * sections, once each section has passed its own checks (decode.c): a
 * checksum proves the bytes arrived as written, not that whoever wrote them
 * (or a forger who recomputed the CRC) wrote a placement placer would
 * build.
 *
 * Ring replica sets are what the snapshot's replication rule gives from
 * their token (the builder's own code, plc_replica_sets: placer's walk or
 * Cassandra's strategies): so each starts with the range's owner, holds
 * only nodes of the current placement (never a joining one), distinct
 * nodes spread as the rule spreads them. Recomputing them and comparing is
 * exact: the encoding is canonical, so a set that differs is a forgery or
 * damage.
 */
#include <stdio.h>

#include "alloc.h"
#include "snapshot_internal.h"

int plc_snapshot_relations(const placer_snapshot *s, char *why, size_t why_len)
{
    if (!s->rep_r)
        return 0;
    uint32_t R = s->rep_r;
    /* every set at once (plc_replica_sets: a sweep or the rule's lists,
     * where a walk per slot could cross the ring each time) */
    uint32_t *all = plc_malloc((size_t)s->tree.n * R * sizeof *all);
    if (!all)
        return PLACER_ENOMEM;
    int err = plc_replica_sets(s, R, all);
    for (uint32_t i = 0; i < s->tree.n && !err; i++) {
        const uint32_t *stored = s->rep + (size_t)i * R, *set = all + (size_t)i * R;
        for (uint32_t j = 0; j < R && !err; j++) {
            if (stored[j] == set[j])
                continue;
            if (why && why_len && !j)
                snprintf(why, why_len, "replica set %u does not start with its range's owner "
                                       "(node %u, not %u)", i, set[0], stored[0]);
            else if (why && why_len)
                snprintf(why, why_len, "replica set %u: entry %u is node %u, the replication rule "
                                       "from the range gives %u%s", i, j, stored[j], set[j],
                         stored[j] < s->nnodes && s->nodes[stored[j]].state == PLACER_NODE_JOINING
                             ? " (a joining node holds no copy)" : "");
            err = PLACER_ECORRUPT;
        }
    }
    plc_free(all);
    return err;
}
