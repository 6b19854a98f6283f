/*
 * compat_reference.c -- see compat_reference.h. Slow on purpose: every
 * lookup scans all the program's points, unsorted.
 */
#include "compat_reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "placer.h"

typedef struct rpt {
    uint32_t value, owner;
} rpt;

typedef struct rlist {
    rpt *v;
    size_t n, cap;
} rlist;

static void push(rlist *r, uint32_t value, uint32_t owner)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        if (!r->v)
            abort();
    }
    r->v[r->n++] = (rpt){value, owner};
}

static uint32_t le32(const unsigned char *d)
{
    return (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
}

static void md5_four(rlist *r, const char *s, size_t n, uint32_t owner)
{
    unsigned char d[16];
    plc_compat_md5(s, n, d);
    for (int x = 0; x < 4; x++)
        push(r, le32(d + 4 * x), owner);
}

/* twemproxy's server order: by name length, then bytes (selection sort). */
static void name_order(const plc_compat_config *c, uint32_t *order)
{
    for (uint32_t i = 0; i < c->nnodes; i++)
        order[i] = i;
    for (uint32_t i = 0; i < c->nnodes; i++)
        for (uint32_t j = i + 1; j < c->nnodes; j++) {
            const plc_compat_node *a = &c->nodes[order[i]], *b = &c->nodes[order[j]];
            int gt = a->id_len != b->id_len ? a->id_len > b->id_len
                                            : memcmp(a->id, b->id, a->id_len) > 0;
            if (gt) {
                uint32_t t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
}

/* The point names, as "%.*s" and "%u" would print them: text up to a NUL,
 * then decimal digits. */
static size_t put_text(char *buf, size_t at, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++)
        buf[at++] = s[i];
    return at;
}

static size_t put_number(char *buf, size_t at, unsigned v)
{
    unsigned long p = 1;
    while (p * 10 <= v)
        p *= 10;
    for (; p; p /= 10)
        buf[at++] = (char)('0' + v / p % 10);
    return at;
}

static size_t host_len_of(const plc_compat_node *nd, unsigned *port)
{
    size_t c = nd->address_len;
    while (nd->address[c - 1] != ':')
        c--;
    *port = (unsigned)strtoul(nd->address + c, NULL, 10);
    return c - 1;
}

/* haproxy's server ids (cfgparse.c): an explicit id is kept; a server
 * without one takes the first id >= next_id that no server has (explicit,
 * or given before it), and next_id counts every server. */
static void haproxy_ids(const plc_compat_config *c, uint32_t *ids)
{
    uint32_t next = 1;
    for (uint32_t i = 0; i < c->nnodes; i++, next++) {
        ids[i] = c->nodes[i].hash_id;
        if (ids[i])
            continue;
        for (int taken = 1; taken; next += taken) {
            taken = 0;
            for (uint32_t k = 0; k < c->nnodes; k++)
                taken |= c->nodes[k].hash_id == next || (k < i && ids[k] == next);
        }
        ids[i] = next;
    }
}

static void ring_points(const plc_compat_config *c, const plc_compat_layout *l, const uint32_t *ids,
                        rlist *r)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < c->nnodes; i++)
        total += c->nodes[i].weight;
    char buf[2048];
    if (l->program == PLACER_COMPAT_LIBMEMCACHED) {
        int weighted = l->distribution == PLC_CD_KETAMA_WEIGHTED;
        for (uint32_t i = 0; i < c->nnodes; i++)
            weighted |= c->nodes[i].weight > 1;
        for (uint32_t i = 0; i < c->nnodes; i++) {
            unsigned port;
            size_t hl = host_len_of(&c->nodes[i], &port);
            /* one float operation per assignment, as x86-64 evaluates
             * them (s390x would carry the expression in double) */
            float pct = (float)c->nodes[i].weight / (float)total;
            float x = pct * 40.0f;
            x = x * (float)c->nnodes;
            x = x + 1e-10f;
            unsigned groups = weighted ? (unsigned)floor(x) : 100u;
            for (unsigned j = 0; j < groups; j++) {
                /* "host-j", "host:port-j" when the port is not 11211 */
                size_t n = put_text(buf, 0, c->nodes[i].address, hl);
                if (port != 11211) {
                    buf[n++] = ':';
                    n = put_number(buf, n, port);
                }
                buf[n++] = '-';
                n = put_number(buf, n, j);
                if (weighted)
                    md5_four(r, buf, n, i);
                else
                    push(r, plc_compat_hash_function(l->key_hash)(buf, n), i);
            }
        }
    } else if (l->program == PLACER_COMPAT_TWEMPROXY) {
        uint32_t order[64];
        name_order(c, order);
        for (uint32_t k = 0; k < c->nnodes; k++) {
            uint32_t i = order[k];
            float pct = (float)c->nodes[i].weight / (float)total;
            float x = pct * 40.0f;
            x = x * (float)c->nnodes;
            x = (float)((double)x + 1e-10);
            unsigned groups = (unsigned)floorf(x);
            for (unsigned j = 0; j < groups; j++) {
                size_t n = put_text(buf, 0, c->nodes[i].id, c->nodes[i].id_len);
                buf[n++] = '-';
                n = put_number(buf, n, j);
                md5_four(r, buf, n, i);
            }
        }
    } else if (l->program == PLACER_COMPAT_NGINX) {
        for (uint32_t i = 0; i < c->nnodes; i++) {
            /* crc32(HOST \0 PORT prev) as one buffer, recomputed per point. */
            const char *s = c->nodes[i].address;
            size_t n = c->nodes[i].address_len, hl = n, po = n;
            if (n >= 5 && strncasecmp(s, "unix:", 5) == 0) {
                s += 5;
                n -= 5;
                hl = n;
                po = n;
            } else {
                size_t j = n;
                while (j > 0 && s[j - 1] >= '0' && s[j - 1] <= '9')
                    j--;
                if (j > 0 && s[j - 1] == ':') {
                    hl = j - 1;
                    po = j;
                }
            }
            size_t m = 0;
            memcpy(buf, s, hl);
            m = hl;
            buf[m++] = 0;
            memcpy(buf + m, s + po, n - po);
            m += n - po;
            uint32_t prev = 0;
            for (uint32_t j = 0; j < 160u * c->nodes[i].weight; j++) {
                unsigned char le[4] = {(unsigned char)prev, (unsigned char)(prev >> 8),
                                       (unsigned char)(prev >> 16), (unsigned char)(prev >> 24)};
                memcpy(buf + m, le, 4);
                prev = placer_crc32(0, buf, m + 4);
                push(r, prev, i);
            }
        }
    } else { /* haproxy */
        for (uint32_t i = 0; i < c->nnodes; i++)
            for (uint32_t j = 0; j < 16u * c->nodes[i].weight; j++)
                push(r, plc_hash_haproxy_full(ids[i] * 4096u + j), i);
    }
}

