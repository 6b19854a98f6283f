/*
 * compat_haproxy_map.c -- haproxy's map-based table, slot for slot as
 * lb_map.c recalc_server_map() fills it, in O((slots + nodes) log nodes).
 */
#include <stdint.h>
#include <string.h>

#include "alloc.h"
#include "compat_layouts.h"
#include "placer.h"

/* haproxy's map (lb_map.c recalc_server_map()): at each of the tot slots,
 * every node's score grows by its weight w (over the gcd; the w sum to
 * tot), the slot goes to the first node (lowest index) of highest level
 * v = (score + tot) / tot, and that node's score drops by tot. Done as
 * written that is O(slots x nodes): a forged 10,000-node map took 129 s to
 * decode. Here v changes only at events: a node's level rises
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

int plc_compat_haproxy_map_fill(const plc_compat_config *c, uint32_t div, uint32_t tot,
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

uint32_t plc_compat_haproxy_gcd(const plc_compat_config *c)
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

int plc_compat_haproxy_map_table(const plc_compat_config *c, plc_compat_layout *l,
                                 uint64_t total_cap)
{
    uint64_t total;
    int rc = plc_compat_check_weights(c, PLC_HAPROXY_MAX_WEIGHT, &total);
    if (rc)
        return rc;
    uint32_t div = plc_compat_haproxy_gcd(c); /* lb_map.c: weights over their greatest common divisor */
    total /= div;
    /* the slots made, as the size counts them (over the gcd): the bound a
     * decoder sets is exactly that */
    if (total > total_cap)
        return PLACER_ETOOMANY;
    l->kind = PLC_CL_TABLE;
    l->n = (uint32_t)total;
    l->owners = plc_malloc(sizeof *l->owners * l->n);
    if (!l->owners)
        return PLACER_ENOMEM;
    if (l->n == 1) {
        l->owners[0] = 0; /* recalc_server_map()'s tot == 1 case */
        return 0;
    }
    return plc_compat_haproxy_map_fill(c, div, l->n, l->owners);
}
