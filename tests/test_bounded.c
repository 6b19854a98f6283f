/*
 * test_bounded.c -- consistent hashing with bounded loads (engine/
 * bounded.c): the capacity, the walk against the plain rule of
 * tests/reference.c, and the bound itself -- after every insert of every
 * sequence tried (random keys, one hot key repeated, an adversary that
 * always aims at the fullest node, Zipf 1.0), no node holds more than
 * ceil(c * total / m) -- for c = 1, 1.1, 1.25 and 2, with nodes down,
 * joining and draining among them. It also measures, for c = 1.25 under
 * Zipf 1.0, how many requests leave their key's owner.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded.h"
#include "check.h"
#include "placer.h"
#include "reference.h"

#define NODES 40u
#define TOKENS_PER 8u
#define NT (NODES * TOKENS_PER)

typedef struct flat {
    const uint32_t *own;
    uint32_t n, pos;
} flat;

static uint32_t flat_next(void *cursor)
{
    flat *f = cursor;
    uint32_t o = f->own[f->pos];
    f->pos = f->pos + 1 == f->n ? 0 : f->pos + 1;
    return o;
}

typedef struct ring {
    uint64_t tok[NT];
    uint32_t own[NT];
    int states[NODES];
    uint32_t m; /* nodes that may take keys */
} ring;

static void ring_make(ring *r, uint64_t seed, int with_states)
{
    uint64_t st = seed;
    for (uint32_t i = 0; i < NT; i++) {
        r->tok[i] = check_rand(&st);
        r->own[i] = i % NODES;
    }
    for (uint32_t a = 1; a < NT; a++) /* sort tokens, owners along */
        for (uint32_t b = a; b > 0 && r->tok[b - 1] > r->tok[b]; b--) {
            uint64_t t = r->tok[b];
            r->tok[b] = r->tok[b - 1];
            r->tok[b - 1] = t;
            uint32_t o = r->own[b];
            r->own[b] = r->own[b - 1];
            r->own[b - 1] = o;
        }
    r->m = 0;
    for (uint32_t i = 0; i < NODES; i++) {
        r->states[i] = PLACER_NODE_ACTIVE;
        if (with_states && i % 10 == 3)
            r->states[i] = PLACER_NODE_DOWN;
        if (with_states && i % 10 == 5)
            r->states[i] = PLACER_NODE_JOINING;
        if (with_states && i % 10 == 7)
            r->states[i] = PLACER_NODE_DRAINING;
        r->m += r->states[i] == PLACER_NODE_ACTIVE || r->states[i] == PLACER_NODE_DRAINING;
    }
}

static uint32_t slot_of(const ring *r, uint64_t h)
{
    return ref_lower_bound_wrap(r->tok, NT, h);
}

/* The bounded owner of position h by the engine's walk. */
static uint32_t pick(const ring *r, const uint32_t *loads, uint64_t total, double c, uint64_t h)
{
    flat f = {r->own, NT, slot_of(r, h)};
    uint64_t cap = plc_bounded_capacity(total, c, r->m);
    return plc_bounded_walk(flat_next, &f, NT, (plc_node_states){r->states, sizeof(int)}, loads,
                            cap);
}

