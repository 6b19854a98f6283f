/*
 * bytehash_avx2.c -- byte-serial key hashes across 16 keys of one length
 * with AVX2 (see bytehash.h). Two sets of eight lanes: the 16-byte rows of
 * eight keys become four registers of words by a 4x4 transpose in each
 * 128-bit half (lanes i and i + 4 share a register), a byte of each lane is
 * one shuffle away (one more shift to sign-extend it), and each step of the
 * two sets is independent of the other, so two chains are in flight.
 * A length that is not a multiple of 16 reads its last row as the key's
 * last 16 bytes and steps only over the bytes not yet hashed.
 */
#include "bytehash_avx2_body.h"

#define ID(s) (s)
#define MUL(a, k) _mm256_mullo_epi32((a), _mm256_set1_epi32((int)(k)))

#define SDBM(s, c) ((s) = _mm256_add_epi32(MUL((s), 65599u), (c)))
DEFINE_BYTEHASH(sdbm, zbyte, _mm256_setzero_si256(), SDBM, ID)

/* h * 33 + c as (h + c) + (h << 5): two steps deep. */
#define DJB2(s, c) ((s) = _mm256_add_epi32(_mm256_add_epi32((s), (c)), _mm256_slli_epi32((s), 5)))
DEFINE_BYTEHASH(djb2, zbyte, _mm256_set1_epi32(5381), DJB2, ID)

#define FNV1A_32(s, c) ((s) = MUL(_mm256_xor_si256((s), (c)), 16777619u))
DEFINE_BYTEHASH(fnv1a_32, sbyte, _mm256_set1_epi32((int)2166136261u), FNV1A_32, ID)

#define FNV1_32(s, c) ((s) = _mm256_xor_si256(MUL((s), 16777619u), (c)))
DEFINE_BYTEHASH(fnv1_32, sbyte, _mm256_set1_epi32((int)2166136261u), FNV1_32, ID)

/* twemproxy's fnv1a_64: the 64-bit constants truncated to 32 bits. */
#define FNV1A_64_32(s, c) ((s) = MUL(_mm256_xor_si256((s), (c)), 0x1b3u))
DEFINE_BYTEHASH(fnv1a_64_32, sbyte, _mm256_set1_epi32((int)0x84222325u), FNV1A_64_32, ID)

#define OAAT(s, c)                                                                                \
    do {                                                                                          \
        (s) = _mm256_add_epi32((s), (c));                                                         \
        (s) = _mm256_add_epi32((s), _mm256_slli_epi32((s), 10));                                  \
        (s) = _mm256_xor_si256((s), _mm256_srli_epi32((s), 6));                                   \
    } while (0)
static inline __m256i oaat_fin(__m256i v)
{
    v = _mm256_add_epi32(v, _mm256_slli_epi32(v, 3));
    v = _mm256_xor_si256(v, _mm256_srli_epi32(v, 11));
    return _mm256_add_epi32(v, _mm256_slli_epi32(v, 15));
}
DEFINE_BYTEHASH(oaat, sbyte, _mm256_setzero_si256(), OAAT, oaat_fin)

/* The word hashes read 4-byte little-endian words of the key, the last one
 * zero-filled past the end (their tails add partial words so). words()
 * gives words 0..nw+2 of eight lanes of one length (the three past the key
 * are zero, for lookup3's last block): each row of 16 bytes in place, the
 * last partial row as the key's last 16 bytes moved down into place. */
#define MAX_WORDS (PLC_BYTEHASH_MAX_LEN / 4 + 3)

static const unsigned char shift_down[32] = {0,    1,    2,    3,    4,    5,    6,    7,
                                             8,    9,    10,   11,   12,   13,   14,   15,
                                             0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                             0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};

