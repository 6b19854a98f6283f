/*
 * ring_build.c -- turn a builder into an immutable ring snapshot.
 *
 * Order of equal tokens is part of the protocol: (token, node id, vnode
 * index). Rather than compare strings while sorting, the entries are
 * generated already ordered by (id, vnode) -- nodes visited in id order,
 * vnodes ascending -- and then sorted by token with a stable MSD radix sort,
 * which keeps that order among equal tokens. The sort is O(n) and needs no
 * comparison callback, which matters for 2^20-token rings.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "named.h"
#include "radix_sort.h"
#include "builder_internal.h"
#include "ring_balance.h"
#include "ring_build.h"
#include "snapshot_internal.h"

typedef plc_sort_entry entry; /* seq unused here */

/* Tokens node n gets, or 0 when its weight asks for more than the cap. */
static uint64_t node_token_count(const placer_builder *b, const plc_bnode *n)
{
    if (n->explicit_tokens)
        return n->explicit_tokens;
    double want = n->weight * (double)b->vnodes;
    if (!(want <= (double)PLACER_MAX_TOKENS))
        return 0;
    uint64_t t = (uint64_t)llround(want);
    return t ? t : 1; /* a tiny weight never silently gets no token */
}

/* The decimal digits of v at to (no leading zero); returns their count. */
static size_t put_decimal(char *to, uint32_t v)
{
    size_t d = 1;
    for (uint32_t x = v; x >= 10; x /= 10)
        d++;
    for (size_t i = d; i-- > 0; v /= 10)
        to[i] = (char)('0' + v % 10);
    return d;
}

/* A node's generated tokens, the hashes of "<id>-<j>" for j = 0, 1, 2, ...,
 * VNODE_BATCH names at a time: each name in its own slot (the slots keep
 * "<id>-" for the whole node, j's digits are written behind it), hashed
 * together by the batch kernel. An odometer in one buffer, hashed after
 * each one-byte increment, made every hash's 8-byte loads wait on a failed
 * store-to-load forward, one call at a time (a fifth of a 2^20 build);
 * here a slot's bytes are read 32 names after they are written. */
#define VNODE_BATCH 32u

static void generate_vnodes(const placer_builder *b, plc_hash_batch_fn batch, const plc_bnode *node,
                            uint32_t n, uint32_t count, entry *out)
{
    char names[VNODE_BATCH][PLACER_MAX_ID_LEN + 1 + 10]; /* "<id>-" and a uint32_t */
    const void *ptr[VNODE_BATCH];
    size_t len[VNODE_BATCH];
    uint64_t h[VNODE_BATCH];
    const size_t prefix = node->id_len + 1;
    for (uint32_t i = 0; i < VNODE_BATCH && i < count; i++) {
        memcpy(names[i], node->id, node->id_len);
        names[i][node->id_len] = '-';
        ptr[i] = names[i];
    }
    for (uint32_t j = 0; j < count;) {
        uint32_t m = count - j < VNODE_BATCH ? count - j : VNODE_BATCH;
        for (uint32_t i = 0; i < m; i++)
            len[i] = prefix + put_decimal(names[i] + prefix, j + i);
        batch(&b->eff_key, ptr, len, m, h);
        for (uint32_t i = 0; i < m; i++)
            out[j + i] = (entry){h[i], n, 0};
        j += m;
    }
}

/* Fill entries in (id, vnode) order for every node whose state is not
 * `excluded` (joining nodes own nothing now, draining ones nothing in the
 * target); explicit tokens keep their call order; with bal (balanced
 * tokens), every node's come from it, ascending, and in the target also
 * the draining nodes' tokens handed to it. */
static int generate(const placer_builder *b, const uint32_t *order, const uint64_t *counts,
                    int excluded, const plc_balanced *bal, entry *out)
{
    plc_hash_fn one_unused;
    plc_hash_batch_fn batch; /* the build's key hash: placer-v2, placer-v1 or SipHash-1-3 */
    int fused_unused;
    plc_hash_kernels(b->eff_hash, plc_kernels_get(), &one_unused, &batch, &fused_unused);
    /* Explicit tokens grouped per node, call order kept: offsets by counting. */
    uint32_t *first = plc_calloc((size_t)b->nnodes + 1, sizeof *first);
    uint64_t *grouped = plc_malloc((size_t)b->nexplicit * sizeof *grouped);
    if (!first || !grouped) {
        plc_free(first);
        plc_free(grouped);
        return PLACER_ENOMEM;
    }
    for (uint32_t i = 0; i < b->nexplicit; i++)
        first[b->explicit_tokens[i].node + 1]++;
    for (uint32_t n = 0; n < b->nnodes; n++)
        first[n + 1] += first[n];
    for (uint32_t i = 0; i < b->nexplicit; i++)
        grouped[first[b->explicit_tokens[i].node]++] = b->explicit_tokens[i].token;
    /* first[n] now points past node n's group; its group starts at first[n] - count. */

    size_t at = 0;
    for (uint32_t r = 0; r < b->nnodes; r++) {
        uint32_t n = order[r];
        const plc_bnode *node = &b->nodes[n];
        if (node->state == excluded)
            continue;
        if (bal) {
            for (uint32_t j = bal->first[n]; j < bal->first[n + 1]; j++)
                out[at++] = (entry){bal->tokens[j], n, 0};
            if (excluded == PLACER_NODE_DRAINING && bal->hfirst) /* the target: */
                for (uint32_t j = bal->hfirst[n]; j < bal->hfirst[n + 1]; j++) /* + handed */
                    out[at++] = (entry){bal->handed[j], n, 0};
        } else if (node->explicit_tokens) {
            const uint64_t *g = grouped + first[n] - node->explicit_tokens;
            for (uint32_t j = 0; j < node->explicit_tokens; j++)
                out[at++] = (entry){g[j], n, 0};
        } else {
            generate_vnodes(b, batch, node, n, (uint32_t)counts[n], out + at);
            at += counts[n];
        }
    }
    plc_free(first);
    plc_free(grouped);
    return 0;
}