static uint32_t ring_owner(const plc_compat_layout *l, const rlist *r, uint32_t h)
{
    /* next: the smallest point >= h (else the smallest); the first inserted
     * among equals. prev: the point before next in sorted order. (Each
     * scan keeps the best value so far beside its index.) */
    const rpt *v = r->v;
    size_t next = SIZE_MAX, lo = 0;
    uint32_t next_v = 0, lo_v = v[0].value;
    for (size_t i = 0; i < r->n; i++) {
        uint32_t x = v[i].value;
        if (x >= h && (next == SIZE_MAX || x < next_v)) {
            next = i;
            next_v = x;
        }
        if (x < lo_v) {
            lo = i;
            lo_v = x;
        }
    }
    if (next == SIZE_MAX) {
        next = lo;
        next_v = lo_v;
    }
    if (l->program != PLACER_COMPAT_HAPROXY)
        return v[next].owner;
    size_t prev = SIZE_MAX, hi = 0;
    uint32_t prev_v = 0, hi_v = v[0].value;
    for (size_t i = 0; i < r->n; i++) {
        uint32_t x = v[i].value;
        if (x < next_v && (prev == SIZE_MAX || x > prev_v)) {
            prev = i;
            prev_v = x;
        }
        if (x > hi_v) {
            hi = i;
            hi_v = x;
        }
    }
    if (prev == SIZE_MAX) {
        prev = hi;
        prev_v = hi_v;
    }
    uint32_t dp = h - prev_v, dn = next_v - h;
    return dp <= dn ? v[prev].owner : v[next].owner;
}

