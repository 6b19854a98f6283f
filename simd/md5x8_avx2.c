/*
 * md5x8_avx2.c -- MD5 of sixteen keys with AVX2 (see md5x8.h): two sets of
 * eight lanes whose steps alternate in the code, so the out-of-order core
 * always has an independent step to issue while the other waits on its
 * add-rotate-add chain.
 *
 * Each key is padded into its own slot of PLC_MD5X8_MAX_BLOCKS blocks on
 * the stack (only the blocks the key uses are written). The 16 message
 * words of block k for eight lanes come from 16-byte rows: rows of lanes i
 * and i + 4 share a register, and a 4x4 word transpose in each 128-bit half
 * turns them into one register per word (16 loads, 16 inserts and 32
 * unpacks per set and block, against 16 gathers of eight loads each).
 */
#include <immintrin.h>
#include <string.h>

#include "md5x8.h"

#define SLOT (64u * PLC_MD5X8_MAX_BLOCKS)

/* Bytes [0, n) of s to d, n <= PLC_MD5X8_MAX_LEN, with overlapping
 * fixed-size moves inside both buffers (no call for short keys). */
static inline void copy_key(unsigned char *d, const unsigned char *s, size_t n)
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

static inline void zero_block(unsigned char *p)
{
    _mm256_storeu_si256((__m256i *)(void *)p, _mm256_setzero_si256());
    _mm256_storeu_si256((__m256i *)(void *)(p + 32), _mm256_setzero_si256());
}

/* Pad key into slot p (RFC 1321 3.1-3.2); returns its number of blocks. */
static inline uint32_t pad_key(unsigned char *p, const unsigned char *key, size_t len)
{
    uint32_t nb = (uint32_t)((len + 8) / 64 + 1);
    for (uint32_t b = (uint32_t)(len / 64); b < nb; b++)
        zero_block(p + 64u * b);
    if (len)
        copy_key(p, key, len);
    p[len] = 0x80;
    uint64_t bits = (uint64_t)len * 8u; /* little-endian, as MD5 wants */
    memcpy(p + 64u * nb - 8u, &bits, 8);
    return nb;
}

/* 128-bit row g (bytes 16g..16g+15 of the padded message) of eight lanes,
 * two lanes a register (lanes i and i + 4), as the kernel reads it:
 *   ROW_LOAD    bytes [off, off + 16) of each lane's source, as they are;
 *   ROW_PARTIAL the same bytes shuffled by `mask` (the key's last bytes
 *               moved into place), or-ed with `cst` (the 0x80 and length);
 *   ROW_CONST   `cst`, the same in every lane (past the key). */
enum { ROW_LOAD, ROW_PARTIAL, ROW_CONST };
typedef struct row_plan {
    int kind;
    size_t off;
    __m256i mask, cst;
} row_plan;

/* Words 4q..4q+3 of eight lanes from their rows r[0..3] (a 4x4 word
 * transpose in each 128-bit half). */
static inline void transpose4(const __m256i r[4], __m256i *w)
{
    __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    w[0] = _mm256_unpacklo_epi64(t0, t2);
    w[1] = _mm256_unpackhi_epi64(t0, t2);
    w[2] = _mm256_unpacklo_epi64(t1, t3);
    w[3] = _mm256_unpackhi_epi64(t1, t3);
}

/* Message words 0..15 of one block for the eight lanes whose sources are
 * src[0..7], from the plans of its four rows. */
static inline void load_words(const unsigned char *const *src, const row_plan *plan, __m256i w[16])
{
    for (int q = 0; q < 4; q++) {
        const row_plan *p = &plan[q];
        if (p->kind == ROW_CONST) {
            for (int j = 0; j < 4; j++)
                w[4 * q + j] = _mm256_permutevar8x32_epi32(p->cst, _mm256_set1_epi32(j));
            continue;
        }
        __m256i r[4];
        for (int i = 0; i < 4; i++) {
            r[i] = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(src[i] + p->off))),
                _mm_loadu_si128((const __m128i *)(const void *)(src[i + 4] + p->off)), 1);
            if (p->kind == ROW_PARTIAL)
                r[i] = _mm256_or_si256(_mm256_shuffle_epi8(r[i], p->mask), p->cst);
        }
        transpose4(r, w + 4 * q);
    }
}

