/*
 * stree_body.h -- the descent of stree.h, single and batched, written once
 * and compiled per instruction set. Before including, define
 *   PLC_STREE_ONE, PLC_STREE_BATCH   the function names;
 * and provide
 *   static inline uint32_t rank_node(const int64_t key[8], int64_t x);
 *   static inline uint32_t rank_leaf(const int64_t key[5], int64_t x);
 * each counting the keys < x (x and keys sign-flipped, see stree.h).
 *
 * Batched: PLC_STREE_GROUP queries walk the tree in lockstep, one level at
 * a time. After a query picks its child it prefetches that child's line, and
 * by the time the loop comes back to the query the line has arrived: the
 * memory latency of one query hides behind the work of the others.
 */
#include "stree.h"

/* Queries per lockstep group: 16 while the tree fits in L2, where more
 * would only add bookkeeping; 32 beyond, to keep more misses in flight
 * (measured: bench/RESULTS.md). */
#define PLC_STREE_GROUP 32u
#define PLC_STREE_GROUP_SMALL 16u
#define PLC_STREE_L2_LINES 16384u /* 1 MiB */
/* A level of at most this many 64-byte lines (32 KiB) stays in L1. */
#define PLC_STREE_PREFETCH_LINES 512u

static inline uint32_t leaf_owner(const plc_stree *t, uint32_t k, int64_t x)
{
    const plc_stree_leaf *leaf = &t->leaves[k];
    uint32_t r = rank_leaf(leaf->key, x);
    uint32_t o = leaf->owner[r < PLC_STREE_LEAF ? r : 0];
    /* Past the last token: the wrap. Only the last leaf can get here. */
    return k * PLC_STREE_LEAF + r < t->n ? o : t->wrap_owner;
}

/* The leaf that holds the first key >= x (x sign-flipped). */
static inline uint32_t descend_to_leaf(const plc_stree *t, int64_t x)
{
    uint32_t k = 0;
    for (uint32_t d = 0; d < t->nlevels; d++)
        k = k * PLC_STREE_FANOUT + rank_node(t->level[d][k].key, x);
    return k;
}

static inline uint32_t descend_one(const plc_stree *t, uint64_t h)
{
    int64_t x = (int64_t)(h ^ PLC_STREE_SIGN);
    return leaf_owner(t, descend_to_leaf(t, x), x);
}

uint32_t PLC_STREE_ONE(const plc_stree *t, uint64_t h)
{
    return descend_one(t, h);
}

/* The index (sorted order) of the first token >= h, or 0 for the wrap: what
 * replica walks start from. */
uint32_t PLC_STREE_INDEX(const plc_stree *t, uint64_t h)
{
    int64_t x = (int64_t)(h ^ PLC_STREE_SIGN);
    uint32_t k = descend_to_leaf(t, x);
    uint32_t i = k * PLC_STREE_LEAF + rank_leaf(t->leaves[k].key, x);
    return i < t->n ? i : 0;
}

#include "hash64_v2_body.h" /* the fused kernels hash with placer-v2 */

/* The next group's keys, hashed a slice at a time while this group's lines
 * are on their way from memory: compute that fills the wait instead of
 * stalling the reorder buffer behind outstanding misses. */
typedef struct next_keys {
    uint64_t seed;
    const void *const *keys;
    const size_t *lens;
    uint32_t n, done;
    uint64_t *out;
} next_keys;

static inline void hash_slice(next_keys *w, uint32_t upto)
{
    if (!w)
        return;
    if (upto > w->n)
        upto = w->n;
    for (; w->done < upto; w->done++)
        w->out[w->done] = plc_hash64_v2_body(w->seed, w->keys[w->done], w->lens[w->done]);
}

/* One group of g queries down the tree. Levels small enough to stay in L1
 * are not prefetched: the instruction would only cost issue slots. With w,
 * a slice of the next group's keys is hashed after each prefetched level;
 * without (w == NULL, folded away when inlined), nothing else is done. */
