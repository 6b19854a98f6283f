/*
 * search_scalar.c -- branchless binary search (lower_bound with wrap).
 *
 * The loop halves `len` each step and moves `base` by `half` times the
 * comparison result, so a random hash costs no mispredictions; the number of
 * steps depends only on n. Written as arithmetic on purpose: given
 * `base = c ? base + half : base`, GCC 12 emits a 50/50 branch, which made a
 * 30,720-token lookup cost ~100 ns instead of ~30. n must be >= 1.
 */
#include "search.h"

uint32_t plc_search_branchless(const uint64_t *tokens, uint32_t n, uint64_t h)
{
    const uint64_t *base = tokens;
    uint32_t len = n;
    while (len > 1) {
        uint32_t half = len / 2;
        base += half & -(uint32_t)(base[half - 1] < h);
        len -= half;
    }
    uint32_t i = (uint32_t)(base - tokens) + (*base < h);
    return i == n ? 0 : i;
}
