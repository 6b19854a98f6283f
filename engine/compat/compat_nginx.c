/*
 * compat_nginx.c -- nginx's consistent ring, as
 * ngx_http_upstream_hash_module.c builds it (docs/COMPAT.md): 160 * weight
 * points per server, crc32(host \0 port prev_hash) chained from 0;
 * sorted, equal points after the first dropped. (Its plain hash, a walk of
 * the weights, is a table of total-weight slots: compat_tables.c.)
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "alloc.h"
#include "compat_layout_kit.h"
#include "compat_layouts.h"
#include "compat_program.h"

/* nginx's per-server CRC start: crc32(host \0 port), the host and port of
 * "host:port" ("unix:" paths: all host). */
static int nginx_base(const plc_compat_node *nd, uint32_t *out)
{
    const char *s = nd->address;
    size_t n = nd->address_len, host_len = n, port_off = n;
    if (!s || n == 0)
        return PLACER_EINVAL;
    if (n >= 5 && strncasecmp(s, "unix:", 5) == 0) {
        s += 5; /* "unix:" path: all of it is the host */
        n -= 5;
        host_len = n;
        port_off = n;
    } else {
        /* The port: the digits after the last ':', when all are digits. */
        for (size_t j = 0; j < n; j++) {
            char ch = s[n - j - 1];
            if (ch == ':') {
                host_len = n - j - 1;
                port_off = n - j;
                break;
            }
            if (ch < '0' || ch > '9')
                break;
        }
    }
    uint32_t base = placer_crc32(0, s, host_len);
    base = placer_crc32(base, "", 1);
    *out = placer_crc32(base, s + port_off, n - port_off);
    return 0;
}

/* One step of a server's chain: crc32(base, prev as 4 little-endian bytes). */
static uint32_t nginx_step(uint32_t base, uint32_t prev)
{
    unsigned char le[4] = {(unsigned char)prev, (unsigned char)(prev >> 8),
                           (unsigned char)(prev >> 16), (unsigned char)(prev >> 24)};
    return placer_crc32(base, le, 4);
}

void plc_compat_nginx_pool_free(plc_compat_nginx_pool *p)
{
    plc_free(p->base);
    plc_free(p->leader);
}

int plc_compat_nginx_pool_make(const plc_compat_config *c, plc_compat_nginx_pool *p)
{
    uint32_t n = c->nnodes;
    p->base = plc_malloc(sizeof *p->base * n);
    p->leader = plc_malloc(sizeof *p->leader * n);
    plc_sort_entry *e = plc_malloc(sizeof *e * 2 * n);
    int rc = p->base && p->leader && e ? 0 : PLACER_ENOMEM;
    for (uint32_t i = 0; !rc && i < n; i++) {
        rc = nginx_base(&c->nodes[i], &p->base[i]);
        e[i] = (plc_sort_entry){p->base[i], i, i};
    }
    if (!rc) {
        plc_sort_entry *sorted = plc_radix_sort(e, e + n, n); /* stable: index order in a group */
        for (uint32_t k = 0; k < n; k++)
            p->leader[sorted[k].owner] =
                k && sorted[k].token == sorted[k - 1].token ? p->leader[sorted[k - 1].owner]
                                                           : sorted[k].owner;
    }
    plc_free(e);
    if (rc)
        plc_compat_nginx_pool_free(p);
    return rc;
}

/* The points nginx's ring keeps at most: per group of servers with one
 * start, 160 x the group's largest weight (one point when the chain's
 * first point is 0, a fixed point: all the chain is 0). Only equal points
 * of different chains come off that (about n^2 / 2^33 of n points). */
int plc_compat_nginx_size(const plc_compat_config *c, const plc_compat_nginx_pool *p, uint64_t *out)
{
    uint32_t *most = plc_calloc(c->nnodes, sizeof *most); /* by leader */
    if (!most)
        return PLACER_ENOMEM;
    for (uint32_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i].weight > most[p->leader[i]])
            most[p->leader[i]] = c->nodes[i].weight;
    uint64_t total = 0;
    for (uint32_t i = 0; i < c->nnodes; i++)
        if (p->leader[i] == i)
            total += nginx_step(p->base[i], 0) == 0 ? 1 : 160u * (uint64_t)most[i];
    plc_free(most);
    *out = total;
    return 0;
}

/* ngx_http_upstream_hash_module.c: each server's 160 x weight points, a
 * CRC chain from 0; after the stable sort equal points after the first are
 * dropped. A point another server of the same start made before (the same
 * chain index), or a repeat of a chain stuck at a fixed point, would be
 * dropped: it is not made (so the work is the points kept, not 160 x the
 * weights of every copy of a server). */
