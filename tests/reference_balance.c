/*
 * reference_balance.c -- the balanced token allocator's rule, recomputed
 * from the ring for every token (the rule as engine/strategies/balancer.h
 * states it; none of the engine's state: no heaps, no zone sets, no shares
 * kept between tokens). Every token: the exact shares, each node's widest
 * range and its token count by one scan of the ring; the candidates sorted
 * by key; the zone's ring listed and its shares summed; then the split.
 * O(count * (n + N log N)) per join: for tests only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "placer.h"
#include "reference.h"

#define TWO64 18446744073709551616.0
#define BAND 32u       /* balancer.h: BALANCE_BAND */
#define SLACK 0.0125   /* balancer.h: BALANCE_SLACK */
#define NO_NODE UINT32_MAX

typedef unsigned __int128 u128;

static double u128_double(u128 v)
{
    return (double)(uint64_t)(v >> 64) * TWO64 + (double)(uint64_t)v;
}

typedef struct cand {
    double key;
    uint32_t node;
} cand;

static int by_key(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Slot i's range (p, s]: its length, UINT64_MAX for the whole ring (one
 * token, or all equal, at slot 0); *whole set then. */
static uint64_t slot_len(const uint64_t *t, uint32_t n, uint32_t i, int *whole)
{
    *whole = i == 0 && t[0] == t[n - 1];
    return *whole ? UINT64_MAX : t[i] - t[i ? i - 1 : n - 1];
}

