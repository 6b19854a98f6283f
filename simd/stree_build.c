/*
 * stree_build.c -- lay sorted tokens out as the S+ tree of stree.h.
 *
 * Built bottom-up: the leaves from the tokens, then each level's nodes take,
 * as separator i, the largest key of child i (the largest key of a subtree
 * is the largest key of its last leaf, read from the leaf). A separator
 * whose right neighbour child does not exist is INT64_MAX, so the descent
 * never steps right into a missing child.
 */
#include <string.h>

#include "stree.h"

static uint32_t div_up(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

uint32_t plc_stree_size(uint32_t n, size_t *node_bytes, size_t *leaf_bytes)
{
    uint32_t below = div_up(n ? n : 1, PLC_STREE_LEAF), levels = 0;
    size_t nodes = 0;
    *leaf_bytes = (size_t)below * sizeof(plc_stree_leaf);
    while (below > 1) {
        below = div_up(below, PLC_STREE_FANOUT);
        nodes += below;
        levels++;
    }
    *node_bytes = nodes * sizeof(plc_stree_node);
    return levels;
}

static int64_t flip(uint64_t token)
{
    return (int64_t)(token ^ PLC_STREE_SIGN);
}

static uint64_t token_at(const void *tokens, size_t stride, size_t i)
{
    uint64_t v;
    memcpy(&v, (const char *)tokens + i * stride, sizeof v);
    return v;
}

static uint32_t owner_at(const void *owners, size_t stride, size_t i)
{
    uint32_t v;
    memcpy(&v, (const char *)owners + i * stride, sizeof v);
    return v;
}

void plc_stree_build(plc_stree *t, const void *tokens, size_t token_stride, const void *owners,
                     size_t owner_stride, uint32_t n, void *nodes, void *leaves)
{
    memset(t, 0, sizeof *t);
    t->n = n;
    t->wrap_owner = owner_at(owners, owner_stride, 0);
    t->nleaves = div_up(n, PLC_STREE_LEAF);
    plc_stree_leaf *leaf = leaves;
    t->leaves = leaf;
    for (uint32_t l = 0; l < t->nleaves; l++) {
        /* A line's tokens are all read before it is written: the tokens
         * may lie in the leaves' own memory (plc_stree_build, stree.h). */
        plc_stree_leaf v;
        for (uint32_t j = 0; j < PLC_STREE_LEAF; j++) {
            uint32_t i = l * PLC_STREE_LEAF + j;
            v.key[j] = i < n ? flip(token_at(tokens, token_stride, i)) : INT64_MAX;
            v.owner[j] = i < n ? owner_at(owners, owner_stride, i) : 0;
        }
        v.pad_ = 0;
        memcpy(&leaf[l], &v, sizeof v);
    }

    /* Level sizes bottom-up, then place the levels root first. */
    uint32_t count[PLC_STREE_MAX_LEVELS], levels = 0, below = t->nleaves;
    while (below > 1) {
        below = div_up(below, PLC_STREE_FANOUT);
        count[levels++] = below;
    }
    t->nlevels = levels;
    plc_stree_node *at = nodes;
    for (uint32_t d = 0; d < levels; d++) { /* d = 0 is the root */
        t->level[d] = at;
        t->level_nodes[d] = count[levels - 1 - d];
        at += t->level_nodes[d];
    }

    /* The largest key under child c of a level with `nchildren` children at
     * `depth` (depth == levels means the leaves): the key of the last token
     * of the last leaf under it. */
    for (uint32_t d = levels; d-- > 0;) {
        plc_stree_node *lev = (plc_stree_node *)t->level[d];
        uint32_t children = d + 1 < levels ? t->level_nodes[d + 1] : t->nleaves;
        /* leaves under one child of this level */
        uint64_t span = 1;
        for (uint32_t e = d + 1; e < levels; e++)
            span *= PLC_STREE_FANOUT;
        for (uint32_t j = 0; j < t->level_nodes[d]; j++)
            for (uint32_t i = 0; i < PLC_STREE_KEYS; i++) {
                uint64_t c = (uint64_t)j * PLC_STREE_FANOUT + i;
                if (c + 1 >= children) {
                    lev[j].key[i] = INT64_MAX; /* no child to the right */
                    continue;
                }
                uint64_t last_leaf = (c + 1) * span - 1;
                uint64_t last_token = (last_leaf + 1) * PLC_STREE_LEAF - 1;
                if (last_token >= n)
                    last_token = n - 1;
                lev[j].key[i] = leaf[last_token / PLC_STREE_LEAF].key[last_token % PLC_STREE_LEAF];
            }
    }
}
