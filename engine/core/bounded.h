/*
 * bounded.h -- consistent hashing with bounded loads (Mirrokni, Thorup and
 * Zadimoghaddam, SODA 2018; Envoy's hash_balance_factor): a key goes to the
 * first node clockwise from its position that is under a capacity of
 * ceil(c * (total + 1) / m), where total keys are placed already, m nodes
 * can take keys and c >= 1 is the balance factor; the new key is counted,
 * so once it is placed no node holds more than ceil(c * total / m).
 *
 * Pure functions: the walk reads owners through a callback, so the ring's
 * leaf lines, a flat table or a test's array can all be walked.
 */
#ifndef PLC_ENGINE_BOUNDED_H
#define PLC_ENGINE_BOUNDED_H

#include <stddef.h>
#include <stdint.h>

/* c is read in millionths (rounded to the nearest): the capacity is then
 * exactly ceil(c * (total + 1) / m) in integers, 1.1 meaning 11/10. */
#define PLC_BOUNDED_C_SCALE 1000000
#define PLC_BOUNDED_C_MAX 4294967296.0

/* ceil(c * (total + 1) / m), exactly (128-bit integers, c in millionths),
 * saturated to UINT64_MAX; c >= 1 (+inf allowed: read as
 * PLC_BOUNDED_C_MAX), m >= 1 (the caller checks).
 * Since the m loads sum to total, at least one is below it: m * that >=
 * c * (total + 1) > total. */
uint64_t plc_bounded_capacity(uint64_t total, double c, uint32_t m);

/* The capacity as the fraction num / den it is the ceiling of, for the
 * common case without a division: load < ceil(num / den) exactly when
 * load * den < num (load is whole). */
typedef struct plc_bound {
    unsigned __int128 num, den;
} plc_bound;

static inline plc_bound plc_bounded_fraction(uint64_t total, double c, uint32_t m)
{
    /* c in millionths, exactly: 1.1 is 11/10, not the double just above it
     * (whose exact ceil would be one more when c * (total + 1) / m is a
     * whole number in decimal, e.g. 1.1 * 10 / 11). Past 2^32 the capacity
     * is past any load (m <= 2^32), so c is clamped there. */
    double cc = c < PLC_BOUNDED_C_MAX ? c : PLC_BOUNDED_C_MAX;
    /* the nearest millionth, halves up: exact, as cc * 10^6 < 2^52 */
    unsigned __int128 p = (uint64_t)(cc * PLC_BOUNDED_C_SCALE + 0.5);
    return (plc_bound){p * ((unsigned __int128)total + 1), /* < 2^52 * 2^64 */
                       (unsigned __int128)PLC_BOUNDED_C_SCALE * m};
}

static inline int plc_bounded_below(plc_bound b, uint32_t load)
{
    return (unsigned __int128)load * b.den < b.num;
}

/* The owner of the next position clockwise (the first call: the key's own
 * owner). */
typedef uint32_t (*plc_next_owner_fn)(void *cursor);

/* Which nodes may take keys: node i may when the int at
 * (const char *)states + i * stride is one of PLACER_NODE_ACTIVE or
 * PLACER_NODE_DRAINING (the nodes that own keys now and are up). */
typedef struct plc_node_states {
    const void *states;
    size_t stride;
} plc_node_states;

static inline int plc_bounded_eligible(plc_node_states st, uint32_t node)
{
    int state = *(const int *)(const void *)((const char *)st.states + (size_t)node * st.stride);
    return state == 0 /* PLACER_NODE_ACTIVE */ || state == 2 /* PLACER_NODE_DRAINING */;
}

/* Read at most `steps` owners from next(cursor) and return the first that
 * may take keys and whose loads[] entry is below cap; PLACER_NO_NODE when
 * none is (only when the loads of the eligible nodes sum past the total the
 * capacity was computed from, or none is eligible). */
uint32_t plc_bounded_walk(plc_next_owner_fn next, void *cursor, uint32_t steps,
                          plc_node_states st, const uint32_t *loads, uint64_t cap);

#endif
