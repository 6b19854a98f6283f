/* dir_scalar.c -- the directory lookup of dir.h with plain compares (any
 * CPU); crowded entries take the scalar S+ tree descent. */
#include <stdint.h>

#include "dir.h"

static inline uint32_t rank_leaf(const int64_t *key, int64_t x)
{
    uint32_t r = 0;
    for (int i = 0; i < 5; i++)
        r += key[i] < x;
    return r;
}

#define PLC_DIR_ONE plc_dir_scalar
#define PLC_DIR_BATCH plc_dir_batch_scalar
#define PLC_DIR_TREE_ONE plc_stree_scalar
#define PLC_DIR_TREE_BATCH plc_stree_batch_scalar
#include "dir_body.h"
