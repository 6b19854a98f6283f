/*
 * md5x8.h -- MD5 of eight messages at once, one per 32-bit lane of an AVX2
 * register (multi-buffer hashing): the first word of each digest, which is
 * what libmemcached's and twemproxy's md5 key hash keep.
 *
 * The caller pads each message (0x80, zeros, the 64-bit bit length) into
 * its own PLC_MD5X8_STRIDE-byte slot of `padded`; lane i hashes blocks[i]
 * 64-byte blocks (1..PLC_MD5X8_MAX_BLOCKS). Checked bit for bit against
 * Nettle on every length by tests/test_compat_md5.c.
 */
#ifndef PLC_SIMD_MD5X8_H
#define PLC_SIMD_MD5X8_H

#include <stdint.h>

#define PLC_MD5X8_MAX_BLOCKS 4u
#define PLC_MD5X8_STRIDE (64u * PLC_MD5X8_MAX_BLOCKS)

#if defined(PLC_HAVE_AVX2)
void plc_md5x8_avx2(const unsigned char *padded, const uint32_t blocks[8], uint32_t out[8]);
#endif

#endif
