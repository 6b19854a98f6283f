/*
 * dir.h -- an exact first-level radix directory in front of the S+ tree
 * (stree.h): the ring's answer to "which token follows h?" in one read for
 * most hashes, the way DIR-24-8 / DPDK's LPM answer a route lookup.
 *
 * 2^bits 32-bit entries; entry e covers the hashes whose top `bits` bits
 * are e. Let lo..hi-1 be the tokens inside that range (hi: the first token
 * past it, or n). An entry is one of
 *   OWNER | o   every hash of the range has owner o: no token falls inside
 *               (o is the owner of token hi, or of token 0 past the end), or
 *               every token lo..hi has owner o. One read answers.
 *   SPLIT       one token t inside (hi == lo + 1) and both owners below
 *               1,024: the owners of t and of the token after it (10 bits
 *               each), and the 10 bits of t below the entry's bits. A hash
 *               whose same bits are lower or higher is decided in the same
 *               read; an equal one (a chance of 2^-10) takes the tree.
 *   L           tokens lo..hi all lie in S+ tree leaves L and L+1 (or hi is
 *               the end of the ring inside them): the rank of h in leaf L,
 *               and in L+1 when all five keys of L are below h, gives the
 *               first token >= h. Leaf keys before lo are below the range
 *               and keys from hi on are above it, so counting the keys < h
 *               over the whole leaf line is exact: a short SIMD compare.
 *   BIG         more tokens than two leaves hold (a crowded range: a hostile
 *               ring puts all its tokens in one entry): the full S+ tree
 *               descent, vectorised and logarithmic, never a linear scan.
 * Answers are exactly the tree's (lower_bound with wrap, then owner), and
 * the tree's leaves stay the one copy of tokens and owners: the directory
 * adds 4 bytes per entry and nothing else.
 *
 * Memory: plc_dir_choose_bits keeps tree + directory within 2x the 12 bytes
 * per token of plain sorted tokens and owners. Building writes into memory
 * the caller provides (no allocation in simd/), in O(n + 2^bits).
 */
#ifndef PLC_SIMD_DIR_H
#define PLC_SIMD_DIR_H

#include <stddef.h>
#include <stdint.h>

#include "stree.h"

/* Entry kinds by their top bits: 1x OWNER, 00 L, 01 SPLIT, except BIG. */
#define PLC_DIR_OWNER UINT32_C(0x80000000) /* the low 31 bits are the owner */
#define PLC_DIR_SPLIT UINT32_C(0x40000000) /* token bits | owner after | owner at */
#define PLC_DIR_BIG UINT32_C(0x7FFFFFFF)   /* search the whole tree */
#define PLC_DIR_OBITS 10u /* bits of an owner in a SPLIT entry */
#define PLC_DIR_SBITS 10u /* bits of the token in a SPLIT entry */
#define PLC_DIR_OMASK ((UINT32_C(1) << PLC_DIR_OBITS) - 1)
#define PLC_DIR_SMASK ((UINT32_C(1) << PLC_DIR_SBITS) - 1)
#define PLC_DIR_MAX_BITS 30u
/* Below this many tokens the tree is a line or two in L1: no directory. */
#define PLC_DIR_MIN_TOKENS 64u

typedef struct plc_dir {
    const uint32_t *entry; /* 2^bits entries */
    uint32_t bits;         /* 1..PLC_DIR_MAX_BITS */
    uint32_t shift;        /* 64 - bits */
    uint32_t rshift;       /* h >> rshift & PLC_DIR_SMASK: the bits SPLIT entries keep */
    /* copied from the tree, so a lookup reads one struct */
    const plc_stree_leaf *leaves;
    uint32_t n, nleaves, wrap_owner;
    uint32_t nbig;   /* BIG entries (statistics) */
    uint32_t nowner; /* OWNER entries */
    uint32_t nsplit; /* SPLIT entries */
    const plc_stree *tree; /* for BIG entries; must outlive the directory */
} plc_dir;

/* The directory's size in bits for a ring of n tokens whose S+ tree takes
 * tree_bytes (internal nodes + leaves): the largest power of two whose
 * entries keep tree + directory <= 2 * 12 * n bytes, at most
 * PLC_DIR_MAX_BITS. 0 when the directory does not pay (n below
 * PLC_DIR_MIN_TOKENS) or does not fit the budget with at least 2^8 entries. */
uint32_t plc_dir_choose_bits(uint32_t n, size_t tree_bytes);

/* Bytes of the entries of a directory of `bits` bits (1..PLC_DIR_MAX_BITS). */
size_t plc_dir_bytes(uint32_t bits);

/* Fill `mem` (plc_dir_bytes(bits), 64-byte aligned) with the directory of
 * the built tree t (t->n >= 1) and describe it in *d. d keeps pointers to t
 * and its leaves: both must outlive d. */
void plc_dir_build(plc_dir *d, const plc_stree *t, uint32_t bits, void *mem);

typedef uint32_t (*plc_dir_fn)(const plc_dir *d, uint64_t h);
typedef void (*plc_dir_batch_fn)(const plc_dir *d, const uint64_t *h, size_t n, uint32_t *owners);

#define PLC_DIR_DECLARE(isa)                                  \
    uint32_t plc_dir_##isa(const plc_dir *d, uint64_t h);     \
    void plc_dir_batch_##isa(const plc_dir *d, const uint64_t *h, size_t n, uint32_t *owners)

PLC_DIR_DECLARE(scalar);
#if defined(PLC_HAVE_SIMD128)
PLC_DIR_DECLARE(simd128);
#endif
#if defined(PLC_HAVE_AVX2)
PLC_DIR_DECLARE(avx2);
#endif
#if defined(PLC_HAVE_AVX512)
PLC_DIR_DECLARE(avx512);
#endif

#endif
