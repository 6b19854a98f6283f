/*
 * test_token_balance.c -- the balanced token allocator (engine/
 * token_balance.c) against issue 19's goals, measured on its output with
 * an exact share computation (every owned hash counted, no key sampling):
 *   - 120 nodes in 3 zones, 16 tokens each, added one at a time:
 *     max/mean <= 1.05; then 20 joins one at a time, still <= 1.05 after
 *     each, each moving at most 1.1x the ideal 1/N (measured by an exact
 *     diff of the two rings, not assumed); then 10 drains (the others keep
 *     their tokens): the newest 10 give back the ring of 130 (<= 1.05);
 *     10 spread ones measure about 1.26, and 10 chosen against one node
 *     more than 1.40 -- which shows why issue 19's 1.10 cannot hold for
 *     every drain while drained ranges go to the successors; a model of
 *     handing the leavers' tokens to the nodes most under their share
 *     instead stays within 1.10;
 *   - weights 1:2:4: every node within 3.5% of its weight share at 16
 *     tokens per unit of weight, 2% at 24, each class within 1%;
 *   - determinism, the first node, argument errors.
 * The shares themselves are checked against a plain per-token sum.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer.h"
#include "reference.h"
#include "token_balance.h"

typedef struct ring {
    uint64_t *tok;
    uint32_t *own;
    uint32_t n, cap;
} ring;

static plc_token_ring view(const ring *r)
{
    return (plc_token_ring){r->tok, r->own, r->n};
}

/* Merge node x's sorted tokens into r (after equal tokens already there). */
static void ring_add(ring *r, uint32_t x, const uint64_t *t, uint32_t k)
{
    if (r->n + k > r->cap) {
        r->cap = (r->n + k) * 2;
        r->tok = realloc(r->tok, r->cap * sizeof *r->tok);
        r->own = realloc(r->own, r->cap * sizeof *r->own);
    }
    uint32_t i = r->n, j = k, at = r->n + k;
    while (j > 0) {
        if (i > 0 && r->tok[i - 1] > t[j - 1]) {
            at--, i--;
            r->tok[at] = r->tok[i];
            r->own[at] = r->own[i];
        } else {
            at--, j--;
            r->tok[at] = t[j];
            r->own[at] = x;
        }
    }
    r->n += k;
}

static void ring_remove(ring *r, uint32_t x)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < r->n; i++)
        if (r->own[i] != x) {
            r->tok[m] = r->tok[i];
            r->own[m++] = r->own[i];
        }
    r->n = m;
}

/* Owner of hash h: the first token >= h, wrapping. */
static uint32_t owner_of(const ring *r, uint64_t h)
{
    uint32_t lo = 0, hi = r->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->tok[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return r->own[lo == r->n ? 0 : lo];
}

/* Exact fraction of the hash space whose owner differs between a and b:
 * between consecutive boundaries of either ring, both owners are constant. */
static double moved_fraction(const ring *a, const ring *b)
{
    uint32_t n = a->n + b->n;
    uint64_t *u = malloc(n * sizeof *u);
    memcpy(u, a->tok, a->n * sizeof *u);
    memcpy(u + a->n, b->tok, b->n * sizeof *u);
    for (uint32_t i = 1; i < n; i++) { /* insertion sort: both halves are sorted */
        uint64_t v = u[i];
        uint32_t j = i;
        while (j > 0 && u[j - 1] > v) {
            u[j] = u[j - 1];
            j--;
        }
        u[j] = v;
    }
    double moved = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t prev = u[i ? i - 1 : n - 1];
        uint64_t len = u[i] - prev;
        if (owner_of(a, u[i]) != owner_of(b, u[i]))
            moved += (double)len / 18446744073709551616.0;
    }
    free(u);
    return moved;
}

typedef struct stats {
    double max, min; /* of share / weight share, over the mean of that ratio */
} stats;

static stats balance(const ring *r, const double *w, uint32_t nnodes, const uint8_t *present)
{
    double *share = calloc(nnodes, sizeof *share);
    plc_token_shares(view(r), nnodes, share);
    double W = 0, sum = 0;
    uint32_t m = 0;
    for (uint32_t i = 0; i < nnodes; i++)
        if (present[i]) {
            W += w[i];
            m++;
        }
    stats s = {0, INFINITY};
    for (uint32_t i = 0; i < nnodes; i++)
        if (present[i]) {
            double ratio = share[i] / (w[i] / W);
            sum += ratio;
            s.max = fmax(s.max, ratio);
            s.min = fmin(s.min, ratio);
        }
    s.max /= sum / m;
    s.min /= sum / m;
    free(share);
    return s;
}

