/* buckets_avx2.c -- the lookups of buckets.h with AVX2 (-mavx2): one
 * 256-bit compare a line; the rest take the AVX2 S+ tree descent. */
#include "buckets_rank_avx2.h"

#define PLC_BKT_ONE plc_bkt_avx2
#define PLC_BKT_BATCH plc_bkt_batch_avx2
#define PLC_BKT_KEY_BATCH plc_bkt_key_batch_avx2
#define PLC_BKT_KEY_ONE plc_bkt_key_avx2
#define PLC_BKT_INDEX plc_bkt_index_avx2
#define PLC_BKT_KEY_SET plc_bkt_key_set_avx2
#define PLC_BKT_KEY_SETS plc_bkt_key_sets_avx2
#define PLC_BKT_TREE_ONE plc_stree_avx2
#define PLC_BKT_TREE_BATCH plc_stree_batch_avx2
#define PLC_BKT_TREE_INDEX plc_stree_index_avx2
#define PLC_HASH64_STEP hw_crc_step
#include "buckets_body.h"
