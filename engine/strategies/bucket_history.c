/*
 * bucket_history.c -- builds, snapshots, replicas and codec sections of
 * the strategies whose buckets may leave anywhere (bucket_history.h).
 *
 * A placement is built from a starting state -- the previous snapshot's
 * (placer_builder_set_previous, nodes matched by id; its target when it
 * was in transition), the current placement for a transition's target,
 * or a fresh one (memento: no bucket; anchor, dx: the capacity, every
 * bucket removed, 0 to be added first):
 *   1. each bucket in use keeps its node while the node is in the
 *      placement and has fewer than max(1, round(weight)) buckets (its
 *      lowest-numbered ones stay); an explicit bucket
 *      (placer_builder_add_token) in use goes to the node that names it;
 *   2. every other bucket in use is removed, highest first (so memento's
 *      last bucket shrinks its range when nothing else is removed);
 *   3. nodes short of buckets take, in id order, the buckets the algorithm
 *      adds: the last removed first, then (memento) new ones at the end.
 *      An explicit bucket that is removed comes back when the algorithm
 *      adds it (dx: at once), to the node naming it; one the additions do
 *      not reach before every other node is served is PLACER_EINVAL, as
 *      are two nodes naming one bucket, and (anchor, dx) more buckets than
 *      the capacity.
 * A removal moves only the removed bucket's keys and an addition moves
 * keys only to the added bucket (the algorithms' property), so a node
 * leaving moves exactly its keys, and one joining takes keys only for
 * itself. The same membership history gives the same state, byte for
 * byte.
 *
 * Except past the bound: a placement whose longest walk (rules->walk) is
 * over PLACER_MAX_WALK steps, or (memento) whose buckets number more than
 * max_ratio per working one, is what a history removing most buckets
 * leaves, and its lookups cost up to O(buckets) (65,536 nodes down to one:
 * milliseconds a lookup). The build is then re-based: the placement made
 * as without a previous snapshot (the working nodes' buckets from 0, the
 * default capacity), the keys moved measured and kept for
 * placer_builder_rebased; a placement still over the bound (an explicit
 * capacity far above the nodes) is refused. The decoder refuses a file
 * over the bound: no snapshot ever costs more.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bucket_history.h"
#include "codec_decode.h"
#include "kernels.h"
#include "named.h"

#define PLC_STR_(x) #x
#define PLC_STR(x) PLC_STR_(x)
#define GONE (PLC_NO_NODE - 1) /* a bucket in use whose node does not keep it */

typedef struct state {
    uint32_t n, cap, nhist;
    uint32_t *own, *hist; /* [cap] each */
} state;

static void state_free(state *st)
{
    plc_free(st->own);
    plc_free(st->hist);
}

static int state_room(state *st, uint64_t need)
{
    if (need <= st->cap)
        return 0;
    if (need > PLACER_MAX_TOKENS)
        return PLACER_ETOOMANY;
    uint32_t cap = st->cap ? st->cap : 64;
    while (cap < need)
        cap *= 2;
    uint32_t *own = plc_realloc(st->own, (size_t)cap * sizeof *own);
    if (own)
        st->own = own;
    uint32_t *hist = own ? plc_realloc(st->hist, (size_t)cap * sizeof *hist) : NULL;
    if (!hist)
        return PLACER_ENOMEM;
    st->hist = hist;
    st->cap = cap;
    return 0;
}

static uint32_t auto_buckets(const plc_bnode *n)
{
    double w = round(n->weight);
    return w < 1 ? 1 : w > (double)PLACER_MAX_TOKENS ? PLACER_MAX_TOKENS + 1 : (uint32_t)w;
}

