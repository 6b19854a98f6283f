/*
 * compat_build.c -- each program's ring or table, built as the program
 * builds it (docs/COMPAT.md names the source file each rule comes from):
 *
 *   libmemcached  hosts.cc update_continuum(): weighted ketama gives node i
 *                 floor(w_i / W * 40 * n + 1e-10) * 4 points (float
 *                 arithmetic), four per MD5 of "host-j" ("host:port-j" when
 *                 the port is not 11211); plain ketama gives 100 points, one
 *                 key-hash each. A weight above 1 turns weighting on.
 *   twemproxy     nc_ketama.c: as weighted ketama over the server's name;
 *                 nc_modula.c: each server `weight` times, in order.
 *   nginx         ngx_http_upstream_hash_module.c: 160 * weight points per
 *                 server, crc32(host \0 port prev_hash) chained from 0;
 *                 sorted, equal points after the first dropped. Plain hash:
 *                 walk of the weights, i.e. a table of total-weight slots.
 *   haproxy       lb_chash.c: 16 * weight points full_hash(id * 4096 + j),
 *                 the nearer point wins; lb_map.c: the weighted map.
 *   Redis         16384 slots from CLUSTER NODES or redis-cli's even split.
 *
 * Equal points keep the order the program inserted them in (its qsort is
 * glibc's stable merge sort), so ties resolve as the program resolves them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "compat.h"
#include "radix_sort.h"
#include "placer.h"

/* A point: token its 32-bit value, owner its node, seq its insertion order
 * (the tie-break, kept by the stable sort). */
typedef plc_sort_entry pt;

/* The points made so far, v[0..n), in room for cap; v[cap..2 cap) is the
 * sort's scratch (one allocation for both). */
typedef struct acc {
    pt *v;
    uint32_t n, cap;
} acc;

/* Sorts a's points by value, stably: among equal values the array order,
 * which every caller keeps equal to the insertion order (seq), so the
 * result is the order of (value, seq), glibc's merge sort's (radix_sort.h:
 * O(n), no comparison callback). */
static int sort_points(acc *a)
{
    if (a->n < 2)
        return 0;
    pt *sorted = plc_radix_sort(a->v, a->v + a->cap, a->n);
    if (!sorted)
        return PLACER_ENOMEM;
    if (sorted != a->v)
        memcpy(a->v, sorted, sizeof *a->v * a->n);
    return 0;
}

static int acc_push(acc *a, uint32_t value, uint32_t owner)
{
    if (a->n == a->cap)
        return PLACER_ETOOMANY; /* sized up front; never grows */
    pt *p = &a->v[a->n]; /* field by field: a struct copy is a memcpy call under ASan */
    p->token = value;
    p->owner = owner;
    p->seq = a->n;
    a->n++;
    return 0;
}

/* The decimal digits of v at p (no NUL); their count. What "%u" writes:
 * the point names are formatted by hand, a few hundred per layout. */
static size_t put_decimal(char *p, uint32_t v)
{
    char t[10];
    size_t n = 0;
    do {
        t[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    for (size_t i = 0; i < n; i++)
        p[i] = t[n - 1 - i];
    return n;
}

/* The bytes "%.*s" writes of s[0..n): up to the first NUL. */
static size_t printed_len(const char *s, size_t n)
{
    const char *z = memchr(s, 0, n);
    return z ? (size_t)(z - s) : n;
}

/* Split "host:port" at the last ':' (libmemcached's and nginx's input). */
static int split_address(const plc_compat_node *nd, size_t *host_len, uint32_t *port)
{
    const char *a = nd->address;
    size_t n = nd->address_len;
    if (!a || n == 0)
        return PLACER_EINVAL;
    size_t c = n;
    while (c > 0 && a[c - 1] != ':')
        c--;
    if (c == 0 || c == n || c - 1 == 0)
        return PLACER_EINVAL;
    uint32_t p = 0;
    for (size_t i = c; i < n; i++) {
        if (a[i] < '0' || a[i] > '9' || p > 65535u)
            return PLACER_EINVAL;
        p = p * 10u + (uint32_t)(a[i] - '0');
    }
    if (p > 65535u)
        return PLACER_EINVAL;
    *host_len = c - 1;
    *port = p;
    return 0;
}

static int check_weights(const plc_compat_config *c, uint32_t max, uint64_t *total)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        if (c->nodes[i].weight < 1 || c->nodes[i].weight > max)
            return PLACER_EINVAL;
        t += c->nodes[i].weight;
    }
    *total = t;
    return 0;
}

