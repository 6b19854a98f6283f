/*
 * signed_ring.h -- the plain ring the replication references walk: hosts'
 * tokens as Cassandra orders them (signed 64-bit), sorted, and the first
 * token >= t (wrapping to the first) where a key's walk starts.
 */
#ifndef PLACER_TESTS_SIGNED_RING_H
#define PLACER_TESTS_SIGNED_RING_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    int64_t token;
    int host;
} ring_tok;

static inline int ring_tok_order(const void *a, const void *b)
{
    int64_t x = ((const ring_tok *)a)->token, y = ((const ring_tok *)b)->token;
    return x < y ? -1 : x > y;
}

static inline void ring_sort(ring_tok *ring, size_t n)
{
    qsort(ring, n, sizeof *ring, ring_tok_order);
}

/* The index of the first token >= t, 0 when every token is below it. */
static inline size_t ring_start(const ring_tok *ring, size_t n, int64_t t)
{
    size_t start = 0;
    while (start < n && ring[start].token < t)
        start++;
    return start == n ? 0 : start;
}

#endif
