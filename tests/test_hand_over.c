/*
 * test_hand_over.c -- plc_tokens_hand_over (engine/strategies/
 * token_balance.c), which hands the tokens of leaving nodes to the nodes
 * most under their weight share through a tournament tree per class of
 * nodes (a zone and a weight), against the rule recomputed by scanning
 * every node for every token (ref_tokens_hand_over, tests/
 * reference_balance.c):
 *   - 400 random rings: 2 to 300 nodes, 1 to 4 zones (arbitrary zone
 *     values), weights all equal, from {1, 2, 4}, or all different; random
 *     tokens, evenly spaced ones (many equal shares: ties to the lowest
 *     index) or repeated ones; a random set leaving, some staying nodes
 *     not eligible: every heir the same;
 *   - quotients equal after rounding though the shares differ (the lower
 *     index, with the larger share, must win as the scan lets it);
 *   - weights whose total overflows: PLACER_EINVAL, no heir out of range;
 *   - a large drain: 4,000 of 8,000 nodes x 16 tokens leaving, the
 *     same heirs as the scan (it was the scan: O(nodes) per token, 0.68 s
 *     of a 0.74 s build). Both CPU times are printed, not checked: speed
 *     goals live in benchmarks, not in tests that a slow or emulated
 *     machine would fail.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "placer.h"
#include "reference.h"
#include "token_balance.h"

static uint64_t st = 2029;

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The engine and the reference on one ring; 1 when both agree. */
static int same_heirs(const uint64_t *tok, const uint32_t *own, uint32_t n, const double *w,
                      const uint32_t *zones, uint32_t N, const uint8_t *leaving,
                      const uint8_t *eligible, double *engine_s, double *ref_s)
{
    uint32_t *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    double t0 = cpu_seconds();
    int ea = plc_tokens_hand_over((plc_token_ring){tok, own, n}, (plc_token_nodes){w, zones, N}, leaving,
                                  eligible, a);
    double t1 = cpu_seconds();
    int eb = ref_tokens_hand_over(tok, own, n, w, zones, N, leaving, eligible, b);
    double t2 = cpu_seconds();
    if (engine_s)
        *engine_s = t1 - t0;
    if (ref_s)
        *ref_s = t2 - t1;
    int ok = ea == eb && (ea || memcmp(a, b, n * sizeof *a) == 0);
    for (uint32_t i = 0; !ea && i < n; i++)
        ok &= leaving[own[i]] ? eligible[a[i]] : a[i] == own[i];
    free(a);
    free(b);
    return ok;
}

static void test_random_rings(void)
{
    static const uint32_t zone_values[4] = {7, 0, 100, 3};
    for (int k = 0; k < 400; k++) {
        uint32_t N = 2 + (uint32_t)(check_rand(&st) % 299), per = 1 + (uint32_t)(check_rand(&st) % 8);
        uint32_t nz = 1 + (uint32_t)(check_rand(&st) % 4), n = N * per;
        double *w = malloc(N * sizeof *w);
        uint32_t *zones = malloc(N * sizeof *zones), *own = malloc(n * sizeof *own);
        uint64_t *tok = malloc(n * sizeof *tok);
        uint8_t *leaving = calloc(N, 1), *eligible = calloc(N, 1);
        int weights = k % 3, spacing = (k / 3) % 3;
        for (uint32_t o = 0; o < N; o++) {
            w[o] = weights == 0 ? 1 : weights == 1 ? (double)(1u << (check_rand(&st) % 3))
                                                   : 1 + (double)(check_rand(&st) % 1000000) / 7.0;
            zones[o] = zone_values[check_rand(&st) % nz];
        }
        /* tokens: random, evenly spaced, or a few values repeated */
        for (uint32_t i = 0; i < n; i++)
            tok[i] = spacing == 0 ? check_rand(&st)
                     : spacing == 1 ? (UINT64_MAX / n) * i
                                    : (check_rand(&st) % 16) << 58;
        qsort(tok, n, sizeof *tok, by_u64);
        for (uint32_t i = 0; i < n; i++) /* owners in turn (even shares when evenly spaced) */
            own[i] = spacing == 1 ? i % N : (uint32_t)(check_rand(&st) % N);
        uint32_t nleave = 0;
        for (uint32_t o = 0; o < N; o++) {
            leaving[o] = check_rand(&st) % 3 == 0;
            nleave += leaving[o];
        }
        if (nleave == N)
            leaving[0] = 0;
        for (uint32_t o = 0; o < N; o++)
            eligible[o] = !leaving[o] && check_rand(&st) % 10 != 0;
        for (uint32_t o = 0; o < N; o++)
            eligible[o] |= !leaving[o] && o == N - 1; /* at least one heir */
        CHECK_ALL(same_heirs(tok, own, n, w, zones, N, leaving, eligible, NULL, NULL),
                  "random rings: every heir as the scan's");
        free(w);
        free(zones);
        free(own);
        free(tok);
        free(leaving);
        free(eligible);
    }
}

