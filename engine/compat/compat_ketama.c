/*
 * compat_ketama.c -- the ketama rings of libmemcached and twemproxy, as
 * each program builds them (docs/COMPAT.md):
 *
 *   libmemcached  hosts.cc update_continuum(): weighted ketama gives node i
 *                 floor(w_i / W * 40 * n + 1e-10) * 4 points (float
 *                 arithmetic), four per MD5 of "host-j" ("host:port-j" when
 *                 the port is not 11211); plain ketama gives 100 points, one
 *                 key-hash each. A weight above 1 turns weighting on.
 *   twemproxy     nc_ketama.c: as weighted ketama over the server's name,
 *                 the servers in twemproxy's order (also its modula
 *                 table's, compat_tables.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "compat_layout_kit.h"
#include "compat_layouts.h"

/* Weighted ketama's points for one server (a multiple of 4), in each
 * program's own float arithmetic: libmemcached's floor of a float sum,
 * twemproxy's floorf of a double one.
 * Each operation is its own assignment: C rounds an assignment to float,
 * but may evaluate a float expression in double (FLT_EVAL_METHOD 1: GCC
 * on s390x in ISO C mode), and 1/100 * 160 / 4 * 100 is then 40 where the
 * programs' x86-64 float steps give 39.999996 (156 points, not 160). One
 * operation in double rounded to float is the float operation's result
 * (53 >= 2 x 24 + 2 bits), so these are x86-64's bits on every host. */
static float ketama_share(uint32_t weight, uint64_t total, uint32_t live)
{
    float pct = (float)weight / (float)total;
    float x = pct * 160;
    x = x / 4;
    x = x * (float)live;
    return x;
}

static uint32_t libmemcached_pps(uint32_t weight, uint64_t total, uint32_t live)
{
    float x = ketama_share(weight, total, live) + 0.0000000001F;
    return (uint32_t)(floor(x) * 4);
}

static uint32_t twemproxy_pps(uint32_t weight, uint64_t total, uint32_t live)
{
    float x = (float)((double)ketama_share(weight, total, live) + 0.0000000001);
    return (uint32_t)(floorf(x) * 4);
}

static int libmemcached_weighted(const plc_compat_config *c, const plc_compat_layout *l)
{
    int weighted = l->distribution == PLC_CD_KETAMA_WEIGHTED;
    for (uint32_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i].weight > 1)
            weighted = 1; /* memcached_server_add_with_weight's rule */
    return weighted;
}

/* libmemcached: weighted or plain ketama. */
int plc_compat_libmemcached_ring(const plc_compat_config *c, const plc_compat_layout *l,
                                 plc_compat_points *a)
{
    uint64_t total;
    int rc = plc_compat_check_weights(c, UINT32_MAX, &total);
    if (rc)
        return rc;
    int weighted = libmemcached_weighted(c, l);
    plc_compat_hash_fn kh = plc_compat_hash_function(l->key_hash);
    uint32_t live = c->nnodes;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        const plc_compat_node *nd = &c->nodes[i];
        size_t hl;
        uint32_t port;
        if ((rc = plc_compat_split_address(nd, &hl, &port)) != 0)
            return rc;
        if (hl > 1025) /* NI_MAXHOST: libmemcached refuses longer names */
            return PLACER_EINVAL;
        uint32_t pps = weighted ? libmemcached_pps(nd->weight, total, live) : 100;
        uint32_t per_hash = weighted ? 4 : 1;
        /* "host-j", or "host:port-j" when the port is not 11211: the
         * prefix once, then each j's digits. */
        char buf[1100];
        size_t pre = plc_compat_printed_len(nd->address, hl);
        memcpy(buf, nd->address, pre);
        if (port != 11211) {
            buf[pre++] = ':';
            pre += plc_compat_put_decimal(buf + pre, port);
        }
        buf[pre++] = '-';
        for (uint32_t j = 1; j <= pps / per_hash; j++) {
            size_t len = pre + plc_compat_put_decimal(buf + pre, j - 1);
            if (weighted) {
                unsigned char d[16];
                plc_compat_md5(buf, len, d);
                for (uint32_t x = 0; x < 4; x++) {
                    uint32_t v = (uint32_t)d[4 * x] | (uint32_t)d[4 * x + 1] << 8 |
                                 (uint32_t)d[4 * x + 2] << 16 | (uint32_t)d[4 * x + 3] << 24;
                    if ((rc = plc_compat_points_push(a, v, i)) != 0)
                        return rc;
                }
            } else if ((rc = plc_compat_points_push(a, kh(buf, len), i)) != 0) {
                return rc;
            }
        }
    }
    return 0;
}

