/*
 * reference_balance.c -- the balanced token allocator written plainly, as
 * engine/token_balance.c first was: every token rescans the whole ring
 * (each node's widest range, every zone link) instead of keeping per-node
 * heaps and the zone's tokens sorted. O(count * n) per node; the engine's
 * allocator must give the same tokens (tests/test_token_balance.c).
 */
#include <math.h>
#include <string.h>

#include <stdlib.h>

#include "reference.h"

typedef struct ref_ring {
    const uint64_t *tokens;
    const uint32_t *owners;
    uint32_t n;
} ref_ring;

typedef struct ref_nodes {
    const double *weights;
    const uint32_t *zones;
    uint32_t n;
} ref_nodes;

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

static void shares(ref_ring ring, uint32_t nnodes, double *share)
{
    uint64_t *acc = calloc((size_t)nnodes * 2, sizeof *acc);
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
    free(acc);
}

static void zone_shares(ref_ring ring, ref_nodes nodes, uint32_t zone,
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

typedef struct state {
    uint64_t *tok;
    uint32_t *own;
    uint32_t n;
    const ref_nodes *nodes;
    double *share, *target; /* per node: ownership, weight share */
    uint32_t *widest;       /* per node: its widest range's slot */
    uint64_t *wlen;
    double *zshare, *ztarget; /* per node: of its zone's ring (zone of x only) */
    uint32_t *prevz, *nextz;  /* per slot: x's zone's slot before it, at or after it */
    uint32_t nz;              /* tokens of x's zone */
    double *pscore;           /* per slot: the whole-ring score (INFINITY: no candidate) */
    uint64_t *dval;
} state;

/* prevz[k]: the last slot of zone z among k-1, k-2, ... cyclically (k itself
 * last); nextz[k]: the first among k, k+1, ... cyclically. */
static void zone_links(state *S, uint32_t z)
{
    const uint32_t *zones = S->nodes->zones;
    uint32_t n = S->n, last = NONE, first = NONE;
    S->nz = 0;
    for (uint32_t i = 0; i < n; i++)
        if (zones[S->own[i]] == z) {
            last = i;
            first = first == NONE ? i : first;
            S->nz++;
        }
    if (!S->nz)
        return;
    uint32_t p = last;
    for (uint32_t i = 0; i < n; i++) {
        S->prevz[i] = p;
        if (zones[S->own[i]] == z)
            p = i;
    }
    uint32_t q = first;
    for (uint32_t i = n; i-- > 0;) {
        if (zones[S->own[i]] == z)
            q = i;
        S->nextz[i] = q;
    }
}

/* What a token of x taking d from slot k does to the zone ring: *g the
 * zone-ring share x gains, *oz whom from (NONE: nobody, x's own). */
static double zone_score(const state *S, uint32_t x, uint32_t k, uint64_t d, double *g,
                         uint32_t *oz)
{
    *oz = NONE;
    *g = 0;
    if (!S->nz)
        return 0;
    uint32_t from = S->own[S->nextz[k]];
    if (from == x)
        return 0;
    uint64_t p = S->tok[k ? k - 1 : S->n - 1];
    *g = ((double)(p - S->tok[S->prevz[k]]) + (double)d) / TWO64;
    *oz = from;
    return dq(S->zshare[x], *g, S->ztarget[x]) + dq(S->zshare[from], -*g, S->ztarget[from]);
}

/* Place one token of node x taking at most q; 0 or PLACER_ETOOMANY. */
static int place_one(state *S, uint32_t x, uint64_t q)
{
    uint32_t n = S->n, best = NONE;
    uint64_t best_d = 0;
    double best_score = INFINITY;
    /* Only each node's widest range is a candidate: splitting it keeps the
     * node's ranges even, so that a later drain hands out even pieces. */
    for (uint32_t k = 0; k < n; k++) {
        uint64_t hi, len = range_len(S->tok, n, k, &hi);
        len = hi ? UINT64_MAX : len;
        uint32_t o = S->own[k];
        if (S->widest[o] == NONE || len > S->wlen[o]) {
            S->widest[o] = k;
            S->wlen[o] = len;
        }
    }
    double best_p = INFINITY;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t o = S->own[k];
        S->pscore[k] = INFINITY;
        if (o == x || S->widest[o] != k || S->wlen[o] < 2)
            continue;
        uint64_t len = S->wlen[o];
        uint64_t cap = len - len / 16; /* leave the owner a sixteenth at least */
        uint64_t d = q < cap ? q : cap;
        double dd = (double)d / TWO64;
        S->pscore[k] = dq(S->share[x], dd, S->target[x]) + dq(S->share[o], -dd, S->target[o]);
        S->dval[k] = d;
        best_p = fmin(best_p, S->pscore[k]);
    }
    /* Among the candidates nearly as good for the whole ring (within
     * ZONE_SLACK of the best victim's surplus), the best for the zone's ring;
     * then the best for the whole ring. */
    double limit = best_p + 2 * ZONE_SLACK * ((double)q / TWO64), best_ps = INFINITY;
    for (uint32_t k = 0; k < n; k++) {
        if (!(S->pscore[k] <= limit))
            continue;
        double g;
        uint32_t oz;
        double score = zone_score(S, x, k, S->dval[k], &g, &oz);
        if (score < best_score || (score == best_score && S->pscore[k] < best_ps)) {
            best_ps = S->pscore[k];
            best_score = score;
            best = k;
            best_d = S->dval[k];
        }
    }
    for (uint32_t k = 0; k < n; k++)
        S->widest[S->own[k]] = NONE;
    if (best == NONE)
        return PLACER_ETOOMANY;
    uint32_t k = best, o = S->own[k];
    uint64_t t = S->tok[k ? k - 1 : n - 1] + best_d;
    double dd = (double)best_d / TWO64;
    S->share[x] += dd;
    S->share[o] -= dd;
    double g;
    uint32_t oz;
    zone_score(S, x, k, best_d, &g, &oz);
    if (oz != NONE) {
        S->zshare[x] += g;
        S->zshare[oz] -= g;
    } else if (!S->nz) {
        S->zshare[x] = 1.0; /* the first of its zone owns all its zone's ring */
    }
    /* Slot 0's range wraps: a token past the last one goes to the end. */
    uint32_t at = k == 0 && t > S->tok[n - 1] ? n : k;
    memmove(S->tok + at + 1, S->tok + at, (size_t)(n - at) * sizeof *S->tok);
    memmove(S->own + at + 1, S->own + at, (size_t)(n - at) * sizeof *S->own);
    S->tok[at] = t;
    S->own[at] = x;
    S->n = n + 1;
    return 0;
}

