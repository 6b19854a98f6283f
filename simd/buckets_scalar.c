/* buckets_scalar.c -- the lines of buckets.h ranked with plain compares
 * (any CPU); the fused kernels hash with the software CRC tables, the rest
 * take the scalar S+ tree descent. */
#include <stdint.h>

#include "buckets.h"
#include "crc32c.h"

static inline uint32_t bkt_rank(const plc_bkt_line *l, int16_t q)
{
    uint32_t r = 0;
    for (uint32_t j = 0; j < PLC_BKT_LANES; j++)
        r += l->suf[j] < q;
    return r;
}

/* The rank as a byte offset into suf[] or own[]. */
static inline uint32_t bkt_rank_bytes(const plc_bkt_line *l, int16_t q)
{
    return 2 * bkt_rank(l, q);
}

#define PLC_BKT_ONE plc_bkt_scalar
#define PLC_BKT_BATCH plc_bkt_batch_scalar
#define PLC_BKT_KEY_BATCH plc_bkt_key_batch_scalar
#define PLC_BKT_KEY_ONE plc_bkt_key_scalar
#define PLC_BKT_INDEX plc_bkt_index_scalar
#define PLC_BKT_TREE_ONE plc_stree_scalar
#define PLC_BKT_TREE_BATCH plc_stree_batch_scalar
#define PLC_BKT_TREE_INDEX plc_stree_index_scalar
#define PLC_HASH64_STEP plc_crc32c_sw_u64
#include "buckets_body.h"