static inline void descend_group(const plc_stree *t, const uint64_t *h, uint32_t g,
                                 uint32_t *owners, next_keys *w)
{
    /* g <= PLC_STREE_GROUP; the tail of a batch may be any smaller size. */
    int64_t x[PLC_STREE_GROUP];
    uint32_t k[PLC_STREE_GROUP];
    uint32_t slice = w ? (w->n + t->nlevels) / (t->nlevels + 1) : 0;
    for (uint32_t q = 0; q < g; q++) {
        x[q] = (int64_t)(h[q] ^ PLC_STREE_SIGN);
        k[q] = 0;
    }
    for (uint32_t d = 0; d < t->nlevels; d++) {
        const plc_stree_node *lev = t->level[d];
        int last = d + 1 == t->nlevels;
        const char *next = last ? (const char *)t->leaves : (const char *)t->level[d + 1];
        size_t next_lines = last ? t->nleaves : t->level_nodes[d + 1];
        if (next_lines > PLC_STREE_PREFETCH_LINES) {
            for (uint32_t q = 0; q < g; q++) {
                k[q] = k[q] * PLC_STREE_FANOUT + rank_node(lev[k[q]].key, x[q]);
                __builtin_prefetch(next + (size_t)k[q] * 64);
            }
            hash_slice(w, (d + 1) * slice);
        } else {
            for (uint32_t q = 0; q < g; q++)
                k[q] = k[q] * PLC_STREE_FANOUT + rank_node(lev[k[q]].key, x[q]);
        }
    }
    for (uint32_t q = 0; q < g; q++)
        owners[q] = leaf_owner(t, k[q], x[q]);
    hash_slice(w, w ? w->n : 0);
}

void PLC_STREE_BATCH(const plc_stree *t, const uint64_t *h, size_t n, uint32_t *owners)
{
    size_t base = 0;
    /* Constant group sizes in the loops, so the compiler unrolls them. */
    if (t->nleaves > PLC_STREE_L2_LINES)
        for (; base + PLC_STREE_GROUP <= n; base += PLC_STREE_GROUP)
            descend_group(t, h + base, PLC_STREE_GROUP, owners + base, NULL);
    else
        for (; base + PLC_STREE_GROUP_SMALL <= n; base += PLC_STREE_GROUP_SMALL)
            descend_group(t, h + base, PLC_STREE_GROUP_SMALL, owners + base, NULL);
    if (base < n)
        descend_group(t, h + base, (uint32_t)(n - base), owners + base, NULL);
}

#if defined(PLC_STREE_KEY_ONE)
uint32_t PLC_STREE_KEY_ONE(const plc_stree *t, uint64_t seed, const void *key, size_t len)
{
    return descend_one(t, plc_hash64_v2_body(seed, key, len));
}

void PLC_STREE_KEY_BATCH(const plc_stree *t, uint64_t seed, const void *const *keys,
                         const size_t *lens, size_t n, uint32_t *owners)
{
    uint64_t h[2][PLC_STREE_GROUP];
    if (t->nleaves <= PLC_STREE_L2_LINES) {
        /* In cache there is no miss to hide: hash a group, then descend it. */
        for (size_t base = 0; base < n; base += PLC_STREE_GROUP_SMALL) {
            uint32_t g = n - base < PLC_STREE_GROUP_SMALL ? (uint32_t)(n - base)
                                                          : PLC_STREE_GROUP_SMALL;
            for (uint32_t q = 0; q < g; q++)
                h[0][q] = plc_hash64_v2_body(seed, keys[base + q], lens[base + q]);
            descend_group(t, h[0], g, owners + base, NULL);
        }
        return;
    }
    uint32_t group = PLC_STREE_GROUP;
    next_keys w = {seed, keys, lens, (uint32_t)(n < group ? n : group), 0, h[0]};
    hash_slice(&w, w.n); /* the first group has nothing to hide behind */
    int cur = 0;
    for (size_t base = 0; base < n; base += group, cur ^= 1) {
        uint32_t g = n - base < group ? (uint32_t)(n - base) : group;
        size_t next = base + group;
        uint32_t gn = next < n ? (n - next < group ? (uint32_t)(n - next) : group) : 0;
        w = (next_keys){seed, keys + (next < n ? next : 0), lens + (next < n ? next : 0), gn, 0,
                        h[cur ^ 1]};
        descend_group(t, h[cur], g, owners + base, &w);
    }
}
#undef PLC_STREE_KEY_ONE
#undef PLC_STREE_KEY_BATCH
#endif

#undef PLC_STREE_ONE
#undef PLC_STREE_BATCH
#undef PLC_STREE_INDEX
