/*
 * diff_keys.c -- the keys the diffs sample (diff_internal.h): "key:" and
 * the 16 lowercase hex digits of splitmix64 from 0, so every run samples
 * the same keys; how many by default; Wilson's 95% interval.
 */
#include <math.h>
#include <string.h>

#include "diff_internal.h"

#define DEFAULT_KEYS 100000u
#define LEAST_KEYS 16384u                 /* Wilson's 95% half-width <= 0.77 points */
#define KEY_BUDGET ((double)(1ull << 31)) /* node scorings a default sample may cost */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

size_t plc_diff_next_keys(plc_diff_keys *k, uint64_t left)
{
    size_t n = left < PLC_DIFF_CHUNK ? (size_t)left : PLC_DIFF_CHUNK;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = splitmix64(&k->seed);
        memcpy(k->text[i], "key:", 4);
        for (int d = 15; d >= 0; d--, v >>= 4)
            k->text[i][4 + d] = "0123456789abcdef"[v & 15];
        k->keys[i] = k->text[i];
        k->lens[i] = sizeof k->text[i];
    }
    return n;
}

/* What one lookup costs, in node scorings. */
static double lookup_cost(const placer_snapshot *s)
{
    return s->ops->traits & PLACER_TRAIT_SCANS_NODES ? (double)s->nnodes + 64 : 64;
}

uint64_t plc_diff_default_keys(const placer_snapshot *a, const placer_snapshot *b)
{
    double fit = KEY_BUDGET / (lookup_cost(a) + lookup_cost(b));
    return fit >= DEFAULT_KEYS ? DEFAULT_KEYS : fit <= LEAST_KEYS ? LEAST_KEYS : (uint64_t)fit;
}

void plc_diff_wilson95(uint64_t moved, uint64_t keys, double *lo, double *hi)
{
    const double z = 1.959964, z2 = z * z;
    if (!keys) {
        *lo = 0, *hi = 1;
        return;
    }
    double n = (double)keys, p = (double)moved / n;
    double mid = (p + z2 / (2 * n)) / (1 + z2 / n);
    double half = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
    /* The interval holds p; rounding may leave an end a unit past it
     * (1 - 1e-16 at p = 1). */
    *lo = mid - half < 0 ? 0 : mid - half > p ? p : mid - half;
    *hi = mid + half > 1 ? 1 : mid + half < p ? p : mid + half;
}
