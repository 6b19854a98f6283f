/*
 * buckets_build.c -- lay out the lines of buckets.h over a built S+ tree:
 * one pass over the tokens in order (their leaves), each line written once
 * as the tokens reach and pass it, O(n + 2^b), with its first token's
 * index; then one pass back to front fills the lanes past each line's
 * tokens with the owners of the tokens after it.
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
    return (sizeof(plc_bkt_line) + sizeof(uint32_t)) << bits;
}

/* Close line l holding k tokens (its first min(k, 16) lanes written): the
 * rest of its suffixes padded (fill_lookahead writes the owners past k);
 * 16 or more tokens make it crowded, every rank "ask the tree". Returns 1
 * when crowded. */
static uint32_t close_line(plc_bkt_line *l, uint32_t k)
{
    if (k >= PLC_BKT_LANES) {
        for (uint32_t j = 0; j < PLC_BKT_LANES; j++) {
            l->suf[j] = PLC_BKT_PAD;
            l->own[j] = PLC_BKT_ASK_TREE;
        }
        return 1;
    }
    for (uint32_t j = k; j < PLC_BKT_LANES; j++)
        l->suf[j] = PLC_BKT_PAD;
    return 0;
}

/* The owners past each line's k tokens: own[j] = the owner of token
 * (base + j) mod n for every lane j of a line that is not crowded. Back to
 * front, so that the next line's lanes are complete when a line copies
 * them (its token k + j is the next line's token j); after a crowded line
 * and after the last one, from the tree. O(16 * 2^b). */
static void fill_lookahead(plc_bkt_line *line, const uint32_t *base, uint64_t m, const plc_stree *t)
{
    uint32_t n = t->n, next_k = PLC_BKT_LANES; /* the last line has no next line */
    for (uint64_t i = m; i-- > 0;) {
        uint32_t end = i + 1 < m ? base[i + 1] : n, k = end - base[i];
        if (k < PLC_BKT_LANES) {
            plc_bkt_line *l = &line[i];
            const plc_bkt_line *next = next_k < PLC_BKT_LANES ? &line[i + 1] : NULL;
            for (uint32_t j = k; j < PLC_BKT_LANES; j++)
                l->own[j] = next ? next->own[j - k]
                                 : (uint16_t)plc_stree_owner_at(t, (uint32_t)(((uint64_t)base[i] + j) % n));
        }
        next_k = k;
    }
}

/* One pass over the tokens in order, leaf by leaf (no index arithmetic per
 * token): each token goes to its line's next lane, and a token of a later
 * line closes the lines before it; then fill_lookahead gives every line
 * its owners past its tokens. */
void plc_bkt_build(plc_bkt *k, const plc_stree *t, uint32_t bits, void *mem)
{
    plc_bkt_line *line = mem;
    uint64_t m = (uint64_t)1 << bits;
    uint32_t *base = (uint32_t *)(line + m); /* 64-byte lines: aligned */
    k->base = base;
    base[0] = 0;
    const uint32_t shift = 64 - bits, sshift = 48 - bits;
    k->line = line;
    k->bits = bits;
    k->shift = shift;
    k->sshift = sshift;
    k->tree = t;
    uint32_t crowded = 0, count = 0; /* tokens in line cur so far */
    uint64_t cur = 0;
    for (uint32_t l = 0, i = 0; l < t->nleaves; l++) {
        const plc_stree_leaf *leaf = &t->leaves[l];
        for (uint32_t j = 0; j < PLC_STREE_LEAF && i < t->n; j++, i++) {
            uint64_t tok = (uint64_t)leaf->key[j] ^ PLC_STREE_SIGN;
            uint16_t own = (uint16_t)leaf->owner[j];
            uint64_t e = tok >> shift;
            if (e != cur) { /* close cur and the empty lines up to e */
                crowded += close_line(&line[cur], count);
                while (++cur < e) {
                    close_line(&line[cur], 0);
                    base[cur] = i;
                }
                base[cur] = i;
                count = 0;
            }
            if (count < PLC_BKT_LANES) {
                uint16_t sv = (uint16_t)((tok >> sshift) ^ 0x8000u);
                memcpy(&line[cur].suf[count], &sv, sizeof sv); /* the bias, no signed conversion */
                line[cur].own[count] = own;
            }
            count++;
        }
    }
    crowded += close_line(&line[cur], count);
    while (++cur < m) {
        close_line(&line[cur], 0);
        base[cur] = t->n;
    }
    k->ncrowded = crowded;
    fill_lookahead(line, base, m, t);
}
