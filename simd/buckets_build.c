/*
 * buckets_build.c -- lay out the lines of buckets.h over a built S+ tree:
 * one pass over the lines in order with one cursor over the tokens, so the
 * build reads each token once and writes each line once, O(n + 2^b).
 */
#include "buckets.h"

#include <string.h>

uint32_t plc_bkt_choose_bits(uint32_t n, uint32_t nnodes, size_t tree_bytes)
{
    if (n < PLC_BKT_MIN_TOKENS || nnodes > PLC_BKT_MAX_NODES)
        return 0;
    uint32_t bits = 1;
    while (((uint64_t)8 << bits) < n && bits < PLC_BKT_MAX_BITS)
        bits++; /* the fewest lines that average at most 8 tokens */
    /* Lines + tree within 2.5x plain sorted tokens and owners (12 bytes a
     * token): just past a power of two, half the lines (up to 8.x tokens
     * a line on average, a few more crowded ones). */
    if (tree_bytes + plc_bkt_bytes(bits) > (size_t)n * 30u)
        bits--;
    return bits;
}

size_t plc_bkt_bytes(uint32_t bits)
{
    return sizeof(plc_bkt_line) << bits;
}

/* The owner that answers past token i - 1: token i's, or the wrap's. */
static uint32_t owner_from(const plc_stree *t, uint32_t i)
{
    return i < t->n ? plc_stree_owner_at(t, i) : t->wrap_owner;
}

/* The line of tokens lo..hi-1 (all inside its range). */
static void fill_line(plc_bkt_line *l, const plc_stree *t, uint32_t sshift, uint32_t lo,
                      uint32_t hi)
{
    uint32_t k = hi - lo;
    if (k >= PLC_BKT_LANES) { /* crowded: every rank reads "ask the tree" */
        for (uint32_t j = 0; j < PLC_BKT_LANES; j++) {
            l->suf[j] = PLC_BKT_PAD;
            l->own[j] = PLC_BKT_CROWDED;
        }
        return;
    }
    uint16_t after = (uint16_t)owner_from(t, hi);
    for (uint32_t j = 0; j < PLC_BKT_LANES; j++) {
        if (j < k) {
            uint16_t s = (uint16_t)((plc_stree_token(t, lo + j) >> sshift) ^ 0x8000u);
            memcpy(&l->suf[j], &s, sizeof s); /* the bias, without a signed conversion */
            l->own[j] = (uint16_t)plc_stree_owner_at(t, lo + j);
        } else {
            l->suf[j] = PLC_BKT_PAD;
            l->own[j] = after;
        }
    }
}

void plc_bkt_build(plc_bkt *k, const plc_stree *t, uint32_t bits, void *mem)
{
    plc_bkt_line *line = mem;
    uint64_t m = (uint64_t)1 << bits;
    k->line = line;
    k->bits = bits;
    k->shift = 64 - bits;
    k->sshift = 48 - bits;
    k->ncrowded = 0;
    k->tree = t;
    uint32_t i = 0; /* the cursor: the first token not in an earlier line */
    for (uint64_t e = 0; e < m; e++) {
        uint32_t lo = i;
        if (e + 1 == m)
            i = t->n;
        else
            while (i < t->n && plc_stree_token(t, i) >> k->shift == e)
                i++;
        fill_line(&line[e], t, k->sshift, lo, i);
        k->ncrowded += i - lo >= PLC_BKT_LANES;
    }
}