static inline void words(const unsigned char *const *src, size_t len, __m256i *w)
{
    size_t full = len / 16, tail = len % 16, nw = (len + 3) / 4;
    for (size_t r = 0; r < full; r++)
        row_words(src, 16 * r, w + 4 * r);
    if (tail) {
        /* The key's last 16 bytes moved down so that byte 16 * full is
         * first (zeros past the key), then transposed. */
        __m256i mask = _mm256_broadcastsi128_si256(
            _mm_loadu_si128((const __m128i *)(const void *)(shift_down + 16 - tail)));
        __m256i r4[4];
        for (int i = 0; i < 4; i++)
            r4[i] = _mm256_shuffle_epi8(
                _mm256_inserti128_si256(
                    _mm256_castsi128_si256(
                        _mm_loadu_si128((const __m128i *)(const void *)(src[i] + len - 16))),
                    _mm_loadu_si128((const __m128i *)(const void *)(src[i + 4] + len - 16)), 1),
                mask);
        __m256i t0 = _mm256_unpacklo_epi32(r4[0], r4[1]), t1 = _mm256_unpackhi_epi32(r4[0], r4[1]);
        __m256i t2 = _mm256_unpacklo_epi32(r4[2], r4[3]), t3 = _mm256_unpackhi_epi32(r4[2], r4[3]);
        w[4 * full + 0] = _mm256_unpacklo_epi64(t0, t2);
        w[4 * full + 1] = _mm256_unpackhi_epi64(t0, t2);
        w[4 * full + 2] = _mm256_unpacklo_epi64(t1, t3);
        w[4 * full + 3] = _mm256_unpackhi_epi64(t1, t3);
    }
    for (size_t j = nw; j < nw + 3; j++)
        w[j] = _mm256_setzero_si256();
}

/* MurmurHash2 as libhashkit seeds it: h = (0xdeadbeef * len) ^ len. */
static void murmur(const void *const *keys, size_t len, size_t n, uint32_t *out)
{
    const unsigned char *src[PLC_BYTEHASH_LANES];
    for (size_t i = 0; i < PLC_BYTEHASH_LANES; i++)
        src[i] = i < n ? keys[i] : keys[0];
    __m256i w[SETS][MAX_WORDS + 4], h[SETS];
    const __m256i m = _mm256_set1_epi32(0x5bd1e995);
    for (int g = 0; g < SETS; g++) {
        words(src + 8 * g, len, w[g]);
        h[g] = _mm256_set1_epi32((int)((0xdeadbeefu * (uint32_t)len) ^ (uint32_t)len));
    }
    for (size_t j = 0; j < len / 4; j++)
        for (int g = 0; g < SETS; g++) {
            __m256i k = _mm256_mullo_epi32(w[g][j], m);
            k = _mm256_mullo_epi32(_mm256_xor_si256(k, _mm256_srli_epi32(k, 24)), m);
            h[g] = _mm256_xor_si256(_mm256_mullo_epi32(h[g], m), k);
        }
    uint32_t all[PLC_BYTEHASH_LANES];
    for (int g = 0; g < SETS; g++) {
        __m256i v = h[g];
        if (len % 4) /* the tail: its zero-filled word */
            v = _mm256_mullo_epi32(_mm256_xor_si256(v, w[g][len / 4]), m);
        v = _mm256_xor_si256(v, _mm256_srli_epi32(v, 13));
        v = _mm256_mullo_epi32(v, m);
        v = _mm256_xor_si256(v, _mm256_srli_epi32(v, 15));
        _mm256_storeu_si256((__m256i *)(void *)(all + 8 * g), v);
    }
    for (size_t i = 0; i < n; i++)
        out[i] = all[i];
}

#define ROT(x, k) _mm256_or_si256(_mm256_slli_epi32((x), (k)), _mm256_srli_epi32((x), 32 - (k)))
#define VSUB _mm256_sub_epi32
#define VADD _mm256_add_epi32
#define VXOR _mm256_xor_si256

/* lookup3 hashlittle(key, len, 13): blocks of 12 bytes while more than 12
 * remain, then the last 1..12 (zero-filled words) and the final mix. */
