/*
 * ring_build.c -- turn a builder into an immutable ring snapshot.
 *
 * Order of equal tokens is part of the protocol: (token, node id, vnode
 * index). Rather than compare strings while sorting, the entries are
 * generated already ordered by (id, vnode) -- nodes visited in id order,
 * vnodes ascending -- and then sorted by token with a stable MSD radix sort,
 * which keeps that order among equal tokens. The sort is O(n) and needs no
 * comparison callback, which matters for 2^20-token rings.
 *
 * A ring without a transition (nothing joining or draining) is sorted in
 * its snapshot: the payload is allocated first and the entries generated
 * where its leaves go (the line table or directory behind them leaves room
 * for 16 bytes a token), sorted there, and the tree laid over them; past
 * 64 Ki tokens the names are hashed twice, counted by their top digit, then
 * scattered into their buckets, so no buffer as large as the entries is
 * ever allocated beside the snapshot. A transition's two placements use
 * two buffers beside it.
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

typedef plc_sort_entry entry; /* seq: the entry's index as generated */

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

/* Where generated entries go: in order at out (SINK_LIST); only counted,
 * by the digit at shift, with the OR of their differences from the first
 * (SINK_COUNT); or each to its digit's next slot at out (SINK_SCATTER, a
 * stable scatter). The in-place build generates twice: counting, then
 * scattering. */
enum { SINK_LIST, SINK_COUNT, SINK_SCATTER };

typedef struct sink {
    int mode;
    int shift;
    uint64_t mask;
    entry *out;
    size_t *slot; /* per digit: the count, or the next slot */
    uint64_t first, diff;
    uint32_t seq; /* entries so far */
} sink;

static inline void emit(sink *k, uint64_t token, uint32_t owner)
{
    entry e = {token, owner, k->seq++};
    size_t d = (size_t)(token >> k->shift & k->mask);
    if (k->mode == SINK_LIST) {
        k->out[e.seq] = e;
    } else if (k->mode == SINK_COUNT) {
        k->first = e.seq ? k->first : token;
        k->diff |= token ^ k->first;
        k->slot[d]++;
    } else {
        k->out[k->slot[d]++] = e;
    }
}

/* The decimal digits of 0 .. DEC_TABLE - 1, made once per generation: a
 * name's digits are one 8-byte copy instead of a division per digit (a
 * tenth of a large build). */
#define DEC_TABLE 65536u

typedef struct dec_entry {
    char d[7]; /* up to 5 digits, then zero bytes */
    unsigned char len;
} dec_entry;

static void generate_vnodes(const placer_builder *b, plc_hash_batch_fn batch, const plc_bnode *node,
                            uint32_t n, uint32_t count, const dec_entry *dec, uint32_t ndec,
                            sink *out)
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
            if (j + i < ndec) { /* the name buffer has room for the whole entry */
                memcpy(names[i] + prefix, dec[j + i].d, sizeof dec->d);
                len[i] = prefix + dec[j + i].len;
            } else {
                len[i] = prefix + put_decimal(names[i] + prefix, j + i);
            }
        batch(&b->eff_key, ptr, len, m, h);
        for (uint32_t i = 0; i < m; i++)
            emit(out, h[i], n);
        j += m;
    }
}

/* Fill entries in (id, vnode) order for every node whose state is not
 * `excluded` (joining nodes own nothing now, draining ones nothing in the
 * target); explicit tokens keep their call order; with bal (balanced
 * tokens), every node's come from it, ascending, and in the target also
 * the draining nodes' tokens handed to it. */