/* Buckets each node wants in the placement, and their total. */
static uint64_t wanted(const placer_builder *b, int target, uint32_t *want)
{
    uint64_t total = 0;
    for (uint32_t n = 0; n < b->nnodes; n++) {
        int in = plc_in_placement(b->nodes[n].state, target);
        uint32_t w = in && !b->nodes[n].explicit_tokens ? auto_buckets(&b->nodes[n]) : 0;
        if (want)
            want[n] = w;
        total += w;
    }
    for (uint32_t i = 0; i < b->nexplicit; i++) {
        const plc_btoken *t = &b->explicit_tokens[i];
        if (plc_in_placement(b->nodes[t->node].state, target)) {
            if (want)
                want[t->node]++;
            total++;
        }
    }
    return total;
}

static uint32_t capacity_of(const plc_bhist_rules *r, uint64_t want)
{
    uint64_t c = want > PLACER_MAX_TOKENS ? PLACER_MAX_TOKENS : want;
    if (r->pow2)
        for (uint64_t p = 1;; p *= 2)
            if (p >= c)
                return (uint32_t)p;
    return (uint32_t)c;
}

/* The start: previous's state in b's node indices, or a fresh one (also
 * when `fresh`: a re-base). */
static int start_state(placer_builder *b, const plc_bhist_rules *r, state *st, int fresh)
{
    const placer_snapshot *p = fresh ? NULL : b->previous;
    if (!p) {
        if (!r->fixed)
            return 0;
        uint64_t total = wanted(b, 0, NULL);
        uint32_t cap = capacity_of(r, b->capacity ? b->capacity : total < 32 ? 64 : 2 * total);
        int err = state_room(st, cap);
        if (err)
            return err;
        st->n = cap;
        for (uint32_t i = 0; i < cap; i++) {
            st->own[i] = PLC_NO_NODE;
            st->hist[i] = cap - 1 - i; /* 0 on top: added first */
        }
        st->nhist = cap;
        return 0;
    }
    if (p->strategy != r->strategy)
        return PLACER_EINVAL;
    const plc_bhist *h = plc_bhist_of(p, p->has_target);
    if (r->fixed && b->capacity && capacity_of(r, b->capacity) != h->n)
        return plc_builder_refuse(b, "%s: the capacity is %u, fixed by the previous snapshot",
                                  p->ops->name, h->n);
    int err = state_room(st, h->n ? h->n : 1);
    if (err)
        return err;
    st->n = h->n;
    st->nhist = h->nhist;
    memcpy(st->hist, h->hist, (size_t)h->nhist * sizeof *st->hist);
    for (uint32_t i = 0; i < h->n; i++) {
        int mine = h->own[i] == PLC_NO_NODE ? -1 : plc_builder_find(b, p->nodes[h->own[i]].id);
        st->own[i] = h->own[i] == PLC_NO_NODE ? PLC_NO_NODE : mine < 0 ? GONE : (uint32_t)mine;
    }
    return 0;
}

static int cmp_token(const void *x, const void *y)
{
    const plc_btoken *a = x, *c = y;
    return a->token < c->token ? -1 : a->token > c->token;
}

