/*
 * lookup_bounded.c -- placer_lookup_bounded and the router's
 * placer_router_lookup_bounded: consistent hashing with bounded loads
 * (bounded.h) over a ring snapshot.
 *
 * The common case is the key's own owner under the capacity: the plain
 * lookup's path (hash and directory, or the fused kernel), two 128-bit
 * multiplies for the capacity compared without dividing (bounded.h), one
 * load and one node state read. Only past it is the capacity divided out
 * and the walk started, from the slot after the key's, through the leaf
 * lines.
 */
#include <math.h>

#include "bounded.h"
#include "snapshot_internal.h"
#include "strategy_ops.h"
#include "validate.h"

typedef struct leaf_cursor {
    const plc_stree *t;
    uint32_t i;
} leaf_cursor;

static uint32_t leaf_next(void *cursor)
{
    leaf_cursor *c = cursor;
    c->i = c->i + 1 == c->t->n ? 0 : c->i + 1;
    return plc_stree_owner_at(c->t, c->i);
}

int placer_lookup_bounded(const placer_snapshot *s, const void *key, size_t len,
                          const uint32_t *loads, uint64_t total, double c, uint32_t *owner_out)
{
    PLC_VALIDATE_OR_RET(s && (key || !len) && loads && owner_out, PLACER_ENULL);
    /* c in [1, +inf]: NaN, -inf, negatives, zeros and subnormals fail; from
     * 2^32 on (+inf too) plc_bounded_fraction reads it as 2^32 */
    PLC_VALIDATE_OR_RET(c >= 1, PLACER_EINVAL);
    if (!(s->ops->traits & PLACER_TRAIT_BOUNDED))
        return PLACER_ENOTSUP;
    uint32_t m = s->nbounded;
    if (!m)
        return PLACER_ENOLIVE;
    plc_node_states st = {&s->nodes[0].state, sizeof s->nodes[0]};
    plc_bound bound = plc_bounded_fraction(total, c, m);
    uint32_t o = (uint32_t)plc_lookup_key(s, key, len); /* placer_lookup's own path */
    if (plc_bounded_below(bound, loads[o]) && plc_bounded_eligible(st, o)) {
        *owner_out = o; /* no division on this path */
        return 0;
    }
    uint64_t cap = plc_bounded_capacity(total, c, m);
    leaf_cursor cur = {&s->tree, plc_slot(s, plc_position(s, key, len))};
    o = plc_bounded_walk(leaf_next, &cur, s->tree.n - 1, st, loads, cap);
    if (o == PLACER_NO_NODE)
        return PLACER_EINVAL; /* every eligible node full: loads past total */
    *owner_out = o;
    return 0;
}

int placer_router_lookup_bounded(placer_router *r, const void *key, size_t len,
                                 const uint32_t *loads, uint32_t nloads, uint64_t total, double c,
                                 uint32_t *owner_out, uint64_t *epoch)
{
    PLC_VALIDATE_OR_RET(r && (key || !len) && loads && owner_out, PLACER_ENULL);
    const placer_snapshot *s = placer_router_acquire(r);
    int err = PLACER_ERANGE;
    if (epoch)
        *epoch = s->epoch;
    if (nloads >= s->nnodes)
        err = placer_lookup_bounded(s, key, len, loads, total, c, owner_out);
    placer_router_release(r, s);
    return err;
}
