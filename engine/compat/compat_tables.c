/*
 * compat_tables.c -- the programs' tables, owners[hash % n]: twemproxy's
 * modula (nc_modula.c: each server `weight` times, in twemproxy's order),
 * nginx's plain hash (a walk of the weights: each server `weight` times)
 * and haproxy's map (lb_map.c: the weights over their greatest common
 * divisor, compat_haproxy_map.c).
 */
#include <stdint.h>

#include "alloc.h"
#include "compat_layout_kit.h"
#include "compat_layouts.h"

int plc_compat_table_build(const plc_compat_config *c, plc_compat_layout *l, const uint32_t *order,
                           uint64_t total_cap)
{
    uint64_t total;
    uint32_t max = l->program == PLC_COMPAT_HAPROXY ? PLC_HAPROXY_MAX_WEIGHT : UINT32_MAX;
    int rc = plc_compat_check_weights(c, max, &total);
    if (rc)
        return rc;
    uint32_t div = 1;
    if (l->program == PLC_COMPAT_HAPROXY) {
        div = plc_compat_haproxy_gcd(c); /* lb_map.c: weights over their greatest common divisor */
        total /= div;
    }
    /* the slots made, as layout_size counts them (over the gcd): the bound
     * a decoder sets is exactly that */
    if (total > total_cap)
        return PLACER_ETOOMANY;
    l->n = (uint32_t)total;
    l->owners = plc_malloc(sizeof *l->owners * l->n);
    if (!l->owners)
        return PLACER_ENOMEM;
    if (l->program != PLC_COMPAT_HAPROXY) {
        /* Each node weight times, in order (twemproxy modula, nginx hash). */
        uint32_t k = 0;
        for (uint32_t oi = 0; oi < c->nnodes; oi++) {
            uint32_t i = order ? order[oi] : oi;
            for (uint32_t j = 0; j < c->nodes[i].weight; j++)
                l->owners[k++] = i;
        }
        return 0;
    }
    if (l->n == 1) {
        l->owners[0] = 0; /* recalc_server_map()'s tot == 1 case */
        return 0;
    }
    return plc_compat_haproxy_map_fill(c, div, l->n, l->owners);
}
