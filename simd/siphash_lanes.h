/*
 * siphash_lanes.h -- SipHash across keys: one key per 64-bit lane of a
 * vector, PLC_SIP_LANES keys per group, the rounds of siphash.h on whole
 * vectors. Written once, included by each instruction set's file, which
 * defines before including:
 *   PLC_SIP_LANES                 2, 4 or 8;
 *   PLC_SIP_NAME13, PLC_SIP_NAME24  the batch functions' names;
 *   sipv                          the vector type;
 *   v_add, v_xor, v_set1          lane-wise add / xor, broadcast;
 *   v_rotl13, 16, 17, 21, 32      lane-wise rotations (constant counts);
 *   v_from(const uint64_t w[L])   lane i = w[i];
 *   v_store(uint64_t w[L], v)     w[i] = lane i;
 *   v_words(p, off)               lane i = the 8 bytes at p[i] + off;
 *   v_words4(p, off, m)           m[t] = v_words(p, off + 8 t), t < 4,
 *                                 by loading and transposing 32-byte rows.
 *
 * A group absorbs, on all lanes at once, the full words every lane has
 * (the shortest key's); when all lanes have the same length -- fixed-size
 * keys, the usual case -- the last word and the finalisation run on the
 * vectors too. Otherwise each lane's state is stored and finished by the
 * scalar plc_sip_resume. A last group of fewer than PLC_SIP_LANES keys is
 * padded with copies of its first key; only real lanes are written.
 */
#include "siphash.h"

static inline void lanes_round(sipv *v0, sipv *v1, sipv *v2, sipv *v3)
{
    *v0 = v_add(*v0, *v1);
    *v1 = v_rotl13(*v1);
    *v1 = v_xor(*v1, *v0);
    *v0 = v_rotl32(*v0);
    *v2 = v_add(*v2, *v3);
    *v3 = v_rotl16(*v3);
    *v3 = v_xor(*v3, *v2);
    *v0 = v_add(*v0, *v3);
    *v3 = v_rotl21(*v3);
    *v3 = v_xor(*v3, *v0);
    *v2 = v_add(*v2, *v1);
    *v1 = v_rotl17(*v1);
    *v1 = v_xor(*v1, *v2);
    *v2 = v_rotl32(*v2);
}

#define LANES_COMPRESS(m)                           \
    do {                                            \
        sipv m_ = (m);                              \
        v3 = v_xor(v3, m_);                         \
        for (int r_ = 0; r_ < c_rounds; r_++)       \
            lanes_round(&v0, &v1, &v2, &v3);        \
        v0 = v_xor(v0, m_);                         \
    } while (0)

static inline void lanes_group(const plc_hash_key *k, const unsigned char *const p[PLC_SIP_LANES],
                               const size_t lens[PLC_SIP_LANES], uint64_t *out, size_t valid,
                               int c_rounds, int d_rounds)
{
    size_t words = lens[0] / 8;
    int same = 1;
    for (int i = 1; i < PLC_SIP_LANES; i++) {
        same &= lens[i] == lens[0];
        words = lens[i] / 8 < words ? lens[i] / 8 : words;
    }
    sipv v0 = v_set1(k->k0 ^ PLC_SIP_C0), v1 = v_set1(k->k1 ^ PLC_SIP_C1);
    sipv v2 = v_set1(k->k0 ^ PLC_SIP_C2), v3 = v_set1(k->k1 ^ PLC_SIP_C3);
    size_t j = 0;
    for (; j + 4 <= words; j += 4) {
        sipv m[4];
        v_words4(p, 8 * j, m);
        LANES_COMPRESS(m[0]);
        LANES_COMPRESS(m[1]);
        LANES_COMPRESS(m[2]);
        LANES_COMPRESS(m[3]);
    }
    for (; j < words; j++)
        LANES_COMPRESS(v_words(p, 8 * j));
    uint64_t w[PLC_SIP_LANES];
    if (same) {
        for (int i = 0; i < PLC_SIP_LANES; i++)
            w[i] = plc_sip_last_word(p[i], lens[i]);
        LANES_COMPRESS(v_from(w));
        v2 = v_xor(v2, v_set1(0xff));
        for (int r = 0; r < d_rounds; r++)
            lanes_round(&v0, &v1, &v2, &v3);
        v_store(w, v_xor(v_xor(v0, v1), v_xor(v2, v3)));
        for (size_t i = 0; i < valid; i++)
            out[i] = w[i];
        return;
    }
    uint64_t s0[PLC_SIP_LANES], s1[PLC_SIP_LANES], s2[PLC_SIP_LANES], s3[PLC_SIP_LANES];
    v_store(s0, v0);
    v_store(s1, v1);
    v_store(s2, v2);
    v_store(s3, v3);
    for (size_t i = 0; i < valid; i++) {
        plc_sip_state s = {s0[i], s1[i], s2[i], s3[i]};
        out[i] = plc_sip_resume(s, p[i], lens[i], words, c_rounds, d_rounds);
    }
}

#undef LANES_COMPRESS

static inline void lanes_batch(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                               size_t n, uint64_t *out, int c_rounds, int d_rounds)
{
    const unsigned char *p[PLC_SIP_LANES];
    size_t l[PLC_SIP_LANES];
    for (size_t i = 0; i < n; i += PLC_SIP_LANES) {
        size_t valid = n - i < PLC_SIP_LANES ? n - i : PLC_SIP_LANES;
        for (size_t t = 0; t < PLC_SIP_LANES; t++) {
            size_t at = i + (t < valid ? t : 0);
            p[t] = keys[at];
            l[t] = lens[at];
        }
        lanes_group(k, p, l, out + i, valid, c_rounds, d_rounds);
    }
}

void PLC_SIP_NAME13(const plc_hash_key *k, const void *const *keys, const size_t *lens, size_t n,
                    uint64_t *out)
{
    lanes_batch(k, keys, lens, n, out, 1, 3);
}

void PLC_SIP_NAME24(const plc_hash_key *k, const void *const *keys, const size_t *lens, size_t n,
                    uint64_t *out)
{
    lanes_batch(k, keys, lens, n, out, 2, 4);
}