static void jenkins(const void *const *keys, size_t len, size_t n, uint32_t *out)
{
    const unsigned char *src[PLC_BYTEHASH_LANES];
    for (size_t i = 0; i < PLC_BYTEHASH_LANES; i++)
        src[i] = i < n ? keys[i] : keys[0];
    __m256i w[SETS][MAX_WORDS + 4];
    __m256i a[SETS], b[SETS], c[SETS];
    for (int g = 0; g < SETS; g++) {
        words(src + 8 * g, len, w[g]);
        a[g] = b[g] = c[g] = _mm256_set1_epi32((int)(0xdeadbeefu + (uint32_t)len + 13u));
    }
    size_t blocks = (len - 1) / 12; /* mixed ones; the last is final's */
    for (size_t q = 0; q <= blocks; q++)
        for (int g = 0; g < SETS; g++) {
            __m256i A = VADD(a[g], w[g][3 * q]), B = VADD(b[g], w[g][3 * q + 1]);
            __m256i C = VADD(c[g], w[g][3 * q + 2]);
            if (q < blocks) {
                A = VSUB(A, C); A = VXOR(A, ROT(C, 4)); C = VADD(C, B);
                B = VSUB(B, A); B = VXOR(B, ROT(A, 6)); A = VADD(A, C);
                C = VSUB(C, B); C = VXOR(C, ROT(B, 8)); B = VADD(B, A);
                A = VSUB(A, C); A = VXOR(A, ROT(C, 16)); C = VADD(C, B);
                B = VSUB(B, A); B = VXOR(B, ROT(A, 19)); A = VADD(A, C);
                C = VSUB(C, B); C = VXOR(C, ROT(B, 4)); B = VADD(B, A);
            } else {
                C = VXOR(C, B); C = VSUB(C, ROT(B, 14));
                A = VXOR(A, C); A = VSUB(A, ROT(C, 11));
                B = VXOR(B, A); B = VSUB(B, ROT(A, 25));
                C = VXOR(C, B); C = VSUB(C, ROT(B, 16));
                A = VXOR(A, C); A = VSUB(A, ROT(C, 4));
                B = VXOR(B, A); B = VSUB(B, ROT(A, 14));
                C = VXOR(C, B); C = VSUB(C, ROT(B, 24));
            }
            a[g] = A;
            b[g] = B;
            c[g] = C;
        }
    uint32_t all[PLC_BYTEHASH_LANES];
    for (int g = 0; g < SETS; g++)
        _mm256_storeu_si256((__m256i *)(void *)(all + 8 * g), c[g]);
    for (size_t i = 0; i < n; i++)
        out[i] = all[i];
}

/* fnv1_64 keeps the low 32 bits of a 64-bit FNV-1, and those depend only
 * on the low 32 bits before each step (a product's and an xor's low bits
 * come from the operands' low bits): 32-bit lanes with the constants
 * truncated, as twemproxy's fnv1a_64 computes outright. */
#define FNV1_64_32(s, c) ((s) = _mm256_xor_si256(MUL((s), 0x1b3u), (c)))
DEFINE_BYTEHASH(fnv1_64, sbyte, _mm256_set1_epi32((int)0x84222325u), FNV1_64_32, ID)

/* hsieh (Paul Hsieh's SuperFastHash as libhashkit has it): two 16-bit
 * halves of each 4-byte word, then a tail of len % 4 bytes (its third
 * byte sign-extended, as libhashkit reads a char) and the avalanche. */
static void hsieh(const void *const *keys, size_t len, size_t n, uint32_t *out)
{
    const unsigned char *src[PLC_BYTEHASH_LANES];
    for (size_t i = 0; i < PLC_BYTEHASH_LANES; i++)
        src[i] = i < n ? keys[i] : keys[0];
    __m256i w[SETS][MAX_WORDS + 4], h[SETS];
    const __m256i lo16 = _mm256_set1_epi32(0xffff);
    for (int g = 0; g < SETS; g++) {
        words(src + 8 * g, len, w[g]);
        h[g] = _mm256_setzero_si256();
    }
    for (size_t j = 0; j < len / 4; j++)
        for (int g = 0; g < SETS; g++) {
            __m256i v = _mm256_add_epi32(h[g], _mm256_and_si256(w[g][j], lo16));
            __m256i tmp = _mm256_xor_si256(_mm256_slli_epi32(_mm256_srli_epi32(w[g][j], 16), 11), v);
            v = _mm256_xor_si256(_mm256_slli_epi32(v, 16), tmp);
            h[g] = _mm256_add_epi32(v, _mm256_srli_epi32(v, 11));
        }
    uint32_t all[PLC_BYTEHASH_LANES];
    for (int g = 0; g < SETS; g++) {
        __m256i v = h[g], t = w[g][len / 4]; /* the tail, zero-filled */
        switch (len % 4) {
        case 3:
            v = _mm256_add_epi32(v, _mm256_and_si256(t, lo16));
            v = _mm256_xor_si256(v, _mm256_slli_epi32(v, 16));
            v = _mm256_xor_si256(v, _mm256_slli_epi32(_mm256_srai_epi32(_mm256_slli_epi32(t, 8), 24), 18));
            v = _mm256_add_epi32(v, _mm256_srli_epi32(v, 11));
            break;
        case 2:
            v = _mm256_add_epi32(v, _mm256_and_si256(t, lo16));
            v = _mm256_xor_si256(v, _mm256_slli_epi32(v, 11));
            v = _mm256_add_epi32(v, _mm256_srli_epi32(v, 17));
            break;
        case 1:
            v = _mm256_add_epi32(v, t); /* one byte, zero-filled above */
            v = _mm256_xor_si256(v, _mm256_slli_epi32(v, 10));
            v = _mm256_add_epi32(v, _mm256_srli_epi32(v, 1));
            break;
        default:
            break;
        }
        v = _mm256_xor_si256(v, _mm256_slli_epi32(v, 3));
        v = _mm256_add_epi32(v, _mm256_srli_epi32(v, 5));
        v = _mm256_xor_si256(v, _mm256_slli_epi32(v, 4));
        v = _mm256_add_epi32(v, _mm256_srli_epi32(v, 17));
        v = _mm256_xor_si256(v, _mm256_slli_epi32(v, 25));
        v = _mm256_add_epi32(v, _mm256_srli_epi32(v, 6));
        _mm256_storeu_si256((__m256i *)(void *)(all + 8 * g), v);
    }
    for (size_t i = 0; i < n; i++)
        out[i] = all[i];
}

