/*
 * crc32c.h -- CRC-32C kernels (Castagnoli, reflected polynomial 0x82F63B78).
 *
 * Two families with identical results:
 *   *_sw : slicing-by-8 tables, any CPU;
 *   *_hw : the SSE4.2 / ARMv8 crc32c instruction through SIMDe, three
 *          independent streams for long buffers, combined with shift tables.
 * The _u64 step functions are the raw register update of the instruction
 * (no pre/post inversion), the building block of the placement hashes
 * (placer-v1: plc_hash64_*, hash64_body.h; placer-v2: plc_hash64_v2_*,
 * hash64_v2_body.h).
 *
 * The tables are computed by plc_crc32c_tables_init(), which the dispatcher
 * (kernels.c) runs once before any kernel can be reached.
 */
#ifndef PLC_SIMD_CRC32C_H
#define PLC_SIMD_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#include "hashfn.h"

#define PLC_CRC32C_POLY 0x82F63B78u

/* Lengths of the three-stream blocks of the hardware path. */
#define PLC_CRC32C_LONG 8192u
#define PLC_CRC32C_SHORT 256u

/* Slicing-by-8 tables, and the tables that shift a CRC register across
 * LONG or SHORT zero bytes (x^(8n) mod P, one table per byte of the CRC). */
extern uint32_t plc_crc32c_slice[8][256];
extern uint32_t plc_crc32c_shift_long[4][256];
extern uint32_t plc_crc32c_shift_short[4][256];

void plc_crc32c_tables_init(void);

/* (a * b) mod P over GF(2), in the reflected bit order of the CRC. */
uint32_t plc_crc32c_multmodp(uint32_t a, uint32_t b);
/* x^(8 * nbytes) mod P: the operator that advances a register over nbytes zeros. */
uint32_t plc_crc32c_x8nmodp(uint64_t nbytes);

static inline uint32_t plc_crc32c_shift(const uint32_t t[4][256], uint32_t crc)
{
    return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^ t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
}

uint32_t plc_crc32c_sw(uint32_t crc, const void *data, size_t len);
uint32_t plc_crc32c_sw_u64(uint32_t crc, uint64_t word);
uint64_t plc_hash64_sw(uint64_t seed, const void *key, size_t len);
void plc_hash64_batch_sw(uint64_t seed, const void *const *keys, const size_t *lens, size_t n,
                         uint64_t *out);
uint64_t plc_hash64_v2_sw(uint64_t seed, const void *key, size_t len);
void plc_hash64_v2_batch_sw(uint64_t seed, const void *const *keys, const size_t *lens, size_t n,
                            uint64_t *out);
/* The same two hashes with the shared snapshot signature (hashfn.h). */
uint64_t plc_hash_v1_sw(const plc_hash_key *k, const void *key, size_t len);
void plc_hash_v1_batch_sw(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                         size_t n, uint64_t *out);
uint64_t plc_hash_v2_sw(const plc_hash_key *k, const void *key, size_t len);
void plc_hash_v2_batch_sw(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                         size_t n, uint64_t *out);

#if defined(PLC_HAVE_CRC_HW)
uint32_t plc_crc32c_hw(uint32_t crc, const void *data, size_t len);
uint64_t plc_hash64_hw(uint64_t seed, const void *key, size_t len);
void plc_hash64_batch_hw(uint64_t seed, const void *const *keys, const size_t *lens, size_t n,
                         uint64_t *out);
uint64_t plc_hash64_v2_hw(uint64_t seed, const void *key, size_t len);
void plc_hash64_v2_batch_hw(uint64_t seed, const void *const *keys, const size_t *lens, size_t n,
                            uint64_t *out);
/* The same two hashes with the shared snapshot signature (hashfn.h). */
uint64_t plc_hash_v1_hw(const plc_hash_key *k, const void *key, size_t len);
void plc_hash_v1_batch_hw(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                         size_t n, uint64_t *out);
uint64_t plc_hash_v2_hw(const plc_hash_key *k, const void *key, size_t len);
void plc_hash_v2_batch_hw(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                         size_t n, uint64_t *out);
#endif

#if defined(PLC_HAVE_AVX2)
/* The same hashes built with BMI2 (hash64_bmi2.c, the AVX2 library). */
uint64_t plc_hash64_bmi2(uint64_t seed, const void *key, size_t len);
void plc_hash64_batch_bmi2(uint64_t seed, const void *const *keys, const size_t *lens, size_t n,
                           uint64_t *out);
uint64_t plc_hash64_v2_bmi2(uint64_t seed, const void *key, size_t len);
void plc_hash64_v2_batch_bmi2(uint64_t seed, const void *const *keys, const size_t *lens, size_t n,
                              uint64_t *out);
uint64_t plc_hash_v1_bmi2(const plc_hash_key *k, const void *key, size_t len);
void plc_hash_v1_batch_bmi2(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                            size_t n, uint64_t *out);
uint64_t plc_hash_v2_bmi2(const plc_hash_key *k, const void *key, size_t len);
void plc_hash_v2_batch_bmi2(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                            size_t n, uint64_t *out);
#endif

#endif