/* The node naming bucket k among the sorted claims, or PLC_NO_NODE. */
static uint32_t claim_of(const plc_btoken *claims, uint32_t nclaims, uint64_t k)
{
    uint32_t lo = 0, hi = nclaims;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (claims[mid].token < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nclaims && claims[lo].token == k ? claims[lo].node : PLC_NO_NODE;
}

static void remove_bucket(const plc_bhist_rules *r, state *st, uint32_t k)
{
    st->own[k] = PLC_NO_NODE;
    if (!r->fixed && st->nhist == 0 && k == st->n - 1)
        st->n--; /* memento: jump's range shrinks */
    else
        st->hist[st->nhist++] = k;
}

/* The bucket the algorithm adds next, or -1 at capacity. */
static int64_t add_bucket(const plc_bhist_rules *r, state *st, int *err)
{
    if (st->nhist)
        return st->hist[--st->nhist];
    if (r->fixed)
        return -1;
    if ((*err = state_room(st, (uint64_t)st->n + 1)))
        return -1;
    st->own[st->n] = PLC_NO_NODE;
    return st->n++;
}

typedef struct work {
    uint32_t *want, *have;
    plc_btoken *claims;
    uint32_t nclaims;
    plc_named *order;
    uint32_t norder;
} work;

static int prepare(const placer_builder *b, int target, work *w)
{
    w->want = plc_calloc(b->nnodes, sizeof *w->want);
    w->have = plc_calloc(b->nnodes, sizeof *w->have);
    w->claims = plc_malloc(((size_t)b->nexplicit + 1) * sizeof *w->claims);
    w->order = plc_malloc(((size_t)b->nnodes + 1) * sizeof *w->order);
    if (!w->want || !w->have || !w->claims || !w->order)
        return PLACER_ENOMEM;
    if (wanted(b, target, w->want) > PLACER_MAX_TOKENS)
        return PLACER_ETOOMANY;
    for (uint32_t i = 0; i < b->nexplicit; i++) {
        const plc_btoken *t = &b->explicit_tokens[i];
        if (t->token >= PLACER_MAX_TOKENS)
            return PLACER_ETOOMANY;
        if (plc_in_placement(b->nodes[t->node].state, target))
            w->claims[w->nclaims++] = *t;
    }
    qsort(w->claims, w->nclaims, sizeof *w->claims, cmp_token);
    for (uint32_t n = 0; n < b->nnodes; n++)
        if (!b->nodes[n].explicit_tokens && plc_in_placement(b->nodes[n].state, target))
            w->order[w->norder++] = (plc_named){b->nodes[n].id, n};
    qsort(w->order, w->norder, sizeof *w->order, plc_cmp_named);
    return 0;
}

static void work_free(work *w)
{
    plc_free(w->want);
    plc_free(w->have);
    plc_free(w->claims);
    plc_free(w->order);
}

/* Steps 1-3 of the file's comment, on st. */
static int settle(placer_builder *b, const plc_bhist_rules *r, state *st, work *w)
{
    for (uint32_t i = 1; i < w->nclaims; i++)
        if (w->claims[i].token == w->claims[i - 1].token)
            return plc_builder_refuse(b, "two nodes name bucket %llu",
                                      (unsigned long long)w->claims[i].token);
    for (uint32_t i = 0; i < st->n; i++) { /* 1: keep */
        uint32_t o = st->own[i], c = claim_of(w->claims, w->nclaims, i);
        if (o == PLC_NO_NODE)
            continue;
        if (c != PLC_NO_NODE)
            st->own[i] = c;
        else if (o != GONE && w->want[o] > w->have[o] && !b->nodes[o].explicit_tokens)
            c = o;
        else
            st->own[i] = GONE;
        if (c != PLC_NO_NODE)
            w->have[c]++;
    }
    for (uint32_t i = st->n; i-- > 0;) /* 2: remove */
        if (st->own[i] == GONE)
            remove_bucket(r, st, i);
    for (uint32_t i = 0; r->any_add && i < w->nclaims; i++) { /* dx: named buckets back now */
        uint64_t k = w->claims[i].token;
        if (k >= st->n)
            return plc_builder_refuse(b, "bucket %llu is past the capacity %u",
                                      (unsigned long long)k, st->n);
        if (st->own[k] != PLC_NO_NODE)
            continue;
        uint32_t j = 0;
        while (st->hist[j] != k)
            j++;
        memmove(st->hist + j, st->hist + j + 1, (size_t)(st->nhist - j - 1) * sizeof *st->hist);
        st->nhist--;
        st->own[k] = w->claims[i].node;
        w->have[w->claims[i].node]++;
    }
    uint64_t lacking = 0;
    for (uint32_t n = 0; n < b->nnodes; n++)
        lacking += w->want[n] - w->have[n];
    for (uint32_t next = 0; lacking; lacking--) { /* 3: add */
        int err = 0;
        int64_t k = add_bucket(r, st, &err);
        if (err)
            return err;
        if (k < 0)
            return plc_builder_refuse(b, "%s: %llu buckets more than its capacity of %u hold",
                                      b->ops->name,
                                      (unsigned long long)lacking, st->n);
        uint32_t c = claim_of(w->claims, w->nclaims, (uint64_t)k);
        while (c == PLC_NO_NODE && next < w->norder &&
               w->have[w->order[next].index] >= w->want[w->order[next].index])
            next++;
        if (c == PLC_NO_NODE && next == w->norder)
            return plc_builder_refuse(b, "a named bucket is not among those %s adds next (%lld)",
                                      b->ops->name, (long long)k);
        if (c == PLC_NO_NODE)
            c = w->order[next].index;
        st->own[k] = c;
        w->have[c]++;
    }
    return 0;
}

static int place(placer_builder *b, const plc_bhist_rules *r, int target, state *st)
{
    work w = {0};
    int err = prepare(b, target, &w);
    if (!err)
        err = settle(b, r, st, &w);
    work_free(&w);
    /* No bucket in use (every node joining, or every one draining in the
     * target): refused as jump refuses it. The lookups' walks end only on
     * a bucket in use, and the decoder refuses such a table. */
    if (!err && st->nhist == st->n)
        err = PLACER_ENONODES;
    return err;
}

static size_t align_up(size_t n)
{
    return (n + PLC_CACHE_LINE - 1) & ~(size_t)(PLC_CACHE_LINE - 1);
}

static size_t placement_bytes(const plc_bhist_rules *r, const state *st)
{
    size_t words = (size_t)st->n * 2 + r->aux_words(st->n, st->nhist);
    return align_up(sizeof(plc_bhist)) + words * sizeof(uint32_t);
}

/* One placement into the payload at `at`; NULL when out of memory. */
static plc_bhist *lay_out(const plc_bhist_rules *r, const state *st, unsigned char *at)
{
    plc_bhist *h = (plc_bhist *)at;
    uint32_t *own = (uint32_t *)(at + align_up(sizeof *h));
    uint32_t *hist = own + st->n, *wk = hist + st->nhist, *aux = wk + (st->n - st->nhist);
    memcpy(own, st->own, (size_t)st->n * sizeof *own);
    memcpy(hist, st->hist, (size_t)st->nhist * sizeof *hist);
    uint32_t nw = 0;
    for (uint32_t i = 0; i < st->n; i++)
        if (own[i] != PLC_NO_NODE)
            wk[nw++] = i;
    const plc_kernels *k = plc_kernels_get();
    *h = (plc_bhist){st->n, st->nhist, nw, 0, own, hist, wk, aux, k->jump, k->jump_batch};
    return r->aux_fill(h, aux, &h->mask) ? NULL : h;
}

static int assemble(const placer_builder *b, uint64_t epoch, const plc_bhist_rules *r,
                    const state *cur, const state *tgt, placer_snapshot **out)
{
    size_t cb = placement_bytes(r, cur), tb = tgt ? placement_bytes(r, tgt) : 0;
    unsigned char *at;
    placer_snapshot *s = plc_snapshot_new(b, align_up(cb) + tb, epoch, &at);
    if (!s)
        return PLACER_ENOMEM;
    s->bh = lay_out(r, cur, at);
    if (tgt)
        s->tbh = lay_out(r, tgt, at + align_up(cb));
    if (!s->bh || (tgt && !s->tbh)) {
        placer_snapshot_free(s);
        return PLACER_ENOMEM;
    }
    s->table = plc_table_of(s->bh->own, cur->n, 1);
    if (tgt) {
        s->ttable = plc_table_of(s->tbh->own, tgt->n, 1);
        s->has_target = 1;
    }
    s->layout_bytes = cb + tb;
    plc_node *nodes = (plc_node *)s->nodes;
    for (uint32_t i = 0; i < cur->n; i++)
        if (cur->own[i] != PLC_NO_NODE)
            nodes[cur->own[i]].ntokens++;
    *out = s;
    return 0;
}

static const plc_bhist_rules *rules_of(const placer_builder *b)
{
    return b->ops->module;
}

int plc_bhist_over_bound(const plc_bhist_rules *r, const plc_bhist *h, uint64_t *walk)
{
    uint32_t *scratch = plc_malloc(((size_t)h->n + 1) * 4 * sizeof *scratch);
    if (!scratch)
        return PLACER_ENOMEM;
    *walk = r->walk(h, scratch);
    plc_free(scratch);
    uint64_t working = h->n - h->nhist;
    return *walk > PLACER_MAX_WALK || (r->max_ratio && h->n > r->max_ratio * working);
}

static int state_over_bound(const plc_bhist_rules *r, const state *st, uint64_t *walk)
{
    plc_bhist h = {st->n, st->nhist, st->n - st->nhist, 0, st->own, st->hist, NULL, NULL, NULL, NULL};
    return plc_bhist_over_bound(r, &h, walk);
}

/* The current placement and, in a transition, the target: from previous,
 * or fresh. *over: 1 when either is over the bound. */
static int placements(placer_builder *b, const plc_bhist_rules *r, int fresh, state *cur,
                      state *tgt, int *over)
{
    int moving = plc_builder_in_transition(b);
    int err = start_state(b, r, cur, fresh);
    if (!err)
        err = place(b, r, 0, cur);
    if (!err && moving && !(err = state_room(tgt, cur->cap))) {
        tgt->n = cur->n;
        tgt->nhist = cur->nhist;
        memcpy(tgt->own, cur->own, (size_t)cur->n * sizeof *tgt->own);
        memcpy(tgt->hist, cur->hist, (size_t)cur->nhist * sizeof *tgt->hist);
        err = place(b, r, 1, tgt);
    }
    uint64_t walk = 0, twalk = 0;
    int o = err || b->unbounded ? 0 : state_over_bound(r, cur, &walk);
    int t = err || b->unbounded || !moving || o ? 0 : state_over_bound(r, tgt, &twalk);
    if (o < 0 || t < 0)
        return PLACER_ENOMEM;
    *over = o || t;
    if (!err && *over && (fresh || !b->previous))
        err = plc_builder_refuse(b, "%s: %u buckets for %u working: a lookup could take %llu "
                                    "steps, over the bound of %u%s",
                                 b->ops->name, cur->n, cur->n - cur->nhist,
                                 (unsigned long long)(walk > twalk ? walk : twalk),
                                 (unsigned)PLACER_MAX_WALK, r->max_ratio ? " (or " PLC_STR(PLC_BHIST_MAX_RATIO) " buckets a working one)" : "");
    return err;
}

/* The fraction of keys whose node differs between previous and s (their
 * current placements), at 65,536 evenly spaced positions: both within the
 * bound, so this is quick. */
static double moved_from(const placer_snapshot *p, const placer_snapshot *s)
{
    enum { SAMPLES = 1 << 16 };
    uint32_t moved = 0;
    for (uint64_t i = 0; i < SAMPLES; i++) {
        uint64_t pos = i * (UINT64_MAX / SAMPLES + 1) + (UINT64_MAX / SAMPLES / 2);
        uint32_t a = p->ops->owner(p, pos, 0), c = s->ops->owner(s, pos, 0);
        moved += strcmp(p->nodes[a].id, s->nodes[c].id) != 0;
    }
    return (double)moved / SAMPLES;
}

int plc_bhist_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    const plc_bhist_rules *r = rules_of(b);
    state cur = {0}, tgt = {0};
    int over = 0;
    int err = placements(b, r, 0, &cur, &tgt, &over);
    if (!err && over) { /* re-based: the file's header */
        state_free(&cur);
        state_free(&tgt);
        cur = tgt = (state){0};
        err = placements(b, r, 1, &cur, &tgt, &over);
        b->rebased = !err;
    }
    if (!err)
        err = assemble(b, epoch, r, &cur, plc_builder_in_transition(b) ? &tgt : NULL, out);
    if (!err && b->rebased)
        b->rebased_moved = moved_from(b->previous, *out);
    state_free(&cur);
    state_free(&tgt);
    return err;
}

