/*
 * fastrange.h -- a 64-bit hash to one of n equal ranges of the hash space,
 * by one multiply (Lemire's "fast range"): slot = floor(h * n / 2^64).
 * Unlike h % n, each slot is one contiguous range of hashes, so a table
 * strategy's ownership is a list of ranges that the diff can compare with a
 * ring's.
 */
#ifndef PLC_SIMD_FASTRANGE_H
#define PLC_SIMD_FASTRANGE_H

#include <stdint.h>

static inline uint32_t plc_range_slot(uint64_t h, uint32_t n)
{
    return (uint32_t)(((unsigned __int128)h * n) >> 64);
}

/* The smallest hash of slot i < n: ceil(i * 2^64 / n). */
static inline uint64_t plc_range_start(uint32_t i, uint32_t n)
{
    return (uint64_t)((((unsigned __int128)i << 64) + n - 1) / n);
}

/* The largest hash of slot i < n. */
static inline uint64_t plc_range_end(uint32_t i, uint32_t n)
{
    return i + 1 >= n ? UINT64_MAX : plc_range_start(i + 1, n) - 1;
}

#endif
