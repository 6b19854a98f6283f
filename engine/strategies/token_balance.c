/*
 * token_balance.c -- balanced token allocation (token_balance.h).
 *
 * The idea is Cassandra's allocator (allocate_tokens_for_local_replication_
 * factor): a joining node does not throw its tokens at random; each one
 * splits an existing range, taking its lower part from the owner, where
 * that helps the balance most. Here each token takes q = (the new node's
 * share) / (its token count) -- so its ranges come out even and its share
 * ends on target -- from the widest range of some node, that node chosen
 * by how much the split lowers sum_i (own_i - target_i)^2 / target_i, the
 * squared deviation of ownership from weight share relative to that share:
 *   - first in the whole ring, where a key's first owner lives: in effect
 *     the node furthest above its share;
 *   - then, among the nodes within ZONE_SLACK of the best, in the ring of
 *     the joining node's zone alone: with one replica per zone (placer's
 *     zone-aware replica walk when replicas = zones) a node's replicated
 *     load is its share of its zone's ring.
 * Splitting a node's widest range keeps its ranges even, so that a later
 * drain hands out even pieces. Only the split ranges change owner, so a
 * join moves exactly the new node's share, and removing the newest node
 * gives back the ring before it.
 *
 * Per token the work is one pass over the nodes: each node's ranges sit in
 * a max-heap by width (only the victim's top changes), the zone's tokens in
 * sorted arrays (binary searches). tests/reference_balance.c is the same
 * algorithm rescanning the ring for every token, and gives the same tokens.
 * Ownership is tracked in doubles updated by the same operations in the
 * same order everywhere, so the result is deterministic; the tokens
 * themselves are exact 64-bit integers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "placer.h"
#include "token_balance.h"

#define TWO64 18446744073709551616.0
#define NONE UINT32_MAX
/* How much worse for the whole ring (in relative surplus of the victim) a
 * split may be when it is better for the zone's ring: 1.25% keeps the whole
 * ring within 1.05 of the mean and brings the zone rings from about 1.65
 * (no zone term) to about 1.25 of theirs, for 16 tokens per node. */
#define ZONE_SLACK 0.0125


/* Hashes owned by slot i: (tokens[i-1], tokens[i]], wrapping; returned as
 * hi * 2^64 + lo (hi is 1 only for a single token, or all tokens equal at
 * slot 0). */
static uint64_t range_len(const uint64_t *t, uint32_t n, uint32_t i, uint64_t *hi)
{
    *hi = 0;
    if (i > 0)
        return t[i] - t[i - 1];
    if (t[0] == t[n - 1]) {
        *hi = 1;
        return 0;
    }
    return t[0] - t[n - 1];
}

static void add128(uint64_t *hi, uint64_t *lo, uint64_t h, uint64_t l)
{
    uint64_t s = *lo + l;
    *hi += h + (s < l);
    *lo = s;
}

void plc_token_shares(plc_token_ring ring, uint32_t nnodes, double *share)
{
    uint64_t *acc = plc_calloc((size_t)nnodes * 2, sizeof *acc);
    for (uint32_t i = 0; i < nnodes; i++)
        share[i] = 0;
    if (!ring.n)
        return;
    if (!acc) { /* no memory: the same sums in doubles (exact to 2^-53) */
        for (uint32_t i = 0; i < ring.n; i++) {
            uint64_t hi, lo = range_len(ring.tokens, ring.n, i, &hi);
            share[ring.owners[i]] += (double)hi + (double)lo / TWO64;
        }
        return;
    }
    for (uint32_t i = 0; i < ring.n; i++) {
        uint64_t hi, lo = range_len(ring.tokens, ring.n, i, &hi);
        uint32_t o = ring.owners[i];
        add128(&acc[2 * o], &acc[2 * o + 1], hi, lo);
    }
    for (uint32_t i = 0; i < nnodes; i++)
        share[i] = (double)acc[2 * i] + (double)acc[2 * i + 1] / TWO64;
    plc_free(acc);
}

void plc_token_zone_shares(plc_token_ring ring, plc_token_nodes nodes, uint32_t zone,
                           double *share)
{
    for (uint32_t i = 0; i < nodes.n; i++)
        share[i] = 0;
    /* The zone's tokens, in ring order: each owns back to the previous one. */
    uint32_t first = NONE, last = NONE;
    for (uint32_t i = 0; i < ring.n; i++)
        if (nodes.zones[ring.owners[i]] == zone) {
            if (first == NONE)
                first = i;
            last = i;
        }
    if (first == NONE)
        return;
    uint64_t prev = ring.tokens[last];
    for (uint32_t i = first; i <= last; i++) {
        if (nodes.zones[ring.owners[i]] != zone)
            continue;
        uint64_t len = ring.tokens[i] - prev;
        int whole = i == first && len == 0; /* one token, or all equal: the whole ring */
        share[ring.owners[i]] += whole ? 1.0 : (double)len / TWO64;
        prev = ring.tokens[i];
    }
}

