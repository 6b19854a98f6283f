/*
 * ring_balance.c -- the tokens of a ring built with PLACER_TOKENS_BALANCED.
 *
 * History decides: a node keeps the tokens it was given (explicit ones, or
 * those it has in the previous snapshot, matched by id), and every other
 * node, in index order, joins one allocator (balancer.h) that holds the
 * ring of all the tokens so far -- those of the nodes that are not
 * draining, since the ring is balanced for after the transition (a
 * draining node without tokens joins after all the others, so that no
 * other node's tokens are chosen against its). Without a previous
 * snapshot the nodes are thus added one at
 * a time in membership order, and the same membership history gives the
 * same ring; with one, removing a node leaves everyone else's tokens alone.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "balancer.h"
#include "builder_internal.h"
#include "radix_sort.h"
#include "ring_balance.h"
#include "snapshot_internal.h"
#include "token_balance.h"

/* A ring of (token, owner) pairs, ascending. */
typedef struct growing {
    uint64_t *tok;
    uint32_t *own;
    uint32_t n;
} growing;

static int by_token(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The ring of the tokens in out of the nodes with kept[n] set that are
 * not draining, ascending, equal tokens by node index: one radix sort
 * (stable, entries made in node order). */
static int ring_of(const plc_balanced *out, uint32_t N, const uint8_t *kept,
                   const placer_builder *b, growing *g)
{
    uint64_t n = 0;
    for (uint32_t o = 0; o < N; o++)
        if (kept[o] && b->nodes[o].state != PLACER_NODE_DRAINING)
            n += out->first[o + 1] - out->first[o];
    plc_sort_entry *e = plc_malloc((size_t)(n ? n : 1) * sizeof *e);
    plc_sort_entry *tmp = plc_malloc((size_t)(n ? n : 1) * sizeof *tmp);
    g->tok = plc_malloc((size_t)(n ? n : 1) * sizeof *g->tok);
    g->own = plc_malloc((size_t)(n ? n : 1) * sizeof *g->own);
    int err = PLACER_ENOMEM;
    if (e && tmp && g->tok && g->own) {
        size_t m = 0;
        for (uint32_t o = 0; o < N; o++)
            if (kept[o] && b->nodes[o].state != PLACER_NODE_DRAINING)
                for (uint32_t j = out->first[o]; j < out->first[o + 1]; j++)
                    e[m++] = (plc_sort_entry){out->tokens[j], o, 0};
        const plc_sort_entry *sorted = plc_radix_sort(e, tmp, m);
        for (size_t i = 0; i < m; i++) {
            g->tok[i] = sorted[i].token;
            g->own[i] = sorted[i].owner;
        }
        g->n = (uint32_t)m;
        err = 0;
    }
    plc_free(e);
    plc_free(tmp);
    return err;
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

/* The lists (first, tokens; both NULL for none yet) with node n's list
 * grown by its more[n] tokens, taken from extra in node order: new
 * arrays, each node's list ascending. */
static int append_lists(uint32_t N, uint32_t **first, uint64_t **tokens, const uint32_t *more,
                        const uint64_t *extra)
{
    uint64_t total = 0;
    for (uint32_t n = 0; n < N; n++)
        total += (*first ? (*first)[n + 1] - (*first)[n] : 0) + more[n];
    if (total > PLACER_MAX_TOKENS)
        return PLACER_ETOOMANY;
    uint32_t *f = plc_calloc((size_t)N + 1, sizeof *f);
    uint64_t *t = plc_malloc((size_t)(total ? total : 1) * sizeof *t);
    if (!f || !t) {
        plc_free(f);
        plc_free(t);
        return PLACER_ENOMEM;
    }
    for (uint32_t n = 0; n < N; n++)
        f[n + 1] = f[n] + (*first ? (*first)[n + 1] - (*first)[n] : 0) + more[n];
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

/* What a hand-over works with: the nodes (this build's, then the gone
 * ones), which leave and which may inherit, their ids, and room for the
 * whole ring in e, tmp, tok, own and all. */
typedef struct hand_ctx {
    plc_token_nodes nodes;
    const uint8_t *leaves, *eligible;
    plc_sort_entry *e, *tmp;
    uint64_t *tok;
    uint32_t *own, *all;
    const char **ids; /* of the M nodes */
} hand_ctx;

/* Does x come after y among equal tokens? The snapshot's order: by node
 * id, then input order; so the ranges handed over are the ones the
 * snapshot will have, whichever build (a drain, or the removal after it)
 * hands them over. */
static int after_by_id(const plc_sort_entry *x, const plc_sort_entry *y, const char **ids)
{
    int c = strcmp(ids[x->owner], ids[y->owner]);
    return c ? c > 0 : x->seq > y->seq;
}

/* e[0..n) by after_by_id, by merging halves through tmp; *steps counts
 * the comparisons. */
static void merge_by_id(plc_sort_entry *e, plc_sort_entry *tmp, size_t n, const char **ids,
                        uint64_t *steps)
{
    if (n < 2)
        return;
    size_t h = n / 2, i = 0, j = h, k = 0;
    merge_by_id(e, tmp, h, ids, steps);
    merge_by_id(e + h, tmp, n - h, ids, steps);
    while (i < h && j < n) {
        ++*steps;
        tmp[k++] = after_by_id(&e[i], &e[j], ids) ? e[j++] : e[i++];
    }
    while (i < h)
        tmp[k++] = e[i++];
    memcpy(e, tmp, k * sizeof *e); /* e[j..n) already in place */
}

uint64_t plc_ring_order_equal_tokens(plc_sort_entry *e, plc_sort_entry *tmp, size_t n,
                                     const char **ids)
{
    uint64_t steps = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && e[j].token == e[i].token; j++)
            ;
        merge_by_id(e + i, tmp, j - i, ids, &steps);
    }
    return steps;
}

/* The heirs (plc_tokens_hand_over) of the tokens leave[0..nl) on the ring
 * of stay[0..ns) and those: heir[i] for leave[i]. */
static int heirs_of(const hand_ctx *c, const plc_sort_entry *stay, size_t ns,
                    const plc_sort_entry *leave, size_t nl, uint32_t *heir)
{
    size_t m = 0;
    for (size_t i = 0; i < ns; i++)
        c->e[m++] = (plc_sort_entry){stay[i].token, stay[i].owner, (uint32_t)(nl + i)};
    for (size_t i = 0; i < nl; i++)
        c->e[m++] = (plc_sort_entry){leave[i].token, leave[i].owner, (uint32_t)i};
    plc_sort_entry *sorted = plc_radix_sort(c->e, c->tmp, m);
    if (!sorted)
        return PLACER_ENOMEM;
    plc_ring_order_equal_tokens(sorted, sorted == c->e ? c->tmp : c->e, m, c->ids);
    for (size_t i = 0; i < m; i++) {
        c->tok[i] = sorted[i].token;
        c->own[i] = sorted[i].owner;
    }
    int err = plc_tokens_hand_over((plc_token_ring){c->tok, c->own, (uint32_t)m}, c->nodes, c->leaves,
                                   c->eligible, c->all);
    for (size_t i = 0; !err && i < m; i++)
        if (sorted[i].seq < nl)
            heir[sorted[i].seq] = c->all[i];
    return err;
}

/* Node n's new tokens leave[i].token for heir[i] == n, appended to the
 * lists (first, tokens). */
static int give(uint32_t N, const plc_sort_entry *leave, const uint32_t *heir, size_t nl,
                uint32_t **first, uint64_t **tokens, uint32_t *more, uint64_t *extra, uint64_t *at)
{
    memset(more, 0, (size_t)N * sizeof *more);
    for (size_t i = 0; i < nl; i++)
        more[heir[i]]++;
    at[0] = 0;
    for (uint32_t n = 0; n < N; n++)
        at[n + 1] = at[n] + more[n];
    for (size_t i = 0; i < nl; i++)
        extra[at[heir[i]]++] = leave[i].token;
    return append_lists(N, first, tokens, more, extra);
}

/*
 * The leavers' tokens handed over (plc_tokens_hand_over) on the ring g of
 * the staying nodes' tokens, in two steps: first those of the nodes of
 * previous gone from the membership (absent[i]), which become their heirs'
 * own (out->first/tokens); then, on the ring with those, the draining
 * nodes', which their heirs own in the target only (out->hfirst/handed).
 * The next build, once the draining nodes are gone, hands their tokens over
 * on that same ring: it finds the same heirs. Heirs are the active nodes, or
 * the down ones when none is active; never a joining node, whose tokens the
 * next build reads from the target, where handed tokens would then be
 * counted twice, nor one with explicit tokens, which the next build takes
 * instead of its previous ones (it would drop what it inherited). Without
 * an heir nothing is handed over: the ranges go to the next token's owner,
 * as with random tokens.
 */
static int hand_over(const placer_builder *b, const uint8_t *absent, const uint32_t *zone,
                     const double *weight, const growing *g, plc_balanced *out)
{
    uint32_t N = b->nnodes, gone = 0, active = 0, down = 0;
    const placer_snapshot *p = b->previous;
    for (uint32_t i = 0; p && i < p->nnodes; i++)
        gone += absent[i];
    uint64_t ndrain = 0, ngone = 0;
    for (uint32_t n = 0; n < N; n++) {
        int state = b->nodes[n].state, heir = !b->nodes[n].explicit_tokens;
        active += heir && state == PLACER_NODE_ACTIVE;
        down += heir && state == PLACER_NODE_DOWN;
        ndrain += state == PLACER_NODE_DRAINING ? out->first[n + 1] - out->first[n] : 0;
    }
    for (uint32_t i = 0; gone && i < p->tree.n; i++) {
        uint32_t po = plc_stree_owner_at(&p->tree, i);
        ngone += po < p->nnodes && absent[po];
    }
    if ((!ndrain && !ngone) || (!active && !down))
        return 0;
    uint64_t total = g->n + ngone + ndrain;
    if (total > PLACER_MAX_TOKENS)
        return PLACER_ETOOMANY;
    /* The nodes: this build's, then one per gone node (index N + k). */
    uint32_t M = N + gone, *pseudo = plc_malloc((size_t)(p ? p->nnodes : 1) * sizeof *pseudo);
    uint32_t *zones = plc_malloc((size_t)M * sizeof *zones);
    double *weights = plc_malloc((size_t)M * sizeof *weights);
    uint8_t *leaves = plc_calloc(M, 1), *eligible = plc_calloc(M, 1);
    plc_sort_entry *stay = plc_malloc((size_t)total * sizeof *stay);
    plc_sort_entry *leave = plc_malloc((size_t)(ngone + ndrain + 1) * sizeof *leave);
    uint32_t *heir = plc_malloc((size_t)(ngone + ndrain + 1) * sizeof *heir);
    hand_ctx c = {{weights, zones, M}, leaves, eligible,
                  plc_malloc((size_t)total * sizeof *c.e), plc_malloc((size_t)total * sizeof *c.tmp),
                  plc_malloc((size_t)total * sizeof *c.tok), plc_malloc((size_t)total * sizeof *c.own),
                  plc_malloc((size_t)total * sizeof *c.all), plc_malloc((size_t)M * sizeof *c.ids)};
    uint32_t *more = plc_malloc((size_t)N * sizeof *more);
    uint64_t *at = plc_malloc(((size_t)N + 1) * sizeof *at);
    uint64_t *extra = plc_malloc((size_t)(ngone + ndrain + 1) * sizeof *extra);
    int err = PLACER_ENOMEM;
    if (!pseudo || !zones || !weights || !leaves || !eligible || !stay || !leave || !heir || !c.e ||
        !c.tmp || !c.tok || !c.own || !c.all || !c.ids || !more || !at || !extra)
        goto done;
    for (uint32_t n = 0; n < N; n++) {
        int state = b->nodes[n].state;
        zones[n] = zone[n];
        weights[n] = weight[n];
        c.ids[n] = b->nodes[n].id;
        leaves[n] = state == PLACER_NODE_DRAINING;
        eligible[n] = !b->nodes[n].explicit_tokens &&
                      state == (active ? PLACER_NODE_ACTIVE : PLACER_NODE_DOWN);
    }
    for (uint32_t i = 0, k = 0; p && i < p->nnodes; i++) {
        if (!absent[i])
            continue;
        pseudo[i] = N + k;
        c.ids[N + k] = p->nodes[i].id;
        zones[N + k] = zone_of_gone(b, zone, p->nodes[i].zone, N + k);
        weights[N + k] = 1; /* a leaver: its weight plays no part */
        leaves[N + k++] = 1;
    }
    size_t ns = 0, nl = 0;
    for (uint32_t i = 0; i < g->n; i++)
        stay[ns++] = (plc_sort_entry){g->tok[i], g->own[i], 0};
    err = 0;
    if (ngone) { /* step 1: the gone nodes' tokens, in previous's tree order */
        for (uint32_t i = 0; i < p->tree.n; i++) {
            uint32_t po = plc_stree_owner_at(&p->tree, i);
            if (po < p->nnodes && absent[po])
                leave[nl++] = (plc_sort_entry){plc_stree_token(&p->tree, i), pseudo[po], 0};
        }
        err = heirs_of(&c, stay, ns, leave, nl, heir);
        if (!err)
            err = give(N, leave, heir, nl, &out->first, &out->tokens, more, extra, at);
        for (size_t i = 0; !err && i < nl; i++) /* the heirs' from now on */
            stay[ns++] = (plc_sort_entry){leave[i].token, heir[i], 0};
    }
    if (!err && ndrain) { /* step 2: the draining nodes' (the gone ones' already placed) */
        nl = 0;
        for (uint32_t n = 0; n < N; n++)
            for (uint32_t j = out->first[n]; leaves[n] && j < out->first[n + 1]; j++)
                leave[nl++] = (plc_sort_entry){out->tokens[j], n, 0};
        err = heirs_of(&c, stay, ns, leave, nl, heir);
        if (!err)
            err = give(N, leave, heir, nl, &out->hfirst, &out->handed, more, extra, at);
    }
done:
    plc_free(pseudo);
    plc_free(zones);
    plc_free(weights);
    plc_free(leaves);
    plc_free(eligible);
    plc_free(stay);
    plc_free(leave);
    plc_free(heir);
    plc_free(c.e);
    plc_free(c.tmp);
    plc_free(c.tok);
    plc_free(c.own);
    plc_free(c.all);
    plc_free(c.ids);
    plc_free(more);
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
    plc_balancer *bal = NULL;
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
    /* The ring so far: the given tokens of the nodes that are not draining
     * (equal tokens by node index); then the others join one balancer in
     * index order, the draining ones last, so that the ring every other
     * node joins holds no draining node's tokens. */
    for (uint32_t n = 0; n < N; n++)
        if (kept[n])
            qsort(out->tokens + out->first[n], count[n], sizeof *out->tokens, by_token);
    if ((err = ring_of(out, N, kept, b, &g)))
        goto fail;
    plc_token_nodes nodes = {weight, zone, N};
    if ((err = plc_balancer_new((plc_token_ring){g.tok, g.own, g.n}, nodes, count, &bal)))
        goto fail;
    for (int draining = 0; draining < 2; draining++)
        for (uint32_t n = 0; n < N; n++) {
            const plc_bnode *node = &b->nodes[n];
            if (kept[n] || (node->state == PLACER_NODE_DRAINING) != draining)
                continue;
            uint64_t base = placer_hash64(b->seed, node->id, node->id_len);
            if ((err = plc_balancer_join(bal, n, count[n], base, out->tokens + out->first[n])))
                goto fail;
        }
    plc_free(g.tok);
    plc_free(g.own);
    g = (growing){0};
    for (uint32_t n = 0; n < N; n++)
        kept[n] = 1;
    if ((err = ring_of(out, N, kept, b, &g)))
        goto fail;
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
    plc_balancer_free(bal);
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