uint64_t plc_compat_libmemcached_size(const plc_compat_config *c, const plc_compat_layout *l,
                                      uint64_t total)
{
    int weighted = libmemcached_weighted(c, l);
    uint64_t n = 0;
    for (uint32_t i = 0; i < c->nnodes; i++)
        n += weighted ? libmemcached_pps(c->nodes[i].weight, total, c->nnodes) : 100u;
    return n;
}

/* twemproxy sorts each pool's servers by name (nc_conf.c
 * conf_validate_server(), string_compare(): shorter names first, then
 * bytes) and refuses equal names; its continuum and modula table follow
 * that order, not the configuration's. Each entry carries its own name, so
 * the comparator needs no context: nothing file-wide, any number of
 * threads may build at once (a file-wide config pointer crashed two
 * threads). */
typedef struct tw_name {
    const char *id;
    size_t len;
    uint32_t index;
} tw_name;

static int name_cmp(const void *x, const void *y)
{
    const tw_name *a = x, *b = y;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return memcmp(a->id, b->id, a->len);
}

int plc_compat_twemproxy_order(const plc_compat_config *c, uint32_t *order)
{
    tw_name *t = plc_malloc(sizeof *t * c->nnodes);
    if (!t)
        return PLACER_ENOMEM;
    int rc = 0;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        if (!c->nodes[i].id || c->nodes[i].id_len == 0) {
            rc = PLACER_EINVAL;
            break;
        }
        t[i].id = c->nodes[i].id;
        t[i].len = c->nodes[i].id_len;
        t[i].index = i;
    }
    if (!rc)
        qsort(t, c->nnodes, sizeof *t, name_cmp);
    for (uint32_t i = 0; !rc && i < c->nnodes; i++) {
        if (i > 0 && name_cmp(&t[i - 1], &t[i]) == 0)
            rc = PLACER_EINVAL; /* "has servers with same name" */
        order[i] = t[i].index;
    }
    plc_free(t);
    return rc;
}

int plc_compat_twemproxy_ring(const plc_compat_config *c, const uint32_t *order,
                              plc_compat_points *a)
{
    uint64_t total;
    int rc = plc_compat_check_weights(c, UINT32_MAX, &total);
    if (rc)
        return rc;
    uint32_t live = c->nnodes;
    for (uint32_t oi = 0; oi < c->nnodes; oi++) {
        uint32_t i = order[oi];
        const plc_compat_node *nd = &c->nodes[i];
        uint32_t pps = twemproxy_pps(nd->weight, total, live);
        if (pps / 4 == 0)
            continue; /* no point: the name is not formatted (nor refused) */
        /* "name-j": the name once, then each j's digits. twemproxy formats
         * into 86 bytes: a longer name is cut there. */
        char buf[PLC_TWEMPROXY_MAX_HOSTLEN + 32];
        size_t pre = plc_compat_printed_len(nd->id, nd->id_len);
        if (pre >= PLC_TWEMPROXY_MAX_HOSTLEN)
            return PLACER_EINVAL; /* (the room for the digits is kept) */
        memcpy(buf, nd->id, pre);
        buf[pre++] = '-';
        for (uint32_t j = 1; j <= pps / 4; j++) {
            size_t len = pre + plc_compat_put_decimal(buf + pre, j - 1);
            if (len >= PLC_TWEMPROXY_MAX_HOSTLEN)
                return PLACER_EINVAL;
            unsigned char d[16];
            plc_compat_md5(buf, len, d);
            for (uint32_t x = 0; x < 4; x++) {
                uint32_t v = (uint32_t)d[4 * x] | (uint32_t)d[4 * x + 1] << 8 |
                             (uint32_t)d[4 * x + 2] << 16 | (uint32_t)d[4 * x + 3] << 24;
                if ((rc = plc_compat_points_push(a, v, i)) != 0)
                    return rc;
            }
        }
    }
    return 0;
}

uint64_t plc_compat_twemproxy_size(const plc_compat_config *c, uint64_t total)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        uint32_t pps = twemproxy_pps(c->nodes[i].weight, total, c->nnodes);
        n += pps / 4 == 0 ? 0 : pps;
    }
    return n;
}
