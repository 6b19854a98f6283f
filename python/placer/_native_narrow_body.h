/*
 * _native_narrow_body.h -- the parts of a row's narrowing that every kernel
 * shares (_native_narrow.c, _native_narrow_avx2.c): the last code points
 * one at a time, and on x86-64 a block of 16 with SSE2.
 */
#ifndef PLACER_NATIVE_NARROW_BODY_H
#define PLACER_NATIVE_NARROW_BODY_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Code points j .. ncp - 1 of row, one at a time, into out; *kept moved
 * past the last one that is not 0. Their OR (0x80 or more: not ASCII). */
static inline uint32_t narrow_tail(const unsigned char *row, size_t j, size_t ncp,
                                   unsigned char *out, size_t *kept)
{
    uint32_t any = 0;
    for (; j < ncp; j++) {
        uint32_t c;
        memcpy(&c, row + 4 * j, 4);
        any |= c;
        out[j] = (unsigned char)c;
        *kept = c ? j + 1 : *kept;
    }
    return any;
}

/* The length up to and including the last byte that is not 0 of a block
 * at `at` whose bit i of nonzero says byte i is not 0 (up to 32 bytes);
 * kept when the block is all 0. */
static inline size_t kept_after(size_t kept, size_t at, uint32_t nonzero)
{
    return nonzero ? at + 32 - (size_t)__builtin_clz(nonzero) : kept;
}

#ifdef __SSE2__
/* 16 code points (64 bytes at cp) narrowed to 16 bytes at out, their OR
 * into *acc. Exact for code points under 0x8000; the others show in *acc
 * and the row is encoded instead. Bit i set when byte i is not 0. */
static inline uint32_t narrow16(const unsigned char *cp, unsigned char *out, __m128i *acc)
{
    const __m128i *p = (const __m128i *)(const void *)cp;
    __m128i a = _mm_loadu_si128(p), b = _mm_loadu_si128(p + 1);
    __m128i c = _mm_loadu_si128(p + 2), d = _mm_loadu_si128(p + 3);
    *acc = _mm_or_si128(*acc, _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)));
    __m128i v = _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
    _mm_storeu_si128((__m128i *)(void *)out, v);
    return ~(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) & 0xFFFFu;
}

/* Whether every code point ORed into acc is under 0x80. */
static inline int ascii16(__m128i acc)
{
    __m128i high = _mm_and_si128(acc, _mm_set1_epi32((int)0xFFFFFF80u));
    return _mm_movemask_epi8(_mm_cmpeq_epi32(high, _mm_setzero_si128())) == 0xFFFF;
}
#endif

/* One row's narrowing (a kernel's): ncp code points at row into out, *kept
 * the length without trailing NULs; 0 when some code point is 0x80 or
 * more. */
typedef int (*narrow_row_fn)(const unsigned char *row, size_t ncp, unsigned char *out,
                             size_t *kept);

/* The rows loop of narrow_rows_fn (_native_narrow.h) around a kernel's
 * narrow_row, inlined into each kernel. */
static inline __attribute__((always_inline)) size_t
narrow_rows_with(narrow_row_fn narrow_row, const unsigned char *rows, size_t n, size_t ncp,
                 unsigned char *out, size_t *used, const void **ptrs, size_t *lens)
{
    size_t at = *used, i = 0, width = 4 * ncp;
    for (; i < n; i++) {
        size_t kept = 0;
        if (!narrow_row(rows + i * width, ncp, out + at, &kept))
            break;
        ptrs[i] = out + at;
        lens[i] = kept;
        at += kept;
    }
    *used = at;
    return i;
}

#endif