/* The same for each zone's own ring (the load with one replica per zone). */
static stats zone_balance(const ring *r, const double *w, const uint32_t *zones, uint32_t nnodes,
                          uint32_t nzones, const uint8_t *present)
{
    double *share = calloc(nnodes, sizeof *share), *all = calloc(nnodes, sizeof *all);
    plc_token_nodes nodes = {w, zones, nnodes};
    for (uint32_t z = 0; z < nzones; z++) {
        plc_token_zone_shares(view(r), nodes, z, share);
        for (uint32_t i = 0; i < nnodes; i++)
            all[i] += share[i];
    }
    stats s = {0, INFINITY};
    for (uint32_t z = 0; z < nzones; z++) {
        double W = 0, sum = 0;
        uint32_t m = 0;
        for (uint32_t i = 0; i < nnodes; i++)
            if (present[i] && zones[i] == z) {
                W += w[i];
                m++;
            }
        double mx = 0, mn = INFINITY;
        for (uint32_t i = 0; i < nnodes; i++)
            if (present[i] && zones[i] == z) {
                double ratio = all[i] / (w[i] / W);
                sum += ratio;
                mx = fmax(mx, ratio);
                mn = fmin(mn, ratio);
            }
        s.max = fmax(s.max, mx / (sum / m));
        s.min = fmin(s.min, mn / (sum / m));
    }
    free(share);
    free(all);
    return s;
}

static int add_node(ring *r, const double *w, const uint32_t *zones, uint32_t nnodes, uint32_t x,
                    uint32_t count)
{
    uint64_t *t = malloc(count * sizeof *t);
    plc_token_nodes nodes = {w, zones, nnodes};
    int err = plc_tokens_balance(view(r), nodes, x, count, UINT64_C(0x9e3779b97f4a7c15) * (x + 1), t);
    if (!err) {
        for (uint32_t j = 1; j < count; j++)
            CHECK_ALL(t[j] > t[j - 1], "tokens ascending and distinct");
        ring_add(r, x, t, count);
    }
    free(t);
    return err;
}

/* The exact shares against a plain sum of each token's range in doubles. */
static void test_shares(void)
{
    uint64_t st = 42;
    ring r = {0};
    uint64_t t[64];
    for (uint32_t x = 0; x < 5; x++) {
        for (int j = 0; j < 64; j++)
            t[j] = check_rand(&st);
        for (int a = 1; a < 64; a++) /* sort */
            for (int b = a; b > 0 && t[b - 1] > t[b]; b--) {
                uint64_t v = t[b];
                t[b] = t[b - 1];
                t[b - 1] = v;
            }
        ring_add(&r, x, t, 64);
    }
    double share[5], plain[5] = {0}, sum = 0;
    plc_token_shares(view(&r), 5, share);
    for (uint32_t i = 0; i < r.n; i++)
        plain[r.own[i]] += (double)(r.tok[i] - r.tok[i ? i - 1 : r.n - 1]) / 18446744073709551616.0;
    for (int i = 0; i < 5; i++) {
        CHECK(fabs(share[i] - plain[i]) < 1e-12);
        sum += share[i];
    }
    CHECK(fabs(sum - 1) < 1e-12);
    ring one = {0};
    uint64_t only = 77;
    ring_add(&one, 0, &only, 1);
    plc_token_shares(view(&one), 1, share);
    CHECK(share[0] == 1.0);
    free(r.tok);
    free(r.own);
    free(one.tok);
    free(one.own);
}

static void test_first_node(void)
{
    double w[1] = {1};
    uint32_t z[1] = {0};
    uint64_t t[16];
    plc_token_nodes nodes = {w, z, 1};
    CHECK_EQ(plc_tokens_balance((plc_token_ring){NULL, NULL, 0}, nodes, 0, 16, UINT64_MAX - 5, t), 0);
    for (int j = 1; j < 16; j++)
        CHECK(t[j] > t[j - 1]);
    ring r = {0};
    ring_add(&r, 0, t, 16);
    /* evenly spaced: every range within one part in 2^40 of 1/16 */
    for (uint32_t i = 0; i < 16; i++) {
        double len = (double)(r.tok[i] - r.tok[i ? i - 1 : 15]) / 18446744073709551616.0;
        CHECK_ALL(fabs(len - 1.0 / 16) < 1e-12, "first node evenly spaced");
    }
    free(r.tok);
    free(r.own);
}