/* A pshufb mask moving bytes s..15 of a row down to 0..15-s, zeros above:
 * bytes s..s+15 of this table. */
static const unsigned char shift_down[32] = {0,    1,    2,    3,    4,    5,    6,    7,
                                             8,    9,    10,   11,   12,   13,   14,   15,
                                             0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                             0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};

static inline __m256i broadcast_row(const unsigned char *b)
{
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)b));
}

/* Plans of the 4 * nb rows of keys that all have length len (16 <= len):
 * rows read straight from the keys, no copy. */
static void plan_uniform(size_t len, uint32_t nb, row_plan *plan)
{
    for (uint32_t g = 0; g < 4u * nb; g++) {
        size_t lo = 16u * (size_t)g;
        unsigned char cst[16] = {0};
        if (len >= lo && len < lo + 16)
            cst[len - lo] = 0x80;
        if (g == 4u * nb - 1u) {
            uint64_t bits = (uint64_t)len * 8u;
            memcpy(cst + 8, &bits, 8);
        }
        row_plan *p = &plan[g];
        p->cst = broadcast_row(cst);
        if (lo + 16 <= len) {
            p->kind = ROW_LOAD;
            p->off = lo;
        } else if (lo < len) {
            /* The key's last 16 bytes, moved down so byte lo lands at 0. */
            p->kind = ROW_PARTIAL;
            p->off = len - 16;
            p->mask = broadcast_row(shift_down + (lo + 16 - len));
        } else {
            p->kind = ROW_CONST;
        }
    }
}

#define FF(x, y, z) _mm256_xor_si256((z), _mm256_and_si256((x), _mm256_xor_si256((y), (z))))
#define GG(x, y, z) _mm256_xor_si256((y), _mm256_and_si256((z), _mm256_xor_si256((x), (y))))
#define HH(x, y, z) _mm256_xor_si256(_mm256_xor_si256((x), (y)), (z))
#define II(x, y, z) _mm256_xor_si256((y), _mm256_or_si256((x), _mm256_xor_si256((z), ones)))
/* A rotation by 16 is one byte shuffle. */
#define ROTL(x, s)                                                                                \
    ((s) == 16 ? _mm256_shuffle_epi8((x), rot16)                                                  \
               : _mm256_or_si256(_mm256_slli_epi32((x), (s)), _mm256_srli_epi32((x), 32 - (s))))

/* a + x + t first: a and x are ready long before b, the step's chain is
 * f(b, c, d), one add, the rotation and the add of b. */
#define STEP1(f, a, b, c, d, x, t, s)                                                             \
    do {                                                                                          \
        (a) = _mm256_add_epi32((a), _mm256_add_epi32((x), _mm256_set1_epi32((int)(t))));          \
        (a) = _mm256_add_epi32((a), f((b), (c), (d)));                                            \
        (a) = _mm256_add_epi32(ROTL((a), (s)), (b));                                              \
    } while (0)
