/*
 * crc_batch_clmul.c -- short-key CRCs by carry-less multiplication (see
 * crc_batch.h), after Gopal et al., "Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ" (Intel, 2009).
 *
 * IEEE CRC-32 is reflected: a 16-byte block loads as it is. The key's first
 * block is xored with the register, each further block folds the running
 * 128 bits forward by x^128 (K3, K4) and xors it in, and a tail of r < 16
 * bytes is the last 16 bytes of the key: the running value splits into the
 * r bytes that fold once more and the 16 - r that join the tail (byte
 * shuffles), then 128 -> 64 -> 32 bits and Barrett reduction, as in
 * crc32_clmul.c.
 *
 * CRC16-XMODEM is not reflected: each block is byte-reversed so that the
 * key's first byte is the highest coefficient. Leading zero bytes do not
 * change a CRC that starts at 0, so a length that is not a multiple of 16
 * starts with its first r bytes as a short block. Blocks fold by x^192 and
 * x^128 mod P (16-bit constants: products stay under 80 bits); the result
 * X times x^16 folds to under 80 bits with x^80 mod P, and the CRC is a
 * Barrett reduction of that: q = floor(v / x^16 * mu / x^64) with mu =
 * floor(x^80 / P), the remainder v + q * P. The constants are checked
 * against the polynomial by tests/test_compat_index.c through the results.
 */
#include <immintrin.h>
#include <wmmintrin.h>

#include "crc32.h"
#include "crc_batch.h"

#define CLMUL(a, b, imm) _mm_clmulepi64_si128((a), (b), (imm))

static inline __m128i load(const unsigned char *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* pshufb masks: bytes s..s+15 of shuffle_table move a row's bytes up or
 * down (0x80 writes a zero). */
static const unsigned char shuffle_table[48] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,   11,   12,   13,   14,   15,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};

/* Byte-reversal masks: bytes 16 - r .. 31 - r of this table reverse the
 * first r bytes of a row into its low bytes (r = 16: the whole row). */
static const unsigned char reverse_table[32] = {
    15,   14,   13,   12,   11,   10,   9,    8,    7,    6,    5,    4,    3,    2,    1,    0,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};

/* IEEE CRC-32 (reflected 0xEDB88320): the constants of crc32_clmul.c. */
#define K3 UINT64_C(0x01751997d0)
#define K4 UINT64_C(0x00ccaa009e)
#define K5 UINT64_C(0x0163cd6124)
#define POLY32 UINT64_C(0x01db710641)
#define MU32 UINT64_C(0x01f7011641)

static inline __m128i fold32(__m128i x, __m128i k)
{
    return _mm_xor_si128(CLMUL(x, k, 0x00), CLMUL(x, k, 0x11));
}

/* zlib's crc32(0, p, len) for len >= 16. */
static inline uint32_t crc32_long(const unsigned char *p, size_t len)
{
    const __m128i k = _mm_set_epi64x((int64_t)K4, (int64_t)K3);
    __m128i x = _mm_xor_si128(load(p), _mm_cvtsi32_si128(-1));
    size_t i = 16;
    for (; i + 16 <= len; i += 16)
        x = _mm_xor_si128(fold32(x, k), load(p + i));
    size_t r = len - i;
    if (r) {
        /* x then r tail bytes: x's first r bytes fold, its other 16 - r
         * bytes and the tail form the last block. */
        __m128i a = _mm_shuffle_epi8(x, load(shuffle_table + r));
        __m128i sel = load(shuffle_table + 16 + r); /* 0x80 where the tail goes */
        __m128i b = _mm_blendv_epi8(_mm_shuffle_epi8(x, sel), load(p + len - 16), sel);
        x = _mm_xor_si128(fold32(a, k), b);
    }
    const __m128i mask32 = _mm_setr_epi32(-1, 0, -1, 0);
    x = _mm_xor_si128(_mm_srli_si128(x, 8), CLMUL(x, k, 0x10));
    __m128i hi = _mm_srli_si128(x, 4);
    x = _mm_xor_si128(CLMUL(_mm_and_si128(x, mask32), _mm_set_epi64x(0, (int64_t)K5), 0x00), hi);
    const __m128i pm = _mm_set_epi64x((int64_t)MU32, (int64_t)POLY32);
    __m128i t = CLMUL(_mm_and_si128(x, mask32), pm, 0x10);
    t = CLMUL(_mm_and_si128(t, mask32), pm, 0x00);
    return ~(uint32_t)_mm_extract_epi32(_mm_xor_si128(x, t), 1);
}

