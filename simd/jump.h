/* jump.h -- jump consistent hash (Lamping & Veach, 2014). */
#ifndef PLC_SIMD_JUMP_H
#define PLC_SIMD_JUMP_H

#include <stddef.h>
#include <stdint.h>

/* The bucket in [0, buckets) of a 64-bit key, exactly the paper's
 * function; -1 when buckets <= 0. */
int32_t plc_jump_hash(uint64_t key, int32_t buckets);

/* The same function as dispatched kernels (kernels.h: jump, jump_batch),
 * every one bit-identical to plc_jump_hash; buckets >= 1. */
typedef int32_t (*plc_jump_fn)(uint64_t key, int32_t buckets);
typedef void (*plc_jump_batch_fn)(const uint64_t *keys, size_t n, int32_t buckets, uint32_t *out);

/* Portable: four keys' loops interleaved, each lane frozen when it ends. */
void plc_jump_batch_scalar(const uint64_t *keys, size_t n, int32_t buckets, uint32_t *out);
/* SSE4.1 (x86-64): the loop carried in doubles, truncated by roundsd. */
int32_t plc_jump_sse41(uint64_t key, int32_t buckets);
/* AVX2: eight keys in two vectors of four lanes, masked as they end. */
void plc_jump_batch_avx2(const uint64_t *keys, size_t n, int32_t buckets, uint32_t *out);

#endif