placer_snapshot *plc_ring_assemble(const placer_builder *b, uint64_t epoch, plc_ring_input cur,
                                   plc_ring_input tgt, const uint32_t *rep_src, uint32_t rep_r)
{
    size_t node_bytes, leaf_bytes, tnode_bytes = 0, tleaf_bytes = 0;
    plc_stree_size(cur.n, &node_bytes, &leaf_bytes);
    if (tgt.n)
        plc_stree_size(tgt.n, &tnode_bytes, &tleaf_bytes);
    size_t off_leaves = node_bytes;
    size_t off_tnodes = off_leaves + leaf_bytes;
    size_t off_tleaves = off_tnodes + tnode_bytes;
    /* The line table in front of the current tree when it pays and its
     * 16-bit owners hold every node (simd/buckets.h), else the radix
     * directory when it fits the memory budget (simd/dir.h); the target
     * tree has neither (it only answers handoff questions). */
    uint32_t bkt_bits = plc_bkt_choose_bits(cur.n, b->nnodes, node_bytes + leaf_bytes);
    uint32_t dir_bits = bkt_bits ? 0 : plc_dir_choose_bits(cur.n, node_bytes + leaf_bytes);
    size_t dir_bytes = bkt_bits ? plc_bkt_bytes(bkt_bits) : dir_bits ? plc_dir_bytes(dir_bits) : 0;
    size_t off_dir = off_tleaves + tleaf_bytes;
    size_t off_rep = off_dir + dir_bytes;
    size_t rep_bytes = (size_t)cur.n * rep_r * sizeof(uint32_t);
    size_t off_lines = (off_rep + rep_bytes + 63) & ~(size_t)63;
    size_t lines_bytes = plc_replica_lines_bytes(bkt_bits, rep_r);
    unsigned char *mem;
    placer_snapshot *s = plc_snapshot_new(b, off_lines + lines_bytes, epoch, &mem);
    if (!s)
        return NULL;
    plc_stree_build(&s->tree, cur.tokens, cur.token_stride, cur.owners, cur.owner_stride, cur.n,
                    mem, mem + off_leaves);
    if (tgt.n)
        plc_stree_build(&s->target, tgt.tokens, tgt.token_stride, tgt.owners, tgt.owner_stride,
                        tgt.n, mem + off_tnodes, mem + off_tleaves);
    s->has_target = tgt.n > 0;
    if (bkt_bits) {
        const plc_kernels *k = plc_kernels_get();
        plc_bkt_build(&s->bkt, &s->tree, bkt_bits, mem + off_dir);
        s->bkt_search = k->bkt_search;
        s->bkt_search_batch = k->bkt_search_batch;
        s->bkt_index = k->bkt_index;
        if (s->lookup_batch) { /* the fused kernels: placer-v2 */
            s->bkt_lookup = k->bkt_lookup;
            s->bkt_lookup_batch = k->bkt_lookup_batch;
        }
    }
    if (dir_bits) {
        const plc_kernels *k = plc_kernels_get();
        plc_dir_build(&s->dir, &s->tree, dir_bits, mem + off_dir);
        s->dir_search = k->dir_search;
        s->dir_search_batch = k->dir_search_batch;
    }
    plc_node *nodes = (plc_node *)s->nodes;
    for (uint32_t i = 0; i < cur.n; i++)
        nodes[plc_stree_owner_at(&s->tree, i)].ntokens++;
    s->layout_bytes = dir_bytes + node_bytes + leaf_bytes + tnode_bytes + tleaf_bytes;
    /* Replica sets per slot, last: the walk needs everything above. */
    uint32_t *rep = (uint32_t *)(mem + off_rep);
    s->rep_rule = rep_r ? b->rep_rule : 0;
    if (rep_src) {
        memcpy(rep, rep_src, rep_bytes);
    } else if (rep_r && plc_replica_sets(s, rep_r, rep) != 0) {
        placer_snapshot_free(s);
        return NULL;
    }
    s->rep = rep;
    s->rep_r = rep_r;
    if (lines_bytes) { /* the sets beside the line table, from the sets */
        plc_replica_lines_build(s, (uint32_t *)(mem + off_lines));
        s->rep_lines = (const uint32_t *)(mem + off_lines);
    }
    return s;
}