static int generate(const placer_builder *b, const uint32_t *order, const uint64_t *counts,
                    int excluded, const plc_balanced *bal, sink *out)
{
    plc_hash_fn one_unused;
    plc_hash_batch_fn batch; /* the build's key hash: placer-v2, placer-v1 or SipHash-1-3 */
    int fused_unused;
    plc_hash_kernels(b->eff_hash, plc_kernels_get(), &one_unused, &batch, &fused_unused);
    /* Explicit tokens grouped per node, call order kept: offsets by counting. */
    uint32_t *first = plc_calloc((size_t)b->nnodes + 1, sizeof *first);
    uint64_t *grouped = plc_malloc((size_t)b->nexplicit * sizeof *grouped);
    uint64_t most = 0; /* the most tokens a node's names take */
    for (uint32_t n = 0; n < b->nnodes; n++)
        if (!bal && !b->nodes[n].explicit_tokens && counts[n] > most)
            most = counts[n];
    uint32_t ndec = most < DEC_TABLE ? (uint32_t)most : DEC_TABLE;
    dec_entry *dec = plc_calloc(ndec ? ndec : 1, sizeof *dec);
    if (!first || !grouped || !dec) {
        plc_free(first);
        plc_free(grouped);
        plc_free(dec);
        return PLACER_ENOMEM;
    }
    for (uint32_t v = 0; v < ndec; v++)
        dec[v].len = (unsigned char)put_decimal(dec[v].d, v);
    for (uint32_t i = 0; i < b->nexplicit; i++)
        first[b->explicit_tokens[i].node + 1]++;
    for (uint32_t n = 0; n < b->nnodes; n++)
        first[n + 1] += first[n];
    for (uint32_t i = 0; i < b->nexplicit; i++)
        grouped[first[b->explicit_tokens[i].node]++] = b->explicit_tokens[i].token;
    /* first[n] now points past node n's group; its group starts at first[n] - count. */

    for (uint32_t r = 0; r < b->nnodes; r++) {
        uint32_t n = order[r];
        const plc_bnode *node = &b->nodes[n];
        if (node->state == excluded)
            continue;
        if (bal) {
            for (uint32_t j = bal->first[n]; j < bal->first[n + 1]; j++)
                emit(out, bal->tokens[j], n);
            if (excluded == PLACER_NODE_DRAINING && bal->hfirst) /* the target: */
                for (uint32_t j = bal->hfirst[n]; j < bal->hfirst[n + 1]; j++) /* + handed */
                    emit(out, bal->handed[j], n);
        } else if (node->explicit_tokens) {
            const uint64_t *g = grouped + first[n] - node->explicit_tokens;
            for (uint32_t j = 0; j < node->explicit_tokens; j++)
                emit(out, g[j], n);
        } else {
            generate_vnodes(b, batch, node, n, (uint32_t)counts[n], dec, ndec, out);
        }
    }
    plc_free(first);
    plc_free(grouped);
    plc_free(dec);
    return 0;
}

/* Where a ring snapshot's parts go in its payload. */
typedef struct ring_plan {
    size_t node_bytes, leaf_bytes, tnode_bytes, tleaf_bytes, dir_bytes, rep_bytes, lines_bytes;
    size_t wide_bytes;
    size_t off_leaves, off_tnodes, off_tleaves, off_dir, off_rep, off_lines, off_wide, payload;
    uint32_t bkt_bits, dir_bits;
} ring_plan;

static void plan_ring(const placer_builder *b, uint32_t n, uint32_t tn, uint32_t rep_r,
                      ring_plan *p)
{
    *p = (ring_plan){0};
    plc_stree_size(n, &p->node_bytes, &p->leaf_bytes);
    if (tn)
        plc_stree_size(tn, &p->tnode_bytes, &p->tleaf_bytes);
    p->off_leaves = p->node_bytes;
    p->off_tnodes = p->off_leaves + p->leaf_bytes;
    p->off_tleaves = p->off_tnodes + p->tnode_bytes;
    /* The line table in front of the current tree when it pays and its
     * 16-bit owners hold every node (simd/buckets.h), else the radix
     * directory when it fits the memory budget (simd/dir.h); the target
     * tree has neither (it only answers handoff questions). */
    size_t tree = p->node_bytes + p->leaf_bytes;
    p->bkt_bits = plc_bkt_choose_bits(n, b->nnodes, tree);
    p->dir_bits = p->bkt_bits ? 0 : plc_dir_choose_bits(n, tree);
    p->dir_bytes = p->bkt_bits   ? plc_bkt_bytes(p->bkt_bits)
                   : p->dir_bits ? plc_dir_bytes(p->dir_bits)
                                 : 0;
    p->off_dir = p->off_tleaves + p->tleaf_bytes;
    p->off_rep = p->off_dir + p->dir_bytes;
    p->rep_bytes = (size_t)n * rep_r * sizeof(uint32_t);
    p->off_lines = (p->off_rep + p->rep_bytes + 63) & ~(size_t)63;
    p->lines_bytes = plc_replica_lines_bytes(p->bkt_bits, rep_r);
    p->off_wide = p->off_lines + p->lines_bytes; /* 64-byte multiples: aligned */
    p->wide_bytes = plc_replica_wide_bytes(p->bkt_bits, rep_r, b->nnodes);
    p->payload = p->off_wide + p->wide_bytes;
}

/* Lay out s's payload (mem, as p plans it) from the sorted tokens: the
 * trees, the line table or directory, the replica sets. cur's tokens may
 * lie where the leaves go (plc_stree_build); nothing after the trees reads
 * them. Frees s and returns NULL when the replica sets run out of memory. */
