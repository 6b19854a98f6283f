/*
 * bounded.c -- consistent hashing with bounded loads (bounded.h).
 *
 * The walk visits positions, not distinct nodes: a node met again is
 * simply still full, so no set of seen nodes is kept, and the common case
 * -- the key's own owner is under the capacity -- costs one state read and
 * one load read after the lookup.
 */
#include <math.h>

#include "bounded.h"
#include "placer.h"

uint64_t plc_bounded_capacity(uint64_t total, double c, uint32_t m)
{
    plc_bound b = plc_bounded_fraction(total, c, m);
    unsigned __int128 cap = b.num / b.den + (b.num % b.den != 0);
    return cap > UINT64_MAX ? UINT64_MAX : (uint64_t)cap;
}

uint32_t plc_bounded_walk(plc_next_owner_fn next, void *cursor, uint32_t steps,
                          plc_node_states st, const uint32_t *loads, uint64_t cap)
{
    for (uint32_t i = 0; i < steps; i++) {
        uint32_t o = next(cursor);
        if (o != PLACER_NO_NODE && loads[o] < cap && plc_bounded_eligible(st, o))
            return o;
    }
    return PLACER_NO_NODE;
}
