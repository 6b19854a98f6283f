/*
 * siphash_sse.c -- SipHash on 2 keys at once in 128-bit registers (SSE4.2
 * build flags, SIMDe; the byte shuffle of the 16-bit rotate is SSSE3): the
 * path for x86-64 CPUs without AVX2, bit-identical to the scalar one.
 */
#include <simde/x86/sse4.2.h>

typedef simde__m128i sipv;
#define PLC_SIP_LANES 2
#define PLC_SIP_NAME13 plc_siphash13_batch_sse
#define PLC_SIP_NAME24 plc_siphash24_batch_sse

static inline sipv v_add(sipv a, sipv b) { return simde_mm_add_epi64(a, b); }
static inline sipv v_xor(sipv a, sipv b) { return simde_mm_xor_si128(a, b); }
static inline sipv v_set1(uint64_t x) { return simde_mm_set1_epi64x((int64_t)x); }
#define V_ROTL(x, r) simde_mm_or_si128(simde_mm_slli_epi64(x, r), simde_mm_srli_epi64(x, 64 - (r)))
static inline sipv v_rotl13(sipv x) { return V_ROTL(x, 13); }
static inline sipv v_rotl17(sipv x) { return V_ROTL(x, 17); }
static inline sipv v_rotl21(sipv x) { return V_ROTL(x, 21); }
static inline sipv v_rotl32(sipv x) { return simde_mm_shuffle_epi32(x, 0xB1); }
static inline sipv v_rotl16(sipv x)
{
    const sipv rot16 = simde_mm_setr_epi8(6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13);
    return simde_mm_shuffle_epi8(x, rot16);
}
static inline sipv v_from(const uint64_t *w) { return simde_mm_set_epi64x((int64_t)w[1], (int64_t)w[0]); }
static inline void v_store(uint64_t *w, sipv v) { simde_mm_storeu_si128((simde__m128i *)w, v); }

#include "load.h"

static inline sipv v_words(const unsigned char *const *p, size_t off)
{
    return simde_mm_set_epi64x((int64_t)plc_load64le(p[1] + off), (int64_t)plc_load64le(p[0] + off));
}

static inline void v_words4(const unsigned char *const *p, size_t off, sipv m[4])
{
    for (int h = 0; h < 2; h++) {
        sipv r0 = simde_mm_loadu_si128((const void *)(p[0] + off + 16 * h));
        sipv r1 = simde_mm_loadu_si128((const void *)(p[1] + off + 16 * h));
        m[2 * h] = simde_mm_unpacklo_epi64(r0, r1);
        m[2 * h + 1] = simde_mm_unpackhi_epi64(r0, r1);
    }
}

#include "siphash_lanes.h"