static int check_args(ref_ring ring, ref_nodes nodes, uint32_t node, uint32_t count)
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

static int balance(ref_ring ring, ref_nodes nodes, uint32_t node,
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
            uint64_t *tmp = malloc((size_t)count * sizeof *tmp);
            if (!tmp)
                return PLACER_ENOMEM;
            memcpy(tmp, out + wrap, (size_t)(count - wrap) * sizeof *tmp);
            memcpy(tmp + count - wrap, out, (size_t)wrap * sizeof *tmp);
            memcpy(out, tmp, (size_t)count * sizeof *tmp);
            free(tmp);
        }
        return 0;
    }
    size_t cap = (size_t)ring.n + count;
    state S = {0};
    S.nodes = &nodes;
    S.tok = malloc(cap * sizeof *S.tok);
    S.own = malloc(cap * sizeof *S.own);
    S.share = calloc((size_t)nodes.n * 2, sizeof *S.share);
    S.widest = malloc((size_t)nodes.n * sizeof *S.widest);
    S.wlen = malloc((size_t)nodes.n * sizeof *S.wlen);
    S.zshare = calloc((size_t)nodes.n * 2, sizeof *S.zshare);
    S.prevz = malloc(cap * sizeof *S.prevz);
    S.nextz = malloc(cap * sizeof *S.nextz);
    S.pscore = malloc(cap * sizeof *S.pscore);
    S.dval = malloc(cap * sizeof *S.dval);
    err = PLACER_ENOMEM;
    if (S.tok && S.own && S.share && S.widest && S.wlen && S.zshare && S.prevz && S.nextz &&
        S.pscore && S.dval) {
        err = 0;
        memset(S.widest, 0xff, (size_t)nodes.n * sizeof *S.widest);
        S.target = S.share + nodes.n;
        memcpy(S.tok, ring.tokens, (size_t)ring.n * sizeof *S.tok);
        memcpy(S.own, ring.owners, (size_t)ring.n * sizeof *S.own);
        S.n = ring.n;
        shares(ring, nodes.n, S.share);
        /* targets: weight shares among the nodes that own tokens, and x */
        for (uint32_t i = 0; i < ring.n; i++)
            S.target[ring.owners[i]] = 1;
        S.target[node] = 1;
        double W = 0;
        for (uint32_t i = 0; i < nodes.n; i++)
            W += S.target[i] > 0 ? nodes.weights[i] : 0;
        uint32_t z = nodes.zones[node];
        double Wz = 0;
        for (uint32_t i = 0; i < nodes.n; i++)
            Wz += S.target[i] > 0 && nodes.zones[i] == z ? nodes.weights[i] : 0;
        S.ztarget = S.zshare + nodes.n;
        for (uint32_t i = 0; i < nodes.n; i++) {
            S.ztarget[i] = S.target[i] > 0 && nodes.zones[i] == z ? nodes.weights[i] / Wz : 1;
            S.target[i] = S.target[i] > 0 ? nodes.weights[i] / W : 1;
        }
        zone_shares(ring, nodes, z, S.zshare);
        double qf = ldexp(S.target[node] / count, 64);
        uint64_t q = qf >= TWO64 ? UINT64_MAX : qf < 1 ? 1 : (uint64_t)qf;
        for (uint32_t j = 0; j < count && !err; j++) {
            zone_links(&S, z);
            err = place_one(&S, node, q);
        }
        uint32_t got = 0;
        for (uint32_t i = 0; i < S.n && !err; i++)
            if (S.own[i] == node)
                out[got++] = S.tok[i];
    }
    free(S.tok);
    free(S.own);
    free(S.share);
    free(S.widest);
    free(S.wlen);
    free(S.zshare);
    free(S.prevz);
    free(S.nextz);
    free(S.pscore);
    free(S.dval);
    return err;
    return err;
}

int ref_tokens_balance(const uint64_t *tokens, const uint32_t *owners, uint32_t n,
                       const double *weights, const uint32_t *zones, uint32_t nnodes,
                       uint32_t node, uint32_t count, uint64_t base, uint64_t *out)
{
    return balance((ref_ring){tokens, owners, n}, (ref_nodes){weights, zones, nnodes}, node, count,
                   base, out);
}