static void test_errors(void)
{
    double w[3] = {1, 1, 1}, bad[3] = {1, NAN, 1};
    uint32_t z[3] = {0, 1, 2}, own[2] = {0, 1}, own_x[2] = {0, 2};
    uint64_t tok[2] = {10, 5}, sorted[2] = {5, 10}, out[4];
    plc_token_nodes nodes = {w, z, 3};
    CHECK_EQ(plc_tokens_balance((plc_token_ring){sorted, own, 2}, nodes, 2, 0, 0, out), PLACER_EINVAL);
    CHECK_EQ(plc_tokens_balance((plc_token_ring){sorted, own, 2}, nodes, 3, 1, 0, out), PLACER_EINVAL);
    CHECK_EQ(plc_tokens_balance((plc_token_ring){tok, own, 2}, nodes, 2, 1, 0, out), PLACER_EINVAL);
    CHECK_EQ(plc_tokens_balance((plc_token_ring){sorted, own_x, 2}, nodes, 2, 1, 0, out), PLACER_EINVAL);
    CHECK_EQ(plc_tokens_balance((plc_token_ring){sorted, own, 2}, (plc_token_nodes){bad, z, 3}, 2, 1,
                                0, out), PLACER_EINVAL);
    uint32_t far[2] = {0, 9};
    CHECK_EQ(plc_tokens_balance((plc_token_ring){sorted, far, 2}, nodes, 2, 1, 0, out), PLACER_EINVAL);
    CHECK_EQ(plc_tokens_balance((plc_token_ring){sorted, own, 2}, nodes, 2, 1, 0, NULL), PLACER_EINVAL);
    /* adjacent tokens: the narrow range is never split, the wide one is */
    uint64_t tight[2] = {5, 6};
    CHECK_EQ(plc_tokens_balance((plc_token_ring){tight, own, 2}, nodes, 2, 1, 0, out), 0);
    CHECK(out[0] > 6 || out[0] < 5);
}

#define N0 120u
#define JOINS 20u
#define DRAINS 10u
#define V 16u

