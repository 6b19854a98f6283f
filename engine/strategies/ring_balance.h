/*
 * ring_balance.h -- every node's tokens for a ring built with
 * PLACER_TOKENS_BALANCED (ring_balance.c): explicit tokens and those of the
 * previous snapshot are kept, the other nodes' are allocated (balancer.h)
 * one node at a time in index order, draining ones last; the tokens of the
 * nodes leaving (draining, or gone since the previous snapshot) are handed
 * over to the nodes most under their share.
 */
#ifndef PLC_ENGINE_RING_BALANCE_H
#define PLC_ENGINE_RING_BALANCE_H

#include <stdint.h>

#include "placer.h"
#include "radix_sort.h"

/* Node n's tokens are tokens[first[n] .. first[n + 1]), ascending; in the
 * target placement it also owns the draining nodes' tokens handed to it,
 * handed[hfirst[n] .. hfirst[n + 1]) (hfirst NULL: none were). */
typedef struct plc_balanced {
    uint32_t *first; /* nnodes + 1 entries */
    uint64_t *tokens;
    uint32_t *hfirst;
    uint64_t *handed;
} plc_balanced;

/* Fill *out for b (a ring builder). Returns 0, PLACER_EINVAL (b->previous
 * is not a ring), PLACER_ETOOMANY or PLACER_ENOMEM (then *out holds
 * nothing). */
int plc_ring_balance(const placer_builder *b, plc_balanced *out);

/* Each run of equal tokens of the ascending e[0..n) ordered as the
 * snapshot orders them: by the owner's id (ids[owner]), then seq; a merge
 * sort through tmp (n entries), so a forged ring of equal tokens costs
 * n log n. Returns the comparisons made (what tests bound). */
uint64_t plc_ring_order_equal_tokens(plc_sort_entry *e, plc_sort_entry *tmp, size_t n,
                                     const char **ids);

/* Release what plc_ring_balance filled; the fields become NULL. */
void plc_balanced_free(plc_balanced *bt);

#endif
