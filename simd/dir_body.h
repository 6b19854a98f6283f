/*
 * dir_body.h -- the lookup of dir.h, single and batched, written once and
 * compiled per instruction set. Before including, define PLC_DIR_ONE,
 * PLC_DIR_BATCH (the function names) and PLC_DIR_TREE_ONE,
 * PLC_DIR_TREE_BATCH (the same instruction set's S+ tree kernels, for BIG
 * entries), and provide
 *   static inline uint32_t rank_leaf(const int64_t key[5], int64_t x);
 * counting the keys < x (x and keys sign-flipped, see stree.h).
 *
 * Batched: a group of queries reads its entries, then prefetches the leaf
 * line of every entry that needs one, then resolves: the misses of a group
 * are in flight together instead of one after another. When the directory
 * is larger than the caches keep close, the next group's entries are
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

uint32_t PLC_DIR_ONE(const plc_dir *d, uint64_t h)
{
    uint32_t e = d->entry[h >> d->shift];
    if (__builtin_expect((e & PLC_DIR_OWNER) != 0, 1))
        return e & ~PLC_DIR_OWNER;
    if (__builtin_expect((e & PLC_DIR_BIG) != 0, 0))
        return PLC_DIR_TREE_ONE(d->tree, h);
    return dir_leaf_owner(d, e, (int64_t)(h ^ PLC_STREE_SIGN));
}

/* Entry value L for a batch, without a branch on the data: the ranks in
 * both leaves (L + 1 clamped to the last leaf, where a full last leaf ranks
 * 5 again and so reads as the wrap), then the owner picked by selects. */
static inline uint32_t dir_leaf_owner_nb(const plc_dir *d, uint32_t leaf, int64_t x)
{
    const plc_stree_leaf *a = &d->leaves[leaf];
    uint32_t next = leaf + 1 < d->nleaves ? leaf + 1 : leaf;
    const plc_stree_leaf *b = &d->leaves[next];
    uint32_t ra = rank_leaf(a->key, x), rb = rank_leaf(b->key, x);
    int in_a = ra < PLC_STREE_LEAF;
    uint32_t at = in_a ? leaf : next, r = in_a ? ra : rb;
    uint32_t o = d->leaves[at].owner[r < PLC_STREE_LEAF ? r : 0];
    return at * PLC_STREE_LEAF + r < d->n ? o : d->wrap_owner;
}

/* One group: read the entries and sort the queries into three lists
 * without branching on them (entries that answer alone, leaf entries,
 * crowded entries), prefetch the leaf lines of the second list, then
 * resolve each list in a loop of its own: a mix of entry kinds costs no
 * mispredicted branches. */
static inline void dir_group(const plc_dir *d, const uint64_t *h, uint32_t g, uint32_t *owners)
{
    uint32_t e[PLC_DIR_GROUP], leafq[PLC_DIR_GROUP], bigq[PLC_DIR_GROUP], nleaf = 0, nbig = 0;
    const uint32_t *entry = d->entry;
    uint32_t shift = d->shift;
    for (uint32_t q = 0; q < g; q++) {
        uint32_t v = entry[h[q] >> shift];
        e[q] = v;
        owners[q] = v & ~PLC_DIR_OWNER; /* final unless a list below rewrites it */
        leafq[nleaf] = q;
        nleaf += !(v & (PLC_DIR_OWNER | PLC_DIR_BIG));
        bigq[nbig] = q;
        nbig += v == PLC_DIR_BIG;
    }
    for (uint32_t i = 0; i < nleaf; i++)
        __builtin_prefetch(&d->leaves[e[leafq[i]]]);
    for (uint32_t i = 0; i < nleaf; i++) {
        uint32_t q = leafq[i];
        owners[q] = dir_leaf_owner_nb(d, e[q], (int64_t)(h[q] ^ PLC_STREE_SIGN));
    }
    if (nbig) { /* crowded entries: the tree's own lockstep descent */
        uint64_t big_h[PLC_DIR_GROUP];
        uint32_t big_o[PLC_DIR_GROUP];
        for (uint32_t i = 0; i < nbig; i++)
            big_h[i] = h[bigq[i]];
        PLC_DIR_TREE_BATCH(d->tree, big_h, nbig, big_o);
        for (uint32_t i = 0; i < nbig; i++)
            owners[bigq[i]] = big_o[i];
    }
}

void PLC_DIR_BATCH(const plc_dir *d, const uint64_t *h, size_t n, uint32_t *owners)
{
    size_t base = 0;
    if ((sizeof(uint32_t) << d->bits) > PLC_DIR_CACHED_BYTES) {
        /* The next group's entries are fetched while this group waits for
         * its leaves: two rounds of misses overlap instead of alternating. */
        for (size_t q = 0; q < n && q < PLC_DIR_GROUP; q++)
            __builtin_prefetch(&d->entry[h[q] >> d->shift]);
        for (; base + PLC_DIR_GROUP <= n; base += PLC_DIR_GROUP) {
            size_t next = base + PLC_DIR_GROUP, end = next + PLC_DIR_GROUP < n ? next + PLC_DIR_GROUP : n;
            for (size_t q = next; q < end; q++)
                __builtin_prefetch(&d->entry[h[q] >> d->shift]);
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
