/*
 * test_search.c -- one test body run against every search kernel this CPU
 * has (the S+ tree per instruction set, Eytzinger, branchless binary),
 * single and batched, on the token counts where layouts break: 1, 2, 7, 8,
 * 9, 63, 64, 65, 72, 73, 511, 4096, 30,720, and random sizes up to 2^24;
 * duplicate runs, tokens 0 and UINT64_MAX, all-equal sets; hashes equal to
 * tokens, next to them, below the first and above the last.
 *
 * Owners are the identity (owner of token i is i), so a kernel's answer is
 * its lower_bound index: picking any duplicate but the first is caught.
 * The reference is the textbook lower_bound, itself checked against a
 * linear scan on the small sets.
 *
 * The kernels are the dispatch table's at each CPU level this machine has
 * (tests/isa.h): every level runs the same sets (the generator restarts
 * from one seed), and the portable level also checks the baselines.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eytzinger.h"
#include "isa.h"
#include "kernels.h"
#include "reference.h"
#include "search.h"
#include "stree.h"

typedef struct layouts {
    plc_stree tree;
    void *tree_mem;
    plc_eytzinger eyt;
    void *eyt_keys, *eyt_owners;
} layouts;

static void *aligned(size_t bytes)
{
    return aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
}

static void build(layouts *l, const uint64_t *tokens, const uint32_t *owners, uint32_t n)
{
    size_t nb, lb, kb, ob;
    plc_stree_size(n, &nb, &lb);
    l->tree_mem = aligned(nb + lb);
    plc_stree_build(&l->tree, tokens, 8, owners, 4, n, l->tree_mem, (char *)l->tree_mem + nb);
    plc_eytzinger_size(n, &kb, &ob);
    l->eyt_keys = aligned(kb);
    l->eyt_owners = aligned(ob);
    plc_eytzinger_build(&l->eyt, tokens, owners, n, l->eyt_keys, l->eyt_owners);
}

static void release(layouts *l)
{
    free(l->tree_mem);
    free(l->eyt_keys);
    free(l->eyt_owners);
}

/* Queries that matter for these tokens: every token (or a sample on big
 * sets) and its neighbours, the ends of the space, random values. */
