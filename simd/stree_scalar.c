/* stree_scalar.c -- the S+ tree descent with plain compares (any CPU); its
 * fused kernels hash with the software CRC tables. */
#include <stdint.h>

#include "crc32c.h"
#include "stree_rank_scalar.h"

#define PLC_STREE_ONE plc_stree_scalar
#define PLC_STREE_BATCH plc_stree_batch_scalar
#define PLC_STREE_INDEX plc_stree_index_scalar
#define PLC_STREE_KEY_ONE plc_stree_key_scalar
#define PLC_STREE_KEY_BATCH plc_stree_key_batch_scalar
#define PLC_HASH64_STEP plc_crc32c_sw_u64
#include "stree_body.h"