static placer_snapshot *fill_ring(placer_snapshot *s, unsigned char *mem, const ring_plan *p,
                                  const placer_builder *b, plc_ring_input cur, plc_ring_input tgt,
                                  const uint32_t *rep_src, uint32_t rep_r)
{
    plc_stree_build(&s->tree, cur.tokens, cur.token_stride, cur.owners, cur.owner_stride, cur.n,
                    mem, mem + p->off_leaves);
    if (tgt.n)
        plc_stree_build(&s->target, tgt.tokens, tgt.token_stride, tgt.owners, tgt.owner_stride,
                        tgt.n, mem + p->off_tnodes, mem + p->off_tleaves);
    s->has_target = tgt.n > 0;
    plc_replicas_walk_kernels(s, plc_kernels_get()->walk_window,
                              p->bkt_bits ? plc_kernels_get()->walk_lines : NULL);
    if (p->bkt_bits) {
        const plc_kernels *k = plc_kernels_get();
        plc_bkt_build(&s->bkt, &s->tree, p->bkt_bits, mem + p->off_dir);
        s->bkt_search = k->bkt_search;
        s->bkt_search_batch = k->bkt_search_batch;
        s->bkt_index = k->bkt_index;
        if (s->lookup_batch) { /* the fused kernels: placer-v2 */
            s->bkt_lookup = k->bkt_lookup;
            s->bkt_lookup_batch = k->bkt_lookup_batch;
        }
    }
    if (p->dir_bits) {
        const plc_kernels *k = plc_kernels_get();
        plc_dir_build(&s->dir, &s->tree, p->dir_bits, mem + p->off_dir);
        s->dir_search = k->dir_search;
        s->dir_search_batch = k->dir_search_batch;
    }
    plc_node *nodes = (plc_node *)s->nodes;
    for (uint32_t i = 0; i < cur.n; i++)
        nodes[plc_stree_owner_at(&s->tree, i)].ntokens++;
    s->layout_bytes = p->dir_bytes + p->node_bytes + p->leaf_bytes + p->tnode_bytes + p->tleaf_bytes;
    /* Replica sets per slot, last: the walk needs everything above. */
    uint32_t *rep = (uint32_t *)(mem + p->off_rep);
    s->rep_rule = rep_r ? b->rep_rule : 0;
    if (rep_src) {
        memcpy(rep, rep_src, p->rep_bytes);
    } else if (rep_r && plc_replica_sets(s, rep_r, rep) != 0) {
        placer_snapshot_free(s);
        return NULL;
    }
    s->rep = rep;
    s->rep_r = rep_r;
    if (p->lines_bytes) { /* the sets beside the line table, from the sets */
        plc_replica_lines_build(s, mem + p->off_lines);
        s->rep_lines = mem + p->off_lines;
        s->rep_lines_want = s->rep_rule ? 3 : rep_r < 3 ? rep_r : 3;
        if (s->bkt_lookup) { /* placer-v2: the fused kernels */
            const plc_kernels *k = plc_kernels_get();
            s->bkt_set = k->bkt_set;
            s->bkt_sets_batch = k->bkt_sets_batch;
        }
    }
    if (p->wide_bytes) { /* sets of 4 or 5 beside the line table, likewise */
        plc_replica_wide_build(s, mem + p->off_wide);
        s->rep_wide = mem + p->off_wide;
        s->rep_wide_lane = plc_replica_wide_lane_bytes(s->nnodes);
        s->rep_wide_span = s->rep_rule ? UINT32_MAX - 3 : rep_r - 3;
    }
    return s;
}

placer_snapshot *plc_ring_assemble(const placer_builder *b, uint64_t epoch, plc_ring_input cur,
                                   plc_ring_input tgt, const uint32_t *rep_src, uint32_t rep_r)
{
    ring_plan p;
    plan_ring(b, cur.n, tgt.n, rep_r, &p);
    unsigned char *mem;
    placer_snapshot *s = plc_snapshot_new(b, p.payload, epoch, &mem);
    return s ? fill_ring(s, mem, &p, b, cur, tgt, rep_src, rep_r) : NULL;
}

/* Scratch of the in-place sort, in entries (1 MiB): a ring of 2^25 tokens
 * scatters into 2,048 buckets of about 16 Ki entries, each sorted in it. */
#define IN_PLACE_SCRATCH 65536u
#define FIRST_WIDTH 11u /* the scatter's digit: 2,048 buckets */

/* The entries of a ring without a transition into e[0..n), sorted, with
 * scratch[0..cap). Up to cap entries: generated in order, sorted in place.
 * More: generated twice, without being stored the first time: counted by
 * their top digit (FIRST_WIDTH bits below the highest bit in which any
 * differ), then scattered stably into their buckets in e, each bucket
 * sorted in place in cache. The names are hashed twice, which costs less
 * than a second buffer as large as e or an in-place split of it over
 * memory (each swap a dependent miss: 1.6x the floor at 2^24 tokens). */
