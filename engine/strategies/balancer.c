/*
 * balancer.c -- the incremental balanced token allocator (balancer.h).
 *
 * What a join needs, kept between joins instead of recomputed from the
 * ring: every node's exact share and zone-ring share (128-bit integers),
 * its ranges in a max-heap by width (only the victim's top changes per
 * token), the participants in a max-heap by key (only the victim's key
 * falls per token; the band is read off its top by a best-first walk of
 * at most BALANCE_BAND steps), and each zone's tokens in a zone set
 * (zone_set.h: the two neighbours a zone score needs, and the insert).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "balancer.h"
#include "placer.h"
#include "zone_set.h"

#define TWO64 18446744073709551616.0
#define NONE UINT32_MAX

typedef unsigned __int128 u128;
static const u128 WHOLE = (u128)1 << 64;

/* One range of a node: (p, s], len = s - p (UINT64_MAX for the whole ring). */
typedef struct brange {
    uint64_t len, s, p;
} brange;

struct plc_balancer {
    plc_token_nodes nodes;
    double W;            /* the participants' weight, in the order they came */
    u128 *share, *zshare; /* exact: in the ring; in the ring of the node's zone */
    uint32_t *zid;       /* dense zone index of each node */
    plc_zone_set *zs;    /* each zone's tokens */
    uint32_t *first, *nr; /* node o's ranges: heap[first[o] .. first[o] + nr[o]) */
    brange *heap;
    uint32_t *nh, nnh, *pos; /* the participants by key: heap of node indices */
    double *key;
    uint8_t *in;         /* a participant */
    uint64_t work;
};

static double to_double(u128 v)
{
    return (double)(uint64_t)(v >> 64) * TWO64 + (double)(uint64_t)v;
}

/* Wider first; among equal widths the one ending first. */
static int wider(const brange *a, const brange *b)
{
    return a->len != b->len ? a->len > b->len : a->s < b->s;
}

