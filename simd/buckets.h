/*
 * buckets.h -- the ring's "buckets" layout: one 64-byte line
 * answers "which token follows h, and whose is it?" for nearly every hash,
 * with the S+ tree (stree.h) behind it for the rest.
 *
 * 2^b lines; line i covers the hashes whose top b bits are i, and holds
 *   suf[16]  the 16 hash bits below the top b of each token inside that
 *            range, in order, biased (^ 0x8000) so that a signed 16-bit
 *            compare orders them; unused lanes are INT16_MAX;
 *   own[16]  own[j] is the owner of token (base + j) mod n (base: the
 *            line's first token, below), for every lane: own[k] (k tokens
 *            inside) is the owner of the first token past the range, or
 *            of token 0 past the end (the wrap), and the lanes past k
 *            look ahead to the tokens after it. A lookup reads own[r],
 *            r <= k; the replica line sets (engine/core/replica_lines.c)
 *            name a set's other nodes by their lanes.
 * A hash's suffix q (its same 16 bits, biased) ranks against the line in
 * one compare: r = #{suf[j] < q} = popcount(movemask(cmpgt16(q, suf))) / 2
 * (two mask bits a lane), and the owner is own[r]. No branch decodes it.
 *
 * Two cases cannot be decided from the line, and take the tree instead:
 *   - q equals a suffix (the token and the hash agree on b + 16 bits; about
 *     k / 65,536 of the line's hashes, and q == INT16_MAX against padding);
 *   - a crowded line (16 tokens or more in the range: rare for a random
 *     ring, all of them for a hostile one): every own[] is PLC_BKT_ASK_TREE.
 * Owners are 16 bits, and PLC_BKT_ASK_TREE (0xFFFF) is also node 65,535:
 * the one owner value that sends a key down the tree whoever owns it, so
 * the largest node's keys (1 / 65,536 of a ring of 65,536 equal nodes) take
 * the tree as well and are answered right, and no owner lane is given up
 * for the marker. Rings of more than PLC_BKT_MAX_NODES nodes keep the
 * radix directory (dir.h). Answers are exactly the tree's (lower_bound with wrap, then
 * owner): the tree stays the one full copy of tokens and owners.
 *
 * Behind the lines, base[i] is the index of line i's first token (of the
 * first token past its range when it holds none): the token a hash's
 * lookup stops at is base[i] + r (n wraps to 0), so replica walks, which
 * start from that token, find it from the same line (plc_bkt_index_*)
 * instead of the tree's descent; ties and crowded lines take the tree.
 *
 * b = ceil(log2(n / 8)) (4..8 tokens a line on average, crowded lines
 * about 0.2% of a random ring's), one less when the lines and the tree
 * would pass 2.5x the 12 bytes a token of plain sorted tokens and owners;
 * 2^b * 68 bytes (lines and bases) is 8.5..17 bytes a token. Building writes into memory the
 * caller provides (no allocation in simd/), in O(n + 2^b); the decoder
 * rebuilds it from the tokens, as every layout.
 */
#ifndef PLC_SIMD_BUCKETS_H
#define PLC_SIMD_BUCKETS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "stree.h"

#define PLC_BKT_LANES 16u
#define PLC_BKT_ASK_TREE 0xFFFFu
#define PLC_BKT_MAX_NODES 65536u /* owners 0 .. 65,535 (65,535 asks the tree) */
#define PLC_BKT_PAD INT16_MAX
/* Below this many tokens the tree is a few lines in L1: no buckets. */
#define PLC_BKT_MIN_TOKENS 64u
#define PLC_BKT_MAX_BITS 28u

typedef struct plc_bkt_line {
    int16_t suf[PLC_BKT_LANES];
    uint16_t own[PLC_BKT_LANES];
} plc_bkt_line;

typedef struct plc_bkt {
    const plc_bkt_line *line; /* 2^bits lines, 64-byte aligned */
    uint32_t bits;            /* b */
    uint32_t shift;           /* 64 - b: h >> shift is the line */
    uint32_t sshift;          /* 48 - b: (h >> sshift) & 0xFFFF is the suffix */
    uint32_t ncrowded;        /* crowded lines (statistics) */
    const uint32_t *base;     /* 2^bits first-token indexes, after the lines */
    const plc_stree *tree;    /* the fallback; must outlive the lines */
} plc_bkt;

