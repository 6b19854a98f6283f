/*
 * compat_layout_kit.c -- what every program's layout shares
 * (compat_layout_kit.h): the stable sort of the points, the "host:port"
 * split and the weight checks.
 */
#include <stdint.h>
#include <string.h>

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
