/*
 * md5_pad.h -- what the multi-buffer MD5 kernels (md5x8_avx2.c,
 * md5x32_avx512.c) share: a key padded into its slot (RFC 1321 3.1-3.2)
 * and the byte-shift masks of a key's last row. Needs AVX2 (both kernels'
 * files are compiled with it or more).
 */
#ifndef PLC_SIMD_MD5_PAD_H
#define PLC_SIMD_MD5_PAD_H

#include <immintrin.h>
#include <string.h>

#include "md5x8.h"

#define PLC_MD5_SLOT (64u * PLC_MD5X8_MAX_BLOCKS)

/* Bytes [0, n) of s to d, n <= PLC_MD5X8_MAX_LEN, with overlapping
 * fixed-size moves inside both buffers (no call for short keys). */
static inline void plc_md5_copy_key(unsigned char *d, const unsigned char *s, size_t n)
{
    if (n >= 32) {
        size_t i = 0;
        for (; i + 32 <= n; i += 32)
            _mm256_storeu_si256((__m256i *)(void *)(d + i),
                                _mm256_loadu_si256((const __m256i *)(const void *)(s + i)));
        if (i < n)
            _mm256_storeu_si256((__m256i *)(void *)(d + n - 32),
                                _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 32)));
    } else if (n >= 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
        _mm_storeu_si128((__m128i *)(void *)d, a);
        _mm_storeu_si128((__m128i *)(void *)(d + n - 16), b);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    }
}

static inline void plc_md5_zero_block(unsigned char *p)
{
    _mm256_storeu_si256((__m256i *)(void *)p, _mm256_setzero_si256());
    _mm256_storeu_si256((__m256i *)(void *)(p + 32), _mm256_setzero_si256());
}

/* Pad key into slot p (RFC 1321 3.1-3.2); returns its number of blocks. */
static inline uint32_t plc_md5_pad_key(unsigned char *p, const unsigned char *key, size_t len)
{
    uint32_t nb = (uint32_t)((len + 8) / 64 + 1);
    for (uint32_t b = (uint32_t)(len / 64); b < nb; b++)
        plc_md5_zero_block(p + 64u * b);
    if (len)
        plc_md5_copy_key(p, key, len);
    p[len] = 0x80;
    uint64_t bits = (uint64_t)len * 8u; /* little-endian, as MD5 wants */
    memcpy(p + 64u * nb - 8u, &bits, 8);
    return nb;
}

/* A pshufb mask moving bytes s..15 of a row down to 0..15-s, zeros above:
 * bytes s..s+15 of this table. */
static const unsigned char plc_md5_shift_down[32] = {0,    1,    2,    3,    4,    5,    6,    7,
                                             8,    9,    10,   11,   12,   13,   14,   15,
                                             0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                             0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};

/* Row g (bytes 16g..16g+15 of the padded message) of every lane, as a
 * kernel reads it:
 *   PLC_MD5_ROW_LOAD    bytes [off, off + 16) of each lane's source;
 *   PLC_MD5_ROW_PARTIAL the same bytes shuffled by `mask` (16 pshufb bytes:
 *                       the key's last bytes moved into place), or-ed with
 *                       `cst` (the 0x80 and the length);
 *   PLC_MD5_ROW_CONST   `cst`, the same in every lane (past the key). */
enum { PLC_MD5_ROW_LOAD, PLC_MD5_ROW_PARTIAL, PLC_MD5_ROW_CONST };
typedef struct plc_md5_row {
    int kind;
    size_t off;
    const unsigned char *mask;
    _Alignas(16) unsigned char cst[16];
} plc_md5_row;

/* Plans of the 4 * nb rows of keys that all have length len (16 <= len):
 * rows read straight from the keys, no copy. */
static inline void plc_md5_plan_uniform(size_t len, uint32_t nb, plc_md5_row *plan)
{
    for (uint32_t g = 0; g < 4u * nb; g++) {
        size_t lo = 16u * (size_t)g;
        plc_md5_row *p = &plan[g];
        memset(p->cst, 0, sizeof p->cst);
        if (len >= lo && len < lo + 16)
            p->cst[len - lo] = 0x80;
        if (g == 4u * nb - 1u) {
            uint64_t bits = (uint64_t)len * 8u;
            memcpy(p->cst + 8, &bits, 8);
        }
        p->mask = NULL;
        if (lo + 16 <= len) {
            p->kind = PLC_MD5_ROW_LOAD;
            p->off = lo;
        } else if (lo < len) {
            /* The key's last 16 bytes, moved down so byte lo lands at 0. */
            p->kind = PLC_MD5_ROW_PARTIAL;
            p->off = len - 16;
            p->mask = plc_md5_shift_down + (lo + 16 - len);
        } else {
            p->kind = PLC_MD5_ROW_CONST;
            p->off = 0;
        }
    }
}