uint32_t plc_bhist_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want,
                            uint32_t *zones)
{
    const plc_bhist_rules *r = s->ops->module;
    return plc_replicas_walk_flat(s, s->table.own, s->table.n, r->bucket(s->bh, h), out, want,
                                  zones);
}

uint32_t plc_bhist_encode_sections(const placer_snapshot *s, plc_fmt_section *out)
{
    uint32_t k = 0;
    out[k++] = (plc_fmt_section){PLC_SEC_TABLE, 1, s->bh->n};
    if (s->has_target)
        out[k++] = (plc_fmt_section){PLC_SEC_TARGET_TABLE, 1, s->tbh->n};
    out[k++] = (plc_fmt_section){PLC_SEC_HISTORY, 0, s->bh->nhist};
    if (s->has_target)
        out[k++] = (plc_fmt_section){PLC_SEC_TARGET_HISTORY, 0, s->tbh->nhist};
    return k;
}

void plc_bhist_encode_section(const placer_snapshot *s, const plc_fmt_section *sec,
                              unsigned char *p)
{
    int target = sec->type == PLC_SEC_TARGET_TABLE || sec->type == PLC_SEC_TARGET_HISTORY;
    const plc_bhist *h = plc_bhist_of(s, target);
    if (sec->type == PLC_SEC_TABLE || sec->type == PLC_SEC_TARGET_TABLE)
        plc_wr32_array(p, h->own, h->n);
    else
        plc_wr32_array(p, h->hist, h->nhist);
}

