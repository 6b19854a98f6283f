/*
 * fuzz_search.c -- differential: every search kernel compiled in (the S+
 * tree per instruction set the CPU has, Eytzinger, branchless binary),
 * single and batched, against the textbook lower_bound on fuzzer-chosen
 * sorted token sets and hashes.
 *
 * Input: a count byte and a width byte, then tokens (small values when the
 * width byte says so, to force duplicates), then hashes.
 */
#include "cpu.h"
#include "eytzinger.h"
#include "fuzz.h"
#include "kernels.h"
#include "reference.h"
#include "search.h"
#include "stree.h"

/* Up to 420 tokens: trees of one leaf to three internal levels (406 tokens
 * and up), the shapes; tests/test_search.c takes the kernels to millions
 * of tokens. More here would add time per execution, not paths. */
#define MAX_TOKENS 420u
#define MAX_QUERIES 32u /* fuzzer-chosen */
#define MAX_EDGES 12u   /* tokens probed at t-1, t, t+1 (spread over the set) */
#define MAX_KEYS 16u    /* keys for the fused hash-and-search kernels */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t tokens[MAX_TOKENS], queries[MAX_QUERIES + 3 * MAX_EDGES + 2];
static uint32_t owners[MAX_TOKENS], got[MAX_QUERIES + 3 * MAX_EDGES + 2],
    want[MAX_QUERIES + 3 * MAX_EDGES + 2];
static _Alignas(64) unsigned char tree_mem[(MAX_TOKENS / 5 + 2) * 64 * 2];
static _Alignas(64) uint64_t eyt_keys[MAX_TOKENS + 16];
static _Alignas(64) uint32_t eyt_owners[MAX_TOKENS + 16];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    uint32_t n = 1 + fuzz_u16(&p) % MAX_TOKENS;
    uint8_t width = fuzz_u8(&p);
    for (uint32_t i = 0; i < n; i++)
        tokens[i] = width & 1 ? fuzz_u8(&p) % 16 : width & 2 ? fuzz_u16(&p) : fuzz_u64(&p);
    if (width & 4) {
        tokens[0] = 0;
        tokens[n - 1] = UINT64_MAX;
    }
    qsort(tokens, n, sizeof *tokens, cmp_u64);
    for (uint32_t i = 0; i < n; i++)
        owners[i] = i;

    size_t nb, lb;
    plc_stree_size(n, &nb, &lb);
    FUZZ_ASSERT(nb + lb <= sizeof tree_mem);
    plc_stree tree;
    plc_stree_build(&tree, tokens, 8, owners, 4, n, tree_mem, tree_mem + nb);
    plc_eytzinger eyt;
    plc_eytzinger_build(&eyt, tokens, owners, n, eyt_keys, eyt_owners);

    size_t nq = 0;
    while (p.size && nq < MAX_QUERIES)
        queries[nq++] = width & 8 ? fuzz_u8(&p) % 20 : fuzz_u64(&p);
    uint32_t edges = n < MAX_EDGES ? n : MAX_EDGES;
    for (uint32_t e = 0; e < edges; e++) {
        uint32_t i = (uint32_t)((uint64_t)e * n / edges); /* first and every n/edges-th */
        queries[nq++] = tokens[i];
        queries[nq++] = tokens[i] - 1;
        queries[nq++] = tokens[i] + 1;
    }
    queries[nq++] = 0;
    queries[nq++] = UINT64_MAX;
    for (size_t i = 0; i < nq; i++)
        want[i] = ref_lower_bound_wrap(tokens, n, queries[i]);

    /* Keys for the fused kernels: the input itself, cut at every 7th byte. */
    const void *keys[MAX_KEYS];
    size_t lens[MAX_KEYS], nkeys = 0;
    for (size_t at = 0; at < size && nkeys < MAX_KEYS; at += 7, nkeys++) {
        keys[nkeys] = data + at;
        lens[nkeys] = size - at < 13 ? size - at : 13;
    }
    uint32_t kout[MAX_KEYS];
    uint64_t seed = n * 31u + width;

    unsigned f = plc_cpu_detected();
    size_t nk;
    const plc_search_kernel *k = plc_search_kernels(&nk);
    for (size_t j = 0; j < nk; j++) {
        if ((k[j].needs & f) != k[j].needs)
            continue;
        k[j].batch(&tree, queries, nq, got);
        for (size_t i = 0; i < nq; i++) {
            FUZZ_ASSERT(k[j].one(&tree, queries[i]) == want[i]);
            FUZZ_ASSERT(got[i] == want[i]);
        }
        k[j].key_batch(&tree, seed, keys, lens, nkeys, kout);
        for (size_t i = 0; i < nkeys; i++) {
            uint32_t kw =
                ref_lower_bound_wrap(tokens, n, plc_kernels_sw()->hash64_v2(seed, keys[i], lens[i]));
            FUZZ_ASSERT(k[j].key_one(&tree, seed, keys[i], lens[i]) == kw);
            FUZZ_ASSERT(kout[i] == kw);
        }
    }
    plc_eytzinger_batch(&eyt, queries, nq, got);
    for (size_t i = 0; i < nq; i++) {
        FUZZ_ASSERT(plc_eytzinger_search(&eyt, queries[i]) == want[i]);
        FUZZ_ASSERT(got[i] == want[i]);
        FUZZ_ASSERT(plc_search_branchless(tokens, n, queries[i]) == want[i]);
    }
    return 0;
}
