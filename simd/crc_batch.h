/*
 * crc_batch.h -- the CRCs of the programs' key hashes over a batch of
 * short keys by carry-less multiplication (PCLMULQDQ):
 *   IEEE CRC-32 (zlib's crc32(0, key, len): nginx, haproxy crc32,
 *     libmemcached/twemproxy crc32 and crc32a before their own cuts);
 *   CRC16-XMODEM (polynomial 0x1021, init 0: Redis Cluster's key slot).
 * A key of 16 to 31 bytes is one or two 128-bit blocks: folding it costs
 * a few multiplies, where a table walks byte by byte. The loop over keys
 * has no calls in it, so the multiplies of several keys overlap. Same bits
 * as the table forms (tests/test_compat_index.c: every length 0..300).
 */
#ifndef PLC_SIMD_CRC_BATCH_H
#define PLC_SIMD_CRC_BATCH_H

#include <stddef.h>
#include <stdint.h>

#define PLC_CRC16_CLMUL_MIN_LEN 16u
#define PLC_CRC_SKIPPED UINT32_MAX /* a key the CRC16 batch left to the caller */


#if defined(PLC_HAVE_CLMUL)
/* out[i] = crc32(0, keys[i], lens[i]) as zlib computes it (any length). */
void plc_crc32_batch_clmul(const void *const *keys, const size_t *lens, size_t n, uint32_t *out);

/* out[i] = CRC16-XMODEM of keys[i] (16 bits), or PLC_CRC_SKIPPED when the
 * key holds the byte `stop` (Redis: a '{' may start a hash tag, which the
 * caller cuts first; stop < 0: no such byte); every lens[i] must be at
 * least PLC_CRC16_CLMUL_MIN_LEN. */
void plc_crc16_xmodem_batch_clmul(const void *const *keys, const size_t *lens, size_t n, int stop,
                                  uint32_t *out);
#endif

#endif