static int sort_in_snapshot(const placer_builder *b, const uint32_t *order, const uint64_t *counts,
                            const plc_balanced *bal, entry *e, size_t n, entry *scratch,
                            size_t cap)
{
    if (n <= cap) {
        sink list = {SINK_LIST, 0, 0, e, NULL, 0, 0, 0};
        int err = generate(b, order, counts, PLACER_NODE_JOINING, bal, &list);
        if (!err)
            plc_radix_sort_in_place(e, n, 64, scratch, cap);
        return err;
    }
    size_t slot[1u << FIRST_WIDTH] = {0}, end[1u << FIRST_WIDTH];
    const uint64_t mask = (1u << FIRST_WIDTH) - 1;
    sink k = {SINK_COUNT, 64 - FIRST_WIDTH, mask, e, slot, 0, 0, 0};
    int err = generate(b, order, counts, PLACER_NODE_JOINING, bal, &k);
    if (!err && k.diff && !(k.diff >> k.shift)) { /* equal high bits: count below them */
        int high = 63 - __builtin_clzll(k.diff);
        k.shift = high >= (int)FIRST_WIDTH - 1 ? high - (int)FIRST_WIDTH + 1 : 0;
        k.seq = 0;
        memset(slot, 0, sizeof slot);
        err = generate(b, order, counts, PLACER_NODE_JOINING, bal, &k);
    }
    if (err)
        return err;
    if (!k.diff) { /* every token equal: the order generated is sorted */
        sink list = {SINK_LIST, 0, 0, e, NULL, 0, 0, 0};
        return generate(b, order, counts, PLACER_NODE_JOINING, bal, &list);
    }
    for (size_t v = 0, at = 0; v <= mask; v++) {
        at += slot[v];
        end[v] = at;
        slot[v] = at - slot[v];
    }
    k.mode = SINK_SCATTER;
    k.seq = 0;
    if ((err = generate(b, order, counts, PLACER_NODE_JOINING, bal, &k)) != 0)
        return err;
    if (k.shift) /* bits from k.shift up are equal in a bucket */
        for (size_t v = 0, lo = 0; v <= mask; lo = end[v++])
            plc_radix_sort_in_place(e + lo, end[v] - lo, k.shift, scratch, cap);
    return 0;
}

/* A ring without a transition, sorted where its leaves go: its entries
 * generated into the snapshot's payload at the leaves' offset (p says
 * they fit), sorted there (sort_in_snapshot), and the tree laid over them
 * (plc_stree_build reads each line's tokens before writing it). No buffer
 * as large as the entries besides the snapshot, so the build's peak
 * memory is about the snapshot's, and no scratch pages are faulted in per
 * build. The same bytes as the two-buffer path's: ties in the order
 * generated. */
static int build_in_place(const placer_builder *b, uint64_t epoch, const uint32_t *order,
                          const uint64_t *counts, const plc_balanced *bal, const ring_plan *p,
                          uint32_t n, placer_snapshot **out)
{
    size_t cap = n < IN_PLACE_SCRATCH ? n : IN_PLACE_SCRATCH;
    entry *scratch = plc_malloc(cap * sizeof *scratch);
    unsigned char *mem = NULL;
    placer_snapshot *s = scratch ? plc_snapshot_new(b, p->payload, epoch, &mem) : NULL;
    entry *e = s ? (entry *)(mem + p->off_leaves) : NULL;
    int err = s ? sort_in_snapshot(b, order, counts, bal, e, n, scratch, cap) : PLACER_ENOMEM;
    plc_free(scratch);
    if (err) {
        placer_snapshot_free(s);
        return err;
    }
    plc_ring_input cur = {&e[0].token, sizeof(entry), &e[0].owner, sizeof(entry), n};
    plc_ring_input none = {NULL, 0, NULL, 0, 0};
    s = fill_ring(s, mem, p, b, cur, none, NULL, b->replicas);
    if (!s)
        return PLACER_ENOMEM;
    *out = s;
    return 0;
}

/* Generate and sort the entries of one placement (nodes not `excluded`);
 * *sorted points into e or tmp. */
static int sort_placement(const placer_builder *b, const uint32_t *order, const uint64_t *counts,
                          int excluded, const plc_balanced *bal, entry *e, entry *tmp, size_t total,
                          entry **sorted)
{
    sink list = {SINK_LIST, 0, 0, e, NULL, 0, 0, 0};
    int err = generate(b, order, counts, excluded, bal, &list);
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
    ring_plan plan;
    plan_ring(b, (uint32_t)now, 0, b->replicas, &plan);
    if (!after && plan.payload - plan.off_leaves >= (size_t)now * sizeof(entry)) {
        err = order ? build_in_place(b, epoch, order, counts, balp, &plan, (uint32_t)now, out)
                    : PLACER_ENOMEM;
        plc_free(order);
        plc_free(counts);
        plc_balanced_free(&bal);
        return err;
    }
    /* A transition, or a payload too small for the entries (no line table
     * or directory behind the leaves): two buffers beside the snapshot.
     * Large and written once: the huge-page path of the allocator saves a
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
