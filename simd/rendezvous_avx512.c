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

/* Before the 53-bit cut: hv is plc_hrw_premix(h), seed premixed too. */
static inline __m512i mixed8(__m512i hv, __m512i seed)
{
    __m512i x = _mm512_xor_si512(hv, seed);
    x = _mm512_mullo_epi64(x, _mm512_set1_epi64((int64_t)PLC_HRW_C1));
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
    x = _mm512_mullo_epi64(x, _mm512_set1_epi64((int64_t)PLC_HRW_C2));
    return _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
}

static inline __m512i numerators8(__m512i hv, __m512i seed)
{
    return _mm512_or_si512(_mm512_srli_epi64(mixed8(hv, seed), 11), _mm512_set1_epi64(1));
}

static inline __m512d keys8(__m512i hv, __m512i seed, __m512d inv_w)
{
    __m512d v = _mm512_cvtepu64_pd(numerators8(hv, seed));
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

/*
 * The arg-max of both kinds runs two accumulators (16 candidates a turn):
 * each keeps its lanes' earliest maximum, so the compare -> select chain of
 * one does not wait for the other's; merging them and then the lanes keeps
 * "largest key, lowest index on ties". KEYS(at, mask) computes 8 keys; GT
 * and EQ compare them.
 */
#define ARGMAX_BODY(VEC, SETMIN, KEYS, GT, MASK_GT, EQ, REDUCE_MAX, SET1)                    \
    VEC best0 = SETMIN, best1 = SETMIN;                                                    \
    __m512i bi0 = _mm512_set1_epi64(INT64_MAX), bi1 = bi0;                                 \
    __m512i idx0 = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);                               \
    __m512i idx1 = _mm512_add_epi64(idx0, _mm512_set1_epi64(8));                           \
    __m512i step = _mm512_set1_epi64(16);                                                  \
    uint32_t i = 0;                                                                        \
    for (; i + 16 <= n; i += 16) {                                                         \
        VEC k0 = KEYS(i, 0xff), k1 = KEYS(i + 8, 0xff);                                    \
        __mmask8 g0 = GT(k0, best0), g1 = GT(k1, best1);                                   \
        best0 = MASK_MOV(best0, g0, k0);                                                   \
        bi0 = _mm512_mask_mov_epi64(bi0, g0, idx0);                                        \
        best1 = MASK_MOV(best1, g1, k1);                                                   \
        bi1 = _mm512_mask_mov_epi64(bi1, g1, idx1);                                        \
        idx0 = _mm512_add_epi64(idx0, step);                                               \
        idx1 = _mm512_add_epi64(idx1, step);                                               \
    }                                                                                      \
    for (; i < n; i += 8) {                                                                \
        __mmask8 live = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1);    \
        VEC k0 = KEYS(i, live);                                                            \
        __mmask8 g0 = MASK_GT(live, k0, best0);                                            \
        best0 = MASK_MOV(best0, g0, k0);                                                   \
        bi0 = _mm512_mask_mov_epi64(bi0, g0, idx0);                                        \
        idx0 = _mm512_add_epi64(idx0, _mm512_set1_epi64(8));                               \
    }                                                                                      \
    /* accumulator 1 wins a lane when larger, or equal with a lower index */               \
    __mmask8 take = GT(best1, best0) |                                                     \
                    (EQ(best1, best0) & _mm512_cmplt_epi64_mask(bi1, bi0));                \
    best0 = MASK_MOV(best0, take, best1);                                                  \
    bi0 = _mm512_mask_mov_epi64(bi0, take, bi1);                                           \
    __mmask8 at_top = EQ(best0, SET1(REDUCE_MAX(best0)));                                  \
    __m512i cand = _mm512_mask_blend_epi64(at_top, _mm512_set1_epi64(INT64_MAX), bi0);     \
    return (uint32_t)_mm512_reduce_min_epi64(cand)

#define W_KEYS(at, mask)                                                                   \
    keys8(hv, _mm512_maskz_loadu_epi64((__mmask8)(mask), seed + (at)),                     \
          _mm512_maskz_loadu_pd((__mmask8)(mask), inv_w + (at)))
#define W_GT(a, b) _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ)
#define W_MASK_GT(m, a, b) _mm512_mask_cmp_pd_mask(m, a, b, _CMP_GT_OQ)
#define W_EQ(a, b) _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ)

uint32_t plc_hrw_best_avx512(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h)
{
    __m512i hv = _mm512_set1_epi64((int64_t)plc_hrw_premix(h));
#define MASK_MOV _mm512_mask_mov_pd
    ARGMAX_BODY(__m512d, _mm512_set1_pd(-__builtin_inf()), W_KEYS, W_GT, W_MASK_GT, W_EQ,
                _mm512_reduce_max_pd, _mm512_set1_pd);
#undef MASK_MOV
}

