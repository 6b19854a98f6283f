/*
 * siphash_avx2.c -- SipHash on 4 keys at once (-mavx2, SIMDe): one key per
 * 64-bit lane. AVX2 has no 64-bit rotate: 13, 17 and 21 are two shifts and
 * an or; 32 is a 32-bit lane shuffle and 16 a byte shuffle, one instruction
 * each.
 */
#include <simde/x86/avx2.h>

typedef simde__m256i sipv;
#define PLC_SIP_LANES 4
#define PLC_SIP_NAME13 plc_siphash13_batch_avx2
#define PLC_SIP_NAME24 plc_siphash24_batch_avx2

static inline sipv v_add(sipv a, sipv b) { return simde_mm256_add_epi64(a, b); }
static inline sipv v_xor(sipv a, sipv b) { return simde_mm256_xor_si256(a, b); }
static inline sipv v_set1(uint64_t x) { return simde_mm256_set1_epi64x((int64_t)x); }
#define V_ROTL(x, r) simde_mm256_or_si256(simde_mm256_slli_epi64(x, r), simde_mm256_srli_epi64(x, 64 - (r)))
static inline sipv v_rotl13(sipv x) { return V_ROTL(x, 13); }
static inline sipv v_rotl17(sipv x) { return V_ROTL(x, 17); }
static inline sipv v_rotl21(sipv x) { return V_ROTL(x, 21); }
static inline sipv v_rotl32(sipv x) { return simde_mm256_shuffle_epi32(x, 0xB1); }
static inline sipv v_rotl16(sipv x)
{
    const sipv rot16 = simde_mm256_setr_epi8(6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13,
                                             6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13);
    return simde_mm256_shuffle_epi8(x, rot16);
}
static inline sipv v_from(const uint64_t *w)
{
    return simde_mm256_set_epi64x((int64_t)w[3], (int64_t)w[2], (int64_t)w[1], (int64_t)w[0]);
}
static inline void v_store(uint64_t *w, sipv v) { simde_mm256_storeu_si256((simde__m256i *)w, v); }

#include "load.h"

static inline sipv v_words(const unsigned char *const *p, size_t off)
{
    return simde_mm256_set_epi64x((int64_t)plc_load64le(p[3] + off), (int64_t)plc_load64le(p[2] + off),
                                  (int64_t)plc_load64le(p[1] + off), (int64_t)plc_load64le(p[0] + off));
}

/* 4x4 transpose of 64-bit elements: rows are keys, columns words. */
static inline void v_words4(const unsigned char *const *p, size_t off, sipv m[4])
{
    sipv r0 = simde_mm256_loadu_si256((const void *)(p[0] + off));
    sipv r1 = simde_mm256_loadu_si256((const void *)(p[1] + off));
    sipv r2 = simde_mm256_loadu_si256((const void *)(p[2] + off));
    sipv r3 = simde_mm256_loadu_si256((const void *)(p[3] + off));
    sipv t0 = simde_mm256_unpacklo_epi64(r0, r1), t1 = simde_mm256_unpackhi_epi64(r0, r1);
    sipv t2 = simde_mm256_unpacklo_epi64(r2, r3), t3 = simde_mm256_unpackhi_epi64(r2, r3);
    m[0] = simde_mm256_permute2x128_si256(t0, t2, 0x20);
    m[1] = simde_mm256_permute2x128_si256(t1, t3, 0x20);
    m[2] = simde_mm256_permute2x128_si256(t0, t2, 0x31);
    m[3] = simde_mm256_permute2x128_si256(t1, t3, 0x31);
}

#include "siphash_lanes.h"