/* Change of (a - tau)^2 / tau when a grows by delta. */
static double dq(double a, double delta, double tau)
{
    return delta * (2.0 * (a - tau) + delta) / tau;
}

/* One range of a node: (p, s], len = s - p (UINT64_MAX for the whole ring). */
typedef struct range {
    uint64_t len, s, p;
} range;
_Static_assert(sizeof(range) % 8 == 0, "ranges pack in 8-byte words");

/* Wider first; among equal widths the one ending first (the lower slot). */
static int wider(const range *a, const range *b)
{
    return a->len != b->len ? a->len > b->len : a->s < b->s;
}

/* Restore the heap property of h[0..n) from i down. */
static void sift_down(range *h, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && wider(&h[l], &h[m]))
            m = l;
        if (r < n && wider(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        range t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* The tokens of the new node's zone, sorted: those of the ring (with their
 * owners) and the new node's own, kept apart so an insert is cheap. */
typedef struct zone_tokens {
    const uint64_t *tok; /* the ring's, ascending, in slot order */
    const uint32_t *own;
    uint32_t n;
    uint64_t *mine; /* the new node's so far, ascending */
    uint32_t nmine;
} zone_tokens;

/* First index with a[i] >= v (n when none). */
static uint32_t lower(const uint64_t *a, uint32_t n, uint64_t v)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The zone's token at or before p (the last of equal ones), wrapping to the
 * largest; and the first at or after s, wrapping to the smallest, with its
 * owner (x for the new node's). nz > 0. */
static uint64_t zone_before(const zone_tokens *Z, uint64_t p)
{
    int has = 0;
    uint64_t best = 0;
    uint32_t i = p == UINT64_MAX ? Z->n : lower(Z->tok, Z->n, p + 1); /* past those <= p */
    if (i > 0) {
        best = Z->tok[i - 1];
        has = 1;
    }
    uint32_t j = p == UINT64_MAX ? Z->nmine : lower(Z->mine, Z->nmine, p + 1);
    if (j > 0 && (!has || Z->mine[j - 1] > best)) {
        best = Z->mine[j - 1];
        has = 1;
    }
    if (has)
        return best;
    uint64_t a = Z->n ? Z->tok[Z->n - 1] : 0, b = Z->nmine ? Z->mine[Z->nmine - 1] : 0;
    return Z->n && (!Z->nmine || a >= b) ? a : b;
}

static uint32_t zone_after(const zone_tokens *Z, uint64_t s, uint32_t x)
{
    uint32_t i = lower(Z->tok, Z->n, s), j = lower(Z->mine, Z->nmine, s);
    if (i == Z->n && j == Z->nmine) { /* wrap */
        i = 0;
        j = 0;
    }
    if (i < Z->n && (j >= Z->nmine || Z->tok[i] <= Z->mine[j]))
        return Z->own[i];
    return x;
}

typedef struct state {
    const plc_token_nodes *nodes;
    double *share, *target;   /* per node: ownership, weight share */
    double *zshare, *ztarget; /* per node: of its zone's ring (x's zone only) */
    uint32_t *first;          /* node o's ranges: heap[first[o] .. first[o + 1]) */
    range *heap;
    zone_tokens Z;
    double *pscore;           /* per node: the whole-ring score of its widest range */
    uint64_t *dval;
} state;

/* What a token of x taking d from range r does to the zone ring: the score,
 * *g the zone-ring share x gains, *oz whom from (NONE: nobody, x's own). */
static double zone_score(const state *S, uint32_t x, const range *r, uint64_t d, double *g,
                         uint32_t *oz)
{
    *oz = NONE;
    *g = 0;
    if (!S->Z.n && !S->Z.nmine)
        return 0;
    uint32_t from = zone_after(&S->Z, r->s, x);
    if (from == x)
        return 0;
    *g = ((double)(r->p - zone_before(&S->Z, r->p)) + (double)d) / TWO64;
    *oz = from;
    return dq(S->zshare[x], *g, S->ztarget[x]) + dq(S->zshare[from], -*g, S->ztarget[from]);
}

/* Place one token of node x taking at most q; 0 or PLACER_ETOOMANY. Only
 * each node's widest range is a candidate: splitting it keeps the node's
 * ranges even, so that a later drain hands out even pieces. */
static int place_one(state *S, uint32_t x, uint64_t q)
{
    uint32_t N = S->nodes->n, best = NONE;
    double best_p = INFINITY;
    for (uint32_t o = 0; o < N; o++) {
        S->pscore[o] = INFINITY;
        if (o == x || S->first[o] == S->first[o + 1] || S->heap[S->first[o]].len < 2)
            continue;
        uint64_t len = S->heap[S->first[o]].len;
        uint64_t cap = len - len / 16; /* leave the owner a sixteenth at least */
        uint64_t d = q < cap ? q : cap;
        double dd = (double)d / TWO64;
        S->pscore[o] = dq(S->share[x], dd, S->target[x]) + dq(S->share[o], -dd, S->target[o]);
        S->dval[o] = d;
        best_p = fmin(best_p, S->pscore[o]);
    }
    /* Among the candidates nearly as good for the whole ring (within
     * ZONE_SLACK of the best victim's surplus), the best for the zone's ring;
     * then the best for the whole ring; then the lowest slot. */
    double limit = best_p + 2 * ZONE_SLACK * ((double)q / TWO64);
    double best_score = INFINITY, best_ps = INFINITY;
    for (uint32_t o = 0; o < N; o++) {
        if (!(S->pscore[o] <= limit))
            continue;
        double g;
        uint32_t oz;
        const range *r = &S->heap[S->first[o]];
        double score = zone_score(S, x, r, S->dval[o], &g, &oz);
        if (best == NONE || score < best_score ||
            (score == best_score &&
             (S->pscore[o] < best_ps ||
              (S->pscore[o] == best_ps && r->s < S->heap[S->first[best]].s)))) {
            best_score = score;
            best_ps = S->pscore[o];
            best = o;
        }
    }
    if (best == NONE)
        return PLACER_ETOOMANY;
    uint32_t o = best;
    range *r = &S->heap[S->first[o]];
    uint64_t d = S->dval[o], t = r->p + d;
    double dd = (double)d / TWO64, g;
    uint32_t oz;
    zone_score(S, x, r, d, &g, &oz);
    S->share[x] += dd;
    S->share[o] -= dd;
    if (oz != NONE) {
        S->zshare[x] += g;
        S->zshare[oz] -= g;
    } else if (!S->Z.n && !S->Z.nmine) {
        S->zshare[x] = 1.0; /* the first of its zone owns all its zone's ring */
    }
    /* the victim keeps (t, s]; the new token joins the zone's tokens */
    r->len = r->s - t;
    r->p = t;
    sift_down(S->heap + S->first[o], S->first[o + 1] - S->first[o], 0);
    uint32_t at = lower(S->Z.mine, S->Z.nmine, t);
    memmove(S->Z.mine + at + 1, S->Z.mine + at, (size_t)(S->Z.nmine - at) * sizeof *S->Z.mine);
    S->Z.mine[at] = t;
    S->Z.nmine++;
    return 0;
}

/* The per-node heaps of ranges and the zone's tokens, from the ring. */
static void setup(state *S, plc_token_ring ring, uint32_t z, uint64_t *ztok, uint32_t *zown)
{
    const plc_token_nodes *nodes = S->nodes;
    uint32_t N = nodes->n, nz = 0;
    for (uint32_t i = 0; i < ring.n; i++)
        S->first[ring.owners[i] + 1]++;
    for (uint32_t o = 0; o < N; o++)
        S->first[o + 1] += S->first[o];
    for (uint32_t i = 0; i < ring.n; i++) {
        uint64_t hi, len = range_len(ring.tokens, ring.n, i, &hi);
        uint64_t p = ring.tokens[i ? i - 1 : ring.n - 1];
        S->heap[S->first[ring.owners[i]]++] = (range){hi ? UINT64_MAX : len, ring.tokens[i], p};
        if (nodes->zones[ring.owners[i]] == z) {
            ztok[nz] = ring.tokens[i];
            zown[nz++] = ring.owners[i];
        }
    }
    for (uint32_t o = N; o > 0; o--)
        S->first[o] = S->first[o - 1];
    S->first[0] = 0;
    for (uint32_t o = 0; o < N; o++) {
        uint32_t n = S->first[o + 1] - S->first[o];
        for (uint32_t i = n / 2; i-- > 0;)
            sift_down(S->heap + S->first[o], n, i);
    }
    S->Z = (zone_tokens){ztok, zown, nz, NULL, 0};
}

static int check_args(plc_token_ring ring, plc_token_nodes nodes, uint32_t node, uint32_t count)
{
    if (!count || node >= nodes.n || (ring.n && (!ring.tokens || !ring.owners)) ||
        !nodes.weights || !nodes.zones)
        return PLACER_EINVAL;
    for (uint32_t i = 0; i < nodes.n; i++)
        if (!(nodes.weights[i] > 0) || !isfinite(nodes.weights[i]))
            return PLACER_EINVAL;
    for (uint32_t i = 0; i < ring.n; i++)
        if (ring.owners[i] >= nodes.n || ring.owners[i] == node ||
            (i && ring.tokens[i] < ring.tokens[i - 1]))
            return PLACER_EINVAL;
    if ((uint64_t)ring.n + count > PLACER_MAX_TOKENS)
        return PLACER_ETOOMANY;
    return 0;
}

int plc_tokens_balance(plc_token_ring ring, plc_token_nodes nodes, uint32_t node,
                       uint32_t count, uint64_t base, uint64_t *out)
{
    int err = check_args(ring, nodes, node, count);
    if (err)
        return err;
    if (!out)
        return PLACER_EINVAL;
    if (!ring.n) { /* evenly spaced from base, then ascending */
        uint64_t step = UINT64_MAX / count, wrap = 0;
        for (uint32_t j = 0; j < count; j++) {
            uint64_t t = base + step * j;
            wrap = wrap ? wrap : (j && t < base ? j : 0);
            out[j] = t;
        }
        if (wrap) { /* rotate so the wrapped ones come first */
            uint64_t *tmp = plc_malloc((size_t)count * sizeof *tmp);
            if (!tmp)
                return PLACER_ENOMEM;
            memcpy(tmp, out + wrap, (size_t)(count - wrap) * sizeof *tmp);
            memcpy(tmp + count - wrap, out, (size_t)wrap * sizeof *tmp);
            memcpy(out, tmp, (size_t)count * sizeof *tmp);
            plc_free(tmp);
        }
        return 0;
    }
    uint32_t N = nodes.n;
    state S = {0};
    S.nodes = &nodes;
    /* One block for all the working arrays, 8-byte ones first: the shares
     * and targets (4N), scores (N), split sizes (N), the range heaps and the
     * zone's tokens (ring.n each), the new tokens (count), then the heap
     * offsets (N + 1) and the zone's owners (ring.n). */
    size_t n8 = (size_t)N * 6 + (size_t)ring.n * (sizeof(range) / 8 + 1) + count;
    size_t bytes = n8 * 8 + ((size_t)N + 1 + ring.n) * 4;
    unsigned char *block = plc_malloc(bytes);
    uint64_t *ztok = NULL, *mine = NULL;
    uint32_t *zown = NULL;
    err = PLACER_ENOMEM;
    if (block) {
        S.share = (double *)block;
        S.pscore = S.share + (size_t)N * 4;
        S.dval = (uint64_t *)(S.pscore + N);
        S.heap = (range *)(S.dval + N);
        ztok = (uint64_t *)(S.heap + ring.n);
        mine = ztok + ring.n;
        S.first = (uint32_t *)(mine + count);
        zown = S.first + N + 1;
        memset(S.share, 0, (size_t)N * 4 * sizeof *S.share);
        memset(S.first, 0, ((size_t)N + 1) * sizeof *S.first);
        err = 0;
        S.target = S.share + N;
        S.zshare = S.target + N;
        S.ztarget = S.zshare + N;
        uint32_t z = nodes.zones[node];
        setup(&S, ring, z, ztok, zown);
        S.Z.mine = mine;
        plc_token_shares(ring, N, S.share);
        plc_token_zone_shares(ring, nodes, z, S.zshare);
        /* targets: weight shares among the nodes that own tokens, and x; in
         * the zone's ring, among those of x's zone */
        for (uint32_t i = 0; i < ring.n; i++)
            S.target[ring.owners[i]] = 1;
        S.target[node] = 1;
        double W = 0, Wz = 0;
        for (uint32_t i = 0; i < N; i++)
            if (S.target[i] > 0) {
                W += nodes.weights[i];
                Wz += nodes.zones[i] == z ? nodes.weights[i] : 0;
            }
        for (uint32_t i = 0; i < N; i++) {
            S.ztarget[i] = S.target[i] > 0 && nodes.zones[i] == z ? nodes.weights[i] / Wz : 1;
            S.target[i] = S.target[i] > 0 ? nodes.weights[i] / W : 1;
        }
        double qf = ldexp(S.target[node] / count, 64);
        uint64_t q = qf >= TWO64 ? UINT64_MAX : qf < 1 ? 1 : (uint64_t)qf;
        for (uint32_t j = 0; j < count && !err; j++)
            err = place_one(&S, node, q);
        if (!err)
            memcpy(out, mine, (size_t)count * sizeof *out);
    }
    plc_free(block);
    return err;
}

/* A leaving node's token waiting for its heir: its index in the ring and
 * the length of the range it owns. */
typedef struct orphan {
    uint64_t len; /* UINT64_MAX: the whole ring */
    uint32_t at;
} orphan;

/* Widest first, then the lowest slot: a total order, so qsort is
 * deterministic. */
static int widest_first(const void *a, const void *b)
{
    const orphan *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? 1 : -1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* The heir of one token of a leaver of zone z, whose range is len (a share):
 * the eligible node lowest under its weight share once it holds the range;
 * among those within ZONE_SLACK of that, one of the leaver's zone, so the
 * zone's own ring keeps the range whole; then the lowest index. */
static uint32_t heir_of(const double *share, const double *target, plc_token_nodes nodes,
                        const uint8_t *eligible, uint32_t z, double len)
{
    uint32_t best = NONE, best_zone = NONE;
    double best_after = INFINITY, zone_after = INFINITY;
    for (uint32_t o = 0; o < nodes.n; o++) {
        if (!eligible[o])
            continue;
        double after = (share[o] + len) / target[o];
        if (after < best_after) {
            best_after = after;
            best = o;
        }
        if (nodes.zones[o] == z && after < zone_after) {
            zone_after = after;
            best_zone = o;
        }
    }
    return best_zone != NONE && zone_after <= best_after * (1 + ZONE_SLACK) ? best_zone : best;
}

int plc_tokens_hand_over(plc_token_ring ring, plc_token_nodes nodes, const uint8_t *leaving,
                         const uint8_t *eligible, uint32_t *owners_out)
{
    if (!leaving || !eligible || !owners_out || !nodes.weights || !nodes.zones ||
        (ring.n && (!ring.tokens || !ring.owners)))
        return PLACER_EINVAL;
    uint32_t N = nodes.n, nleave = 0, neligible = 0;
    double W = 0;
    for (uint32_t o = 0; o < N; o++) {
        if (leaving[o] && eligible[o])
            return PLACER_EINVAL;
        if (!leaving[o] && !(nodes.weights[o] > 0 && isfinite(nodes.weights[o])))
            return PLACER_EINVAL;
        W += leaving[o] ? 0 : nodes.weights[o];
        neligible += eligible[o] != 0;
    }
    for (uint32_t i = 0; i < ring.n; i++) {
        if (ring.owners[i] >= N || (i && ring.tokens[i] < ring.tokens[i - 1]))
            return PLACER_EINVAL;
        nleave += leaving[ring.owners[i]] != 0;
        owners_out[i] = ring.owners[i];
    }
    if (!nleave)
        return 0;
    if (!neligible)
        return PLACER_EINVAL;
    double *share = plc_malloc((size_t)N * 2 * sizeof *share);
    orphan *orph = plc_malloc((size_t)nleave * sizeof *orph);
    if (!share || !orph) {
        plc_free(share);
        plc_free(orph);
        return PLACER_ENOMEM;
    }
    double *target = share + N;
    plc_token_shares(ring, N, share);
    for (uint32_t k = 0; k < N; k++)
        target[k] = leaving[k] ? 1 : nodes.weights[k] / W;
    uint32_t k = 0;
    for (uint32_t i = 0; i < ring.n; i++)
        if (leaving[ring.owners[i]]) {
            uint64_t hi, len = range_len(ring.tokens, ring.n, i, &hi);
            orph[k++] = (orphan){hi ? UINT64_MAX : len, i};
        }
    qsort(orph, nleave, sizeof *orph, widest_first);
    for (k = 0; k < nleave; k++) {
        double len = orph[k].len == UINT64_MAX ? 1.0 : (double)orph[k].len / TWO64;
        uint32_t at = orph[k].at, heir =
            heir_of(share, target, nodes, eligible, nodes.zones[ring.owners[at]], len);
        owners_out[at] = heir;
        share[heir] += len;
    }
    plc_free(share);
    plc_free(orph);
    return 0;
}
