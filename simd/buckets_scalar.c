/* buckets_scalar.c -- the lines of buckets.h ranked with plain compares
 * (any CPU); the fused kernels hash with the software CRC tables, the rest
 * take the scalar S+ tree descent. */
#include <stdint.h>

#include "buckets.h"
#include "crc32c.h"

/* Four compares instead of sixteen, the same count (buckets.h). */
static inline uint32_t bkt_rank(const plc_bkt_line *l, int16_t q)
{
    return plc_bkt_rank_plain(l, q);
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
#define PLC_BKT_KEY_SET plc_bkt_key_set_scalar
#define PLC_BKT_KEY_SETS plc_bkt_key_sets_scalar
#define PLC_BKT_TREE_ONE plc_stree_scalar
#define PLC_BKT_TREE_BATCH plc_stree_batch_scalar
#define PLC_BKT_TREE_INDEX plc_stree_index_scalar
#define PLC_HASH64_STEP plc_crc32c_sw_u64
#include "buckets_body.h"