/* One step in both sets. */
#define STEP(f, a, b, c, d, i, t, s)                                                              \
    do {                                                                                          \
        STEP1(f, a##0, b##0, c##0, d##0, w0[i], t, s);                                            \
        STEP1(f, a##1, b##1, c##1, d##1, w1[i], t, s);                                            \
    } while (0)

void plc_md5x16_avx2(const void *const *keys, const size_t *lens, size_t n, uint32_t *out)
{
    _Alignas(64) unsigned char slots[PLC_MD5X16_LANES * SLOT];
    const unsigned char *src[PLC_MD5X16_LANES];
    uint32_t nb[PLC_MD5X16_LANES];
    row_plan plan[4 * PLC_MD5X8_MAX_BLOCKS];
    uint32_t most = 1;
    int uniform = n > 0 && lens[0] >= 16;
    for (size_t i = 1; i < n && uniform; i++)
        uniform = lens[i] == lens[0];
    if (uniform) {
        /* One length: the rows come straight from the keys (lanes past n
         * repeat key 0), and the padding is the same in every lane. */
        most = (uint32_t)((lens[0] + 8) / 64 + 1);
        for (size_t i = 0; i < PLC_MD5X16_LANES; i++) {
            src[i] = i < n ? keys[i] : keys[0];
            nb[i] = most;
        }
        plan_uniform(lens[0], most, plan);
    } else {
        for (size_t i = 0; i < PLC_MD5X16_LANES; i++) {
            /* Lanes past n hash the empty message (defined bytes, unused). */
            src[i] = slots + i * SLOT;
            nb[i] = pad_key(slots + i * SLOT, i < n ? keys[i] : NULL, i < n ? lens[i] : 0);
            most = nb[i] > most ? nb[i] : most;
        }
        /* Blocks a lane does not use are still read (and their sums
         * dropped by the blend): give them defined bytes. */
        for (size_t i = 0; i < PLC_MD5X16_LANES; i++)
            for (uint32_t b = nb[i]; b < most; b++)
                zero_block(slots + i * SLOT + 64u * b);
        for (uint32_t g = 0; g < 4u * most; g++)
            plan[g] = (row_plan){ROW_LOAD, 16u * (size_t)g, _mm256_setzero_si256(),
                                 _mm256_setzero_si256()};
    }

    const __m256i ones = _mm256_set1_epi32(-1);
    const __m256i rot16 = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3,
                                           0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
    const __m256i nb0 = _mm256_loadu_si256((const __m256i *)(const void *)nb);
    const __m256i nb1 = _mm256_loadu_si256((const __m256i *)(const void *)(nb + 8));
    __m256i a0 = _mm256_set1_epi32(0x67452301), b0 = _mm256_set1_epi32((int)0xefcdab89u);
    __m256i c0 = _mm256_set1_epi32((int)0x98badcfeu), d0 = _mm256_set1_epi32(0x10325476);
    __m256i a1 = a0, b1 = b0, c1 = c0, d1 = d0;
    for (uint32_t k = 0; k < most; k++) {
        __m256i w0[16], w1[16];
        load_words(src, plan + 4u * k, w0);
        load_words(src + 8, plan + 4u * k, w1);
        __m256i sa0 = a0, sb0 = b0, sc0 = c0, sd0 = d0;
        __m256i sa1 = a1, sb1 = b1, sc1 = c1, sd1 = d1;
        STEP(FF, a, b, c, d, 0, 0xd76aa478, 7);
        STEP(FF, d, a, b, c, 1, 0xe8c7b756, 12);
        STEP(FF, c, d, a, b, 2, 0x242070db, 17);
        STEP(FF, b, c, d, a, 3, 0xc1bdceee, 22);
        STEP(FF, a, b, c, d, 4, 0xf57c0faf, 7);
        STEP(FF, d, a, b, c, 5, 0x4787c62a, 12);
        STEP(FF, c, d, a, b, 6, 0xa8304613, 17);
        STEP(FF, b, c, d, a, 7, 0xfd469501, 22);
        STEP(FF, a, b, c, d, 8, 0x698098d8, 7);
        STEP(FF, d, a, b, c, 9, 0x8b44f7af, 12);
        STEP(FF, c, d, a, b, 10, 0xffff5bb1, 17);
        STEP(FF, b, c, d, a, 11, 0x895cd7be, 22);
        STEP(FF, a, b, c, d, 12, 0x6b901122, 7);
        STEP(FF, d, a, b, c, 13, 0xfd987193, 12);
        STEP(FF, c, d, a, b, 14, 0xa679438e, 17);
        STEP(FF, b, c, d, a, 15, 0x49b40821, 22);
        STEP(GG, a, b, c, d, 1, 0xf61e2562, 5);
        STEP(GG, d, a, b, c, 6, 0xc040b340, 9);
        STEP(GG, c, d, a, b, 11, 0x265e5a51, 14);
        STEP(GG, b, c, d, a, 0, 0xe9b6c7aa, 20);
        STEP(GG, a, b, c, d, 5, 0xd62f105d, 5);
        STEP(GG, d, a, b, c, 10, 0x02441453, 9);
        STEP(GG, c, d, a, b, 15, 0xd8a1e681, 14);
        STEP(GG, b, c, d, a, 4, 0xe7d3fbc8, 20);
        STEP(GG, a, b, c, d, 9, 0x21e1cde6, 5);
        STEP(GG, d, a, b, c, 14, 0xc33707d6, 9);
        STEP(GG, c, d, a, b, 3, 0xf4d50d87, 14);
        STEP(GG, b, c, d, a, 8, 0x455a14ed, 20);
        STEP(GG, a, b, c, d, 13, 0xa9e3e905, 5);
        STEP(GG, d, a, b, c, 2, 0xfcefa3f8, 9);
        STEP(GG, c, d, a, b, 7, 0x676f02d9, 14);
        STEP(GG, b, c, d, a, 12, 0x8d2a4c8a, 20);
        STEP(HH, a, b, c, d, 5, 0xfffa3942, 4);
        STEP(HH, d, a, b, c, 8, 0x8771f681, 11);
        STEP(HH, c, d, a, b, 11, 0x6d9d6122, 16);
        STEP(HH, b, c, d, a, 14, 0xfde5380c, 23);
        STEP(HH, a, b, c, d, 1, 0xa4beea44, 4);
        STEP(HH, d, a, b, c, 4, 0x4bdecfa9, 11);
        STEP(HH, c, d, a, b, 7, 0xf6bb4b60, 16);
        STEP(HH, b, c, d, a, 10, 0xbebfbc70, 23);
        STEP(HH, a, b, c, d, 13, 0x289b7ec6, 4);
        STEP(HH, d, a, b, c, 0, 0xeaa127fa, 11);
        STEP(HH, c, d, a, b, 3, 0xd4ef3085, 16);
        STEP(HH, b, c, d, a, 6, 0x04881d05, 23);
        STEP(HH, a, b, c, d, 9, 0xd9d4d039, 4);
        STEP(HH, d, a, b, c, 12, 0xe6db99e5, 11);
        STEP(HH, c, d, a, b, 15, 0x1fa27cf8, 16);
        STEP(HH, b, c, d, a, 2, 0xc4ac5665, 23);
        STEP(II, a, b, c, d, 0, 0xf4292244, 6);
        STEP(II, d, a, b, c, 7, 0x432aff97, 10);
        STEP(II, c, d, a, b, 14, 0xab9423a7, 15);
        STEP(II, b, c, d, a, 5, 0xfc93a039, 21);
        STEP(II, a, b, c, d, 12, 0x655b59c3, 6);
        STEP(II, d, a, b, c, 3, 0x8f0ccc92, 10);
        STEP(II, c, d, a, b, 10, 0xffeff47d, 15);
        STEP(II, b, c, d, a, 1, 0x85845dd1, 21);
        STEP(II, a, b, c, d, 8, 0x6fa87e4f, 6);
        STEP(II, d, a, b, c, 15, 0xfe2ce6e0, 10);
        STEP(II, c, d, a, b, 6, 0xa3014314, 15);
        STEP(II, b, c, d, a, 13, 0x4e0811a1, 21);
        STEP(II, a, b, c, d, 4, 0xf7537e82, 6);
        /* The last three steps only feed b, c and d: the first digest
         * word is a's sum, so they are left out. */
        /* Lanes with a block k keep the sum; the others their old state. */
        __m256i kk = _mm256_set1_epi32((int)k);
        __m256i live0 = _mm256_cmpgt_epi32(nb0, kk), live1 = _mm256_cmpgt_epi32(nb1, kk);
        if (k + 1 < most) {
            STEP(II, d, a, b, c, 11, 0xbd3af235, 10);
            STEP(II, c, d, a, b, 2, 0x2ad7d2bb, 15);
            STEP(II, b, c, d, a, 9, 0xeb86d391, 21);
            b0 = _mm256_blendv_epi8(sb0, _mm256_add_epi32(b0, sb0), live0);
            c0 = _mm256_blendv_epi8(sc0, _mm256_add_epi32(c0, sc0), live0);
            d0 = _mm256_blendv_epi8(sd0, _mm256_add_epi32(d0, sd0), live0);
            b1 = _mm256_blendv_epi8(sb1, _mm256_add_epi32(b1, sb1), live1);
            c1 = _mm256_blendv_epi8(sc1, _mm256_add_epi32(c1, sc1), live1);
            d1 = _mm256_blendv_epi8(sd1, _mm256_add_epi32(d1, sd1), live1);
        }
        a0 = _mm256_blendv_epi8(sa0, _mm256_add_epi32(a0, sa0), live0);
        a1 = _mm256_blendv_epi8(sa1, _mm256_add_epi32(a1, sa1), live1);
    }
    uint32_t all[PLC_MD5X16_LANES];
    _mm256_storeu_si256((__m256i *)(void *)all, a0);
    _mm256_storeu_si256((__m256i *)(void *)(all + 8), a1);
    memcpy(out, all, n * sizeof *out);
}
