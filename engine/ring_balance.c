/*
 * ring_balance.c -- the tokens of a ring built with PLACER_TOKENS_BALANCED.
 *
 * History decides: a node keeps the tokens it was given (explicit ones, or
 * those it has in the previous snapshot, matched by id), and every other
 * node, in index order, gets its tokens from the allocator
 * (token_balance.c) against the ring of all the tokens so far -- those of
 * the nodes that are not draining, since the ring is balanced for after the
 * transition. Without a previous snapshot the nodes are thus added one at
 * a time in membership order, and the same membership history gives the
 * same ring; with one, removing a node leaves everyone else's tokens alone.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "builder_internal.h"
#include "radix_sort.h"
#include "ring_balance.h"
#include "snapshot_internal.h"
#include "token_balance.h"

typedef struct growing {
    uint64_t *tok;
    uint32_t *own;
    uint32_t n, cap;
} growing;

static int grow(growing *g, uint32_t more)
{
    if ((uint64_t)g->n + more <= g->cap)
        return 0;
    uint64_t cap = ((uint64_t)g->n + more) * 2;
    if (cap > PLACER_MAX_TOKENS)
        cap = (uint64_t)g->n + more;
    if (cap > PLACER_MAX_TOKENS)
        return PLACER_ETOOMANY;
    uint64_t *t = plc_realloc(g->tok, (size_t)cap * sizeof *t);
    if (t)
        g->tok = t;
    uint32_t *o = plc_realloc(g->own, (size_t)cap * sizeof *o);
    if (o)
        g->own = o;
    if (!t || !o)
        return PLACER_ENOMEM;
    g->cap = (uint32_t)cap;
    return 0;
}

/* Merge k ascending tokens of node x into the sorted ring g (after equal
 * tokens already there). g has room. */
static void merge_in(growing *g, uint32_t x, const uint64_t *t, uint32_t k)
{
    uint32_t i = g->n, j = k, at = g->n + k;
    while (j > 0) {
        if (i > 0 && g->tok[i - 1] > t[j - 1]) {
            at--, i--;
            g->tok[at] = g->tok[i];
            g->own[at] = g->own[i];
        } else {
            at--, j--;
            g->tok[at] = t[j];
            g->own[at] = x;
        }
    }
    g->n += k;
}

