/*
 * compat_tables.c -- a table of each server `weight` times, owners[hash %
 * n]: twemproxy's modula (nc_modula.c, in twemproxy's order) and nginx's
 * plain hash (a walk of the weights). haproxy's map is
 * compat_haproxy_map.c's.
 */
#include <stdint.h>

#include "alloc.h"
#include "compat_layout_kit.h"
#include "compat_layouts.h"

int plc_compat_table_build(const plc_compat_config *c, plc_compat_layout *l, const uint32_t *order,
                           uint64_t total_cap)
{
    uint64_t total;
    int rc = plc_compat_check_weights(c, UINT32_MAX, &total);
    if (rc)
        return rc;
    if (total > total_cap)
        return PLACER_ETOOMANY;
    l->kind = PLC_CL_TABLE;
    l->n = (uint32_t)total;
    l->owners = plc_malloc(sizeof *l->owners * l->n);
    if (!l->owners)
        return PLACER_ENOMEM;
    uint32_t k = 0;
    for (uint32_t oi = 0; oi < c->nnodes; oi++) {
        uint32_t i = order ? order[oi] : oi;
        for (uint32_t j = 0; j < c->nodes[i].weight; j++)
            l->owners[k++] = i;
    }
    return 0;
}
