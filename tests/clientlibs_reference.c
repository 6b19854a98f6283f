/*
 * clientlibs_reference.c -- the plain references of clientlibs_reference.h.
 * The IEEE CRC is zlib's, MD5 Nettle's; the rest is written out here.
 */
#include <nettle/md5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "clientlibs_reference.h"

static char *point_text(const char *a, size_t alen, const char *b, size_t blen, size_t *n)
{
    char *t = malloc(alen + blen + 1);
    if (!t)
        abort();
    memcpy(t, a, alen);
    memcpy(t + alen, b, blen);
    *n = alen + blen;
    return t;
}

struct ref_ring {
    int kind;       /* 0 groupcache, 1 uhashring ketama, 2 uhashring default */
    size_t vlen, n, cap;
    unsigned char *v; /* n values of vlen bytes, big-endian */
    uint32_t *owner;
};

static void be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void add(ref_ring *r, const unsigned char *v, uint32_t owner)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->v = realloc(r->v, r->cap * r->vlen);
        r->owner = realloc(r->owner, r->cap * sizeof *r->owner);
        if (!r->v || !r->owner)
            abort();
    }
    memcpy(r->v + r->n * r->vlen, v, r->vlen);
    r->owner[r->n++] = owner;
}

static ref_ring *ring_new(int kind, size_t vlen)
{
    ref_ring *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    r->kind = kind;
    r->vlen = vlen;
    return r;
}

ref_ring *ref_ring_groupcache(const ref_lib_node *nodes, uint32_t n, uint32_t replicas)
{
    ref_ring *r = ring_new(0, 4);
    unsigned char v[4];
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < replicas; k++) {
            char d[16];
            int dl = snprintf(d, sizeof d, "%u", k);
            size_t tl;
            char *t = point_text(d, (size_t)dl, nodes[i].name, nodes[i].len, &tl);
            be32(v, (uint32_t)crc32(0, (const unsigned char *)t, (uInt)tl));
            free(t);
            add(r, v, i);
        }
    return r;
}

static void md5(const void *p, size_t n, unsigned char d[16])
{
    struct md5_ctx c;
    md5_init(&c);
    md5_update(&c, n, p);
    md5_digest(&c, 16, d);
}

static uint32_t le32(const unsigned char *q)
{
    return (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
}

ref_ring *ref_ring_uhashring(const ref_lib_node *nodes, uint32_t n, int ketama, uint32_t vnodes,
                             uint32_t replicas)
{
    ref_ring *r = ring_new(ketama ? 1 : 2, ketama ? 4 : 16);
    unsigned char d[16], v[4];
    uint64_t wsum = 0;
    for (uint32_t i = 0; i < n; i++)
        wsum += nodes[i].weight;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t vn = nodes[i].vnodes ? nodes[i].vnodes : vnodes ? vnodes : ketama ? 40 : 160;
        uint64_t names = ketama ? vn * n * nodes[i].weight / wsum : vn * nodes[i].weight;
        for (uint64_t w = 0; w < names; w++) {
            char s[32];
            int sl = snprintf(s, sizeof s, "-%llu", (unsigned long long)w);
            size_t tl;
            char *t = point_text(nodes[i].name, nodes[i].len, s, (size_t)sl, &tl);
            md5(t, tl, d);
            free(t);
            if (!ketama) {
                add(r, d, i);
                continue;
            }
            for (uint32_t k = 0; k < replicas; k++) {
                be32(v, le32(d + 4 * k));
                add(r, v, i);
            }
        }
    }
    return r;
}

/* The smallest value at or above the key's (strictly above: uhashring's
 * bisect), the last written among equal values; past them all, the
 * smallest value, the last written among equals. */
