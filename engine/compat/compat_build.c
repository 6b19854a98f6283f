/*
 * compat_build.c -- a program's layout, built as the program builds it
 * (docs/COMPAT.md names the source file each rule comes from): the
 * program's defaults resolved and its settings checked, the size counted
 * from the weights before anything is made, then the program's own file:
 *
 *   libmemcached, twemproxy  compat_ketama.c (rings), compat_tables.c
 *                            (twemproxy's modula)
 *   nginx                    compat_nginx.c (ring), compat_tables.c (hash)
 *   haproxy                  compat_haproxy.c (ring, server ids),
 *                            compat_haproxy_map.c (map), compat_tables.c
 *   Redis                    compat_redis.c (16384 slots)
 *
 * What they share is compat_layout_kit.c. Equal points keep the order the
 * program inserted them in (its qsort is glibc's stable merge sort), so
 * ties resolve as the program resolves them.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "compat_layout_kit.h"
#include "compat_layouts.h"

static int resolve(const plc_compat_config *c, plc_compat_layout *l)
{
    l->program = c->program;
    l->distribution = c->distribution;
    l->key_hash = c->key_hash;
    l->avalanche = c->avalanche ? 1 : 0;
    l->nnodes = c->nnodes;
    int d = c->distribution, h = c->key_hash;
    if (l->avalanche && c->program != PLC_COMPAT_HAPROXY)
        return PLACER_EINVAL;
    if ((c->hash_tag[0] || c->hash_tag[1]) && c->program != PLC_COMPAT_TWEMPROXY)
        return PLACER_EINVAL;
    if (c->slot_owner && c->program != PLC_COMPAT_REDIS)
        return PLACER_EINVAL;
    switch (c->program) {
    case PLC_COMPAT_LIBMEMCACHED:
        if (d == PLC_CD_DEFAULT)
            d = PLC_CD_KETAMA_WEIGHTED;
        if (d != PLC_CD_KETAMA_WEIGHTED && d != PLC_CD_KETAMA)
            return PLACER_EINVAL;
        if (h == 0) /* KETAMA_WEIGHTED sets MD5; plain ketama keeps the default */
            h = d == PLC_CD_KETAMA_WEIGHTED ? PLC_CH_MD5 : PLC_CH_ONE_AT_A_TIME;
        if (h < PLC_CH_ONE_AT_A_TIME || h > PLC_CH_MURMUR3 || h == PLC_CH_CRC16 ||
            h == PLC_CH_CRC32A || h == PLC_CH_HSIEH)
            return PLACER_EINVAL;
        break;
    case PLC_COMPAT_TWEMPROXY:
        if (d == PLC_CD_DEFAULT)
            d = PLC_CD_KETAMA;
        if (d != PLC_CD_KETAMA && d != PLC_CD_MODULA)
            return PLACER_EINVAL;
        if (h == 0)
            h = PLC_CH_FNV1A_64; /* nc_conf.c CONF_DEFAULT_HASH */
        if (h < PLC_CH_ONE_AT_A_TIME || h > PLC_CH_JENKINS)
            return PLACER_EINVAL;
        if ((c->hash_tag[0] == 0) != (c->hash_tag[1] == 0))
            return PLACER_EINVAL;
        l->hash_tag[0] = c->hash_tag[0];
        l->hash_tag[1] = c->hash_tag[1];
        break;
    case PLC_COMPAT_NGINX:
        if (d == PLC_CD_DEFAULT)
            d = PLC_CD_CONSISTENT;
        if (d != PLC_CD_CONSISTENT && d != PLC_CD_HASH)
            return PLACER_EINVAL;
        if (h != 0 && h != PLC_CH_NGX_CRC32)
            return PLACER_EINVAL;
        h = PLC_CH_NGX_CRC32;
        break;
    case PLC_COMPAT_HAPROXY:
        if (d == PLC_CD_DEFAULT)
            d = PLC_CD_CONSISTENT;
        if (d != PLC_CD_CONSISTENT && d != PLC_CD_MAP_BASED)
            return PLACER_EINVAL;
        if (h == 0)
            h = PLC_CH_HAP_SDBM; /* hash-type's default function */
        if ((h < PLC_CH_HAP_SDBM || h > PLC_CH_HAP_CRC32) && h != PLC_CH_HAP_SOURCE)
            return PLACER_EINVAL;
        break;
    case PLC_COMPAT_REDIS:
        if (d != PLC_CD_DEFAULT || (h != 0 && h != PLC_CH_REDIS_CRC16))
            return PLACER_EINVAL;
        h = PLC_CH_REDIS_CRC16;
        l->hash_tag[0] = '{';
        l->hash_tag[1] = '}';
        break;
    default:
        return PLACER_EINVAL;
    }
    l->distribution = d;
    l->key_hash = h;
    return 0;
}

