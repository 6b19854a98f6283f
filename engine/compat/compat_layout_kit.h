/*
 * compat_layout_kit.h -- what every program's layout shares (the programs'
 * files: compat_ketama.c, compat_nginx.c, compat_haproxy.c,
 * compat_haproxy_map.c, compat_tables.c, compat_redis.c; compat_build.c
 * chooses among them): the points made so far and their stable sort, the
 * point names' decimal digits, the "host:port" split and the weight
 * checks.
 */
#ifndef PLC_ENGINE_COMPAT_LAYOUT_KIT_H
#define PLC_ENGINE_COMPAT_LAYOUT_KIT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "compat.h"
#include "placer.h"
#include "radix_sort.h"

/* The points made so far, v[0..n), in room for cap; v[cap..2 cap) is the
 * sort's scratch (one allocation for both). A point (plc_sort_entry):
 * token its 32-bit value, owner its node, seq its insertion order (the
 * tie-break, kept by the stable sort). */
typedef struct plc_compat_points {
    plc_sort_entry *v;
    uint32_t n, cap;
} plc_compat_points;

/* Sorts a's points by value, stably: among equal values the array order,
 * which every caller keeps equal to the insertion order (seq), so the
 * result is the order of (value, seq), glibc's merge sort's (radix_sort.h:
 * O(n), no comparison callback). 0 or PLACER_ENOMEM. */
int plc_compat_points_sort(plc_compat_points *a);

/* Each run of equal values in a's sorted points owned by its last point's
 * owner (the highest seq: the last written), as a Go or Python map that
 * keeps the last value stored at a key answers (groupcache, uhashring). */
void plc_compat_points_last_wins(plc_compat_points *a);

static inline int plc_compat_points_push(plc_compat_points *a, uint32_t value, uint32_t owner)
{
    if (a->n == a->cap)
        return PLACER_ETOOMANY; /* sized up front; never grows */
    plc_sort_entry *p = &a->v[a->n]; /* field by field: a struct copy is a memcpy call under ASan */
    p->token = value;
    p->owner = owner;
    p->seq = a->n;
    a->n++;
    return 0;
}

/* The decimal digits of v at p (no NUL); their count. What "%u" writes:
 * the point names are formatted by hand, a few hundred per layout. */
static inline size_t plc_compat_put_decimal(char *p, uint32_t v)
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
static inline size_t plc_compat_printed_len(const char *s, size_t n)
{
    const char *z = memchr(s, 0, n);
    return z ? (size_t)(z - s) : n;
}

/* The length of the valid UTF-8 sequence at p[0..n) (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), 0 when none
 * starts there; n >= 1. */
size_t plc_compat_utf8_seq(const unsigned char *p, size_t n);

/* Split "host:port" at the last ':' (libmemcached's and nginx's input):
 * 0, or PLACER_EINVAL without a host or a port in 0 .. 65535. */
int plc_compat_split_address(const plc_compat_node *nd, size_t *host_len, uint32_t *port);

/* A ring's room for size points (l->kind set), and its finish once the
 * program has pushed its points (rc: the program's result): none is
 * PLACER_EINVAL, else they are sorted, `sorted` (or NULL) sees them, and
 * they become l->points and l->owners. The room is freed either way. */
typedef void plc_compat_sorted_fn(plc_compat_points *a);
int plc_compat_ring_room(plc_compat_layout *l, plc_compat_points *a, uint64_t size);
int plc_compat_ring_finish(plc_compat_layout *l, plc_compat_points *a, int rc,
                           plc_compat_sorted_fn *sorted);

/* Every weight of c in 1 .. max (else PLACER_EINVAL); their sum into *total. */
int plc_compat_check_weights(const plc_compat_config *c, uint32_t max, uint64_t *total);

#endif
