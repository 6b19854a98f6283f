/* hash64_bmi2.c -- placer-v1 and placer-v2 (hash64_body.h,
 * hash64_v2_body.h) in the AVX2 library, built with -mbmi2: the same
 * words, steps and bits as crc32c_hw.c's, but plc_mum_fold is a mulx
 * (hash64_common.h), so the batch loops need no moves around the
 * multiplies. kernels.c picks these when the CPU has the AVX2 level (which
 * includes BMI2). */
#include "crc32c.h"
#include "hw_crc_step.h"

#define PLC_HASH64_NAME plc_hash64_bmi2
#define PLC_HASH64_BATCH_NAME plc_hash64_batch_bmi2
#define PLC_HASH64_STEP hw_crc_step
#define PLC_HASH64_KEYED_NAME plc_hash_v1_bmi2
#define PLC_HASH64_KEYED_BATCH_NAME plc_hash_v1_batch_bmi2
#include "hash64_body.h"

#define PLC_HASH64_V2_NAME plc_hash64_v2_bmi2
#define PLC_HASH64_V2_BATCH_NAME plc_hash64_v2_batch_bmi2
#define PLC_HASH64_V2_KEYED_NAME plc_hash_v2_bmi2
/* crc32q on a 64-bit chain: its result is already zero-extended. */
#define PLC_HASH64_STEP64(c, w) ((uint64_t)simde_mm_crc32_u64((c), (w)))
#define PLC_HASH64_V2_KEYED_BATCH_NAME plc_hash_v2_batch_bmi2
#include "hash64_v2_body.h"
#undef PLC_HASH64_STEP64
