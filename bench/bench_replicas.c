/*
 * bench_replicas.c -- replica sets on the seed ring (120 nodes in 3 zones x
 * 256 tokens), want = 3 and want = 5, beside the single lookup of the same
 * keys (lookup/30720/placer/single in bench_lookup.c): walked after the
 * lookup (no memory), and read from sets of 3 precomputed at build time
 * (placer_builder_set_replicas; 12 bytes per token, reported as a counter);
 * each also through placer_replicas_batch, 256 keys a call, in the same
 * process as its single calls.
 */
#include <stdio.h>

#include "benches.h"
#include "fixtures.h"
#include "shim.h"

typedef struct replica_case {
    uint32_t want, precomputed, batch;
} replica_case;

enum { BATCH = 256 };

static void bench_replicas(plc_bench *b, const void *arg)
{
    const replica_case *c = arg;
    const ring_fixture *f = bench_fixture(1);
    placer_snapshot *s = f->snap;
    if (c->precomputed) {
        placer_builder *bld = placer_builder_new();
        placer_builder_set_vnodes(bld, 256);
        placer_builder_set_replicas(bld, c->precomputed);
        char id[32], zone[16];
        for (unsigned n = 0; n < 120; n++) {
            snprintf(id, sizeof id, "node-%03u", n);
            snprintf(zone, sizeof zone, "zone-%u", n % 3);
            placer_builder_add_node(bld, id, zone, 1.0);
        }
        placer_builder_build(bld, 1, &s);
        placer_builder_free(bld);
        plc_bench_counter(b, "replica_bytes", (double)placer_snapshot_replica_bytes(s), 0);
    }
    uint32_t out[8];
    uint64_t acc = 0;
    if (c->batch) {
        static uint32_t sets[BATCH * 8], counts[BATCH];
        static size_t lens[BATCH];
        for (uint32_t i = 0; i < BATCH; i++)
            lens[i] = BENCH_KEY_LEN;
        while (plc_bench_keep_running(b, BENCH_KEYS))
            for (uint32_t i = 0; i + BATCH <= BENCH_KEYS; i += BATCH) {
                placer_replicas_batch(s, (const void *const *)f->key_ptrs + i, lens, BATCH,
                                      c->want, sets, counts);
                acc += sets[(counts[BATCH - 1] - 1) + (BATCH - 1) * c->want];
            }
    } else {
        while (plc_bench_keep_running(b, BENCH_KEYS))
            for (uint32_t i = 0; i < BENCH_KEYS; i++) {
                int n = placer_replicas(s, f->key_ptrs[i], BENCH_KEY_LEN, out, c->want);
                acc += out[n - 1];
            }
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    if (c->precomputed)
        placer_snapshot_free(s);
}

void register_replica_benches(void)
{
    static const replica_case cases[] = {{3, 0, 0}, {5, 0, 0}, {3, 3, 0},
                                         {3, 0, 1}, {5, 0, 1}, {3, 3, 1}};
    plc_bench_register("replicas/30720/want_3", bench_replicas, &cases[0]);
    plc_bench_register("replicas/30720/want_5", bench_replicas, &cases[1]);
    plc_bench_register("replicas/30720/want_3/precomputed_3", bench_replicas, &cases[2]);
    plc_bench_register("replicas/30720/want_3/batch", bench_replicas, &cases[3]);
    plc_bench_register("replicas/30720/want_5/batch", bench_replicas, &cases[4]);
    plc_bench_register("replicas/30720/want_3/precomputed_3/batch", bench_replicas, &cases[5]);
}
