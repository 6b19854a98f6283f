/*
 * compat_haproxy.c -- haproxy's consistent ring, as lb_chash.c builds it
 * (docs/COMPAT.md): 16 * weight points full_hash(id * 4096 + j) per
 * server, the nearer point winning, which the midpoint of every gap turns
 * into the successor rule; and the server ids haproxy gives (cfgparse.c),
 * which its points and its map's weights (compat_haproxy_map.c) use.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "compat_layout_kit.h"
#include "compat_layouts.h"
#include "compat_program.h"

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* haproxy's server ids: explicit ones kept; the others get, in declaration
 * order, the first free id >= next_id, where next_id counts every server
 * (cfgparse.c: next_id++ runs for explicit ids too). An id given this way
 * is below every later next_id, so only explicit ids can be in the way:
 * they are sorted once and skipped with a cursor, O(n log n) (the scan of
 * every server per candidate was O(n^2)). */
int plc_compat_haproxy_ids(const plc_compat_config *c, uint32_t *ids)
{
    uint32_t *taken = plc_malloc(sizeof *taken * (c->nnodes ? c->nnodes : 1));
    if (!taken)
        return PLACER_ENOMEM;
    uint32_t nt = 0;
    int rc = 0;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        ids[i] = c->nodes[i].hash_id;
        if (ids[i] > PLC_HAPROXY_MAX_ID)
            rc = PLACER_EINVAL;
        else if (ids[i])
            taken[nt++] = ids[i];
    }
    if (!rc)
        qsort(taken, nt, sizeof *taken, cmp_u32);
    for (uint32_t k = 1; !rc && k < nt; k++)
        if (taken[k] == taken[k - 1])
            rc = PLACER_EINVAL; /* two servers with one explicit id */
    uint32_t next = 1, t = 0;
    for (uint32_t i = 0; !rc && i < c->nnodes; i++, next++) {
        if (ids[i])
            continue;
        for (;;) {
            while (t < nt && taken[t] < next)
                t++;
            if (t == nt || taken[t] != next)
                break;
            next++;
        }
        if (next > PLC_HAPROXY_MAX_ID)
            rc = PLACER_EINVAL;
        else
            ids[i] = next;
    }
    plc_free(taken);
    return rc;
}

static int consistent_points(const plc_compat_config *c, const plc_compat_layout *l,
                             plc_compat_points *a)
{
    uint64_t total;
    int rc = plc_compat_check_weights(c, PLC_HAPROXY_MAX_WEIGHT, &total);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < c->nnodes; i++)
        for (uint32_t j = 0; j < 16u * c->nodes[i].weight; j++) {
            uint32_t point = plc_hash_haproxy_full(l->hash_ids[i] * 4096u + j);
            if ((rc = plc_compat_points_push(a, point, i)) != 0)
                return rc;
        }
    return 0;
}

/* Nearest point -> successor: the midpoint of each gap, owned by the point
 * before it (haproxy keeps the previous point when the distances tie). */
static int add_midpoints(plc_compat_points *a)
{
    uint32_t n = a->n;
    if (n < 2)
        return 0;
    int rc = plc_compat_points_sort(a);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t lo = (uint32_t)a->v[i].token, hi = (uint32_t)a->v[(i + 1) % n].token;
        uint32_t mid = lo + (uint32_t)(hi - lo) / 2u;
        if ((rc = plc_compat_points_push(a, mid, a->v[i].owner)) != 0)
            return rc;
    }
    return 0;
}

int plc_compat_haproxy_ring(const plc_compat_config *c, const plc_compat_layout *l,
                            plc_compat_points *a)
{
    int rc = consistent_points(c, l, a);
    return rc ? rc : add_midpoints(a);
}

/* ---- haproxy's ops (compat_program.h) ---- */

static int haproxy_size(const plc_compat_config *c, const plc_compat_layout *l, uint64_t *n)
{
    uint64_t total;
    int rc = plc_compat_check_weights(c, PLC_HAPROXY_MAX_WEIGHT, &total);
    if (rc)
        return rc;
    if (l->distribution == PLC_CD_MAP_BASED)
        *n = total / plc_compat_haproxy_gcd(c);
    else
        *n = 32u * total; /* 16 per unit of weight, and as many midpoints */
    return 0;
}

/* Its server ids, then its ring (with midpoints) or its map. */
static int haproxy_build(const plc_compat_config *c, plc_compat_layout *l, uint64_t max_points)
{
    l->hash_ids = plc_malloc(sizeof *l->hash_ids * c->nnodes);
    if (!l->hash_ids)
        return PLACER_ENOMEM;
    int rc = plc_compat_haproxy_ids(c, l->hash_ids);
    uint64_t n;
    if (!rc)
        rc = haproxy_size(c, l, &n);
    if (!rc && n > max_points)
        rc = PLACER_ETOOMANY;
    if (rc)
        return rc;
    if (l->distribution == PLC_CD_MAP_BASED)
        return plc_compat_haproxy_map_table(c, l, max_points);
    plc_compat_points a;
    if ((rc = plc_compat_ring_room(l, &a, n)) != 0)
        return rc;
    return plc_compat_ring_finish(l, &a, plc_compat_haproxy_ring(c, l, &a), NULL);
}

static uint32_t haproxy_key_hash(const plc_compat_layout *l, const unsigned char *k, size_t len)
{
    uint32_t h = plc_compat_hash_function(l->key_hash)(k, len);
    return l->avalanche ? plc_hash_haproxy_full(h) : h;
}

static const plc_compat_distribution haproxy_distributions[] = {
    /* hash-type's default function is sdbm */
    {"consistent", PLC_CD_CONSISTENT, PLC_CL_RING, PLC_CH_HAP_SDBM, 0},
    {"map-based", PLC_CD_MAP_BASED, PLC_CL_TABLE, PLC_CH_HAP_SDBM, 0},
};

static const plc_compat_hash_entry haproxy_hashes[] = {
    {"sdbm", PLC_CH_HAP_SDBM},     {"djb2", PLC_CH_HAP_DJB2}, {"wt6", PLC_CH_HAP_WT6},
    {"crc32", PLC_CH_HAP_CRC32},
    {"source", PLC_CH_HAP_SOURCE}, /* balance source's address hash, no hash-type function */
};

const plc_compat_program plc_compat_haproxy = {
    .id = PLACER_COMPAT_HAPROXY,
    .name = "haproxy",
    .title = "haproxy",
    .distributions = haproxy_distributions,
    .ndistributions = sizeof haproxy_distributions / sizeof haproxy_distributions[0],
    .hashes = haproxy_hashes,
    .nhashes = sizeof haproxy_hashes / sizeof haproxy_hashes[0],
    .max_weight = PLC_HAPROXY_MAX_WEIGHT,
    .max_hash_id = PLC_HAPROXY_MAX_ID,
    .size = haproxy_size,
    .build = haproxy_build,
    .key_hash = haproxy_key_hash,
    .batch_rule = PLC_CK_AVALANCHE,
    .fields = PLC_CF_HASH_ID | PLC_CF_AVALANCHE | PLC_CF_KEY_RULE | PLC_CF_BALANCE_FACTOR,
    .importer = "import-haproxy",
};
