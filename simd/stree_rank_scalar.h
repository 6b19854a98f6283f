/*
 * stree_rank_scalar.h -- the ranks of an S+ tree line with plain compares
 * (any CPU): rank_node counts an internal line's 8 separators < x,
 * rank_leaf a leaf line's 5 keys < x (keys and x sign-flipped, stree.h).
 * The S+ tree's descent (stree_scalar.c) and the directory's leaf ranks
 * (dir_scalar.c) share them.
 */
#ifndef PLC_SIMD_STREE_RANK_SCALAR_H
#define PLC_SIMD_STREE_RANK_SCALAR_H

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

#endif