/* The hash's 16 bits below the line's, biased like the line's suffixes. */
static inline int16_t plc_bkt_suffix(uint64_t h, uint32_t sshift)
{
    return (int16_t)((int32_t)((h >> sshift) & 0xFFFFu) - 0x8000);
}

/* #{suf[j] < q} by plain compares: the lanes are sorted and lane 15 is
 * always padding (a line of 16 tokens or more is crowded, every lane
 * padding), so it is a branch-free binary search of four steps over lanes
 * 0..15, at most 15. The scalar
 * kernels' rank, and the replica line sets' (engine/core/replicas.c). */
static inline uint32_t plc_bkt_rank_plain(const plc_bkt_line *l, int16_t q)
{
    uint32_t r = 0;
    r += (uint32_t)(l->suf[r + 7] < q) * 8;
    r += (uint32_t)(l->suf[r + 3] < q) * 4;
    r += (uint32_t)(l->suf[r + 1] < q) * 2;
    r += (uint32_t)(l->suf[r] < q);
    return r;
}

/* The line count in bits for n tokens whose S+ tree takes tree_bytes, or 0
 * when the layout does not pay (n below PLC_BKT_MIN_TOKENS) or cannot hold
 * the owners (nnodes above PLC_BKT_MAX_NODES). */
uint32_t plc_bkt_choose_bits(uint32_t n, uint32_t nnodes, size_t tree_bytes);

/* Bytes of 2^bits lines and their first-token indexes. */
size_t plc_bkt_bytes(uint32_t bits);

/* Fill `mem` (plc_bkt_bytes(bits), 64-byte aligned) with the lines of the
 * built tree t (t->n >= 1, every owner at most PLC_BKT_ASK_TREE) and describe
 * them in *k, which keeps a pointer to t. */
void plc_bkt_build(plc_bkt *k, const plc_stree *t, uint32_t bits, void *mem);

/* One hash; a batch of hashes; and, hashing with placer-v2 (seed) in the
 * same pass, a batch of keys and one key. The key batch checks its keys
 * first: it returns -1, and writes no owner, when a key is NULL with a
 * nonzero length; else 0. */
typedef uint32_t (*plc_bkt_fn)(const plc_bkt *k, uint64_t h);
typedef void (*plc_bkt_batch_fn)(const plc_bkt *k, const uint64_t *h, size_t n, uint32_t *owners);
typedef int (*plc_bkt_key_batch_fn)(const plc_bkt *k, uint64_t seed, const void *const *keys,
                                    const size_t *lens, size_t n, uint32_t *owners);
typedef uint32_t (*plc_bkt_key_fn)(const plc_bkt *k, uint64_t seed, const void *key, size_t len);
/* The index of the first token >= h (0 past the last), as
 * plc_stree_index_* gives it: the line's base and rank, else the tree. */
typedef uint32_t (*plc_bkt_index_fn)(const plc_bkt *k, uint64_t h);
/* Replica sets from the lines and the compact line sets beside them
 * (engine/core/replica_lines.c), hashing with placer-v2 (seed). Line i's
 * sets are the 16 bytes sets[16 * i ...]: byte r, for a hash of rank r,
 * is a | b << 4, the lanes of line i whose owners are the set's second
 * and third nodes (own[a], own[b]; the first is own[r]), or spilled into
 * the bytes past the line's ranks (plc_bkt_set_write): lane r (own[r]'s,
 * which no set names) for the line's spill word, a == b for a record of
 * both nodes at byte a; 0xFF when the line cannot answer (a crowded line's
 * rank is always 0, its byte 0 0xFF). One key: its set's w (1..3) nodes
 * into out, returning w, or 0 when the lines cannot answer (the caller
 * takes its exact sets). A
 * batch: each key's set at out + i * want and counts[i] = its nodes; the
 * keys the lines cannot answer take the per-slot sets rep (rep_r nodes a
 * token slot, UINT32_MAX-padded), their slot the line's first-token index
 * and rank, in a crowded line of up to PLC_BKT_CROWD_MAX tokens its first
 * token's index and the count of its tokens below the hash (read from the
 * tree's leaves, which hold them in a row), else (ties, lines past
 * PLC_BKT_CROWD_MAX tokens) the tree's descent. Returns -1, and writes
 * nothing, when a key is NULL with a nonzero length, else 0. */
