/*
 * fuzz_dir.c -- differential: the radix directory (simd/dir.h) of every
 * instruction set the CPU has, single and batched, against the textbook
 * lower_bound of tests/reference.c, on fuzzer-chosen sorted tokens, owners,
 * directory sizes and hashes.
 *
 * Input: a count, a shape byte and a bits byte, then tokens: full 64-bit
 * values, or an entry (a few top bits) and an offset inside it, so that
 * crowded entries, tokens on entry boundaries, 0 and UINT64_MAX come up
 * often; then owners (few distinct values when the shape says so, so whole
 * entries answer alone or by their one token's split), then hashes.
 *
 * Sizes are capped so that coverage comes from shapes, not bulk (a campaign
 * needs thousands of executions a second): 600 tokens still give S+ trees of
 * up to two internal levels and entries crowded past the directory's
 * two-token limit; the edges of at most 48 tokens (spread over the ring) are
 * queried; the reference answers each query once for every kernel.
 */
#include "cpu.h"
#include "dir.h"
#include "fuzz.h"
#include "kernels.h"
#include "reference.h"
#include "stree.h"

#define MAX_TOKENS 600u
#define MAX_QUERIES 256u
#define MAX_EDGE_TOKENS 48u
#define MAX_BITS 12u

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

#define MAX_ALL_QUERIES (MAX_QUERIES + 6 * MAX_EDGE_TOKENS + 2)
static uint64_t tokens[MAX_TOKENS], queries[MAX_ALL_QUERIES];
static uint32_t owners[MAX_TOKENS], want[MAX_ALL_QUERIES], got[MAX_ALL_QUERIES];
static _Alignas(64) unsigned char tree_mem[(MAX_TOKENS / 5 + 2) * 64 * 2];
static _Alignas(64) uint32_t dir_mem[1u << MAX_BITS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    uint32_t n = 1 + fuzz_u16(&p) % MAX_TOKENS;
    uint8_t shape = fuzz_u8(&p);
    uint32_t bits = 1 + fuzz_u8(&p) % MAX_BITS;
    uint32_t shift = 64 - bits;
    for (uint32_t i = 0; i < n; i++) {
        if (shape & 1) { /* an entry among the first 16 and a small offset: crowding */
            uint64_t e = fuzz_u8(&p) % 16, off = fuzz_u8(&p);
            tokens[i] = (e << shift) + (shape & 2 ? off : (uint64_t)0 - off);
        } else {
            tokens[i] = fuzz_u64(&p);
        }
    }
    if (shape & 4) {
        tokens[0] = 0;
        tokens[n - 1] = UINT64_MAX;
    }
    qsort(tokens, n, sizeof *tokens, cmp_u64);
    for (uint32_t i = 0; i < n; i++)
        owners[i] = shape & 8 ? fuzz_u8(&p) % (shape & 16 ? 200u : 3u) : i;

    size_t nb, lb;
    plc_stree_size(n, &nb, &lb);
    FUZZ_ASSERT(nb + lb <= sizeof tree_mem);
    plc_stree tree;
    plc_stree_build(&tree, tokens, 8, owners, 4, n, tree_mem, tree_mem + nb);
    plc_dir d;
    plc_dir_build(&d, &tree, bits, dir_mem);

    size_t nq = 0;
    while (p.size && nq < MAX_QUERIES)
        queries[nq++] = fuzz_u64(&p);
    uint32_t stride = n <= MAX_EDGE_TOKENS ? 1 : (n + MAX_EDGE_TOKENS - 1) / MAX_EDGE_TOKENS;
    for (uint32_t i = (uint32_t)(shape >> 5) % stride; i < n; i += stride) {
        uint64_t first = tokens[i] >> shift << shift;
        queries[nq++] = tokens[i];
        queries[nq++] = tokens[i] - 1;
        queries[nq++] = tokens[i] + 1;
        queries[nq++] = first;
        queries[nq++] = first - 1;
        queries[nq++] = first | (UINT64_MAX >> bits);
    }
    queries[nq++] = 0;
    queries[nq++] = UINT64_MAX;
    FUZZ_ASSERT(nq <= MAX_ALL_QUERIES);
    for (size_t i = 0; i < nq; i++)
        want[i] = owners[ref_lower_bound_wrap(tokens, n, queries[i])];

    unsigned f = plc_cpu_detected();
    size_t nk;
    const plc_search_kernel *k = plc_search_kernels(&nk);
    for (size_t j = 0; j < nk; j++) {
        if ((k[j].needs & f) != k[j].needs)
            continue;
        k[j].dir_batch(&d, queries, nq, got);
        for (size_t i = 0; i < nq; i++) {
            FUZZ_ASSERT(k[j].dir_one(&d, queries[i]) == want[i]);
            FUZZ_ASSERT(got[i] == want[i]);
        }
    }
    return 0;
}