/* Node 0's share is 2^-56 above node 1's (ranges 2^60 + 2^8 and 2^60, 1/16
 * of the ring each, one ulp apart): with the leaver's half of the ring
 * added both quotients round to the same double, and the scan keeps node 0,
 * the lower index, though the least share is node 1's. */
static void test_rounded_ties(void)
{
    uint64_t a = UINT64_C(1) << 60;
    uint64_t tok[4] = {a + 255, 2 * a + 255, UINT64_C(1) << 63, UINT64_MAX};
    uint32_t own[4] = {0, 1, 3, 2}; /* node 2 leaves: (2^63, 2^64 - 1], 2^63 - 1 */
    double w[4] = {1, 1, 1, 1};
    uint32_t zones[4] = {0, 0, 0, 0};
    uint8_t leaving[4] = {0, 0, 1, 0}, eligible[4] = {1, 1, 0, 0};
    uint32_t heirs[4];
    double share[4];
    plc_token_shares((plc_token_ring){tok, own, 4}, 4, share);
    CHECK(share[0] > share[1]);
    CHECK(share[0] + 0.5 == share[1] + 0.5);
    CHECK_EQ(plc_tokens_hand_over((plc_token_ring){tok, own, 4}, (plc_token_nodes){w, zones, 4}, leaving,
                                  eligible, heirs),
             0);
    CHECK_EQ(heirs[3], 0); /* the lower index, as the scan */
    CHECK(same_heirs(tok, own, 4, w, zones, 4, leaving, eligible, NULL, NULL));
    /* the same with the nodes' places swapped: the lower index has the
     * lower share too */
    uint32_t own2[4] = {1, 0, 3, 2};
    CHECK(same_heirs(tok, own2, 4, w, zones, 4, leaving, eligible, NULL, NULL));
}

/* Staying weights whose sum is +inf: every target 0, every quotient
 * infinite; refused, as the scan would find no heir. */
static void test_overflowing_weights(void)
{
    uint64_t tok[3] = {1, UINT64_C(1) << 62, UINT64_C(1) << 63};
    uint32_t own[3] = {0, 1, 2}, zones[3] = {0, 1, 0}, heirs[3];
    double w[3] = {DBL_MAX, DBL_MAX, 1};
    uint8_t leaving[3] = {0, 0, 1}, eligible[3] = {1, 1, 0};
    CHECK_EQ(plc_tokens_hand_over((plc_token_ring){tok, own, 3}, (plc_token_nodes){w, zones, 3}, leaving,
                                  eligible, heirs),
             PLACER_EINVAL);
    CHECK(same_heirs(tok, own, 3, w, zones, 3, leaving, eligible, NULL, NULL));
}

/* 8,000 nodes x 16 random tokens, 3 zones, every other node leaving. */
static void test_half_leave(void)
{
    uint32_t N = 8000, n = N * 16;
    double *w = malloc(N * sizeof *w);
    uint32_t *zones = malloc(N * sizeof *zones), *own = malloc(n * sizeof *own);
    uint64_t *tok = malloc(n * sizeof *tok);
    uint8_t *leaving = calloc(N, 1), *eligible = calloc(N, 1);
    for (uint32_t o = 0; o < N; o++) {
        w[o] = 1;
        zones[o] = o % 3;
        leaving[o] = o % 2;
        eligible[o] = !leaving[o];
    }
    for (uint32_t i = 0; i < n; i++)
        tok[i] = check_rand(&st);
    qsort(tok, n, sizeof *tok, by_u64);
    for (uint32_t i = 0; i < n; i++)
        own[i] = (uint32_t)(check_rand(&st) % N);
    double engine = 0, ref = 0;
    CHECK(same_heirs(tok, own, n, w, zones, N, leaving, eligible, &engine, &ref));
    printf("hand_over: 4,000 of 8,000 nodes x 16 tokens leave: %.3f s (the scan: %.3f s)\n", engine, ref);
    free(w);
    free(zones);
    free(own);
    free(tok);
    free(leaving);
    free(eligible);
}

int main(void)
{
    test_random_rings();
    test_rounded_ties();
    test_overflowing_weights();
    test_half_leave();
    return check_done("hand_over");
}
