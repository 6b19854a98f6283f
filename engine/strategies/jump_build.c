/*
 * jump_build.c -- the bucket -> node table of jump consistent hash.
 *
 * Jump hash numbers buckets 0 .. n-1 and can only grow or shrink at the
 * end, so the table is what lets a node in the middle leave without
 * renumbering the others (as every jump library's users ask). A table is
 * built from a starting table -- none, the previous snapshot's
 * (placer_builder_set_previous, nodes matched by id), or for a
 * transition's target the current table:
 *   - a node's explicit tokens (placer_builder_add_token) are the buckets
 *     it owns;
 *   - every other node keeps the buckets it had in the start (up to
 *     max(1, round(weight)) of them), and takes what it lacks from the
 *     lowest free numbers, in id order -- a joining node fills the hole a
 *     leaving one left;
 *   - a hole that remains is filled by moving the node of the highest
 *     bucket into it, which moves only that bucket's keys besides the
 *     leaving node's: about 2/n of the keys instead of a renumbering.
 * Two nodes claiming one bucket is PLACER_EINVAL. JumpBackHash and
 * BinomialHash have jump's contract (buckets 0 .. n-1, changed at the end)
 * and build their tables here too.
 */
#include <math.h>
#include <stdlib.h>

#include "alloc.h"
#include "builder_internal.h"
#include "jump_build.h"
#include "named.h"

static uint32_t auto_buckets(const plc_bnode *n)
{
    double w = round(n->weight);
    return w < 1 ? 1 : w > (double)PLACER_MAX_TOKENS ? PLACER_MAX_TOKENS + 1 : (uint32_t)w;
}

/* The table of one placement, from start[0..start_n) (node indices of
 * b, PLC_NO_NODE for none), into *table (allocated), its size in *nb. */
static int bucket_table(const placer_builder *b, int target, const uint32_t *start,
                        uint32_t start_n, uint32_t **table, uint32_t *nb)
{
    uint64_t cap = start_n;
    for (uint32_t i = 0; i < b->nexplicit; i++) {
        const plc_btoken *t = &b->explicit_tokens[i];
        if (!plc_in_placement(b->nodes[t->node].state, target))
            continue;
        if (t->token >= PLACER_MAX_TOKENS)
            return PLACER_ETOOMANY;
        cap = t->token + 1 > cap ? t->token + 1 : cap;
    }
    uint64_t autos = 0;
    uint32_t placed = 0;
    for (uint32_t n = 0; n < b->nnodes; n++) {
        placed += plc_in_placement(b->nodes[n].state, target);
        if (!b->nodes[n].explicit_tokens && plc_in_placement(b->nodes[n].state, target))
            autos += auto_buckets(&b->nodes[n]);
    }
    if (!placed)
        return PLACER_ENONODES;
    cap += autos;
    if (cap > PLACER_MAX_TOKENS)
        return PLACER_ETOOMANY;
    uint32_t *t = plc_malloc(cap * sizeof *t);
    uint32_t *have = plc_calloc(b->nnodes, sizeof *have);
    plc_named *order = plc_malloc(((size_t)b->nnodes + 1) * sizeof *order);
    if (!t || !have || !order) {
        plc_free(t);
        plc_free(have);
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
    for (uint32_t i = 0; i < start_n; i++) { /* buckets kept from the start */
        uint32_t n = start[i];
        if (n != PLC_NO_NODE && t[i] == PLC_NO_NODE && !b->nodes[n].explicit_tokens &&
            plc_in_placement(b->nodes[n].state, target) && have[n] < auto_buckets(&b->nodes[n])) {
            t[i] = n;
            have[n]++;
        }
    }
    uint32_t m = 0;
    for (uint32_t n = 0; n < b->nnodes; n++)
        if (!b->nodes[n].explicit_tokens && plc_in_placement(b->nodes[n].state, target))
            order[m++] = (plc_named){b->nodes[n].id, n};
    qsort(order, m, sizeof *order, plc_cmp_named);
    uint64_t free_at = 0;
    for (uint32_t i = 0; i < m && !err; i++) {
        uint32_t n = order[i].index;
        for (; have[n] < auto_buckets(&b->nodes[n]); have[n]++) {
            while (t[free_at] != PLC_NO_NODE)
                free_at++;
            t[free_at] = n;
        }
    }
    plc_free(order);
    plc_free(have);
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

/* The previous snapshot's table (its target in a transition) in b's node
 * indices; NULL start when there is none. */
static int previous_table(const placer_builder *b, uint32_t **start, uint32_t *n)
{
    const placer_snapshot *p = b->previous;
    *start = NULL;
    *n = 0;
    if (!p)
        return 0;
    if (p->strategy != b->strategy) /* jump, jumpback, binomial: the same buckets */
        return PLACER_EINVAL;
    const plc_table *t = p->has_target ? &p->ttable : &p->table;
    uint32_t *s = plc_malloc(((size_t)t->n + 1) * sizeof *s);
    if (!s)
        return PLACER_ENOMEM;
    for (uint32_t i = 0; i < t->n; i++) {
        int mine = plc_builder_find(b, p->nodes[t->own[i]].id);
        s[i] = mine < 0 ? PLC_NO_NODE : (uint32_t)mine;
    }
    *start = s;
    *n = t->n;
    return 0;
}

int plc_jump_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    uint32_t *start, sn, *cur = NULL, *tgt = NULL, n = 0, tn = 0;
    int err = previous_table(b, &start, &sn);
    if (!err)
        err = bucket_table(b, 0, start, sn, &cur, &n);
    if (!err && plc_builder_in_transition(b))
        err = bucket_table(b, 1, cur, n, &tgt, &tn);
    plc_free(start);
    if (!err)
        err = plc_table_snapshot(b, epoch, 1, cur, n, tgt, tn, out);
    plc_free(cur);
    plc_free(tgt);
    return err;
}