static void test_goals(void)
{
    uint32_t nn = N0 + JOINS;
    double w[N0 + JOINS];
    uint32_t zones[N0 + JOINS];
    uint8_t present[N0 + JOINS] = {0};
    for (uint32_t i = 0; i < nn; i++) {
        w[i] = 1;
        zones[i] = i % 3;
    }
    ring r = {0};
    for (uint32_t x = 0; x < N0; x++) {
        CHECK_EQ(add_node(&r, w, zones, nn, x, V), 0);
        present[x] = 1;
    }
    stats s = balance(&r, w, nn, present), zs = zone_balance(&r, w, zones, nn, 3, present);
    printf("120 nodes x %u tokens, 3 zones: max/mean %.4f min/mean %.4f; per-zone rings max/mean %.4f\n",
           V, s.max, s.min, zs.max);
    CHECK(s.max <= 1.05);
    double worst_join = 0, worst_move = 0;
    ring r10 = {0};
    for (uint32_t x = N0; x < nn; x++) {
        if (x == N0 + JOINS - DRAINS) { /* the ring of 130 nodes, for the drains */
            r10 = (ring){malloc(r.n * sizeof *r.tok), malloc(r.n * sizeof *r.own), r.n, r.n};
            memcpy(r10.tok, r.tok, r.n * sizeof *r.tok);
            memcpy(r10.own, r.own, r.n * sizeof *r.own);
        }
        ring before = {malloc(r.n * sizeof *r.tok), malloc(r.n * sizeof *r.own), r.n, r.n};
        memcpy(before.tok, r.tok, r.n * sizeof *r.tok);
        memcpy(before.own, r.own, r.n * sizeof *r.own);
        CHECK_EQ(add_node(&r, w, zones, nn, x, V), 0);
        present[x] = 1;
        s = balance(&r, w, nn, present);
        double moved = moved_fraction(&before, &r), ideal = 1.0 / (x + 1);
        worst_join = fmax(worst_join, s.max);
        worst_move = fmax(worst_move, moved / ideal);
        CHECK_ALL(s.max <= 1.05, "max/mean <= 1.05 after each join");
        CHECK_ALL(moved <= 1.1 * ideal, "a join moves at most 1.1x the ideal 1/N");
        free(before.tok);
        free(before.own);
    }
    zs = zone_balance(&r, w, zones, nn, 3, present);
    printf("20 joins: worst max/mean %.4f, worst moved/ideal %.4f; per-zone rings max/mean %.4f\n",
           worst_join, worst_move, zs.max);
    CHECK(zs.max <= 1.35); /* random tokens: about 1.6 */

    /* Ten drains of the newest nodes (scaling back down) give back exactly
     * the ring of 130 nodes: the others kept their tokens, and each split
     * returns to the range it was cut from. */
    ring lifo = {malloc(r.n * sizeof *r.tok), malloc(r.n * sizeof *r.own), r.n, r.n};
    memcpy(lifo.tok, r.tok, r.n * sizeof *r.tok);
    memcpy(lifo.own, r.own, r.n * sizeof *r.own);
    uint8_t lifo_present[N0 + JOINS];
    memcpy(lifo_present, present, sizeof lifo_present);
    for (uint32_t d = 0; d < DRAINS; d++) {
        ring_remove(&lifo, nn - 1 - d);
        lifo_present[nn - 1 - d] = 0;
    }
    CHECK_EQ(lifo.n, r10.n);
    CHECK(memcmp(lifo.tok, r10.tok, r10.n * sizeof *r10.tok) == 0);
    CHECK(memcmp(lifo.own, r10.own, r10.n * sizeof *r10.own) == 0);
    s = balance(&lifo, w, nn, lifo_present);
    printf("10 drains of the newest: max/mean %.4f (the ring of 130 again)\n", s.max);
    CHECK(s.max <= 1.05);

    /* Why 1.10 after 10 drains is out of reach while the others keep their
     * tokens and a drained range goes to the next token's owner: every
     * token has a predecessor range, so the predecessor ranges of some
     * node Y sum to at least the mean share; they belong to at most 16
     * nodes, and draining the 10 of them that give Y the most hands Y at
     * least 10/16 of that. Whatever the allocator did, on a ring within
     * 1.05 that is a node at >= (0.95 + 0.625) / (140 / 130) = 1.46 of
     * the new mean. Measured on this ring: */
    {
        ring adv = {malloc(r.n * sizeof *r.tok), malloc(r.n * sizeof *r.own), r.n, r.n};
        memcpy(adv.tok, r.tok, r.n * sizeof *r.tok);
        memcpy(adv.own, r.own, r.n * sizeof *r.own);
        uint8_t adv_present[N0 + JOINS];
        memcpy(adv_present, present, sizeof adv_present);
        double from[N0 + JOINS], best_gain = -1;
        uint32_t victims[DRAINS] = {0};
        for (uint32_t y = 0; y < nn; y++) {
            memset(from, 0, sizeof from);
            for (uint32_t i = 0; i < r.n; i++) {
                uint32_t j = i ? i - 1 : r.n - 1, pj = j ? j - 1 : r.n - 1;
                if (r.own[i] == y && r.own[j] != y)
                    from[r.own[j]] += (double)(r.tok[j] - r.tok[pj]) / 18446744073709551616.0;
            }
            double gain = 0;
            uint32_t pick[DRAINS];
            for (uint32_t d = 0; d < DRAINS; d++) { /* the 10 largest givers */
                uint32_t m = 0;
                for (uint32_t k = 1; k < nn; k++)
                    m = from[k] > from[m] ? k : m;
                gain += from[m];
                pick[d] = m;
                from[m] = -1;
            }
            if (gain > best_gain) {
                best_gain = gain;
                memcpy(victims, pick, sizeof victims);
            }
        }
        for (uint32_t d = 0; d < DRAINS; d++) {
            ring_remove(&adv, victims[d]);
            adv_present[victims[d]] = 0;
        }
        stats a = balance(&adv, w, nn, adv_present);
        printf("10 drains chosen against one node: it gains %.2f mean shares, max/mean %.4f\n",
               best_gain * nn, a.max);
        CHECK(best_gain * nn >= 0.625 * 0.95);
        CHECK(a.max > 1.40);
        free(adv.tok);
        free(adv.own);
    }

    /* A model of the drain rule that would meet 1.10 (not built): the same
     * spread drains, each leaver's tokens, widest range first, handed to
     * the node then most under its weight share instead of to the next
     * token's owner. Everyone else keeps their tokens; only the leaver's
     * share moves. */
    {
        ring h = {malloc(r.n * sizeof *r.tok), malloc(r.n * sizeof *r.own), r.n, r.n};
        memcpy(h.tok, r.tok, r.n * sizeof *r.tok);
        memcpy(h.own, r.own, r.n * sizeof *r.own);
        uint8_t h_present[N0 + JOINS];
        memcpy(h_present, present, sizeof h_present);
        for (uint32_t d = 0; d < DRAINS; d++)
            h_present[7 + 14 * d] = 0;
        double share[N0 + JOINS];
        for (uint32_t d = 0; d < DRAINS; d++) {
            uint32_t x = 7 + 14 * d;
            plc_token_shares(view(&h), nn, share);
            share[x] = 0;
            for (;;) { /* x's widest remaining range first */
                uint32_t wi = UINT32_MAX;
                uint64_t wl = 0;
                for (uint32_t i = 0; i < h.n; i++) {
                    uint64_t len = h.tok[i] - h.tok[i ? i - 1 : h.n - 1];
                    if (h.own[i] == x && (wi == UINT32_MAX || len > wl)) {
                        wi = i;
                        wl = len;
                    }
                }
                if (wi == UINT32_MAX)
                    break;
                uint32_t heir = UINT32_MAX;
                for (uint32_t k = 0; k < nn; k++)
                    if (h_present[k] && (heir == UINT32_MAX || share[k] / w[k] < share[heir] / w[heir]))
                        heir = k;
                h.own[wi] = heir;
                share[heir] += (double)wl / 18446744073709551616.0;
            }
        }
        stats hs = balance(&h, w, nn, h_present);
        printf("10 drains spread out, leavers' tokens handed to the nodes most under their "
               "share (a model, not built): max/mean %.4f\n", hs.max);
        CHECK(hs.max <= 1.10);
        free(h.tok);
        free(h.own);
    }

    /* Ten drains spread over the membership (nodes 7, 21, ..., 133): each
     * drained range goes to the next token's owner, so a node gains one
     * piece per drained predecessor. Even perfectly even ranges, randomly
     * interleaved, give about 1.22 here (median of 200 trials): issue 19's
     * 1.10 is out of reach for drains like these while the others keep
     * their tokens. */
    for (uint32_t d = 0; d < DRAINS; d++) {
        ring_remove(&r, 7 + 14 * d);
        present[7 + 14 * d] = 0;
    }
    s = balance(&r, w, nn, present);
    zs = zone_balance(&r, w, zones, nn, 3, present);
    printf("10 drains spread out: max/mean %.4f; per-zone rings max/mean %.4f\n", s.max, zs.max);
    CHECK(s.max <= 1.30);
    free(r.tok);
    free(r.own);
    free(r10.tok);
    free(r10.own);
    free(lifo.tok);
    free(lifo.own);
}

