/*
 * fuzz_buckets.c -- differential: the bucketed line table (simd/buckets.h)
 * of every instruction set the CPU has -- one hash, a batch of hashes, and
 * the fused placer-v2 hash + line kernels on keys -- against the textbook
 * lower_bound of tests/reference.c (and its placer-v2 hash), on
 * fuzzer-chosen sorted tokens, owners (up to 65,535, the value that also
 * asks the tree), table sizes, hashes and keys.
 *
 * Input: a count, a shape byte and a bits byte, then tokens: full 64-bit
 * values, or a line (a few top bits) and an offset inside it, so that
 * crowded lines, suffix ties, tokens on line boundaries, 0 and UINT64_MAX
 * come up often; then owners; then hashes; the same bytes are also cut into
 * keys of fuzzer-chosen lengths. Sizes are capped as in fuzz_dir.c.
 */
#include "cpu.h"
#include "buckets.h"
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
static uint32_t owners[MAX_TOKENS], want[MAX_ALL_QUERIES], want_slot[MAX_ALL_QUERIES],
    got[MAX_ALL_QUERIES];
static _Alignas(64) unsigned char tree_mem[(MAX_TOKENS / 5 + 2) * 64 * 2];
/* the lines and their first-token indexes (plc_bkt_bytes(MAX_BITS)) */
static _Alignas(64) unsigned char line_mem[(sizeof(plc_bkt_line) + 4) << MAX_BITS];
#define MAX_KEYS 64u
static const void *key_ptrs[MAX_KEYS];
static size_t key_lens[MAX_KEYS];
static uint32_t key_want[MAX_KEYS], key_got[MAX_KEYS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)plc_kernels_get(); /* the software CRC tables of the scalar fused kernel */
    fuzz_producer p = {data, size};
    uint32_t n = 1 + fuzz_u16(&p) % MAX_TOKENS;
    uint8_t shape = fuzz_u8(&p);
    uint32_t bits = 1 + fuzz_u8(&p) % MAX_BITS;
    uint32_t shift = 64 - bits;
    for (uint32_t i = 0; i < n; i++) {
        if (shape & 1) { /* a line among the first 16 and a small offset: crowding, ties */
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
        owners[i] = shape & 8 ? (shape & 16 ? 65535u - fuzz_u8(&p) : fuzz_u8(&p) % 3u) : i;

    size_t nb, lb;
    plc_stree_size(n, &nb, &lb);
    FUZZ_ASSERT(nb + lb <= sizeof tree_mem);
    plc_stree tree;
    plc_stree_build(&tree, tokens, 8, owners, 4, n, tree_mem, tree_mem + nb);
    plc_bkt d;
    plc_bkt_build(&d, &tree, bits, line_mem);
    /* Keys: the input itself cut at fuzzer-chosen lengths (0..80 bytes),
     * one length for the whole batch when the shape says so (the runs the
     * fused kernel specialises). */
    uint64_t seed = size >= 8 ? fuzz_u64(&(fuzz_producer){data, size}) : 0;
    size_t nkeys = 0, off = 0;
    size_t fixed = shape & 32 ? (size_t)16 << (shape >> 6 & 3) : 0; /* 16, 32, 64, 128 */
    while (nkeys < MAX_KEYS && off < size) {
        size_t len = fixed ? fixed % 81 : data[off] % 81;
        if (off + len > size)
            len = size - off;
        key_ptrs[nkeys] = data + off;
        key_lens[nkeys] = len;
        key_want[nkeys] = owners[ref_lower_bound_wrap(tokens, n, ref_hash64_v2(seed, data + off, len))];
        nkeys++;
        off += len ? len : 1;
    }

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
    for (size_t i = 0; i < nq; i++) {
        want_slot[i] = (uint32_t)ref_lower_bound_wrap(tokens, n, queries[i]);
        want[i] = owners[want_slot[i]];
    }

    unsigned f = plc_cpu_detected();
    size_t nk;
    const plc_search_kernel *k = plc_search_kernels(&nk);
    for (size_t j = 0; j < nk; j++) {
        if ((k[j].needs & f) != k[j].needs)
            continue;
        k[j].bkt_batch(&d, queries, nq, got);
        for (size_t i = 0; i < nq; i++) {
            FUZZ_ASSERT(k[j].bkt_one(&d, queries[i]) == want[i]);
            FUZZ_ASSERT(k[j].bkt_index(&d, queries[i]) == want_slot[i]);
            FUZZ_ASSERT(got[i] == want[i]);
        }
        FUZZ_ASSERT(k[j].bkt_key_batch(&d, seed, key_ptrs, key_lens, nkeys, key_got) == 0);
        for (size_t i = 0; i < nkeys; i++) {
            FUZZ_ASSERT(k[j].bkt_key_one(&d, seed, key_ptrs[i], key_lens[i]) == key_want[i]);
            FUZZ_ASSERT(key_got[i] == key_want[i]);
        }
    }
    return 0;
}
