/*
 * test_buckets.c -- the bucketed line table (simd/buckets.h) in front of
 * the S+ tree: the dispatch table's kernels at every CPU level this
 * machine has (tests/isa.h, every level on the same rings), one hash, a
 * batch of hashes, and the fused hash + line kernels on keys, against the plain lower_bound of
 * tests/reference.c (and its placer-v2 hash for keys). Edge and hostile
 * rings: tokens on line boundaries and next to them, 0 and UINT64_MAX,
 * equal tokens from different nodes, one token, every token in one line
 * (crowded: the tree), lines of exactly 15 and 16 tokens, suffix ties,
 * every line's owner lanes (past its tokens, the owners of the tokens
 * after it, wrapping),
 * owners up to 65,535 (whose keys the tree answers); at the size plc_bkt_choose_bits picks and at forced
 * sizes from 1 bit up. Keys in runs of 16, 32 and 64 bytes and mixed
 * lengths, batches of every length around the pipeline's depth.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <string.h>

#include "buckets.h"
#include "check.h"
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

static long crowded_seen, ties_seen, lines_seen;

/* Queries: every token (a sample on big sets), its neighbours, hashes that
 * tie with it on the line's 16 suffix bits, the line's ends, random ones. */
static uint64_t *make_queries(const uint64_t *t, uint32_t n, uint32_t bits, uint64_t *rng,
                              size_t *count)
{
    size_t stride = n > 20000 ? n / 20000 : 1, cap = 9 * (n / stride + 1) + 4 + 3000, q = 0;
    uint64_t *h = malloc(cap * sizeof *h);
    uint32_t shift = 64 - bits;
    uint64_t low = UINT64_MAX >> (bits + 16); /* bits below the suffix */
    for (uint32_t i = 0; i < n; i += (uint32_t)stride) {
        uint64_t first = t[i] >> shift << shift, last = first | (UINT64_MAX >> bits);
        h[q++] = t[i];
        h[q++] = t[i] - 1;
        h[q++] = t[i] + 1;
        h[q++] = t[i] & ~low;                         /* a tie below the token */
        h[q++] = t[i] | low;                          /* a tie above it */
        h[q++] = first;
        h[q++] = last;
        h[q++] = first - 1;
        h[q++] = last + 1;
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

/* 64-byte keys and lengths: runs of one length, then mixed ones. */
static void make_keys(size_t nk, unsigned char *bytes, const void **ptrs, size_t *lens,
                      uint64_t *rng)
{
    static const size_t run_len[] = {32, 16, 64, 32, 0, 8, 32};
    for (size_t i = 0; i < nk; i++) {
        size_t r = run_len[(i / 100) % (sizeof run_len / sizeof run_len[0])];
        lens[i] = r ? r : (size_t)(check_rand(rng) % 65);
        for (size_t b = 0; b < 64; b++)
            bytes[64 * i + b] = (unsigned char)check_rand(rng);
        ptrs[i] = bytes + 64 * i;
    }
}

static void check_keys(const plc_kernels *k, const plc_bkt *l, const uint64_t *t,
                       const uint32_t *o, uint32_t n, uint64_t *rng, const char *what)
{
    enum { NK = 1500 };
    static unsigned char bytes[64 * NK];
    static const void *ptrs[NK];
    static size_t lens[NK];
    static uint32_t want[NK], got[NK + 1];
    uint64_t seed = check_rand(rng);
    make_keys(NK, bytes, ptrs, lens, rng);
    for (size_t i = 0; i < NK; i++)
        want[i] = o[ref_lower_bound_wrap(t, n, ref_hash64_v2(seed, ptrs[i], lens[i]))];
    long bad = 0;
    for (size_t i = 0; i < NK; i++)
        bad += k->bkt_lookup(l, seed, ptrs[i], lens[i]) != want[i];
    /* Batch lengths around the pipeline's block (32), and all; starting in
     * a run of 32-, 16- and 64-byte keys (make_keys: one length for the
     * whole batch up to 93 keys) and of random lengths. */
    static const size_t parts[] = {0, 1, 31, 32, 33, 63, 64, 65, 93, 200, NK};
    static const size_t starts[] = {7, 107, 207, 407};
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++)
        for (size_t a = 0; a < sizeof starts / sizeof starts[0]; a++) {
            size_t m = parts[p], at = m == NK ? 0 : starts[a];
            if (at + m > NK)
                continue;
            memset(got, 0xee, sizeof got);
            bad += k->bkt_lookup_batch(l, seed, ptrs + at, lens + at, m, got) != 0;
            for (size_t i = 0; i < m; i++)
                bad += got[i] != want[at + i];
            bad += got[m] != 0xeeeeeeeeu; /* nothing past the batch */
        }
    /* A NULL key with a length fails the batch before any owner is
     * written, wherever it is (in the first block, a later one, the last,
     * and past the 1,024 keys checked inside the pass); a NULL key of
     * length 0 is the empty key. */
    static const size_t null_at[][2] = {{65, 0}, {65, 40}, {65, 64}, {1400, 1300}}; /* m, where */
    for (size_t p = 0; p < sizeof null_at / sizeof null_at[0]; p++) {
        size_t at = 7, m = null_at[p][0], where = null_at[p][1];
        const void *keep = ptrs[at + where];
        size_t keep_len = lens[at + where];
        ptrs[at + where] = NULL;
        memset(got, 0xee, sizeof got);
        bad += k->bkt_lookup_batch(l, seed, ptrs + at, lens + at, m, got) != -1;
        for (size_t i = 0; i <= m; i++)
            bad += got[i] != 0xeeeeeeeeu;
        lens[at + where] = 0;
        bad += k->bkt_lookup_batch(l, seed, ptrs + at, lens + at, m, got) != 0;
        bad += got[where] != o[ref_lower_bound_wrap(t, n, ref_hash64_v2(seed, "", 0))];
        ptrs[at + where] = keep;
        lens[at + where] = keep_len;
    }
    if (bad)
        fprintf(stderr, "%s n=%u bits=%u: %s keys: %ld wrong\n", what, n, l->bits, k->search_name,
                bad);
    CHECK_ALL(bad == 0, "every fused hash + line kernel == placer-v2 + lower_bound with wrap");
}

static void check_bits(const uint64_t *t, const uint32_t *o, uint32_t n, uint32_t bits,
                       uint64_t *rng, const char *what)
{
    size_t nb, lb;
    plc_stree_size(n, &nb, &lb);
    void *tree_mem = aligned(nb + lb), *mem = aligned(plc_bkt_bytes(bits));
    plc_stree tree;
    plc_stree_build(&tree, t, 8, o, 4, n, tree_mem, (char *)tree_mem + nb);
    plc_bkt l;
    plc_bkt_build(&l, &tree, bits, mem);
    crowded_seen += l.ncrowded;
    lines_seen += (long)1 << bits;
    /* Every line's first-token index, and its owner lanes: lane j of a line
     * under 16 tokens is token (first + j) mod n's owner (past its tokens,
     * those after it), of a crowded line PLC_BKT_ASK_TREE. */
    long bad_lane = 0;
    for (uint64_t i = 0, first = 0; i < (uint64_t)1 << bits; i++) {
        while (first < n && t[first] >> l.shift < i)
            first++;
        uint64_t end = first;
        while (end < n && t[end] >> l.shift == i)
            end++;
        bad_lane += l.base[i] != first;
        for (uint32_t j = 0; j < PLC_BKT_LANES; j++)
            bad_lane += l.line[i].own[j] != (end - first >= PLC_BKT_LANES
                                                 ? PLC_BKT_ASK_TREE
                                                 : (uint16_t)o[(first + j) % n]);
    }
    if (bad_lane)
        fprintf(stderr, "%s n=%u bits=%u: %ld lanes or bases wrong\n", what, n, bits, bad_lane);
    CHECK_ALL(bad_lane == 0, "every line's base and owner lanes, the lanes past its tokens too");
    size_t nq;
    uint64_t *q = make_queries(t, n, bits, rng, &nq);
    uint32_t *want = malloc(nq * sizeof *want), *got = malloc(nq * sizeof *got);
    for (size_t i = 0; i < nq; i++) {
        want[i] = o[ref_lower_bound_wrap(t, n, q[i])];
        /* a query tying with a token of its line: the tree decides */
        const plc_bkt_line *ln = &l.line[q[i] >> l.shift];
        int16_t s = (int16_t)((int32_t)((q[i] >> l.sshift) & 0xFFFF) - 0x8000);
        for (uint32_t j = 0; j < PLC_BKT_LANES; j++)
            ties_seen += ln->suf[j] == s && s != PLC_BKT_PAD; /* crowded lines are all PAD */
    }
    /* This level's line kernels: one hash, a batch, and keys. */
    const plc_kernels *k = plc_kernels_get();
    long bad = 0, bad_batch = 0, bad_slot = 0;
    for (size_t i = 0; i < nq; i++) {
        bad += k->bkt_search(&l, q[i]) != want[i];
        bad_slot += k->bkt_index(&l, q[i]) != (uint32_t)ref_lower_bound_wrap(t, n, q[i]);
    }
    if (bad_slot)
        fprintf(stderr, "%s n=%u bits=%u: %s slot %ld wrong\n", what, n, bits, k->search_name,
                bad_slot);
    CHECK_ALL(bad_slot == 0, "every line kernel's slot == lower_bound with wrap");
    k->bkt_search_batch(&l, q, nq, got);
    for (size_t i = 0; i < nq; i++)
        bad_batch += got[i] != want[i];
    size_t part = nq > 45 ? 45 : nq; /* shorter than the prefetch distance */
    memset(got, 0xff, part * sizeof *got);
    k->bkt_search_batch(&l, q, part, got);
    for (size_t i = 0; i < part; i++)
        bad_batch += got[i] != want[i];
    if (bad || bad_batch)
        fprintf(stderr, "%s n=%u bits=%u: %s single %ld wrong, batch %ld wrong\n", what, n, bits,
                k->search_name, bad, bad_batch);
    CHECK_ALL(bad == 0 && bad_batch == 0, "every line kernel == lower_bound with wrap");
    if (n <= 70000)
        check_keys(k, &l, t, o, n, rng, what);
    free(q);
    free(want);
    free(got);
    free(tree_mem);
    free(mem);
}

/* The chosen size (and its memory bound), and forced sizes down to one bit. */
static void check_set(uint64_t *t, const uint32_t *o, uint32_t n, uint64_t *rng, const char *what)
{
    qsort(t, n, sizeof *t, cmp_u64);
    size_t nb, lb;
    plc_stree_size(n, &nb, &lb);
    uint32_t chosen = plc_bkt_choose_bits(n, 65536, nb + lb);
    CHECK(plc_bkt_choose_bits(n, 65537, nb + lb) == 0); /* owners must fit 16 bits */
    if (chosen) {
        CHECK(nb + lb + plc_bkt_bytes(chosen) <= (size_t)n * 30); /* 2.5x plain */
        check_bits(t, o, n, chosen, rng, what);
    }
    static const uint32_t forced[] = {1, 3, 8, 12, 16};
    for (size_t i = 0; i < sizeof forced / sizeof forced[0]; i++)
        if (forced[i] != chosen && (n <= 70000 || forced[i] >= 12))
            check_bits(t, o, n, forced[i], rng, what);
}

static uint32_t *owners_mod(uint32_t n, uint32_t run, uint32_t nodes)
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

static void owner_kinds(uint64_t *t, uint32_t n, uint64_t *rng, const char *what)
{
    uint32_t *o = owners_mod(n, 1, 65536); /* up to the largest 16-bit owner */
    if (n > 1)
        o[n - 1] = 65535; /* the wrap's owner is the marker too */
    if (n > 2)
        o[n / 2] = 65535;
    check_set(t, o, n, rng, what);
    free(o);
    o = owners_mod(n, 7, 3);
    check_set(t, o, n, rng, what);
    free(o);
}

/* Every ring at one CPU level; the same rings at every level. */
static void at_level(void *ctx, const cpu_level *level)
{
    (void)ctx;
    (void)level;
    uint64_t rng = 2525;
    static const uint32_t sizes[] = {1, 2, 15, 16, 17, 63, 64, 65, 100, 1024, 4097, 30720};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t n = sizes[s];
        uint64_t *t = random_tokens(n, &rng);
        owner_kinds(t, n, &rng, "random");
        /* 0 and UINT64_MAX, and tokens on line boundaries of every size. */
        for (uint32_t i = 0; i < n; i++) {
            uint32_t b = 1 + (uint32_t)(check_rand(&rng) % 16);
            uint64_t e = check_rand(&rng) >> (64 - b);
            t[i] = (e << (64 - b)) + (uint64_t)((int64_t)(i % 3) - 1);
        }
        t[0] = 0;
        t[n - 1] = UINT64_MAX;
        owner_kinds(t, n, &rng, "line boundaries, 0 and max");
        /* Equal tokens from different nodes: every value three times. */
        for (uint32_t i = 0; i < n; i++)
            t[i] = i % 3 ? t[i - i % 3] : check_rand(&rng);
        owner_kinds(t, n, &rng, "equal tokens");
        /* Tokens equal on their top 32 bits: suffix ties at every size. */
        for (uint32_t i = 0; i < n; i++)
            t[i] = i % 2 ? (t[i - 1] & ~(uint64_t)UINT32_MAX) | (check_rand(&rng) >> 32)
                         : check_rand(&rng);
        owner_kinds(t, n, &rng, "suffix ties");
        /* Every token in one line, even of a 16-bit table. */
        uint64_t base = check_rand(&rng) & ~(UINT64_MAX >> 16);
        for (uint32_t i = 0; i < n; i++)
            t[i] = base | (check_rand(&rng) >> 16);
        owner_kinds(t, n, &rng, "one line");
        free(t);
    }
    /* Lines of exactly 15 (the fullest a line answers) and 16 (crowded)
     * tokens, at a 10-bit table. */
    for (uint32_t per = 14; per <= 17; per++) {
        uint32_t n = 50 * per;
        uint64_t *t = malloc((size_t)n * sizeof *t);
        for (uint32_t i = 0; i < n; i++)
            t[i] = (uint64_t)(i / per * 17) << 54 | (check_rand(&rng) >> 10);
        qsort(t, n, sizeof *t, cmp_u64);
        uint32_t *o = owners_mod(n, 1, 1000);
        check_bits(t, o, n, 10, &rng, "lines of 14..17 tokens");
        free(o);
        free(t);
    }
    /* A ring at 2^20 + change: the chosen size only. */
    {
        uint32_t n = (1u << 20) + 1 + (uint32_t)(check_rand(&rng) % 1000);
        uint64_t *t = random_tokens(n, &rng);
        uint32_t *o = owners_mod(n, 1, 4096);
        check_set(t, o, n, &rng, "2^20 random");
        free(o);
        free(t);
    }
}

int main(void)
{
    CHECK(for_each_cpu_level(at_level, NULL) >= 1);
    printf("lines seen: %ld, %ld crowded; %ld suffix ties queried\n", lines_seen, crowded_seen,
           ties_seen);
    CHECK(crowded_seen > 0 && ties_seen > 0); /* both fallbacks were exercised */
    return check_done("test_buckets");
}
