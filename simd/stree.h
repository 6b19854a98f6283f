/*
 * stree.h -- the search layout of a ring: a static B-tree ("S+ tree") whose
 * every node is one 64-byte cache line.
 *
 *   internal node: 8 separator keys; child i of node j is node 9j + i of the
 *                  next level. Separator i is the largest key in child i's
 *                  subtree, so "separator < x" means "nothing >= x in there,
 *                  go right": the descent always ends in the leaf that holds
 *                  the first key >= x (lower_bound), never one before it.
 *   leaf:          5 keys and their 5 owners in the same line, so a ring far
 *                  larger than the caches pays no second miss for the owner.
 *
 * Keys are stored with the sign bit flipped (h ^ 2^63, as int64_t), so the
 * signed 64-bit compares of SSE4.2 (pcmpgtq), AVX2 and AVX-512 order them as
 * unsigned. Missing keys (past the end) are INT64_MAX, which no query is
 * greater than, so padding never wins a compare.
 *
 * Every kernel returns the owner of the first token >= h, or of token 0 when
 * there is none (the wrap): exactly lower_bound-with-wrap, then owner.
 *
 * Memory: leaves 12.8 bytes per token, internal nodes about 1/45 of a line
 * per token (1.4 bytes): about 1.2x the 12 bytes of plain sorted tokens and
 * owners. Building writes into memory the caller provides (no allocation in
 * simd/).
 */
#ifndef PLC_SIMD_STREE_H
#define PLC_SIMD_STREE_H

#include <stddef.h>
#include <stdint.h>

#define PLC_STREE_KEYS 8u   /* separators per internal node */
#define PLC_STREE_FANOUT 9u /* children per internal node */
#define PLC_STREE_LEAF 5u   /* tokens (and owners) per leaf */
#define PLC_STREE_MAX_LEVELS 12u
#define PLC_STREE_SIGN UINT64_C(0x8000000000000000)

typedef struct plc_stree_node {
    int64_t key[PLC_STREE_KEYS];
} plc_stree_node;

typedef struct plc_stree_leaf {
    int64_t key[PLC_STREE_LEAF];
    uint32_t owner[PLC_STREE_LEAF];
    uint32_t pad_;
} plc_stree_leaf;

typedef struct plc_stree {
    const plc_stree_node *level[PLC_STREE_MAX_LEVELS]; /* internal levels, root first */
    uint32_t level_nodes[PLC_STREE_MAX_LEVELS];
    uint32_t nlevels; /* internal levels; 0 when there is one leaf */
    uint32_t nleaves;
    uint32_t n; /* tokens */
    uint32_t wrap_owner; /* owner of token 0 */
    const plc_stree_leaf *leaves;
} plc_stree;

/* Bytes of internal nodes and of leaves for n >= 1 tokens. Returns the
 * number of internal levels. */
uint32_t plc_stree_size(uint32_t n, size_t *node_bytes, size_t *leaf_bytes);

/* Lay out n >= 1 sorted tokens and their owners into `nodes` (node_bytes,
 * 64-byte aligned) and `leaves` (leaf_bytes, 64-byte aligned), and describe
 * the result in *t. Token i is the uint64_t at (const char *)tokens +
 * i * token_stride, its owner the uint32_t at (const char *)owners +
 * i * owner_stride: plain arrays (strides 8 and 4) and arrays of structs
 * (the struct's size, twice) are laid out alike, without a copy. The
 * tokens are read once, in order, before the internal nodes are written:
 * they may lie in the leaves' own memory when each token (and its owner) is
 * at or past the byte of its leaf slot, as 16-byte entries starting at
 * `leaves` are (a leaf line holds 5 tokens in 64 bytes, 5 entries take 80),
 * so a snapshot is built from tokens sorted where its leaves go. */
void plc_stree_build(plc_stree *t, const void *tokens, size_t token_stride, const void *owners,
                     size_t owner_stride, uint32_t n, void *nodes, void *leaves);

/* Token i (sorted order) and its owner; i < t->n. */
static inline uint64_t plc_stree_token(const plc_stree *t, uint32_t i)
{
    return (uint64_t)t->leaves[i / PLC_STREE_LEAF].key[i % PLC_STREE_LEAF] ^ PLC_STREE_SIGN;
}
static inline uint32_t plc_stree_owner_at(const plc_stree *t, uint32_t i)
{
    return t->leaves[i / PLC_STREE_LEAF].owner[i % PLC_STREE_LEAF];
}

typedef uint32_t (*plc_stree_fn)(const plc_stree *t, uint64_t h);
typedef void (*plc_stree_batch_fn)(const plc_stree *t, const uint64_t *h, size_t n,
                                   uint32_t *owners);
/* Fused: hash with placer_hash64 (placer-v2) and descend, in one call. */
typedef uint32_t (*plc_stree_key_fn)(const plc_stree *t, uint64_t seed, const void *key, size_t len);
typedef void (*plc_stree_key_batch_fn)(const plc_stree *t, uint64_t seed, const void *const *keys,
                                       const size_t *lens, size_t n, uint32_t *owners);

#define PLC_STREE_DECLARE(isa)                                                                 \
    uint32_t plc_stree_##isa(const plc_stree *t, uint64_t h);                                  \
    uint32_t plc_stree_index_##isa(const plc_stree *t, uint64_t h);                            \
    void plc_stree_batch_##isa(const plc_stree *t, const uint64_t *h, size_t n,               \
                               uint32_t *owners);                                              \
    uint32_t plc_stree_key_##isa(const plc_stree *t, uint64_t seed, const void *key, size_t len); \
    void plc_stree_key_batch_##isa(const plc_stree *t, uint64_t seed, const void *const *keys,  \
                                   const size_t *lens, size_t n, uint32_t *owners)

PLC_STREE_DECLARE(scalar);
#if defined(PLC_HAVE_SIMD128)
PLC_STREE_DECLARE(simd128);
#endif
#if defined(PLC_HAVE_AVX2)
PLC_STREE_DECLARE(avx2);
#endif
#if defined(PLC_HAVE_AVX512)
PLC_STREE_DECLARE(avx512);
#endif

#endif
