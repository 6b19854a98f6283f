/*
 * states.c -- node states in lookups: the owner and the next owner while a
 * node joins or drains (both placements live in the snapshot), and the
 * first replica that is not down.
 */
#include "alloc.h"
#include "snapshot_internal.h"
#include "validate.h"

int placer_lookup_hash_handoff(const placer_snapshot *s, uint64_t hash, uint32_t *owner,
                               uint32_t *next_owner)
{
    PLC_VALIDATE_OR_RET(s && owner && next_owner, PLACER_ENULL);
    uint32_t now = plc_owner(s, hash, 0), next = plc_owner(s, hash, 1);
    if (now == PLC_NO_NODE)
        return PLACER_ENOLIVE;
    *owner = now;
    *next_owner = next == PLC_NO_NODE ? now : next;
    return 0;
}

int placer_lookup_handoff(const placer_snapshot *s, const void *key, size_t len, uint32_t *owner,
                          uint32_t *next_owner)
{
    PLC_VALIDATE_OR_RET(s && (key || !len) && owner && next_owner, PLACER_ENULL);
    return placer_lookup_hash_handoff(s, plc_position(s, key, len), owner, next_owner);
}

/* The first node of `set` that is not down, or -1. */
static int first_up(const placer_snapshot *s, const uint32_t *set, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (s->nodes[set[i]].state != PLACER_NODE_DOWN)
            return (int)set[i];
    return -1;
}

int placer_lookup_live(const placer_snapshot *s, const void *key, size_t len)
{
    PLC_VALIDATE_OR_RET(s && (key || !len), PLACER_ENULL);
    uint64_t h = plc_position(s, key, len);
    /* Down nodes are rare: the first few replicas nearly always hold a live
     * one; only if not, walk the whole replica order. */
    uint32_t few[8], zones;
    uint32_t want = s->nnodes < 8 ? s->nnodes : 8;
    uint32_t n = plc_replicas_at(s, h, few, want, &zones);
    int live = first_up(s, few, n);
    if (live >= 0 || n < want)
        return live >= 0 ? live : PLACER_ENOLIVE;
    uint32_t *all = plc_malloc((size_t)s->nnodes * sizeof *all);
    if (!all)
        return PLACER_ENOMEM;
    n = plc_replicas_at(s, h, all, s->nnodes, &zones);
    live = first_up(s, all, n);
    plc_free(all);
    return live >= 0 ? live : PLACER_ENOLIVE;
}

int placer_node_state(const placer_snapshot *s, uint32_t node)
{
    PLC_VALIDATE_OR_RET(s, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(node < s->nnodes, PLACER_ERANGE);
    return s->nodes[node].state;
}

int placer_snapshot_in_transition(const placer_snapshot *s)
{
    return s ? s->has_target : 0;
}