/* The number of points or slots of c's layout (l resolved), from the
 * weights alone, in O(nodes): exactly what the build makes, except nginx's
 * ring, for which it is at most (plc_compat_nginx_size). The weights are
 * checked as the build checks them. */
static int layout_size(const plc_compat_config *c, const plc_compat_layout *l,
                       const plc_compat_nginx_pool *pool, uint64_t *out)
{
    int haproxy = c->program == PLC_COMPAT_HAPROXY;
    uint64_t total;
    int rc = plc_compat_check_weights(c, haproxy ? PLC_HAPROXY_MAX_WEIGHT : UINT32_MAX, &total);
    if (rc)
        return rc;
    uint64_t n = 0;
    switch (l->distribution) {
    case PLC_CD_MODULA:
    case PLC_CD_HASH: n = total; break;
    case PLC_CD_MAP_BASED: n = total / plc_compat_haproxy_gcd(c); break;
    default:
        if (c->program == PLC_COMPAT_NGINX)
            return plc_compat_nginx_size(c, pool, out);
        if (haproxy) {
            n = 32u * total; /* 16 per unit of weight, and as many midpoints */
            break;
        }
        n = c->program == PLC_COMPAT_TWEMPROXY ? plc_compat_twemproxy_size(c, total)
                                                : plc_compat_libmemcached_size(c, l, total);
    }
    *out = n;
    return 0;
}

int plc_compat_layout_size(const plc_compat_config *cfg, uint64_t *n)
{
    if (!cfg || !n || (cfg->nnodes && !cfg->nodes))
        return PLACER_ENULL;
    if (cfg->nnodes == 0)
        return PLACER_ENONODES;
    plc_compat_layout l;
    memset(&l, 0, sizeof l);
    int rc = resolve(cfg, &l);
    if (rc)
        return rc;
    if (cfg->program == PLC_COMPAT_REDIS) {
        *n = PLC_REDIS_SLOTS;
        return 0;
    }
    plc_compat_nginx_pool pool = {NULL, NULL};
    if (cfg->program == PLC_COMPAT_NGINX && l.distribution == PLC_CD_CONSISTENT)
        rc = plc_compat_nginx_pool_make(cfg, &pool);
    if (!rc)
        rc = layout_size(cfg, &l, &pool, n);
    plc_compat_nginx_pool_free(&pool);
    return rc;
}