static int by_token(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The tokens of previous's nodes (a node joining there: from its target),
 * appended to the lists of the builder's nodes with the same ids. */
static void previous_tokens(const placer_builder *b, const int32_t *of_prev, plc_balanced *out,
                            uint32_t *fill)
{
    const placer_snapshot *p = b->previous;
    for (int pass = 0; pass < 1 + p->has_target; pass++) {
        const plc_stree *t = pass ? &p->target : &p->tree;
        for (uint32_t i = 0; i < t->n; i++) {
            uint32_t po = plc_stree_owner_at(t, i);
            if (po >= p->nnodes || of_prev[po] < 0 ||
                (p->nodes[po].state == PLACER_NODE_JOINING) != pass)
                continue;
            uint32_t n = (uint32_t)of_prev[po];
            out->tokens[out->first[n] + fill[n]++] = plc_stree_token(t, i);
        }
    }
}

/* Zone indices: equal zone names, equal indices. */
static int zone_ids(const placer_builder *b, uint32_t *zone)
{
    uint32_t *order = plc_builder_order(b, 1);
    if (!order)
        return PLACER_ENOMEM;
    uint32_t id = 0;
    for (uint32_t r = 0; r < b->nnodes; r++) {
        const plc_bnode *n = &b->nodes[order[r]], *prev = r ? &b->nodes[order[r - 1]] : NULL;
        if (prev && (prev->zone_len != n->zone_len || memcmp(prev->zone, n->zone, n->zone_len)))
            id++;
        zone[order[r]] = id;
    }
    plc_free(order);
    return 0;
}

/* A gone node's zone as an index of this build's zones (zone[] of a node
 * with the same zone name), or `fresh` when no node here has it. */
static uint32_t zone_of_gone(const placer_builder *b, const uint32_t *zone, const char *name,
                             uint32_t fresh)
{
    size_t len = strlen(name);
    for (uint32_t n = 0; n < b->nnodes; n++)
        if (b->nodes[n].zone_len == len && memcmp(b->nodes[n].zone, name, len) == 0)
            return zone[n];
    return fresh;
}

/* Node n's list in (first, tokens) grown by its `more` tokens from extra
 * (extra_first[n] ..): new arrays, each node's list ascending. */
static int append_lists(uint32_t N, uint32_t **first, uint64_t **tokens, const uint32_t *more,
                        const uint64_t *extra)
{
    uint32_t *f = plc_calloc((size_t)N + 1, sizeof *f);
    uint64_t total = 0;
    for (uint32_t n = 0; f && n < N; n++) {
        total += (*first ? (*first)[n + 1] - (*first)[n] : 0) + more[n];
        f[n + 1] = (uint32_t)total;
    }
    uint64_t *t = f && total <= PLACER_MAX_TOKENS ? plc_malloc((size_t)(total ? total : 1) * sizeof *t)
                                                  : NULL;
    if (!t) {
        plc_free(f);
        return f && total > PLACER_MAX_TOKENS ? PLACER_ETOOMANY : PLACER_ENOMEM;
    }
    uint64_t from_extra = 0;
    for (uint32_t n = 0; n < N; n++) {
        uint32_t had = *first ? (*first)[n + 1] - (*first)[n] : 0;
        if (had)
            memcpy(t + f[n], *tokens + (*first)[n], (size_t)had * sizeof *t);
        memcpy(t + f[n] + had, extra + from_extra, (size_t)more[n] * sizeof *t);
        from_extra += more[n];
        qsort(t + f[n], f[n + 1] - f[n], sizeof *t, by_token);
    }
    plc_free(*first);
    plc_free(*tokens);
    *first = f;
    *tokens = t;
    return 0;
}

/*
 * The leavers' tokens handed over (plc_tokens_hand_over) on the ring g of
 * the staying nodes' tokens: a draining node's go to out->hfirst/handed
 * (its heirs own them in the target only), those of a node of previous
 * gone from the membership (absent[i]) to out->first/tokens (its heirs own
 * them from now on). Heirs are the active nodes (any staying node when none
 * is active: joining and down nodes take no new ranges while an active
 * node can). Without a staying node nothing is handed over.
 */
static int hand_over(const placer_builder *b, const uint8_t *absent, const uint32_t *zone,
                     const double *weight, const growing *g, plc_balanced *out)
{
    uint32_t N = b->nnodes, gone = 0, staying = 0, active = 0;
    const placer_snapshot *p = b->previous;
    for (uint32_t i = 0; p && i < p->nnodes; i++)
        gone += absent[i];
    uint64_t leaving = 0;
    for (uint32_t n = 0; n < N; n++) {
        int state = b->nodes[n].state;
        staying += state != PLACER_NODE_DRAINING;
        active += state == PLACER_NODE_ACTIVE;
        leaving += state == PLACER_NODE_DRAINING ? out->first[n + 1] - out->first[n] : 0;
    }
    for (uint32_t i = 0; gone && i < p->tree.n; i++) {
        uint32_t po = plc_stree_owner_at(&p->tree, i);
        leaving += po < p->nnodes && absent[po];
    }
    if (!leaving || !staying)
        return 0;
    uint64_t total = g->n + leaving;
    if (total > PLACER_MAX_TOKENS)
        return PLACER_ETOOMANY;
    /* The nodes: this build's, then one per gone node (index N + k). */
    uint32_t M = N + gone, *pseudo = plc_malloc((size_t)(p ? p->nnodes : 1) * sizeof *pseudo);
    uint32_t *zones = plc_malloc((size_t)M * sizeof *zones);
    double *weights = plc_malloc((size_t)M * sizeof *weights);
    uint8_t *leaves = plc_calloc(M, 1), *eligible = plc_calloc(M, 1);
    plc_sort_entry *e = plc_malloc((size_t)total * sizeof *e), *tmp = plc_malloc((size_t)total * sizeof *tmp);
    uint64_t *tok = plc_malloc((size_t)total * sizeof *tok);
    uint32_t *own = plc_malloc((size_t)total * sizeof *own), *heirs = plc_malloc((size_t)total * sizeof *heirs);
    uint32_t *more = plc_calloc(N, sizeof *more), *hmore = plc_calloc(N, sizeof *hmore);
    uint64_t *at = plc_calloc((size_t)N * 2 + 2, sizeof *at), *extra = plc_malloc((size_t)leaving * 2 * sizeof *extra);
    int err = PLACER_ENOMEM;
    if (!pseudo || !zones || !weights || !leaves || !eligible || !e || !tmp || !tok || !own ||
        !heirs || !more || !hmore || !at || !extra)
        goto done;
    for (uint32_t n = 0; n < N; n++) {
        int state = b->nodes[n].state;
        zones[n] = zone[n];
        weights[n] = weight[n];
        leaves[n] = state == PLACER_NODE_DRAINING;
        eligible[n] = active ? state == PLACER_NODE_ACTIVE : !leaves[n];
    }
    for (uint32_t i = 0, k = 0; p && i < p->nnodes; i++) {
        if (!absent[i])
            continue;
        pseudo[i] = N + k;
        zones[N + k] = zone_of_gone(b, zone, p->nodes[i].zone, N + k);
        weights[N + k] = 1; /* a leaver: its weight plays no part */
        leaves[N + k++] = 1;
    }
    /* The whole ring, sorted stably: the staying nodes' tokens (g, sorted),
     * the draining nodes', the gone nodes' (previous's tree order). */
    size_t m = 0;
    for (uint32_t i = 0; i < g->n; i++)
        e[m++] = (plc_sort_entry){g->tok[i], g->own[i], 0};
    for (uint32_t n = 0; n < N; n++)
        for (uint32_t j = out->first[n]; leaves[n] && j < out->first[n + 1]; j++)
            e[m++] = (plc_sort_entry){out->tokens[j], n, 0};
    for (uint32_t i = 0; gone && i < p->tree.n; i++) {
        uint32_t po = plc_stree_owner_at(&p->tree, i);
        if (po < p->nnodes && absent[po])
            e[m++] = (plc_sort_entry){plc_stree_token(&p->tree, i), pseudo[po], 0};
    }
    plc_sort_entry *sorted = plc_radix_sort(e, tmp, m);
    if (!sorted)
        goto done;
    for (size_t i = 0; i < m; i++) {
        tok[i] = sorted[i].token;
        own[i] = sorted[i].owner;
    }
    plc_token_nodes nodes = {weights, zones, M};
    if ((err = plc_tokens_hand_over((plc_token_ring){tok, own, (uint32_t)m}, nodes, leaves, eligible,
                                    heirs)))
        goto done;
    /* Each heir's new tokens, grouped by heir (gone nodes' in extra's first
     * half, draining nodes' in its second): counted, then placed. */
    for (size_t i = 0; i < m; i++)
        if (leaves[own[i]])
            (own[i] >= N ? more : hmore)[heirs[i]]++;
    uint64_t *at_h = at + N + 1;
    at_h[0] = leaving;
    for (uint32_t n = 0; n < N; n++) {
        at[n + 1] = at[n] + more[n];
        at_h[n + 1] = at_h[n] + hmore[n];
    }
    for (size_t i = 0; i < m; i++)
        if (leaves[own[i]])
            extra[(own[i] >= N ? at : at_h)[heirs[i]]++] = tok[i];
    err = append_lists(N, &out->first, &out->tokens, more, extra);
    if (!err)
        err = append_lists(N, &out->hfirst, &out->handed, hmore, extra + leaving);
done:
    plc_free(pseudo);
    plc_free(zones);
    plc_free(weights);
    plc_free(leaves);
    plc_free(eligible);
    plc_free(e);
    plc_free(tmp);
    plc_free(tok);
    plc_free(own);
    plc_free(heirs);
    plc_free(more);
    plc_free(hmore);
    plc_free(at);
    plc_free(extra);
    return err;
}

int plc_ring_balance(const placer_builder *b, plc_balanced *out)
{
    uint32_t N = b->nnodes;
    memset(out, 0, sizeof *out);
    if (b->previous && b->previous->strategy != PLACER_RING)
        return PLACER_EINVAL;
    int32_t *of_prev = NULL;
    uint8_t *absent = NULL; /* previous's nodes gone from the membership */
    uint32_t *count = plc_calloc(N, sizeof *count), *fill = plc_calloc(N, sizeof *fill);
    uint32_t *zone = plc_malloc((size_t)N * sizeof *zone);
    uint8_t *kept = plc_calloc(N, 1); /* 1: tokens given (explicit, previous) */
    double *weight = plc_malloc((size_t)N * sizeof *weight);
    growing g = {0};
    int err = PLACER_ENOMEM;
    out->first = plc_calloc((size_t)N + 1, sizeof *out->first);
    if (!count || !fill || !zone || !kept || !weight || !out->first)
        goto fail;
    if ((err = zone_ids(b, zone)))
        goto fail;
    for (uint32_t n = 0; n < N; n++)
        weight[n] = b->nodes[n].weight;
    /* How many tokens each node has: explicit, previous, or its weight's. */
    for (uint32_t i = 0; i < b->nexplicit; i++)
        count[b->explicit_tokens[i].node]++;
    for (uint32_t n = 0; n < N; n++)
        kept[n] = count[n] > 0;
    const placer_snapshot *p = b->previous;
    if (p) {
        err = PLACER_ENOMEM;
        of_prev = plc_malloc((size_t)p->nnodes * sizeof *of_prev);
        absent = plc_malloc(p->nnodes);
        if (!of_prev || !absent)
            goto fail;
        for (uint32_t i = 0; i < p->nnodes; i++) {
            int n = plc_builder_find(b, p->nodes[i].id);
            absent[i] = n < 0;
            /* explicit tokens win over previous ones */
            of_prev[i] = n >= 0 && !kept[n] ? n : -1;
        }
        for (int pass = 0; pass < 1 + p->has_target; pass++) {
            const plc_stree *t = pass ? &p->target : &p->tree;
            for (uint32_t i = 0; i < t->n; i++) {
                uint32_t po = plc_stree_owner_at(t, i);
                if (po < p->nnodes && of_prev[po] >= 0 &&
                    (p->nodes[po].state == PLACER_NODE_JOINING) == pass)
                    count[of_prev[po]]++;
            }
        }
        for (uint32_t i = 0; i < p->nnodes; i++)
            if (of_prev[i] >= 0 && count[of_prev[i]])
                kept[of_prev[i]] = 1;
    }
    uint64_t total = 0;
    for (uint32_t n = 0; n < N; n++) {
        if (!kept[n]) {
            double want = b->nodes[n].weight * (double)b->vnodes;
            if (!(want <= (double)PLACER_MAX_TOKENS)) {
                err = PLACER_ETOOMANY;
                goto fail;
            }
            uint64_t t = (uint64_t)llround(want);
            count[n] = t ? (uint32_t)t : 1;
        }
        total += count[n];
        if (total > PLACER_MAX_TOKENS) {
            err = PLACER_ETOOMANY;
            goto fail;
        }
        out->first[n + 1] = out->first[n] + count[n];
    }
    err = PLACER_ENOMEM;
    if (!(out->tokens = plc_malloc((size_t)(total ? total : 1) * sizeof *out->tokens)))
        goto fail;
    for (uint32_t i = 0; i < b->nexplicit; i++) {
        uint32_t n = b->explicit_tokens[i].node;
        out->tokens[out->first[n] + fill[n]++] = b->explicit_tokens[i].token;
    }
    if (p)
        previous_tokens(b, of_prev, out, fill);
    /* The ring so far: the given tokens of the nodes that are not draining. */
    for (uint32_t n = 0; n < N; n++) {
        uint64_t *t = out->tokens + out->first[n];
        if (!kept[n])
            continue;
        qsort(t, count[n], sizeof *t, by_token);
        if (b->nodes[n].state == PLACER_NODE_DRAINING)
            continue;
        if ((err = grow(&g, count[n])))
            goto fail;
        merge_in(&g, n, t, count[n]);
    }
    plc_token_nodes nodes = {weight, zone, N};
    for (uint32_t n = 0; n < N; n++) {
        if (kept[n])
            continue;
        uint64_t *t = out->tokens + out->first[n];
        const plc_bnode *node = &b->nodes[n];
        uint64_t base = placer_hash64(b->seed, node->id, node->id_len);
        plc_token_ring ring = {g.tok, g.own, g.n};
        if ((err = plc_tokens_balance(ring, nodes, n, count[n], base, t)))
            goto fail;
        if (node->state == PLACER_NODE_DRAINING)
            continue;
        if ((err = grow(&g, count[n])))
            goto fail;
        merge_in(&g, n, t, count[n]);
    }
    if ((err = hand_over(b, absent, zone, weight, &g, out)))
        goto fail;
    goto done;
fail:
    plc_balanced_free(out);
done:
    plc_free(of_prev);
    plc_free(absent);
    plc_free(count);
    plc_free(fill);
    plc_free(zone);
    plc_free(kept);
    plc_free(weight);
    plc_free(g.tok);
    plc_free(g.own);
    return err;
}

void plc_balanced_free(plc_balanced *bt)
{
    plc_free(bt->first);
    plc_free(bt->tokens);
    plc_free(bt->hfirst);
    plc_free(bt->handed);
    memset(bt, 0, sizeof *bt);
}
