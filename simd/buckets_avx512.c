/* buckets_avx512.c -- the lookups of buckets.h in the AVX-512 library: a
 * line is 16 suffixes, one 256-bit compare (AVX2's, buckets_rank_avx2.h);
 * what a line cannot decide takes the AVX-512 S+ tree descent. */
#include "buckets_rank_avx2.h"

#define PLC_BKT_ONE plc_bkt_avx512
#define PLC_BKT_BATCH plc_bkt_batch_avx512
#define PLC_BKT_KEY_BATCH plc_bkt_key_batch_avx512
#define PLC_BKT_KEY_ONE plc_bkt_key_avx512
#define PLC_BKT_INDEX plc_bkt_index_avx512
#define PLC_BKT_KEY_SET plc_bkt_key_set_avx512
#define PLC_BKT_KEY_SETS plc_bkt_key_sets_avx512
#define PLC_BKT_TREE_ONE plc_stree_avx512
#define PLC_BKT_TREE_BATCH plc_stree_batch_avx512
#define PLC_BKT_TREE_INDEX plc_stree_index_avx512
#define PLC_HASH64_STEP hw_crc_step
#include "buckets_body.h"