/* Weighted ketama's points for one server (a multiple of 4), in each
 * program's own float arithmetic: libmemcached's floor of a float sum,
 * twemproxy's floorf of a double one. */
static uint32_t libmemcached_pps(uint32_t weight, uint64_t total, uint32_t live)
{
    float pct = (float)weight / (float)total;
    return (uint32_t)((floor((float)(pct * 160 / 4 * (float)live + 0.0000000001F))) * 4);
}

static uint32_t twemproxy_pps(uint32_t weight, uint64_t total, uint32_t live)
{
    float pct = (float)weight / (float)total;
    return (uint32_t)((floorf((float)(pct * 160 / 4 * (float)live + 0.0000000001))) * 4);
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
static int build_libmemcached(const plc_compat_config *c, plc_compat_layout *l, acc *a)
{
    uint64_t total;
    int rc = check_weights(c, UINT32_MAX, &total);
    if (rc)
        return rc;
    int weighted = libmemcached_weighted(c, l);
    plc_compat_hash_fn kh = plc_compat_hash_function(l->key_hash);
    uint32_t live = c->nnodes;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        const plc_compat_node *nd = &c->nodes[i];
        size_t hl;
        uint32_t port;
        if ((rc = split_address(nd, &hl, &port)) != 0)
            return rc;
        if (hl > 1025) /* NI_MAXHOST: libmemcached refuses longer names */
            return PLACER_EINVAL;
        uint32_t pps = weighted ? libmemcached_pps(nd->weight, total, live) : 100;
        uint32_t per_hash = weighted ? 4 : 1;
        /* "host-j", or "host:port-j" when the port is not 11211: the
         * prefix once, then each j's digits. */
        char buf[1100];
        size_t pre = printed_len(nd->address, hl);
        memcpy(buf, nd->address, pre);
        if (port != 11211) {
            buf[pre++] = ':';
            pre += put_decimal(buf + pre, port);
        }
        buf[pre++] = '-';
        for (uint32_t j = 1; j <= pps / per_hash; j++) {
            size_t len = pre + put_decimal(buf + pre, j - 1);
            if (weighted) {
                unsigned char d[16];
                plc_compat_md5(buf, len, d);
                for (uint32_t x = 0; x < 4; x++) {
                    uint32_t v = (uint32_t)d[4 * x] | (uint32_t)d[4 * x + 1] << 8 |
                                 (uint32_t)d[4 * x + 2] << 16 | (uint32_t)d[4 * x + 3] << 24;
                    if ((rc = acc_push(a, v, i)) != 0)
                        return rc;
                }
            } else if ((rc = acc_push(a, kh(buf, len), i)) != 0) {
                return rc;
            }
        }
    }
    return 0;
}

/* twemproxy sorts each pool's servers by name (nc_conf.c
 * conf_validate_server(), string_compare(): shorter names first, then
 * bytes) and refuses equal names; its continuum and modula table follow
 * that order, not the configuration's. Each entry carries its own name, so
 * the comparator needs no context: nothing file-wide, any number of
 * threads may build at once (a file-wide config pointer crashed two
 * threads, issue 29). */
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

static int twemproxy_order(const plc_compat_config *c, uint32_t *order)
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

static int build_twemproxy_ketama(const plc_compat_config *c, const uint32_t *order, acc *a)
{
    uint64_t total;
    int rc = check_weights(c, UINT32_MAX, &total);
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
        size_t pre = printed_len(nd->id, nd->id_len);
        if (pre >= PLC_TWEMPROXY_MAX_HOSTLEN)
            return PLACER_EINVAL; /* (the room for the digits is kept) */
        memcpy(buf, nd->id, pre);
        buf[pre++] = '-';
        for (uint32_t j = 1; j <= pps / 4; j++) {
            size_t len = pre + put_decimal(buf + pre, j - 1);
            if (len >= PLC_TWEMPROXY_MAX_HOSTLEN)
                return PLACER_EINVAL;
            unsigned char d[16];
            plc_compat_md5(buf, len, d);
            for (uint32_t x = 0; x < 4; x++) {
                uint32_t v = (uint32_t)d[4 * x] | (uint32_t)d[4 * x + 1] << 8 |
                             (uint32_t)d[4 * x + 2] << 16 | (uint32_t)d[4 * x + 3] << 24;
                if ((rc = acc_push(a, v, i)) != 0)
                    return rc;
            }
        }
    }
    return 0;
}

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