static uint32_t table_owner(const plc_compat_config *c, const plc_compat_layout *l, uint32_t h)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < c->nnodes; i++)
        total += c->nodes[i].weight;
    if (l->program == PLACER_COMPAT_TWEMPROXY || l->program == PLACER_COMPAT_NGINX) {
        uint32_t order[64];
        if (l->program == PLACER_COMPAT_TWEMPROXY)
            name_order(c, order);
        else
            for (uint32_t i = 0; i < c->nnodes; i++)
                order[i] = i;
        uint64_t w = h % total; /* nginx's walk of the weights */
        uint32_t k = 0;
        while (w >= c->nodes[order[k]].weight)
            w -= c->nodes[order[k++]].weight;
        return order[k];
    }
    if (l->program == PLACER_COMPAT_REDIS) {
        if (c->slot_owner)
            return c->slot_owner[h];
        float per = 16384.0f / (float)c->nnodes, cursor = 0;
        long first = 0;
        for (uint32_t i = 0; i < c->nnodes; i++) {
            float end = cursor + per;
            end = end - 1;
            long last = lround(end);
            if (i == c->nnodes - 1 || last > 16384)
                last = 16383;
            if (last < first)
                last = first;
            if ((long)h >= first && (long)h <= last)
                return i;
            first = last + 1;
            cursor += per;
        }
        return UINT32_MAX;
    }
    /* haproxy map-based: weights over their gcd, the weighted map rebuilt
     * slot by slot up to the one asked for. */
    uint32_t g = 0;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        uint32_t a = g, b = c->nodes[i].weight;
        while (b) {
            uint32_t t = a % b;
            a = b;
            b = t;
        }
        g = a;
    }
    long tot = (long)(total / g), score[64] = {0};
    long want = (long)(h % (uint32_t)tot);
    uint32_t best = 0;
    for (long o = 0; o <= want; o++) {
        long max = 0;
        best = UINT32_MAX;
        for (uint32_t i = 0; i < c->nnodes; i++) {
            if (tot == 1) {
                best = i;
                break;
            }
            score[i] += (long)(c->nodes[i].weight / g);
            long v = (score[i] + tot) / tot;
            if (best == UINT32_MAX || v > max) {
                max = v;
                best = i;
            }
        }
        score[best] -= tot;
    }
    return best;
}

static void tag(char open, char close, const unsigned char **k, size_t *len)
{
    size_t s = 0, e;
    while (s < *len && (*k)[s] != (unsigned char)open)
        s++;
    if (s == *len)
        return;
    for (e = s + 1; e < *len && (*k)[e] != (unsigned char)close; e++)
        ;
    if (e == *len || e == s + 1)
        return;
    *k += s + 1;
    *len = e - s - 1;
}

static uint32_t key_hash(const plc_compat_config *c, const plc_compat_layout *l, const void *key,
                         size_t len)
{
    const unsigned char *k = key;
    uint32_t h;
    switch (l->program) {
    case PLACER_COMPAT_LIBMEMCACHED:
        return c->nnodes == 1 ? 0 : plc_compat_hash_function(l->key_hash)(k, len);
    case PLACER_COMPAT_TWEMPROXY:
        if (c->hash_tag[0])
            tag(c->hash_tag[0], c->hash_tag[1], &k, &len);
        return c->nnodes == 1 || len == 0 ? 0 : plc_compat_hash_function(l->key_hash)(k, len);
    case PLACER_COMPAT_NGINX:
        h = placer_crc32(0, k, len);
        return l->distribution == PLC_CD_HASH ? (h >> 16) & 0x7fff : h;
    case PLACER_COMPAT_HAPROXY:
        h = plc_compat_hash_function(l->key_hash)(k, len);
        return c->avalanche ? plc_hash_haproxy_full(h) : h;
    default:
        tag('{', '}', &k, &len);
        return plc_hash_redis_crc16(k, len) % 16384u;
    }
}

struct ref_compat {
    const plc_compat_config *c;
    const plc_compat_layout *l;
    int ring;     /* the distribution is a ring's */
    rlist points; /* empty for a table */
};

ref_compat *ref_compat_new(const plc_compat_config *c, const plc_compat_layout *l)
{
    ref_compat *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    r->c = c;
    r->l = l;
    r->ring = l->distribution == PLC_CD_KETAMA_WEIGHTED || l->distribution == PLC_CD_KETAMA ||
              l->distribution == PLC_CD_CONSISTENT;
    if (r->ring) {
        /* room for every point up front: at most 160 per unit of weight
         * (nginx), or 164 per server (ketama's rounding) */
        uint64_t total = 0;
        for (uint32_t i = 0; i < c->nnodes; i++)
            total += c->nodes[i].weight;
        r->points.cap = (size_t)(160 * total + 164 * (uint64_t)c->nnodes);
        r->points.v = malloc(r->points.cap * sizeof *r->points.v);
        uint32_t *ids = calloc(c->nnodes, sizeof *ids);
        if (!r->points.v || !ids)
            abort();
        if (l->program == PLACER_COMPAT_HAPROXY)
            haproxy_ids(c, ids);
        ring_points(c, l, ids, &r->points);
        free(ids);
    }
    return r;
}

uint32_t ref_compat_owner(const ref_compat *r, const void *key, size_t len)
{
    uint32_t h = key_hash(r->c, r->l, key, len);
    if (!r->ring)
        return table_owner(r->c, r->l, h);
    return ring_owner(r->l, &r->points, h);
}

void ref_compat_free(ref_compat *r)
{
    if (r)
        free(r->points.v);
    free(r);
}
