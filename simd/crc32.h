/*
 * crc32.h -- IEEE CRC-32 (reflected polynomial 0xEDB88320), bit for bit
 * zlib's crc32(): start with 0, chainable. Couchbase's SDKs map a key to a
 * vBucket with it. Two paths with identical results:
 *   plc_crc32_sw     slicing-by-8 tables, any CPU;
 *   plc_crc32_clmul  PCLMULQDQ folding of 64-byte blocks through SIMDe
 *                    (Gopal et al., "Fast CRC Computation for Generic
 *                    Polynomials Using PCLMULQDQ"), tables for the rest.
 * The tables are built by plc_crc32c_tables_init() with the CRC-32C ones.
 */
#ifndef PLC_SIMD_CRC32_H
#define PLC_SIMD_CRC32_H

#include <stddef.h>
#include <stdint.h>

#define PLC_CRC32_POLY 0xEDB88320u

extern uint32_t plc_crc32_slice[8][256];

uint32_t plc_crc32_sw(uint32_t crc, const void *data, size_t len);
/* The raw register over n bytes (no inversion), for the folding path's tail. */
uint32_t plc_crc32_sw_raw(uint32_t reg, const unsigned char *p, size_t n);

#if defined(PLC_HAVE_CLMUL)
uint32_t plc_crc32_clmul(uint32_t crc, const void *data, size_t len);
#endif

#endif
