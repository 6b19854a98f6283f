/*
 * siphash.h -- SipHash (Aumasson & Bernstein), the keyed placement hash:
 * SipHash-1-3 (one compression round per word, three finalisation rounds,
 * as in Rust's and Python's hash tables) under a 128-bit secret.
 *
 * One round function for every variant: the scalar body below takes the
 * round counts as arguments, so the SipHash-2-4 reference vectors check the
 * very code SipHash-1-3 runs (tests/test_siphash.c). The batch kernels run
 * the same rounds on 2 (SSE), 4 (AVX2) or 8 (AVX-512) keys at once, one key
 * per 64-bit lane (siphash_lanes.h), and agree with the scalar body bit for
 * bit.
 *
 * Layout of a message (the reference's): 8-byte little-endian words, then a
 * last word holding the remaining 0..7 bytes and (len mod 256) << 56.
 */
#ifndef PLC_SIMD_SIPHASH_H
#define PLC_SIMD_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#include "hashfn.h"
#include "load.h"

#define PLC_SIP_C0 UINT64_C(0x736f6d6570736575) /* "somepseu" */
#define PLC_SIP_C1 UINT64_C(0x646f72616e646f6d) /* "dorandom" */
#define PLC_SIP_C2 UINT64_C(0x6c7967656e657261) /* "lygenera" */
#define PLC_SIP_C3 UINT64_C(0x7465646279746573) /* "tedbytes" */

typedef struct plc_sip_state {
    uint64_t v0, v1, v2, v3;
} plc_sip_state;

static inline uint64_t plc_sip_rotl(uint64_t x, unsigned b)
{
    return (x << b) | (x >> (64 - b));
}

static inline void plc_sip_round(plc_sip_state *s)
{
    s->v0 += s->v1;
    s->v1 = plc_sip_rotl(s->v1, 13);
    s->v1 ^= s->v0;
    s->v0 = plc_sip_rotl(s->v0, 32);
    s->v2 += s->v3;
    s->v3 = plc_sip_rotl(s->v3, 16);
    s->v3 ^= s->v2;
    s->v0 += s->v3;
    s->v3 = plc_sip_rotl(s->v3, 21);
    s->v3 ^= s->v0;
    s->v2 += s->v1;
    s->v1 = plc_sip_rotl(s->v1, 17);
    s->v1 ^= s->v2;
    s->v2 = plc_sip_rotl(s->v2, 32);
}

static inline plc_sip_state plc_sip_init(uint64_t k0, uint64_t k1)
{
    plc_sip_state s = {k0 ^ PLC_SIP_C0, k1 ^ PLC_SIP_C1, k0 ^ PLC_SIP_C2, k1 ^ PLC_SIP_C3};
    return s;
}

static inline void plc_sip_compress(plc_sip_state *s, uint64_t m, int c_rounds)
{
    s->v3 ^= m;
    for (int i = 0; i < c_rounds; i++)
        plc_sip_round(s);
    s->v0 ^= m;
}

/* The last word: bytes len & ~7 .. len-1 of the message and the length. */
static inline uint64_t plc_sip_last_word(const unsigned char *p, size_t len)
{
    size_t left = len & 7;
    uint64_t b = (uint64_t)len << 56;
    if (left)
        b |= plc_load_partial_le(p + (len - left), left);
    return b;
}

static inline uint64_t plc_sip_finish(plc_sip_state *s, int d_rounds)
{
    s->v2 ^= 0xff;
    for (int i = 0; i < d_rounds; i++)
        plc_sip_round(s);
    return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

/* From a state that has absorbed the first `from` full words (from <=
 * len / 8) to the 64-bit hash: what the batch kernels finish a lane with when
 * the lanes' lengths differ. */
static inline uint64_t plc_sip_resume(plc_sip_state s, const unsigned char *p, size_t len,
                                      size_t from, int c_rounds, int d_rounds)
{
    size_t words = len / 8;
    for (size_t i = from; i < words; i++)
        plc_sip_compress(&s, plc_load64le(p + 8 * i), c_rounds);
    plc_sip_compress(&s, plc_sip_last_word(p, len), c_rounds);
    return plc_sip_finish(&s, d_rounds);
}

/* SipHash-c-d with 64-bit output. */
static inline uint64_t plc_siphash_body(uint64_t k0, uint64_t k1, const void *data, size_t len,
                                        int c_rounds, int d_rounds)
{
    return plc_sip_resume(plc_sip_init(k0, k1), data, len, 0, c_rounds, d_rounds);
}

/* Scalar, any CPU (siphash_scalar.c). */
uint64_t plc_siphash13(const plc_hash_key *k, const void *data, size_t len);
uint64_t plc_siphash24(const plc_hash_key *k, const void *data, size_t len);
void plc_siphash13_batch_scalar(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                                size_t n, uint64_t *out);
void plc_siphash24_batch_scalar(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                                size_t n, uint64_t *out);

/* Keys across SIMD lanes; each ISA's file declares its pair. The 2-4 forms
 * exist for the reference vectors. */
#define PLC_SIPHASH_DECLARE(isa)                                                                 \
    void plc_siphash13_batch_##isa(const plc_hash_key *k, const void *const *keys,               \
                                   const size_t *lens, size_t n, uint64_t *out);                 \
    void plc_siphash24_batch_##isa(const plc_hash_key *k, const void *const *keys,               \
                                   const size_t *lens, size_t n, uint64_t *out)

#if defined(PLC_HAVE_SIMD128) && !defined(__aarch64__)
PLC_SIPHASH_DECLARE(sse);
#endif
#if defined(PLC_HAVE_AVX2)
PLC_SIPHASH_DECLARE(avx2);
#endif
#if defined(PLC_HAVE_AVX512)
PLC_SIPHASH_DECLARE(avx512);
#endif
/* The AVX-512 kernel's source compiled without -mavx512*: SIMDe emulates
 * each intrinsic, so tests check that kernel's lanes on any CPU. */
PLC_SIPHASH_DECLARE(avx512_emulated);

#endif
