/* buckets_scalar.c -- the lines of buckets.h ranked with plain compares
 * (any CPU); the fused kernels hash with the software CRC tables, the rest
 * take the scalar S+ tree descent. */
#include <stdint.h>

#include "buckets.h"
#include "crc32c.h"

/* The suffixes are sorted and lane 15 is always padding (a line of 16
 * tokens or more is crowded, every lane padding), so #{suf[j] < q} is a
 * branch-free binary search of four steps over lanes 0..15: four compares
 * instead of sixteen, the same count. */
static inline uint32_t bkt_rank(const plc_bkt_line *l, int16_t q)
{
    uint32_t r = 0;
    r += (uint32_t)(l->suf[r + 7] < q) * 8;
    r += (uint32_t)(l->suf[r + 3] < q) * 4;
    r += (uint32_t)(l->suf[r + 1] < q) * 2;
    r += (uint32_t)(l->suf[r] < q);
    return r;
}

/* The rank as a byte offset into suf[] or own[]. */
static inline size_t bkt_rank_bytes(const plc_bkt_line *l, int16_t q)
{
    return 2 * (size_t)bkt_rank(l, q); /* a scaled index, not an add */
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
