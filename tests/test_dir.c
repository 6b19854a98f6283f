/*
 * test_dir.c -- the radix directory (simd/dir.h) in front of the S+ tree:
 * one test body run against every instruction set this CPU has, single and
 * batched, against the plain lower_bound of tests/reference.c, on the
 * directory's edge cases: tokens exactly on entry boundaries and next to
 * them, 0 and UINT64_MAX, equal tokens with different owners, one token,
 * every token in one entry (the BIG path: the tree's descent), entries
 * holding hundreds of tokens, owners repeated so that whole entries answer
 * alone or by the one token they hold (SPLIT, and hashes too close to its
 * token to call); at the size plc_dir_choose_bits picks and at forced sizes from 1
 * bit up. The kernels are the dispatch table's at each CPU level this
 * machine has (tests/isa.h), every level on the same sets.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dir.h"
#include "isa.h"
#include "kernels.h"
#include "reference.h"
#include "stree.h"

static void *aligned(size_t bytes)
{
    return aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct counts {
    long big, owner, leaf, split; /* entries of each kind seen over the whole run */
} counts;
static counts seen;

/* Queries: every token (a sample on big sets) and its neighbours, the first
 * and last hash of the entries around it and of random entries, the ends of
 * the space, random values. */
static uint64_t *make_queries(const uint64_t *t, uint32_t n, uint32_t bits, uint64_t *rng,
                              size_t *count)
{
    size_t stride = n > 20000 ? n / 20000 : 1, cap = 9 * (n / stride + 1) + 4 + 3000, q = 0;
    uint64_t *h = malloc(cap * sizeof *h);
    uint32_t shift = 64 - bits;
    for (uint32_t i = 0; i < n; i += (uint32_t)stride) {
        uint64_t e = t[i] >> shift, first = e << shift, last = first | (UINT64_MAX >> bits);
        h[q++] = t[i];
        h[q++] = t[i] - 1;
        h[q++] = t[i] + 1;
        h[q++] = first;
        h[q++] = last;
        h[q++] = first - 1;  /* the last hash of the entry before */
        h[q++] = last + 1;   /* the first hash of the entry after */
        h[q++] = first + (last - first) / 2;
        h[q++] = check_rand(rng) >> bits | first;
    }
    h[q++] = 0;
    h[q++] = UINT64_MAX;
    h[q++] = t[0] ? t[0] - 1 : 0;
    h[q++] = t[n - 1] < UINT64_MAX ? t[n - 1] + 1 : UINT64_MAX;
    while (q < cap)
        h[q++] = check_rand(rng);
    *count = q;
    return h;
}

/* Every kernel, single and batched, on tokens t[0..n) (sorted) with owners
 * o[], through a directory of `bits` bits. */
static void check_bits(const uint64_t *t, const uint32_t *o, uint32_t n, uint32_t bits,
                       uint64_t *rng, const char *what)
{
    size_t nb, lb;
    plc_stree_size(n, &nb, &lb);
    void *tree_mem = aligned(nb + lb), *dir_mem = aligned(plc_dir_bytes(bits));
    plc_stree tree;
    plc_stree_build(&tree, t, 8, o, 4, n, tree_mem, (char *)tree_mem + nb);
    plc_dir d;
    plc_dir_build(&d, &tree, bits, dir_mem);
    for (uint64_t e = 0; e < (UINT64_C(1) << bits); e++) {
        uint32_t v = d.entry[e];
        seen.owner += (v & PLC_DIR_OWNER) != 0;
        seen.big += v == PLC_DIR_BIG;
        seen.leaf += (v >> 30) == 0;
        seen.split += (v >> 30) == 1 && v != PLC_DIR_BIG;
    }
    size_t nq;
    uint64_t *q = make_queries(t, n, bits, rng, &nq);
    uint32_t *want = malloc(nq * sizeof *want), *got = malloc(nq * sizeof *got);
    for (size_t i = 0; i < nq; i++)
        want[i] = o[ref_lower_bound_wrap(t, n, q[i])];

    /* This level's directory kernels, single and batched. */
    const plc_kernels *k = plc_kernels_get();
    long bad = 0, bad_batch = 0;
    for (size_t i = 0; i < nq; i++)
        bad += k->dir_search(&d, q[i]) != want[i];
    k->dir_search_batch(&d, q, nq, got);
    for (size_t i = 0; i < nq; i++)
        bad_batch += got[i] != want[i];
    /* Odd batch lengths: the tail group. */
    size_t part = nq > 45 ? 45 : nq;
    memset(got, 0xff, part * sizeof *got);
    k->dir_search_batch(&d, q, part, got);
    for (size_t i = 0; i < part; i++)
        bad_batch += got[i] != want[i];
    if (bad || bad_batch)
        fprintf(stderr, "%s n=%u bits=%u: %s single %ld wrong, batch %ld wrong\n", what, n, bits,
                k->search_name, bad, bad_batch);
    CHECK_ALL(bad == 0 && bad_batch == 0, "every directory kernel == lower_bound with wrap");
    free(q);
    free(want);
    free(got);
    free(tree_mem);
    free(dir_mem);
}

