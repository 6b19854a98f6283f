/*
 * rendezvous.h -- highest-random-weight scoring (weighted by the
 * logarithmic method of Schindelhauer and Schomaker: score = -w / ln(u)).
 *
 * For a key hash h and candidate i with seed s_i and weight w_i:
 *   x   = fmix64(h ^ s_i)                       (MurmurHash3's finaliser)
 * (fmix64's first step, x ^= x >> 33, distributes over the XOR, so the
 * arrays hold s_i ^ (s_i >> 33) and the kernels fold h once per key:
 * plc_hrw_premix.)
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
 *
 * When every candidate of a placement has the same weight, -w / ln(u) ranks
 * exactly as u does (ln is increasing), so the "uniform" kernels skip the
 * logarithm and rank by the integer (x >> 11) | 1 -- the same order as the
 * exact formula, with the same ties; their scores are that integer as a
 * double (exact below 2^53). A placement uses one family or the other,
 * chosen at build from its weights.
 *
 * Few distinct weights (weight classes): candidates are stored sorted by
 * weight, and within a class ranking by u is ranking by score, so each
 * class's winner is found without a logarithm (the uniform kernel over the
 * class), and only the winners' keys are computed (kernel above) and
 * compared, the lowest index winning ties. plc_hrw_set.nclasses > 0 says a
 * placement ranks this way; the scalar and AVX-512 versions give the same
 * winner.
 */
#ifndef PLC_SIMD_RENDEZVOUS_H
#define PLC_SIMD_RENDEZVOUS_H

#include <stddef.h>
#include <stdint.h>

/* Index (into the arrays) of the candidate with the largest key; n >= 1. */
typedef uint32_t (*plc_hrw_best_fn)(const uint64_t *seed, const double *inv_w, uint32_t n,
                                    uint64_t h);
/* Every candidate's key into out[0..n). */
typedef void (*plc_hrw_scores_fn)(const uint64_t *seed, const double *inv_w, uint32_t n,
                                  uint64_t h, double *out);

/* The candidates of one placement, structure of arrays, and the kernels
 * that rank them (uniform or weighted). */
typedef struct plc_hrw_set plc_hrw_set;
/* The winner of a weight-classed set. */
typedef uint32_t (*plc_hrw_classes_fn)(const plc_hrw_set *c, uint64_t h);

struct plc_hrw_set {
    const uint64_t *seed;  /* plc_hrw_premix(placer_hash64(snapshot seed, node id)) */
    const double *inv_w;   /* 1 / weight */
    const uint32_t *node;  /* node index in the snapshot */
    uint32_t n;
    plc_hrw_best_fn best;  /* weighted or uniform kernel over all candidates */
    plc_hrw_scores_fn scores;
    /* Weight classes (nclasses > 0): class k is candidates cls[k] ..
     * cls[k + 1] - 1, each at most PLC_HRW_MAX_CLASS of them. */
    const uint32_t *cls;
    uint32_t nclasses;
    plc_hrw_classes_fn best_classes;
};

#define PLC_HRW_MAX_CLASSES 16u
#define PLC_HRW_MAX_CLASS 2048u /* the packed index's 11 bits */

/* The winning candidate's index, whichever way the set ranks. */
static inline uint32_t plc_hrw_winner(const plc_hrw_set *c, uint64_t h)
{
    return c->nclasses ? c->best_classes(c, h) : c->best(c->seed, c->inv_w, c->n, h);
}

static inline uint64_t plc_hrw_premix(uint64_t v)
{
    return v ^ (v >> 33);
}

#define PLC_HRW_C1 UINT64_C(0xff51afd7ed558ccd)
#define PLC_HRW_C2 UINT64_C(0xc4ceb9fe1a85ec53)
#define PLC_HRW_MANT UINT64_C(0x000fffffffffffff)
#define PLC_HRW_ONE UINT64_C(0x3ff0000000000000)
#define PLC_HRW_SQRT2 UINT64_C(0x3ff6a09e667f3bcd) /* bits of sqrt(2) */
#define PLC_HRW_LN2 0.6931471805599453094

uint32_t plc_hrw_best_classes_scalar(const plc_hrw_set *c, uint64_t h);
uint32_t plc_hrw_best_uniform_scalar(const uint64_t *seed, const double *inv_w, uint32_t n,
                                     uint64_t h);
void plc_hrw_scores_uniform_scalar(const uint64_t *seed, const double *inv_w, uint32_t n,
                                   uint64_t h, double *out);
uint32_t plc_hrw_best_scalar(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h);
void plc_hrw_scores_scalar(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h,
                           double *out);
#if defined(PLC_HAVE_AVX512)
uint32_t plc_hrw_best_avx512(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h);
uint32_t plc_hrw_best_classes_avx512(const plc_hrw_set *c, uint64_t h);
uint32_t plc_hrw_best_uniform_avx512(const uint64_t *seed, const double *inv_w, uint32_t n,
                                     uint64_t h);
void plc_hrw_scores_uniform_avx512(const uint64_t *seed, const double *inv_w, uint32_t n,
                                   uint64_t h, double *out);
void plc_hrw_scores_avx512(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h,
                           double *out);
#endif

#endif
