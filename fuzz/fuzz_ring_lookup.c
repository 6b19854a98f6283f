/*
 * fuzz_ring_lookup.c -- differential: placer's ring lookup vs the linear
 * scan of tests/reference.c on fuzzer-chosen memberships, tokens and hashes.
 *
 * Input: node count, vnodes, seed; per node a name byte, a weight byte and
 * an explicit-token count with its tokens (small values on purpose, so ties
 * between nodes are common); then hashes and keys to look up. Lookups run
 * with the CPU's kernels and again with every feature masked off.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <math.h>

#include "fuzz.h"
#include "placer.h"
#include "reference.h"

#define MAX_NODES 8 /* shapes, not bulk: each execution builds two rings */
#define MAX_EXPLICIT 8
#define MAX_TOKENS (MAX_NODES * 16)
#define MAX_EDGES 24   /* tokens probed at t-1, t, t+1 per pass */
#define MAX_QUERIES 64 /* fuzzer-chosen hashes and keys per pass */

static size_t tokens_for(double weight, uint32_t vnodes)
{
    long t = lround(weight * vnodes);
    return t < 1 ? 1 : (size_t)t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    int nnodes = 1 + fuzz_u8(&p) % MAX_NODES;
    uint32_t vnodes = 1 + fuzz_u8(&p) % 8;
    uint64_t seed = fuzz_u8(&p);
    char names[MAX_NODES][8];
    const char *ids[MAX_NODES];
    ref_token ref[MAX_TOKENS];
    size_t nref = 0;

    placer_builder *b = placer_builder_new();
    FUZZ_ASSERT(b);
    FUZZ_ASSERT(placer_builder_set_seed(b, seed) == 0);
    FUZZ_ASSERT(placer_builder_set_vnodes(b, vnodes) == 0);
    for (int i = 0; i < nnodes; i++) {
        /* One fuzzer-chosen letter, then the index: unique, in any order. */
        snprintf(names[i], sizeof names[i], "%c%d", 'a' + fuzz_u8(&p) % 26, i);
        ids[i] = names[i];
        double weight = (1 + fuzz_u8(&p) % 8) / 4.0;
        FUZZ_ASSERT(placer_builder_add_node(b, ids[i], "z", weight) == i);
        uint8_t mode = fuzz_u8(&p);
        int nexplicit = mode % (MAX_EXPLICIT + 1);
        for (int j = 0; j < nexplicit; j++) {
            uint64_t t = mode & 0x80 ? fuzz_u64(&p) : fuzz_u8(&p) % 32;
            FUZZ_ASSERT(placer_builder_add_token(b, (uint32_t)i, t) == 0);
            ref[nref++] = (ref_token){t, (uint32_t)i, (uint32_t)j};
        }
        if (!nexplicit) {
            size_t count = tokens_for(weight, vnodes);
            for (uint32_t j = 0; j < count; j++) {
                char name[32];
                int len = snprintf(name, sizeof name, "%s-%u", ids[i], j);
                ref[nref++] = (ref_token){placer_hash64(seed, name, (size_t)len), (uint32_t)i, j};
            }
        }
    }
    placer_snapshot *s = NULL;
    FUZZ_ASSERT(placer_builder_build(b, 1, &s) == 0);
    FUZZ_ASSERT(placer_token_count(s) == nref);

    for (int pass = 0; pass < 2; pass++) {
        fuzz_producer q = p;
        /* Edges: tokens spread over the ring (all of them on small rings),
         * their neighbours, 0 and UINT64_MAX. The reference scans every
         * token per lookup: probing all of a large ring would cost
         * milliseconds per input. */
        size_t step = nref / MAX_EDGES + 1;
        for (size_t i = (size_t)seed % step; i < nref; i += step)
            for (int d = -1; d <= 1; d++) {
                uint64_t h = ref[i].token + (uint64_t)(int64_t)d;
                FUZZ_ASSERT((uint32_t)placer_lookup_hash(s, h) == ref_ring_owner(ref, nref, ids, h));
            }
        FUZZ_ASSERT((uint32_t)placer_lookup_hash(s, 0) == ref_ring_owner(ref, nref, ids, 0));
        FUZZ_ASSERT((uint32_t)placer_lookup_hash(s, UINT64_MAX) ==
                    ref_ring_owner(ref, nref, ids, UINT64_MAX));
        /* Fuzzer-chosen hashes and keys (at most MAX_QUERIES). */
        for (int n = 0; q.size && n < MAX_QUERIES; n++) {
            uint8_t kind = fuzz_u8(&q);
            if (kind & 1) {
                uint64_t h = kind & 2 ? fuzz_u8(&q) % 40 : fuzz_u64(&q);
                FUZZ_ASSERT((uint32_t)placer_lookup_hash(s, h) == ref_ring_owner(ref, nref, ids, h));
            } else {
                size_t len;
                const uint8_t *key = fuzz_bytes(&q, kind >> 2, &len);
                uint64_t h = placer_hash64(seed, key, len);
                FUZZ_ASSERT(placer_snapshot_hash(s, key, len) == h);
                FUZZ_ASSERT((uint32_t)placer_lookup(s, key, len) == ref_ring_owner(ref, nref, ids, h));
            }
        }
        /* Second pass: a snapshot built with every CPU feature hidden
         * (after it, none: a third build would check nothing). */
        if (pass == 0) {
            placer_snapshot_free(s);
            s = NULL;
            placer_set_cpu_mask(0u);
            FUZZ_ASSERT(placer_builder_build(b, 1, &s) == 0);
        }
    }
    placer_set_cpu_mask(~0u);
    placer_snapshot_free(s);
    placer_builder_free(b);
    return 0;
}