/* The chosen size, and forced sizes around it and down to one bit. */
static void check_set(uint64_t *t, const uint32_t *o, uint32_t n, uint64_t *rng, const char *what)
{
    qsort(t, n, sizeof *t, cmp_u64);
    size_t nb, lb;
    plc_stree_size(n, &nb, &lb);
    uint32_t chosen = plc_dir_choose_bits(n, nb + lb);
    if (chosen) {
        CHECK(nb + lb + plc_dir_bytes(chosen) <= (size_t)n * 24); /* the memory goal */
        check_bits(t, o, n, chosen, rng, what);
    }
    static const uint32_t forced[] = {1, 3, 8, 12, 16};
    for (size_t i = 0; i < sizeof forced / sizeof forced[0]; i++)
        if (forced[i] != chosen && (n <= 70000 || forced[i] >= 12))
            check_bits(t, o, n, forced[i], rng, what);
}

static uint32_t *identity(uint32_t n)
{
    uint32_t *o = calloc(n, sizeof *o);
    for (uint32_t i = 0; i < n; i++)
        o[i] = i;
    return o;
}

/* Owners in runs of `run` equal values over `nodes` nodes: whole entries
 * share one owner (the OWNER entries that hold tokens). */
static uint32_t *runs(uint32_t n, uint32_t run, uint32_t nodes)
{
    uint32_t *o = calloc(n, sizeof *o);
    for (uint32_t i = 0; i < n; i++)
        o[i] = (i / run) % nodes;
    return o;
}

static uint64_t *random_tokens(uint32_t n, uint64_t *rng)
{
    uint64_t *t = malloc((size_t)n * sizeof *t);
    for (uint32_t i = 0; i < n; i++)
        t[i] = check_rand(rng);
    return t;
}

static void both_owner_kinds(uint64_t *t, uint32_t n, uint64_t *rng, const char *what)
{
    uint32_t *o = identity(n);
    check_set(t, o, n, rng, what);
    free(o);
    o = runs(n, 7, 3);
    check_set(t, o, n, rng, what);
    free(o);
    o = runs(n, 1, 120); /* the seed ring's node count: SPLIT entries */
    check_set(t, o, n, rng, what);
    free(o);
}

/* Every set at one CPU level; the same sets at every level. */
static void at_level(void *ctx, const cpu_level *level)
{
    (void)ctx;
    (void)level;
    uint64_t rng = 4242;
    static const uint32_t sizes[] = {1, 2, 5, 6, 10, 11, 63, 64, 65, 100, 1024, 4097, 30720};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t n = sizes[s];
        uint64_t *t = random_tokens(n, &rng);
        both_owner_kinds(t, n, &rng, "random");
        /* 0 and UINT64_MAX among them, and on entry boundaries of every
         * size: multiples of 2^(64 - bits) for bits 1..16, and one off. */
        for (uint32_t i = 0; i < n; i++) {
            uint32_t b = 1 + (uint32_t)(check_rand(&rng) % 16);
            uint64_t e = check_rand(&rng) >> (64 - b);
            t[i] = (e << (64 - b)) + (uint64_t)((int64_t)(i % 3) - 1);
        }
        t[0] = 0;
        t[n - 1] = UINT64_MAX;
        both_owner_kinds(t, n, &rng, "entry boundaries, 0 and max");
        /* Equal tokens from different nodes: every value three times. */
        for (uint32_t i = 0; i < n; i++)
            t[i] = i % 3 ? t[i - i % 3] : check_rand(&rng);
        both_owner_kinds(t, n, &rng, "equal tokens");
        /* Every token in one entry, even of a 16-bit directory. */
        uint64_t base = check_rand(&rng) & ~(UINT64_MAX >> 16);
        for (uint32_t i = 0; i < n; i++)
            t[i] = base | (check_rand(&rng) >> 16);
        both_owner_kinds(t, n, &rng, "one entry");
        free(t);
    }
    /* Entries with hundreds of tokens: 40 clusters of 300 among random ones. */
    {
        uint32_t n = 20000;
        uint64_t *t = random_tokens(n, &rng);
        for (uint32_t c = 0; c < 40; c++) {
            uint64_t base = check_rand(&rng) & ~(UINT64_MAX >> 12);
            for (uint32_t i = 0; i < 300; i++)
                t[c * 300 + i] = base | (check_rand(&rng) >> 20);
        }
        both_owner_kinds(t, n, &rng, "clusters of 300");
        free(t);
    }
    /* Owners wider than SPLIT entries hold (17 bits): no SPLIT entries. */
    {
        uint32_t n = 100000;
        uint64_t *t = random_tokens(n, &rng);
        uint32_t *o = identity(n);
        check_set(t, o, n, &rng, "100,000 owners");
        free(o);
        free(t);
    }
    /* Larger rings at the chosen size only: 2^20 + change. */
    {
        uint32_t n = (1u << 20) + 1 + (uint32_t)(check_rand(&rng) % 1000);
        uint64_t *t = random_tokens(n, &rng);
        uint32_t *o = runs(n, 1, 1000);
        check_set(t, o, n, &rng, "2^20 random");
        free(o);
        free(t);
    }
}

int main(void)
{
    CHECK(for_each_cpu_level(at_level, NULL) >= 1);
    /* Every kind of entry was exercised (else the test proved less than it says). */
    printf("entries seen: %ld answer alone, %ld split, %ld leaf, %ld crowded (tree)\n", seen.owner,
           seen.split, seen.leaf, seen.big);
    CHECK(seen.owner > 0 && seen.split > 0 && seen.leaf > 0 && seen.big > 0);
    return check_done("test_dir");
}