/* nginx's servers grouped by CRC start: servers with the same start (the
 * same address, listed twice) make the same chain, so a later one's first
 * points repeat an earlier one's and nginx drops them. base[i] each
 * server's start, leader[i] the first server with that start. */
typedef struct nginx_pool {
    uint32_t *base, *leader;
} nginx_pool;

static void nginx_pool_free(nginx_pool *p)
{
    plc_free(p->base);
    plc_free(p->leader);
}

static int nginx_pool_make(const plc_compat_config *c, nginx_pool *p)
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
        nginx_pool_free(p);
    return rc;
}

/* The points nginx's ring keeps at most: per group of servers with one
 * start, 160 x the group's largest weight (one point when the chain's
 * first point is 0, a fixed point: all the chain is 0). Only equal points
 * of different chains come off that (about n^2 / 2^33 of n points). */
static int nginx_points(const plc_compat_config *c, const nginx_pool *p, uint64_t *out)
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
static int build_nginx_consistent(const plc_compat_config *c, const nginx_pool *p, acc *a)
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
            rc = acc_push(a, h, i);
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
 * every server per candidate was O(n^2): issue 29). */
static int haproxy_ids(const plc_compat_config *c, uint32_t *ids)
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

static int build_haproxy_consistent(const plc_compat_config *c, plc_compat_layout *l, acc *a)
{
    uint64_t total;
    int rc = check_weights(c, PLC_HAPROXY_MAX_WEIGHT, &total);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < c->nnodes; i++)
        for (uint32_t j = 0; j < 16u * c->nodes[i].weight; j++)
            if ((rc = acc_push(a, plc_hash_haproxy_full(l->hash_ids[i] * 4096u + j), i)) != 0)
                return rc;
    return 0;
}

/* Nearest point -> successor: the midpoint of each gap, owned by the point
 * before it (haproxy keeps the previous point when the distances tie). */
static int add_midpoints(acc *a)
{
    uint32_t n = a->n;
    if (n < 2)
        return 0;
    int rc = sort_points(a);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t lo = (uint32_t)a->v[i].token, hi = (uint32_t)a->v[(i + 1) % n].token;
        uint32_t mid = lo + (uint32_t)(hi - lo) / 2u;
        if ((rc = acc_push(a, mid, a->v[i].owner)) != 0)
            return rc;
    }
    return 0;
}

/* haproxy's map (lb_map.c recalc_server_map()): at each of the tot slots,
 * every node's score grows by its weight w (over the gcd; the w sum to
 * tot), the slot goes to the first node (lowest index) of highest level
 * v = (score + tot) / tot, and that node's score drops by tot. Done as
 * written that is O(slots x nodes): a forged 10,000-node map took 129 s to
 * decode (issue 29). Here v changes only at events: a node's level rises
 * when its score crosses a multiple of tot (at a step computed in advance,
 * kept in a bucket per step) and falls by one when it is chosen; a
 * tournament tree over the nodes holds the (highest v, lowest index) one.
 * The levels rise about slots + nodes times in all, so the fill is
 * O((slots + nodes) log nodes), slot for slot the same choice. */
typedef struct map_fill {
    const plc_compat_config *c;
    uint32_t div, n, size; /* weights' divisor, nodes, leaves of the tree */
    int64_t tot;
    int64_t *base;   /* score at step o is base + (o + 1) * w */
    int64_t *level;  /* v at the current step */
    uint32_t *tree;  /* tree[size + i] = i; tree[k] the better of its children */
    uint32_t *head;  /* head[o]: first node whose level rises at step o */
    uint32_t *link;  /* next node in the same bucket */
    uint32_t *prev;  /* previous one, or UINT32_MAX for the head */
    uint32_t *at;    /* the bucket node i is in, or UINT32_MAX */
} map_fill;