static void range_sift(brange *h, uint32_t n, uint32_t i, uint64_t *work)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        ++*work;
        if (l < n && wider(&h[l], &h[m]))
            m = l;
        if (r < n && wider(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        brange t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void range_heapify(plc_balancer *B, uint32_t o)
{
    for (uint32_t i = B->nr[o] / 2; i-- > 0;)
        range_sift(B->heap + B->first[o], B->nr[o], i, &B->work);
}

/* A node's key: its share once half a token's worth (its share over its
 * token count) is cut, over its weight -- what a cut leaves it on average,
 * so that light nodes, whose every cut is a larger part of their share,
 * are not cut below the heavy ones -- or -inf when its widest range is too
 * narrow to split (it never widens again). */
static double key_of(const plc_balancer *B, uint32_t o)
{
    if (!B->nr[o] || B->heap[B->first[o]].len < 2)
        return -INFINITY;
    double a = to_double(B->share[o]);
    return (a - a / (2.0 * B->nr[o])) / B->nodes.weights[o];
}

/* Is node a before node b in key order (key descending, then index)? */
static int before(const plc_balancer *B, uint32_t a, uint32_t b)
{
    return B->key[a] != B->key[b] ? B->key[a] > B->key[b] : a < b;
}

static void node_swap(plc_balancer *B, uint32_t i, uint32_t j)
{
    uint32_t t = B->nh[i];
    B->nh[i] = B->nh[j];
    B->nh[j] = t;
    B->pos[B->nh[i]] = i;
    B->pos[B->nh[j]] = j;
}

static void node_down(plc_balancer *B, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        B->work++;
        if (l < B->nnh && before(B, B->nh[l], B->nh[m]))
            m = l;
        if (r < B->nnh && before(B, B->nh[r], B->nh[m]))
            m = r;
        if (m == i)
            return;
        node_swap(B, i, m);
        i = m;
    }
}

static void node_up(plc_balancer *B, uint32_t i)
{
    while (i > 0 && before(B, B->nh[i], B->nh[(i - 1) / 2])) {
        B->work++;
        node_swap(B, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void node_push(plc_balancer *B, uint32_t o)
{
    B->key[o] = key_of(B, o);
    B->nh[B->nnh] = o;
    B->pos[o] = B->nnh;
    node_up(B, B->nnh++);
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Dense zone indices: equal zone values, equal indices. */
static int zone_ids(plc_balancer *B, uint32_t *nzones)
{
    uint32_t N = B->nodes.n;
    uint64_t *v = plc_malloc((size_t)(N ? N : 1) * sizeof *v);
    if (!v)
        return PLACER_ENOMEM;
    for (uint32_t i = 0; i < N; i++)
        v[i] = (uint64_t)B->nodes.zones[i] << 32 | i;
    qsort(v, N, sizeof *v, u64_cmp);
    uint32_t id = 0;
    for (uint32_t r = 0; r < N; r++) {
        if (r && v[r] >> 32 != v[r - 1] >> 32)
            id++;
        B->zid[(uint32_t)v[r]] = id;
    }
    *nzones = N ? id + 1 : 0;
    plc_free(v);
    return 0;
}

static int check_ring(plc_token_ring ring, plc_token_nodes nodes, const uint32_t *room)
{
    if ((ring.n && (!ring.tokens || !ring.owners)) || !nodes.weights || !nodes.zones || !room)
        return PLACER_EINVAL;
    for (uint32_t i = 0; i < nodes.n; i++)
        if (!(nodes.weights[i] > 0) || !isfinite(nodes.weights[i]))
            return PLACER_EINVAL;
    for (uint32_t i = 0; i < ring.n; i++)
        if (ring.owners[i] >= nodes.n || (i && ring.tokens[i] < ring.tokens[i - 1]))
            return PLACER_EINVAL;
    return 0;
}

/* The zone rings' shares: each zone token owns back to the zone's previous
 * one; the first wraps from the last, and owns the whole ring when every
 * token of the zone is equal. */
static void zone_shares(plc_balancer *B, uint32_t nzones)
{
    for (uint32_t z = 0; z < nzones; z++) {
        const plc_zone_set *S = &B->zs[z];
        if (!S->n)
            continue;
        const zset_chunk *last = S->c[S->nc - 1];
        uint64_t prev = last->tok[last->n - 1];
        for (uint32_t c = 0; c < S->nc; c++)
            for (uint32_t i = 0; i < S->c[c]->n; i++) {
                uint64_t t = S->c[c]->tok[i], len = t - prev;
                int whole = c == 0 && i == 0 && len == 0;
                B->zshare[S->c[c]->own[i]] += whole ? WHOLE : len;
                prev = t;
            }
    }
}

int plc_balancer_new(plc_token_ring ring, plc_token_nodes nodes, const uint32_t *room,
                     plc_balancer **out)
{
    if (!out)
        return PLACER_EINVAL;
    *out = NULL;
    int err = check_ring(ring, nodes, room);
    if (err)
        return err;
    uint32_t N = nodes.n;
    size_t n1 = (size_t)N + 1;
    plc_balancer *B = plc_calloc(1, sizeof *B);
    if (!B)
        return PLACER_ENOMEM;
    B->nodes = nodes;
    B->share = plc_calloc(n1, sizeof *B->share);
    B->zshare = plc_calloc(n1, sizeof *B->zshare);
    B->zid = plc_calloc(n1, sizeof *B->zid);
    B->zs = plc_calloc(n1, sizeof *B->zs);
    B->first = plc_calloc(n1, sizeof *B->first);
    B->nr = plc_calloc(n1, sizeof *B->nr);
    B->nh = plc_calloc(n1, sizeof *B->nh);
    B->pos = plc_calloc(n1, sizeof *B->pos);
    B->key = plc_calloc(n1, sizeof *B->key);
    B->in = plc_calloc(n1, 1);
    err = PLACER_ENOMEM;
    if (!B->share || !B->zshare || !B->zid || !B->zs || !B->first || !B->nr || !B->nh || !B->pos ||
        !B->key || !B->in)
        goto fail;
    uint64_t total = 0;
    for (uint32_t o = 0; o < N; o++) {
        B->first[o] = (uint32_t)total;
        total += room[o];
        if (total > PLACER_MAX_TOKENS) {
            err = PLACER_ETOOMANY;
            goto fail;
        }
    }
    B->first[N] = (uint32_t)total;
    if (!(B->heap = plc_malloc((size_t)(total ? total : 1) * sizeof *B->heap)))
        goto fail;
    uint32_t nzones;
    if ((err = zone_ids(B, &nzones)))
        goto fail;
    err = PLACER_EINVAL;
    for (uint32_t i = 0; i < ring.n; i++) {
        uint32_t o = ring.owners[i];
        if (B->nr[o] == room[o])
            goto fail; /* more tokens than room */
        uint64_t p = ring.tokens[i ? i - 1 : ring.n - 1], s = ring.tokens[i];
        int whole = i == 0 && ring.tokens[0] == ring.tokens[ring.n - 1];
        uint64_t len = whole ? UINT64_MAX : s - p;
        B->heap[B->first[o] + B->nr[o]++] = (brange){len, s, p};
        B->share[o] += whole ? WHOLE : len;
        B->in[o] = 1;
        err = plc_zset_append(&B->zs[B->zid[o]], s, o);
        if (err)
            goto fail;
        err = PLACER_EINVAL;
    }
    zone_shares(B, nzones);
    for (uint32_t o = 0; o < N; o++)
        if (B->in[o]) {
            B->W += nodes.weights[o];
            range_heapify(B, o);
            node_push(B, o);
        }
    *out = B;
    return 0;
fail:
    plc_balancer_free(B);
    return err;
}

/* A candidate's split: the range, how much x takes, its zone score. */
typedef struct split {
    uint32_t o, from; /* the victim; whom x takes g from in its zone ring (NONE: nobody) */
    uint64_t d, g;
    double score;
} split;

static split score_split(plc_balancer *B, uint32_t x, uint32_t o, uint64_t q)
{
    const brange *r = &B->heap[B->first[o]];
    uint64_t keep = r->len / 16 ? r->len / 16 : 1;
    uint64_t cap = r->len - keep;
    split sp = {o, NONE, q < cap ? q : cap, 0, 0};
    const plc_zone_set *Z = &B->zs[B->zid[x]];
    B->work++;
    if (!Z->n)
        return sp;
    uint64_t zb;
    uint32_t f = plc_zset_around(Z, r->s, &zb, &B->work);
    if (f == x)
        return sp;
    sp.from = f;
    sp.g = r->p + sp.d - zb;
    double G = (double)sp.g / TWO64, A = to_double(B->zshare[x]) / TWO64;
    double F = to_double(B->zshare[f]) / TWO64;
    const double *w = B->nodes.weights;
    sp.score = G * ((2 * A + G) / w[x] - (2 * F - G) / w[f]);
    return sp;
}

/* The band: up to BALANCE_BAND candidates from the top of the key heap, in
 * key order, the first one and those after it with key >= thr. A best-first walk: the frontier holds heap
 * positions whose parents were taken. Returns how many, in band[]. */
static uint32_t band_of(plc_balancer *B, double thr, uint32_t *band)
{
    uint32_t front[2 * BALANCE_BAND + 2], nf = 0, nb = 0;
    if (B->nnh)
        front[nf++] = 0;
    while (nf && nb < BALANCE_BAND) {
        uint32_t bi = 0;
        for (uint32_t i = 1; i < nf; i++) {
            B->work++;
            if (before(B, B->nh[front[i]], B->nh[front[bi]]))
                bi = i;
        }
        uint32_t at = front[bi], o = B->nh[at];
        /* the best always (when it can be split at all: a NaN threshold,
         * from extreme weights, must not leave the band empty); the others
         * within the threshold; never a node too narrow to split */
        if (B->key[o] == -INFINITY || (nb && !(B->key[o] >= thr)))
            break;
        band[nb++] = o;
        front[bi] = front[--nf];
        if (2 * at + 1 < B->nnh)
            front[nf++] = 2 * at + 1;
        if (2 * at + 2 < B->nnh)
            front[nf++] = 2 * at + 2;
    }
    return nb;
}

static int place_one(plc_balancer *B, uint32_t x, uint64_t q, uint64_t *t_out)
{
    if (!B->nnh || B->key[B->nh[0]] == -INFINITY)
        return PLACER_ETOOMANY;
    double thr = B->key[B->nh[0]] - BALANCE_SLACK * TWO64 / B->W;
    uint32_t band[BALANCE_BAND];
    uint32_t nb = band_of(B, thr, band);
    split best = score_split(B, x, band[0], q);
    for (uint32_t i = 1; i < nb; i++) {
        split sp = score_split(B, x, band[i], q);
        if (sp.score < best.score)
            best = sp;
    }
    uint32_t o = best.o;
    brange *r = &B->heap[B->first[o]];
    uint64_t t = r->p + best.d;
    B->heap[B->first[x] + B->nr[x]++] = (brange){best.d, t, r->p};
    r->len = r->s - t;
    r->p = t;
    range_sift(B->heap + B->first[o], B->nr[o], 0, &B->work);
    B->share[x] += best.d;
    B->share[o] -= best.d;
    plc_zone_set *Z = &B->zs[B->zid[x]];
    if (!Z->n) {
        B->zshare[x] = WHOLE; /* the first of its zone owns all its zone's ring */
    } else if (best.from != NONE) {
        B->zshare[x] += best.g;
        B->zshare[best.from] -= best.g;
    }
    int err = plc_zset_insert(Z, t, x, &B->work);
    if (err)
        return err;
    B->key[o] = key_of(B, o);
    node_down(B, B->pos[o]);
    *t_out = t;
    return 0;
}

/* An empty ring: count tokens evenly spaced from base, ascending in out;
 * x's ranges between them. */
static int first_node(plc_balancer *B, uint32_t x, uint32_t count, uint64_t base, uint64_t *out)
{
    uint64_t step = UINT64_MAX / count;
    uint32_t wrap = 0;
    for (uint32_t j = 1; j < count && !wrap; j++)
        wrap = base + step * j < base ? j : 0;
    for (uint32_t j = 0; j < count; j++) /* the wrapped ones first */
        out[j] = base + step * ((j + wrap) % count);
    for (uint32_t j = 0; j < count; j++) {
        uint64_t p = out[j ? j - 1 : count - 1], s = out[j];
        uint64_t len = count == 1 ? UINT64_MAX : s - p;
        B->heap[B->first[x] + B->nr[x]++] = (brange){len, s, p};
        int err = plc_zset_append(&B->zs[B->zid[x]], s, x);
        if (err)
            return err;
    }
    B->share[x] = WHOLE;
    B->zshare[x] = WHOLE;
    return 0;
}

int plc_balancer_join(plc_balancer *B, uint32_t x, uint32_t count, uint64_t base, uint64_t *out)
{
    if (!B || !out || !count || x >= B->nodes.n || B->in[x] ||
        count > B->first[x + 1] - B->first[x])
        return PLACER_EINVAL;
    int err = 0;
    double wx = B->nodes.weights[x];
    B->W += wx;
    if (!B->nnh) {
        err = first_node(B, x, count, base, out);
    } else {
        double qf = ldexp(wx / B->W / count, 64);
        uint64_t q = qf >= TWO64 ? UINT64_MAX : qf < 1 ? 1 : (uint64_t)qf;
        for (uint32_t j = 0; j < count && !err; j++)
            err = place_one(B, x, q, &out[j]);
        if (!err)
            qsort(out, count, sizeof *out, u64_cmp);
        B->work += count; /* the sort: count log count, counted once per token */
    }
    if (err)
        return err;
    range_heapify(B, x);
    B->in[x] = 1;
    node_push(B, x);
    return 0;
}

uint64_t plc_balancer_work(const plc_balancer *B)
{
    return B->work;
}

void plc_balancer_free(plc_balancer *B)
{
    if (!B)
        return;
    if (B->zs)
        for (uint32_t z = 0; z < B->nodes.n; z++)
            plc_zset_free(&B->zs[z]);
    plc_free(B->share);
    plc_free(B->zshare);
    plc_free(B->zid);
    plc_free(B->zs);
    plc_free(B->first);
    plc_free(B->nr);
    plc_free(B->heap);
    plc_free(B->nh);
    plc_free(B->pos);
    plc_free(B->key);
    plc_free(B->in);
    plc_free(B);
}
