/* stree_scalar.c -- the S+ tree descent with plain compares (any CPU). */
#include <stdint.h>

static inline uint32_t rank_node(const int64_t *key, int64_t x)
{
    uint32_t r = 0;
    for (int i = 0; i < 8; i++)
        r += key[i] < x;
    return r;
}

static inline uint32_t rank_leaf(const int64_t *key, int64_t x)
{
    uint32_t r = 0;
    for (int i = 0; i < 5; i++)
        r += key[i] < x;
    return r;
}

#define PLC_STREE_ONE plc_stree_scalar
#define PLC_STREE_BATCH plc_stree_batch_scalar
#include "stree_body.h"
