/* load.h -- unaligned little-endian loads without undefined behaviour. */
#ifndef PLC_SIMD_LOAD_H
#define PLC_SIMD_LOAD_H

#include <stdint.h>
#include <string.h>

static inline uint64_t plc_load64le(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* The n (1..7) bytes at p as a little-endian value, zero-padded. */
static inline uint64_t plc_load_partial_le(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

#endif