static int64_t map_w(const map_fill *m, uint32_t i)
{
    return (int64_t)(m->c->nodes[i].weight / m->div);
}

/* v of node i at step o, as recalc_server_map() computes it (C division). */
static int64_t map_level(const map_fill *m, uint32_t i, int64_t o)
{
    return (m->base[i] + (o + 1) * map_w(m, i) + m->tot) / m->tot;
}

static uint32_t map_better(const map_fill *m, uint32_t a, uint32_t b)
{
    if (a == UINT32_MAX)
        return b;
    if (b == UINT32_MAX)
        return a;
    if (m->level[a] != m->level[b])
        return m->level[a] > m->level[b] ? a : b;
    return a < b ? a : b;
}

static void map_update(map_fill *m, uint32_t i)
{
    for (uint32_t k = (m->size + i) / 2; k >= 1; k /= 2)
        m->tree[k] = map_better(m, m->tree[2 * k], m->tree[2 * k + 1]);
}

static void map_unlink(map_fill *m, uint32_t i)
{
    uint32_t o = m->at[i];
    if (o == UINT32_MAX)
        return;
    if (m->prev[i] == UINT32_MAX)
        m->head[o] = m->link[i];
    else
        m->link[m->prev[i]] = m->link[i];
    if (m->link[i] != UINT32_MAX)
        m->prev[m->link[i]] = m->prev[i];
    m->at[i] = UINT32_MAX;
}

/* Files node i under the step its level next rises at (none past the table). */
static void map_schedule(map_fill *m, uint32_t i, int64_t o)
{
    int64_t v = m->level[i], tot = m->tot, w = map_w(m, i);
    /* the least score + tot whose C quotient by tot is v + 1 */
    int64_t x = v + 1 > 0 ? (v + 1) * tot : v * tot + 1;
    int64_t need = x - tot - m->base[i]; /* (o' + 1) * w >= need */
    int64_t when = need > 0 ? (need + w - 1) / w - 1 : o + 1;
    if (when <= o)
        when = o + 1;
    if (when >= tot)
        return;
    uint32_t s = (uint32_t)when;
    m->at[i] = s;
    m->prev[i] = UINT32_MAX;
    m->link[i] = m->head[s];
    if (m->head[s] != UINT32_MAX)
        m->prev[m->head[s]] = i;
    m->head[s] = i;
}

