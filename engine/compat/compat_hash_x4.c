/*
 * compat_hash_x4.c -- the byte-serial key hashes (sdbm, djb2, the FNVs,
 * one-at-a-time, CRC16, wt6) run over four keys in lockstep. Each hashes
 * one byte per step through a multiply or a table load, so a single key is
 * bound by that latency; four independent chains fill the pipeline. Same
 * bits as compat_hash.c (tests/test_compat_index.c checks every length).
 */
#include <string.h>

#include "compat_hash.h"

static inline uint32_t sx32(unsigned char c)
{
    return (uint32_t)(int32_t)(signed char)c;
}

static inline uint32_t rotl32(uint32_t x, unsigned k)
{
    k &= 31u;
    return k ? (x << k) | (x >> (32u - k)) : x;
}

/* STEP(s, byte) advances state s by one byte; FIN(s) is the hash. */
#define LOCKSTEP(NAME, T, INIT, STEP, FIN)                                                        \
    static void NAME(const unsigned char *const *k, const size_t *len, uint32_t *out)             \
    {                                                                                             \
        T s0 = INIT, s1 = INIT, s2 = INIT, s3 = INIT;                                             \
        size_t m = len[0];                                                                        \
        for (int j = 1; j < 4; j++)                                                               \
            m = len[j] < m ? len[j] : m;                                                          \
        for (size_t i = 0; i < m; i++) {                                                          \
            STEP(s0, k[0][i]);                                                                    \
            STEP(s1, k[1][i]);                                                                    \
            STEP(s2, k[2][i]);                                                                    \
            STEP(s3, k[3][i]);                                                                    \
        }                                                                                         \
        for (size_t i = m; i < len[0]; i++)                                                       \
            STEP(s0, k[0][i]);                                                                    \
        for (size_t i = m; i < len[1]; i++)                                                       \
            STEP(s1, k[1][i]);                                                                    \
        for (size_t i = m; i < len[2]; i++)                                                       \
            STEP(s2, k[2][i]);                                                                    \
        for (size_t i = m; i < len[3]; i++)                                                       \
            STEP(s3, k[3][i]);                                                                    \
        out[0] = FIN(s0);                                                                         \
        out[1] = FIN(s1);                                                                         \
        out[2] = FIN(s2);                                                                         \
        out[3] = FIN(s3);                                                                         \
    }

#define ID(s) ((uint32_t)(s))

#define SDBM(s, c) ((s) = (uint32_t)(c) + ((s) << 6) + ((s) << 16) - (s))
LOCKSTEP(sdbm4, uint32_t, 0u, SDBM, ID)

#define DJB2(s, c) ((s) = ((s) << 5) + (s) + (uint32_t)(c))
LOCKSTEP(djb24, uint32_t, 5381u, DJB2, ID)

#define FNV1_32(s, c) ((s) = ((s) * 16777619u) ^ sx32(c))
LOCKSTEP(fnv1_32x4, uint32_t, 2166136261u, FNV1_32, ID)

#define FNV1A_32(s, c) ((s) = ((s) ^ sx32(c)) * 16777619u)
LOCKSTEP(fnv1a_32x4, uint32_t, 2166136261u, FNV1A_32, ID)

#define FNV1A_64(s, c) ((s) = ((s) ^ sx32(c)) * 0x1b3u)
LOCKSTEP(fnv1a_64x4, uint32_t, 0x84222325u, FNV1A_64, ID)

#define FNV1_64(s, c) ((s) = ((s) * UINT64_C(0x100000001b3)) ^ (uint64_t)(int64_t)(signed char)(c))
LOCKSTEP(fnv1_64x4, uint64_t, UINT64_C(0xcbf29ce484222325), FNV1_64, ID)

#define OAAT(s, c) ((s) += sx32(c), (s) += (s) << 10, (s) ^= (s) >> 6)
static inline uint32_t oaat_fin(uint32_t v)
{
    v += v << 3;
    v ^= v >> 11;
    v += v << 15;
    return v;
}
LOCKSTEP(oaat4, uint32_t, 0u, OAAT, oaat_fin)

/* twemproxy's crc16 never masks; Redis' is masked at the end (the low 16
 * bits of the two agree at every step). */
#define CRC16(s, c) ((s) = ((s) << 8) ^ plc_crc16_xmodem[(((s) >> 8) ^ (c)) & 0xffu])
#define MASK16(s) ((uint32_t)(s) & 0xffffu)
LOCKSTEP(crc16x4, uint32_t, 0u, CRC16, ID)
LOCKSTEP(crc16r4, uint32_t, 0u, CRC16, MASK16)

typedef struct wt6 {
    uint32_t h0, h1;
    unsigned s0, s1;
} wt6;
#define WT6_INIT ((wt6){0xa53c965au, 0x5ca6953au, 6, 18})
#define WT6(s, c)                                                                                 \
    do {                                                                                          \
        uint32_t t_ = (c);                                                                        \
        (s).h0 = ~((s).h0 ^ t_);                                                                  \
        (s).h1 = ~((s).h1 + t_);                                                                  \
        t_ = rotl32((s).h1, (s).s0);                                                              \
        (s).h1 = rotl32((s).h0, (s).s1);                                                          \
        (s).h0 = t_;                                                                              \
        t_ = (((s).h0 >> 16) ^ (s).h1) & 0xffffu;                                                 \
        (s).s0 = t_ & 0x1fu;                                                                      \
        (s).s1 = t_ >> 11;                                                                        \
    } while (0)
#define WT6_FIN(s) ((s).h0 ^ (s).h1)
LOCKSTEP(wt64, wt6, WT6_INIT, WT6, WT6_FIN)

plc_compat_hash_x4_fn plc_compat_hash_x4(int id)
{
    switch (id) {
    case PLC_CH_ONE_AT_A_TIME: return oaat4;
    case PLC_CH_CRC16: return crc16x4;
    case PLC_CH_FNV1_64: return fnv1_64x4;
    case PLC_CH_FNV1A_64: return fnv1a_64x4;
    case PLC_CH_FNV1_32: return fnv1_32x4;
    case PLC_CH_FNV1A_32: return fnv1a_32x4;
    case PLC_CH_HAP_SDBM: return sdbm4;
    case PLC_CH_HAP_DJB2: return djb24;
    case PLC_CH_HAP_WT6: return wt64;
    case PLC_CH_REDIS_CRC16: return crc16r4;
    default: return NULL;
    }
}
