/*
 * _native_narrow_avx2.c -- U rows narrowed to bytes with AVX2, 32 code
 * points (128 bytes) a step (_native_narrow.h). Built with -mavx2 and
 * called only when placer_cpu_features() has AVX2.
 */
#include "_native_narrow.h"
#include "_native_narrow_body.h"

#include <immintrin.h>

/* 32 code points (128 bytes at cp) narrowed to 32 bytes at out, their OR
 * into *acc; bit i set when byte i is not 0. Exact for code points under
 * 0x80; the others show in *acc and the row is encoded instead. */
static inline uint32_t narrow32(const unsigned char *cp, unsigned char *out, __m256i *acc)
{
    const __m256i *p = (const __m256i *)(const void *)cp;
    __m256i a = _mm256_loadu_si256(p), b = _mm256_loadu_si256(p + 1);
    __m256i c = _mm256_loadu_si256(p + 2), d = _mm256_loadu_si256(p + 3);
    *acc = _mm256_or_si256(*acc, _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d)));
    /* per 128-bit lane: a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7 (4 bytes each) */
    __m256i v = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
    v = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256((__m256i *)(void *)out, v);
    return ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256()));
}

static inline int narrow_row_avx2(const unsigned char *row, size_t ncp, unsigned char *out,
                                  size_t *kept)
{
    size_t j = 0;
    __m256i acc = _mm256_setzero_si256();
    for (; j + 32 <= ncp; j += 32)
        *kept = kept_after(*kept, j, narrow32(row + 4 * j, out + j, &acc));
    __m128i acc16 = _mm_setzero_si128();
    if (j + 16 <= ncp) {
        *kept = kept_after(*kept, j, narrow16(row + 4 * j, out + j, &acc16));
        j += 16;
    }
    acc = _mm256_or_si256(acc, _mm256_set_m128i(_mm_setzero_si128(), acc16));
    const __m256i high = _mm256_set1_epi32((int)0xFFFFFF80u);
    return narrow_tail(row, j, ncp, out, kept) < 0x80 && _mm256_testz_si256(acc, high);
}

size_t narrow_rows_avx2(const unsigned char *rows, size_t n, size_t ncp, unsigned char *out,
                        size_t *used, const void **ptrs, size_t *lens)
{
    return narrow_rows_with(narrow_row_avx2, rows, n, ncp, out, used, ptrs, lens);
}