/* One token of x on the ring tok/own (m entries); 0 or PLACER_ETOOMANY. */
static int ref_one(uint64_t *tok, uint32_t *own, uint32_t *m, const double *w, const uint32_t *zones,
                   uint32_t N, uint32_t x, uint64_t q, double W, uint64_t *t_out)
{
    uint32_t n = *m;
    u128 *share = calloc(N, sizeof *share), *zshare = calloc(N, sizeof *zshare);
    uint64_t *wlen = calloc(N, sizeof *wlen), *ws = calloc(N, sizeof *ws), *wp = calloc(N, sizeof *wp);
    uint32_t *ntok = calloc(N, sizeof *ntok), *zslot = malloc((n + 1) * sizeof *zslot);
    cand *c = malloc((N + 1) * sizeof *c);
    /* shares, widest ranges (longest, then ending first), token counts */
    for (uint32_t i = 0; i < n; i++) {
        int whole;
        uint64_t len = slot_len(tok, n, i, &whole), s = tok[i], p = tok[i ? i - 1 : n - 1];
        uint32_t o = own[i];
        share[o] += whole ? (u128)1 << 64 : len;
        if (!ntok[o] || len > wlen[o] || (len == wlen[o] && s < ws[o])) {
            wlen[o] = len;
            ws[o] = s;
            wp[o] = p;
        }
        ntok[o]++;
    }
    uint32_t nc = 0;
    for (uint32_t o = 0; o < N; o++)
        if (o != x && ntok[o] && wlen[o] >= 2) {
            double a = u128_double(share[o]);
            c[nc++] = (cand){(a - a / (2.0 * ntok[o])) / w[o], o};
        }
    int err = PLACER_ETOOMANY;
    if (nc) {
        qsort(c, nc, sizeof *c, by_key);
        double thr = c[0].key - SLACK * TWO64 / W;
        /* x's zone's ring: its slots in ring order, each owning back to the previous */
        uint32_t nz = 0;
        for (uint32_t i = 0; i < n; i++)
            if (zones[own[i]] == zones[x])
                zslot[nz++] = i;
        for (uint32_t k = 0; k < nz; k++) {
            uint64_t t = tok[zslot[k]], prev = tok[zslot[k ? k - 1 : nz - 1]];
            int whole = k == 0 && t == prev;
            zshare[own[zslot[k]]] += whole ? (u128)1 << 64 : (u128)(t - prev);
        }
        uint32_t best = NO_NODE;
        double best_score = 0;
        uint64_t best_d = 0;
        for (uint32_t b = 0; b < nc && b < BAND && (b == 0 || c[b].key >= thr); b++) {
            uint32_t o = c[b].node;
            uint64_t keep = wlen[o] / 16 ? wlen[o] / 16 : 1, cap = wlen[o] - keep;
            uint64_t d = q < cap ? q : cap;
            double score = 0;
            if (nz) {
                uint32_t f = own[zslot[0]];
                for (uint32_t k = 0; k < nz; k++) /* the first zone token >= s */
                    if (tok[zslot[k]] >= ws[o]) {
                        f = own[zslot[k]];
                        break;
                    }
                uint64_t zb = tok[zslot[nz - 1]]; /* the last zone token <= p */
                for (uint32_t k = 0; k < nz; k++)
                    if (tok[zslot[k]] <= wp[o])
                        zb = tok[zslot[k]];
                if (f != x) {
                    uint64_t g = wp[o] + d - zb;
                    double G = (double)g / TWO64, A = u128_double(zshare[x]) / TWO64;
                    double F = u128_double(zshare[f]) / TWO64;
                    score = G * ((2 * A + G) / w[x] - (2 * F - G) / w[f]);
                }
            }
            if (best == NO_NODE || score < best_score) {
                best = o;
                best_score = score;
                best_d = d;
            }
        }
        uint64_t t = wp[best] + best_d;
        uint32_t at = 0; /* after the tokens <= t */
        while (at < n && tok[at] <= t)
            at++;
        memmove(tok + at + 1, tok + at, (n - at) * sizeof *tok);
        memmove(own + at + 1, own + at, (n - at) * sizeof *own);
        tok[at] = t;
        own[at] = x;
        *m = n + 1;
        *t_out = t;
        err = 0;
    }
    free(share);
    free(zshare);
    free(wlen);
    free(ws);
    free(wp);
    free(ntok);
    free(zslot);
    free(c);
    return err;
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ref_tokens_balance(const uint64_t *tokens, const uint32_t *owners, uint32_t n,
                       const double *weights, const uint32_t *zones, uint32_t nnodes,
                       uint32_t node, uint32_t count, uint64_t base, uint64_t *out)
{
    if (!count || node >= nnodes)
        return PLACER_EINVAL;
    if (!n) { /* evenly spaced from base, ascending */
        uint64_t step = UINT64_MAX / count;
        for (uint32_t j = 0; j < count; j++)
            out[j] = base + step * j;
        qsort(out, count, sizeof *out, by_u64);
        return 0;
    }
    /* W: the ring's owners in index order, then the node joining */
    uint8_t *owns = calloc(nnodes, 1);
    for (uint32_t i = 0; i < n; i++)
        owns[owners[i]] = 1;
    double W = 0;
    for (uint32_t o = 0; o < nnodes; o++)
        W += owns[o] ? weights[o] : 0;
    free(owns);
    W += weights[node];
    double qf = ldexp(weights[node] / W / count, 64);
    uint64_t q = qf >= TWO64 ? UINT64_MAX : qf < 1 ? 1 : (uint64_t)qf;
    uint64_t *tok = malloc(((size_t)n + count) * sizeof *tok);
    uint32_t *own = malloc(((size_t)n + count) * sizeof *own), m = n;
    memcpy(tok, tokens, n * sizeof *tok);
    memcpy(own, owners, n * sizeof *own);
    int err = 0;
    for (uint32_t j = 0; j < count && !err; j++)
        err = ref_one(tok, own, &m, weights, zones, nnodes, node, q, W, &out[j]);
    if (!err)
        qsort(out, count, sizeof *out, by_u64);
    free(tok);
    free(own);
    return err;
}

/* The hand-over's rule (engine/strategies/token_balance.h,
 * plc_tokens_hand_over) with every node scanned for every token: the
 * leavers' tokens widest first (then the lowest slot), each to the eligible
 * node lowest in (share + len) / target, or within ZONE_SLACK of it one of
 * the leaver's zone, ties to the lowest index. O(L log L + L x nnodes): for
 * tests only. */
#define HAND_OVER_ZONE_SLACK 0.0125 /* token_balance.c: ZONE_SLACK */

typedef struct leaver_token {
    u128 len;
    uint32_t at;
} leaver_token;

static int widest_then_slot(const void *a, const void *b)
{
    const leaver_token *x = a, *y = b;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Slot i's range, 2^64 for the whole ring. */
static u128 slot_len128(const uint64_t *tokens, uint32_t n, uint32_t i)
{
    int whole;
    uint64_t len = slot_len(tokens, n, i, &whole);
    return whole ? (u128)1 << 64 : len;
}

int ref_tokens_hand_over(const uint64_t *tokens, const uint32_t *owners, uint32_t n,
                         const double *weights, const uint32_t *zones, uint32_t nnodes,
                         const uint8_t *leaving, const uint8_t *eligible, uint32_t *heirs)
{
    double W = 0;
    for (uint32_t o = 0; o < nnodes; o++)
        W += leaving[o] ? 0 : weights[o];
    double *share = calloc(nnodes ? nnodes : 1, sizeof *share);
    u128 *sum = calloc(nnodes ? nnodes : 1, sizeof *sum);
    leaver_token *order = malloc((n ? n : 1) * sizeof *order);
    uint32_t L = 0;
    for (uint32_t i = 0; i < n; i++) {
        heirs[i] = owners[i];
        sum[owners[i]] += slot_len128(tokens, n, i);
        if (leaving[owners[i]])
            order[L++] = (leaver_token){slot_len128(tokens, n, i), i};
    }
    for (uint32_t o = 0; o < nnodes; o++) /* as plc_token_shares: hi + lo / 2^64 */
        share[o] = (double)(uint64_t)(sum[o] >> 64) + (double)(uint64_t)sum[o] / TWO64;
    qsort(order, L, sizeof *order, widest_then_slot);
    int err = 0;
    for (uint32_t k = 0; k < L; k++) {
        uint32_t at = order[k].at;
        double len = order[k].len >> 64 ? 1.0 : (double)(uint64_t)order[k].len / TWO64;
        uint32_t z = zones[owners[at]], best = NO_NODE, best_zone = NO_NODE;
        double best_after = INFINITY, zone_after = INFINITY;
        for (uint32_t o = 0; o < nnodes; o++) {
            if (!eligible[o])
                continue;
            double after = (share[o] + len) / (weights[o] / W);
            if (after < best_after) {
                best_after = after;
                best = o;
            }
            if (zones[o] == z && after < zone_after) {
                zone_after = after;
                best_zone = o;
            }
        }
        uint32_t heir = best_zone != NO_NODE && zone_after <= best_after * (1 + HAND_OVER_ZONE_SLACK)
                            ? best_zone : best;
        if (heir == NO_NODE) {
            err = PLACER_EINVAL;
            break;
        }
        heirs[at] = heir;
        share[heir] += len;
    }
    free(share);
    free(sum);
    free(order);
    return err;
}