/* haproxy's wt6: two words and two rotation counts a lane; vpsllvd and
 * vpsrlvd rotate each lane by its own count (a count of 0 rotates by 0:
 * the right shift by 32 gives 0, as the scalar form's rotl32 wants). */
typedef struct wt6v {
    __m256i h0, h1, s0, s1;
} wt6v;
#define WT6_INIT                                                                                  \
    ((wt6v){_mm256_set1_epi32((int)0xa53c965au), _mm256_set1_epi32(0x5ca6953a),                  \
            _mm256_set1_epi32(6), _mm256_set1_epi32(18)})
static inline __m256i rotv(__m256i x, __m256i k)
{
    return _mm256_or_si256(_mm256_sllv_epi32(x, k),
                           _mm256_srlv_epi32(x, _mm256_sub_epi32(_mm256_set1_epi32(32), k)));
}
#define WT6(s, c)                                                                                 \
    do {                                                                                          \
        const __m256i ones_ = _mm256_set1_epi32(-1);                                              \
        __m256i c_ = (c);                                                                         \
        __m256i h0_ = _mm256_xor_si256(_mm256_xor_si256((s).h0, c_), ones_);                      \
        __m256i h1_ = _mm256_xor_si256(_mm256_add_epi32((s).h1, c_), ones_);                      \
        (s).h0 = rotv(h1_, (s).s0);                                                               \
        (s).h1 = rotv(h0_, (s).s1);                                                               \
        __m256i t_ = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi32((s).h0, 16), (s).h1),    \
                                      _mm256_set1_epi32(0xffff));                                 \
        (s).s0 = _mm256_and_si256(t_, _mm256_set1_epi32(0x1f));                                   \
        (s).s1 = _mm256_srli_epi32(t_, 11);                                                       \
    } while (0)
#define WT6_FIN(s) _mm256_xor_si256((s).h0, (s).h1)
DEFINE_BYTEHASH_T(wt6, wt6v, zbyte, WT6_INIT, WT6, WT6_FIN)

plc_bytehash_fn plc_bytehash_avx2(int which)
{
    switch (which) {
    case PLC_BH_SDBM: return sdbm;
    case PLC_BH_DJB2: return djb2;
    case PLC_BH_FNV1A_32: return fnv1a_32;
    case PLC_BH_FNV1_32: return fnv1_32;
    case PLC_BH_FNV1A_64_32: return fnv1a_64_32;
    case PLC_BH_OAAT: return oaat;
    case PLC_BH_MURMUR: return murmur;
    case PLC_BH_JENKINS: return jenkins;
    case PLC_BH_FNV1_64: return fnv1_64;
    case PLC_BH_WT6: return wt6;
    case PLC_BH_HSIEH: return hsieh;
    default: return NULL;
    }
}