void plc_bhist_decode_sections(int transition, unsigned *must, unsigned *may)
{
    *must = 1u << PLC_SEC_TABLE | 1u << PLC_SEC_HISTORY;
    if (transition)
        *must |= 1u << PLC_SEC_TARGET_TABLE | 1u << PLC_SEC_TARGET_HISTORY;
    *may = 0;
}

/* One placement: the table's shape and owners, and the history: distinct
 * buckets of the table, exactly its holes, at least one bucket in use. */
static int check_placement(plc_dec *d, const placer_builder *b, const plc_bhist_rules *r,
                           int target)
{
    const plc_sec *t = &d->s[target ? PLC_SEC_TARGET_TABLE : PLC_SEC_TABLE];
    const plc_sec *h = &d->s[target ? PLC_SEC_TARGET_HISTORY : PLC_SEC_HISTORY];
    const char *what = target ? "target table" : "table";
    uint64_t n = t->count;
    if (n < 1 || t->aux != 1 || (r->pow2 && (n & (n - 1))))
        return plc_dec_fail(d, PLACER_ECORRUPT, "%s: %llu buckets of width %u", what,
                            (unsigned long long)n, t->aux);
    if (r->fixed && target && n != d->s[PLC_SEC_TABLE].count)
        return plc_dec_fail(d, PLACER_ECORRUPT, "target table: %llu buckets, capacity %llu",
                            (unsigned long long)n, (unsigned long long)d->s[PLC_SEC_TABLE].count);
    int err = plc_dec_check_owners(d, b, t->p, n, target, 1, what);
    if (err)
        return err;
    if (h->count >= n)
        return plc_dec_fail(d, PLACER_ECORRUPT, "%s: %llu of %llu buckets removed", what,
                            (unsigned long long)h->count, (unsigned long long)n);
    uint64_t holes = 0;
    for (uint64_t i = 0; i < n; i++)
        holes += plc_rd32(t->p + 4 * i) == PLC_NO_NODE;
    if (holes != h->count)
        return plc_dec_fail(d, PLACER_ECORRUPT, "%s: %llu removed buckets, a history of %llu",
                            what, (unsigned long long)holes, (unsigned long long)h->count);
    if (!r->fixed && h->count && plc_rd32(h->p) == n - 1)
        return plc_dec_fail(d, PLACER_ECORRUPT, "%s: the last bucket removed first", what);
    unsigned char *seen = plc_calloc((size_t)n, 1);
    if (!seen)
        return PLACER_ENOMEM;
    for (uint64_t i = 0; i < h->count && !err; i++) {
        uint32_t k = plc_rd32(h->p + 4 * i);
        if (k >= n || seen[k] || plc_rd32(t->p + 4 * (uint64_t)k) != PLC_NO_NODE)
            err = plc_dec_fail(d, PLACER_ECORRUPT, "%s history %llu: bucket %u", what,
                               (unsigned long long)i, k);
        else
            seen[k] = 1;
    }
    plc_free(seen);
    return err;
}

