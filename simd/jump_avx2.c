/*
 * jump_avx2.c -- jump hash over a batch of keys with AVX2 (-mavx2): eight
 * keys in two vectors of four 64-bit lanes, stepped together until every
 * lane's loop has ended; a lane that ended keeps its answer (its mask is
 * cleared and stays clear). The LCG step is a 64-bit multiply by a
 * constant from three 32-bit ones; key >> 33 (31 bits) becomes a double
 * exactly by the 2^52 trick; the division and the multiply are the
 * paper's IEEE operations, and b + 1 is carried in doubles as in
 * jump_body.h, so every lane's answer is plc_jump_hash's bit for bit.
 * The remainder (fewer than eight keys) takes the scalar loop.
 */
#include <immintrin.h>

#include "jump.h"
#include "jump_body.h"

static inline __m256i mul_lcg(__m256i a)
{
    const __m256i lo = _mm256_set1_epi64x((int64_t)(uint32_t)PLC_JUMP_LCG);
    const __m256i hi = _mm256_set1_epi64x((int64_t)(PLC_JUMP_LCG >> 32));
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), lo),
                                     _mm256_mul_epu32(a, hi));
    return _mm256_add_epi64(_mm256_mul_epu32(a, lo), _mm256_slli_epi64(cross, 32));
}

/* One step of four lanes: the LCG, then b1 = trunc(y) + 1 where y < n and
 * the lane is live; returns the lanes still live. */
static inline __m256d step(__m256i *key, __m256d *b1, __m256d live, __m256d n)
{
    const __m256d two52 = _mm256_set1_pd(4503599627370496.0), one = _mm256_set1_pd(1.0);
    *key = _mm256_add_epi64(mul_lcg(*key), _mm256_set1_epi64x(1));
    __m256i r = _mm256_or_si256(_mm256_srli_epi64(*key, 33), _mm256_castpd_si256(two52));
    __m256d r1 = _mm256_add_pd(_mm256_sub_pd(_mm256_castsi256_pd(r), two52), one);
    __m256d y = _mm256_mul_pd(*b1, _mm256_div_pd(_mm256_set1_pd(2147483648.0), r1));
    live = _mm256_and_pd(live, _mm256_cmp_pd(y, n, _CMP_LT_OQ));
    __m256d next = _mm256_add_pd(_mm256_round_pd(y, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), one);
    *b1 = _mm256_blendv_pd(*b1, next, live);
    return live;
}

void plc_jump_batch_avx2(const uint64_t *keys, size_t count, int32_t buckets, uint32_t *out)
{
    const __m256d n = _mm256_set1_pd((double)buckets), one = _mm256_set1_pd(1.0);
    const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i ka = _mm256_loadu_si256((const __m256i *)(const void *)(keys + i));
        __m256i kb = _mm256_loadu_si256((const __m256i *)(const void *)(keys + i + 4));
        __m256d ba = one, bb = one, la = all, lb = all;
        do {
            la = step(&ka, &ba, la, n);
            lb = step(&kb, &bb, lb, n);
        } while (!_mm256_testz_pd(_mm256_or_pd(la, lb), _mm256_or_pd(la, lb)));
        _mm_storeu_si128((__m128i *)(void *)(out + i), _mm256_cvttpd_epi32(_mm256_sub_pd(ba, one)));
        _mm_storeu_si128((__m128i *)(void *)(out + i + 4),
                         _mm256_cvttpd_epi32(_mm256_sub_pd(bb, one)));
    }
    for (; i < count; i++)
        out[i] = (uint32_t)plc_jump_dbl(keys[i], buckets);
}