/* Generate and sort the entries of one placement (nodes not `excluded`);
 * *sorted points into e or tmp. */
static int sort_placement(const placer_builder *b, const uint32_t *order, const uint64_t *counts,
                          int excluded, const plc_balanced *bal, entry *e, entry *tmp, size_t total,
                          entry **sorted)
{
    int err = generate(b, order, counts, excluded, bal, e);
    if (err)
        return err;
    *sorted = plc_radix_sort(e, tmp, total);
    return *sorted ? 0 : PLACER_ENOMEM;
}

int plc_ring_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{

    /* Balanced tokens: every node's chosen first (ring_balance.c). */
    plc_balanced bal = {0}, *balp = NULL;
    if (b->tokens == PLACER_TOKENS_BALANCED) {
        int e = plc_ring_balance(b, &bal);
        if (e)
            return e;
        balp = &bal;
    }
    uint64_t *counts = plc_malloc((size_t)b->nnodes * sizeof *counts);
    if (!counts) {
        plc_balanced_free(&bal);
        return PLACER_ENOMEM;
    }
    /* Tokens now (all but joining nodes) and after the transition (all but
     * draining nodes); a transition exists while anything joins or drains. */
    uint64_t now = 0, after = 0;
    int transition = 0;
    for (uint32_t n = 0; n < b->nnodes; n++) {
        counts[n] = balp ? bal.first[n + 1] - bal.first[n] : node_token_count(b, &b->nodes[n]);
        int state = b->nodes[n].state;
        transition |= state == PLACER_NODE_JOINING || state == PLACER_NODE_DRAINING;
        now += state != PLACER_NODE_JOINING ? counts[n] : 0;
        uint32_t handed = balp && bal.hfirst ? bal.hfirst[n + 1] - bal.hfirst[n] : 0;
        after += state != PLACER_NODE_DRAINING ? counts[n] + handed : 0;
        if (counts[n] == 0 || now > PLACER_MAX_TOKENS || after > PLACER_MAX_TOKENS) {
            const plc_bnode *x = &b->nodes[n];
            double want = counts[n] ? (double)counts[n] : x->weight * (double)b->vnodes;
            plc_free(counts);
            plc_balanced_free(&bal);
            if (!(want <= (double)PLACER_MAX_TOKENS))
                return plc_builder_refuse_code(b, PLACER_ETOOMANY,
                                               "node %s: weight %g x %u vnodes is %.0f tokens, past "
                                               "PLACER_MAX_TOKENS (%u)",
                                               x->id, x->weight, b->vnodes, want, PLACER_MAX_TOKENS);
            return plc_builder_refuse_code(b, PLACER_ETOOMANY,
                                           "node %s brings the tokens to %llu, past PLACER_MAX_TOKENS "
                                           "(%u) in all",
                                           x->id, (unsigned long long)(now > after ? now : after),
                                           PLACER_MAX_TOKENS);
        }
    }
    if (!now || (transition && !after)) {
        plc_free(counts);
        plc_balanced_free(&bal);
        return PLACER_ENONODES;
    }
    if (!transition)
        after = 0;
    int err = PLACER_ENOMEM;
    placer_snapshot *s = NULL;
    uint32_t *order = plc_builder_order(b, 0);
    /* Large and written once: the huge-page path of the allocator saves a
     * page fault per 4 KiB, which dominated the build of big rings. */
    entry *e = plc_aligned_alloc((size_t)now * sizeof *e);
    entry *tmp = plc_aligned_alloc((size_t)now * sizeof *tmp);
    entry *te = after ? plc_aligned_alloc((size_t)after * sizeof *te) : NULL;
    entry *ttmp = after ? plc_aligned_alloc((size_t)after * sizeof *ttmp) : NULL;
    entry *cur = NULL, *tgt = NULL;
    if (order && e && tmp && (!after || (te && ttmp)) &&
        (err = sort_placement(b, order, counts, PLACER_NODE_JOINING, balp, e, tmp, now, &cur)) == 0 &&
        (!after ||
         (err = sort_placement(b, order, counts, PLACER_NODE_DRAINING, balp, te, ttmp, after, &tgt)) ==
             0)) {
        plc_ring_input in_cur = {&cur[0].token, sizeof(entry), &cur[0].owner, sizeof(entry),
                                 (uint32_t)now};
        plc_ring_input in_tgt = {tgt ? &tgt[0].token : NULL, sizeof(entry),
                                 tgt ? &tgt[0].owner : NULL, sizeof(entry), (uint32_t)after};
        s = plc_ring_assemble(b, epoch, in_cur, in_tgt, NULL, b->replicas);
        err = s ? 0 : PLACER_ENOMEM;
    }
    plc_free(order);
    plc_free(e);
    plc_free(tmp);
    plc_free(te);
    plc_free(ttmp);
    plc_free(counts);
    plc_balanced_free(&bal);
    if (!err)
        *out = s;
    return err;
}