static void test_capacity(void)
{
    CHECK_EQ(plc_bounded_capacity(0, 1.0, 1), 1);
    CHECK_EQ(plc_bounded_capacity(99, 1.25, 10), 13);  /* 12.5 -> 13 */
    CHECK_EQ(plc_bounded_capacity(99, 1.0, 10), 10);   /* 10 exactly */
    CHECK_EQ(plc_bounded_capacity(0, 1.25, 40), 1);    /* the first key always fits */
    CHECK_EQ(plc_bounded_capacity(UINT64_MAX, 2.0, 1), UINT64_MAX);
    CHECK_EQ(plc_bounded_capacity(UINT64_MAX - 5, 1.0, 1u << 20), UINT64_C(1) << 44);
    /* c as the decimal it is written as: exact rationals (Python's Fraction),
     * where the double formula is off by one either way */
    CHECK_EQ(plc_bounded_capacity(9, 1.1, 11), 1);    /* 1.1 * 10 / 11 = 1 */
    CHECK_EQ(plc_bounded_capacity(19, 1.05, 21), 1);  /* 1.05 * 20 / 21 = 1 */
    CHECK_EQ(plc_bounded_capacity(9, 1.3, 13), 1);
    CHECK_EQ(plc_bounded_capacity(9, 1.1, 1), 11);
    CHECK_EQ(plc_bounded_capacity(UINT64_C(1) << 53, 1.1, 7), UINT64_C(1415417025745014));
    CHECK_EQ(plc_bounded_capacity(UINT64_MAX, 1.25, 3), UINT64_C(7686143364045646507));
    CHECK_EQ(plc_bounded_capacity(999999, 1.000001, 1), 1000001);
    CHECK_EQ(plc_bounded_capacity(12345678901, 1.5, 97), 190912561);
    CHECK_EQ(plc_bounded_capacity(0, 3.3, 10), 1);
    /* the definition, by comparisons only: cap * m >= c * (total + 1) >
     * (cap - 1) * m, c = p / 10^6, for random totals, node counts and c */
    uint64_t st = 31;
    int ok = 1;
    for (int i = 0; i < 200000; i++) {
        uint64_t p = 1000000 + check_rand(&st) % 3000000; /* c from 1 to 4 */
        uint64_t total = check_rand(&st) >> (check_rand(&st) % 64);
        uint32_t m = 1 + (uint32_t)(check_rand(&st) >> (33 + check_rand(&st) % 31));
        uint64_t cap = plc_bounded_capacity(total, (double)p / 1e6, m);
        unsigned __int128 need = (unsigned __int128)p * ((unsigned __int128)total + 1);
        unsigned __int128 unit = (unsigned __int128)m * 1000000;
        if (cap == UINT64_MAX) /* saturated: the true one is at least that */
            ok &= (unsigned __int128)(cap - 1) * unit < need;
        else
            ok &= (unsigned __int128)cap * unit >= need && (unsigned __int128)(cap - 1) * unit < need;
    }
    CHECK_ALL(ok, "capacity == ceil(c * (total + 1) / m) exactly");
}

/* load <= ceil(c * total / m) exactly, c = p / 10^6: (load - 1) * m < c * total */
static int within_bound(uint32_t load, uint64_t p, uint64_t total, uint32_t m)
{
    return load == 0 ||
           (unsigned __int128)(load - 1) * m * 1000000 < (unsigned __int128)p * total;
}

/* Zipf(1.0) over k keys: the inverse CDF by binary search. */
typedef struct zipf {
    double *cdf;
    uint32_t k;
} zipf;

static zipf zipf_make(uint32_t k)
{
    zipf z = {malloc(k * sizeof(double)), k};
    double sum = 0;
    for (uint32_t i = 0; i < k; i++)
        z.cdf[i] = (sum += 1.0 / (i + 1));
    for (uint32_t i = 0; i < k; i++)
        z.cdf[i] /= sum;
    return z;
}

