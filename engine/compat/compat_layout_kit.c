/*
 * compat_layout_kit.c -- what every program's layout shares
 * (compat_layout_kit.h): the stable sort of the points, the "host:port"
 * split and the weight checks, a ring's room and finish, and the hash tag
 * cut (compat.h) of the key hashes.
 */
#include <stdint.h>
#include <string.h>

#include "alloc.h"
#include "compat_layout_kit.h"
#include "placer.h"

int plc_compat_points_sort(plc_compat_points *a)
{
    if (a->n < 2)
        return 0;
    plc_sort_entry *sorted = plc_radix_sort(a->v, a->v + a->cap, a->n);
    if (!sorted)
        return PLACER_ENOMEM;
    if (sorted != a->v)
        memcpy(a->v, sorted, sizeof *a->v * a->n);
    return 0;
}

void plc_compat_points_last_wins(plc_compat_points *a)
{
    uint32_t i = 0;
    while (i < a->n) {
        uint32_t j = i, last = i;
        while (j < a->n && a->v[j].token == a->v[i].token) {
            if (a->v[j].seq > a->v[last].seq)
                last = j;
            j++;
        }
        for (uint32_t k = i; k < j; k++)
            a->v[k].owner = a->v[last].owner;
        i = j;
    }
}

/* RFC 3629 (compat_layout_kit.h). */
size_t plc_compat_utf8_seq(const unsigned char *p, size_t n)
{
    unsigned char b = p[0];
    if (b < 0x80)
        return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF)
        len = 2;
    else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        if (b == 0xE0)
            lo = 0xA0;
        else if (b == 0xED)
            hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        if (b == 0xF0)
            lo = 0x90;
        else if (b == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if (p[k] < 0x80 || p[k] > 0xBF)
            return 0;
    return len;
}

/* Split "host:port" at the last ':' (libmemcached's and nginx's input). */
int plc_compat_split_address(const plc_compat_node *nd, size_t *host_len, uint32_t *port)
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

/* Every weight in 1 .. max; their sum into *total. */
int plc_compat_check_weights(const plc_compat_config *c, uint32_t max, uint64_t *total)
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

/* The part of the key between the first `open` and the first `close` after
 * it, when that part is not empty (twemproxy's hash_tag, Redis' {tag}). */
void plc_compat_tag(char open, char close, const unsigned char **key, size_t *len)
{
    const unsigned char *k = *key;
    if (!*len)
        return;
    const unsigned char *s = memchr(k, (unsigned char)open, *len);
    if (!s)
        return;
    const unsigned char *end = k + *len;
    const unsigned char *e = memchr(s + 1, (unsigned char)close, (size_t)(end - (s + 1)));
    if (!e || e - s <= 1)
        return;
    *key = s + 1;
    *len = (size_t)(e - (s + 1));
}

int plc_compat_ring_room(plc_compat_layout *l, plc_compat_points *a, uint64_t size)
{
    l->kind = PLC_CL_RING;
    /* Room for the points (haproxy's midpoints included: the size counts
     * them), and as much again for the sort. */
    a->n = 0;
    a->cap = (uint32_t)size;
    a->v = plc_malloc(sizeof *a->v * 2 * (size ? size : 1));
    return a->v ? 0 : PLACER_ENOMEM;
}

int plc_compat_ring_finish(plc_compat_layout *l, plc_compat_points *a, int rc,
                           plc_compat_sorted_fn *sorted)
{
    if (!rc && a->n == 0)
        rc = PLACER_EINVAL; /* every weight rounded to no point */
    /* points appended after sorted ones (haproxy's midpoints) keep array
     * order equal to insertion order among equal values */
    if (!rc)
        rc = plc_compat_points_sort(a);
    if (!rc && sorted)
        sorted(a);
    if (!rc) {
        l->n = a->n;
        l->points = plc_malloc(sizeof *l->points * a->n);
        l->owners = plc_malloc(sizeof *l->owners * a->n);
        if (!l->points || !l->owners)
            rc = PLACER_ENOMEM;
    }
    for (uint32_t j = 0; !rc && j < a->n; j++) {
        l->points[j] = (uint32_t)a->v[j].token;
        l->owners[j] = a->v[j].owner;
    }
    plc_free(a->v);
    a->v = NULL;
    return rc;
}

/* The plain search of a layout (compat.h): the reference the vectorised
 * paths and the differential fuzzer are held to. */
uint32_t plc_compat_slot(const plc_compat_layout *l, uint32_t hash)
{
    if (l->kind == PLC_CL_TABLE || l->kind == PLC_CL_SCORES) /* scores: the winner's index */
        return hash % l->n;
    uint32_t lo = 0, hi = l->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (l->points[mid] < hash)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == l->n ? 0 : lo;
}
