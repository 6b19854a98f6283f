/*
 * dir_body.h -- the lookup of dir.h, single and batched, written once and
 * compiled per instruction set. Before including, define PLC_DIR_ONE,
 * PLC_DIR_BATCH (the function names) and PLC_DIR_TREE_ONE,
 * PLC_DIR_TREE_BATCH (the same instruction set's S+ tree kernels, for BIG
 * entries), optionally PLC_DIR_FIRST4 (the first pass of a group over four
 * queries in vector registers, see dir_avx2.c), and provide
 *   static inline uint32_t rank_leaf(const int64_t key[5], int64_t x);
 * counting the keys < x (x and keys sign-flipped, see stree.h).
 *
 * Batched: a group of queries reads its entries and answers those that
 * hold their owner; the others get their leaf lines prefetched together
 * and resolved, or go down the tree together: the misses of a group are in
 * flight at once instead of one after another. When the directory is
 * larger than the caches keep close, the next group's entries are
 * prefetched before each group.
 */
#include "dir.h"

#define PLC_DIR_GROUP 32u
/* A directory of at most this many bytes stays in L2: no entry prefetch. */
#define PLC_DIR_CACHED_BYTES (256u * 1024u)

/* Entry value L: the first token >= x (sign-flipped) in leaves L and L + 1. */
static inline uint32_t dir_leaf_owner(const plc_dir *d, uint32_t leaf, int64_t x)
{
    const plc_stree_leaf *lf = &d->leaves[leaf];
    uint32_t r = rank_leaf(lf->key, x);
    if (r == PLC_STREE_LEAF) {
        if (leaf + 1 >= d->nleaves)
            return d->wrap_owner;
        leaf++;
        lf++;
        r = rank_leaf(lf->key, x);
    }
    uint32_t o = lf->owner[r < PLC_STREE_LEAF ? r : 0];
    return leaf * PLC_STREE_LEAF + r < d->n ? o : d->wrap_owner;
}

/* A SPLIT entry's owner for hash bits r against its token's bits: the
 * token's own owner when r is lower, the next token's when higher. */
static inline uint32_t split_owner(uint32_t e, uint32_t r)
{
    uint32_t t = (e >> (2 * PLC_DIR_OBITS)) & PLC_DIR_SMASK;
    uint32_t lower = 0u - (uint32_t)(r < t);
    return ((e & lower) | ((e >> PLC_DIR_OBITS) & ~lower)) & PLC_DIR_OMASK;
}

uint32_t PLC_DIR_ONE(const plc_dir *d, uint64_t h)
{
    uint32_t e = d->entry[h >> d->shift];
    if (__builtin_expect((e & PLC_DIR_OWNER) != 0, 1))
        return e & ~PLC_DIR_OWNER;
    if (!(e & PLC_DIR_SPLIT))
        return dir_leaf_owner(d, e, (int64_t)(h ^ PLC_STREE_SIGN));
    uint32_t r = (uint32_t)(h >> d->rshift) & PLC_DIR_SMASK;
    if (__builtin_expect(e != PLC_DIR_BIG && r != ((e >> (2 * PLC_DIR_OBITS)) & PLC_DIR_SMASK), 1))
        return split_owner(e, r);
    return PLC_DIR_TREE_ONE(d->tree, h); /* crowded, or too close to call */
}

static inline uint32_t select_u32(uint32_t mask, uint32_t a, uint32_t b)
{
    return (a & mask) | (b & ~mask);
}

/* Entry value L in a batch: the ranks in both leaves (L + 1 clamped to the
 * last leaf, where a full last leaf ranks 5 again and so reads as the
 * wrap), then the owner picked by selects. */
static inline uint32_t dir_leaf_owner_nb(const plc_dir *d, uint32_t leaf, int64_t x)
{
    uint32_t next = leaf + (leaf + 1 < d->nleaves);
    uint32_t ra = rank_leaf(d->leaves[leaf].key, x), rb = rank_leaf(d->leaves[next].key, x);
    uint32_t in_a = 0u - (uint32_t)(ra < PLC_STREE_LEAF);
    uint32_t at = select_u32(in_a, leaf, next), r = select_u32(in_a, ra, rb);
    uint32_t o = d->leaves[at].owner[r % PLC_STREE_LEAF];
    return select_u32(0u - (uint32_t)(at * PLC_STREE_LEAF + r < d->n), o, d->wrap_owner);
}

