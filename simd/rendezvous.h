/*
 * rendezvous.h -- highest-random-weight scoring (weighted by the
 * logarithmic method of Schindelhauer and Schomaker: score = -w / ln(u)).
 *
 * For a key hash h and candidate i with seed s_i and weight w_i:
 *   x   = fmix64(h ^ s_i)                       (MurmurHash3's finaliser)
 *   u   = ((x >> 11) | 1) / 2^53                 (odd numerator: 0 < u < 1)
 *   key = ln(u) * (1 / w_i)                      (<= 0; larger wins)
 * Ranking by key is ranking by -w / ln(u) (key = -1 / score), without a
 * division per candidate. ln is computed the same way in every kernel --
 * exponent and mantissa from the bits, the mantissa folded into
 * [sqrt(1/2), sqrt(2)), then 2 atanh((m-1)/(m+1)) by six series terms
 * (error below 2e-11) -- with the same operations in the same order and no
 * fused multiply-add (-ffp-contract=off), so the scalar reference and the
 * AVX-512 kernel give the same bits and the same winner on every machine.
 * Ties (equal keys) go to the lower candidate index.
 */
#ifndef PLC_SIMD_RENDEZVOUS_H
#define PLC_SIMD_RENDEZVOUS_H

#include <stddef.h>
#include <stdint.h>

/* The candidates of one placement, structure of arrays. */
typedef struct plc_hrw_set {
    const uint64_t *seed;  /* placer_hash64(snapshot seed, node id) */
    const double *inv_w;   /* 1 / weight */
    const uint32_t *node;  /* node index in the snapshot */
    uint32_t n;
} plc_hrw_set;

/* Index (into the arrays) of the candidate with the largest key; n >= 1. */
typedef uint32_t (*plc_hrw_best_fn)(const uint64_t *seed, const double *inv_w, uint32_t n,
                                    uint64_t h);
/* Every candidate's key into out[0..n). */
typedef void (*plc_hrw_scores_fn)(const uint64_t *seed, const double *inv_w, uint32_t n,
                                  uint64_t h, double *out);

#define PLC_HRW_C1 UINT64_C(0xff51afd7ed558ccd)
#define PLC_HRW_C2 UINT64_C(0xc4ceb9fe1a85ec53)
#define PLC_HRW_MANT UINT64_C(0x000fffffffffffff)
#define PLC_HRW_ONE UINT64_C(0x3ff0000000000000)
#define PLC_HRW_SQRT2 UINT64_C(0x3ff6a09e667f3bcd) /* bits of sqrt(2) */
#define PLC_HRW_LN2 0.6931471805599453094

uint32_t plc_hrw_best_scalar(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h);
void plc_hrw_scores_scalar(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h,
                           double *out);
#if defined(PLC_HAVE_AVX512)
uint32_t plc_hrw_best_avx512(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h);
void plc_hrw_scores_avx512(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h,
                           double *out);
#endif

#endif
