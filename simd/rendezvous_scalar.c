/* rendezvous_scalar.c -- the reference HRW kernel (rendezvous.h); the
 * AVX-512 kernel must give the same bits. */
#include <string.h>

#include "rendezvous.h"

/* The odd 53-bit numerator of u for a premixed seed. */
static uint64_t numerator(uint64_t h, uint64_t seed)
{
    uint64_t x = plc_hrw_premix(h) ^ seed; /* = fmix64's first step of h ^ s */
    x *= PLC_HRW_C1;
    x ^= x >> 33;
    x *= PLC_HRW_C2;
    x ^= x >> 33;
    return (x >> 11) | 1;
}

static double key_of(uint64_t h, uint64_t seed, double inv_w)
{
    double v = (double)numerator(h, seed); /* exact: < 2^53 */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int64_t e = (int64_t)(bits >> 52) - 1023;
    uint64_t mbits = (bits & PLC_HRW_MANT) | PLC_HRW_ONE;
    double m;
    memcpy(&m, &mbits, sizeof m);
    if (mbits > PLC_HRW_SQRT2) {
        m = m * 0.5;
        e = e + 1;
    }
    double t = (m - 1.0) / (m + 1.0);
    double t2 = t * t;
    double p = 1.0 / 11.0;
    p = p * t2 + 1.0 / 9.0;
    p = p * t2 + 1.0 / 7.0;
    p = p * t2 + 1.0 / 5.0;
    p = p * t2 + 1.0 / 3.0;
    p = p * t2 + 1.0;
    double r = t * p;
    double ln_m = r + r;
    double ln_u = (double)(e - 53) * PLC_HRW_LN2 + ln_m;
    return ln_u * inv_w;
}

uint32_t plc_hrw_best_scalar(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h)
{
    uint32_t best = 0;
    double best_key = key_of(h, seed[0], inv_w[0]);
    for (uint32_t i = 1; i < n; i++) {
        double k = key_of(h, seed[i], inv_w[i]);
        if (k > best_key) {
            best_key = k;
            best = i;
        }
    }
    return best;
}

void plc_hrw_scores_scalar(const uint64_t *seed, const double *inv_w, uint32_t n, uint64_t h,
                           double *out)
{
    for (uint32_t i = 0; i < n; i++)
        out[i] = key_of(h, seed[i], inv_w[i]);
}

uint32_t plc_hrw_best_uniform_scalar(const uint64_t *seed, const double *inv_w, uint32_t n,
                                     uint64_t h)
{
    (void)inv_w;
    uint32_t best = 0;
    uint64_t best_v = numerator(h, seed[0]);
    for (uint32_t i = 1; i < n; i++) {
        uint64_t v = numerator(h, seed[i]);
        if (v > best_v) {
            best_v = v;
            best = i;
        }
    }
    return best;
}

void plc_hrw_scores_uniform_scalar(const uint64_t *seed, const double *inv_w, uint32_t n,
                                   uint64_t h, double *out)
{
    (void)inv_w;
    for (uint32_t i = 0; i < n; i++)
        out[i] = (double)numerator(h, seed[i]);
}

uint32_t plc_hrw_best_classes_scalar(const plc_hrw_set *c, uint64_t h)
{
    uint32_t best = 0;
    double best_key = 0;
    for (uint32_t k = 0; k < c->nclasses; k++) {
        uint32_t a = c->cls[k];
        uint32_t i = a + plc_hrw_best_uniform_scalar(c->seed + a, NULL, c->cls[k + 1] - a, h);
        double key = key_of(h, c->seed[i], c->inv_w[i]);
        if (!k || key > best_key) { /* classes in index order: ties keep the lower */
            best_key = key;
            best = i;
        }
    }
    return best;
}