#define PLC_BKT_CROWD_MAX 27u
#define PLC_BKT_SET_NONE 0xFFu

/* The byte of a line's 16 where its spill word starts (replica_lines.c). */
#define PLC_BKT_SET_WORD 14u
/* A crowded line's 16 bytes: byte 0 (its rank's) PLC_BKT_SET_NONE, then
 * at byte 2 + 2j (j < PLC_BKT_CROWD_PIVOTS) the suffix (biased, as the
 * lines') of its token 4j + 3, PLC_BKT_PAD past its tokens: a hash's
 * suffix against them leaves 3 of its tokens to read (replica_lines.c). */
#define PLC_BKT_CROWD_PIVOTS 6u

/* Write the w (1..3) nodes of the set of rank r of line l, whose owner
 * (own[r]) is o and whose byte of the line sets (16 bytes at `sets`) is
 * e, not PLC_BKT_SET_NONE: o, then the nodes e = a | b << 4 names: own[a]
 * and own[b]; a lane r (which none names: own[r] leads the set) the
 * line's spill word, the 16-bit node at byte PLC_BKT_SET_WORD; one lane
 * twice (a == b, past the line's ranks) a record, the two nodes as 16-bit
 * words at that byte. */
static inline void plc_bkt_set_write(const plc_bkt_line *l, const uint8_t *sets, uint32_t r,
                                     uint32_t o, uint32_t e, uint32_t w, uint32_t *out)
{
    uint32_t a = e & 15u, b = e >> 4, second = l->own[a], third = l->own[b];
    if (__builtin_expect(a == b || a == r || b == r, 0)) {
        uint16_t v[2];
        if (a == b) { /* a record */
            memcpy(v, sets + a, sizeof v);
            second = v[0];
            third = v[1];
        } else { /* the spill word for the second node or the third */
            memcpy(v, sets + PLC_BKT_SET_WORD, sizeof v[0]);
            second = a == r ? v[0] : second;
            third = b == r ? v[0] : third;
        }
    }
    out[0] = o;
    if (w > 1)
        out[1] = second;
    if (w > 2)
        out[2] = third;
}
typedef uint32_t (*plc_bkt_key_set_fn)(const plc_bkt *k, const uint8_t *sets, uint64_t seed,
                                       const void *key, size_t len, uint32_t w, uint32_t *out);
typedef struct plc_bkt_sets_job {
    const uint8_t *sets;
    const uint32_t *rep; /* the per-slot sets, rep_r nodes a slot */
    uint64_t seed;
    uint32_t w, want, rep_r;
    uint32_t *out, *counts;
} plc_bkt_sets_job;
typedef int (*plc_bkt_key_sets_fn)(const plc_bkt *k, const plc_bkt_sets_job *j,
                                   const void *const *keys, const size_t *lens, size_t n);

#define PLC_BKT_DECLARE(isa)                                                                   \
    uint32_t plc_bkt_##isa(const plc_bkt *k, uint64_t h);                                      \
    void plc_bkt_batch_##isa(const plc_bkt *k, const uint64_t *h, size_t n, uint32_t *owners); \
    int plc_bkt_key_batch_##isa(const plc_bkt *k, uint64_t seed, const void *const *keys,      \
                                const size_t *lens, size_t n, uint32_t *owners);               \
    uint32_t plc_bkt_key_##isa(const plc_bkt *k, uint64_t seed, const void *key, size_t len);  \
    uint32_t plc_bkt_index_##isa(const plc_bkt *k, uint64_t h);                                \
    uint32_t plc_bkt_key_set_##isa(const plc_bkt *k, const uint8_t *sets, uint64_t seed,       \
                                   const void *key, size_t len, uint32_t w, uint32_t *out);    \
    int plc_bkt_key_sets_##isa(const plc_bkt *k, const plc_bkt_sets_job *j,                   \
                               const void *const *keys, const size_t *lens, size_t n)

PLC_BKT_DECLARE(scalar);
#if defined(PLC_HAVE_SIMD128)
PLC_BKT_DECLARE(simd128);
#endif
#if defined(PLC_HAVE_AVX2)
PLC_BKT_DECLARE(avx2);
#endif
#if defined(PLC_HAVE_AVX512)
PLC_BKT_DECLARE(avx512);
#endif

#endif