static uint32_t zipf_draw(const zipf *z, uint64_t *st)
{
    double u = (double)(check_rand(st) >> 11) / 9007199254740992.0;
    uint32_t lo = 0, hi = z->k - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (z->cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

enum { RANDOM, HOT, ADVERSARY, ZIPF, KINDS };
static const char *const kind_name[KINDS] = {"random", "one hot key", "adversary", "zipf 1.0"};

/* Insert n keys of a kind; after each, every node within the bound, and the
 * pick equal to the reference's. Returns the fraction placed off their
 * owner. */
static double run(const ring *r, int kind, double c, uint32_t n, const zipf *z)
{
    uint32_t loads[NODES] = {0};
    uint64_t st = 1234 + (uint64_t)kind, total = 0, off = 0;
    int ok_bound = 1, ok_ref = 1, ok_owner = 1;
    uint32_t peak = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t h;
        if (kind == RANDOM) {
            h = check_rand(&st);
        } else if (kind == HOT) {
            h = UINT64_C(0x123456789abcdef);
        } else if (kind == ZIPF) {
            uint64_t key = zipf_draw(z, &st);
            h = check_rand(&key);
        } else { /* aim just below a token of the fullest eligible node */
            uint32_t full = 0;
            for (uint32_t o = 0; o < NODES; o++)
                if (r->states[o] == PLACER_NODE_ACTIVE && loads[o] >= loads[full])
                    full = o;
            uint32_t t = 0;
            while (r->own[t] != full)
                t++;
            h = r->tok[t];
        }
        uint32_t o = pick(r, loads, total, c, h);
        uint32_t want = ref_bounded_owner(r->tok, r->own, NT, r->states, NODES, loads, total, c, h);
        ok_ref &= o == want;
        if (o == PLACER_NO_NODE)
            break;
        /* the usual owner, when it may take keys and is under the capacity */
        uint32_t usual = r->own[slot_of(r, h)];
        uint64_t cap = plc_bounded_capacity(total, c, r->m);
        int eligible = r->states[usual] == PLACER_NODE_ACTIVE ||
                       r->states[usual] == PLACER_NODE_DRAINING;
        if (eligible && loads[usual] < cap)
            ok_owner &= o == usual;
        off += o != usual;
        loads[o]++;
        total++;
        /* the bound, the new key counted: ceil(c * total / m), exactly */
        for (uint32_t k = 0; k < NODES; k++)
            ok_bound &= within_bound(loads[k], (uint64_t)llround(c * 1e6), total, r->m);
        /* and tight: Mirrokni's capacity lets a node reach it (the usual
         * owner takes the key while below) */
        peak = loads[o] > peak ? loads[o] : peak;
    }
    CHECK_ALL(ok_bound, kind_name[kind]);
    /* One hot key fills its node exactly to the bound: the capacity is
     * Mirrokni's, not a stricter one (the load follows ceil(c * t / m) up,
     * one key at a time, while c <= m). */
    uint64_t pc = (uint64_t)llround(c * 1e6);
    if (kind == HOT)
        CHECK_ALL(within_bound(peak, pc, total, r->m) && !within_bound(peak + 1, pc, total, r->m),
                  "one hot key reaches exactly ceil(c * total / m)");
    CHECK_ALL(ok_ref, kind_name[kind]);
    CHECK_ALL(ok_owner, kind_name[kind]);
    /* ineligible nodes never get a key */
    for (uint32_t k = 0; k < NODES; k++)
        if (r->states[k] == PLACER_NODE_DOWN || r->states[k] == PLACER_NODE_JOINING)
            CHECK_ALL(loads[k] == 0, "down and joining nodes take no key");
    CHECK_EQ(total, n);
    return (double)off / n;
}

static void test_bound(void)
{
    static const double cs[] = {1.0, 1.1, 1.25, 2.0};
    zipf z = zipf_make(10000);
    for (int with_states = 0; with_states < 2; with_states++) {
        ring r;
        ring_make(&r, 77 + (uint64_t)with_states, with_states);
        for (unsigned ci = 0; ci < sizeof cs / sizeof *cs; ci++)
            for (int kind = 0; kind < KINDS; kind++)
                run(&r, kind, cs[ci], 4000, &z);
    }
    /* the bounded-load measure: c = 1.25, Zipf 1.0 over 10,000 keys,
     * 100,000 requests on 40 nodes (8 random tokens each) */
    ring r;
    ring_make(&r, 5, 0);
    double off = run(&r, ZIPF, 1.25, 100000, &z);
    printf("c = 1.25, Zipf 1.0: %.2f%% of requests placed off their key's owner\n", 100 * off);
    CHECK(off > 0 && off < 0.5);
    free(z.cdf);
}

/* With nothing loaded, every key goes to its usual owner. */
static void test_usual_owner(void)
{
    ring r;
    ring_make(&r, 9, 0);
    uint32_t loads[NODES] = {0};
    uint64_t st = 3;
    for (int i = 0; i < 1000; i++) {
        uint64_t h = check_rand(&st);
        CHECK_ALL(pick(&r, loads, 0, 1.25, h) == r.own[slot_of(&r, h)], "usual owner when empty");
    }
    /* every eligible node full (loads past the total claimed): no node */
    for (uint32_t k = 0; k < NODES; k++)
        loads[k] = 100;
    CHECK_EQ(pick(&r, loads, 10, 1.25, 42), PLACER_NO_NODE);
}

int main(void)
{
    test_capacity();
    test_bound();
    test_usual_owner();
    return check_done("bounded");
}
