/*
 * dir_build.c -- lay out the radix directory of dir.h over a built S+ tree.
 *
 * One pass over the entries in order, with one cursor over the tokens: the
 * tokens of entry e are those below the start of entry e + 1 not taken by
 * an earlier entry, so the whole build reads each token once and writes
 * each entry once, O(n + 2^bits).
 */
#include "dir.h"

uint32_t plc_dir_choose_bits(uint32_t n, size_t tree_bytes)
{
    if (n < PLC_DIR_MIN_TOKENS)
        return 0;
    size_t budget = (size_t)n * 24u; /* 2x plain tokens (8 bytes) + owners (4 bytes) */
    if (tree_bytes >= budget)
        return 0;
    size_t room = (budget - tree_bytes) / sizeof(uint32_t);
    uint32_t bits = 0;
    while (bits < PLC_DIR_MAX_BITS && ((size_t)2 << bits) <= room)
        bits++;
    return bits >= 8 ? bits : 0;
}

size_t plc_dir_bytes(uint32_t bits)
{
    return sizeof(uint32_t) << bits;
}

/* Token i and its owner, reading the leaves the tree was built into. */
static uint64_t token(const plc_stree *t, uint32_t i)
{
    return plc_stree_token(t, i);
}

/* The owner that answers past token i - 1: token i's, or token 0's (the
 * wrap) when i is the end. */
static uint32_t owner_from(const plc_stree *t, uint32_t i)
{
    return i < t->n ? plc_stree_owner_at(t, i) : t->wrap_owner;
}

/* The entry for tokens lo..hi-1 inside its range. */
static uint32_t entry_for(const plc_dir *d, const plc_stree *t, uint32_t lo, uint32_t hi)
{
    uint32_t o = owner_from(t, hi);
    uint32_t same = 1;
    for (uint32_t i = lo; i < hi && same; i++)
        same = plc_stree_owner_at(t, i) == o;
    if (same) /* no token inside, or none whose owner differs from the next */
        return PLC_DIR_OWNER | o;
    uint32_t at = plc_stree_owner_at(t, lo);
    if (hi == lo + 1 && o <= PLC_DIR_OMASK && at <= PLC_DIR_OMASK) {
        uint32_t top = (uint32_t)(token(t, lo) >> d->rshift) & PLC_DIR_SMASK;
        uint32_t v = PLC_DIR_SPLIT | top << (2 * PLC_DIR_OBITS) | o << PLC_DIR_OBITS | at;
        if (v != PLC_DIR_BIG) /* else the one value that reads as BIG: it is one */
            return v;
    }
    uint32_t leaf = lo / PLC_STREE_LEAF;
    /* Two leaves hold every candidate lo..hi (hi == n: the wrap, found when
     * the rank runs past the last token, see dir_body.h). */
    uint64_t end = (uint64_t)(leaf + 2) * PLC_STREE_LEAF; /* first index past leaf + 1 */
    if (hi < end || (hi == t->n && hi <= end))
        return leaf;
    return PLC_DIR_BIG;
}

void plc_dir_build(plc_dir *d, const plc_stree *t, uint32_t bits, void *mem)
{
    uint32_t *entry = mem;
    uint64_t m = (uint64_t)1 << bits;
    d->entry = entry;
    d->bits = bits;
    d->shift = 64 - bits;
    d->leaves = t->leaves;
    d->n = t->n;
    d->nleaves = t->nleaves;
    d->wrap_owner = t->wrap_owner;
    d->tree = t;
    d->nbig = 0;
    d->nowner = 0;
    d->nsplit = 0;
    d->rshift = 64 - bits - PLC_DIR_SBITS;
    /* The cursor: token i, its value, and the entry every range without a
     * token gets while the cursor stays (the owner of token i, or the wrap):
     * most entries of a large directory are such, and cost a compare. */
    uint32_t i = 0;
    uint64_t ti = t->n ? token(t, 0) : 0;
    uint32_t empty = PLC_DIR_OWNER | owner_from(t, 0);
    for (uint64_t e = 0; e < m; e++) {
        uint32_t lo = i;
        if (e + 1 == m) {
            i = t->n;
        } else {
            uint64_t next = (e + 1) << d->shift; /* the first hash of entry e + 1 */
            while (i < t->n && ti < next)
                ti = ++i < t->n ? token(t, i) : 0;
        }
        if (i == lo) {
            entry[e] = empty;
            d->nowner++;
            continue;
        }
        uint32_t v = entry_for(d, t, lo, i);
        empty = PLC_DIR_OWNER | owner_from(t, i);
        d->nbig += v == PLC_DIR_BIG;
        d->nowner += (v & PLC_DIR_OWNER) != 0;
        d->nsplit += (v >> 30) == 1 && v != PLC_DIR_BIG;
        entry[e] = v;
    }
}