uint32_t ref_ring_owner(const ref_ring *r, const void *key, size_t len)
{
    unsigned char bound[16], d[16];
    if (r->kind == 0)
        be32(bound, (uint32_t)crc32(0, key, (uInt)len));
    else {
        md5(key, len, d);
        if (r->kind == 1)
            be32(bound, le32(d));
        else
            memcpy(bound, d, 16);
    }
    size_t best = SIZE_MAX, wrap = SIZE_MAX;
    for (size_t i = 0; i < r->n; i++) {
        const unsigned char *v = r->v + i * r->vlen;
        int c = memcmp(v, bound, r->vlen);
        if ((c > 0 || (c == 0 && r->kind == 0)) &&
            (best == SIZE_MAX || memcmp(v, r->v + best * r->vlen, r->vlen) <= 0))
            best = i;
        if (wrap == SIZE_MAX || memcmp(v, r->v + wrap * r->vlen, r->vlen) <= 0)
            wrap = i;
    }
    return r->owner[best != SIZE_MAX ? best : wrap];
}

void ref_ring_free(ref_ring *r)
{
    if (r) {
        free(r->v);
        free(r->owner);
        free(r);
    }
}

/* A text's characters as Python decodes its UTF-8 bytes with
 * surrogateescape, each as its code point's low 8 bits. */
static size_t py_chars(const unsigned char *p, size_t n, unsigned char *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        unsigned b = p[i], need = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : 0;
        unsigned long cp = need == 3 ? b & 7u : need == 2 ? b & 15u : need == 1 ? b & 31u : b;
        size_t k = 1;
        int ok = b < 0x80 || (b >= 0xC0 && b <= 0xF7);
        for (; ok && k <= need; k++) {
            if (i + k >= n || (p[i + k] & 0xC0) != 0x80)
                ok = 0;
            else
                cp = cp << 6 | (p[i + k] & 0x3Fu);
        }
        static const unsigned long least[4] = {0, 0x80, 0x800, 0x10000};
        if (ok && (cp < least[need] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)))
            ok = 0;
        if (!ok) {
            out[m++] = (unsigned char)b; /* U+DC00 + b: its low byte is b */
            i++;
            continue;
        }
        out[m++] = (unsigned char)cp;
        i += need + 1;
    }
    return m;
}

static uint32_t rotl(uint32_t x, int r)
{
    return x << r | x >> (32 - r);
}

/* MurmurHash3_x86_32, seed 0, as its reference C. */
static uint32_t murmur3_32(const unsigned char *p, size_t n)
{
    uint32_t h = 0, k;
    size_t i;
    for (i = 0; i + 4 <= n; i += 4) {
        k = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 |
            (uint32_t)p[i + 3] << 24;
        k *= 0xcc9e2d51u;
        k = rotl(k, 15);
        k *= 0x1b873593u;
        h ^= k;
        h = rotl(h, 13);
        h = h * 5 + 0xe6546b64u;
    }
    k = 0;
    switch (n & 3) {
    case 3: k ^= (uint32_t)p[i + 2] << 16; /* fall through */
    case 2: k ^= (uint32_t)p[i + 1] << 8;  /* fall through */
    case 1:
        k ^= p[i];
        k *= 0xcc9e2d51u;
        k = rotl(k, 15);
        k *= 0x1b873593u;
        h ^= k;
    }
    h ^= (uint32_t)n;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ h >> 16;
}

static int name_less(const ref_lib_node *a, const ref_lib_node *b)
{
    size_t m = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, m);
    return c < 0 || (c == 0 && a->len < b->len);
}

uint32_t ref_pymemcache_owner(const ref_lib_node *nodes, uint32_t n, const void *key, size_t len)
{
    long long high = -1;
    uint32_t win = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t tl;
        char *t = point_text(nodes[i].name, nodes[i].len, "-", 1, &tl);
        char *u = point_text(t, tl, key, len, &tl);
        unsigned char *c = malloc(tl + 1);
        if (!c)
            abort();
        long long score = murmur3_32(c, py_chars((const unsigned char *)u, tl, c));
        free(c);
        free(u);
        free(t);
        if (score > high || (score == high && name_less(&nodes[win], &nodes[i]))) {
            high = score;
            win = i;
        }
    }
    return win;
}
