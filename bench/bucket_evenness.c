/*
 * bucket_evenness.c -- the bucket strategies' evenness goal, measured: max/mean keys
 * per bucket at 1,000 buckets (1,000 nodes of weight 1), averaged over
 * SETS key sets of KEYS random positions each, for jump, memento, anchor,
 * dx, jumpback and binomial; then after removing 10% of the nodes at
 * random (one build at a time from the previous snapshot, as
 * bench_buckets.c does) for memento, anchor and dx, beside jump over as
 * many buckets (900). Not a timed benchmark: placer_lookup_hash_batch
 * counts, the figures are distributions.
 *
 *   build/bench/bucket_evenness [SETS [KEYS]]      (default 10 10000000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket_setup.h"
#include "placer.h"

#define NB 1000u
#define CHUNK 65536u

/* 1,000 nodes, then (removed) 100 random ones taken out one build at a time. */
static placer_snapshot *placement(int st, int removed)
{
    uint32_t ids[NB], n = NB;
    for (uint32_t i = 0; i < NB; i++)
        ids[i] = i;
    placer_snapshot *s = bench_bucket_build(st, ids, n, NULL);
    uint64_t r = 12345;
    for (uint32_t k = 0; removed && s && k < NB / 10; k++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t at = (uint32_t)((r >> 33) % n);
        ids[at] = ids[--n];
        placer_snapshot *t = bench_bucket_build(st, ids, n, s);
        placer_snapshot_free(s);
        s = t;
    }
    return s;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Mean over the key sets of max/mean keys per node. */
static double max_over_mean(const placer_snapshot *s, unsigned sets, uint64_t keys)
{
    uint32_t nodes = placer_node_count(s), *owners = malloc(CHUNK * sizeof *owners);
    uint64_t *count = malloc(nodes * sizeof *count), *h = malloc(CHUNK * sizeof *h);
    double sum = 0;
    for (unsigned set = 0; set < sets; set++) {
        uint64_t x = 1000003ull * (set + 1);
        memset(count, 0, nodes * sizeof *count);
        for (uint64_t done = 0; done < keys; done += CHUNK) {
            uint32_t m = keys - done < CHUNK ? (uint32_t)(keys - done) : CHUNK;
            for (uint32_t i = 0; i < m; i++)
                h[i] = splitmix(&x);
            placer_lookup_hash_batch(s, h, m, owners);
            for (uint32_t i = 0; i < m; i++)
                count[owners[i]]++;
        }
        uint64_t mx = 0;
        for (uint32_t i = 0; i < nodes; i++)
            mx = count[i] > mx ? count[i] : mx;
        sum += (double)mx / ((double)keys / nodes);
    }
    free(owners);
    free(count);
    free(h);
    return sum / sets;
}

int main(int argc, char **argv)
{
    unsigned sets = argc > 1 ? (unsigned)atoi(argv[1]) : 10;
    uint64_t keys = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000000ull;
    static const int all[] = {PLACER_JUMP, PLACER_MEMENTO, PLACER_ANCHOR, PLACER_DX,
                              PLACER_JUMPBACK, PLACER_BINOMIAL};
    printf("max/mean keys per node, mean of %u sets of %llu random positions\n", sets,
           (unsigned long long)keys);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        placer_snapshot *s = placement(all[i], 0);
        printf("%-9s 1000 buckets            %.4f\n", placer_strategy_name(all[i]),
               max_over_mean(s, sets, keys));
        placer_snapshot_free(s);
    }
    uint32_t ids[NB - NB / 10];
    for (uint32_t i = 0; i < NB - NB / 10; i++)
        ids[i] = i;
    placer_snapshot *j = bench_bucket_build(PLACER_JUMP, ids, NB - NB / 10, NULL);
    printf("%-9s  900 buckets            %.4f\n", "jump", max_over_mean(j, sets, keys));
    placer_snapshot_free(j);
    for (size_t i = 1; i < 4; i++) {
        placer_snapshot *s = placement(all[i], 1);
        printf("%-9s 1000 - 100 at random    %.4f\n", placer_strategy_name(all[i]),
               max_over_mean(s, sets, keys));
        placer_snapshot_free(s);
    }
    return 0;
}