static int haproxy_map_fill(const plc_compat_config *c, uint32_t div, uint32_t tot,
                            uint32_t *owners)
{
    map_fill m = {c, div, c->nnodes, 1, (int64_t)tot, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    while (m.size < m.n)
        m.size *= 2;
    m.base = plc_calloc(m.n, sizeof *m.base);
    m.level = plc_malloc(sizeof *m.level * m.n);
    m.tree = plc_malloc(sizeof *m.tree * 2 * m.size);
    m.head = plc_malloc(sizeof *m.head * tot);
    m.link = plc_malloc(sizeof *m.link * m.n);
    m.prev = plc_malloc(sizeof *m.prev * m.n);
    m.at = plc_malloc(sizeof *m.at * m.n);
    int rc = PLACER_ENOMEM;
    if (m.base && m.level && m.tree && m.head && m.link && m.prev && m.at) {
        memset(m.head, 0xff, sizeof *m.head * tot);
        for (uint32_t k = 0; k < 2 * m.size; k++)
            m.tree[k] = k >= m.size && k - m.size < m.n ? k - m.size : UINT32_MAX;
        for (uint32_t i = 0; i < m.n; i++) {
            m.level[i] = map_level(&m, i, 0);
            m.at[i] = UINT32_MAX;
            map_schedule(&m, i, 0);
        }
        for (uint32_t k = m.size - 1; k >= 1; k--)
            m.tree[k] = map_better(&m, m.tree[2 * k], m.tree[2 * k + 1]);
        for (uint32_t o = 0; o < tot; o++) {
            uint32_t i = o ? m.head[o] : UINT32_MAX;
            while (i != UINT32_MAX) { /* the levels that rise at this step */
                uint32_t next = m.link[i];
                m.at[i] = UINT32_MAX;
                m.level[i] = map_level(&m, i, o);
                map_update(&m, i);
                map_schedule(&m, i, o);
                i = next;
            }
            uint32_t best = m.tree[1];
            owners[o] = best;
            m.base[best] -= m.tot;
            m.level[best] = map_level(&m, best, o);
            map_update(&m, best);
            map_unlink(&m, best);
            map_schedule(&m, best, o);
        }
        rc = 0;
    }
    plc_free(m.base);
    plc_free(m.level);
    plc_free(m.tree);
    plc_free(m.head);
    plc_free(m.link);
    plc_free(m.prev);
    plc_free(m.at);
    return rc;
}

static uint32_t haproxy_gcd(const plc_compat_config *c)
{
    uint32_t g = c->nodes[0].weight;
    for (uint32_t i = 1; i < c->nnodes && g > 1; i++) {
        uint32_t w = c->nodes[i].weight;
        while (w) {
            uint32_t t = g % w;
            g = w;
            w = t;
        }
    }
    return g;
}

static int build_table(const plc_compat_config *c, plc_compat_layout *l, const uint32_t *order,
                       uint64_t total_cap)
{
    uint64_t total;
    int rc = check_weights(c, l->program == PLC_COMPAT_HAPROXY ? PLC_HAPROXY_MAX_WEIGHT : UINT32_MAX,
                           &total);
    if (rc)
        return rc;
    uint32_t div = 1;
    if (l->program == PLC_COMPAT_HAPROXY) {
        div = haproxy_gcd(c); /* lb_map.c: weights over their greatest common divisor */
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
    return haproxy_map_fill(c, div, l->n, l->owners);
}

void plc_compat_redis_even_split(uint32_t masters, uint32_t owner[PLC_REDIS_SLOTS])
{
    /* redis-cli.c clusterManagerCommandCreate(): float cursor, lround. */
    float per = (float)PLC_REDIS_SLOTS / (float)masters;
    float cursor = 0.0f;
    long first = 0;
    for (uint32_t i = 0; i < masters; i++) {
        long last = lround(cursor + per - 1);
        if (last > (long)PLC_REDIS_SLOTS || i == masters - 1)
            last = (long)PLC_REDIS_SLOTS - 1;
        if (last < first)
            last = first;
        for (long s = first; s <= last && s < (long)PLC_REDIS_SLOTS; s++)
            owner[s] = i;
        first = last + 1;
        cursor += per;
    }
}

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
 * ring, for which it is at most (nginx_points). The weights are checked as
 * the build checks them. */
static int layout_size(const plc_compat_config *c, const plc_compat_layout *l,
                       const nginx_pool *pool, uint64_t *out)
{
    int haproxy = c->program == PLC_COMPAT_HAPROXY;
    uint64_t total;
    int rc = check_weights(c, haproxy ? PLC_HAPROXY_MAX_WEIGHT : UINT32_MAX, &total);
    if (rc)
        return rc;
    uint64_t n = 0;
    switch (l->distribution) {
    case PLC_CD_MODULA:
    case PLC_CD_HASH: n = total; break;
    case PLC_CD_MAP_BASED: n = total / haproxy_gcd(c); break;
    default:
        if (c->program == PLC_COMPAT_NGINX)
            return nginx_points(c, pool, out);
        if (haproxy) {
            n = 32u * total; /* 16 per unit of weight, and as many midpoints */
            break;
        }
        for (uint32_t i = 0; i < c->nnodes; i++) {
            uint32_t w = c->nodes[i].weight;
            if (c->program == PLC_COMPAT_TWEMPROXY) {
                uint32_t pps = twemproxy_pps(w, total, c->nnodes);
                n += pps / 4 == 0 ? 0 : pps;
            } else {
                n += libmemcached_weighted(c, l) ? libmemcached_pps(w, total, c->nnodes) : 100u;
            }
        }
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
    nginx_pool pool = {NULL, NULL};
    if (cfg->program == PLC_COMPAT_NGINX && l.distribution == PLC_CD_CONSISTENT)
        rc = nginx_pool_make(cfg, &pool);
    if (!rc)
        rc = layout_size(cfg, &l, &pool, n);
    nginx_pool_free(&pool);
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
        if ((rc = haproxy_ids(c, l->hash_ids)) != 0)
            return rc;
    }
    if (c->program == PLC_COMPAT_REDIS) {
        l->kind = PLC_CL_TABLE;
        l->n = PLC_REDIS_SLOTS;
        l->owners = plc_malloc(sizeof *l->owners * PLC_REDIS_SLOTS);
        if (!l->owners)
            return PLACER_ENOMEM;
        if (!c->slot_owner) {
            plc_compat_redis_even_split(c->nnodes, l->owners);
            return 0;
        }
        for (uint32_t s = 0; s < PLC_REDIS_SLOTS; s++) {
            if (c->slot_owner[s] >= c->nnodes)
                return PLACER_EINVAL; /* every slot needs a live owner */
            l->owners[s] = c->slot_owner[s];
        }
        return 0;
    }
    uint32_t *order = NULL;
    if (c->program == PLC_COMPAT_TWEMPROXY) {
        order = plc_malloc(sizeof *order * c->nnodes);
        if (!order)
            return PLACER_ENOMEM;
        if ((rc = twemproxy_order(c, order)) != 0) {
            plc_free(order);
            return rc;
        }
    }
    uint64_t max_points = c->max_points && c->max_points < PLACER_MAX_COMPAT_POINTS
                              ? c->max_points
                              : PLACER_MAX_COMPAT_POINTS;
    /* The size first, from the weights alone: nothing is made past the
     * bound (a decoder's: what the file lists). */
    nginx_pool pool = {NULL, NULL};
    int nginx_ring = c->program == PLC_COMPAT_NGINX && l->distribution == PLC_CD_CONSISTENT;
    if (nginx_ring)
        rc = nginx_pool_make(c, &pool);
    uint64_t size = 0;
    if (!rc)
        rc = layout_size(c, l, &pool, &size);
    if (!rc && size > max_points)
        rc = PLACER_ETOOMANY;
    if (!rc && (l->distribution == PLC_CD_MODULA || l->distribution == PLC_CD_HASH ||
                l->distribution == PLC_CD_MAP_BASED)) {
        l->kind = PLC_CL_TABLE;
        rc = build_table(c, l, order, max_points);
        plc_free(order);
        return rc;
    }
    if (rc) {
        nginx_pool_free(&pool);
        plc_free(order);
        return rc;
    }
    l->kind = PLC_CL_RING;
    /* Room for the points (haproxy's midpoints included: the size counts them). */
    acc a = {NULL, 0, (uint32_t)size};
    a.v = plc_malloc(sizeof(pt) * 2 * (size ? size : 1));
    if (!a.v) {
        nginx_pool_free(&pool);
        plc_free(order);
        return PLACER_ENOMEM;
    }
    switch (c->program) {
    case PLC_COMPAT_LIBMEMCACHED: rc = build_libmemcached(c, l, &a); break;
    case PLC_COMPAT_TWEMPROXY: rc = build_twemproxy_ketama(c, order, &a); break;
    case PLC_COMPAT_NGINX: rc = build_nginx_consistent(c, &pool, &a); break;
    default:
        rc = build_haproxy_consistent(c, l, &a);
        if (!rc)
            rc = add_midpoints(&a);
        break;
    }
    nginx_pool_free(&pool);
    plc_free(order);
    if (!rc && a.n == 0)
        rc = PLACER_EINVAL; /* every weight rounded to no point */
    if (rc) {
        plc_free(a.v);
        return rc;
    }
    /* the midpoints were appended after haproxy's sorted points: array
     * order is still insertion order among equal values */
    if ((rc = sort_points(&a)) != 0) {
        plc_free(a.v);
        return rc;
    }
    if (c->program == PLC_COMPAT_NGINX) { /* equal points after the first go */
        uint32_t k = 0;
        for (uint32_t j = 1; j < a.n; j++)
            if (a.v[k].token != a.v[j].token) {
                k++;
                a.v[k].token = a.v[j].token;
                a.v[k].owner = a.v[j].owner;
            }
        a.n = k + 1;
    }
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