int plc_bhist_decode_check(plc_dec *d, const placer_builder *b)
{
    const plc_bhist_rules *r = rules_of(b);
    if (d->version == PLC_FMT_VERSION_1)
        return plc_dec_fail(d, PLACER_ECORRUPT, "strategy %u in format 1", d->strategy);
    int err = check_placement(d, b, r, 0);
    if (!err && d->have[PLC_SEC_TARGET_TABLE])
        err = check_placement(d, b, r, 1);
    return err;
}

int plc_bhist_decode_build(plc_dec *d, placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    const plc_bhist_rules *r = rules_of(b);
    state st[2];
    uint32_t *copy[4] = {NULL, NULL, NULL, NULL};
    int places = d->have[PLC_SEC_TARGET_TABLE] ? 2 : 1, err = 0;
    for (int t = 0; t < places; t++) { /* host order: converted copies on big-endian hosts */
        const plc_sec *tab = &d->s[t ? PLC_SEC_TARGET_TABLE : PLC_SEC_TABLE];
        const plc_sec *h = &d->s[t ? PLC_SEC_TARGET_HISTORY : PLC_SEC_HISTORY];
        const uint32_t *own = plc_dec_u32_cells(tab, tab->count, &copy[2 * t]);
        const uint32_t *hist = plc_dec_u32_cells(h, h->count, &copy[2 * t + 1]);
        if (!own || !hist)
            err = PLACER_ENOMEM;
        st[t] = (state){(uint32_t)tab->count, (uint32_t)tab->count, (uint32_t)h->count,
                        (uint32_t *)(uintptr_t)own, (uint32_t *)(uintptr_t)hist};
    }
    for (int t = 0; t < places && !err; t++) { /* the bound: the file's header */
        uint64_t walk = 0;
        int over = state_over_bound(r, &st[t], &walk);
        if (over < 0)
            err = over;
        else if (over)
            err = plc_dec_fail(d, PLACER_ECORRUPT,
                               "%s%s: %u buckets for %u working: a lookup could take %llu steps, "
                               "over the bound of %u%s",
                               t ? "target " : "", b->ops->name, st[t].n, st[t].n - st[t].nhist,
                               (unsigned long long)walk, (unsigned)PLACER_MAX_WALK,
                               r->max_ratio ? " (or " PLC_STR(PLC_BHIST_MAX_RATIO) " buckets a working one)" : "");
    }
    if (!err)
        err = assemble(b, epoch, r, &st[0], places == 2 ? &st[1] : NULL, out);
    for (int i = 0; i < 4; i++)
        plc_free(copy[i]);
    return err;
}

uint32_t plc_bhist_token_count(const placer_snapshot *s)
{
    return s->bh->nwork;
}

void plc_bhist_token_at(const placer_snapshot *s, uint32_t i, uint64_t *token, uint32_t *owner)
{
    *token = s->bh->work[i];
    *owner = s->bh->own[s->bh->work[i]];
}