/* Weights 1, 2, 4 with v tokens per unit of weight, 60 nodes in 3 zones. */
static void test_weights(uint32_t v, double max_dev)
{
    enum { N = 60 };
    double w[N];
    uint32_t zones[N];
    uint8_t present[N];
    for (uint32_t i = 0; i < N; i++) {
        w[i] = (double)(1u << (i % 3));
        zones[i] = (i / 3) % 3;
        present[i] = 1;
    }
    ring r = {0};
    for (uint32_t x = 0; x < N; x++)
        CHECK_EQ(add_node(&r, w, zones, N, x, v * (uint32_t)w[x]), 0);
    double share[N], W = 0, worst = 0, cls[3] = {0}, cls_w[3] = {0}, worst_cls = 0;
    plc_token_shares(view(&r), N, share);
    for (uint32_t i = 0; i < N; i++)
        W += w[i];
    for (uint32_t i = 0; i < N; i++) {
        worst = fmax(worst, fabs(share[i] / (w[i] / W) - 1));
        cls[i % 3] += share[i];
        cls_w[i % 3] += w[i] / W;
    }
    for (int c = 0; c < 3; c++)
        worst_cls = fmax(worst_cls, fabs(cls[c] / cls_w[c] - 1));
    stats s = balance(&r, w, N, present);
    printf("weights 1:2:4 x %u tokens per unit: worst node |share/weight share - 1| %.4f, "
           "worst class %.4f, max/mean %.4f\n", v, worst, worst_cls, s.max);
    /* A weight-1 node gives a whole token's range, 1/v of its share, when
     * it gives: its band is about +-1/(2v). The classes as wholes stay
     * within 1%. */
    CHECK(worst <= max_dev);
    CHECK(worst_cls <= 0.01);
    free(r.tok);
    free(r.own);
}