void plc_crc32_batch_clmul(const void *const *keys, const size_t *lens, size_t n, uint32_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = lens[i] >= 16 ? crc32_long(keys[i], lens[i]) : plc_crc32_sw(0, keys[i], lens[i]);
}

/* CRC16-XMODEM (0x1021, not reflected): x^e mod P and floor(x^80 / P). */
#define X80 UINT64_C(0xeb23)
#define X128 UINT64_C(0xaefc)
#define X192 UINT64_C(0x650b)
#define MU16 UINT64_C(0x11303471a041b343) /* without its x^64 term */
#define POLY16 UINT64_C(0x1021)           /* without its x^16 term */

/* CRC16-XMODEM of len >= 16 bytes, or PLC_CRC_SKIPPED when scan is set and
 * one of them is `stop`: the scan is two compares a block, beside the
 * multiplies. */
static inline uint32_t crc16_long(const unsigned char *p, size_t len, __m128i stop, int scan)
{
    const __m128i rev = load(reverse_table);
    const __m128i kf = _mm_set_epi64x((int64_t)X192, (int64_t)X128);
    /* The first r bytes (a whole block when len is a multiple of 16). */
    size_t r = len % 16 ? len % 16 : 16, i = r;
    __m128i b0 = load(p);
    __m128i x = _mm_shuffle_epi8(b0, load(reverse_table + 16 - r));
    __m128i seen = _mm_cmpeq_epi8(b0, stop); /* bytes past r are read again below */
    for (; i < len; i += 16) {
        /* x * x^128 = hi * x^192 + lo * x^128 (mod P), then the block. */
        __m128i b = load(p + i);
        seen = _mm_or_si128(seen, _mm_cmpeq_epi8(b, stop));
        __m128i f = _mm_xor_si128(CLMUL(x, kf, 0x11), CLMUL(x, kf, 0x00));
        x = _mm_xor_si128(f, _mm_shuffle_epi8(b, rev));
    }
    if (scan && !_mm_testz_si128(seen, seen))
        return PLC_CRC_SKIPPED;
    /* The CRC is x * x^16 mod P: v = hi * (x^80 mod P) + lo * x^16, under
     * 80 bits, congruent to it. */
    __m128i v = _mm_xor_si128(CLMUL(x, _mm_set_epi64x(0, (int64_t)X80), 0x01),
                              _mm_slli_si128(_mm_move_epi64(x), 2));
    /* Barrett: q = floor(v / P) = t + floor(t * mu' / x^64) with t = v / x^16;
     * the CRC is the low 16 bits of v + q * P, and q * x^16 adds none. */
    const __m128i mp = _mm_set_epi64x((int64_t)POLY16, (int64_t)MU16);
    __m128i t = _mm_srli_si128(v, 2);
    __m128i q = _mm_xor_si128(t, _mm_srli_si128(CLMUL(t, mp, 0x00), 8));
    return ((uint32_t)_mm_cvtsi128_si32(_mm_xor_si128(v, CLMUL(q, mp, 0x10)))) & 0xffffu;
}

void plc_crc16_xmodem_batch_clmul(const void *const *keys, const size_t *lens, size_t n, int stop,
                                  uint32_t *out)
{
    /* No stop byte: the compares still run (the compiler may drop them),
     * their answer is not read. */
    if (stop < 0) {
        const __m128i none = _mm_setzero_si128();
        for (size_t i = 0; i < n; i++)
            out[i] = crc16_long(keys[i], lens[i], none, 0);
        return;
    }
    const __m128i s = _mm_set1_epi8((char)stop);
    for (size_t i = 0; i < n; i++)
        out[i] = crc16_long(keys[i], lens[i], s, 1);
}