/* Plans of rows read from padded slots (keys of mixed lengths). */
static inline void plc_md5_plan_slots(uint32_t nb, plc_md5_row *plan)
{
    for (uint32_t g = 0; g < 4u * nb; g++) {
        plan[g].kind = PLC_MD5_ROW_LOAD;
        plan[g].off = 16u * (size_t)g;
        plan[g].mask = NULL;
        memset(plan[g].cst, 0, sizeof plan[g].cst);
    }
}

/* Sources, block counts and row plans of `lanes` lanes for keys[0..n)
 * (n <= lanes, every lens[i] <= PLC_MD5X8_MAX_LEN); returns the most
 * blocks of any lane. Keys of one length (16 or more) are read in place
 * (lanes past n repeat key 0) with the same padding rows in every lane;
 * others are padded into slots (lanes * PLC_MD5_SLOT bytes; lanes past n
 * hash the empty message), and the blocks a lane does not use, still read
 * but dropped by the kernel's blend, get defined bytes. */
static inline uint32_t plc_md5_prepare(const void *const *keys, const size_t *lens, size_t n,
                                       size_t lanes, unsigned char *slots,
                                       const unsigned char **src, uint32_t *nb, plc_md5_row *plan)
{
    uint32_t most = 1;
    int uniform = n > 0 && lens[0] >= 16;
    for (size_t i = 1; i < n && uniform; i++)
        uniform = lens[i] == lens[0];
    if (uniform) {
        most = (uint32_t)((lens[0] + 8) / 64 + 1);
        for (size_t i = 0; i < lanes; i++) {
            src[i] = i < n ? keys[i] : keys[0];
            nb[i] = most;
        }
        plc_md5_plan_uniform(lens[0], most, plan);
        return most;
    }
    for (size_t i = 0; i < lanes; i++) {
        src[i] = slots + i * PLC_MD5_SLOT;
        nb[i] = plc_md5_pad_key(slots + i * PLC_MD5_SLOT, i < n ? keys[i] : NULL, i < n ? lens[i] : 0);
        most = nb[i] > most ? nb[i] : most;
    }
    for (size_t i = 0; i < lanes; i++)
        for (uint32_t b = nb[i]; b < most; b++)
            plc_md5_zero_block(slots + i * PLC_MD5_SLOT + 64u * b);
    plc_md5_plan_slots(most, plan);
    return most;
}

/* MD5's 64 steps (RFC 1321 3.4) as X-macros over STEP(f, a, b, c, d, word,
 * constant, rotation), in two parts: the first digest word (a's sum, all
 * that libmemcached's and twemproxy's key hash keep) is final after step
 * 60; the last three only feed b, c and d, needed when another block
 * follows. */