/* One group. The first loop answers every query whose entry holds its
 * owner (OWNER, or SPLIT by its bits) with selects, no branch on the entry
 * kind (a random mix would mispredict), and lists the rest: leaf entries,
 * crowded ones, splits too close to call. The fields it reads are locals,
 * so stores to owners[] cannot force them to be reloaded. The few listed
 * queries then get their leaf lines prefetched and resolved, or go down
 * the tree together. */
static inline void dir_group(const plc_dir *d, const uint64_t *h, uint32_t g, uint32_t *owners)
{
    uint32_t e[PLC_DIR_GROUP], slow[PLC_DIR_GROUP], nslow = 0;
    const uint32_t *entry = d->entry;
    const uint32_t shift = d->shift, rshift = d->rshift;
    uint32_t q = 0;
#if defined(PLC_DIR_FIRST4)
    /* Four queries at a time in vector registers; the tail below. */
    for (; q + 4 <= g; q += 4) {
        uint32_t m = PLC_DIR_FIRST4(entry, h + q, shift, rshift, e + q, owners + q);
        for (uint32_t j = 0; j < 4; j++) {
            slow[nslow] = q + j;
            nslow += (m >> j) & 1;
        }
    }
#endif
    for (; q < g; q++) {
        uint64_t x = h[q];
        uint32_t v = entry[x >> shift];
        uint32_t r = (uint32_t)(x >> rshift) & PLC_DIR_SMASK;
        uint32_t t = (v >> (2 * PLC_DIR_OBITS)) & PLC_DIR_SMASK;
        e[q] = v;
        owners[q] = select_u32(0u - (v >> 31), v & ~PLC_DIR_OWNER, split_owner(v, r));
        slow[nslow] = q;
        nslow += (v < PLC_DIR_OWNER) & ((v < PLC_DIR_SPLIT) | (v == PLC_DIR_BIG) | (r == t));
    }
    if (!nslow)
        return;
    uint32_t big[PLC_DIR_GROUP], nbig = 0;
    for (uint32_t i = 0; i < nslow; i++)
        if (e[slow[i]] < PLC_DIR_SPLIT)
            __builtin_prefetch(&d->leaves[e[slow[i]]]);
    for (uint32_t i = 0; i < nslow; i++) {
        uint32_t k = slow[i];
        if (e[k] < PLC_DIR_SPLIT)
            owners[k] = dir_leaf_owner_nb(d, e[k], (int64_t)(h[k] ^ PLC_STREE_SIGN));
        else
            big[nbig++] = k;
    }
    if (nbig) { /* crowded entries, close calls: the tree's own lockstep descent */
        uint64_t big_h[PLC_DIR_GROUP];
        uint32_t big_o[PLC_DIR_GROUP];
        for (uint32_t i = 0; i < nbig; i++)
            big_h[i] = h[big[i]];
        PLC_DIR_TREE_BATCH(d->tree, big_h, nbig, big_o);
        for (uint32_t i = 0; i < nbig; i++)
            owners[big[i]] = big_o[i];
    }
}

void PLC_DIR_BATCH(const plc_dir *d, const uint64_t *h, size_t n, uint32_t *owners)
{
    size_t base = 0;
    if ((sizeof(uint32_t) << d->bits) > PLC_DIR_CACHED_BYTES) {
        /* The next group's entries are fetched while this group waits for
         * its leaves: two rounds of misses overlap instead of alternating. */
        const uint32_t *entry = d->entry;
        const uint32_t shift = d->shift;
        for (size_t q = 0; q < n && q < PLC_DIR_GROUP; q++)
            __builtin_prefetch(&entry[h[q] >> shift]);
        for (; base + PLC_DIR_GROUP <= n; base += PLC_DIR_GROUP) {
            size_t next = base + PLC_DIR_GROUP;
            size_t end = next + PLC_DIR_GROUP < n ? next + PLC_DIR_GROUP : n;
            for (size_t q = next; q < end; q++)
                __builtin_prefetch(&entry[h[q] >> shift]);
            dir_group(d, h + base, PLC_DIR_GROUP, owners + base);
        }
    } else {
        for (; base + PLC_DIR_GROUP <= n; base += PLC_DIR_GROUP)
            dir_group(d, h + base, PLC_DIR_GROUP, owners + base);
    }
    if (base < n)
        dir_group(d, h + base, (uint32_t)(n - base), owners + base);
}

#undef PLC_DIR_ONE
#undef PLC_DIR_BATCH
#undef PLC_DIR_TREE_ONE
#undef PLC_DIR_TREE_BATCH