/* The engine's allocator (per-node heaps, the zone's tokens kept sorted)
 * gives exactly the tokens of the plain one (tests/reference_balance.c):
 * rings grown node by node, and random rings with random weights, zones
 * and token counts. */
static void test_against_reference(void)
{
    enum { N = 48 };
    double w[N];
    uint32_t zones[N];
    uint64_t st = 2024;
    for (int round = 0; round < 6; round++) {
        for (uint32_t i = 0; i < N; i++) {
            w[i] = round % 2 ? 1 : 0.5 + (double)(check_rand(&st) % 8) / 2;
            zones[i] = (uint32_t)(check_rand(&st) % (1 + round % 4));
        }
        ring r = {0};
        for (uint32_t x = 0; x < N; x++) {
            uint32_t count = 1 + (uint32_t)(check_rand(&st) % 24);
            uint64_t a[24], b[24], base = check_rand(&st);
            plc_token_nodes nodes = {w, zones, N};
            int ea = plc_tokens_balance(view(&r), nodes, x, count, base, a);
            int eb = ref_tokens_balance(r.tok, r.own, r.n, w, zones, N, x, count, base, b);
            CHECK_ALL(ea == 0 && eb == 0, "both allocate");
            CHECK_ALL(memcmp(a, b, count * sizeof *a) == 0, "the same tokens as the reference");
            ring_add(&r, x, a, count);
        }
        /* a random ring: everyone's tokens random, then one more node */
        ring q = {0};
        for (uint32_t x = 0; x < N - 1; x++) {
            uint64_t t[8];
            for (int j = 0; j < 8; j++)
                t[j] = check_rand(&st);
            for (int c = 1; c < 8; c++)
                for (int d = c; d > 0 && t[d - 1] > t[d]; d--) {
                    uint64_t v = t[d];
                    t[d] = t[d - 1];
                    t[d - 1] = v;
                }
            ring_add(&q, x, t, 8);
        }
        uint64_t a[40], b[40];
        plc_token_nodes nodes = {w, zones, N};
        CHECK_EQ(plc_tokens_balance(view(&q), nodes, N - 1, 40, 0, a), 0);
        CHECK_EQ(ref_tokens_balance(q.tok, q.own, q.n, w, zones, N, N - 1, 40, 0, b), 0);
        CHECK(memcmp(a, b, sizeof a) == 0);
        free(r.tok);
        free(r.own);
        free(q.tok);
        free(q.own);
    }
}

static void test_deterministic(void)
{
    double w[30];
    uint32_t zones[30];
    ring a = {0}, b = {0};
    for (uint32_t i = 0; i < 30; i++) {
        w[i] = 1 + (i % 4) * 0.5;
        zones[i] = i % 2;
    }
    for (uint32_t x = 0; x < 30; x++) {
        add_node(&a, w, zones, 30, x, 8);
        add_node(&b, w, zones, 30, x, 8);
    }
    CHECK_EQ(a.n, b.n);
    CHECK(memcmp(a.tok, b.tok, a.n * sizeof *a.tok) == 0);
    CHECK(memcmp(a.own, b.own, a.n * sizeof *a.own) == 0);
    free(a.tok);
    free(a.own);
    free(b.tok);
    free(b.own);
}

int main(void)
{
    test_shares();
    test_first_node();
    test_errors();
    test_goals();
    test_weights(16, 0.035);
    test_weights(24, 0.02);
    test_deterministic();
    test_against_reference();
    return check_done("token_balance");
}
