/*
 * jump_build.c -- the bucket -> node table of jump consistent hash.
 *
 * Jump hash numbers buckets 0 .. n-1 and can only grow or shrink at the
 * end, so the table is what lets a node in the middle leave without
 * renumbering the others (as every jump library's users ask):
 *   - a node's explicit tokens (placer_builder_add_token) are the buckets
 *     it owns; the others get max(1, round(weight)) buckets each, in id
 *     order, taking the lowest free numbers (holes first);
 *   - a hole left by a node that is gone (or drains, in the target) is
 *     filled by moving the node of the highest bucket into it, which moves
 *     only that bucket's keys besides the leaving node's: about 2/n of the
 *     keys instead of a full renumbering.
 * Two nodes claiming one bucket is PLACER_EINVAL.
 */
#include <math.h>
#include <stdlib.h>

#include "alloc.h"
#include "builder_internal.h"
#include "named.h"

static uint32_t auto_buckets(const plc_bnode *n)
{
    double w = round(n->weight);
    return w < 1 ? 1 : w > (double)PLACER_MAX_TOKENS ? PLACER_MAX_TOKENS + 1 : (uint32_t)w;
}

/* The table of one placement into *table (allocated), its size in *nb. */
static int bucket_table(const placer_builder *b, int target, uint32_t **table, uint32_t *nb)
{
    uint64_t cap = 0;
    for (uint32_t i = 0; i < b->nexplicit; i++) {
        const plc_btoken *t = &b->explicit_tokens[i];
        if (!plc_in_placement(b->nodes[t->node].state, target))
            continue;
        if (t->token >= PLACER_MAX_TOKENS)
            return PLACER_ETOOMANY;
        cap = t->token + 1 > cap ? t->token + 1 : cap;
    }
    uint64_t autos = 0;
    for (uint32_t n = 0; n < b->nnodes; n++)
        if (!b->nodes[n].explicit_tokens && plc_in_placement(b->nodes[n].state, target))
            autos += auto_buckets(&b->nodes[n]);
    cap += autos;
    if (cap > PLACER_MAX_TOKENS)
        return PLACER_ETOOMANY;
    if (!cap)
        return PLACER_ENONODES;
    uint32_t *t = plc_malloc(cap * sizeof *t);
    plc_named *order = plc_malloc(((size_t)b->nnodes + 1) * sizeof *order);
    if (!t || !order) {
        plc_free(t);
        plc_free(order);
        return PLACER_ENOMEM;
    }
    for (uint64_t i = 0; i < cap; i++)
        t[i] = PLC_NO_NODE;
    int err = 0;
    for (uint32_t i = 0; i < b->nexplicit && !err; i++) {
        const plc_btoken *x = &b->explicit_tokens[i];
        if (!plc_in_placement(b->nodes[x->node].state, target))
            continue;
        if (t[x->token] != PLC_NO_NODE)
            err = PLACER_EINVAL;
        t[x->token] = x->node;
    }
    uint32_t m = 0;
    for (uint32_t n = 0; n < b->nnodes; n++)
        if (!b->nodes[n].explicit_tokens && plc_in_placement(b->nodes[n].state, target))
            order[m++] = (plc_named){b->nodes[n].id, n};
    qsort(order, m, sizeof *order, plc_cmp_named);
    uint64_t free_at = 0;
    for (uint32_t i = 0; i < m && !err; i++)
        for (uint32_t k = auto_buckets(&b->nodes[order[i].index]); k; k--) {
            while (t[free_at] != PLC_NO_NODE)
                free_at++;
            t[free_at] = order[i].index;
        }
    plc_free(order);
    /* Close the holes from the top. */
    uint64_t lo = 0, hi = cap;
    while (!err) {
        while (lo < hi && t[lo] != PLC_NO_NODE)
            lo++;
        while (hi > lo && t[hi - 1] == PLC_NO_NODE)
            hi--;
        if (lo >= hi)
            break;
        t[lo] = t[hi - 1];
        t[--hi] = PLC_NO_NODE;
    }
    if (err) {
        plc_free(t);
        return err;
    }
    *table = t;
    *nb = (uint32_t)hi;
    return 0;
}

int plc_jump_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    uint32_t *cur = NULL, *tgt = NULL, n = 0, tn = 0;
    int err = bucket_table(b, 0, &cur, &n);
    if (!err && plc_builder_in_transition(b))
        err = bucket_table(b, 1, &tgt, &tn);
    if (!err)
        err = plc_table_snapshot(b, epoch, 1, cur, n, tgt, tn, out);
    plc_free(cur);
    plc_free(tgt);
    return err;
}
