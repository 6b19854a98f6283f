/*
 * zone_set.c -- a zone's tokens in chunks (zone_set.h).
 */
#include <string.h>

#include "alloc.h"
#include "placer.h"
#include "zone_set.h"

static uint64_t last_of(const zset_chunk *c)
{
    return c->tok[c->n - 1];
}

/* The first chunk whose last token is >= v (strict: > v), or nc. */
static uint32_t chunk_at(const plc_zone_set *z, uint64_t v, int strict, uint64_t *work)
{
    uint32_t lo = 0, hi = z->nc;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint64_t l = last_of(z->c[mid]);
        ++*work;
        if (strict ? l <= v : l < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* In chunk c, the first entry >= v (strict: > v). */
static uint32_t entry_at(const zset_chunk *c, uint64_t v, int strict, uint64_t *work)
{
    uint32_t lo = 0, hi = c->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        ++*work;
        if (strict ? c->tok[mid] <= v : c->tok[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Room for one more chunk pointer, and a new empty chunk at index at. */
static zset_chunk *new_chunk(plc_zone_set *z, uint32_t at)
{
    if (z->nc == z->cap) {
        uint32_t cap = z->cap ? z->cap * 2 : 4;
        zset_chunk **c = plc_realloc(z->c, (size_t)cap * sizeof *c);
        if (!c)
            return NULL;
        z->c = c;
        z->cap = cap;
    }
    zset_chunk *k = plc_malloc(sizeof *k);
    if (!k)
        return NULL;
    k->n = 0;
    memmove(z->c + at + 1, z->c + at, (size_t)(z->nc - at) * sizeof *z->c);
    z->c[at] = k;
    z->nc++;
    return k;
}

int plc_zset_append(plc_zone_set *z, uint64_t t, uint32_t o)
{
    zset_chunk *k = z->nc ? z->c[z->nc - 1] : NULL;
    if (!k || k->n == ZSET_CHUNK)
        if (!(k = new_chunk(z, z->nc)))
            return PLACER_ENOMEM;
    k->tok[k->n] = t;
    k->own[k->n++] = o;
    z->n++;
    return 0;
}

int plc_zset_insert(plc_zone_set *z, uint64_t t, uint32_t o, uint64_t *work)
{
    uint32_t ci = chunk_at(z, t, 1, work);
    if (ci == z->nc) /* past every token: at the end of the last chunk */
        return plc_zset_append(z, t, o);
    zset_chunk *k = z->c[ci];
    uint32_t at = entry_at(k, t, 1, work);
    if (k->n == ZSET_CHUNK) { /* split: the upper half to a new chunk */
        zset_chunk *hi = new_chunk(z, ci + 1);
        if (!hi)
            return PLACER_ENOMEM;
        uint32_t half = ZSET_CHUNK / 2;
        memcpy(hi->tok, k->tok + half, half * sizeof *hi->tok);
        memcpy(hi->own, k->own + half, half * sizeof *hi->own);
        hi->n = half;
        k->n = half;
        *work += half;
        if (at > half) {
            k = hi;
            at -= half;
        }
    }
    memmove(k->tok + at + 1, k->tok + at, (size_t)(k->n - at) * sizeof *k->tok);
    memmove(k->own + at + 1, k->own + at, (size_t)(k->n - at) * sizeof *k->own);
    *work += k->n - at;
    k->tok[at] = t;
    k->own[at] = o;
    k->n++;
    z->n++;
    return 0;
}

uint32_t plc_zset_around(const plc_zone_set *z, uint64_t s, uint64_t *before, uint64_t *work)
{
    uint32_t ci = chunk_at(z, s, 0, work), at = 0;
    const zset_chunk *last = z->c[z->nc - 1];
    uint32_t owner;
    if (ci == z->nc) { /* every token < s: the first one follows, the last precedes */
        *before = last->tok[last->n - 1];
        return z->c[0]->own[0];
    }
    const zset_chunk *k = z->c[ci];
    at = entry_at(k, s, 0, work);
    owner = k->own[at];
    if (at > 0)
        *before = k->tok[at - 1];
    else
        *before = ci > 0 ? z->c[ci - 1]->tok[z->c[ci - 1]->n - 1] : last->tok[last->n - 1];
    return owner;
}

void plc_zset_free(plc_zone_set *z)
{
    for (uint32_t i = 0; i < z->nc; i++)
        plc_free(z->c[i]);
    plc_free(z->c);
    memset(z, 0, sizeof *z);
}
