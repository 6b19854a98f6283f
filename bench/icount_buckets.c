/* icount_buckets.c -- the bucket lookups' instruction counts under
 * cachegrind (bench/RESULTS.md, the bucket strategies' sections):
 *   valgrind --tool=cachegrind --branch-sim=yes --cache-sim=no \
 *       build/bench/icount_buckets STRATEGY MODE
 * STRATEGY 7 memento, 8 anchor, 9 dx, 10 jumpback, 11 binomial; MODE 0:
 * the setup alone, 1 placer_lookup_hash, 2 placer_lookup_hash_batch, 3 the
 * plain reference (tests/ref_buckets.c; jumpback: Ertl's loop,
 * ref_jumpback_paper); N keys after 100 random removals from 1,000
 * buckets. Per key: (count of MODE - count of MODE 0) / N. Any other
 * STRATEGY or MODE: the usage, exit status 2; a failed build: 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bucket_setup.h"
#include "placer.h"
#include "ref_buckets.h"
#define NB 1000u
#define N 65536u
int main(int argc, char **argv)
{
    int st = argc == 3 ? atoi(argv[1]) : 0, mode = argc == 3 ? atoi(argv[2]) : -1;
    if (st < PLACER_MEMENTO || st > PLACER_BINOMIAL || mode < 0 || mode > 3) {
        fprintf(stderr, "usage: icount_buckets STRATEGY MODE\n"
                        "  STRATEGY 7 memento, 8 anchor, 9 dx, 10 jumpback, 11 binomial;\n"
                        "  MODE 0 setup alone, 1\n"
                        "  placer_lookup_hash, 2 placer_lookup_hash_batch, 3 the reference\n");
        return 2;
    }
    static uint32_t ids[NB], owners[N]; static uint64_t h[N];
    uint32_t n = NB;
    for (uint32_t i = 0; i < NB; i++) ids[i] = i;
    placer_snapshot *s = bench_bucket_build(st, ids, n, NULL);
    if (!s)
        return 1; /* bench_bucket_build said why */
    ref_memento m; ref_anchor a; ref_dx d;
    ref_memento_init(&m, NB); ref_anchor_init(&a, 2000); ref_dx_init(&d, 2048);
    for (uint32_t i = 0; i < NB; i++) { ref_memento_add(&m); ref_anchor_add(&a); ref_dx_add(&d); }
    uint64_t r = 12345;
    for (uint32_t k = 0; k < NB / 10; k++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t at = (uint32_t)((r >> 33) % n); char id[16];
        snprintf(id, sizeof id, "node-%04u", ids[at]);
        uint32_t bucket = bench_bucket_of_node(s, id);
        ids[at] = ids[--n];
        placer_snapshot *t = bench_bucket_build(st, ids, n, s); placer_snapshot_free(s); s = t;
        if (!s)
            return 1;
        ref_memento_remove(&m, bucket); ref_anchor_remove(&a, bucket); ref_dx_remove(&d, bucket);
    }
    uint64_t x = 1, acc = 0;
    for (uint32_t i = 0; i < N; i++) { x = x * 6364136223846793005ull + 1; h[i] = x ^ (x >> 29) * 0x9e3779b97f4a7c15ull; }
    if (mode == 1) for (uint32_t i = 0; i < N; i++) acc += (uint32_t)placer_lookup_hash(s, h[i]);
    if (mode == 2) { placer_lookup_hash_batch(s, h, N, owners); acc += owners[7]; }
    if (mode == 3) for (uint32_t i = 0; i < N; i++)
        acc += st == PLACER_MEMENTO ? (uint32_t)ref_memento_lookup(&m, h[i]) : st == PLACER_ANCHOR ? ref_anchor_lookup(&a, h[i])
             : st == PLACER_DX ? ref_dx_lookup(&d, h[i]) : st == PLACER_JUMPBACK ? ref_jumpback_paper(h[i], n) : ref_binomial(h[i], n);
    printf("%llu\n", (unsigned long long)acc);
    return 0;
}
