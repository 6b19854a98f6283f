/*
 * rendezvous_avx512.c -- HRW keys of 8 candidates per step (AVX-512 F+DQ:
 * 64-bit multiplies and exact u64 -> double conversion), the same
 * operations as rendezvous_scalar.c lane by lane, so the same bits. The
 * tail is a masked load; masked-off lanes never win.
 *
 * Native intrinsics, not SIMDe: Debian's SIMDe 0.7.4 lacks the AVX-512 DQ
 * conversions, masked loads and reductions used here, and this file is
 * only ever compiled for x86-64 with the AVX-512 flags (simd/meson.build).
 */
#include <immintrin.h>

#include "rendezvous.h"

static inline __m512d keys8(__m512i hv, __m512i seed, __m512d inv_w)
{
    __m512i x = _mm512_xor_si512(hv, seed);
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
    x = _mm512_mullo_epi64(x, _mm512_set1_epi64((int64_t)PLC_HRW_C1));
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
    x = _mm512_mullo_epi64(x, _mm512_set1_epi64((int64_t)PLC_HRW_C2));
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
    __m512i odd = _mm512_or_si512(_mm512_srli_epi64(x, 11), _mm512_set1_epi64(1));
    __m512d v = _mm512_cvtepu64_pd(odd);
    __m512i bits = _mm512_castpd_si512(v);
    __m512i e = _mm512_sub_epi64(_mm512_srli_epi64(bits, 52), _mm512_set1_epi64(1023));
    __m512i mbits = _mm512_or_si512(
        _mm512_and_si512(bits, _mm512_set1_epi64((int64_t)PLC_HRW_MANT)),
        _mm512_set1_epi64((int64_t)PLC_HRW_ONE));
    /* mbits are positive as int64, so a signed compare orders them. */
    __mmask8 fold = _mm512_cmpgt_epi64_mask(mbits, _mm512_set1_epi64((int64_t)PLC_HRW_SQRT2));
    __m512d m = _mm512_castsi512_pd(mbits);
    m = _mm512_mask_mul_pd(m, fold, m, _mm512_set1_pd(0.5));
    e = _mm512_mask_add_epi64(e, fold, e, _mm512_set1_epi64(1));
    __m512d one = _mm512_set1_pd(1.0);
    __m512d t = _mm512_div_pd(_mm512_sub_pd(m, one), _mm512_add_pd(m, one));
    __m512d t2 = _mm512_mul_pd(t, t);
    __m512d p = _mm512_set1_pd(1.0 / 11.0);
    p = _mm512_add_pd(_mm512_mul_pd(p, t2), _mm512_set1_pd(1.0 / 9.0));
    p = _mm512_add_pd(_mm512_mul_pd(p, t2), _mm512_set1_pd(1.0 / 7.0));
    p = _mm512_add_pd(_mm512_mul_pd(p, t2), _mm512_set1_pd(1.0 / 5.0));
    p = _mm512_add_pd(_mm512_mul_pd(p, t2), _mm512_set1_pd(1.0 / 3.0));
    p = _mm512_add_pd(_mm512_mul_pd(p, t2), one);
    __m512d r = _mm512_mul_pd(t, p);
    __m512d ln_m = _mm512_add_pd(r, r);
    __m512d fe = _mm512_cvtepi64_pd(_mm512_sub_epi64(e, _mm512_set1_epi64(53)));
    __m512d ln_u = _mm512_add_pd(_mm512_mul_pd(fe, _mm512_set1_pd(PLC_HRW_LN2)), ln_m);
    return _mm512_mul_pd(ln_u, inv_w);
}

uint32_t plc_hrw_best_avx512(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h)
{
    __m512i hv = _mm512_set1_epi64((int64_t)h);
    __m512d best = _mm512_set1_pd(-__builtin_inf());
    __m512i best_i = _mm512_set1_epi64(-1);
    __m512i idx = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    __m512i step = _mm512_set1_epi64(8);
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512d k = keys8(hv, _mm512_loadu_si512(seed + i), _mm512_loadu_pd(inv_w + i));
        __mmask8 gt = _mm512_cmp_pd_mask(k, best, _CMP_GT_OQ);
        best = _mm512_mask_mov_pd(best, gt, k);
        best_i = _mm512_mask_mov_epi64(best_i, gt, idx);
        idx = _mm512_add_epi64(idx, step);
    }
    if (i < n) {
        __mmask8 live = (__mmask8)((1u << (n - i)) - 1);
        __m512d k = keys8(hv, _mm512_maskz_loadu_epi64(live, seed + i),
                               _mm512_maskz_loadu_pd(live, inv_w + i));
        __mmask8 gt = _mm512_mask_cmp_pd_mask(live, k, best, _CMP_GT_OQ);
        best = _mm512_mask_mov_pd(best, gt, k);
        best_i = _mm512_mask_mov_epi64(best_i, gt, idx);
    }
    /* Across lanes: the largest key, and among equal keys the lowest index
     * (each lane already holds its own earliest maximum). */
    double top = _mm512_reduce_max_pd(best);
    __mmask8 at_top = _mm512_cmp_pd_mask(best, _mm512_set1_pd(top), _CMP_EQ_OQ);
    __m512i cand = _mm512_mask_blend_epi64(at_top, _mm512_set1_epi64(INT64_MAX), best_i);
    return (uint32_t)_mm512_reduce_min_epi64(cand);
}

void plc_hrw_scores_avx512(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h,
                           double *out)
{
    __m512i hv = _mm512_set1_epi64((int64_t)h);
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm512_storeu_pd(out + i, keys8(hv, _mm512_loadu_si512(seed + i),
                                             _mm512_loadu_pd(inv_w + i)));
    if (i < n) {
        __mmask8 live = (__mmask8)((1u << (n - i)) - 1);
        __m512d k = keys8(hv, _mm512_maskz_loadu_epi64(live, seed + i),
                               _mm512_maskz_loadu_pd(live, inv_w + i));
        _mm512_mask_storeu_pd(out + i, live, k);
    }
}
