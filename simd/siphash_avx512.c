/*
 * siphash_avx512.c -- SipHash on 8 keys at once (-mavx512f/vl, SIMDe): one
 * key per 64-bit lane, every rotate one vprolq. Built a second time without
 * the AVX-512 flags under the name *_avx512_emulated (PLC_SIP_EMULATED, a
 * test-only library), where SIMDe emulates each intrinsic: the tests check
 * this kernel's logic on CPUs without AVX-512 too.
 */
#include <simde/x86/avx512.h>

typedef simde__m512i sipv;
#define PLC_SIP_LANES 8
#if defined(PLC_SIP_EMULATED)
#define PLC_SIP_NAME13 plc_siphash13_batch_avx512_emulated
#define PLC_SIP_NAME24 plc_siphash24_batch_avx512_emulated
#else
#define PLC_SIP_NAME13 plc_siphash13_batch_avx512
#define PLC_SIP_NAME24 plc_siphash24_batch_avx512
#endif

static inline sipv v_add(sipv a, sipv b) { return simde_mm512_add_epi64(a, b); }
static inline sipv v_xor(sipv a, sipv b) { return simde_mm512_xor_si512(a, b); }
static inline sipv v_set1(uint64_t x) { return simde_mm512_set1_epi64((int64_t)x); }
static inline sipv v_rotl13(sipv x) { return simde_mm512_rol_epi64(x, 13); }
static inline sipv v_rotl16(sipv x) { return simde_mm512_rol_epi64(x, 16); }
static inline sipv v_rotl17(sipv x) { return simde_mm512_rol_epi64(x, 17); }
static inline sipv v_rotl21(sipv x) { return simde_mm512_rol_epi64(x, 21); }
static inline sipv v_rotl32(sipv x) { return simde_mm512_rol_epi64(x, 32); }
static inline sipv v_from(const uint64_t *w) { return simde_mm512_loadu_si512((const void *)w); }
static inline void v_store(uint64_t *w, sipv v) { simde_mm512_storeu_si512((void *)w, v); }

#include "load.h"

static inline sipv v_words(const unsigned char *const *p, size_t off)
{
    return simde_mm512_set_epi64((int64_t)plc_load64le(p[7] + off), (int64_t)plc_load64le(p[6] + off),
                                 (int64_t)plc_load64le(p[5] + off), (int64_t)plc_load64le(p[4] + off),
                                 (int64_t)plc_load64le(p[3] + off), (int64_t)plc_load64le(p[2] + off),
                                 (int64_t)plc_load64le(p[1] + off), (int64_t)plc_load64le(p[0] + off));
}

/* Two 4x4 transposes of 64-bit elements (keys 0-3 and 4-7), joined. */
/* 32 key bytes as four little-endian 64-bit lanes: one load where the host
 * is little-endian; on a big-endian one (SIMDe's emulated build) each word
 * is read little-endian first, as the scalar kernel reads it. */
static inline simde__m256i load_words4(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    uint64_t w[4] = {plc_load64le(p), plc_load64le(p + 8), plc_load64le(p + 16), plc_load64le(p + 24)};
    return simde_mm256_loadu_si256((const void *)w);
#else
    return simde_mm256_loadu_si256((const void *)p);
#endif
}

static inline void transpose4(const unsigned char *const *p, size_t off, simde__m256i m[4])
{
    simde__m256i r0 = load_words4(p[0] + off);
    simde__m256i r1 = load_words4(p[1] + off);
    simde__m256i r2 = load_words4(p[2] + off);
    simde__m256i r3 = load_words4(p[3] + off);
    simde__m256i t0 = simde_mm256_unpacklo_epi64(r0, r1), t1 = simde_mm256_unpackhi_epi64(r0, r1);
    simde__m256i t2 = simde_mm256_unpacklo_epi64(r2, r3), t3 = simde_mm256_unpackhi_epi64(r2, r3);
    m[0] = simde_mm256_permute2x128_si256(t0, t2, 0x20);
    m[1] = simde_mm256_permute2x128_si256(t1, t3, 0x20);
    m[2] = simde_mm256_permute2x128_si256(t0, t2, 0x31);
    m[3] = simde_mm256_permute2x128_si256(t1, t3, 0x31);
}

static inline void v_words4(const unsigned char *const *p, size_t off, sipv m[4])
{
    simde__m256i lo[4], hi[4];
    transpose4(p, off, lo);
    transpose4(p + 4, off, hi);
    for (int t = 0; t < 4; t++)
        m[t] = simde_mm512_inserti64x4(simde_mm512_castsi256_si512(lo[t]), hi[t], 1);
}

#include "siphash_lanes.h"
