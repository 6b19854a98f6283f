/*
 * bench_strategies.c -- every placement strategy in one matrix: 120 and
 * 10,000 nodes (weights 1, three zones), the same 32-byte keys, single
 * lookups and batches of BENCH_KEYS. Beside them, in the same process, the
 * baselines of the strategies' goals: the rendezvous scoring kernel against its
 * scalar reference, placer's jump against the paper's loop (tests/reference.c's
 * ref_jump_hash: another library, so one call each, as placer_jump_hash), and
 * Couchbase-mode key -> vBucket (placer_partition) against zlib + modulo
 * (vbucket/32B/zlib in bench_crc32.c).
 *
 * The rendezvous kernel runs on two memberships of 120: equal weights (the
 * logarithm-free kernels) and weights 1..4 (the -w / ln(u) kernels).
 *
 * Table sizes: 1024 partitions (Couchbase's count, whatever the nodes);
 * Maglev M = 65,537 for 120 nodes and 1,000,003 (the paper's M >= 100 N)
 * for 10,000; the ring 256 tokens per node (2.56 M tokens at 10,000).
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdio.h>
#include <string.h>

#include "benches.h"
#include "fixtures.h"
#include "kernels.h"
#include "reference.h"
#include "shim.h"

#define NSTRAT 5
static const int strategies[NSTRAT] = {PLACER_RING, PLACER_PARTITIONS, PLACER_JUMP,
                                       PLACER_RENDEZVOUS, PLACER_MAGLEV};
static const uint32_t node_counts[2] = {120, 10000};
static placer_snapshot *snaps[NSTRAT][2];

static placer_snapshot *snapshot_for(int si, int ni)
{
    if (snaps[si][ni])
        return snaps[si][ni];
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, strategies[si]);
    placer_builder_set_vnodes(b, 256);
    if (strategies[si] == PLACER_MAGLEV && ni == 1)
        placer_builder_set_partitions(b, 1000003);
    char id[32], zone[16];
    for (uint32_t n = 0; n < node_counts[ni]; n++) {
        snprintf(id, sizeof id, "node-%05u", n);
        snprintf(zone, sizeof zone, "zone-%u", n % 3);
        placer_builder_add_node(b, id, zone, 1.0);
    }
    placer_builder_build(b, 1, &snaps[si][ni]);
    placer_builder_free(b);
    return snaps[si][ni];
}

typedef struct strat_case {
    int si, ni, batch;
} strat_case;

static void bench_strategy(plc_bench *b, const void *arg)
{
    const strat_case *c = arg;
    const ring_fixture *f = bench_fixture(1); /* its keys */
    const placer_snapshot *s = snapshot_for(c->si, c->ni);
    if (!s) {
        plc_bench_skip(b, "build failed");
        return;
    }
    static uint32_t owners[BENCH_KEYS];
    uint64_t acc = 0;
    /* Rendezvous over 10,000 nodes costs microseconds a key: fewer keys a turn. */
    uint32_t keys = strategies[c->si] == PLACER_RENDEZVOUS && c->ni ? 1024 : BENCH_KEYS;
    while (plc_bench_keep_running(b, keys)) {
        if (c->batch) {
            placer_lookup_batch(s, f->key_ptrs, f->key_lens, keys, owners);
            acc += owners[acc % keys];
        } else {
            for (uint32_t i = 0; i < keys; i++)
                acc += (uint32_t)placer_lookup(s, f->key_ptrs[i], BENCH_KEY_LEN);
        }
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_counter(b, "snapshot_bytes", (double)placer_snapshot_layout_bytes(s), 0);
}

/* The scoring kernel alone over 120 candidates: chosen kernel vs scalar. */
typedef struct hrw_case {
    int scalar, weighted;
} hrw_case;

static void bench_hrw_kernel(plc_bench *b, const void *arg)
{
    const hrw_case *c = arg;
    const plc_kernels *k = plc_kernels_get();
    if (!c->scalar && k->hrw_best == plc_hrw_best_scalar) {
        plc_bench_skip(b, "no AVX-512 on this CPU");
        return;
    }
    static uint64_t seed[120];
    static double inv[120];
    for (int i = 0; i < 120; i++) {
        char id[16];
        snprintf(id, sizeof id, "node-%05d", i);
        seed[i] = plc_hrw_premix(placer_hash64(0, id, strlen(id)));
        inv[i] = c->weighted ? 1.0 / (1 + i % 4) : 1.0;
    }
    plc_hrw_best_fn best = c->weighted ? (c->scalar ? plc_hrw_best_scalar : k->hrw_best)
                                       : (c->scalar ? plc_hrw_best_uniform_scalar
                                                    : k->hrw_best_uniform);
    const ring_fixture *f = bench_fixture(1);
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS))
        for (uint32_t i = 0; i < BENCH_KEYS; i++)
            acc += best(seed, inv, 120, f->hashes[i]);
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
}