#define PLC_MD5_STEPS_0_60(STEP) \
    STEP(FF, a, b, c, d, 0, 0xd76aa478, 7); \
    STEP(FF, d, a, b, c, 1, 0xe8c7b756, 12); \
    STEP(FF, c, d, a, b, 2, 0x242070db, 17); \
    STEP(FF, b, c, d, a, 3, 0xc1bdceee, 22); \
    STEP(FF, a, b, c, d, 4, 0xf57c0faf, 7); \
    STEP(FF, d, a, b, c, 5, 0x4787c62a, 12); \
    STEP(FF, c, d, a, b, 6, 0xa8304613, 17); \
    STEP(FF, b, c, d, a, 7, 0xfd469501, 22); \
    STEP(FF, a, b, c, d, 8, 0x698098d8, 7); \
    STEP(FF, d, a, b, c, 9, 0x8b44f7af, 12); \
    STEP(FF, c, d, a, b, 10, 0xffff5bb1, 17); \
    STEP(FF, b, c, d, a, 11, 0x895cd7be, 22); \
    STEP(FF, a, b, c, d, 12, 0x6b901122, 7); \
    STEP(FF, d, a, b, c, 13, 0xfd987193, 12); \
    STEP(FF, c, d, a, b, 14, 0xa679438e, 17); \
    STEP(FF, b, c, d, a, 15, 0x49b40821, 22); \
    STEP(GG, a, b, c, d, 1, 0xf61e2562, 5); \
    STEP(GG, d, a, b, c, 6, 0xc040b340, 9); \
    STEP(GG, c, d, a, b, 11, 0x265e5a51, 14); \
    STEP(GG, b, c, d, a, 0, 0xe9b6c7aa, 20); \
    STEP(GG, a, b, c, d, 5, 0xd62f105d, 5); \
    STEP(GG, d, a, b, c, 10, 0x02441453, 9); \
    STEP(GG, c, d, a, b, 15, 0xd8a1e681, 14); \
    STEP(GG, b, c, d, a, 4, 0xe7d3fbc8, 20); \
    STEP(GG, a, b, c, d, 9, 0x21e1cde6, 5); \
    STEP(GG, d, a, b, c, 14, 0xc33707d6, 9); \
    STEP(GG, c, d, a, b, 3, 0xf4d50d87, 14); \
    STEP(GG, b, c, d, a, 8, 0x455a14ed, 20); \
    STEP(GG, a, b, c, d, 13, 0xa9e3e905, 5); \
    STEP(GG, d, a, b, c, 2, 0xfcefa3f8, 9); \
    STEP(GG, c, d, a, b, 7, 0x676f02d9, 14); \
    STEP(GG, b, c, d, a, 12, 0x8d2a4c8a, 20); \
    STEP(HH, a, b, c, d, 5, 0xfffa3942, 4); \
    STEP(HH, d, a, b, c, 8, 0x8771f681, 11); \
    STEP(HH, c, d, a, b, 11, 0x6d9d6122, 16); \
    STEP(HH, b, c, d, a, 14, 0xfde5380c, 23); \
    STEP(HH, a, b, c, d, 1, 0xa4beea44, 4); \
    STEP(HH, d, a, b, c, 4, 0x4bdecfa9, 11); \
    STEP(HH, c, d, a, b, 7, 0xf6bb4b60, 16); \
    STEP(HH, b, c, d, a, 10, 0xbebfbc70, 23); \
    STEP(HH, a, b, c, d, 13, 0x289b7ec6, 4); \
    STEP(HH, d, a, b, c, 0, 0xeaa127fa, 11); \
    STEP(HH, c, d, a, b, 3, 0xd4ef3085, 16); \
    STEP(HH, b, c, d, a, 6, 0x04881d05, 23); \
    STEP(HH, a, b, c, d, 9, 0xd9d4d039, 4); \
    STEP(HH, d, a, b, c, 12, 0xe6db99e5, 11); \
    STEP(HH, c, d, a, b, 15, 0x1fa27cf8, 16); \
    STEP(HH, b, c, d, a, 2, 0xc4ac5665, 23); \
    STEP(II, a, b, c, d, 0, 0xf4292244, 6); \
    STEP(II, d, a, b, c, 7, 0x432aff97, 10); \
    STEP(II, c, d, a, b, 14, 0xab9423a7, 15); \
    STEP(II, b, c, d, a, 5, 0xfc93a039, 21); \
    STEP(II, a, b, c, d, 12, 0x655b59c3, 6); \
    STEP(II, d, a, b, c, 3, 0x8f0ccc92, 10); \
    STEP(II, c, d, a, b, 10, 0xffeff47d, 15); \
    STEP(II, b, c, d, a, 1, 0x85845dd1, 21); \
    STEP(II, a, b, c, d, 8, 0x6fa87e4f, 6); \
    STEP(II, d, a, b, c, 15, 0xfe2ce6e0, 10); \
    STEP(II, c, d, a, b, 6, 0xa3014314, 15); \
    STEP(II, b, c, d, a, 13, 0x4e0811a1, 21); \
    STEP(II, a, b, c, d, 4, 0xf7537e82, 6);

#define PLC_MD5_STEPS_61_63(STEP) \
    STEP(II, d, a, b, c, 11, 0xbd3af235, 10); \
    STEP(II, c, d, a, b, 2, 0x2ad7d2bb, 15); \
    STEP(II, b, c, d, a, 9, 0xeb86d391, 21);

#endif
