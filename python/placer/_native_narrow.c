/*
 * _native_narrow.c -- U rows narrowed to bytes: the portable kernel and the
 * choice of kernel (_native_narrow.h).
 */
#include "_native_narrow.h"
#include "_native_narrow_body.h"

#include "placer.h"

static inline int narrow_row_sse2(const unsigned char *row, size_t ncp, unsigned char *out,
                                  size_t *kept)
{
    size_t j = 0;
    int ascii = 1;
#ifdef __SSE2__
    __m128i acc = _mm_setzero_si128();
    for (; j + 16 <= ncp; j += 16)
        *kept = kept_after(*kept, j, narrow16(row + 4 * j, out + j, &acc));
    ascii = ascii16(acc);
#endif
    return narrow_tail(row, j, ncp, out, kept) < 0x80 && ascii;
}

size_t narrow_rows_sse2(const unsigned char *rows, size_t n, size_t ncp, unsigned char *out,
                        size_t *used, const void **ptrs, size_t *lens)
{
    return narrow_rows_with(narrow_row_sse2, rows, n, ncp, out, used, ptrs, lens);
}

narrow_rows_fn narrow_rows_kernel(void)
{
#ifdef PLACER_NARROW_AVX2
    if (placer_cpu_features() & PLACER_CPU_AVX2)
        return narrow_rows_avx2;
#endif
    return narrow_rows_sse2;
}