/* A weighted membership (120 nodes, weights 1..4: four weight classes)
 * through the snapshot, from precomputed hashes: the chosen kernels, or
 * the scalar ones (snapshot built with every CPU feature hidden). */
static void bench_hrw_classes(plc_bench *b, const void *arg)
{
    const hrw_case *c = arg;
    placer_builder *bld = placer_builder_new();
    placer_builder_set_strategy(bld, PLACER_RENDEZVOUS);
    for (int i = 0; i < 120; i++) {
        char id[16];
        snprintf(id, sizeof id, "node-%05d", i);
        placer_builder_add_node(bld, id, NULL, 1 + i % 4);
    }
    if (c->scalar)
        placer_set_cpu_mask(0);
    placer_snapshot *s = NULL;
    placer_builder_build(bld, 1, &s);
    placer_set_cpu_mask(~0u);
    placer_builder_free(bld);
    const ring_fixture *f = bench_fixture(1);
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS))
        for (uint32_t i = 0; i < BENCH_KEYS; i++)
            acc += (uint32_t)placer_lookup_hash(s, f->hashes[i]);
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    placer_snapshot_free(s);
}

typedef struct jump_case {
    int paper;
    int32_t buckets;
} jump_case;

static void bench_jump(plc_bench *b, const void *arg)
{
    const jump_case *c = arg;
    const ring_fixture *f = bench_fixture(1);
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS))
        for (uint32_t i = 0; i < BENCH_KEYS; i++)
            acc += (uint32_t)(c->paper ? ref_jump_hash(f->hashes[i], c->buckets)
                                       : placer_jump_hash(f->hashes[i], c->buckets));
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
}

static void bench_vbucket_api(plc_bench *b, const void *arg)
{
    (void)arg;
    placer_builder *bld = placer_builder_new();
    placer_builder_set_strategy(bld, PLACER_PARTITIONS);
    placer_builder_set_key_hash(bld, PLACER_HASH_COUCHBASE);
    placer_builder_add_node(bld, "a", NULL, 1);
    placer_snapshot *s = NULL;
    placer_builder_build(bld, 1, &s);
    placer_builder_free(bld);
    const ring_fixture *f = bench_fixture(1);
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS))
        for (uint32_t i = 0; i < BENCH_KEYS; i++)
            acc += (uint32_t)placer_partition(s, f->key_ptrs[i], BENCH_KEY_LEN);
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    placer_snapshot_free(s);
}

void register_strategy_benches(void)
{
    static strat_case cases[NSTRAT * 2 * 2];
    static char names[NSTRAT * 2 * 2][64];
    int k = 0;
    for (int si = 0; si < NSTRAT; si++)
        for (int ni = 0; ni < 2; ni++)
            for (int batch = 0; batch < 2; batch++, k++) {
                cases[k] = (strat_case){si, ni, batch};
                snprintf(names[k], sizeof names[k], "strategy/%s/%u/%s",
                         placer_strategy_name(strategies[si]), node_counts[ni],
                         batch ? "batch" : "single");
                plc_bench_register(names[k], bench_strategy, &cases[k]);
            }
    static const hrw_case hrw[4] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    plc_bench_register("rendezvous_kernel/120/equal_weights/chosen", bench_hrw_kernel, &hrw[0]);
    plc_bench_register("rendezvous_kernel/120/equal_weights/scalar", bench_hrw_kernel, &hrw[1]);
    plc_bench_register("rendezvous_kernel/120/weighted/chosen", bench_hrw_kernel, &hrw[2]);
    plc_bench_register("rendezvous_kernel/120/weighted/scalar", bench_hrw_kernel, &hrw[3]);
    plc_bench_register("rendezvous_classes/120/chosen", bench_hrw_classes, &hrw[2]);
    plc_bench_register("rendezvous_classes/120/scalar", bench_hrw_classes, &hrw[3]);
    static const jump_case jumps[4] = {{0, 120}, {1, 120}, {0, 10000}, {1, 10000}};
    plc_bench_register("jump/120/placer", bench_jump, &jumps[0]);
    plc_bench_register("jump/120/paper", bench_jump, &jumps[1]);
    plc_bench_register("jump/10000/placer", bench_jump, &jumps[2]);
    plc_bench_register("jump/10000/paper", bench_jump, &jumps[3]);
    plc_bench_register("vbucket/32B/placer_partition", bench_vbucket_api, NULL);
}