static uint64_t *make_queries(const uint64_t *t, uint32_t n, uint64_t *rng, size_t *count)
{
    size_t stride = n > 20000 ? n / 20000 : 1, cap = 3 * (n / stride + 1) + 4 + 2000, q = 0;
    uint64_t *h = malloc(cap * sizeof *h);
    for (uint32_t i = 0; i < n; i += (uint32_t)stride) {
        h[q++] = t[i];
        h[q++] = t[i] - 1;
        h[q++] = t[i] + 1;
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

static const char *sizes_desc = "every kernel == lower_bound with wrap";

static void check_set(const uint64_t *tokens, uint32_t n, uint64_t *rng, const char *what,
                      const cpu_level *level)
{
    uint32_t *owners = malloc((size_t)n * sizeof *owners);
    for (uint32_t i = 0; i < n; i++)
        owners[i] = i;
    layouts l;
    build(&l, tokens, owners, n);
    size_t nq;
    uint64_t *q = make_queries(tokens, n, rng, &nq);
    uint32_t *want = malloc(nq * sizeof *want), *got = malloc(nq * sizeof *got);
    for (size_t i = 0; i < nq; i++)
        want[i] = ref_lower_bound_wrap(tokens, n, q[i]);
    if (n <= 4096) /* the reference against a linear scan */
        for (size_t i = 0; i < nq; i += 7) {
            uint32_t lin = 0;
            while (lin < n && tokens[lin] < q[i])
                lin++;
            CHECK_ALL((lin == n ? 0 : lin) == want[i], "reference == linear scan");
        }

    /* This level's search kernels, single, batched and fused with the hash. */
    const plc_kernels *k = plc_kernels_get();
    long bad = 0;
    for (size_t i = 0; i < nq; i++)
        bad += k->search(&l.tree, q[i]) != want[i] || k->index(&l.tree, q[i]) != want[i];
    k->search_batch(&l.tree, q, nq, got);
    long bad_batch = 0;
    for (size_t i = 0; i < nq; i++)
        bad_batch += got[i] != want[i];
    /* The fused kernels: hash the key, then the same answer. */
    long bad_key = 0;
    uint64_t seed = check_rand(rng);
    enum { NKEYS = 300 };
    static unsigned char keybuf[NKEYS][40];
    const void *keys[NKEYS];
    size_t lens[NKEYS];
    uint32_t kout[NKEYS];
    for (int i = 0; i < NKEYS; i++) {
        lens[i] = (size_t)(i % 41);
        for (size_t b = 0; b < lens[i]; b++)
            keybuf[i][b] = (unsigned char)check_rand(rng);
        keys[i] = keybuf[i];
    }
    k->lookup_batch(&l.tree, seed, keys, lens, NKEYS, kout);
    for (int i = 0; i < NKEYS; i++) {
        uint32_t w = ref_lower_bound_wrap(tokens, n, plc_kernels_sw()->hash64_v2(seed, keys[i], lens[i]));
        bad_key += k->lookup(&l.tree, seed, keys[i], lens[i]) != w;
        bad_key += kout[i] != w;
    }
    if (bad || bad_batch || bad_key)
        fprintf(stderr, "%s n=%u: level %s, %s single %ld wrong, batch %ld wrong, keyed %ld wrong\n",
                what, n, level->name, k->search_name, bad, bad_batch, bad_key);
    CHECK_ALL(bad == 0 && bad_batch == 0 && bad_key == 0, sizes_desc);

    /* The baselines use no CPU feature: checked once, at the portable level. */
    if (level->mask == 0) {
        bad = 0;
        for (size_t i = 0; i < nq; i++) {
            bad += plc_eytzinger_search(&l.eyt, q[i]) != want[i];
            bad += plc_search_branchless(tokens, n, q[i]) != want[i];
        }
        plc_eytzinger_batch(&l.eyt, q, nq, got);
        for (size_t i = 0; i < nq; i++)
            bad += got[i] != want[i];
        if (bad)
            fprintf(stderr, "%s n=%u: eytzinger/branchless %ld wrong\n", what, n, bad);
        CHECK_ALL(bad == 0, "eytzinger and branchless binary == lower_bound with wrap");
    }
    free(q);
    free(want);
    free(got);
    free(owners);
    release(&l);
}

/* Sorted tokens by construction: random gaps, some zero (duplicates). */
static uint64_t *sorted_tokens(uint32_t n, uint64_t *rng, int dup_every, int ends)
{
    uint64_t *t = malloc((size_t)n * sizeof *t);
    uint64_t step = UINT64_MAX / n, x = check_rand(rng) % step;
    for (uint32_t i = 0; i < n; i++) {
        if (!(dup_every && i % dup_every == 1))
            x += 1 + check_rand(rng) % (step - 1 ? step - 1 : 1);
        t[i] = x;
    }
    /* check: monotone despite wrap-around of the sum */
    for (uint32_t i = 1; i < n; i++)
        if (t[i] < t[i - 1])
            t[i] = t[i - 1];
    if (ends) {
        t[0] = 0;
        t[n - 1] = UINT64_MAX;
        if (n > 2)
            t[n - 2] = UINT64_MAX;
    }
    return t;
}

/* Every set at one CPU level; the same sets at every level. */
static void at_level(void *ctx, const cpu_level *level)
{
    (void)ctx;
    static const uint32_t fixed[] = {1, 2, 7, 8, 9, 63, 64, 65, 72, 73, 511, 4096, 30720};
    uint64_t rng = 31337;
    for (size_t s = 0; s < sizeof fixed / sizeof fixed[0]; s++) {
        uint32_t n = fixed[s];
        for (int variant = 0; variant < 3; variant++) {
            uint64_t *t = sorted_tokens(n, &rng, variant == 1 ? 3 : 0, variant == 2);
            check_set(t, n, &rng, variant == 0 ? "distinct" : variant == 1 ? "duplicates" : "ends",
                      level);
            free(t);
        }
        uint64_t *same = malloc((size_t)n * sizeof *same);
        for (uint32_t i = 0; i < n; i++)
            same[i] = UINT64_C(0x8000000000000000);
        check_set(same, n, &rng, "all equal", level);
        for (uint32_t i = 0; i < n; i++)
            same[i] = i < n / 2 ? 0 : UINT64_MAX;
        check_set(same, n, &rng, "0 and max only", level);
        free(same);
    }
    /* Random sizes, non-powers of two, up to 2^24. */
    uint32_t random_sizes[] = {(uint32_t)(100 + check_rand(&rng) % 5000),
                               (uint32_t)(70000 + check_rand(&rng) % 200000),
                               (uint32_t)((1u << 20) + 1 + check_rand(&rng) % (1u << 20)),
                               (1u << 24) - 3};
    for (size_t s = 0; s < sizeof random_sizes / sizeof random_sizes[0]; s++) {
        uint64_t *t = sorted_tokens(random_sizes[s], &rng, 5, s % 2);
        printf("random size %u\n", random_sizes[s]);
        check_set(t, random_sizes[s], &rng, "random size", level);
        free(t);
    }
}

int main(void)
{
    CHECK(for_each_cpu_level(at_level, NULL) >= 1);
    return check_done("test_search");
}