void plc_hrw_scores_avx512(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h,
                           double *out)
{
    __m512i hv = _mm512_set1_epi64((int64_t)plc_hrw_premix(h));
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

#define U_KEYS(at, mask) numerators8(hv, _mm512_maskz_loadu_epi64((__mmask8)(mask), seed + (at)))
#define U_GT(a, b) _mm512_cmpgt_epu64_mask(a, b)
#define U_MASK_GT(m, a, b) _mm512_mask_cmpgt_epu64_mask(m, a, b)
#define U_EQ(a, b) _mm512_cmpeq_epu64_mask(a, b)
#define U_SET1(x) _mm512_set1_epi64((int64_t)(x))

/* Up to 2048 candidates: the index rides in the low 11 bits of the key,
 * (numerator << 11) | (2047 - i), below the 53-bit numerator, so a plain
 * unsigned max finds the largest numerator and, among equal ones, the
 * lowest index -- no index vectors, no compare -> select chain. */
static uint32_t best_packed(const uint64_t *seed, uint32_t n, uint64_t h)
{
    /* ((x >> 11) | 1) << 11 | tag  ==  (x & ~2047) | 2048 | tag: one
     * ternary-logic op, (A & B) | C = 0xEA, per 8 keys. */
    __m512i hv = _mm512_set1_epi64((int64_t)plc_hrw_premix(h));
    __m512i high = _mm512_set1_epi64(~INT64_C(2047));
    __m512i tag0 = _mm512_sub_epi64(_mm512_set1_epi64(2048 + 2047), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
    __m512i tag1 = _mm512_sub_epi64(tag0, _mm512_set1_epi64(8));
    __m512i step = _mm512_set1_epi64(16);
    __m512i best0 = _mm512_setzero_si512(), best1 = best0;
    uint32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i k0 = _mm512_ternarylogic_epi64(mixed8(hv, _mm512_loadu_si512(seed + i)), high, tag0, 0xEA);
        __m512i k1 = _mm512_ternarylogic_epi64(mixed8(hv, _mm512_loadu_si512(seed + i + 8)), high, tag1, 0xEA);
        best0 = _mm512_max_epu64(best0, k0);
        best1 = _mm512_max_epu64(best1, k1);
        tag0 = _mm512_sub_epi64(tag0, step);
        tag1 = _mm512_sub_epi64(tag1, step);
    }
    for (; i < n; i += 8) {
        __mmask8 live = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1);
        __m512i k0 = _mm512_ternarylogic_epi64(mixed8(hv, _mm512_maskz_loadu_epi64(live, seed + i)), high, tag0, 0xEA);
        best0 = _mm512_mask_max_epu64(best0, live, best0, k0);
        tag0 = _mm512_sub_epi64(tag0, _mm512_set1_epi64(8));
    }
    uint64_t top = _mm512_reduce_max_epu64(_mm512_max_epu64(best0, best1));
    return 2047u - (uint32_t)(top & 2047u);
}

uint32_t plc_hrw_best_uniform_avx512(const uint64_t *seed, const double *inv_w, uint32_t n,
                                     uint64_t h)
{
    (void)inv_w;
    if (n <= 2048)
        return best_packed(seed, n, h);
    __m512i hv = _mm512_set1_epi64((int64_t)plc_hrw_premix(h));
#define MASK_MOV _mm512_mask_mov_epi64
    /* numerators are >= 1, so 0 is below every candidate */
    ARGMAX_BODY(__m512i, _mm512_setzero_si512(), U_KEYS, U_GT, U_MASK_GT, U_EQ,
                _mm512_reduce_max_epu64, U_SET1);
#undef MASK_MOV
}

void plc_hrw_scores_uniform_avx512(const uint64_t *seed, const double *inv_w, uint32_t n,
                                   uint64_t h, double *out)
{
    (void)inv_w;
    __m512i hv = _mm512_set1_epi64((int64_t)plc_hrw_premix(h));
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm512_storeu_pd(out + i, _mm512_cvtepu64_pd(numerators8(hv, _mm512_loadu_si512(seed + i))));
    if (i < n) {
        __mmask8 live = (__mmask8)((1u << (n - i)) - 1);
        __m512d v = _mm512_cvtepu64_pd(numerators8(hv, _mm512_maskz_loadu_epi64(live, seed + i)));
        _mm512_mask_storeu_pd(out + i, live, v);
    }
}

/* Each class's winner by the packed max (no logarithm), then the winners'
 * keys 8 at a time by the kernel the scalar reference mirrors. */
uint32_t plc_hrw_best_classes_avx512(const plc_hrw_set *c, uint64_t h)
{
    uint64_t wseed[PLC_HRW_MAX_CLASSES];
    double winv[PLC_HRW_MAX_CLASSES], key[PLC_HRW_MAX_CLASSES];
    uint32_t widx[PLC_HRW_MAX_CLASSES];
    for (uint32_t k = 0; k < c->nclasses; k++) {
        uint32_t a = c->cls[k];
        widx[k] = a + best_packed(c->seed + a, c->cls[k + 1] - a, h);
        wseed[k] = c->seed[widx[k]];
        winv[k] = c->inv_w[widx[k]];
    }
    plc_hrw_scores_avx512(wseed, winv, c->nclasses, h, key);
    uint32_t best = 0;
    for (uint32_t k = 1; k < c->nclasses; k++)
        if (key[k] > key[best])
            best = k;
    return widx[best];
}
