/*
 * md5x8.h -- MD5 of sixteen keys at once with AVX2, 32 with AVX-512: two
 * sets of eight (sixteen) messages, one per 32-bit lane, their rounds
 * interleaved (multi-buffer hashing). Each step of MD5 depends on the one before, so one set of eight
 * lanes leaves most of the vector units waiting on latency; two independent
 * sets fill them. Gives the first word of each digest, which is what
 * libmemcached's and twemproxy's md5 key hash keep.
 *
 * The kernel pads each key itself (0x80, zeros, the 64-bit bit length)
 * into a slot on its stack and reads the slots' message words with
 * shuffles (a transpose of 4x4 words per 128-bit half), not gathers. Keys
 * of different lengths share a call: lanes with fewer blocks keep their
 * state through a blend. Checked bit for bit against Nettle on every length
 * 0..300 by tests/test_compat_index.c.
 */
#ifndef PLC_SIMD_MD5X8_H
#define PLC_SIMD_MD5X8_H

#include <stddef.h>
#include <stdint.h>

#define PLC_MD5X8_MAX_BLOCKS 4u
/* The longest key the kernel takes: it and its 9 bytes of padding fit
 * PLC_MD5X8_MAX_BLOCKS blocks (longer keys go to Nettle). */
#define PLC_MD5X8_MAX_LEN (64u * PLC_MD5X8_MAX_BLOCKS - 9u)
#define PLC_MD5X16_LANES 16u

#define PLC_MD5X32_LANES 32u

#if defined(PLC_HAVE_AVX2)
/* out[i] = the first little-endian word of MD5(keys[i], lens[i]) for
 * i < n (n <= 16, every lens[i] <= PLC_MD5X8_MAX_LEN; keys[i] may be NULL
 * when lens[i] is 0). */
void plc_md5x16_avx2(const void *const *keys, const size_t *lens, size_t n, uint32_t *out);
#endif

#if defined(PLC_HAVE_AVX512)
/* The same for n <= 32 keys with AVX-512 (md5x32_avx512.c). */
void plc_md5x32_avx512(const void *const *keys, const size_t *lens, size_t n, uint32_t *out);
#endif

#endif