int plc_compat_nginx_ring(const plc_compat_config *c, const plc_compat_nginx_pool *p,
                          plc_compat_points *a)
{
    uint32_t n = c->nnodes;
    uint64_t *made = plc_calloc(n, sizeof *made); /* by leader: chain points made so far */
    uint32_t *last = plc_calloc(n, sizeof *last); /* by leader: the last of them */
    int rc = made && last ? 0 : PLACER_ENOMEM;
    for (uint32_t i = 0; !rc && i < n; i++) {
        uint32_t g = p->leader[i], base = p->base[i], prev = last[g];
        uint64_t np = (uint64_t)c->nodes[i].weight * 160u;
        for (uint64_t j = made[g]; !rc && j < np; j++) {
            uint32_t h = nginx_step(base, prev);
            rc = plc_compat_points_push(a, h, i);
            made[g] = j + 1;
            if (h == prev) { /* a fixed point: every later point is h again */
                made[g] = UINT64_MAX;
                break;
            }
            prev = h;
        }
        last[g] = prev;
    }
    plc_free(made);
    plc_free(last);
    return rc;
}

/* Equal points after the first go (a sorted, a->n >= 1). */
void plc_compat_nginx_drop_repeats(plc_compat_points *a)
{
    uint32_t k = 0;
    for (uint32_t j = 1; j < a->n; j++)
        if (a->v[k].token != a->v[j].token) {
            k++;
            a->v[k].token = a->v[j].token;
            a->v[k].owner = a->v[j].owner;
        }
    a->n = k + 1;
}

/* ---- nginx's ops (compat_program.h) ---- */

static int nginx_layout_size(const plc_compat_config *c, const plc_compat_layout *l,
                             const plc_compat_nginx_pool *pool, uint64_t *n)
{
    uint64_t total;
    int rc = plc_compat_check_weights(c, UINT32_MAX, &total);
    if (rc)
        return rc;
    if (l->distribution == PLC_CD_HASH) {
        *n = total;
        return 0;
    }
    return plc_compat_nginx_size(c, pool, n);
}

/* The ring's size needs the servers' chains (plc_compat_nginx_pool). */
static int nginx_size(const plc_compat_config *c, const plc_compat_layout *l, uint64_t *n)
{
    plc_compat_nginx_pool pool = {NULL, NULL};
    int rc = 0;
    if (l->distribution == PLC_CD_CONSISTENT)
        rc = plc_compat_nginx_pool_make(c, &pool);
    if (!rc)
        rc = nginx_layout_size(c, l, &pool, n);
    plc_compat_nginx_pool_free(&pool);
    return rc;
}

static int nginx_build(const plc_compat_config *c, plc_compat_layout *l, uint64_t max_points)
{
    if (l->distribution == PLC_CD_HASH) {
        uint64_t n;
        int rc = nginx_layout_size(c, l, NULL, &n);
        if (!rc && n > max_points)
            rc = PLACER_ETOOMANY;
        return rc ? rc : plc_compat_table_build(c, l, NULL, max_points);
    }
    plc_compat_nginx_pool pool = {NULL, NULL};
    uint64_t n;
    int rc = plc_compat_nginx_pool_make(c, &pool);
    if (!rc)
        rc = nginx_layout_size(c, l, &pool, &n);
    if (!rc && n > max_points)
        rc = PLACER_ETOOMANY;
    plc_compat_points a;
    if (!rc && (rc = plc_compat_ring_room(l, &a, n)) == 0)
        rc = plc_compat_ring_finish(l, &a, plc_compat_nginx_ring(c, &pool, &a),
                                    plc_compat_nginx_drop_repeats);
    plc_compat_nginx_pool_free(&pool);
    return rc;
}

static uint32_t nginx_key_hash(const plc_compat_layout *l, const unsigned char *k, size_t len)
{
    uint32_t h = plc_hash_crc32_ieee(k, len);
    return l->distribution == PLC_CD_HASH ? (h >> 16) & 0x7fffu : h;
}

static const plc_compat_distribution nginx_distributions[] = {
    {"consistent", PLC_CD_CONSISTENT, PLC_CL_RING, PLC_CH_NGX_CRC32, 0}, /* hash $key consistent */
    {"hash", PLC_CD_HASH, PLC_CL_TABLE, PLC_CH_NGX_CRC32, 15},        /* plain hash $key */
};

static const plc_compat_hash_entry nginx_hashes[] = {{"crc32", PLC_CH_NGX_CRC32}};

const plc_compat_program plc_compat_nginx = {
    .id = PLACER_COMPAT_NGINX,
    .name = "nginx",
    .title = "nginx",
    .distributions = nginx_distributions,
    .ndistributions = sizeof nginx_distributions / sizeof nginx_distributions[0],
    .hashes = nginx_hashes,
    .nhashes = 1,
    .max_weight = UINT32_MAX,
    .size = nginx_size,
    .build = nginx_build,
    .key_hash = nginx_key_hash,
    .batch_rule = PLC_CK_NARROWED,
    .fields = PLC_CF_ADDRESS,
    .size_is_bound = 1, /* equal points of different chains are dropped */
    .importer = "import-nginx",
};