static int build(const plc_compat_config *c, plc_compat_layout *l)
{
    int rc = resolve(c, l);
    if (rc)
        return rc;
    if (c->nnodes > PLACER_MAX_NODES)
        return PLACER_ETOOMANY;
    for (uint32_t i = 0; i < c->nnodes; i++)
        if ((c->nodes[i].id_len && !c->nodes[i].id) || (c->nodes[i].address_len && !c->nodes[i].address))
            return PLACER_ENULL;
    if (c->program == PLC_COMPAT_HAPROXY) {
        l->hash_ids = plc_malloc(sizeof *l->hash_ids * c->nnodes);
        if (!l->hash_ids)
            return PLACER_ENOMEM;
        if ((rc = plc_compat_haproxy_ids(c, l->hash_ids)) != 0)
            return rc;
    }
    if (c->program == PLC_COMPAT_REDIS)
        return plc_compat_redis_table(c, l);
    uint32_t *order = NULL;
    if (c->program == PLC_COMPAT_TWEMPROXY) {
        order = plc_malloc(sizeof *order * c->nnodes);
        if (!order)
            return PLACER_ENOMEM;
        if ((rc = plc_compat_twemproxy_order(c, order)) != 0) {
            plc_free(order);
            return rc;
        }
    }
    uint64_t max_points = c->max_points && c->max_points < PLACER_MAX_COMPAT_POINTS
                              ? c->max_points
                              : PLACER_MAX_COMPAT_POINTS;
    /* The size first, from the weights alone: nothing is made past the
     * bound (a decoder's: what the file lists). */
    plc_compat_nginx_pool pool = {NULL, NULL};
    int nginx_ring = c->program == PLC_COMPAT_NGINX && l->distribution == PLC_CD_CONSISTENT;
    if (nginx_ring)
        rc = plc_compat_nginx_pool_make(c, &pool);
    uint64_t size = 0;
    if (!rc)
        rc = layout_size(c, l, &pool, &size);
    if (!rc && size > max_points)
        rc = PLACER_ETOOMANY;
    if (!rc && (l->distribution == PLC_CD_MODULA || l->distribution == PLC_CD_HASH ||
                l->distribution == PLC_CD_MAP_BASED)) {
        l->kind = PLC_CL_TABLE;
        rc = plc_compat_table_build(c, l, order, max_points);
        plc_free(order);
        return rc;
    }
    if (rc) {
        plc_compat_nginx_pool_free(&pool);
        plc_free(order);
        return rc;
    }
    l->kind = PLC_CL_RING;
    /* Room for the points (haproxy's midpoints included: the size counts them). */
    plc_compat_points a = {NULL, 0, (uint32_t)size};
    a.v = plc_malloc(sizeof *a.v * 2 * (size ? size : 1));
    if (!a.v) {
        plc_compat_nginx_pool_free(&pool);
        plc_free(order);
        return PLACER_ENOMEM;
    }
    switch (c->program) {
    case PLC_COMPAT_LIBMEMCACHED: rc = plc_compat_libmemcached_ring(c, l, &a); break;
    case PLC_COMPAT_TWEMPROXY: rc = plc_compat_twemproxy_ring(c, order, &a); break;
    case PLC_COMPAT_NGINX: rc = plc_compat_nginx_ring(c, &pool, &a); break;
    default: rc = plc_compat_haproxy_ring(c, l, &a); break;
    }
    plc_compat_nginx_pool_free(&pool);
    plc_free(order);
    if (!rc && a.n == 0)
        rc = PLACER_EINVAL; /* every weight rounded to no point */
    if (rc) {
        plc_free(a.v);
        return rc;
    }
    /* the midpoints were appended after haproxy's sorted points: array
     * order is still insertion order among equal values */
    if ((rc = plc_compat_points_sort(&a)) != 0) {
        plc_free(a.v);
        return rc;
    }
    if (c->program == PLC_COMPAT_NGINX)
        plc_compat_nginx_drop_repeats(&a);
    l->n = a.n;
    l->points = plc_malloc(sizeof *l->points * a.n);
    l->owners = plc_malloc(sizeof *l->owners * a.n);
    if (!l->points || !l->owners) {
        plc_free(a.v);
        return PLACER_ENOMEM;
    }
    for (uint32_t j = 0; j < a.n; j++) {
        l->points[j] = (uint32_t)a.v[j].token;
        l->owners[j] = a.v[j].owner;
    }
    plc_free(a.v);
    return 0;
}

int plc_compat_layout_build(const plc_compat_config *cfg, plc_compat_layout *out)
{
    if (!cfg || !out)
        return PLACER_ENULL;
    memset(out, 0, sizeof *out);
    if (cfg->nnodes == 0)
        return PLACER_ENONODES;
    if (!cfg->nodes)
        return PLACER_ENULL;
    int rc = build(cfg, out);
    if (rc)
        plc_compat_layout_free(out);
    return rc;
}

int plc_compat_layout_resolve(const plc_compat_config *cfg, plc_compat_layout *out)
{
    if (!cfg || !out)
        return PLACER_ENULL;
    memset(out, 0, sizeof *out);
    if (cfg->nnodes == 0)
        return PLACER_ENONODES;
    int rc = resolve(cfg, out);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}

void plc_compat_layout_free(plc_compat_layout *l)
{
    if (!l)
        return;
    plc_free(l->points);
    plc_free(l->owners);
    plc_free(l->hash_ids);
    memset(l, 0, sizeof *l);
}
