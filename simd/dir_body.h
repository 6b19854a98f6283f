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

/* A SPLIT entry's token bits, and the same bits of h. */
static inline uint32_t split_token(const plc_dir *d, uint32_t e)
{
    return (e >> (2 * d->obits)) & ((UINT32_C(1) << d->sbits) - 1);
}
static inline uint32_t split_hash(const plc_dir *d, uint64_t h)
{
    return (uint32_t)((h << d->bits) >> (64 - d->sbits));
}
/* The owner at (r < t) or after (r > t) a SPLIT entry's token. */
static inline uint32_t split_owner(const plc_dir *d, uint32_t e, uint32_t r, uint32_t t)
{
    uint32_t mask = (UINT32_C(1) << d->obits) - 1;
    return r < t ? e & mask : (e >> d->obits) & mask;
}

uint32_t PLC_DIR_ONE(const plc_dir *d, uint64_t h)
{
    uint32_t e = d->entry[h >> d->shift];
    if (__builtin_expect((e & PLC_DIR_OWNER) != 0, 1))
        return e & ~PLC_DIR_OWNER;
    if (!(e & PLC_DIR_SPLIT))
        return dir_leaf_owner(d, e, (int64_t)(h ^ PLC_STREE_SIGN));
    if (e != PLC_DIR_BIG) {
        uint32_t r = split_hash(d, h), t = split_token(d, e);
        if (__builtin_expect(r != t, 1))
            return split_owner(d, e, r, t);
    }
    return PLC_DIR_TREE_ONE(d->tree, h); /* crowded, or too close to call */
}

/* The fields a batch reads, copied into locals once: stores to owners[]
 * could alias the directory otherwise, and every field would be reloaded
 * per query. Masks are all-ones or zero: selects without branches, which a
 * random mix of entry kinds would mispredict. */
typedef struct dir_consts {
    const uint32_t *entry;
    const plc_stree_leaf *leaves;
    uint32_t shift, bits, sshift, smask, obits, omask, n, last_leaf, wrap;
} dir_consts;

static inline uint32_t select_u32(uint32_t mask, uint32_t a, uint32_t b)
{
    return (a & mask) | (b & ~mask);
}

/* Entry value L: the ranks in both leaves (L + 1 clamped to the last leaf,
 * where a full last leaf ranks 5 again and so reads as the wrap), then the
 * owner picked by selects. */
static inline uint32_t dir_leaf_owner_nb(const dir_consts *c, uint32_t leaf, int64_t x)
{
    uint32_t next = leaf + (leaf < c->last_leaf);
    uint32_t ra = rank_leaf(c->leaves[leaf].key, x), rb = rank_leaf(c->leaves[next].key, x);
    uint32_t in_a = 0u - (uint32_t)(ra < PLC_STREE_LEAF);
    uint32_t at = select_u32(in_a, leaf, next), r = select_u32(in_a, ra, rb);
    uint32_t o = c->leaves[at].owner[r % PLC_STREE_LEAF];
    return select_u32(0u - (uint32_t)(at * PLC_STREE_LEAF + r < c->n), o, c->wrap);
}

/* One group: read the entries and sort the queries into three lists
 * without branching on them (entries that answer alone or by their split,
 * leaf entries, crowded entries and splits too close to call), prefetch the
 * leaf lines of the second list, then resolve each list in a loop of its
 * own. */
static inline void dir_group(const plc_dir *d, const dir_consts *c, const uint64_t *h, uint32_t g,
                             uint32_t *owners)
{
    uint32_t e[PLC_DIR_GROUP], leafq[PLC_DIR_GROUP], bigq[PLC_DIR_GROUP], nleaf = 0, nbig = 0;
    for (uint32_t q = 0; q < g; q++) {
        uint64_t x = h[q];
        uint32_t v = c->entry[x >> c->shift];
        uint32_t r = (uint32_t)((x << c->bits) >> c->sshift), t = (v >> (2 * c->obits)) & c->smask;
        uint32_t split_owner = select_u32(0u - (uint32_t)(r < t), v & c->omask, (v >> c->obits) & c->omask);
        e[q] = v;
        /* final unless a list below rewrites it */
        owners[q] = select_u32(0u - (v >> 31), v & ~PLC_DIR_OWNER, split_owner);
        leafq[nleaf] = q;
        nleaf += (v >> 30) == 0;
        bigq[nbig] = q;
        nbig += ((v >> 30) == 1) & ((v == PLC_DIR_BIG) | (r == t));
    }
    for (uint32_t i = 0; i < nleaf; i++)
        __builtin_prefetch(&c->leaves[e[leafq[i]]]);
    for (uint32_t i = 0; i < nleaf; i++) {
        uint32_t q = leafq[i];
        owners[q] = dir_leaf_owner_nb(c, e[q], (int64_t)(h[q] ^ PLC_STREE_SIGN));
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
    const dir_consts c = {d->entry, d->leaves, d->shift, d->bits, 64 - d->sbits,
                          (UINT32_C(1) << d->sbits) - 1, d->obits,
                          (UINT32_C(1) << d->obits) - 1, d->n, d->nleaves - 1, d->wrap_owner};
    size_t base = 0;
    if ((sizeof(uint32_t) << d->bits) > PLC_DIR_CACHED_BYTES) {
        /* The next group's entries are fetched while this group waits for
         * its leaves: two rounds of misses overlap instead of alternating. */
        for (size_t q = 0; q < n && q < PLC_DIR_GROUP; q++)
            __builtin_prefetch(&c.entry[h[q] >> c.shift]);
        for (; base + PLC_DIR_GROUP <= n; base += PLC_DIR_GROUP) {
            size_t next = base + PLC_DIR_GROUP;
            size_t end = next + PLC_DIR_GROUP < n ? next + PLC_DIR_GROUP : n;
            for (size_t q = next; q < end; q++)
                __builtin_prefetch(&c.entry[h[q] >> c.shift]);
            dir_group(d, &c, h + base, PLC_DIR_GROUP, owners + base);
        }
    } else {
        for (; base + PLC_DIR_GROUP <= n; base += PLC_DIR_GROUP)
            dir_group(d, &c, h + base, PLC_DIR_GROUP, owners + base);
    }
    if (base < n)
        dir_group(d, &c, h + base, (uint32_t)(n - base), owners + base);
}

#undef PLC_DIR_ONE
#undef PLC_DIR_BATCH
#undef PLC_DIR_TREE_ONE
#undef PLC_DIR_TREE_BATCH
