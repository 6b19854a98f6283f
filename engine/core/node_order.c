/*
 * node_order.c -- a builder's nodes in the order of their ids or zone
 * names (plc_builder_order, builder_internal.h): how builds number zones
 * and lay out placements the same way whatever the insertion order.
 */
#include <stdlib.h>

#include "alloc.h"
#include "builder_internal.h"
#include "named.h"

uint32_t *plc_builder_order(const placer_builder *b, int by_zone)
{
    plc_named *tmp = plc_malloc((size_t)b->nnodes * sizeof *tmp);
    uint32_t *order = plc_malloc((size_t)b->nnodes * sizeof *order);
    if (tmp && order) {
        for (uint32_t i = 0; i < b->nnodes; i++)
            tmp[i] = (plc_named){by_zone ? b->nodes[i].zone : b->nodes[i].id, i};
        qsort(tmp, b->nnodes, sizeof *tmp, plc_cmp_named);
        for (uint32_t i = 0; i < b->nnodes; i++)
            order[i] = tmp[i].index;
    } else {
        plc_free(order);
        order = NULL;
    }
    plc_free(tmp);
    return order;
}
