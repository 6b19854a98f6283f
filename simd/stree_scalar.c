/* stree_scalar.c -- the S+ tree descent with plain compares (any CPU); its
 * fused kernels hash with the software CRC tables. */
#include <stdint.h>

#include "crc32c.h"

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
#define PLC_STREE_INDEX plc_stree_index_scalar
#define PLC_STREE_KEY_ONE plc_stree_key_scalar
#define PLC_STREE_KEY_BATCH plc_stree_key_batch_scalar
#define PLC_HASH64_STEP plc_crc32c_sw_u64
#include "stree_body.h"
