/*
 * ring_balance.h -- every node's tokens for a ring built with
 * PLACER_TOKENS_BALANCED (ring_balance.c): explicit tokens and those of the
 * previous snapshot are kept, the other nodes' are allocated
 * (token_balance.h) one node at a time in index order.
 */
#ifndef PLC_ENGINE_RING_BALANCE_H
#define PLC_ENGINE_RING_BALANCE_H

#include <stdint.h>

#include "placer.h"

/* Node n's tokens are tokens[first[n] .. first[n + 1]), ascending. */
typedef struct plc_balanced {
    uint32_t *first; /* nnodes + 1 entries */
    uint64_t *tokens;
} plc_balanced;

/* Fill *out for b (a ring builder). Returns 0, PLACER_EINVAL (b->previous
 * is not a ring), PLACER_ETOOMANY or PLACER_ENOMEM (then *out holds
 * nothing). */
int plc_ring_balance(const placer_builder *b, plc_balanced *out);

/* Release what plc_ring_balance filled; the fields become NULL. */
void plc_balanced_free(plc_balanced *bt);

#endif
